#pragma once
// Lines a block leaves partly written while its own warps catch up: the lines that one block writes in two or
// more partial-sector store requests ("pieces"). The L2 holds such a line partly written until the block's
// last piece arrives; on the H100, once many are open at once, it evicts some and reads their partial sectors
// back from DRAM before writing them (validate/results/l2_partial_lines.md). A line a block writes in one
// piece (completed by other blocks, as copy's with 16-byte rows) does not count: the suite's counters show no
// read-back for it.
#include <cstdint>
#include <vector>

#include "kernels/resolve.hpp"
#include "sim/tally.hpp"
#include "sim/warp_access.hpp"

namespace memsim {

// Pieces per line of the given store accesses (global stores only; others are ignored), then the lines with
// two or more: the function the replay applies to one block's accesses, exposed for hand-made warps.
class PartialPieces {
 public:
  explicit PartialPieces(const MemoryRules& rules = {}) : sector_bytes_(rules.sector_bytes), line_bytes_(rules.line_bytes) {}
  void add(const WarpAccess& w);
  int64_t lines_in_two_or_more() const;

 private:
  int sector_bytes_, line_bytes_;
  struct Line {
    uint64_t line;
    int pieces;
  };
  Line* find(uint64_t line);
  std::vector<Line> lines_;  // few per block: a linear search is fine
};

// The lines block `block` of the launch writes in two or more partial pieces.
int64_t lines_in_partial_pieces(const LaunchConfig& cfg, int64_t block, const MemoryRules& rules = {});

}  // namespace memsim
