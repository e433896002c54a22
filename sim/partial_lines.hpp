#pragma once
// Lines a block leaves partly written while its warps catch up with one another: the lines that one block
// writes in partial-sector store requests ("pieces") from two or more of its warps. The L2 holds such a line
// partly written until the last warp's piece arrives; on the H100, once many are open at once, it evicts some
// and reads their partial sectors back from DRAM before writing them (validate/results/l2_partial_lines.md).
// Measured there: the same stores with each line's pieces from one warp, back to back, read back nothing
// (0.5% against 25%). Nor does a line a block writes in one piece, completed by other blocks (copy's with
// 16-byte rows: the suite's counters show no read-back). Between the two, a line counts by the warps that
// write it, G, as a share of 8 (G / 8, at most 1): measured there, the same 64 lines a block of 8 warps with
// each line's 8 pieces from 2 or 4 of them read back as if a fifth to a half as many lines were open; and with
// each group of G warps a block of its own (blocks of 2 or 4 warps, as many warps an SM), the same stores read
// back as much at every occupancy (H200: 1.7% against 1.8%, 3.2% against 3.3% at 64 warps an SM;
// lab/studies/partial_lines, "Blocks of the writers alone"). It is the warps that write a line, not their share
// of their block, so a block of 2 warps writing a line together counts it a quarter, as 2 of 8 do.
// What is read back is partial sectors, so a line counts by the share of its sectors the block writes in
// pieces: memsim-partial-lines' blocks writing one sector of each of 128 lines read back about as much as
// those writing 32 lines whole (1.2 to 1.3 times at 8 blocks an SM, up to 3 at fewer) and well under those
// writing 64 lines whole, where counting whole lines would put them past 128. And the more warps write a
// sector in pieces, the more it reads back (4-byte pieces from 8 warps: 1.9 times 16-byte pieces from 2, in
// the same lines): the count keeps the sectors apart by how many warps write each, for the cost model to weigh.
#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/kernel_counts.hpp"
#include "kernels/resolve.hpp"
#include "sim/tally.hpp"
#include "sim/warp_access.hpp"

