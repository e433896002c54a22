#pragma once
// One analysis of a launch on a device, as memsim prints it: resolve the launch against the device's limits,
// replay it (with the partition counter when asked for or when the device's mapping is public), predict its
// time with the cost model (the partition imbalance scaling the DRAM term) and, for the fraction of copy, the
// copy kernel's time on the same matrix. The memsim command, the validation program and the tests call this.
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "kernels/resolve.hpp"
#include "model/cost.hpp"
#include "model/profile.hpp"
#include "report/advice.hpp"
#include "report/launch_prediction.hpp"
#include "sim/partitions.hpp"
#include "sim/replay.hpp"

namespace memsim {

struct AnalysisOptions {
  int threads = 0;                          // replay workers (0: all hardware threads)
  std::optional<int> regs;                  // registers per thread (default: the compiled code's, else the profile's count, else 32)
  std::optional<double> instructions;       // warp instructions the launch executes, replacing the estimate
  std::optional<double> dram_read_bytes;    // bytes the launch reads from DRAM, replacing the modelled read-back
  std::optional<double> l2_write_sectors;   // sector writes the L2 receives from the stores (pieces merged beyond them)
  // The kernel keeps run-time shapes (--runtime-shape): its instructions are estimated from the replay's
  // operations, not read off the code nvcc generates for its compile-time shape (codegen/compiled_code.hpp).
  bool runtime_shape = false;
  bool compile = true;  // false (--no-compile): never run the toolkit; the cache, the shipped table or the estimate
  bool partitions = false;                  // count partition traffic even where the mapping is assumed
  std::optional<int64_t> resident_blocks;   // R for the partition windows (default: SMs x occupancy)
  int64_t window_step = 0;                  // retirements between windows (0: non-overlapping waves)
  int64_t max_windows = 256;                // windows kept in the JSON
  bool window_options_given = false;        // --window-step or --max-windows on the command line
  bool predict_copy = true;                 // also predict the copy kernel, for fraction_of_copy
  bool exact = false;                       // replay every block, not one of each class (sim/block_classes.hpp)
  bool keep_first_block_shared = false;     // the bank map's accesses (ReplayOptions::keep_first_block_shared)
  // Told what is being replayed ("replaying padded 8192x8192 f32") and how many of its blocks are done, during
  // replays of every block (ReplayOptions::progress: from worker threads).
  std::function<void(const std::string& stage, int64_t done, int64_t total)> progress;
};

// What a report prints, every format from these typed results (report/report.hpp).
struct Analysis {
  LaunchConfig config;
  ReplayResult replay;
  std::optional<PartitionTraffic> partitions;
  Prediction prediction;
  DeviceProfile device;  // the profile it was predicted on: each format names it and where its constants come from
  // The effective bandwidth over what the card reaches (fraction_of_copy's neighbour); none where the profile
  // has no figure for it.
  std::optional<double> fraction_of_attainable;
  Advice advice;  // what limits the launch and the one change that would help most
};

// Throws ConfigError for a launch or option the device does not allow.
Analysis analyze(const UserConfig& user, const DeviceProfile& device, const AnalysisOptions& options = {});
// The copy kernel's prediction on the same matrix, dtype and block (its traffic does not camp): what
// fraction_of_copy divides by. Throws ConfigError when the copy kernel cannot run that launch.
Prediction predict_copy(const UserConfig& user, const DeviceProfile& device, const AnalysisOptions& options = {});
// The options' own checks, which no launch changes (--regs, --instructions, --resident-blocks, the partition
// windows' options): the ConfigError resolve_analysis throws for them, after a dtype the device lacks.
void check_analysis_options(const DeviceProfile& device, const AnalysisOptions& options = {});
// The code nvcc generates for each launch (and for the copy kernel at its matrix, dtype and block, with_copy),
// compiled in one batch of parallel nvcc runs where the toolkit is and the cache has none
// (codegen/compiled_code.hpp); the analyses then read it from the cache. Nothing for --runtime-shape.
void compile_launch_code(const std::vector<std::pair<UserConfig, LaunchConfig>>& launches, const DeviceProfile& device,
                         const AnalysisOptions& options, bool with_copy, const std::function<void(int, int)>& progress);

// The registers a thread cfg's occupancy reads: --regs, else its compiled code's where the code cache holds it
// (compile_launch_code fills it), else the profile's count for the kernel and dtype, else the assumed 32; with
// where they come from.
LaunchRegisters launch_registers(const DeviceProfile& device, const AnalysisOptions& options, const LaunchConfig& cfg);

// The launch analyze would replay, with every option and limit it checks checked, and nothing replayed: the
// same ConfigError, in the same order (the fuzz target resolves launches too large to replay with it). It
// compiles nothing: the occupancy reads the registers the code cache already holds.
LaunchConfig resolve_analysis(const UserConfig& user, const DeviceProfile& device, const AnalysisOptions& options = {});

}  // namespace memsim
