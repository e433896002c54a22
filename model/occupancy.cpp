#include "model/occupancy.hpp"

#include <algorithm>
#include <climits>

namespace memsim {
namespace {

int64_t round_up(int64_t v, int64_t unit) { return unit > 0 ? (v + unit - 1) / unit * unit : v; }

}  // namespace

Occupancy occupancy(const DeviceProfile& p, const BlockResources& b) {
  Occupancy o;
  o.regs_per_thread = b.regs_per_thread;
  // A block past a per-block limit never launches: none resident, and the limit named.
  if (b.threads <= 0 || b.threads > p.max_threads_per_block) return o.limiter = "threads", o;
  if (b.regs_per_thread > p.max_regs_per_thread) return o.limiter = "registers", o;
  if (b.shared_bytes > p.shared_per_block_optin) return o.limiter = "shared memory", o;
  o.warps_per_block = (b.threads + 31) / 32;

  // Warps: the SM's warp slots (max threads / 32); the calculator rounds a block's warps to the warp
  // allocation granularity only for registers, not for the warp limit.
  o.by_warps = p.max_warps_per_sm / o.warps_per_block;
  o.by_blocks = p.max_blocks_per_sm;

  // Registers are allocated per warp in units of reg_alloc_unit; an SM's register file is split among the
  // warps it can hold, in whole warp-allocation groups.
  if (b.regs_per_thread <= 0) {
    o.by_registers = INT_MAX;
  } else {
    if (p.reg_alloc_per_block) {
      // Compute capability 1.x: the block's warps (rounded to the granularity) x 32 threads, rounded as a whole.
      const int64_t warps = round_up(o.warps_per_block, p.warp_alloc_granularity);
      const int64_t per_block = round_up(int64_t(b.regs_per_thread) * 32 * warps, p.reg_alloc_unit);
      o.by_registers = int(p.regs_per_sm / per_block);
    } else {
      const int64_t per_warp = round_up(int64_t(b.regs_per_thread) * 32, p.reg_alloc_unit);
      const int64_t warps_by_regs = p.regs_per_sm / per_warp / p.warp_alloc_granularity * p.warp_alloc_granularity;
      o.by_registers = int(warps_by_regs / o.warps_per_block);
      if (per_warp * o.warps_per_block > p.max_regs_per_block) o.by_registers = 0;
    }
  }

  // Shared memory: each block takes its size rounded up to the allocation granularity, plus the system's
  // reserve, out of the largest carve-out.
  if (b.shared_bytes <= 0 && p.reserved_shared_per_block == 0) {
    o.by_shared = INT_MAX;
  } else {
    const int64_t per_block = round_up(b.shared_bytes, p.shared_alloc_granularity) + p.reserved_shared_per_block;
    o.by_shared = int(p.shared_per_sm / per_block);
  }

  o.blocks_per_sm = std::min({o.by_warps, o.by_blocks, o.by_registers, o.by_shared});
  o.limiter = o.blocks_per_sm == o.by_warps       ? "threads"
              : o.blocks_per_sm == o.by_blocks    ? "blocks"
              : o.blocks_per_sm == o.by_registers ? "registers"
                                                  : "shared memory";
  // The runtime splits the SM's L1 and shared memory at the smallest carve-out that holds the resident blocks'
  // shared memory (their reserve included): measured on an H200, 10 blocks of 19 KiB run under a 196 KiB
  // carve-out, 12 of them under 228 KiB (lab/studies/cut_lines).
  if (!p.shared_carveouts.empty() && o.blocks_per_sm > 0) {
    const int64_t used =
        int64_t(o.blocks_per_sm) * (round_up(std::max<int64_t>(0, b.shared_bytes), p.shared_alloc_granularity) +
                                    p.reserved_shared_per_block);
    o.shared_carveout = p.shared_carveouts.back();
    for (const int64_t c : p.shared_carveouts)
      if (c >= used) {
        o.shared_carveout = c;
        break;
      }
    o.l1_bytes = std::max<int64_t>(0, p.l1_and_shared_per_sm - o.shared_carveout);
  }
  return o;
}

double waves(const DeviceProfile& p, const Occupancy& o, int64_t blocks) {
  const double per_wave = double(p.sms) * o.blocks_per_sm;
  return per_wave > 0 ? double(blocks) / per_wave : 0.0;
}

}  // namespace memsim
