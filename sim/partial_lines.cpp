#include "sim/partial_lines.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>
#include <vector>

#include "sim/replay.hpp"

namespace memsim {

PartialPieces::Line* PartialPieces::find(uint64_t line) {
  return const_cast<Line*>(std::as_const(*this).find(line));
}

const PartialPieces::Line* PartialPieces::find(uint64_t line) const {
  for (const Line& l : lines_)
    if (l.line == line) return &l;
  return nullptr;
}

void PartialPieces::add(const WarpAccess& w, int warp) {
  if (w.space != Space::Global || w.mask == 0) return;
  const int slot = warp & (kWarpSize - 1);
  if (w.op == Op::Load) {
    if (after_store_[slot]) ++round_[slot], after_store_[slot] = false;
    return;
  }
  after_store_[slot] = true;
  const int round = round_[slot];
  rounds_ = std::max(rounds_, round + 1);
  // Bytes this request writes into each sector it touches, as byte masks (a sector is at most 32 bytes).
  struct Sector {
    uint64_t sector;
    uint64_t bytes;  // bit i: byte i of the sector written
  };
  Sector touched[2 * kWarpSize];  // a lane's access (at most 16 bytes, naturally aligned) lies in one sector
  int n = 0;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!(w.mask >> lane & 1u)) continue;
    const uint64_t sector = w.addr[lane] / uint64_t(sector_bytes_);
    const int offset = int(w.addr[lane] % uint64_t(sector_bytes_));
    const int width = std::min<int>(w.width, sector_bytes_ - offset);
    const uint64_t bits = (width >= 64 ? ~uint64_t(0) : ((uint64_t(1) << width) - 1)) << offset;
    int i = 0;
    while (i < n && touched[i].sector != sector) ++i;
    if (i == n) touched[n++] = {sector, 0};
    touched[i].bytes |= bits;
  }
  const uint64_t full = full_sector();
  const uint64_t sectors_per_line = uint64_t(line_bytes_ / sector_bytes_);
  for (int i = 0; i < n; ++i) {
    if (touched[i].bytes != full) continue;
    whole_sectors_.push_back(touched[i].sector);
    WholeLine& l = whole_lines_[touched[i].sector / sectors_per_line];
    if (l.first_round < 0 || round < l.first_round) l.first_round = round;
    l.last_round = std::max(l.last_round, round);
    if (l.sector_round.empty()) l.sector_round.assign(sectors_per_line, -1);
    l.sector_round[touched[i].sector % sectors_per_line] = round;
  }
  // Partial pieces this store completes into whole sectors with a piece of the warp's previous store, whatever
  // the split (16 + 16, 24 + 8): both pieces count, each once. A store between the two breaks the pair
  // (lab/studies/store_merge: 2 apart, 0-3% merge).
  std::vector<Piece>& last = last_pieces_[slot];
  std::vector<Piece> pieces;
  for (int i = 0; i < n; ++i) {
    if (touched[i].bytes == full) continue;
    const int bytes = __builtin_popcountll(touched[i].bytes);
    partial_piece_bytes_ += bytes;
    Piece piece{touched[i].sector, touched[i].bytes, false};
    for (const Piece& p : last)
      if (p.sector == piece.sector && (p.bytes | piece.bytes) == full && !(p.bytes & piece.bytes)) {
        next_store_pair_bytes_ += bytes + (p.paired ? 0 : __builtin_popcountll(p.bytes));
        piece.paired = true;
        break;
      }
    pieces.push_back(piece);
  }
  last.swap(pieces);
  // A piece of a line: this request's bytes in it, partial when some sector it touches is not written whole.
  std::vector<uint64_t> partial_lines;
  for (int i = 0; i < n; ++i) {
    if (touched[i].bytes == full) continue;
    const uint64_t line = touched[i].sector / sectors_per_line;
    if (std::find(partial_lines.begin(), partial_lines.end(), line) == partial_lines.end())
      partial_lines.push_back(line);
  }
  for (uint64_t line : partial_lines)
    if (!find(line))
      lines_.push_back({line, std::vector<uint64_t>(sectors_per_line, 0), std::vector<uint32_t>(sectors_per_line, 0),
                        std::vector<int>(sectors_per_line, 0)});
  // The bytes this request writes into the tracked lines, whole sectors included (they may complete a line),
  // and the warp of each partial piece (so a line's warps are its sectors').
  const uint32_t bit = uint32_t(1) << (warp & 31);
  for (int i = 0; i < n; ++i)
    if (Line* l = find(touched[i].sector / sectors_per_line)) {
      const uint64_t s = touched[i].sector % sectors_per_line;
      l->written[s] |= touched[i].bytes;
      if (touched[i].bytes != full) {
        l->sector_warps[s] |= bit;
        ++l->sector_pieces[s];
        l->smallest_piece = std::min(l->smallest_piece, __builtin_popcountll(touched[i].bytes));
        l->smallest_lane = std::min(l->smallest_lane, int(w.width));
        if (l->first_round < 0 || round < l->first_round) l->first_round = round;
        l->last_round = std::max(l->last_round, round);
      }
    }
}

