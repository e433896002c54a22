#pragma once
#include "kernels/kernel_info.hpp"
#include "kernels/tiles.hpp"

namespace memsim::suite {

// Seed 002's step 1: threads walk the output, so stores are coalesced and every lane of a load reads a
// different input row. Its tile is laid over the output (blockIdx.x walks output columns = input rows).
struct NaiveRead {
  enum Site { kLoadIn, kStoreOut };
  static constexpr SiteInfo kSites[] = {
      {"ld in", Space::Global, Op::Load, "in[ox * W + oy]"},
      {"st out", Space::Global, Op::Store, "out[oy * H + ox]"},
  };
  static constexpr KernelInfo info() {
    KernelInfo k{"naive_read", "strided reads, coalesced writes (tile over the output)", "seed 002 step 1",
                 Footprint::Scalar, OutputKind::Transpose, kSites, num_sites_of<NaiveRead>()};
    k.tile_over_output = true;
    return k;
  }
  template <class Mem, class Shape, class Thread>
  MEMSIM_HD static void body(Mem& m, const Shape& s, const Thread& t) {
    using T = typename Mem::Elem;
    // Output coordinates: ox walks output columns (input rows), oy output rows (input columns).
    // The output has H columns and W rows.
    using I = typename Shape::Index;
    const I ocol0 = I(t.block_x) * s.tile_x, orow0 = I(t.block_y) * s.tile_y;
    with_bounds(s, ocol0, orow0, s.tile_x, s.tile_y, I(s.height), I(s.width), [&](const auto& inside) {
      for_each_tile_step(tile_walk(s), s.block_x, s.block_y, t.thread_x, t.thread_y,
                         [&](const auto& r, const auto& c, const auto& in_tile) {
                           const auto ox = ocol0 + c;
                           const auto oy = orow0 + r;
                           const auto ok = in_tile && inside(ox, oy);
                           const T v = load_global<T>(m, kLoadIn, ok, ox * s.width + oy);
                           store_global<T>(m, kStoreOut, ok, oy * s.height + ox, v);
                         });
    });
  }
};

}  // namespace memsim::suite
