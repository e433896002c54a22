#pragma once
// From the replay's per-site counts and its one-block measurements to the launch's counts (core/
// kernel_counts.hpp), the record the cost model reads. replay() calls it (ReplayResult::counts).
#include "core/kernel_counts.hpp"
#include "sim/replay.hpp"

namespace memsim {

// The replay's counts as the cost model reads them (ReplayResult::counts), under these assumptions (each
// checked against ncu on an H100 for the suite):
//  - a block's loads that share a sector hit in L1 (their sectors are fetched from L2 once per block), so
//    L2 load sectors = the ideal sectors of the loads, and DRAM reads = those sectors (every input byte is
//    read once);
//  - stores are written through to L2 per request, one L2 request per line; a request's sectors are partial
//    when the request covers fewer bytes than its sectors hold; L2 completes partial sectors before it
//    evicts them, so DRAM writes = the ideal sectors of the stores;
//  - L1 data-stage wavefronts as the replay counts them (sim/global_sectors.hpp): per group of lanes (32 lanes
//    of 4 bytes or fewer, 16 of 8 bytes, 8 of 16 bytes), the most distinct words one L1 bank delivers, and at
//    least a pass for every 4 lines;
//  - loads in flight per warp from how nvcc schedules the suite's bodies, for a kernel that keeps run-time
//    shapes (a launch with compiled code reads them off it instead: report/launch_prediction.hpp): a body that
//    alternates global loads and global stores keeps one load in flight (a load may not pass a store that
//    may alias it); a body that stages a tile through shared memory, or loads its whole 4x4 footprint before
//    storing, keeps one unrolled step's loads in flight (the loop is unrolled 4 times);
// Without an L2 (compute capability 1.x) every transaction the replay counted goes to DRAM: cached = false and
// DRAM bytes are all sectors moved, with no L2 terms. The DRAM order (dram_scattered) is the replay's own
// (ReplayOptions::dram_order_resident); the compiled code's fields stay unset.
KernelCounts launch_counts(const ReplayResult& r, bool cached = true);

}  // namespace memsim
