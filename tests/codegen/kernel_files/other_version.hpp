// A kernel written for a later interface version than this memsim's.
#pragma once
#include "kernels/plugin.hpp"
struct FromTheFuture {
  static constexpr int kInterfaceVersion = 2;
  static constexpr memsim::SiteInfo kSites[] = {{"ld in", memsim::Space::Global, memsim::Op::Load, "in[0]"}};
  static constexpr memsim::KernelInfo info() {
    return {"from_the_future", "test", "tests/codegen", memsim::Footprint::Scalar, memsim::OutputKind::Copy, kSites, 1};
  }
  template <class Mem, class Shape, class Thread>
  MEMSIM_HD static void body(Mem&, const Shape&, const Thread&) {}
};
MEMSIM_KERNEL(FromTheFuture)
