#pragma once
// What a run records about the GPU it measured (docs/validation.md: device, driver, clocks, date), and the limits
// its launches must meet, read off the device itself.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "kernels/resolve.hpp"

namespace memsim::validate {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  std::string pci_bus_id;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int64_t l2_bytes = 0;
  int64_t global_memory_bytes = 0;
  int64_t shared_per_block_optin = 0;
  int memory_bus_width_bits = 0;
  int peak_sm_clock_khz = 0;      // cudaDevAttrClockRate
  int peak_memory_clock_khz = 0;  // cudaDevAttrMemoryClockRate
  int cuda_driver_api = 0;        // cudaDriverGetVersion, e.g. 13000
  int cuda_runtime = 0;           // cudaRuntimeGetVersion
  std::string driver_version;     // from nvidia-smi, e.g. "580.159.04"; "unknown" without it
  LaunchLimits limits;
};

// Why no GPU can be used (no device, no driver), or nullopt when one can.
std::optional<std::string> gpu_unavailable_reason();

DeviceInfo query_device(int ordinal = 0);
nlohmann::ordered_json device_json(const DeviceInfo& d);

// The clocks and state nvidia-smi reports now ({} when it cannot be asked): sampled right after timing, they
// show the clocks the measurements ran at, which the run leaves alone.
nlohmann::ordered_json sample_clocks(const DeviceInfo& d);

// Output of a shell command (first line trimmed), or nullopt when it fails.
std::optional<std::string> command_output(const std::string& command);

std::string utc_now_iso8601();

}  // namespace memsim::validate
