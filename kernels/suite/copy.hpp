#pragma once
#include "kernels/kernel_info.hpp"
#include "kernels/tiles.hpp"

namespace memsim::suite {

// The whitepaper's baseline: every element read and written at the same place, both sides coalesced.
struct Copy {
  enum Site { kLoadIn, kStoreOut };
  static constexpr SiteInfo kSites[] = {
      {"ld in", Space::Global, Op::Load, "in[y * W + x]"},
      {"st out", Space::Global, Op::Store, "out[y * W + x]"},
  };
  static constexpr KernelInfo info() {
    return {"copy", "plain copy: coalesced loads and stores (the bandwidth ceiling)", "whitepaper",
            Footprint::Scalar, OutputKind::Copy, kSites, num_sites_of<Copy>()};
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
                           store_global<T>(m, kStoreOut, ok, y * s.width + x, v);
                         });
    });
  }
};

}  // namespace memsim::suite
