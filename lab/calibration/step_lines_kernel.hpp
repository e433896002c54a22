// memsim-step-lines' addresses as a memsim kernel file, for memsim --kernel-file: the replay of each of its runs,
// whose predictions lab/calibration/fit_held_open_time.py sets beside the measured times. The index math is
// step_lines.cu's (that file says what the benchmark does):
//   memsim --kernel-file lab/calibration/step_lines_kernel.hpp --define SL_S=4 --define SL_K=1 \
//          --dtype f32 --matrix 8192x8192 --block 32x32 --tile 128x32
// The matrix is the output's rows x columns (W = rows, H = columns), the tile a block's rows (S x R, R = 32 / K)
// x its columns (warps x K), and the block R x (warps x K), what a block covers in a step: step_lines.cu's
// 32 x warps threads in the same order (warp = thread / 32), so that a tile of one step (S x R = 16) is a whole
// number of the block's steps.
#pragma once
#include "kernels/plugin.hpp"

#ifndef SL_S
#define SL_S 1  // steps a block walks
#endif
#ifndef SL_K
#define SL_K 1  // consecutive elements a row a store request writes (32 / K rows)
#endif
#ifndef SL_NEXT
#define SL_NEXT 0  // 1: a " next" run, the rest of a block's part lines from the blocks next in launch order
#endif

namespace calibration {
using namespace memsim;

struct StepLines {
  enum Site { kLoadIn, kStoreOut };
  static constexpr SiteInfo kSites[] = {
      {"ld in", Space::Global, Op::Load, "in[col * rows + row]"},
      {"st out", Space::Global, Op::Store, "out[row * cols + col]"},
  };
  static constexpr KernelInfo info() {
    KernelInfo k{"step_lines", "memsim-step-lines' stores: a fresh set of lines each step (calibration)",
                 "lab/calibration/step_lines.cu", Footprint::Scalar, OutputKind::Transpose, kSites,
                 num_sites_of<StepLines>()};
    // Offsets: tile_origin's col0 and row0 times 1, W or H, plus the thread's part; a " next" run's blocks take
    // their tiles out of launch order, so each is replayed.
    k.blocks_translate = !SL_NEXT;
    return k;
  }
  template <class Mem, class Shape, class Thread>
  MEMSIM_HD static void body(Mem& m, const Shape& s, const Thread& t) {
    using T = typename Mem::Elem;
    constexpr int S = SL_S, K = SL_K, R = 32 / K;
    const auto thread = t.thread_y * s.block_x + t.thread_x;  // block R x (warps x K)
    const auto warp = thread / 32, lane = thread % 32;
    const auto rows = s.width, cols = s.height;
    // The tile is a block's rows (S x R) by its columns (warps x K): tile_origin's col0 is its first row.
    // A " next" run (step_lines.cu's Next): where a block is narrower than a line, groups of E / (W K)
    // consecutive blocks in launch order (block_x fastest, as blockIdx.x) take one block-column's worth of
    // whole lines, then the next rows.
    int bx = t.block_x, by = t.block_y;
    if (SL_NEXT) {
      const auto line_elements = decltype(s.tile_y)(128 / sizeof(T));
      const auto parts = s.tile_y < line_elements ? line_elements / s.tile_y : 1;
      const auto grid_x = s.width / s.tile_x;  // the row blocks
      const auto linear = decltype(grid_x)(by) * grid_x + bx;
      const auto group = linear / parts, member = linear % parts;
      bx = int(group % grid_x);
      by = int((group / grid_x) * parts + member);
    }
    const auto o = tile_origin(s, bx, by);
    const auto row0 = o.col0 + lane / K;
    const auto col = o.row0 + K * warp + lane % K;
    for (int step = 0; step < S; ++step) {
      const auto row = row0 + step * R;
      const T v = load_global<T>(m, kLoadIn, true, col * rows + row);
      store_global<T>(m, kStoreOut, true, row * cols + col, v);
    }
  }
};

}  // namespace calibration

MEMSIM_KERNEL(calibration::StepLines)
