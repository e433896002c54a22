#pragma once
// The exact fast path of the replay: blocks grouped into classes whose counts are provably identical, one
// block of each class replayed and its counts multiplied by the class's size. Every count equals the full
// replay's (tests/core/block_classes_test.cpp compares them over the suite); a launch the proof does not
// cover is replayed in full, and the plan says why.
//
// Why the counts of a class's blocks are equal (the proof; sim/block_classes.cpp checks each class on two of
// its blocks as well):
//
// 1. Addresses. Every kernel this path accepts (kProvenKernels in block_classes.cpp) places block (bx, by)
//    at the grid origin (gx0, gy0) = (bx * tile_x, by * tile_y) elements (tile_origin in kernels/tiles.hpp;
//    naive_read lays the same grid over the output) and computes every global element offset as
//        A * gx0 + B * gy0 + g(thread, step),   A, B in {1, W, H}
//    (input loads: row0 * W + col0; transposed stores: col0 * H + row0; copy-like stores: row0 * W + col0;
//    naive_read: ox * W + oy and oy * H + ox with ox = gx0 + c, oy = gy0 + r), while shared offsets are
//    g'(thread, step) alone (r * smem_row + columns(r, c)): the shared layout is the same in every block.
//    So two blocks whose bx differ by a multiple of p_x = P / gcd(P, tile_x * elem_bytes), and whose by differ
//    by a multiple of p_y = P / gcd(P, tile_y * elem_bytes), issue the same warp instructions, lane for lane,
//    each global one moved as a whole by elem_bytes * (A * dgx0 + B * dgy0): a multiple of P bytes, as
//    elem_bytes * dgx0 = dbx * tile_x * elem_bytes is one and A, B are integers.
// 2. Predicates. A lane's predicate compares gx0 + c (c < tile extent) with the matrix side along the grid's
//    x (gy0 + r likewise along y), besides the in-tile test, which does not depend on the block. For a block
//    that is not the last along x, gx0 + tile_x <= that side, so the comparison holds for every c; the last
//    blocks along x all share one gx0. So blocks in the same class below, which agree on being last along
//    each axis, have the same active lanes in every instruction.
// 3. Counts. P is a multiple of every size the counters align to: sector and line (sim/global_sectors, and
//    the partial lines of sim/partial_lines), and under the CC 1.x rules the 256-byte segments of 16 words of
//    16 bytes (sim/coalescing_cc1x). Moving all of an instruction's addresses by a multiple of P moves each
//    sector, line and segment index by the same amount: distinct ones stay distinct, their order and every
//    lane's offset within them stay, so sectors, lines, L1 wavefronts, transactions and alignment are
//    unchanged; shared addresses are equal, so wavefronts and bank words are. The body's index math and
//    memory calls do not depend on the values (lane_operations, runtime divisions: the same per block), and
//    barriers are counted once per launch from block 0.
// Classes: bx by its residue mod p_x, the last bx apart; by the same with p_y; a class is a pair. The
// diagonal kernel, whose block order is a permutation of the tiles, and any kernel not in the list are
// replayed in full, as are launches with a partition counter (it needs every block's own addresses) and
// launches whose checked blocks make a finding or disagree (sim/replay.cpp).
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/resolve.hpp"
#include "sim/recorder.hpp"
#include "sim/tally.hpp"

namespace memsim {

struct BlockClass {
  int64_t first = 0;    // linear id of its first block in launch order: the one replayed and counted
  int64_t last = 0;     // linear id of its last block: replayed to check the first against
  int64_t members = 0;  // blocks of the class
};

struct ClassPlan {
  std::string why_not;  // empty: the launch may be replayed by classes; else why it is replayed in full
  int64_t period_bytes = 0;
  int64_t period_x = 0, period_y = 0;  // in blocks
  std::vector<BlockClass> classes;
  int64_t blocks_to_replay() const;  // first and last of each class (one for a class of one)
};

// The classes of a launch under `rules` (or why it has none).
ClassPlan plan_block_classes(const LaunchConfig& cfg, const MemoryRules& rules);

// Replays each class's first block into `out` (its counts times the class's size) and its last block, which
// must issue the same instructions with every global access moved by a multiple of the plan's period and
// every shared one unmoved, and make no finding. Returns empty when it did; otherwise why not, and `out` is
// to be thrown away.
std::string replay_by_classes(const LaunchConfig& cfg, const BufferLayout& layout, const ClassPlan& plan,
                              const MemoryRules& rules, Tally& out);

}  // namespace memsim
