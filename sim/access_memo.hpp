#pragma once
// Memo for the warp-access counters. The same warp access shape recurs in every block (the same lanes, the
// same address differences), and sector and bank counts do not change when every address moves by a multiple
// of 128 bytes (4 sectors; one full row of 32 banks x 4 bytes). So a count is remembered under the access's
// addresses minus (first address rounded down to 128) and looked up again; the whole key is compared, so a
// hit returns exactly what counting would. One small direct-mapped table per thread and counter.
#include <cstdint>
#include <cstring>
#include <vector>

#include "sim/warp_access.hpp"

namespace memsim {

template <class Cost>
class AccessMemo {
 public:
  static constexpr uint64_t kPeriod = 128;  // a multiple of every sector size and bank row we model

  struct Key {
    uint64_t rel[kWarpSize];
    uint32_t mask;
    uint32_t params;  // width and the rules, packed
  };

  // Returns the cached cost, or nullptr; `key` is filled for a following store().
  const Cost* find(const WarpAccess& w, uint32_t params, Key& key) {
    const uint64_t base = w.addr[__builtin_ctz(w.mask)] & ~(kPeriod - 1);
    if (w.mask == ~0u) {
      for (int i = 0; i < kWarpSize; ++i) key.rel[i] = w.addr[i] - base;
    } else {
      for (int i = 0; i < kWarpSize; ++i) key.rel[i] = (w.mask >> i) & 1u ? w.addr[i] - base : 0;
    }
    key.mask = w.mask;
    key.params = params;
    // Four independent lanes of hashing (no long multiply chain); the full key is compared on a hit anyway.
    uint64_t h[4] = {0x9E3779B97F4A7C15ull ^ (uint64_t(w.mask) << 32 | params), 0xC2B2AE3D27D4EB4Full,
                     0x165667B19E3779F9ull, 0x27D4EB2F165667C5ull};
    for (int i = 0; i < kWarpSize; i += 4)
      for (int k = 0; k < 4; ++k) h[k] = (h[k] ^ key.rel[i + k]) * 0x100000001B3ull;
    const uint64_t hash = (h[0] ^ (h[1] >> 7) ^ (h[2] << 11) ^ (h[3] >> 17)) * 0x9E3779B97F4A7C15ull;
    slot_ = size_t(hash >> 54) & (kSlots - 1);
    const Entry& e = table_[slot_];
    if (e.valid && std::memcmp(&e.key, &key, sizeof(Key)) == 0) return &e.cost;
    return nullptr;
  }
  void store(const Key& key, const Cost& cost) {
    Entry& e = table_[slot_];
    e.key = key;
    e.cost = cost;
    e.valid = true;
  }

 private:
  static constexpr size_t kSlots = 1024;
  struct Entry {
    Key key;
    Cost cost;
    bool valid = false;
  };
  std::vector<Entry> table_ = std::vector<Entry>(kSlots);
  size_t slot_ = 0;
};

}  // namespace memsim
