#include "sim/global_sectors.hpp"

#include <algorithm>

namespace memsim {

GlobalCost count_global_sectors(const WarpAccess& w, int sector_bytes, uint64_t* sectors_out) {
  uint64_t buf[kMaxSectorsPerAccess];
  uint64_t* ids = sectors_out ? sectors_out : buf;
  int n = 0;
  bool sorted = true;
  for (uint32_t m = w.mask; m; m &= m - 1) {
    const int lane = __builtin_ctz(m);
    const uint64_t first = w.addr[lane] / sector_bytes;
    const uint64_t last = (w.addr[lane] + w.width - 1) / sector_bytes;
    for (uint64_t s = first; s <= last; ++s) {
      if (n > 0 && s < ids[n - 1]) sorted = false;
      ids[n++] = s;
    }
  }
  // Lanes usually walk addresses upward, so most accesses skip the sort.
  if (!sorted) std::sort(ids, ids + n);
  const int distinct = int(std::unique(ids, ids + n) - ids);
  const int64_t bytes = int64_t(active_lanes(w)) * w.width;
  return {distinct, int((bytes + sector_bytes - 1) / sector_bytes)};
}

}  // namespace memsim
