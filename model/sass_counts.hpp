#pragma once
// The warp instructions of a launch the GPU runs with a compile-time shape (kernels/static_shape.hpp), counted
// along the compiled kernel's SASS. nvcc unrolls a static shape's walks and folds their constants into
// immediates, so every warp of a block whose tile lies inside the matrix executes one straight path, whose
// length model/calibration/sass_instruction_counts.py reads off cuobjdump -sass (sm_90) into the committed
// table model/sass_counts.inc. Nsight Compute's smsp__inst_executed.sum of the suite equals warps x path
// (model/calibration/h100_instruction_estimate.txt). What the table cannot know the replay tells: which warps
// leave early (their last accesses have no active lane: the tall blocks' transposed drain), how many tiles
// reach past the matrix, and whether diagonal's grid is square.
#include <cstdint>
#include <optional>

#include "kernels/resolve.hpp"

namespace memsim {

// The compute capability whose SASS the table holds: other devices compile other code.
inline constexpr const char* kSassComputeCapability = "9.0";

// Warp instructions along each path of one static instantiation (kernel, dtype, block with its default tile
// and pad): a block whose tile lies inside the matrix (through to the end, or leaving at the first predicated
// EXIT), the same where diagonal's grid is square (its other branch; the others' are equal), and a block whose
// tile reaches past the matrix (every branch around an access falling through: an upper estimate). Along the
// inner path, its global loads and the waits for them (the instructions that read a register a load in flight
// writes, where the warp stalls until it is back): loads / waits are a warp's loads in flight.
struct SassPathCounts {
  const char* kernel;
  Dtype dtype;
  int block_x, block_y;
  int inner, inner_exit;
  int square, square_exit;
  int edge, edge_square;
  int loads, load_waits;
};

// The table's row for the instantiation the GPU runs cfg with; null when the GPU runs a run-time shape
// (kernels/static_dispatch.hpp: a tile or pad other than the kernel's default, a matrix past 32-bit indices,
// another block) or the table has none.
const SassPathCounts* sass_path_counts(const LaunchConfig& cfg);

// The launch's warp instructions from its row: blocks whose tile lies inside the matrix x (warps x path, less
// what the warps that leave early skip) + blocks reaching past it x warps x edge path. The warps leaving early
// are those of the launch's first block with no active access at the kernel's last site (its final store),
// found by replaying that block.
struct SassEstimate {
  double instructions = 0;
  int64_t inner_blocks = 0, edge_blocks = 0;
  int early_exit_warps_per_block = 0;
};
std::optional<SassEstimate> sass_instruction_estimate(const LaunchConfig& cfg);

}  // namespace memsim
