#pragma once
// Hand-made warp accesses for the counter tests: lane i at base + i * stride (bytes).
#include <cstdint>

#include "sim/warp_access.hpp"

namespace memsim::test {

inline WarpAccess lanes_at(Space space, Op op, uint64_t base, uint64_t stride, int width, uint32_t mask = ~0u) {
  WarpAccess w{};
  for (int i = 0; i < kWarpSize; ++i) w.addr[i] = base + uint64_t(i) * stride;
  w.mask = mask;
  w.width = uint8_t(width);
  w.space = space;
  w.op = op;
  return w;
}

}  // namespace memsim::test
