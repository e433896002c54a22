#pragma once
// One warp-wide memory instruction as the replay sees it: up to 32 lanes' byte addresses, which lanes are
// active, how wide each lane's access is, and where in the kernel's source it comes from.
#include <cstdint>

#include "core/warp.hpp"
#include "kernels/site.hpp"

namespace memsim {

struct WarpAccess {
  uint64_t addr[kWarpSize];  // byte address per lane: global = address in the modelled address space,
                             // shared = byte offset in the block's shared window
  uint32_t mask = 0;         // active lanes
  uint8_t width = 0;         // bytes per lane: 1, 2, 4, 8 or 16
  Space space = Space::Global;
  Op op = Op::Load;
  int site = 0;
};

inline int active_lanes(const WarpAccess& w) { return __builtin_popcount(w.mask); }

}  // namespace memsim
