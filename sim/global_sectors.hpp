#pragma once
// Global memory on Volta and later (docs/hardware.md, "Global memory: requests and sectors"): one request per warp
// instruction with an active lane; its sectors are the distinct aligned 32-byte segments the active lanes touch, a
// straddling lane touching both.
#include <cstdint>

#include "sim/warp_access.hpp"

namespace memsim {

constexpr int kMaxSectorsPerAccess = 2 * kWarpSize;

struct GlobalCost {
  // Counts of one warp access, each at most a few hundred: 16-bit, so that the record (which the memo holds by
  // the thousand) stays 12 bytes with the partial counts added.
  int16_t sectors = 0;        // distinct sectors touched
  int16_t ideal_sectors = 0;  // fewest sectors that could carry the active bytes
  // distinct cache lines touched: L1 sends L2 one request per line a store writes (its sectors masked in),
  // as Nsight Compute's lts__t_requests_srcunit_tex_op_write counts them
  int16_t lines = 0;
  // L1 data-stage passes (wavefronts): the lanes go through in groups of line_bytes / lane width (the whole
  // warp for lanes of 4 bytes or fewer, half-warps for 8-byte lanes, quarter-warps for 16-byte ones). The L1
  // keeps a line's 4-byte words in the banks shared memory uses (word i of a line in bank i), and a pass reads
  // one word a bank from at most 4 lines: a group takes as many passes as the most distinct words one bank
  // must deliver, and at least its lines / 4. So lines whose parts share banks take a pass each (a column, rows
  // of a narrow block), and two lines whose parts sit in different banks share one (a warp across two rows of a
  // block 24 or 48 wide, a row that starts off a line). Measured: Nsight Compute's
  // l1tex__data_pipe_lsu_wavefronts_mem_lgds on the H100 suite, the held-out sweeps and the ragged sizes
  // (validate/results/l1_wavefronts.md).
  int16_t wavefronts = 0;
  // Stores only, filled by count_store_partial_sectors (0 until then, and for loads): of the sectors, those the
  // active lanes write only in part (fewer than sector_bytes of their bytes), and the distinct lines holding
  // them: the L2 write requests that carry a byte mask. A store writes its other sectors whole, whatever its
  // neighbours do (its lanes do not overlap).
  int16_t partial_sectors = 0;
  int16_t partial_lines = 0;
};

// Lanes whose data pass through L1 together: line_bytes / width, within [1, 32].
int l1_lane_group(int width, int line_bytes);

// Counts the sectors (lines, L1 wavefronts) of one warp access; line_bytes is a multiple of sector_bytes. When
// `sectors_out` is given (room for kMaxSectorsPerAccess), the distinct sector indices (address / sector_bytes)
// are written there in ascending order.
GlobalCost count_global_sectors(const WarpAccess& w, int sector_bytes = 32, uint64_t* sectors_out = nullptr,
                                int line_bytes = 128);

// Fills c.partial_sectors and c.partial_lines of a store counted by count_global_sectors (c its counts, the
// same sizes); a load's stay 0. Apart from the count, so that loads and the memo's path pay nothing for it.
void count_store_partial_sectors(const WarpAccess& w, int sector_bytes, int line_bytes, GlobalCost& c);

}  // namespace memsim
