// memsim-microbench --store-order's tile_stores as a memsim kernel file: the replay of each of its runs, with
// tile_stores_map.hpp's index math (the CUDA kernel's own). The program launches tiles x tiles blocks of BX x BY
// threads in one grid row, block b = tile b in launch order, so memsim's grid of TW x TW tiles over a P x P matrix
// (P = tiles x TW, tiles = 8192 / TW) numbers the blocks alike (b = block_y x tiles + block_x):
//   memsim --kernel-file lab/calibration/tile_stores_kernel.hpp --define TS_TW=24 --define TS_DOWN=1 \
//          --matrix 8184x8184 --dtype f16 --block 12x4 --tile 24x24 --device h100
// TS_TW: the tile's side (the --tile's); TS_DOWN 0 or 1: blocks along the output's tile rows or down them. The
// block is --block's (its BX x BY must divide the tile: the program's static_assert).
#pragma once
#include "kernels/plugin.hpp"
#include "tile_stores_map.hpp"

#ifndef TS_TW
#define TS_TW 24
#endif
#ifndef TS_DOWN
#define TS_DOWN 0
#endif

namespace study {
using namespace memsim;

struct TileStores {
  enum Site { kLoadIn, kStoreOut };
  static constexpr SiteInfo kSites[] = {
      {"ld in", Space::Global, Op::Load, "in[b * TW * TW + (ty + BY i) * TW + tx + BX j]"},
      {"st out", Space::Global, Op::Store, "out[(tile_row * TW + ty + BY i) * P + tile_col * TW + tx + BX j]"},
  };
  static constexpr KernelInfo info() {
    return {"tile_stores", "memsim-microbench --store-order: a staged copy's stores, blocks along or down (study)",
            "lab/calibration/bench_kernels.cuh", Footprint::Scalar, OutputKind::Copy, kSites,
            num_sites_of<TileStores>()};
  }
  // For one thread: kRows x kCols loads of its tile, then as many stores, as the program's unrolled loops.
  template <class Mem, class Shape>
  MEMSIM_HD static void body(Mem& m, const Shape& s, const ThreadCoord& t) {
    using T = typename Mem::Elem;
    constexpr int kTile = TS_TW;
    const int bx = s.block_x, by = s.block_y, tiles = s.grid_x;
    const int b = t.block_y * s.grid_x + t.block_x;
    const int tx = t.thread_x, ty = t.thread_y;
    const int rows = kTile / by, cols = kTile / bx;
    T v[64];  // rows x cols values a thread (at most 64; the runs' largest, tile 64 on 32x4, holds 16 x 2)
    const bool ok = rows * cols <= 64 && kTile % bx == 0 && kTile % by == 0;
    int k = 0;
    for (int i = 0; i < rows && ok; ++i)
      for (int j = 0; j < cols; ++j)
        v[k++] = load_global<T>(m, kLoadIn, true, tile_stores_map::in_index(kTile, bx, by, b, tx, ty, i, j));
    k = 0;
    for (int i = 0; i < rows && ok; ++i)
      for (int j = 0; j < cols; ++j)
        store_global<T>(m, kStoreOut, true,
                        tile_stores_map::out_index<TS_DOWN != 0>(kTile, bx, by, b, tiles, tx, ty, i, j), v[k++]);
  }
};

}  // namespace study

MEMSIM_KERNEL(study::TileStores)
