#include "sim/shared_banks.hpp"

#include <algorithm>
#include <cstdint>

namespace memsim {

SharedCost count_shared_wavefronts(const WarpAccess& w, const BankRules& rules, int64_t* bank_words) {
  const int row_bytes = rules.banks * rules.bank_bytes;
  const int width = w.width > 0 ? w.width : 1;
  const int lanes_per_phase = std::max(1, std::min(rules.phase_lanes, row_bytes / std::max(width, rules.bank_bytes)));
  SharedCost cost;
  uint64_t words[2 * kWarpSize * 4];
  int per_bank[64];
  for (int first = 0; first < kWarpSize; first += lanes_per_phase) {
    const uint32_t phase_mask = (lanes_per_phase >= 32 ? ~0u : ((1u << lanes_per_phase) - 1u) << first) & w.mask;
    if (!phase_mask) continue;  // a phase with no active lane costs nothing
    int n = 0;
    bool sorted = true;
    for (uint32_t m = phase_mask; m; m &= m - 1) {
      const int lane = __builtin_ctz(m);
      const uint64_t lo = w.addr[lane] / rules.bank_bytes;
      const uint64_t hi = (w.addr[lane] + width - 1) / rules.bank_bytes;
      for (uint64_t word = lo; word <= hi; ++word) {
        if (n > 0 && word < words[n - 1]) sorted = false;
        words[n++] = word;
      }
    }
    if (!sorted) std::sort(words, words + n);
    n = int(std::unique(words, words + n) - words);
    std::fill(per_bank, per_bank + rules.banks, 0);
    int worst = 0;
    for (int i = 0; i < n; ++i) worst = std::max(worst, ++per_bank[words[i] % rules.banks]);
    cost.wavefronts += worst;
    if (bank_words)
      for (int b = 0; b < rules.banks; ++b) bank_words[b] += per_bank[b];
  }
  const int64_t bytes = int64_t(active_lanes(w)) * width;
  cost.ideal_wavefronts = int((bytes + row_bytes - 1) / row_bytes);
  return cost;
}

}  // namespace memsim
