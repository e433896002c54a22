#include "validate/device_info.hpp"

#include <cuda_runtime.h>

#include <array>
#include <cstdio>
#include <ctime>
#include <sstream>
#include <vector>

#include "validate/cuda_check.hpp"
#include "validate/sweep.hpp"

namespace memsim::validate {

std::optional<std::string> gpu_unavailable_reason() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    cudaGetLastError();  // clear it: the caller only wants the reason
    return std::string("no usable CUDA GPU (cudaGetDeviceCount: ") + cudaGetErrorName(err) + ", " +
           cudaGetErrorString(err) + ")";
  }
  if (count == 0) return std::string("no CUDA GPU found (cudaGetDeviceCount returned 0)");
  return std::nullopt;
}

std::optional<std::string> command_output(const std::string& command) {
  FILE* pipe = popen((command + " 2>/dev/null").c_str(), "r");
  if (!pipe) return std::nullopt;
  std::string text;
  std::array<char, 512> buf{};
  while (fgets(buf.data(), int(buf.size()), pipe)) text += buf.data();
  if (pclose(pipe) != 0 || text.empty()) return std::nullopt;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  return text;
}

DeviceInfo query_device(int ordinal) {
  DeviceInfo d;
  d.ordinal = ordinal;
  MEMSIM_CUDA_CHECK(cudaSetDevice(ordinal));
  cudaDeviceProp p{};
  MEMSIM_CUDA_CHECK(cudaGetDeviceProperties(&p, ordinal));
  d.name = p.name;
  char bus[64] = {0};
  MEMSIM_CUDA_CHECK(cudaDeviceGetPCIBusId(bus, int(sizeof(bus)), ordinal));
  d.pci_bus_id = bus;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.l2_bytes = p.l2CacheSize;
  d.global_memory_bytes = int64_t(p.totalGlobalMem);
  d.shared_per_block_optin = int64_t(p.sharedMemPerBlockOptin);
  d.memory_bus_width_bits = p.memoryBusWidth;
  MEMSIM_CUDA_CHECK(cudaDeviceGetAttribute(&d.peak_sm_clock_khz, cudaDevAttrClockRate, ordinal));
  MEMSIM_CUDA_CHECK(cudaDeviceGetAttribute(&d.peak_memory_clock_khz, cudaDevAttrMemoryClockRate, ordinal));
  MEMSIM_CUDA_CHECK(cudaDriverGetVersion(&d.cuda_driver_api));
  MEMSIM_CUDA_CHECK(cudaRuntimeGetVersion(&d.cuda_runtime));
  d.driver_version =
      command_output("nvidia-smi --query-gpu=driver_version --format=csv,noheader -i " + d.pci_bus_id).value_or("unknown");

  LaunchLimits& l = d.limits;
  l.max_threads_per_block = p.maxThreadsPerBlock;
  l.max_block_x = p.maxThreadsDim[0];
  l.max_block_y = p.maxThreadsDim[1];
  l.max_shared_per_block = d.shared_per_block_optin;  // with cudaFuncSetAttribute past 48 KB
  l.max_grid_x = p.maxGridSize[0];
  l.max_grid_y = p.maxGridSize[1];
  return d;
}

nlohmann::ordered_json device_json(const DeviceInfo& d) {
  const LaunchLimits& l = d.limits;
  return {
      {"name", d.name},
      {"ordinal", d.ordinal},
      {"pci_bus_id", d.pci_bus_id},
      {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
      {"sm_count", d.sm_count},
      {"l2_bytes", d.l2_bytes},
      {"global_memory_bytes", d.global_memory_bytes},
      {"memory_bus_width_bits", d.memory_bus_width_bits},
      {"peak_sm_clock_mhz", d.peak_sm_clock_khz / 1000.0},
      {"peak_memory_clock_mhz", d.peak_memory_clock_khz / 1000.0},
      {"driver_version", d.driver_version},
      {"cuda_driver_api_version", d.cuda_driver_api},
      {"cuda_runtime_version", d.cuda_runtime},
      {"launch_limits",
       {{"max_threads_per_block", l.max_threads_per_block},
        {"max_block", {l.max_block_x, l.max_block_y}},
        {"max_shared_per_block", l.max_shared_per_block},
        {"max_grid", {l.max_grid_x, l.max_grid_y}}}},
  };
}

nlohmann::ordered_json sample_clocks(const DeviceInfo& d) {
  static const std::vector<std::string> fields{"clocks.sm",     "clocks.mem", "clocks.max.sm",
                                               "clocks.max.mem", "pstate",     "temperature.gpu",
                                               "power.draw"};
  std::string query;
  for (const std::string& f : fields) query += (query.empty() ? "" : ",") + f;
  const std::optional<std::string> line = command_output("nvidia-smi --query-gpu=" + query +
                                                         " --format=csv,noheader,nounits -i " + d.pci_bus_id);
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  if (!line) return j;
  const std::vector<std::string> values = split_list(*line);
  for (size_t i = 0; i < fields.size() && i < values.size(); ++i) j[fields[i]] = values[i];
  j["source"] = "nvidia-smi (MHz, C, W)";
  return j;
}

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace memsim::validate
