#pragma once
#include "kernels/kernel_info.hpp"
#include "kernels/tiles.hpp"

namespace memsim::suite {

// The whitepaper's two half-transposes, which split the transpose to find its bottleneck. Neither output is
// a transpose; they are defined on square tiles of matrices made of whole tiles.

// Coarse-grained: each tile written unchanged to its transposed position (the global write pattern of the
// transpose without transposing inside the tile).
struct Coarse {
  enum Site { kLoadIn, kStoreTile, kLoadTile, kStoreOut };
  static constexpr SiteInfo kSites[] = {
      {"ld in", Space::Global, Op::Load, "in[(row0 + r) * W + col0 + c]"},
      {"st tile", Space::Shared, Op::Store, "tile[r][c]"},
      {"ld tile", Space::Shared, Op::Load, "tile[r][c]"},
      {"st out", Space::Global, Op::Store, "out[(col0 + r) * H + row0 + c]"},
  };
  static constexpr KernelInfo info() {
    KernelInfo k{"coarse", "half-transpose: tiles moved to transposed places, not transposed inside",
                 "whitepaper", Footprint::Scalar, OutputKind::TilesMoved, kSites, num_sites_of<Coarse>()};
    k.uses_shared_tile = true;
    k.default_pad = 1;
    k.square_tile_only = true;
    return k;
  }
  template <class Mem, class Shape, class Thread>
  MEMSIM_HD static void body(Mem& m, const Shape& s, const Thread& t) {
    using T = typename Mem::Elem;
    const auto o = tile_origin(s, t.block_x, t.block_y);
    // Whole tiles only (resolve_launch): a static shape's blocks all take the untested side.
    with_input_bounds(s, o, [&](const auto& inside) { stage_tile(m, s, o, t, inside, kLoadIn, kStoreTile, PlainColumns{}); });
    sync_block(m);
    for_each_tile_step(tile_walk(s), s.block_x, s.block_y, t.thread_x, t.thread_y,
                       [&](const auto& r, const auto& c, const auto& in_tile) {
                         const T v = load_shared<T>(m, kLoadTile, in_tile, r * s.smem_row + c);
                         store_global<T>(m, kStoreOut, in_tile, (o.col0 + r) * s.height + o.row0 + c, v);
                       });
  }
};

// Fine-grained: each tile transposed inside but written back to its own position (the shared-memory pattern
// of the transpose with the global write pattern of a copy).
struct Fine {
  enum Site { kLoadIn, kStoreTile, kLoadTile, kStoreOut };
  static constexpr SiteInfo kSites[] = {
      {"ld in", Space::Global, Op::Load, "in[(row0 + r) * W + col0 + c]"},
      {"st tile", Space::Shared, Op::Store, "tile[r][c]"},
      {"ld tile", Space::Shared, Op::Load, "tile[c][r]"},
      {"st out", Space::Global, Op::Store, "out[(row0 + r) * W + col0 + c]"},
  };
  static constexpr KernelInfo info() {
    KernelInfo k{"fine", "half-transpose: tiles transposed inside, written to their own places",
                 "whitepaper", Footprint::Scalar, OutputKind::TilesTransposed, kSites, num_sites_of<Fine>()};
    k.uses_shared_tile = true;
    k.default_pad = 1;
    k.square_tile_only = true;
    return k;
  }
  template <class Mem, class Shape, class Thread>
  MEMSIM_HD static void body(Mem& m, const Shape& s, const Thread& t) {
    using T = typename Mem::Elem;
    const auto o = tile_origin(s, t.block_x, t.block_y);
    with_input_bounds(s, o, [&](const auto& inside) { stage_tile(m, s, o, t, inside, kLoadIn, kStoreTile, PlainColumns{}); });
    sync_block(m);
    for_each_tile_step(tile_walk(s), s.block_x, s.block_y, t.thread_x, t.thread_y,
                       [&](const auto& r, const auto& c, const auto& in_tile) {
                         const T v = load_shared<T>(m, kLoadTile, in_tile, c * s.smem_row + r);
                         store_global<T>(m, kStoreOut, in_tile, (o.row0 + r) * s.width + o.col0 + c, v);
                       });
  }
};

}  // namespace memsim::suite
