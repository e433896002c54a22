// Compiles for the host (the replay) but not for the GPU: memsim-validate shows nvcc's first error.
#pragma once
#include "kernels/plugin.hpp"
struct HostOnly {
  static constexpr memsim::SiteInfo kSites[] = {{"ld in", memsim::Space::Global, memsim::Op::Load, "in[tx]"}};
  static constexpr memsim::KernelInfo info() {
    return {"host_only", "test", "tests/codegen", memsim::Footprint::Scalar, memsim::OutputKind::Copy, kSites, 1};
  }
  template <class Mem, class Shape, class Thread>
  MEMSIM_HD static void body(Mem& m, const Shape&, const Thread& t) {
#ifdef __CUDA_ARCH__
    undeclared_on_the_gpu(t.thread_x);
#endif
    memsim::load_global<typename Mem::Elem>(m, 0, true, t.thread_x);
  }
};
MEMSIM_KERNEL(HostOnly)
