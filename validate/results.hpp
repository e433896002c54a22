#pragma once
// Plain records of what one run found: per configuration its output check, timing, memsim's predicted counts
// and the measured counters; per matrix and dtype the baselines. validate/report.hpp turns them into JSON,
// CSV and Markdown.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/resolve.hpp"
#include "sim/replay.hpp"
#include "validate/address_check.hpp"
#include "validate/measure.hpp"
#include "validate/reference.hpp"
#include "validate/sweep.hpp"

namespace memsim::validate {

// The cost model's time for a configuration (memsim::predict on the replayed counts), beside the measured one.
struct ModelPrediction {
  double time_us = 0;
  double effective_bandwidth_gbs = 0;
  std::string bottleneck;
  std::string model;  // which model and device profile produced it
};

struct ConfigResult {
  LaunchConfig cfg;
  std::optional<OutputCheck> check;         // absent only if the run stopped before checking
  std::optional<TimingStats> timing;        // absent with --check-only
  std::vector<Metric> predicted;            // memsim::replay counts (ncu names); empty with --check-only
  int64_t replay_findings = 0;              // misaligned or out-of-bounds lane accesses the replay reported
  std::optional<ModelPrediction> model;     // memsim::predict on --profile; absent with --check-only
  std::map<std::string, double> measured;   // Nsight Compute, empty without --ncu
  // Upper ends of counts memsim brackets from below: smsp__inst_executed_op_shared_{ld,st}.sum as the warp
  // instructions reached with all-off lanes counted too (validate/reached.hpp).
  std::map<std::string, int64_t> upper_bounds;
  std::string ncu_kernel_name;
  std::string shape_kind;  // "static" (compile-time shape) or "dynamic" (run-time LaunchShape) on the GPU
  // What the GPU build's kernel takes and holds (cudaFuncGetAttributes, cudaOccupancyMaxActiveBlocksPerMultiprocessor
  // with the launch's dynamic shared memory), beside what memsim's occupancy assumed (its register table): the
  // resident blocks set the shared-memory carve-out and the L1 left beside it (model/occupancy.hpp). 0: not read.
  int registers_per_thread = 0, blocks_per_sm = 0;
  int predicted_registers_per_thread = 0, predicted_blocks_per_sm = 0;
  int64_t predicted_l1_bytes = 0;
};

struct Baseline {
  std::string name;    // "copy_kernel", "cudaMemcpy_d2d", "cublas_geam", "cute_transpose", "reference ..."
  std::string detail;  // what exactly ran, e.g. "suite kernel copy, block 32x8, tile 32x32"
  bool available = true;
  std::string note;    // why it is unavailable
  std::optional<TimingStats> timing;
  std::optional<OutputCheck> check;
  OutputKind output = OutputKind::Copy;  // what its output holds
  // A hand-written reference (validate/reference_kernels.hpp): the suite kernel and block it stands beside,
  // and its Nsight Compute counters (empty without --ncu). Empty kernel for the library baselines.
  std::string reference_of;
  int block_x = 0, block_y = 0;
  // What the ncu child launches of it, as part of its __global__ function's name (kReferenceKernelPrefix,
  // kCuteKernelName); empty for cudaMemcpy, cuBLAS and the copy kernel, which are not profiled.
  std::string ncu_kernel;
  std::map<std::string, double> measured;
  std::string ncu_kernel_name;
};

struct GroupResult {
  Size2 matrix;
  Dtype dtype = Dtype::F32;
  int64_t matrix_bytes = 0;
  int buffer_pairs = 0;
  std::vector<Baseline> baselines;
  nlohmann::ordered_json clocks_after_timing = nlohmann::ordered_json::object();
};

struct AddressCheckResult {
  LaunchConfig cfg;
  AddressCheck check;
};

struct RunResult {
  nlohmann::ordered_json context = nlohmann::ordered_json::object();  // command line, device, git, date...
  std::string mode;  // "measure", "check-only", "check-addresses"
  bool counts_gate = true;  // counts outside their tolerance fail the run (off: --counts-informational)
  std::vector<GroupResult> groups;
  std::vector<ConfigResult> configs;
  std::vector<Skipped> skipped;
  std::vector<AddressCheckResult> address_checks;
  nlohmann::ordered_json ncu = nlohmann::ordered_json::object();  // {"status": ..., "command": ..., ...}
};

}  // namespace memsim::validate
