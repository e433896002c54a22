// docs/kernels.md's example as a kernel file: each thread transposes one whole row of its tile, so a warp's
// lanes walk 32 different rows and the loads scatter.
//   memsim --kernel-file examples/row_per_thread.hpp --block 32x1 --tile 32x32
// reports 32 sectors per load request (one per lane) and 4 per store request (32 lanes x 4 bytes in a row).
#pragma once
#include "kernels/plugin.hpp"

namespace example {
using namespace memsim;

struct RowPerThread {
  static constexpr int kInterfaceVersion = 1;  // optional: refused by a memsim of another interface
  enum Site { kLoadIn, kStoreOut };
  static constexpr SiteInfo kSites[] = {
      {"ld in", Space::Global, Op::Load, "in[y * W + x]"},
      {"st out", Space::Global, Op::Store, "out[x * H + y]"},
  };
  static constexpr KernelInfo info() {
    return {"row_per_thread", "each thread transposes one tile row (example)", "docs/kernels.md example",
            Footprint::Scalar, OutputKind::Transpose, kSites, num_sites_of<RowPerThread>()};
  }
  // Shape: LaunchShape (run-time extents) or a StaticShape (compile-time, on the GPU); Thread: one thread's
  // coordinates, or the replay's whole warp: write lane values with `auto`.
  template <class Mem, class Shape, class Thread>
  MEMSIM_HD static void body(Mem& m, const Shape& s, const Thread& t) {
    using T = typename Mem::Elem;
    const auto o = tile_origin(s, t.block_x, t.block_y);
    const auto thread = t.thread_y * s.block_x + t.thread_x;  // one tile row per thread
    for (int c = 0; c < s.tile_x; ++c) {                      // loops and branches: on uniform values only
      const auto x = o.col0 + c;
      const auto y = o.row0 + thread;
      const auto ok = thread < s.tile_y && x < s.width && y < s.height;  // predicate, don't branch
      const T v = load_global<T>(m, kLoadIn, ok, y * s.width + x);
      store_global<T>(m, kStoreOut, ok, x * s.height + y, v);
    }
  }
};

}  // namespace example

MEMSIM_KERNEL(example::RowPerThread)
