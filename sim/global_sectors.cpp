#include "sim/global_sectors.hpp"

#include <algorithm>
#include <stdexcept>

#include "kernels/config.hpp"
#include "sim/access_memo.hpp"
#include "sim/clones.hpp"

namespace memsim {
namespace {

// The most 4-byte words a line holds (lines up to 1024 bytes, a profile's range), and a lane of up to 16 bytes
// touches (5 where it is not 4-byte aligned).
constexpr int kMaxWordsPerLine = 256;
constexpr int kMaxWordsPerLane = 5;

// One scan of lanes in lane order (sector and line sizes powers of two): whether any lane straddles a sector,
// whether the lanes' sectors never decrease, and how often a lane's sector (line) differs from the previous
// lane's. Lanes usually walk addresses upward: then a sector is new exactly when it differs from the last one,
// and the distinct sectors are changes + 1 (lines: line_changes + 1). Branch-free, so the compiler vectorizes it.
// With `group`, the line changes at the first lane of each group of that many lanes are also counted apart: a
// full warp of sorted lanes then makes line_changes - group_line_changes + 32 / group L1 wavefronts.
struct SectorScan {
  bool straddles = false;
  bool sorted = true;
  int changes = 0;
  int line_changes = 0;
  int group_line_changes = 0;
};
MEMSIM_AVX2_CLONES SectorScan scan_sectors(const uint64_t* addr, int lanes, int width, int sector_bytes, int line_bytes,
                                           int group = kWarpSize) {
  if (width > sector_bytes) return {true, false, 0, 0, 0};
  const int shift = __builtin_ctz(unsigned(sector_bytes)), line_shift = __builtin_ctz(unsigned(line_bytes));
  const uint64_t low = uint64_t(sector_bytes - 1);
  const uint64_t last_start = uint64_t(sector_bytes - width);  // a lane starting past this straddles
  uint64_t straddles = (addr[0] & low) > last_start, falls = 0;
  int changes = 0, line_changes = 0, group_line_changes = 0;
  for (int i = 1; i < lanes; ++i) {
    const uint64_t id = addr[i] >> shift, prev = addr[i - 1] >> shift;
    straddles |= uint64_t((addr[i] & low) > last_start);
    falls |= uint64_t(id < prev);
    changes += int(id != prev);
    line_changes += int((addr[i] >> line_shift) != (addr[i - 1] >> line_shift));
  }
  // Apart from the loop above, which then stays vectorized: at most 31 boundaries, none for a whole-warp group.
  for (int i = group; i < lanes; i += group)
    group_line_changes += int((addr[i] >> line_shift) != (addr[i - 1] >> line_shift));
  return {straddles != 0, falls == 0, changes, line_changes, group_line_changes};
}

// The lane group the scan counts apart: the L1's group when it splits the warp evenly (a power of two), else
// none (the whole warp), and the wavefronts come from l1_wavefronts instead.
int scan_group(int group) { return is_pow2(group) ? group : kWarpSize; }

// L1 wavefronts (sim/global_sectors.hpp). The L1 holds a line's 4-byte words in the banks shared memory uses
// (word i of a line in bank i), and a pass reads one word a bank from at most kLinesPerPass lines: a lane group
// takes as many passes as the most distinct words one bank must deliver, and at least lines / kLinesPerPass.
constexpr int kL1WordBytes = 4;
constexpr int kLinesPerPass = 4;

// A group's passes from the most distinct words one bank delivers and the lines it touches.
int group_passes(int most_in_a_bank, int lines) {
  return std::max(most_in_a_bank, (lines + kLinesPerPass - 1) / kLinesPerPass);
}

// Counts one group's distinct words by bank and its distinct lines, fed the words in ascending order (a word
// at or below the largest seen is a repeat).
struct GroupPasses {
  explicit GroupPasses(int words_per_line) : banks(uint64_t(words_per_line)) { std::fill_n(per_bank, banks, 0); }
  void add(uint64_t word) {
    if (any && word <= last) return;
    lines += int(!any || word / banks != last / banks);
    most = std::max(most, ++per_bank[word % banks]);
    last = word, any = true;
  }
  int passes() const { return group_passes(most, lines); }