namespace memsim {

// The warps writing a line that count it whole in the read-back (above): memsim-partial-lines' blocks of 8
// warps, where a line of all 8 read back as the cost model's read_back constants were fitted.
constexpr int kReadBackWriterWarps = 8;

// The warps that write partial pieces of each line, from one block's accesses (global stores only; others are
// ignored; warps numbered 0..31 within the block), then the lines with two or more: the function the replay
// applies to one block, exposed for hand-made warps.
class PartialPieces {
 public:
  explicit PartialPieces(const MemoryRules& rules = {})
      : sector_bytes_(rules.sector_bytes), line_bytes_(rules.line_bytes) {}
  void add(const WarpAccess& w, int warp);
  int64_t lines_from_two_or_more_warps() const;
  // Those lines' partly written sectors, each a 1 / (sectors a line) part of its line, weighted by the warps
  // that write the line as a share of 8 (min(1, warps / kReadBackWriterWarps)), at index w: the sectors w warps
  // write in pieces (1..32; a sector a warp completes alone in a line others write too is at 1). Summed over
  // w: the lines a block leaves partly written.
  PartialSectorLines sectors_by_writing_warps() const;
  // The lines one warp alone writes in partial pieces and completes itself: every sector it touched there
  // ends up whole (a sector's halves in its next store, as reg4x4 f64 writes 4 x f64 as two 16-byte halves).
  int64_t lines_completed_by_one_warp() const;
  // The sectors the block writes part of and leaves partly written: another block completes them
  // (vec4_shared f16 32x8's halves, from the block a grid row later).
  int64_t sectors_left_partial() const;
  // Those sectors, as sector indices (address / sector bytes).
  std::vector<uint64_t> sectors_left_partial_list() const;
  // In the lines where the block leaves a sector partial, in one walk of them: the sectors it writes whole there,
  // and all it writes there; and those lines, each counted by the share of its bytes the block writes there (whole
  // sectors too). None whole where every sector it writes there is split (the calibration's split runs,
  // vec4_shared's drain); some where a line holds few split sectors beside whole ones (a tile whose rows end
  // mid-sector), which cost about as much (lab/studies/split_lines: 1, 2 or 4 split sectors a line alike). The
  // share, summed over the blocks writing a line, counts the line once (two blocks half each: 0.5 a block), where
  // counting it once a block would count a line of 8 blocks (vec4_shared f16 32x8's, 16 bytes each) 8 times.
  struct SplitLineSectors {
    int64_t whole = 0, written = 0;
    double share = 0;
  };
  SplitLineSectors split_line_sectors() const;
  // The narrowest lane (bytes) of the partial pieces in those lines; 0 where the block leaves no sector partial.
  int split_lane_bytes() const;
  // How many rounds the lines held open (two or more warps) stay open: the mean over them of the rounds
  // between a line's first and last partial piece, a warp's round being the global loads it issues after its
  // last global store (naive's load, store, load, store: one round a step; a staged kernel's loads, barrier,
  // stores: all its stores in one round). 0 when none is held open, or each closes in the round it opens.
  double mean_open_rounds() const;
  // Lines held open over rounds: their partial pieces come in two or more rounds (from one warp or several),
  // whether the block completes every sector it writes there (the whole line, or its part of a line other blocks
  // write the rest of) or leaves one part written for the block a grid row on (a tile whose rows end mid-sector:
  // that sector is a split sector too, and the line stays open until the other block's piece comes; counted
  // among the lines that close in their round before, naive's such lines read back 0.05-0.4 of the output in
  // memsim where Nsight Compute measured 0.5-0.96, held-out sets d, e, f and k on the H200). The L2
  // evicts partial sectors by how many lines hold them at once (lab/calibration/held_open.cu), so each
  // counts for the share of the block's rounds it is open, (last - first + 1) / the block's rounds, times the
  // share of the line's sectors the block writes, summed, apart by their pieces: a line with any piece under 16
  // bytes a sector ([0]), or with every piece 16 bytes and more ([1]: half sectors, read back less; the factor
  // was measured on lines of such pieces alone). A line mixing the two, as where a warp spans two rows of a block
  // 24 wide (naive f64: 16-byte pieces where the rows meet, 8-byte ones elsewhere), holds 8-byte pieces open
  // and reads back as such: counted by its largest piece, naive f64 24x4 read back 0.17 of its output in memsim
  // and 0.47 on the H100 (by its smallest, 0.44). They are left out of sectors_by_writing_warps, whose lines
  // close in the round they open.
  std::array<double, 2> lines_open_at_once() const;
  // The store requests that write part of a sector in those lines, per sector they write in pieces, on average
  // (memsim-held-open's 4-byte pieces from 32 rows a request: 8; naive f32 32x2's: 8, one a row). Once more
  // lines are open at once than the L2 holds, each piece after a sector's first may find its line evicted, and
  // the L2 reads the sector back again (model/cost.cpp). 0 where no line is held open.
  double pieces_per_held_sector() const;
  int64_t lines_held_over_rounds() const;
  int64_t lines_closed_in_round() const;  // the lines of sectors_by_writing_warps
  // Lines the block writes in whole sectors alone (no partial piece there), those sectors in two rounds or more:
  // a line of naive f64's output at an 8-wide block (each warp store a whole sector of 8 rows, a line's four in
  // four steps) while the block keeps its tile's width of rows open. Nothing of them is partly written, yet
  // such blocks ran up to twice their DRAM-bound time (validate/results/naive_rows/). Counted as
  // lines_open_at_once counts its lines: the share of the block's rounds each is open times the share of its
  // sectors the block writes.
  double whole_lines_open_at_once() const;
  // The same, counting only the sectors written alone: whose 64-byte partner (the other sector of its aligned
  // pair) the block does not write whole in the same round. The L2 moves 64 bytes to and from DRAM at a time;
  // memsim-held-open's whole-sector runs write a line's sectors one a round, or two (a 64-byte piece) a round.
  double lone_sector_lines_open_at_once() const;
  // The sectors those counts weigh, each once: the block's whole sectors in lines it holds open over rounds, and
  // of them the lone ones.
  int64_t whole_sectors_held_over_rounds() const;
  int64_t lone_sectors_held_over_rounds() const;
  // How long such a line waits between its pieces: the most rounds between two consecutive rounds it gets a whole
  // sector in, averaged over the lines by their sectors (naive f64 8x4 on a 64x64 tile: 8, a row of the tile's
  // steps; memsim-held-open's at-once runs: 1). 0 where there are none.
  double whole_line_rounds_apart() const;
  // The five above in one walk of the lines: the lines open at once (the share of the block's rounds each
  // is open, times the share of its sectors counted) and the sectors counted, by every whole sector ([0]) and by
  // the lone ones ([1]), and the rounds apart averaged by every sector.
  struct WholeLinesOpen {
    std::array<double, 2> at_once{};
    std::array<int64_t, 2> sectors{};
    double rounds_apart = 0;
  };
  WholeLinesOpen whole_lines_open() const;
  // Sectors the block writes in pieces from two of its warps or more (held over rounds or not): each waits in
  // the L2 for its last piece from another warp, which memsim-held-open's runs price apart from the pieces
  // themselves (cost.sector_from_warps_ps). Pieces from one warp alone (a warp completing its own half sectors)
  // are not among them, nor a sector split between blocks whose part here one warp writes (it has the
  // split-sector charge); a split sector whose part here comes from two warps or more is.
  int64_t sectors_from_warps() const;
  // Of those, the sectors of lines the block writes whole in one round (the warps' same step: a naive block
  // as tall as a line, whose warps write all of a line's rows at once; memsim-step-lines): the L2 has every
  // piece of the line within a few requests of the first. A sector whose line stays open over rounds, or waits
  // for another block's part (memsim-held-open; a naive block half a line tall), waits longer, so the two are
  // priced apart (cost.sector_from_warps_one_round_ps).
  int64_t sectors_from_warps_in_one_round() const;
  // The rounds those lines open in (distinct): one for a staged kernel's tile, a step of its tile each for
  // naive's, which writes a fresh set of lines each step and closes them in it. 0 when there are none.
  int rounds_of_lines_closed_in_round() const;
  // The share of the block's partial pieces (their bytes) that the same warp completes into whole sectors in
  // two consecutive store instructions (a piece and the rest of its sector in the next store: two halves, or a
  // tile row's 24 bytes and the next step's 8): the pairs the L1 merges into whole sectors, wholly in blocks
  // of one or two warps storing twice a warp (lab/studies/store_merge: 99-100% on an H100 and an H200, at every
  // occupancy), less with more stores a warp or in larger blocks, by the SM's store traffic and how the warps
  // interleave. A sector a warp completes in three stores or more (quarters) pairs nothing: such pieces hardly
  // merge (store_merge: 4 pieces 1 apart, 0-4%). 0 when the block writes no partial piece.
  double next_store_pair_share() const;

