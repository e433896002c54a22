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
// The global loads a warp has in flight at once: those it makes before its first global store (shared stores
// between them do not hold them back; a global store may alias a later load, so nvcc keeps loads behind it),
// but no more than a fitted number of bytes a lane over the bytes of one load (the registers nvcc spends on
// loads in flight); at least 1.
double estimated_loads_in_flight(const CodeFeatures& f);

}  // namespace memsim
