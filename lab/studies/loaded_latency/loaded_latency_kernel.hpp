// memsim-loaded-latency's addresses as a memsim kernel file (memsim --kernel-file): the replay of each of its
// runs, whose terms fit_loaded_latency.py sets beside the measured times. The index math is loaded_latency.cu's
// (that file says what the benchmark does); the block, tile, dtype and matrix are memsim's options, the rest
// defines:
//   memsim --kernel-file lab/studies/loaded_latency/loaded_latency_kernel.hpp --define LL_MODE=2 --define LL_K=1 \
//          --dtype f32 --matrix 8192x8192 --block 8x16 --tile 8x64 --device h100
// LL_MODE 0: loads only (a store predicated off after each group of LL_K loads, as the GPU's never-taken one);
// 1: whole-row stores, the loads' own layout (a copy); 2: transposed stores (naive's column pieces);
// 3: transposed stores with the block's threads renumbered as a block LL_SBX wide (pieces of another size).
// LL_LOAD_WALK_Y, LL_STORE_WALK_Y (0 or 1, the WALK field's letters x and y): that side's steps walk down the
// tile column first instead of along its row (the store side's apart from the loads' in mode 2 only).
#pragma once
#include "kernels/plugin.hpp"

#ifndef LL_MODE
#define LL_MODE 2
#endif
#ifndef LL_K
#define LL_K 1  // loads a warp issues before its first store (loads in flight)
#endif
#ifndef LL_LOAD_WALK_Y
#define LL_LOAD_WALK_Y 0
#endif
#ifndef LL_STORE_WALK_Y
#define LL_STORE_WALK_Y 0
#endif
#ifndef LL_SBX
#define LL_SBX 32  // mode 3: the store side's block width
#endif

namespace study {
using namespace memsim;

struct LoadedLatency {
  enum Site { kLoadIn, kStoreOut };
  static constexpr SiteInfo kSites[] = {
      {"ld in", Space::Global, Op::Load, "in[y * W + x]"},
      {"st out", Space::Global, Op::Store, "out[...]"},
  };
  static constexpr KernelInfo info() {
    return {"loaded_latency", "memsim-loaded-latency: naive-like loads beside chosen stores (study)",
            "lab/studies/loaded_latency/loaded_latency.cu", Footprint::Scalar, OutputKind::Transpose, kSites,
            num_sites_of<LoadedLatency>()};
  }
  template <class Mem, class Shape, class Thread>
  MEMSIM_HD static void body(Mem& m, const Shape& s, const Thread& t) {
    using T = typename Mem::Elem;
    const auto o = tile_origin(s, t.block_x, t.block_y);
    const int bx = s.block_x, by = s.block_y, threads = bx * by;
    const int nsx = s.tile_x / bx, nsy = s.tile_y / by, steps = nsx * nsy;
    const auto tid = t.thread_y * bx + t.thread_x;
    const int sbx = LL_MODE == 3 ? LL_SBX : bx, sby = threads / sbx, snsx = s.tile_x / sbx, snsy = s.tile_y / sby;
    // Step st's (column, row) of steps: along the row first (x) or down the column first (y).
    const auto load_sx = [&](int st) { return LL_LOAD_WALK_Y ? st / nsy : st % nsx; };
    const auto load_sy = [&](int st) { return LL_LOAD_WALK_Y ? st % nsy : st / nsx; };
    const auto store_sx = [&](int st) { return LL_STORE_WALK_Y ? st / snsy : st % snsx; };
    const auto store_sy = [&](int st) { return LL_STORE_WALK_Y ? st % snsy : st / snsx; };
    const auto stx = tid % sbx, sty = tid / sbx;
    for (int g = 0; g < steps; g += LL_K) {
      T v[LL_K];
      for (int j = 0; j < LL_K; ++j) {
        const int st = g + j;
        const auto c = load_sx(st) * bx + t.thread_x, r = load_sy(st) * by + t.thread_y;
        v[j] = load_global<T>(m, kLoadIn, st < steps, (o.row0 + r) * s.width + o.col0 + c);
      }
      for (int j = 0; j < LL_K; ++j) {
        const int st = g + j;
        if (LL_MODE == 0) {
          store_global<T>(m, kStoreOut, false, o.row0 * s.width + o.col0, v[j]);
        } else if (LL_MODE == 1) {
          const auto c = load_sx(st) * bx + t.thread_x, r = load_sy(st) * by + t.thread_y;
          store_global<T>(m, kStoreOut, st < steps, (o.row0 + r) * s.width + o.col0 + c, v[j]);
        } else {
          const auto c = store_sx(st) * sbx + stx, r = store_sy(st) * sby + sty;
          store_global<T>(m, kStoreOut, st < steps, (o.col0 + c) * s.height + o.row0 + r, v[j]);
        }
      }
    }
  }
};

}  // namespace study

MEMSIM_KERNEL(study::LoadedLatency)
