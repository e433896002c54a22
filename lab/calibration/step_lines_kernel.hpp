// memsim-step-lines' addresses as a memsim kernel file, for memsim --kernel-file: the replay of each of its runs,
// whose predictions lab/calibration/fit_held_open_time.py sets beside the measured times. The index math is
// step_lines_map.hpp's, the one the CUDA program step_lines.cu runs (that file says what the benchmark does):
//   memsim --kernel-file lab/calibration/step_lines_kernel.hpp --define SL_S=4 --define SL_K=1 \
//          --dtype f32 --matrix 8192x8192 --block 32x32 --tile 128x32
// The matrix is the output's rows x columns (W = rows, H = columns), the tile a block's rows (S x R, R = 32 / K)
// x its columns (warps x K), and the block R x (warps x K), what a block covers in a step: step_lines.cu's
// 32 x warps threads in the same order (warp = thread / 32), so that a tile of one step (S x R = 16) is a whole
// number of the block's steps. SL_NEXT=1 replays a " next" run, SL_STAGED=1 a " staged" one (every step's load,
// a barrier, every step's store).
#pragma once
#include "kernels/plugin.hpp"
#include "step_lines_map.hpp"

#ifndef SL_S
#define SL_S 1  // steps a block walks
#endif
#ifndef SL_K
#define SL_K 1  // consecutive elements a row a store request writes (32 / K rows)
#endif
#ifndef SL_NEXT
#define SL_NEXT 0  // 1: a " next" run, the rest of a block's part lines from the blocks next in launch order
#endif
#ifndef SL_STAGED
#define SL_STAGED 0  // 1: a " staged" run, every step's load, a barrier, every step's store
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
    // Without " next", block (x, y) is the program's block y grid_x + x: row block x and column block y, so its
    // offsets are x S R and y warps K, times 1, W or H; a " next" run's blocks take their tiles out of launch
    // order, so each is replayed.
    k.blocks_translate = !SL_NEXT;
    return k;
  }
  template <class Mem, class Shape, class Thread>
  MEMSIM_HD static void body(Mem& m, const Shape& s, const Thread& t) {
    using T = typename Mem::Elem;
    // The program's 1D launch: blocks numbered as blockIdx.x, the row blocks (block_x) fastest; its 32 x warps
    // threads in the same order (warp = thread / 32).
    const auto warps = int(s.block_x * s.block_y / 32);
    const auto block = uint32_t(t.block_y * s.grid_x + t.block_x);
    const auto thread = t.thread_y * s.block_x + t.thread_x;
    const auto rows = uint64_t(s.width), cols = uint64_t(s.height);
    const step_lines::BlockOrigin o =
        step_lines::block_origin(int(sizeof(T)), warps, SL_S, SL_K, SL_NEXT != 0, uint32_t(rows), block);
    const auto warp = thread / 32, lane = thread % 32;
    const auto col = step_lines::column(o, warp, lane, SL_K);
    if (SL_STAGED) {
      T v{};
      for (int step = 0; step < SL_S; ++step)
        v = load_global<T>(m, kLoadIn, true, col * rows + step_lines::row_in_step(o, lane, SL_K, step));
      sync_block(m);
      for (int step = 0; step < SL_S; ++step)
        store_global<T>(m, kStoreOut, true, step_lines::row_in_step(o, lane, SL_K, step) * cols + col, v);
    } else {
      for (int step = 0; step < SL_S; ++step) {
        const auto row = step_lines::row_in_step(o, lane, SL_K, step);
        const T v = load_global<T>(m, kLoadIn, true, col * rows + row);
        store_global<T>(m, kStoreOut, true, row * cols + col, v);
      }
    }
  }
};

}  // namespace calibration

MEMSIM_KERNEL(calibration::StepLines)