 private:
  int sector_bytes_, line_bytes_;
  struct Line {
    uint64_t line;
    std::vector<uint64_t> written;  // per sector of the line, the bytes written since (bit i: byte i)
    std::vector<uint32_t> sector_warps;  // per sector of the line, the warps writing partial pieces of it
    std::vector<int> sector_pieces;      // per sector of the line, the requests writing part of it
    int first_round = -1, last_round = -1;  // the rounds of its first and last partial piece
    int smallest_piece = 64;                // the fewest bytes one request wrote into a partly written sector
    int smallest_lane = 64;                 // the narrowest lane of a request writing a partial piece here
    bool holds_split(uint64_t full) const;  // some sector of it is left partly written
    int64_t sectors_from_warps() const;      // its sectors with partial pieces from two warps or more
    uint32_t warps() const;  // bit w: warp w wrote a partial piece of the line (of some sector of it)
  };
  uint64_t full_sector() const;
  Line* find(uint64_t line);
  const Line* find(uint64_t line) const;
  static int warps_if_held_open(const Line& l);  // the warps writing it, 0 unless two or more
  bool held_over_rounds(const Line& l) const;
  bool closes_in_round(const Line& l) const;
  std::vector<Line> lines_;  // few per block: a linear search is fine
  // Lines with a whole sector from this block: the rounds of its first and last whole sector there, and each
  // sector's. Those also in lines_ hold a partial piece and are not counted.
  struct WholeLine {
    int first_round = -1, last_round = -1;
    std::vector<int> sector_round;  // per sector of the line, the round it was (last) written whole in; -1: not
  };
  std::unordered_map<uint64_t, WholeLine> whole_lines_;  // a staged tile's drain writes thousands
  // Per warp of the block: its round (global loads after a store start the next) and whether its last global
  // access was a store.
  int round_[kWarpSize] = {};
  bool after_store_[kWarpSize] = {};
  int rounds_ = 0;  // the block's rounds with a global store: the highest such round + 1
  // Per warp of the block: the partial pieces of its last global store (sector, bytes written), which its
  // next store may complete.
  struct Piece {
    uint64_t sector;
    uint64_t bytes;
    bool paired;  // completed the sector of a piece of its warp's previous store: counted already
  };
  std::vector<Piece> last_pieces_[kWarpSize];
  int64_t partial_piece_bytes_ = 0;  // bytes of every partial piece the block writes
  // Every sector the block's stores write whole, also in lines not (yet) tracked: a line's whole sectors may
  // come before its first partial piece (split_line_whole_sectors).
  std::vector<uint64_t> whole_sectors_;
  int64_t next_store_pair_bytes_ = 0;  // of those, the pairs that complete a sector in the next store (both pieces)
};

// The lines block `block` of the launch writes in partial pieces: from two or more of its warps, by their
// sectors (sectors_by_writing_warps), and from one warp alone.
struct PartialLines {
  PartialSectorLines from_warps{};
  int64_t completed_by_one_warp = 0;
  std::vector<uint64_t> sectors_left_partial;  // for another block to complete: their sector indices
  double split_line_share = 0;                 // PartialPieces::split_line_sectors' share
  std::array<int64_t, 2> split_line_whole_sectors{};  // PartialPieces::split_line_sectors' whole and written
  int split_lane_bytes = 0;                    // PartialPieces::split_lane_bytes
  double mean_open_rounds = 0;  // PartialPieces::mean_open_rounds
  std::array<double, 2> lines_open_at_once{};  // PartialPieces::lines_open_at_once
  double pieces_per_held_sector = 0;           // PartialPieces::pieces_per_held_sector
  int64_t lines_held_over_rounds = 0;   // PartialPieces::lines_held_over_rounds
  int64_t lines_closed_in_round = 0;    // PartialPieces::lines_closed_in_round
  double whole_lines_open_at_once = 0;  // PartialPieces::whole_lines_open_at_once
  double lone_sector_lines_open_at_once = 0;  // PartialPieces::lone_sector_lines_open_at_once
  int64_t whole_sectors_held_over_rounds = 0;  // PartialPieces::whole_sectors_held_over_rounds
  int64_t lone_sectors_held_over_rounds = 0;   // PartialPieces::lone_sectors_held_over_rounds
  double whole_line_rounds_apart = 0;          // PartialPieces::whole_line_rounds_apart
  int closed_line_rounds = 0;           // PartialPieces::rounds_of_lines_closed_in_round
  double next_store_pair_share = 0;       // PartialPieces::next_store_pair_share
  int64_t sectors_from_warps = 0;         // PartialPieces::sectors_from_warps
  int64_t sectors_from_warps_in_one_round = 0;  // PartialPieces::sectors_from_warps_in_one_round
};
PartialLines partial_lines_of_block(const LaunchConfig& cfg, int64_t block, const MemoryRules& rules = {});
// The same from a block's pieces already gathered (replay() gathers them in its one walk of the block).
PartialLines partial_lines_of(const PartialPieces& pieces);

// How far apart in launch order the two blocks of a split sector are: measured (memsim-microbench
// --split-sectors), such a sector costs more the further apart its writers, from 1 to 512 blocks 1.4 times
// as much on an H100. For the sectors block `block` leaves partly written, the blocks that write into them
// are searched at distance 1, 2, ... either way, up to max_distance; the result is the mean of log2(distance)
// over those sectors (0: the neighbours complete all of them), a sector none within reach writes counted at
// max_distance. 0 when the block leaves none.
double split_log2_distance(const LaunchConfig& cfg, int64_t block, const MemoryRules& rules = {},
                           int64_t max_distance = 4096);
// The same search from the sectors the block leaves partly written, as partial_lines_of_block gives them (the
// replay has them already, and need not replay the block again).
double split_log2_distance_from(const LaunchConfig& cfg, int64_t block, std::vector<uint64_t> pending,
                                const MemoryRules& rules = {}, int64_t max_distance = 4096);

}  // namespace memsim
