#pragma once
// Resident blocks per SM, as the CUDA occupancy calculator works them out: each resource (warps, registers,
// shared memory, the block slots) allows some number of blocks, rounded to its allocation granularity, and
// the smallest wins.
#include <cstdint>
#include <string>

#include "model/profile.hpp"

namespace memsim {

struct BlockResources {
  int threads = 0;
  int64_t shared_bytes = 0;  // static + dynamic, per block
  int regs_per_thread = 32;
};

struct Occupancy {
  int blocks_per_sm = 0;     // 0: the block does not fit at all
  int warps_per_block = 0;   // allocated warps (rounded up to whole warps)
  int by_warps = 0, by_blocks = 0, by_registers = 0, by_shared = 0;  // what each limit alone allows
  std::string limiter;       // "threads", "blocks", "registers" or "shared memory" (first of equals, in that order)
  // The shared-memory carve-out the runtime picks for that many blocks (the smallest of the profile's that holds
  // them) and the L1 left beside it, in bytes; 0 where the profile does not say how L1 and shared memory split.
  int64_t shared_carveout = 0, l1_bytes = 0;
  int regs_per_thread = 0;      // the registers a thread it was worked out with
  std::string registers_basis;  // where they come from (compiled, given, the profile's count), where known
  int resident_warps() const { return blocks_per_sm * warps_per_block; }
};

Occupancy occupancy(const DeviceProfile& p, const BlockResources& b);

// Waves of a launch: blocks / (SMs x resident blocks per SM); fractional, 0 when nothing fits.
double waves(const DeviceProfile& p, const Occupancy& o, int64_t blocks);

}  // namespace memsim
