// A body with a typo: the compiler's first error is shown.
#pragma once
#include "kernels/plugin.hpp"
struct Typo {
  static constexpr memsim::SiteInfo kSites[] = {{"ld in", memsim::Space::Global, memsim::Op::Load, "in[0]"}};
  static constexpr memsim::KernelInfo info() {
    return {"typo", "test", "tests/codegen", memsim::Footprint::Scalar, memsim::OutputKind::Copy, kSites, 1};
  }
  template <class Mem, class Shape, class Thread>
  MEMSIM_HD static void body(Mem& m, const Shape& s, const Thread& t) {
    load_globl<float>(m, 0, true, t.thread_x);
  }
};
MEMSIM_KERNEL(Typo)