// Its pieces come in two rounds or more: the block holds its part of the line open from the first to the last,
// whether it completes every sector it writes there or leaves some partly written for another block (a split
// sector: a naive tile whose rows end mid-sector), which stays open at least as long.
bool PartialPieces::held_over_rounds(const Line& l) const { return l.last_round > l.first_round; }

// A line counts by the share of its sectors the block writes: two blocks each holding half of a line open
// hold about one line's partial sectors between them, as the calibration's lines, written whole by one block,
// hold one.
std::array<double, 2> PartialPieces::lines_open_at_once() const {
  std::array<double, 2> rounds_open{};
  for (const Line& l : lines_)
    if (held_over_rounds(l)) {
      const double sectors = double(std::count_if(l.written.begin(), l.written.end(), [](uint64_t w) { return w != 0; }));
      rounds_open[l.smallest_piece >= 16] += (l.last_round - l.first_round + 1) * sectors / double(l.written.size());
    }
  if (rounds_ > 0)
    for (double& r : rounds_open) r /= double(rounds_);
  return rounds_open;
}

double PartialPieces::pieces_per_held_sector() const {
  int64_t pieces = 0, sectors = 0;
  for (const Line& l : lines_)
    if (held_over_rounds(l))
      for (int n : l.sector_pieces)
        if (n > 0) pieces += n, ++sectors;
  return sectors > 0 ? double(pieces) / double(sectors) : 0.0;
}

PartialPieces::WholeLinesOpen PartialPieces::whole_lines_open() const {
  WholeLinesOpen open;
  if (rounds_ <= 0) return open;
  const double sectors_per_line = double(line_bytes_ / sector_bytes_);
  double rounds_apart = 0;  // summed over the lines by their sectors
  for (const auto& [line, l] : whole_lines_) {
    if (l.last_round <= l.first_round || find(line)) continue;
    std::array<int, 2> sectors{};
    for (size_t s = 0; s < l.sector_round.size(); ++s) {
      if (l.sector_round[s] < 0) continue;
      const size_t partner = s ^ 1;
      const bool paired = partner < l.sector_round.size() && l.sector_round[partner] == l.sector_round[s];
      ++sectors[0];
      sectors[1] += !paired;
    }
    for (int c = 0; c < 2; ++c) {
      open.at_once[c] += (l.last_round - l.first_round + 1) * sectors[c] / sectors_per_line;
      open.sectors[c] += sectors[c];
    }
    std::vector<int> rounds;
    for (int r : l.sector_round)
      if (r >= 0) rounds.push_back(r);
    std::sort(rounds.begin(), rounds.end());
    int apart = 0;
    for (size_t i = 1; i < rounds.size(); ++i) apart = std::max(apart, rounds[i] - rounds[i - 1]);
    rounds_apart += double(apart) * sectors[0];
  }
  for (double& a : open.at_once) a /= double(rounds_);
  open.rounds_apart = open.sectors[0] > 0 ? rounds_apart / double(open.sectors[0]) : 0.0;
  return open;
}

double PartialPieces::whole_lines_open_at_once() const { return whole_lines_open().at_once[0]; }
double PartialPieces::lone_sector_lines_open_at_once() const { return whole_lines_open().at_once[1]; }
int64_t PartialPieces::whole_sectors_held_over_rounds() const { return whole_lines_open().sectors[0]; }
int64_t PartialPieces::lone_sectors_held_over_rounds() const { return whole_lines_open().sectors[1]; }
double PartialPieces::whole_line_rounds_apart() const { return whole_lines_open().rounds_apart; }

// Written in pieces by two or more warps and not held over rounds: the lines of sectors_by_writing_warps.
bool PartialPieces::closes_in_round(const Line& l) const { return warps_if_held_open(l) > 0 && !held_over_rounds(l); }

int64_t PartialPieces::lines_held_over_rounds() const {
  return std::count_if(lines_.begin(), lines_.end(), [this](const Line& l) { return held_over_rounds(l); });
}

int64_t PartialPieces::Line::sectors_from_warps() const {
  return std::count_if(sector_warps.begin(), sector_warps.end(), [](uint32_t w) { return __builtin_popcount(w) >= 2; });
}

