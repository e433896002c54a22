#pragma once
// The order in which the blocks resident together reach DRAM: in one contiguous band, as a copy's do, or
// spread over the whole buffer, as the transposed side of a transpose is.
//
// Measured (memsim-microbench --dram-order, lab/calibration/results/h100_dram_order.json, h200_dram_order.json): the
// same bytes copied in 128-byte chunks, one side in transposed order, take longer the more places of the buffer
// the blocks resident together reach at once on that side: as fast as a plain copy with 2 runs a window, then
// more with every doubling, up to 5-8% more (H100; 5-15% on an H200, writes the most) from about 64 runs on,
// whether each run is 66 KB or one chunk. It is not the DRAM pages' reuse (1 to 16 opens a 2 KiB page cost the
// same from 64 runs on); it goes with how many streams the DRAM serves at once. memsim counts it with the block
// schedule of sim/partitions.hpp (blocks resident R at a time in launch order, non-overlapping windows): for
// each direction, a window's distinct 128-byte lines joined into runs of consecutive lines; its streams are its
// lines squared over the sum of its runs squared (n equal runs: n; one long run with a few short ones: about
// 1); the share of its bytes out of order is log2(streams / 2) / log2(64 / 2), from 0 at 2 streams to 1 at 64
// and more. The cost model charges that share of each direction's DRAM bytes a time per byte (model/cost.hpp,
// `cost.scattered_read_ps_per_byte`, `cost.scattered_write_ps_per_byte`).
//
// The windows are sampled (the first full one and the last, evenly spaced ones between if more are asked):
// every window of a launch whose blocks all do the same work sees the same pattern but for where the window
// starts in the grid, and two windows of the H100's 1,056 blocks (padded, 8192x8192) take about 17 ms
// (BM_WindowOrderPadded8192).
#include <cstdint>
#include <functional>

#include "kernels/resolve.hpp"
#include "kernels/site.hpp"

namespace memsim {

// The unit of the runs: a line (a run's length never needs the sector's precision).
constexpr uint64_t kDramOrderLineBytes = 128;

// The streams at which a direction is met in order (a copy's window reads and writes 1; 2 cost no more) and
// from which it is wholly out of order (the microbenchmark's time stops growing).
constexpr double kStreamsInOrder = 2, kStreamsScattered = 64;

struct WindowOrder {
  int64_t resident = 0;  // R: blocks per window
  int windows_sampled = 0;
  // Over the sampled windows, per direction (0 = loads, 1 = stores), each window counted on its own and
  // summed: its distinct lines x 128 (bytes); its streams and its share out of order, each weighted by its
  // bytes.
  double bytes[2] = {0, 0};
  double weighted_streams[2] = {0, 0};
  double scattered_bytes[2] = {0, 0};
  double streams(int op) const;    // bytes-weighted mean over the windows; 0 with no bytes
  double scattered(int op) const;  // the share of the bytes out of order, 0 to 1; 0 with no bytes
};

// The share of a window's bytes out of order for its streams: log2(streams / 2) / log2(32), within [0, 1].
double scattered_share(double streams);

// Emits one global access: direction, byte address, bytes.
using EmitAccess = std::function<void(Op op, uint64_t address, int bytes)>;
// Calls emit for every global access of blocks [first, last) (launch order).
using BlockAccesses = std::function<void(int64_t first, int64_t last, const EmitAccess& emit)>;

// At most `max_windows` windows of `resident` blocks out of `blocks`, their accesses from `accesses`.
// Throws std::invalid_argument for resident < 1 or max_windows < 1.
WindowOrder window_order(int64_t blocks, int64_t resident, int max_windows, const BlockAccesses& accesses);
// A launch's, its accesses from the replay's warp walk (sim/replay.hpp, for_each_warp_access).
WindowOrder window_order(const LaunchConfig& cfg, int64_t resident, int max_windows = 2);

}  // namespace memsim
