#pragma once
// Lines a block leaves partly written while its warps catch up with one another: the lines that one block
// writes in partial-sector store requests ("pieces") from two or more of its warps. The L2 holds such a line
// partly written until the last warp's piece arrives; on the H100, once many are open at once, it evicts some
// and reads their partial sectors back from DRAM before writing them (validate/results/l2_partial_lines.md).
// Measured there: the same stores with each line's pieces from one warp, back to back, read back nothing
// (0.5% against 25%). Nor does a line a block writes in one piece, completed by other blocks (copy's with
// 16-byte rows: the suite's counters show no read-back). Between the two, a line counts by the share of the
// block's warps that write it: measured there, the same 64 lines a block with each line's 8 pieces from 2 or
// 4 of the 8 warps read back as if a fifth to a half as many lines were open (G / 8: a quarter and a half).
#include <cstdint>
#include <vector>

#include "kernels/resolve.hpp"
#include "sim/tally.hpp"
#include "sim/warp_access.hpp"

namespace memsim {

// The warps that write partial pieces of each line, from one block's accesses (global stores only; others are
// ignored; warps numbered 0..31 within the block), then the lines with two or more: the function the replay
// applies to one block, exposed for hand-made warps.
class PartialPieces {
 public:
  explicit PartialPieces(const MemoryRules& rules = {})
      : sector_bytes_(rules.sector_bytes), line_bytes_(rules.line_bytes) {}
  void add(const WarpAccess& w, int warp);
  int64_t lines_from_two_or_more_warps() const;
  // Those lines, each weighted by the share of the block's warps that write it (warps it / block_warps).
  double lines_weighted_by_warps(int block_warps) const;
  // The lines one warp alone writes in partial pieces and completes itself: every sector it touched there
  // ends up whole (a sector's halves in its next store, as reg4x4 f64 writes 4 x f64 as two 16-byte halves).
  int64_t lines_completed_by_one_warp() const;

 private:
  int sector_bytes_, line_bytes_;
  struct Line {
    uint64_t line;
    uint32_t warps;                // bit w: warp w wrote a partial piece of it
    std::vector<uint64_t> written;  // per sector of the line, the bytes written since (bit i: byte i)
  };
  uint64_t full_sector() const;
  Line* find(uint64_t line);
  static int warps_if_held_open(const Line& l);  // the warps writing it, 0 unless two or more
  std::vector<Line> lines_;  // few per block: a linear search is fine
};

// The lines block `block` of the launch writes in partial pieces: from two or more of its warps, weighted by
// the share of its warps that write each (lines_weighted_by_warps), and from one warp alone.
struct PartialLines {
  double from_warps = 0;
  int64_t completed_by_one_warp = 0;
};
PartialLines partial_lines_of_block(const LaunchConfig& cfg, int64_t block, const MemoryRules& rules = {});

}  // namespace memsim
