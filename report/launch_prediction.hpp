#pragma once
// From a launch's replay to its prediction on a device: the replay measures the addresses (sim/replay.hpp:
// ReplayResult::counts), the compiled code adds its instructions (codegen/compiled_code.hpp), the cost model
// predicts (model/cost.hpp). The replay is told beforehand what the prediction will need of it: the device's
// memory rules, whether it has an L2, and the blocks resident at once for the DRAM order (prepare_replay).
#include <cstdint>
#include <string>

#include "codegen/compiled_code.hpp"
#include "model/cost.hpp"
#include "model/occupancy.hpp"
#include "model/profile.hpp"
#include "sim/replay.hpp"

namespace memsim {

// Whether the device's global accesses go through an L2 of sectors (ReplayOptions::cached).
bool has_sector_l2(const DeviceProfile& p);

// The occupancy of cfg's block on the device, with `regs` registers a thread (0: the assumed 32, as predict()
// takes them).
Occupancy launch_occupancy(const DeviceProfile& p, const LaunchConfig& cfg, int regs);

// The registers a thread a launch's occupancy reads, and where they come from, as the outputs name it.
struct LaunchRegisters {
  int count = 0;  // 0: the assumed 32
  std::string basis;
};
inline constexpr const char* kRegistersGiven = "given (--regs)";
// The same occupancy, which keeps the registers' basis.
Occupancy launch_occupancy(const DeviceProfile& p, const LaunchConfig& cfg, const LaunchRegisters& regs);

// What the replay of cfg must count for a prediction on the device: its memory rules, its L2, and the DRAM
// order over windows of the blocks resident at once (from `occupancy`) where the profile charges it.
void prepare_replay(ReplayOptions& ro, const DeviceProfile& p, const LaunchConfig& cfg, const Occupancy& occupancy);

// The compiled code's part of the counts: the launch's warp instructions along its SASS paths and the loads a
// warp keeps in flight (a static shape runs its compiled path: nvcc unrolls every walk, and a warp issues the
// loads between two waits for a loaded register at once; codegen/sass_paths.hpp).
void add_compiled_code(KernelCounts& c, const ReplayResult& r, const CompiledCode& code);

// A caveat (time likely high) where the code is estimated, its lanes load kEstimateLongWalkBytes or more before
// their first global store (codegen/code_estimate.hpp: the estimate's loads in flight are often short of the
// compiled code's there) and the latency term is at least half the time.
void add_long_walk_caveat(Prediction& pr, const CompiledCode& code, const KernelCounts& c);

// The prediction of a replay prepared for this device (prepare_replay; std::logic_error otherwise): the
// replay's counts, the compiled code's instructions where the launch has a compile-time shape on a device
// memsim reads code for, the cost model.
Prediction predict(const ReplayResult& r, const DeviceProfile& p, const PredictOptions& o = {});

}  // namespace memsim
