#pragma once
// The compiled code's size without a compiler: a line over what the replay sees one warp of the launch's first
// block do. A static shape's body is one straight path of SASS, unrolled: each memory access the warp makes is
// one instruction plus the address and predicate work nvcc leaves around it, more where its walk is one the
// block does not divide (every step tests its position), and each matrix row its global loads and stores step
// to costs a row pointer (the row pitch is a launch value; the walks' column steps fold into immediates), after
// a prologue (block origin, thread coordinates, diagonal's divisions) that is the kernel's own. Each suite
// kernel's line is fitted on its compiled configurations in the shipped table and a training sweep of blocks
// and tiles; a kernel with none takes the line of all of them (lab/calibration/code_estimate/
// fit_code_estimate.py; judged on the held-out sweep, docs/model.md "The instruction estimate").
#include "codegen/sass_paths.hpp"
#include "kernels/resolve.hpp"
#include "sim/busiest_warp.hpp"

namespace memsim {

// Per warp: the warp of block 0 that makes the most accesses (a full warp of an inner tile).
struct CodeFeatures : BusiestWarp {
  int warps_in_block = 0;
  const char* kernel = nullptr;  // its own line where the fit has one (a suite kernel)
};
// From the busiest warp of the replay's first block (sim/replay.hpp: ReplayResult::first_block, or
// first_block_warps).
CodeFeatures code_features(const LaunchConfig& cfg, const BusiestWarp& first_block);

// The rule's instructions along the inner and the edge paths, and its global loads and the waits for them.
SassPaths estimate_paths(const CodeFeatures& f);
// The global loads a warp has in flight at once, on average: those it makes before its first global store
// (shared stores between them do not hold them back; a global store may alias a later load, so nvcc keeps loads
// behind it), which ptxas issues in rounds of at most a fitted number of bytes a lane over the bytes of one load
// (about 20 of the 32-bit registers it fills), waiting for each round before the next: n loads in ceil(n / k)
// rounds keep n / ceil(n / k) in flight. A kernel whose walks of one load a row ptxas hoists further (copy_shared's
// drain reads back the positions its stage wrote) takes rounds of its own there. At least 1.
double estimated_loads_in_flight(const CodeFeatures& f);
// The rounds of those loads (at least 1).
double estimated_load_rounds(const CodeFeatures& f);
// From this many bytes a lane loaded before the first global store on, the estimate's loads in flight are often
// short of the compiled code's: ptxas lets a long walk's rounds grow past those that fit most configurations. On
// the estimate's fit set (lab/calibration/results/code_estimate_counts.json.gz, the shipped table and the training
// sweep with its long walks, sm_90, nvcc 13.0), of the 1,303 configurations whose lanes load 256 bytes or more
// before their first store in more than one round, the rounds' count is within 20% of the compiled one in 54%, and
// the compiled code keeps more than 1.2 times it in flight in 40% (median 1.00 times, 90th percentile 2, up to
// 6.5); of the 123 at 1,024 bytes or more, 55% (median 1.29 times). memsim says so where it leans on that count.
inline constexpr double kEstimateLongWalkBytes = 256;
inline constexpr const char* kEstimateLongWalkEvidence =
    "on the estimate's fit set of compiled sm_90 code, of the 1,303 configurations whose lanes load 256 bytes or "
    "more before their first store in more than one round, the compiled code keeps more than 1.2 times the "
    "estimate's loads in flight in 40%, up to 6.5 times; on held-out set za (H100, no toolkit) 24 rows carry it: 12 "
    "predicted slow, +0% to +84% (copy_shared f64 32x1 on 128x128: 9.85 loads in flight estimated, 51 compiled), "
    "12 fast, -1% to -34%";

}  // namespace memsim
