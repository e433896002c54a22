#include "app/analysis.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "app/partition_report.hpp"
#include "app/report.hpp"
#include "model/occupancy.hpp"

namespace memsim {
namespace {

// R, the blocks resident at once: every SM holds as many blocks as occupancy allows, capped by the launch.
int64_t resident_for(const DeviceProfile& device, const LaunchConfig& cfg, int regs) {
  BlockResources br;
  br.threads = cfg.threads_per_block();
  br.shared_bytes = cfg.shared_bytes;
  if (regs > 0) br.regs_per_thread = regs;
  return resident_blocks(device.sms, occupancy(device, br).blocks_per_sm, cfg.blocks());
}

}  // namespace

Analysis analyze(const UserConfig& user, const DeviceProfile& device, const AnalysisOptions& options) {
  if (options.regs && (*options.regs < 1 || *options.regs > 255))
    throw ConfigError("--regs must be between 1 and 255");
  if (options.window_step < 0) throw ConfigError("--window-step must be 0 (waves) or positive");
  if (options.max_windows < 1) throw ConfigError("--max-windows must be at least 1");
  // !(x > 0) also refuses NaN.
  if (options.instructions && (!(*options.instructions > 0) || !std::isfinite(*options.instructions)))
    throw ConfigError("--instructions must be a positive number of warp instructions");
  if (options.resident_blocks && *options.resident_blocks < 1)
    throw ConfigError("--resident-blocks must be at least 1");

  Analysis a;
  a.config = resolve_launch(user, launch_limits(device));
  const int regs = options.regs ? *options.regs : kernel_registers(device, a.config.kernel->name, a.config.dtype);

  ReplayOptions ropts;
  ropts.threads = options.threads;
  ropts.rules = memory_rules(device);
  // Partition traffic costs replay time; it is counted when asked for, or when the device's mapping is public
  // (GT200, G80), where camping is a real effect rather than an assumption.
  std::unique_ptr<PartitionTrafficSink> counter;
  if (options.partitions || options.resident_blocks || !device.partitions.assumed) {
    if (const std::string why = check_partition_spec(device.partitions); !why.empty())
      throw ConfigError("device " + device.name + ": " + why);
    const int64_t resident = options.resident_blocks ? *options.resident_blocks : resident_for(device, a.config, regs);
    counter = std::make_unique<PartitionTrafficSink>(
        device.partitions, block_schedule(a.config.blocks(), resident, options.window_step), ropts.rules.sector_bytes);
    ropts.sector_sink_prototype = counter.get();
  }
  a.replay = replay(a.config, ropts);
  a.report = replay_json(a.replay);

  PredictOptions popts;
  popts.regs_per_thread = regs;
  if (options.instructions) popts.instructions = *options.instructions;
  if (a.replay.sectors) {
    a.partitions = summarize_partition_traffic(static_cast<const PartitionTrafficSink&>(*a.replay.sectors),
                                               options.max_windows);
    // The camped direction paces each window (sim/partitions.hpp, "paced"): it scales the DRAM term.
    popts.partition_imbalance = std::max(1.0, a.partitions->paced.imbalance);
    a.report["partitions"] = partition_json(*a.partitions);
  }
  a.prediction = predict(a.replay, device, popts);

  if (std::string(a.config.kernel->name) == "copy") {
    a.prediction.fraction_of_copy = 1.0;
  } else if (options.predict_copy) {
    // The copy kernel on the same matrix, dtype and block; its traffic does not camp.
    UserConfig copy_user = user;
    copy_user.kernel = "copy";
    copy_user.tile.reset();
    copy_user.pad.reset();
    const LaunchConfig copy_cfg = resolve_launch(copy_user, launch_limits(device));
    ReplayOptions copy_opts = ropts;
    copy_opts.sector_sink_prototype = nullptr;
    PredictOptions copy_popts;
    copy_popts.regs_per_thread = options.regs ? *options.regs : kernel_registers(device, "copy", a.config.dtype);
    const Prediction copy = predict(replay(copy_cfg, copy_opts), device, copy_popts);
    a.prediction.fraction_of_copy = copy.time_us / a.prediction.time_us;
  }
  a.report["prediction"] = to_json(a.prediction, &device);
  return a;
}

}  // namespace memsim
