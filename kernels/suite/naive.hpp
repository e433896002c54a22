#pragma once
#include "kernels/kernel_info.hpp"
#include "kernels/tiles.hpp"

namespace memsim::suite {

// One element per step: rows of the input are read coalesced, and written as columns of the output, so a
// warp's store touches one sector per lane.
struct Naive {
  enum Site { kLoadIn, kStoreOut };
  static constexpr SiteInfo kSites[] = {
      {"ld in", Space::Global, Op::Load, "in[y * W + x]"},
      {"st out", Space::Global, Op::Store, "out[x * H + y]"},
  };
  static constexpr KernelInfo info() {
    return {"naive", "coalesced reads, strided writes (one element a step)", "whitepaper; seeds 000, 004",
            Footprint::Scalar, OutputKind::Transpose, kSites, num_sites_of<Naive>()};
  }
  template <class Mem, class Shape, class Thread>
  MEMSIM_HD static void body(Mem& m, const Shape& s, const Thread& t) {
    using T = typename Mem::Elem;
    const auto o = tile_origin(s, t.block_x, t.block_y);
    with_input_bounds(s, o, [&](const auto& inside) {
      for_each_tile_step(tile_walk(s), s.block_x, s.block_y, t.thread_x, t.thread_y,
                         [&](const auto& r, const auto& c, const auto& in_tile) {
                           const auto x = o.col0 + c;
                           const auto y = o.row0 + r;
                           const auto ok = in_tile && inside(x, y);
                           const T v = load_global<T>(m, kLoadIn, ok, y * s.width + x);
                           store_global<T>(m, kStoreOut, ok, x * s.height + y, v);
                         });
    });
  }
};

}  // namespace memsim::suite
