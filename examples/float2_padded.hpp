// A padded shared-tile transpose that moves two elements a thread with 8-byte (float2 in f32) global loads
// and stores. Each thread loads a float2 of an input row and writes its two elements into a column of the
// tile; after the barrier it reads two consecutive elements of a tile row and stores them as one float2 of
// an output row. The default tile is square, two elements a thread across: 64x64 under a 32x8 block.
//   memsim --kernel-file examples/float2_padded.hpp --block 32x8
// The one-element pad that makes the scalar `padded` conflict-free does not here: neighbouring lanes are two
// tile rows apart, 2 x 65 words, so lanes i and i + 16 meet in one bank (2-way conflicts on every shared
// access); a pad of 2 makes it 4-way (4 x 66 words). The global side is ideal: 8 sectors per request.
#pragma once
#include "kernels/plugin.hpp"

namespace example {
using namespace memsim;

struct Float2Padded {
  enum Site { kLoadIn, kStoreTile, kLoadTile, kStoreOut };
  static constexpr SiteInfo kSites[] = {
      {"ld in", Space::Global, Op::Load, "in[(row0 + r) * W + col0 + 2 tx] (float2)"},
      {"st tile", Space::Shared, Op::Store, "tile[2 tx + i][r]"},
      {"ld tile", Space::Shared, Op::Load, "tile[r][2 tx + i]"},
      {"st out", Space::Global, Op::Store, "out[(col0 + r) * H + row0 + 2 tx] (float2)"},
  };
  static constexpr KernelInfo info() {
    KernelInfo k{"float2_padded", "padded tile, float2 loads and stores (example)", "examples/float2_padded.hpp",
                 Footprint::Elements, OutputKind::Transpose, kSites, num_sites_of<Float2Padded>()};
    k = with_footprint(k, 2, 1, /*loops_to_square_tile=*/true);  // 2 elements along x; 32x8 covers 64x64
    k.uses_shared_tile = true;
    k.default_pad = 1;
    k.square_tile = true;     // the tile is kept transposed: rows and columns swap in it
    k.width_multiple = 2;     // float2 accesses stay aligned only on even widths ...
    k.height_multiple = 2;    // ... and heights (the output's rows are the input's columns)
    k.blocks_translate = true;  // offsets from tile_origin's col0/row0 and the thread: blocks of a class count alike
    return k;
  }
  template <class Mem, class Shape, class Thread>
  MEMSIM_HD static void body(Mem& m, const Shape& s, const Thread& t) {
    using T = typename Mem::Elem;
    using T2 = Vec<T, 2>;
    const auto o = tile_origin(s, t.block_x, t.block_y);
    const auto c = 2 * t.thread_x;  // the first of the thread's two columns (input), or output columns
    for (int k = 0; k < s.tile_y / s.block_y; ++k) {
      const auto r = t.thread_y + k * s.block_y;
      const auto x = o.col0 + c, y = o.row0 + r;
      const auto ok = c < s.tile_x && x < s.width && y < s.height;
      const T2 v = load_global<T2>(m, kLoadIn, ok, y * s.width + x);
      store_shared<T>(m, kStoreTile, ok, c * s.smem_row + r, v.v[0]);
      store_shared<T>(m, kStoreTile, ok, (c + 1) * s.smem_row + r, v.v[1]);
    }
    sync_block(m);
    for (int k = 0; k < s.tile_x / s.block_y; ++k) {
      const auto r = t.thread_y + k * s.block_y;  // output row col0 + r holds input column col0 + r
      const auto x = o.col0 + r, y = o.row0 + c;
      const auto ok = c < s.tile_y && x < s.width && y < s.height;
      T2 v;
      v.v[0] = load_shared<T>(m, kLoadTile, ok, r * s.smem_row + c);
      v.v[1] = load_shared<T>(m, kLoadTile, ok, r * s.smem_row + c + 1);
      store_global<T2>(m, kStoreOut, ok, x * s.height + y, v);
    }
  }
};

}  // namespace example

MEMSIM_KERNEL(example::Float2Padded)
