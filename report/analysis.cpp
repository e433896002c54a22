#include "report/analysis.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>

#include "kernels/registry.hpp"
#include "model/occupancy.hpp"
#include "model/significant.hpp"
#include "model/user_text.hpp"
#include "report/advice.hpp"
#include "report/launch_prediction.hpp"
#include "report/partition_report.hpp"
#include "report/report.hpp"
#include "sim/launch_size.hpp"

namespace memsim {
namespace {

// A launch no SM can hold fails on the GPU ("too many resources requested"): say which resource, with the
// figures, instead of predicting a time for it.
void require_fit(const DeviceProfile& device, const LaunchConfig& cfg, const LaunchRegisters& regs, const Occupancy& o) {
  if (o.blocks_per_sm > 0) return;
  BlockResources br;
  br.threads = cfg.threads_per_block();
  br.shared_bytes = cfg.shared_bytes;
  if (regs.count > 0) br.regs_per_thread = regs.count;
  std::ostringstream os;
  os << "a block of " << br.threads << " threads";
  if (o.limiter == "registers") {
    const int64_t warps = (br.threads + 31) / 32;
    os << " with " << br.regs_per_thread << " registers a thread";
    if (regs.basis != kRegistersGiven) os << " (" << regs.basis << ")";
    os << " does not fit on an SM of " << device.name << ": ";
    if (br.regs_per_thread > device.max_regs_per_thread)
      os << "at most " << device.max_regs_per_thread << " registers a thread";
    else
      os << "it needs about " << int64_t(br.regs_per_thread) * 32 * warps << " registers, a block may have "
         << std::min(device.max_regs_per_block, device.regs_per_sm);
    os << " (--regs sets the count; a smaller block, or __launch_bounds__ in the kernel, needs fewer)";
  } else if (o.limiter == "shared memory") {
    os << " with " << br.shared_bytes << " bytes of shared memory does not fit on an SM of " << device.name
       << " (" << device.shared_per_sm << " bytes, " << device.reserved_shared_per_block << " reserved a block)";
  } else {
    os << " does not fit on an SM of " << device.name << " (" << o.limiter << ")";
  }
  throw ConfigError(os.str());
}

// Partition traffic costs replay time; it is counted when asked for, or when the device's mapping is public
// (GT200, G80), where camping is a real effect rather than an assumption. It needs every block's addresses:
// those launches are replayed in full (sim/replay.hpp).
bool counts_partitions(const DeviceProfile& device, const AnalysisOptions& options) {
  return options.partitions || options.resident_blocks || !device.partitions.assumed;
}

}  // namespace

// --regs, else the registers of the configuration's compiled code where the code cache holds it (compile_batch
// fills it before the occupancy is worked out), else the profile's count for the kernel and dtype (measured on
// the GPU at the suite's default configuration), else the assumed 32.
LaunchRegisters launch_registers(const DeviceProfile& device, const AnalysisOptions& options, const LaunchConfig& cfg) {
  if (options.regs) return {*options.regs, kRegistersGiven};
  if (const std::string arch = sass_arch(device.compute_capability); !options.runtime_shape && !arch.empty()) {
    CodegenOptions co;
    co.compile = options.compile;
    co.arch = arch;
    if (const std::optional<int> r = compiled_registers(cfg, co))
      return {*r, "compiled: nvcc " + find_toolkit().version + " for sm_" + arch};
  }
  if (const int r = kernel_registers(device, cfg.kernel->name, cfg.dtype); r > 0)
    return {r, "the profile's count for " + std::string(cfg.kernel->name) + " " + dtype_name(cfg.dtype) +
                   " (not compiled here)"};
  return {0, "assumed: 32 (no count for this kernel)"};
}

namespace {

// The budget of a partition replay, said before anything is replayed (docs/cli.md, "Partition windows"): its
// replay is a full one (at most 2^29 warp steps, resolve_launch_any_size), each replay thread keeps a window
// counter of 2 x partitions 64-bit counts for every gcd(R, step) blocks, at most kMaxCounterBytes, and the
// report keeps at most kMaxKeptCounts of the windows' counts. --window-step 1 on 2^24 blocks wanted 2.5 GiB a
// thread (5.25 GB and 169 s in all).
constexpr int64_t kMaxCounterBytes = int64_t(1) << 27;  // 128 MiB a replay thread
constexpr int64_t kMaxKeptCounts = int64_t(1) << 22;     // window x partition x direction counts in the report

std::string mib(double bytes) {
  std::ostringstream os;
  os.precision(3);
  os << bytes / double(1 << 20) << " MiB";
  return os.str();
}

// R, the blocks resident at once, for the partition windows: --resident-blocks, else every SM holds as many
// blocks as occupancy allows, capped by the launch.
int64_t partition_resident(const DeviceProfile& device, const LaunchConfig& cfg, const AnalysisOptions& options,
                           const Occupancy& o) {
  return options.resident_blocks ? *options.resident_blocks : resident_blocks(device.sms, o.blocks_per_sm, cfg.blocks());
}

void check_partition_budget(const DeviceProfile& device, const LaunchConfig& cfg, const AnalysisOptions& options,
                            const Occupancy& o) {
  const int64_t resident = partition_resident(device, cfg, options, o);
  const BlockSchedule s = block_schedule(cfg.blocks(), resident, options.window_step);
  const int64_t group = std::gcd(s.resident, s.step);
  const int64_t groups = (s.blocks + group - 1) / group;
  const double counter_bytes = double(groups) * 2 * device.partitions.count * 8;
  if (counter_bytes > double(kMaxCounterBytes)) {
    std::ostringstream os;
    os << "the partition windows of this launch need a counter for every " << group << (group == 1 ? " block" : " blocks")
       << " (" << groups << " of " << 2 * device.partitions.count << " counts: " << mib(counter_bytes)
       << " a replay thread), more than a partition replay's budget of " << mib(double(kMaxCounterBytes))
       << "; choose a --window-step sharing a larger factor with R = " << s.resident << " (0: waves; R/2, R/4, ...), "
       << "or a larger block or tile";
    throw ConfigError(os.str());
  }
  const int64_t kept = std::min(window_count(s), options.max_windows);
  const double kept_counts = double(kept) * 2 * device.partitions.count;
  if (kept_counts > double(kMaxKeptCounts)) {
    std::ostringstream os;
    os << "--max-windows " << options.max_windows << " keeps " << kept << " of this launch's " << window_count(s)
       << " partition windows (" << kept_counts << " counts), more than a report's budget of 2^22 counts; choose "
       << "--max-windows " << std::max<int64_t>(1, kMaxKeptCounts / (2 * device.partitions.count)) << " or fewer";
    throw ConfigError(os.str());
  }
}

// The copy kernel's launch at user's matrix, dtype and block (its own default tile and pad), resolved as
// predict_copy replays it; throws ConfigError where copy cannot run it.
LaunchConfig copy_launch(const UserConfig& user, const DeviceProfile& device, const AnalysisOptions& options) {
  UserConfig copy = user;
  copy.kernel = "copy";
  copy.tile.reset();
  copy.pad.reset();
  return resolve_launch_any_size(copy, launch_limits(device), memory_rules(device), options.exact);
}

// The replay's progress callback for `stage`, or none.
std::function<void(int64_t, int64_t)> progress_of(const AnalysisOptions& options, const std::string& stage) {
  if (!options.progress) return {};
  return [&options, stage](int64_t done, int64_t total) { options.progress(stage, done, total); };
}

}  // namespace

void check_analysis_options(const DeviceProfile& device, const AnalysisOptions& options) {
  if (const std::string key = unknown_kernel_register_key(device.kernel_registers); !key.empty())
    throw ProfileError("device " + device.name + ": field 'kernel_registers." + echo_text(key) +
                       "' names no kernel (memsim --list-kernels)");
  if (options.regs && (*options.regs < 1 || *options.regs > device.max_regs_per_thread))
    throw ConfigError("--regs must be between 1 and " + std::to_string(device.max_regs_per_thread) + " (" +
                      device.name + "'s registers a thread)");
  if (options.window_step < 0) throw ConfigError("--window-step must be 0 (waves) or positive");
  if (options.max_windows < 1) throw ConfigError("--max-windows must be at least 1");
  // At least one warp instruction, and fewer than 10^15 (days of issue on any GPU): above that the time is
  // no longer a number a user meant. The negated comparisons also refuse NaN.
  if (options.instructions && (!(*options.instructions >= 1) || !(*options.instructions <= 1e15)))
    throw ConfigError("--instructions must be a number of warp instructions from 1 to 1e15");
  const int64_t most_resident = int64_t(device.sms) * device.max_blocks_per_sm;
  if (options.resident_blocks && (*options.resident_blocks < 1 || *options.resident_blocks > most_resident))
    throw ConfigError("--resident-blocks must be between 1 and " + std::to_string(most_resident) + " (" + device.name +
                      ": " + std::to_string(device.sms) + " SMs x " + std::to_string(device.max_blocks_per_sm) +
                      " blocks)");
  // --resident-blocks sizes the partition windows; alone on a device whose mapping is assumed it would switch
  // the assumed mapping on unasked, as --window-step would.
  if (options.resident_blocks && !options.partitions && device.partitions.assumed)
    throw ConfigError("--resident-blocks sizes the partition windows, which " + device.name +
                      " counts only with --partitions (its partition mapping is assumed)");
  const bool count_partitions = counts_partitions(device, options);
  if (options.window_options_given && !count_partitions)
    throw ConfigError("--window-step and --max-windows shape the partition windows, which " + device.name +
                      " counts only with --partitions (its partition mapping is assumed)");
}

void compile_launch_code(const std::vector<std::pair<UserConfig, LaunchConfig>>& launches, const DeviceProfile& device,
                         const AnalysisOptions& options, bool with_copy, const std::function<void(int, int)>& progress) {
  const std::string arch = sass_arch(device.compute_capability);
  if (options.runtime_shape || arch.empty() || launches.empty()) return;
  std::vector<LaunchConfig> code;
  for (const auto& [user, launch] : launches) {
    code.push_back(launch);
    if (!with_copy) continue;
    try {
      code.push_back(copy_launch(user, device, options));
    } catch (const ConfigError&) {  // copy cannot run this launch: nothing of it to compile
    }
  }
  CodegenOptions co;
  co.compile = options.compile;
  co.arch = arch;
  compile_batch(code, co, progress);
}

namespace {

// resolve_analysis, and the launch's occupancy it worked out: the one the analysis uses throughout.
// With `compile`, the configuration's code (and the copy kernel's where options.predict_copy) is compiled first
// where the toolkit is and the cache has none, so that the occupancy reads its registers.
LaunchConfig resolve_with_occupancy(const UserConfig& user, const DeviceProfile& device,
                                    const AnalysisOptions& options, Occupancy& occupancy, bool compile) {
  // A kernel the device cannot run is refused, not predicted.
  if (const std::string why = dtype_refusal(device, user.dtype); !why.empty()) throw ConfigError(why);
  check_analysis_options(device, options);
  const bool count_partitions = counts_partitions(device, options);
  // The input and the output must fit in the device's memory, where the profile says how much it has.
  if (const double bytes = 2.0 * double(user.matrix.x) * double(user.matrix.y) * dtype_bytes(user.dtype);
      device.dram_bytes > 0 && bytes > double(device.dram_bytes)) {
    std::ostringstream os;
    os << "matrix " << user.matrix.x << "x" << user.matrix.y << " " << dtype_name(user.dtype) << " needs "
       << significant(bytes / 1e9, 3) << " GB for its input and output; " << device.name << " has "
       << significant(double(device.dram_bytes) / 1e9, 3) << " GB (dram.bytes)";
    throw ConfigError(os.str());
  }
  const LaunchConfig cfg =
      resolve_launch_any_size(user, launch_limits(device), memory_rules(device), options.exact || count_partitions,
                              options.exact ? "--exact asks for the full replay"
                                            : "partition traffic is counted, which replays every block");
  if (compile)
    compile_launch_code({{user, cfg}}, device, options, options.predict_copy, [&options](int done, int total) {
      if (options.progress) options.progress("compiling the code nvcc generates", done, total);
    });
  const LaunchRegisters regs = launch_registers(device, options, cfg);
  occupancy = launch_occupancy(device, cfg, regs);
  require_fit(device, cfg, regs, occupancy);
  if (count_partitions) {
    if (const std::string why = check_partition_spec(device.partitions); !why.empty())
      throw ConfigError("device " + device.name + ": " + why);
    check_partition_budget(device, cfg, options, occupancy);
  }
  return cfg;
}

}  // namespace

LaunchConfig resolve_analysis(const UserConfig& user, const DeviceProfile& device, const AnalysisOptions& options) {
  Occupancy occupancy;
  return resolve_with_occupancy(user, device, options, occupancy, false);
}

Prediction predict_copy(const UserConfig& user, const DeviceProfile& device, const AnalysisOptions& options) {
  // The copy kernel on the same matrix, dtype and block; its traffic does not camp.
  const LaunchConfig copy_cfg = copy_launch(user, device, options);
  PredictOptions copy_popts;
  const LaunchRegisters regs = launch_registers(device, options, copy_cfg);
  copy_popts.regs_per_thread = regs.count;
  copy_popts.runtime_shape = options.runtime_shape;
  copy_popts.compile = options.compile;
  copy_popts.occupancy = launch_occupancy(device, copy_cfg, regs);
  ReplayOptions copy_opts;
  prepare_replay(copy_opts, device, copy_cfg, *copy_popts.occupancy);
  copy_opts.threads = options.threads;
  copy_opts.exact = options.exact;
  copy_opts.progress = progress_of(options, "replaying copy, for the fraction of copy");
  return predict(replay(copy_cfg, copy_opts), device, copy_popts);
}

Analysis analyze(const UserConfig& user, const DeviceProfile& device, const AnalysisOptions& options) {
  Analysis a;
  Occupancy occupancy;
  // The configuration's code (and the copy kernel's, for the fraction of copy) is compiled first, where the
  // toolkit is and the cache has none: the occupancy reads its registers, predict() its instructions.
  a.config = resolve_with_occupancy(user, device, options, occupancy, true);
  const bool count_partitions = counts_partitions(device, options);
  ReplayOptions ropts;
  prepare_replay(ropts, device, a.config, occupancy);
  ropts.threads = options.threads;
  ropts.exact = options.exact;
  ropts.keep_first_block_shared = options.keep_first_block_shared;
  ropts.progress = progress_of(options, "replaying " + std::string(a.config.kernel->name) + " " +
                                            std::to_string(a.config.shape.width) + "x" +
                                            std::to_string(a.config.shape.height) + " " + dtype_name(a.config.dtype));

  std::unique_ptr<PartitionTrafficSink> counter;
  if (count_partitions) {
    const int64_t resident = partition_resident(device, a.config, options, occupancy);
    counter = std::make_unique<PartitionTrafficSink>(
        device.partitions, block_schedule(a.config.blocks(), resident, options.window_step), ropts.rules.sector_bytes);
    ropts.sector_sink_prototype = counter.get();
  }
  a.replay = replay(a.config, ropts);

  PredictOptions popts;
  popts.regs_per_thread = occupancy.regs_per_thread;
  if (options.instructions) popts.instructions = *options.instructions;
  if (options.dram_read_bytes) popts.dram_read_bytes = *options.dram_read_bytes;
  if (options.l2_write_sectors) popts.l2_write_sectors = *options.l2_write_sectors;
  popts.runtime_shape = options.runtime_shape;
  popts.compile = options.compile;
  popts.occupancy = occupancy;
  if (a.replay.sectors) {
    a.partitions = summarize_partition_traffic(static_cast<const PartitionTrafficSink&>(*a.replay.sectors),
                                               options.max_windows);
    // The camped direction paces each window (sim/partitions.hpp, "paced"): it scales the DRAM term.
    popts.partition_imbalance = std::max(1.0, a.partitions->paced.imbalance);
  }
  a.prediction = predict(a.replay, device, popts);

  if (std::string(a.config.kernel->name) == "copy") {
    a.prediction.fraction_of_copy = 1.0;
  } else if (options.predict_copy) {
    a.prediction.fraction_of_copy = predict_copy(user, device, options).time_us / a.prediction.time_us;
  }
  a.device = device;
  a.fraction_of_attainable = fraction_of_attainable(a.prediction.effective_bandwidth_gbs, device);
  // What limits the launch and the one change that would help most, from the counts above.
  a.advice = advise(advice_counts(a, device));
  return a;
}

}  // namespace memsim
