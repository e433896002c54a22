#pragma once
#include "kernels/kernel_info.hpp"
#include "kernels/tiles.hpp"

namespace memsim::suite {

// The whitepaper's shared-memory copy: the coalesced transpose's traffic and barrier without the transpose,
// to show what staging through shared memory costs by itself.
struct CopyShared {
  enum Site { kLoadIn, kStoreTile, kLoadTile, kStoreOut };
  static constexpr SiteInfo kSites[] = {
      {"ld in", Space::Global, Op::Load, "in[y * W + x]"},
      {"st tile", Space::Shared, Op::Store, "tile[r][c]"},
      {"ld tile", Space::Shared, Op::Load, "tile[r][c]"},
      {"st out", Space::Global, Op::Store, "out[y * W + x]"},
  };
  static constexpr KernelInfo info() {
    KernelInfo k{"copy_shared", "copy staged through a shared tile, with a barrier", "whitepaper",
                 Footprint::Scalar, OutputKind::Copy, kSites, num_sites_of<CopyShared>()};
    k.uses_shared_tile = true;
    return k;
  }
  template <class Mem, class Shape, class Thread>
  MEMSIM_HD static void body(Mem& m, const Shape& s, const Thread& t) {
    using T = typename Mem::Elem;
    const auto o = tile_origin(s, t.block_x, t.block_y);
    with_input_bounds(s, o, [&](const auto& inside) {
      stage_tile(m, s, o, t, inside, kLoadIn, kStoreTile, PlainColumns{});
      sync_block(m);
      for_each_tile_step(tile_walk(s), s.block_x, s.block_y, t.thread_x, t.thread_y,
                         [&](const auto& r, const auto& c, const auto& in_tile) {
                           const auto x = o.col0 + c;
                           const auto y = o.row0 + r;
                           const auto ok = in_tile && inside(x, y);
                           const T v = load_shared<T>(m, kLoadTile, ok, r * s.smem_row + c);
                           store_global<T>(m, kStoreOut, ok, y * s.width + x, v);
                         });
    });
  }
};

}  // namespace memsim::suite