int64_t PartialPieces::sectors_from_warps() const {
  int64_t sectors = 0;
  for (const Line& l : lines_) sectors += l.sectors_from_warps();
  return sectors;
}

int64_t PartialPieces::sectors_from_warps_in_one_round() const {
  const uint64_t full = full_sector();
  int64_t sectors = 0;
  for (const Line& l : lines_) {
    const bool whole = std::all_of(l.written.begin(), l.written.end(), [full](uint64_t w) { return w == full; });
    if (whole && !held_over_rounds(l)) sectors += l.sectors_from_warps();
  }
  return sectors;
}

int64_t PartialPieces::lines_closed_in_round() const {
  return std::count_if(lines_.begin(), lines_.end(),
                       [this](const Line& l) { return closes_in_round(l); });
}

int PartialPieces::rounds_of_lines_closed_in_round() const {
  std::vector<int> rounds;
  for (const Line& l : lines_)
    if (closes_in_round(l) && std::find(rounds.begin(), rounds.end(), l.first_round) == rounds.end())
      rounds.push_back(l.first_round);
  return int(rounds.size());
}

double PartialPieces::mean_open_rounds() const {
  double sum = 0;
  int64_t lines = 0;
  for (const Line& l : lines_)
    if (warps_if_held_open(l)) sum += l.last_round - l.first_round, ++lines;
  return lines ? sum / double(lines) : 0.0;
}

int64_t PartialPieces::sectors_left_partial() const { return int64_t(sectors_left_partial_list().size()); }

std::vector<uint64_t> PartialPieces::sectors_left_partial_list() const {
  const uint64_t full = full_sector();
  std::vector<uint64_t> sectors;
  for (const Line& l : lines_)
    for (size_t s = 0; s < l.written.size(); ++s)
      if (l.written[s] != 0 && l.written[s] != full) sectors.push_back(l.line * l.written.size() + s);
  return sectors;
}

bool PartialPieces::Line::holds_split(uint64_t full) const {
  return std::any_of(written.begin(), written.end(), [full](uint64_t w) { return w != 0 && w != full; });
}

PartialPieces::SplitLineSectors PartialPieces::split_line_sectors() const {
  const uint64_t full = full_sector();
  SplitLineSectors out;
  // Most blocks leave no sector partial: no copy and sort of their whole sectors then.
  if (std::none_of(lines_.begin(), lines_.end(), [full](const Line& l) { return l.holds_split(full); })) return out;
  std::vector<uint64_t> whole = whole_sectors_;
  std::sort(whole.begin(), whole.end());
  int64_t bytes = 0;
  for (const Line& l : lines_) {
    if (!l.holds_split(full)) continue;
    for (size_t s = 0; s < l.written.size(); ++s) {
      // Whole: written whole, before or after the line's first partial piece.
      const uint64_t id = l.line * l.written.size() + s;
      const bool is_whole = l.written[s] == full || std::binary_search(whole.begin(), whole.end(), id);
      out.whole += is_whole;
      out.written += is_whole || l.written[s] != 0;
      bytes += is_whole ? sector_bytes_ : __builtin_popcountll(l.written[s]);
    }
  }
  out.share = double(bytes) / double(line_bytes_);
  return out;
}

int PartialPieces::split_lane_bytes() const {
  const uint64_t full = full_sector();
  int lane = 0;
  for (const Line& l : lines_)
    if (l.holds_split(full)) lane = lane ? std::min(lane, l.smallest_lane) : l.smallest_lane;
  return lane;
}

uint32_t PartialPieces::Line::warps() const {
  uint32_t all = 0;
  for (uint32_t w : sector_warps) all |= w;
  return all;
}

uint64_t PartialPieces::full_sector() const {
  return sector_bytes_ >= 64 ? ~uint64_t(0) : (uint64_t(1) << sector_bytes_) - 1;
}

double PartialPieces::next_store_pair_share() const {
  return partial_piece_bytes_ > 0 ? double(next_store_pair_bytes_) / double(partial_piece_bytes_) : 0.0;
}

int64_t PartialPieces::lines_completed_by_one_warp() const {
  const uint64_t full = full_sector();
  return std::count_if(lines_.begin(), lines_.end(), [this, full](const Line& l) {
    return __builtin_popcount(l.warps()) == 1 && !held_over_rounds(l) &&
           std::all_of(l.written.begin(), l.written.end(), [full](uint64_t w) { return w == 0 || w == full; });
  });
}

// A line one warp writes alone is completed back to back and never held open (the header says why).
int PartialPieces::warps_if_held_open(const Line& l) {
  const int warps = __builtin_popcount(l.warps());
  return warps >= 2 ? warps : 0;
}

int64_t PartialPieces::lines_from_two_or_more_warps() const {
  return std::count_if(lines_.begin(), lines_.end(), [](const Line& l) { return warps_if_held_open(l) > 0; });
}

