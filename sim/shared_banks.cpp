#include "sim/shared_banks.hpp"

#include <algorithm>
#include <stdexcept>
#include <cstdint>
#include <optional>

#include "sim/access_memo.hpp"
#include "sim/clones.hpp"

namespace memsim {
namespace {

// Wavefronts of one phase given its words (4-byte units): the most distinct words any one bank delivers.
int phase_wavefronts(uint64_t* words, int n, bool sorted, uint64_t bank_mask, int banks, int64_t* bank_words) {
  if (!sorted) std::sort(words, words + n);
  int per_bank[64] = {};
  int worst = 0;
  // Sorted: a repeated word is adjacent, and it is delivered once (broadcast).
  for (int i = 0; i < n; ++i) {
    if (i > 0 && words[i] == words[i - 1]) continue;
    worst = std::max(worst, ++per_bank[words[i] & bank_mask]);
  }
  if (bank_words)
    for (int b = 0; b < banks; ++b) bank_words[b] += per_bank[b];
  return worst;
}

SharedCost count_wavefronts_uncached(const WarpAccess& w, const BankRules& rules, int64_t* bank_words) {
  const int row_bytes = rules.banks * rules.bank_bytes;
  const int width = w.width > 0 ? w.width : 1;
  const int lanes_per_phase = std::max(1, std::min(rules.phase_lanes, row_bytes / std::max(width, rules.bank_bytes)));
  // Bank counts and widths are powers of two on every device we model: masks and shifts, no divisions.
  const int word_shift = __builtin_ctz(unsigned(rules.bank_bytes));
  const uint64_t bank_mask = uint64_t(rules.banks - 1);
  // The ideal is one wavefront for each phase with an active lane (counted with the phases below): a phase's
  // lanes span at most one row of banks. Over a full warp that is ceil(bytes / row), but a partly active warp
  // of 16-byte lanes (an edge tile of best, 10 of each 16 lanes) takes a wavefront for every phase it touches,
  // and Nsight Compute counts no conflict there (H100, best f32 1000x3000 block 16x16: 96,000 store
  // wavefronts, 0 conflicts).
  SharedCost cost;

  uint64_t words[2 * kWarpSize * 4];
  // Fast path: a full warp of accesses of at most one word that all fit a word (the usual scalar access).
  if (w.mask == ~0u && lanes_per_phase == kWarpSize && width <= rules.bank_bytes) {
    bool sorted = true, fits = true;
    for (int i = 0; i < kWarpSize; ++i) {
      words[i] = w.addr[i] >> word_shift;
      fits &= ((w.addr[i] + width - 1) >> word_shift) == words[i];
    }
    if (fits) {
      for (int i = 1; i < kWarpSize; ++i) sorted &= words[i] >= words[i - 1];
      cost.wavefronts = phase_wavefronts(words, kWarpSize, sorted, bank_mask, rules.banks, bank_words);
      cost.ideal_wavefronts = 1;  // one phase, every lane active
      return cost;
    }
  }

  for (int first = 0; first < kWarpSize; first += lanes_per_phase) {
    const uint32_t phase_mask = (lanes_per_phase >= 32 ? ~0u : ((1u << lanes_per_phase) - 1u) << first) & w.mask;
    if (!phase_mask) continue;  // a phase with no active lane costs nothing
    ++cost.ideal_wavefronts;
    int n = 0;
    bool sorted = true;
    for (uint32_t m = phase_mask; m; m &= m - 1) {
      const int lane = __builtin_ctz(m);
      const uint64_t lo = w.addr[lane] >> word_shift;
      const uint64_t hi = (w.addr[lane] + width - 1) >> word_shift;
      for (uint64_t word = lo; word <= hi; ++word) {
        if (n > 0) sorted &= word >= words[n - 1];
        words[n++] = word;
      }
    }
    cost.wavefronts += phase_wavefronts(words, n, sorted, bank_mask, rules.banks, bank_words);
  }
  return cost;
}

// The commonest conflict-free access, counted without the memo: all 32 lanes, naturally aligned 4-, 8- or
// 16-byte accesses on 32 banks of 4 bytes (phases of 32, 16 or 8 lanes), where within every phase the lanes'
// words land in distinct banks. Each phase then takes one wavefront, the ideal. Anything else: nullopt.
MEMSIM_AVX2_CLONES std::optional<SharedCost> count_distinct_banks_full_warp(const WarpAccess& w, const BankRules& rules) {
  const int width = w.width;
  if (w.mask != ~0u || rules.banks != 32 || rules.bank_bytes != 4 || rules.phase_lanes != kWarpSize ||
      (width != 4 && width != 8 && width != 16))
    return std::nullopt;
  const int lanes_per_phase = 128 / width;
  const uint32_t lane_banks = (1u << (width / 4)) - 1u;  // an aligned lane's words: consecutive, no wrap
  bool distinct = true;
  for (int first = 0; first < kWarpSize; first += lanes_per_phase) {
    uint32_t used = 0;
    uint64_t misaligned = 0;
    for (int i = first; i < first + lanes_per_phase; ++i) {
      used |= lane_banks << ((w.addr[i] >> 2) & 31u);
      misaligned |= w.addr[i] & uint64_t(width - 1);
    }
    distinct &= used == ~0u && misaligned == 0;  // 32 words of the phase in 32 different banks
  }
  if (!distinct) return std::nullopt;
  SharedCost cost;
  cost.wavefronts = cost.ideal_wavefronts = kWarpSize / lanes_per_phase;
  return cost;
}

}  // namespace

SharedCost count_shared_wavefronts(const WarpAccess& w, const BankRules& rules, int64_t* bank_words) {
  // Bank indices come from a mask and the per-bank table holds 64: profiles outside that are refused.
  if (rules.banks < 1 || rules.banks > 64 || (rules.banks & (rules.banks - 1)) != 0 || rules.bank_bytes < 1 ||
      (rules.bank_bytes & (rules.bank_bytes - 1)) != 0)
    throw std::invalid_argument("shared-memory banks must be a power of two up to 64, of power-of-two width");
  // The memo holds counts only: heatmap rows, and bank rows the memo's period does not cover, are counted
  // directly.
  const uint64_t row = uint64_t(rules.banks) * uint64_t(rules.bank_bytes);
  if (bank_words || !w.mask || AccessMemo<SharedCost>::kPeriod % row != 0)
    return count_wavefronts_uncached(w, rules, bank_words);
  if (const auto cost = count_distinct_banks_full_warp(w, rules)) return *cost;
  thread_local AccessMemo<SharedCost> memo;
  AccessMemo<SharedCost>::Key key;
  const uint32_t params = uint32_t(w.width) << 24 | uint32_t(rules.banks) << 16 | uint32_t(rules.bank_bytes) << 8 |
                          uint32_t(rules.phase_lanes);
  if (const SharedCost* hit = memo.find(w, params, key)) return *hit;
  const SharedCost cost = count_wavefronts_uncached(w, rules, nullptr);
  memo.store(key, cost);
  return cost;
}

}  // namespace memsim