  uint64_t banks;  // a line's words, one a bank
  int per_bank[kMaxWordsPerLine];
  int most = 0, lines = 0;
  uint64_t last = 0;
  bool any = false;
};

// The words of a lane, first and last.
uint64_t first_word(uint64_t addr) { return addr / kL1WordBytes; }
uint64_t last_word(uint64_t addr, int width) { return (addr + uint64_t(width) - 1) / kL1WordBytes; }

// L1 wavefronts of any access (inactive lanes, unsorted or straddling lanes): per lane group, the passes its
// active lanes' distinct words take.
int l1_wavefronts(const WarpAccess& w, int line_bytes) {
  const int group = l1_lane_group(w.width, line_bytes);
  int total = 0;
  for (int first = 0; first < kWarpSize; first += group) {
    uint64_t words[kMaxWordsPerLane * kWarpSize];
    int n = 0;
    // A group that does not divide the warp (lines not a power of two) ends at its last lane.
    for (int lane = first; lane < std::min(first + group, kWarpSize); ++lane) {
      if (!(w.mask >> lane & 1u)) continue;
      for (uint64_t word = first_word(w.addr[lane]); word <= last_word(w.addr[lane], w.width); ++word) words[n++] = word;
    }
    std::sort(words, words + n);
    GroupPasses g(line_bytes / kL1WordBytes);
    for (int i = 0; i < n; ++i) g.add(words[i]);
    total += g.passes();
  }
  return total;
}

// Whether each lane sits at the offset of its line that the lane r before it does (line size a power of two).
MEMSIM_AVX2_CLONES bool offsets_repeat(const uint64_t* addr, int r, int line_bytes) {
  const uint64_t offset_bits = uint64_t(line_bytes - 1);
  uint64_t differs = 0;
  for (int i = r; i < kWarpSize; ++i) differs |= (addr[i] ^ addr[i - r]) & offset_bits;
  return differs == 0;
}

// Whether every lane sits at one offset of its line: against lane 0, not the lane before (a column walk, on
// every strided access: the loop vectorizes better than offsets_repeat's with r = 1).
MEMSIM_AVX2_CLONES bool one_offset(const uint64_t* addr, int line_bytes) {
  const uint64_t offset_bits = uint64_t(line_bytes - 1);
  uint64_t differs = 0;
  for (int i = 1; i < kWarpSize; ++i) differs |= (addr[i] ^ addr[0]) & offset_bits;
  return differs == 0;
}

// Whether the sorted lanes are rows of a narrow block: runs of r lanes (r dividing the group), each run in a line
// of its own, every run at the offsets of the first (line size a power of two).
bool same_rows(const uint64_t* addr, const SectorScan& scan, int group, int line_bytes) {
  const int line_shift = __builtin_ctz(unsigned(line_bytes));
  int r = 1;
  while (r < kWarpSize && addr[r] >> line_shift == addr[0] >> line_shift) ++r;
  return group % r == 0 && scan.line_changes == kWarpSize / r - 1 && offsets_repeat(addr, r, line_bytes);
}

// The wavefronts of a full warp of sorted lanes that straddle no sector (sector and line sizes powers of two,
// lines of at most 64 words), from its scan: where each group stays in one line, a pass a group (a line's words
// are in distinct banks); where every lane sits at the same offset of its line (a column walk), a pass a line.
// Else, per group, the banks each line's lanes touch: a line holds one word a bank, so the distinct words a bank
// delivers are the lines that touch it (sorted lanes visit a line's lanes together).
int sorted_warp_wavefronts(const uint64_t* addr, const SectorScan& scan, int group, int width, int line_bytes) {
  const int by_lines = scan.line_changes - scan.group_line_changes + kWarpSize / group;
  if (scan.line_changes == scan.group_line_changes || one_offset(addr, line_bytes) ||
      same_rows(addr, scan, group, line_bytes))
    return by_lines;
  const int line_shift = __builtin_ctz(unsigned(line_bytes));
  const uint64_t word_in_line = uint64_t(line_bytes / kL1WordBytes - 1);
  int total = 0;
  for (int first = 0; first < kWarpSize; first += group) {
    uint64_t banks[kWarpSize];  // the banks each line of the group touches, a bit a bank
    int lines = 0;
    uint64_t line = addr[first] >> line_shift, touched = 0;
    for (int lane = first; lane < first + group; ++lane) {
      if (addr[lane] >> line_shift != line) banks[lines++] = touched, touched = 0, line = addr[lane] >> line_shift;
      const uint64_t lo = first_word(addr[lane]) & word_in_line, hi = last_word(addr[lane], width) & word_in_line;
      touched |= (~uint64_t(0) >> (63 - hi)) & (~uint64_t(0) << lo);
    }
    banks[lines++] = touched;
    bool same = true;
    for (int i = 1; i < lines; ++i) same &= banks[i] == banks[0];
    int most = lines;
    if (!same) {
      int per_bank[64] = {};
      most = 0;
      for (int i = 0; i < lines; ++i)
        for (uint64_t b = banks[i]; b; b &= b - 1) most = std::max(most, ++per_bank[__builtin_ctzll(b)]);
    }
    total += group_passes(most, lines);
  }
  return total;
}

// Distinct lines of ascending distinct sector ids.
int lines_of_sorted(const uint64_t* ids, int n, int sectors_per_line) {
  int lines = 0;
  for (int i = 0; i < n; ++i) lines += int(i == 0 || ids[i] / uint64_t(sectors_per_line) != ids[i - 1] / uint64_t(sectors_per_line));
  return lines;
}

// The active lanes' addresses, packed in lane order: the loops below then run over plain arrays.
int pack_active(const WarpAccess& w, uint64_t* out) {
  if (w.mask == ~0u) {
    std::copy(w.addr, w.addr + kWarpSize, out);
    return kWarpSize;
  }
  int n = 0;
  for (uint32_t m = w.mask; m; m &= m - 1) out[n++] = w.addr[__builtin_ctz(m)];
  return n;
}

// The sectors a store's active lanes write in part, and the lines holding them, from each sector's byte mask
// (a lane that straddles gives each sector its share).
[[gnu::noinline]] void count_partial_sectors(const WarpAccess& w, int sector_bytes, int line_bytes, GlobalCost& c) {
  struct Piece {
    uint64_t sector, bytes;
  };
  Piece pieces[kMaxSectorsPerAccess];
  int n = 0;
  const uint64_t sb = uint64_t(sector_bytes);
  for (uint32_t m = w.mask; m; m &= m - 1) {
    const uint64_t start = w.addr[__builtin_ctz(m)];
    for (uint64_t a = start, end = start + uint64_t(w.width); a < end;) {
      const uint64_t sector = a / sb, stop = std::min(end, (sector + 1) * sb);
      const int lo = int(a - sector * sb), len = int(stop - a);
      pieces[n++] = {sector, (len >= 64 ? ~uint64_t(0) : ((uint64_t(1) << len) - 1)) << lo};
      a = stop;
    }
  }
  std::sort(pieces, pieces + n, [](const Piece& x, const Piece& y) { return x.sector < y.sector; });
  const uint64_t full = sector_bytes >= 64 ? ~uint64_t(0) : (uint64_t(1) << sector_bytes) - 1;
  const uint64_t per_line = uint64_t(line_bytes / sector_bytes);
  uint64_t last_line = ~uint64_t(0);
  for (int i = 0; i < n;) {
    uint64_t bytes = 0;
    int j = i;
    for (; j < n && pieces[j].sector == pieces[i].sector; ++j) bytes |= pieces[j].bytes;
    if ((bytes & full) != full) {
      ++c.partial_sectors;
      const uint64_t line = pieces[i].sector / per_line;
      c.partial_lines += int(line != last_line);
      last_line = line;
    }
    i = j;
  }
}

// Ideal: the fewest sectors that hold the requested bytes. Lanes that share bytes (a broadcast read) need no
// more than they touch, so the ideal never exceeds the actual count.
GlobalCost with_ideal(int distinct, int lines, int lanes, int width, int sector_bytes, int wavefronts) {
  const int64_t bytes = int64_t(lanes) * width;
  GlobalCost c;
  c.sectors = int16_t(distinct);
  c.ideal_sectors = int16_t(std::min(int((bytes + sector_bytes - 1) / sector_bytes), distinct));
  c.lines = int16_t(lines), c.wavefronts = int16_t(wavefronts);
  return c;
}

GlobalCost count_sectors_uncached(const WarpAccess& w, int sector_bytes, uint64_t* sectors_out, int line_bytes) {
  uint64_t addr[kWarpSize];
  const int lanes = pack_active(w, addr);
  if (lanes == 0) return {};
  const int sectors_per_line = line_bytes / sector_bytes;
  const int group = l1_lane_group(w.width, line_bytes);

  // Sector sizes are powers of two on every device we model; straddling lanes are rare (misaligned accesses).
  if (is_pow2(sector_bytes) && is_pow2(line_bytes)) {
    const SectorScan scan =
        scan_sectors(addr, lanes, w.width, sector_bytes, line_bytes, scan_group(group));
    if (!scan.straddles) {
      // The packed lanes are the warp's lanes, and its groups, only when every lane is active.
      const int wavefronts = scan.sorted && lanes == kWarpSize && is_pow2(group) && line_bytes <= 64 * kL1WordBytes
                                 ? sorted_warp_wavefronts(addr, scan, group, w.width, line_bytes)
                                 : l1_wavefronts(w, line_bytes);
      if (scan.sorted && !sectors_out)
        return with_ideal(scan.changes + 1, scan.line_changes + 1, lanes, w.width, sector_bytes, wavefronts);
      uint64_t ids[kWarpSize];
      const int shift = __builtin_ctz(unsigned(sector_bytes));
      for (int i = 0; i < lanes; ++i) ids[i] = addr[i] >> shift;
      if (!scan.sorted) std::sort(ids, ids + lanes);
      const int distinct = int(std::unique(ids, ids + lanes) - ids);
      if (sectors_out) std::copy(ids, ids + distinct, sectors_out);
      return with_ideal(distinct, lines_of_sorted(ids, distinct, sectors_per_line), lanes, w.width, sector_bytes,
                        wavefronts);
    }
  }

  // General case: a lane may touch two sectors.
  uint64_t buf[kMaxSectorsPerAccess];
  uint64_t* ids = sectors_out ? sectors_out : buf;
  int n = 0;
  for (int i = 0; i < lanes; ++i) {
    const uint64_t first = addr[i] / uint64_t(sector_bytes);
    const uint64_t last = (addr[i] + w.width - 1) / uint64_t(sector_bytes);
    for (uint64_t s = first; s <= last; ++s) ids[n++] = s;
  }
  std::sort(ids, ids + n);
  const int distinct = int(std::unique(ids, ids + n) - ids);
  return with_ideal(distinct, lines_of_sorted(ids, distinct, sectors_per_line), lanes, w.width, sector_bytes,
                    l1_wavefronts(w, line_bytes));
}

}  // namespace

// A store's partial sectors (GlobalCost::partial_sectors), given its other counts: none where the lanes' bytes
// fill the sectors they touch (a store's lanes do not overlap); every one where each lane, aligned to its width,
// has a sector of its own and fills less of it (a column's stores); else by the byte masks. Loads leave them 0.
void count_store_partial_sectors(const WarpAccess& w, int sector_bytes, int line_bytes, GlobalCost& c) {
  if (w.op != Op::Store || c.sectors == 0) return;
  const int lanes = __builtin_popcount(w.mask);
  if (int64_t(lanes) * w.width == int64_t(c.sectors) * sector_bytes) return;
  if (c.sectors == lanes && w.width < sector_bytes && is_pow2(w.width) && is_pow2(sector_bytes)) {
    // Branch-free, so that it vectorizes: the low bits of every active lane's address.
    uint64_t off = 0;
    if (w.mask == ~0u) {
      for (int i = 0; i < kWarpSize; ++i) off |= w.addr[i];
    } else {
      for (int i = 0; i < kWarpSize; ++i) off |= w.addr[i] & (uint64_t(0) - uint64_t(w.mask >> i & 1u));
    }
    if ((off & uint64_t(w.width - 1)) == 0) {
      c.partial_sectors = c.sectors, c.partial_lines = c.lines;
      return;
    }
  }
  count_partial_sectors(w, sector_bytes, line_bytes, c);
}

int l1_lane_group(int width, int line_bytes) {
  if (width <= 0) return kWarpSize;
  // Powers of two on every device we model: a shift, not a division, on the counting path.
  const int group =
      is_pow2(width) && is_pow2(line_bytes) ? line_bytes >> __builtin_ctz(unsigned(width)) : line_bytes / width;
  return std::clamp(group, 1, kWarpSize);
}

GlobalCost count_global_sectors(const WarpAccess& w, int sector_bytes, uint64_t* sectors_out, int line_bytes) {
  // A lane of at most 16 bytes touches at most two sectors of 16 bytes or more: what the buffers hold.
  if (sector_bytes < 16) throw std::invalid_argument("sector size below 16 bytes is not supported");
  if (line_bytes < sector_bytes || line_bytes % sector_bytes != 0)
    throw std::invalid_argument("line size must be a multiple of the sector size");
  if (line_bytes > 4 * kMaxWordsPerLine) throw std::invalid_argument("a line of more than 1024 bytes is not supported");
  if (w.width > 16) throw std::invalid_argument("a lane access of more than 16 bytes is not supported");
  // The memo holds counts only: a caller that wants the sector indices, or a sector or line size the memo's
  // period does not cover, is counted directly.
  const uint64_t period = AccessMemo<GlobalCost>::kPeriod;
  if (sectors_out || !w.mask || period % uint64_t(sector_bytes) != 0 || period % uint64_t(line_bytes) != 0)
    return count_sectors_uncached(w, sector_bytes, sectors_out, line_bytes);
  // The commonest access, a full warp walking sectors upward, needs no memo (its key and hash cost more than
  // the scan).
  if (w.mask == ~0u && is_pow2(sector_bytes) && is_pow2(line_bytes)) {
    const int group = l1_lane_group(w.width, line_bytes);
    const SectorScan scan =
        scan_sectors(w.addr, kWarpSize, w.width, sector_bytes, line_bytes, scan_group(group));
    if (!scan.straddles && scan.sorted && is_pow2(group))
      return with_ideal(scan.changes + 1, scan.line_changes + 1, kWarpSize, w.width, sector_bytes,
                        sorted_warp_wavefronts(w.addr, scan, group, w.width, line_bytes));
  }
  thread_local AccessMemo<GlobalCost> memo;
  AccessMemo<GlobalCost>::Key key;
  // Width < 2^8, sector and line sizes <= 128 (the period): each fits its byte of the key.
  const uint32_t params = uint32_t(w.width) << 16 | uint32_t(line_bytes) << 8 | uint32_t(sector_bytes);
  if (const GlobalCost* hit = memo.find(w, params, key)) return *hit;
  const GlobalCost cost = count_sectors_uncached(w, sector_bytes, nullptr, line_bytes);
  memo.store(key, cost);
  return cost;
}

}  // namespace memsim
