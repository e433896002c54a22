// A kernel file whose kernel takes a suite kernel's name: the file's row_per_thread renamed 'padded'.
#pragma once
#include "kernels/plugin.hpp"
struct NotPadded {
  static constexpr memsim::SiteInfo kSites[] = {{"ld in", memsim::Space::Global, memsim::Op::Load, "in[x]"}};
  static constexpr memsim::KernelInfo info() {
    return {"padded", "test", "tests/codegen", memsim::Footprint::Scalar, memsim::OutputKind::Copy, kSites, 1};
  }
  template <class Mem, class Shape, class Thread>
  MEMSIM_HD static void body(Mem& m, const Shape& s, const Thread& t) {
    memsim::load_global<typename Mem::Elem>(m, 0, t.thread_x < s.width, t.thread_x);
  }
};
MEMSIM_KERNEL(NotPadded)
