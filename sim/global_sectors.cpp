#include "sim/global_sectors.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "sim/access_memo.hpp"
#include "sim/clones.hpp"

namespace memsim {
namespace {

GlobalCost count_sectors_uncached(const WarpAccess& w, int sector_bytes, uint64_t* sectors_out);

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

GlobalCost count_sectors_uncached(const WarpAccess& w, int sector_bytes, uint64_t* sectors_out) {
  uint64_t addr[kWarpSize];
  const int lanes = pack_active(w, addr);
  if (lanes == 0) return {0, 0};
  const int64_t bytes = int64_t(lanes) * w.width;
  // Ideal: the fewest sectors that hold the requested bytes. Lanes that share bytes (a broadcast read) need
  // no more than they touch, so the ideal never exceeds the actual count.
  const int by_bytes = int((bytes + sector_bytes - 1) / sector_bytes);

  // Sector sizes are powers of two on every device we model; straddling lanes are rare (misaligned accesses).
  const bool pow2 = (sector_bytes & (sector_bytes - 1)) == 0;
  if (pow2) {
    const int shift = __builtin_ctz(unsigned(sector_bytes));
    const uint64_t low = uint64_t(sector_bytes - 1);
    bool straddles = false;
    for (int i = 0; i < lanes; ++i) straddles |= (addr[i] & low) + w.width > uint64_t(sector_bytes);
    if (!straddles) {
      uint64_t ids[kWarpSize];
      for (int i = 0; i < lanes; ++i) ids[i] = addr[i] >> shift;
      bool sorted = true;
      int changes = 0;
      for (int i = 1; i < lanes; ++i) {
        sorted &= ids[i] >= ids[i - 1];
        changes += ids[i] != ids[i - 1];
      }
      // Lanes usually walk addresses upward: then a sector is new exactly when it differs from the last one.
      if (!sorted) std::sort(ids, ids + lanes);
      const int distinct = sorted ? changes + 1 : int(std::unique(ids, ids + lanes) - ids);
      if (sectors_out) std::unique_copy(ids, ids + lanes, sectors_out);
      return {distinct, std::min(by_bytes, distinct)};
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
  return {distinct, std::min(by_bytes, distinct)};
}

// The commonest warp access, counted in one pass without the memo's key and hash: all 32 lanes, none
// straddling a sector, sectors non-decreasing in lane order (coalesced rows, and strided columns walked
// downward). A sector is then new exactly when it differs from the previous lane's. Anything else: nullopt.
MEMSIM_AVX2_CLONES std::optional<GlobalCost> count_sorted_full_warp(const WarpAccess& w, int sector_bytes) {
  if (w.mask != ~0u || (sector_bytes & (sector_bytes - 1)) != 0 || w.width > sector_bytes) return std::nullopt;
  const int shift = __builtin_ctz(unsigned(sector_bytes));
  const uint64_t low = uint64_t(sector_bytes - 1);
  const uint64_t last_start = uint64_t(sector_bytes - w.width);  // a lane starting past this straddles
  uint64_t bad = (w.addr[0] & low) > last_start;
  int changes = 0;
  for (int i = 1; i < kWarpSize; ++i) {  // branch-free: the compiler vectorizes it
    const uint64_t id = w.addr[i] >> shift, prev = w.addr[i - 1] >> shift;
    bad |= uint64_t(id < prev) | uint64_t((w.addr[i] & low) > last_start);
    changes += int(id != prev);
  }
  if (bad) return std::nullopt;
  const int by_bytes = (kWarpSize * w.width + sector_bytes - 1) / sector_bytes;
  return GlobalCost{changes + 1, std::min(by_bytes, changes + 1)};
}

}  // namespace

GlobalCost count_global_sectors(const WarpAccess& w, int sector_bytes, uint64_t* sectors_out) {
  // A lane of at most 16 bytes touches at most two sectors of 16 bytes or more: what the buffers hold.
  if (sector_bytes < 16) throw std::invalid_argument("sector size below 16 bytes is not supported");
  // The memo holds counts only: a caller that wants the sector indices, or a sector size the memo's period
  // does not cover, is counted directly.
  if (sectors_out || !w.mask || AccessMemo<GlobalCost>::kPeriod % uint64_t(sector_bytes) != 0)
    return count_sectors_uncached(w, sector_bytes, sectors_out);
  if (const auto cost = count_sorted_full_warp(w, sector_bytes)) return *cost;
  thread_local AccessMemo<GlobalCost> memo;
  AccessMemo<GlobalCost>::Key key;
  if (const GlobalCost* hit = memo.find(w, uint32_t(w.width) << 16 | uint32_t(sector_bytes), key)) return *hit;
  const GlobalCost cost = count_sectors_uncached(w, sector_bytes, nullptr);
  memo.store(key, cost);
  return cost;
}

}  // namespace memsim
