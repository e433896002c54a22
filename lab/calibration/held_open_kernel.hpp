// memsim-held-open's addresses as a memsim kernel file, for memsim --kernel-file: the replay of each of its runs,
// whose predictions lab/calibration/fit_held_open_time.py sets beside the measured times. The index math is
// held_open_map.hpp's, the one the CUDA program held_open.cu runs, in its at_once and sequential variants and at
// once's rows apart and a step a line (HO_APART, HO_STEPS; that file says what the benchmark does):
//   memsim --kernel-file lab/calibration/held_open_kernel.hpp --define HO_P=2 --define HO_Q=1 \
//          --define HO_R=32 --dtype f32 --matrix 8192x8192 --block 32x8 --tile 128x32
// The matrix is the output's rows x columns (W = rows, H = columns), the tile a block's rows (R x 8/P) x its
// columns (Q lines of 128 bytes); the block 32x8 is held_open.cu's 256 threads, a warp a thread row.
#pragma once
#include "kernels/plugin.hpp"
#include "held_open_map.hpp"

#ifndef HO_P
#define HO_P 2  // warps a line: groups of P warps
#endif
#ifndef HO_Q
#define HO_Q 1  // lines a row a group writes
#endif
#ifndef HO_R
#define HO_R 32  // rows a store request writes
#endif
#ifndef HO_SEQUENTIAL
#define HO_SEQUENTIAL 0  // 1: a row's Q lines one after another
#endif
#ifndef HO_APART
#define HO_APART 0  // 1: a group's Q lines in Q rows (rows apart), not side by side in one
#endif
#ifndef HO_STEPS
#define HO_STEPS 0  // 1 (rows apart only): a step a line, each line's load then its store (naive's order)
#endif

namespace calibration {
using namespace memsim;

struct HeldOpen {
  enum Site { kLoadIn, kStoreOut };
  static constexpr SiteInfo kSites[] = {
      {"ld in", Space::Global, Op::Load, "in[col * rows + row]"},
      {"st out", Space::Global, Op::Store, "out[row * cols + col]"},
  };
  static constexpr KernelInfo info() {
    KernelInfo k{"held_open", "memsim-held-open's stores: lines held open over rounds (calibration)",
                 "lab/calibration/held_open.cu", Footprint::Scalar, OutputKind::Transpose, kSites,
                 num_sites_of<HeldOpen>()};
    // Block (x, y) is the program's block y grid_x + x: row block x and column block y, so its offsets are the
    // tile's rows and columns times x and y, times 1, W or H.
    k.blocks_translate = true;
    return k;
  }
  template <class Mem, class Shape, class Thread>
  MEMSIM_HD static void body(Mem& m, const Shape& s, const Thread& t) {
    using T = typename Mem::Elem;
    constexpr int P = HO_P, Q = HO_Q, R = HO_R;
    constexpr int bytes = int(sizeof(T)), rounds = held_open::rounds_of(bytes, P, R);
    // The program's 1D launch: blocks numbered as blockIdx.x, the row blocks (block_x) fastest; block 32x8,
    // one warp a thread row.
    const auto block = uint32_t(t.block_y * s.grid_x + t.block_x);
    const auto warp = t.thread_y, lane = t.thread_x;
    const auto member = warp % P;
    const auto rows = uint64_t(s.width), cols = uint64_t(s.height);
    static_assert(!HO_STEPS || HO_APART, "a step a line is a variant of rows apart");
    static_assert(!(HO_APART && HO_SEQUENTIAL), "rows apart is a variant of at once");
    const held_open::BlockOrigin o = held_open::block_origin(bytes, P, Q, R, HO_APART, uint32_t(rows), block);
    const auto row = held_open::thread_row(o, warp, lane, P, R);
    const auto col0 = held_open::thread_col(o, lane, R);
    if (HO_SEQUENTIAL) {
      for (int r = 0; r < Q * rounds; ++r) {
        const auto col = held_open::sequential_col(col0, r, member, bytes, P, R);
        const T v = load_global<T>(m, kLoadIn, true, col * rows + row);
        store_global<T>(m, kStoreOut, true, row * cols + col, v);
      }
    } else {
      const auto row_of = [&](int j) { return held_open::line_row(row, j, HO_APART, P, R); };
      const auto col_of = [&](int r, int j) { return held_open::line_col(col0, r, j, member, HO_APART, bytes, P, R); };
      for (int r = 0; r < rounds; ++r) {
        if (HO_STEPS) {
          for (int j = 0; j < Q; ++j) {
            const T v = load_global<T>(m, kLoadIn, true, col_of(r, j) * rows + row_of(j));
            store_global<T>(m, kStoreOut, true, row_of(j) * cols + col_of(r, j), v);
          }
        } else {
          T v{};
          for (int j = 0; j < Q; ++j) v = load_global<T>(m, kLoadIn, true, col_of(r, j) * rows + row_of(j));
          for (int j = 0; j < Q; ++j) store_global<T>(m, kStoreOut, true, row_of(j) * cols + col_of(r, j), v);
        }
      }
    }
  }
};

}  // namespace calibration

MEMSIM_KERNEL(calibration::HeldOpen)
