#include "sim/coalescing_cc1x.hpp"

#include <algorithm>

namespace memsim {
namespace {

constexpr int kMinTransaction = 32;

void emit(Cc1xCost& c, Transaction* out, uint64_t addr, int bytes) {
  if (out) out[c.transactions] = {addr, bytes};
  ++c.transactions;
  c.bytes += bytes;
}

uint32_t half_mask(int h) { return 0xFFFFu << (kHalfWarp * h); }

}  // namespace

int cc12_segment_bytes(int word_bytes) { return word_bytes <= 1 ? 32 : word_bytes == 2 ? 64 : 128; }

Cc1xCost coalesce_cc12(const WarpAccess& w, Transaction* out) {
  Cc1xCost c;
  const int width = std::max<int>(1, w.width);
  const uint64_t seg = uint64_t(cc12_segment_bytes(width));
  for (int h = 0; h < 2; ++h) {
    uint32_t pending = w.mask & half_mask(h);
    if (pending) ++c.half_warps;
    while (pending) {
      const uint64_t base = w.addr[__builtin_ctz(pending)] / seg * seg;
      // The pending lanes this segment serves, and the span of bytes they use inside it.
      uint64_t lo = base + seg, hi = base;
      uint32_t served = 0;
      for (uint32_t m = pending; m; m &= m - 1) {
        const int lane = __builtin_ctz(m);
        const uint64_t a = w.addr[lane];
        if (a < base || a >= base + seg) continue;
        served |= 1u << lane;
        lo = std::min(lo, a);
        hi = std::max(hi, std::min(a + uint64_t(width), base + seg));
      }
      uint64_t start = base, size = seg;
      while (size > kMinTransaction) {
        const uint64_t half = size / 2;
        if (hi <= start + half) {
          size = half;  // only the lower half is used
        } else if (lo >= start + half) {
          start += half;  // only the upper half
          size = half;
        } else {
          break;
        }
      }
      emit(c, out, start, int(size));
      pending &= ~served;
    }
  }
  return c;
}

Cc1xCost coalesce_cc10(const WarpAccess& w, Transaction* out) {
  Cc1xCost c;
  const int width = std::max<int>(1, w.width);
  for (int h = 0; h < 2; ++h) {
    const uint32_t active = w.mask & half_mask(h);
    if (!active) continue;
    ++c.half_warps;
    // Coalesced only for 4-, 8- and 16-byte words with lane k at word k of a 16-word aligned segment.
    bool coalesced = width == 4 || width == 8 || width == 16;
    uint64_t base = 0;
    if (coalesced) {
      const uint64_t seg = 16 * uint64_t(width);
      const int lead = __builtin_ctz(active);
      const uint64_t k_lead = uint64_t(lead - kHalfWarp * h);
      const uint64_t a_lead = w.addr[lead];
      coalesced = a_lead >= k_lead * width;
      base = a_lead - k_lead * width;
      coalesced = coalesced && base % seg == 0;
      for (uint32_t m = active; coalesced && m; m &= m - 1) {
        const int lane = __builtin_ctz(m);
        coalesced = w.addr[lane] == base + uint64_t(lane - kHalfWarp * h) * width;
      }
    }
    if (coalesced) {
      if (width == 16) {
        emit(c, out, base, 128);
        emit(c, out, base + 128, 128);
      } else {
        emit(c, out, base, 16 * width);
      }
      continue;
    }
    for (uint32_t m = active; m; m &= m - 1) {
      const uint64_t a = w.addr[__builtin_ctz(m)];
      const uint64_t start = a / kMinTransaction * kMinTransaction;
      const uint64_t end = (a + width + kMinTransaction - 1) / kMinTransaction * kMinTransaction;
      emit(c, out, start, int(end - start));
    }
  }
  return c;
}

int transaction_sectors(const Transaction* tx, int count, int sector_bytes, uint64_t* out) {
  int n = 0;
  const uint64_t sb = uint64_t(sector_bytes);
  for (int i = 0; i < count; ++i) {
    const uint64_t first = tx[i].addr / sb;
    const uint64_t last = (tx[i].addr + uint64_t(tx[i].bytes) - 1) / sb;
    for (uint64_t s = first; s <= last; ++s) out[n++] = s;
  }
  return n;
}

}  // namespace memsim
