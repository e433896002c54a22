// memsim-held-open's addresses as a memsim kernel file, for memsim --kernel-file: the replay of each of its runs,
// whose predictions lab/calibration/fit_held_open_time.py sets beside the measured times. The index math is
// held_open.cu's at_once and sequential variants (that file says what the benchmark does):
//   memsim --kernel-file lab/calibration/held_open_kernel.hpp --define HO_P=2 --define HO_Q=1 \
//          --define HO_R=32 --dtype f32 --matrix 8192x8192 --block 32x8 --tile 128x32
// The matrix is the output's rows x columns (W = rows, H = columns), the tile a block's rows (R x 8/P) x its
// columns (Q lines of 128 bytes); the block 32x8 is held_open.cu's 256 threads, a warp a thread row.
#pragma once
#include "kernels/plugin.hpp"

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
    k.blocks_translate = true;  // offsets: tile_origin's col0 and row0 times 1, W or H, plus the thread's part
    return k;
  }
  template <class Mem, class Shape, class Thread>
  MEMSIM_HD static void body(Mem& m, const Shape& s, const Thread& t) {
    using T = typename Mem::Elem;
    constexpr int P = HO_P, Q = HO_Q, R = HO_R, K = 32 / R;
    constexpr int E = 128 / int(sizeof(T)), rounds = E / (P * K);
    const auto warp = t.thread_y;  // block 32x8: one warp a thread row
    const auto lane = t.thread_x;
    const auto q = warp / P, member = warp % P;
    const auto rows = s.width, cols = s.height;
    // The tile is a block's rows (R x 8/P) by its columns (Q lines): tile_origin's col0 is its first row.
    const auto o = tile_origin(s, t.block_x, t.block_y);
    const auto row = o.col0 + R * q + lane / K;
    const auto col0 = o.row0 + lane % K;
    if (HO_SEQUENTIAL) {
      for (int r = 0; r < Q * rounds; ++r) {
        const auto col = col0 + (r / rounds) * E + ((r % rounds) * P + member) * K;
        const T v = load_global<T>(m, kLoadIn, true, col * rows + row);
        store_global<T>(m, kStoreOut, true, row * cols + col, v);
      }
    } else {
      for (int r = 0; r < rounds; ++r) {
        T v{};
        for (int j = 0; j < Q; ++j) v = load_global<T>(m, kLoadIn, true, (col0 + j * E + (r * P + member) * K) * rows + row);
        for (int j = 0; j < Q; ++j) store_global<T>(m, kStoreOut, true, row * cols + col0 + j * E + (r * P + member) * K, v);
      }
    }
  }
};

}  // namespace calibration

MEMSIM_KERNEL(calibration::HeldOpen)