PartialSectorLines PartialPieces::sectors_by_writing_warps() const {
  PartialSectorLines by_warps{};
  for (const Line& l : lines_) {
    if (!closes_in_round(l)) continue;
    const int warps = warps_if_held_open(l);
    const double part =
        double(warps) / double(std::max(kReadBackWriterWarps, warps)) / double(l.sector_warps.size());
    for (uint32_t sector : l.sector_warps)
      if (sector) by_warps[__builtin_popcount(sector)] += part;
  }
  return by_warps;
}

PartialLines partial_lines_of_block(const LaunchConfig& cfg, int64_t block, const MemoryRules& rules) {
  PartialPieces pieces(rules);
  Tally findings(cfg.kernel->num_sites);
  for_each_warp_access(cfg, block, block + 1, Recorders::Counting,
                       [&](int64_t, int warp, const WarpAccess& a) { pieces.add(a, warp); }, findings);
  return partial_lines_of(pieces);
}

PartialLines partial_lines_of(const PartialPieces& pieces) {
  PartialLines p;
  p.from_warps = pieces.sectors_by_writing_warps();
  p.completed_by_one_warp = pieces.lines_completed_by_one_warp();
  p.sectors_left_partial = pieces.sectors_left_partial_list();
  const PartialPieces::SplitLineSectors split = pieces.split_line_sectors();
  p.split_line_share = split.share;
  p.split_line_whole_sectors = {split.whole, split.written};
  p.split_lane_bytes = pieces.split_lane_bytes();
  p.mean_open_rounds = pieces.mean_open_rounds();
  p.lines_open_at_once = pieces.lines_open_at_once();
  p.pieces_per_held_sector = pieces.pieces_per_held_sector();
  p.lines_held_over_rounds = pieces.lines_held_over_rounds();
  const PartialPieces::WholeLinesOpen whole = pieces.whole_lines_open();
  p.whole_lines_open_at_once = whole.at_once[0];
  p.lone_sector_lines_open_at_once = whole.at_once[1];
  p.whole_sectors_held_over_rounds = whole.sectors[0];
  p.lone_sectors_held_over_rounds = whole.sectors[1];
  p.whole_line_rounds_apart = whole.rounds_apart;
  p.lines_closed_in_round = pieces.lines_closed_in_round();
  p.closed_line_rounds = pieces.rounds_of_lines_closed_in_round();
  p.next_store_pair_share = pieces.next_store_pair_share();
  p.sectors_from_warps = pieces.sectors_from_warps();
  p.sectors_from_warps_in_one_round = pieces.sectors_from_warps_in_one_round();
  return p;
}

double split_log2_distance(const LaunchConfig& cfg, int64_t block, const MemoryRules& rules, int64_t max_distance) {
  return split_log2_distance_from(cfg, block, partial_lines_of_block(cfg, block, rules).sectors_left_partial, rules,
                                  max_distance);
}

double split_log2_distance_from(const LaunchConfig& cfg, int64_t block, std::vector<uint64_t> pending,
                                const MemoryRules& rules, int64_t max_distance) {
  if (pending.empty()) return 0.0;
  Tally findings(cfg.kernel->num_sites);
  std::sort(pending.begin(), pending.end());
  const double sectors = double(pending.size());
  const uint64_t sector_bytes = uint64_t(rules.sector_bytes);
  double sum = 0;
  std::vector<uint64_t> found;
  for (int64_t d = 1; d <= max_distance && !pending.empty(); ++d) {
    found.clear();
    for (const int64_t other : {block - d, block + d}) {
      if (other < 0 || other >= cfg.blocks()) continue;
      for_each_warp_access(cfg, other, other + 1, Recorders::Counting,
                           [&](int64_t, int, const WarpAccess& a) {
                             if (a.space != Space::Global || a.op != Op::Store) return;
                             for (int lane = 0; lane < kWarpSize; ++lane)
                               if (a.mask >> lane & 1u) {
                                 const uint64_t s = a.addr[lane] / sector_bytes;
                                 if (std::binary_search(pending.begin(), pending.end(), s)) found.push_back(s);
                               }
                           },
                           findings);
    }
    std::sort(found.begin(), found.end());
    found.erase(std::unique(found.begin(), found.end()), found.end());
    sum += double(found.size()) * std::log2(double(d));
    std::vector<uint64_t> rest;
    std::set_difference(pending.begin(), pending.end(), found.begin(), found.end(), std::back_inserter(rest));
    pending.swap(rest);
  }
  sum += double(pending.size()) * std::log2(double(max_distance));
  return sum / sectors;
}

}  // namespace memsim
