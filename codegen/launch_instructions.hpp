#pragma once
// From a compiled kernel's per-warp paths (codegen/sass_paths.hpp) to a launch's warp instructions, and the
// SASS table shipped with memsim for machines without the toolkit.
#include <cstdint>

#include "codegen/sass_paths.hpp"
#include "kernels/resolve.hpp"

namespace memsim {

// The launch's warp instructions: blocks whose tile lies inside the matrix x (warps x path, less what the warps
// that leave early skip) + blocks reaching past it x warps x edge path. The warps leaving early are those of
// the launch's first block with no active access at the kernel's last site (its final store), as the replay
// found them (ReplayResult::first_block.early_exit_warps); a square grid takes diagonal's square paths.
struct LaunchInstructions {
  double instructions = 0;
  int64_t inner_blocks = 0, edge_blocks = 0;
  int early_exit_warps_per_block = 0;
};
LaunchInstructions launch_instructions(const LaunchConfig& cfg, const SassPaths& paths, int early_exit_warps);

// The SASS table shipped with memsim (codegen/sass_table.inc: the suite's default tiles and pads at blocks
// 32x8, 16x16, 8x32 and 32x32, sm_90, read off cuobjdump -sass by scripts/sass_instruction_counts.py):
// the row of cfg's static instantiation, or null. kSassTableToolkit names the nvcc that compiled it.
const SassPaths* shipped_sass_paths(const LaunchConfig& cfg);
extern const char* const kSassTableToolkit;

}  // namespace memsim
