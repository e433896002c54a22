// A copy whose float2 accesses are shifted by one element with --define MISALIGN: every other lane then
// reads past the aligned 8 bytes (misaligned) and the last thread past the matrix (out of bounds).
#pragma once
#include "kernels/plugin.hpp"

#ifdef MISALIGN
#define SHIFT 1
#else
#define SHIFT 0
#endif

struct ShiftedCopy {
  enum Site { kLoadIn, kStoreOut };
  static constexpr memsim::SiteInfo kSites[] = {
      {"ld in", memsim::Space::Global, memsim::Op::Load, "in[y * W + x + SHIFT] (float2)"},
      {"st out", memsim::Space::Global, memsim::Op::Store, "out[y * W + x] (float2)"},
  };
  static constexpr memsim::KernelInfo info() {
    memsim::KernelInfo k{"shifted_copy", "test: float2 copy, shifted by -DMISALIGN", "tests/codegen",
                         memsim::Footprint::Elements, memsim::OutputKind::Copy, kSites,
                         memsim::num_sites_of<ShiftedCopy>()};
    k = memsim::with_footprint(k, 2, 1);
    k.width_multiple = 2;
    return k;
  }
  template <class Mem, class Shape, class Thread>
  MEMSIM_HD static void body(Mem& m, const Shape& s, const Thread& t) {
    using T2 = memsim::Vec<typename Mem::Elem, 2>;
    const auto o = memsim::tile_origin(s, t.block_x, t.block_y);
    const auto x = o.col0 + 2 * t.thread_x, y = o.row0 + t.thread_y;
    const auto ok = x < s.width && y < s.height;
    const T2 v = memsim::load_global<T2>(m, kLoadIn, ok, y * s.width + x + SHIFT);
    memsim::store_global<T2>(m, kStoreOut, ok, y * s.width + x, v);
  }
};

MEMSIM_KERNEL(ShiftedCopy)
