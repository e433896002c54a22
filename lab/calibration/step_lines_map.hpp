// memsim-step-lines' index math, the one definition that the CUDA program (step_lines.cu) runs and the memsim
// kernel file (step_lines_kernel.hpp) replays: where thread `thread` of block `block` (launch order, as
// blockIdx.x) stores in step `step`. step_lines.cu says what the benchmark does.
//
// The output has `rows` rows; a block of W warps walks S steps and each store request writes K consecutive
// elements of R = 32 / K rows, so a block covers S R rows by W K columns. Consecutive blocks walk down the output
// rows (row block = block mod rows / (S R)). With `next`, where a block writes part of each line (W K elements of
// E bytes under 128 bytes), a group of 128 / (W K E) consecutive blocks takes one block-column's worth of whole
// lines, then the next rows: the rest of a block's part lines comes from the blocks next in launch order, not a
// grid row on. The load reads the same element from the input, the output's transpose (in[col * rows + row]).
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define STEP_LINES_HD __host__ __device__
#else
#define STEP_LINES_HD
#endif

namespace step_lines {

// The blocks that share a block-column's lines in a " next" run: 128 / (W K element bytes) where a block writes
// part of each line, else 1 (whole lines: the same launch either way).
STEP_LINES_HD constexpr uint32_t parts_of(int element_bytes, int warps, int k, bool next) {
  return next && warps * k * element_bytes < 128 ? uint32_t(128 / (warps * k * element_bytes)) : 1u;
}

// Where block `block` (launch order, as blockIdx.x) starts: its first output row and column.
struct BlockOrigin {
  uint64_t row, col;
};
STEP_LINES_HD inline BlockOrigin block_origin(int element_bytes, int warps, int steps, int k, bool next,
                                              uint32_t rows, uint32_t block) {
  const uint32_t row_blocks = rows / uint32_t(steps * (32 / k));
  const uint32_t parts = parts_of(element_bytes, warps, k, next);
  const uint32_t group = block / parts, member = block % parts;
  return {uint64_t(group % row_blocks) * uint64_t(steps * (32 / k)),
          uint64_t((group / row_blocks) * parts + member) * uint64_t(warps * k)};
}

// Lane `lane` of warp `warp` of the block stores in step `step` at row lane / K + R step and column K warp + lane
// mod K of the block's tile. The GPU passes ints (threadIdx.x / 32 and threadIdx.x % 32), memsim's warp replay its
// per-lane values (Lanes<int>, whose operators run these lane by lane): hence templates and operators only.
template <class Lane>
STEP_LINES_HD inline auto row_in_step(const BlockOrigin& o, const Lane& lane, int k, int step) {
  return o.row + lane / k + uint64_t(step) * uint64_t(32 / k);
}
template <class Warp, class Lane>
STEP_LINES_HD inline auto column(const BlockOrigin& o, const Warp& warp, const Lane& lane, int k) {
  return o.col + k * warp + lane % k;
}

}  // namespace step_lines
