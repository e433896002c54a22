#include "sim/tally.hpp"

#include <algorithm>
#include <iterator>

namespace memsim {

void SiteCounts::add_times(const SiteCounts& o, int64_t times) {
  instructions += times * o.instructions;
  lane_accesses += times * o.lane_accesses;
  bytes += times * o.bytes;
  sectors += times * o.sectors;
  ideal_sectors += times * o.ideal_sectors;
  lines += times * o.lines;
  partial_sectors += times * o.partial_sectors;
  partial_lines += times * o.partial_lines;
  l1_wavefronts += times * o.l1_wavefronts;
  transactions += times * o.transactions;
  wavefronts += times * o.wavefronts;
  if (first_block_bank_words.empty()) first_block_bank_words = o.first_block_bank_words;
  ideal_wavefronts += times * o.ideal_wavefronts;
}

namespace {

// CC 1.x: half-warp transactions (sim/coalescing_cc1x.hpp); their bytes, in sectors, are the traffic.
// Out of line: the modern path of Tally::add stays as it was.
[[gnu::noinline]] void add_global_cc1x(SiteCounts& s, const WarpAccess& w, int64_t block_linear, const MemoryRules& rules,
                     SectorSink* sink) {
  Transaction tx[kMaxCc1xTransactions];
  const Cc1xCost c = rules.coalescing == GlobalCoalescing::Cc12Segments ? coalesce_cc12(w, tx) : coalesce_cc10(w, tx);
  const int64_t sb = rules.sector_bytes;
  s.transactions += c.transactions;
  s.sectors += (c.bytes + sb - 1) / sb;
  s.ideal_sectors += (int64_t(active_lanes(w)) * w.width + sb - 1) / sb;
  if (sink) {
    // 32 transactions of at most 128 B: 128 sectors of 32 B; the heap only for unusually small sectors.
    uint64_t local[4 * kMaxCc1xTransactions];
    std::vector<uint64_t> heap;
    const size_t need = size_t((c.bytes + sb - 1) / sb + c.transactions);
    uint64_t* ids = local;
    if (need > std::size(local)) {
      heap.resize(need);
      ids = heap.data();
    }
    sink->add(block_linear, w.op, ids, transaction_sectors(tx, c.transactions, rules.sector_bytes, ids));
  }
}

}  // namespace

const char* finding_kind_name(FindingKind k) {
  return k == FindingKind::Misaligned ? "misaligned" : "out_of_bounds";
}

void Tally::add(const WarpAccess& w, int64_t block_linear, const MemoryRules& rules) {
  if (!w.mask) return;
  SiteCounts& s = sites[w.site];
  const int lanes = active_lanes(w);
  s.instructions += 1;
  s.lane_accesses += lanes;
  s.bytes += int64_t(lanes) * w.width;
  if (w.space == Space::Global) {
    if (__builtin_expect(rules.coalescing != GlobalCoalescing::Sectors32, 0)) {
      add_global_cc1x(s, w, block_linear, rules, sectors_sink.get());
      return;
    }
    uint64_t ids[kMaxSectorsPerAccess];
    GlobalCost c = count_global_sectors(w, rules.sector_bytes, sectors_sink ? ids : nullptr, rules.line_bytes);
    if (w.op == Op::Store) count_store_partial_sectors(w, rules.sector_bytes, rules.line_bytes, c);
    s.sectors += c.sectors;
    s.ideal_sectors += c.ideal_sectors;
    s.lines += c.lines;
    s.partial_sectors += c.partial_sectors;
    s.partial_lines += c.partial_lines;
    s.l1_wavefronts += c.wavefronts;
    if (sectors_sink) sectors_sink->add(block_linear, w.op, ids, c.sectors);
  } else {
    int64_t* row = nullptr;
    if (block_linear == 0) {
      s.first_block_bank_words.emplace_back(rules.banks.banks, 0);
      row = s.first_block_bank_words.back().data();
    }
    const SharedCost c = count_shared_wavefronts(w, rules.banks, row);
    s.wavefronts += c.wavefronts;
    s.ideal_wavefronts += c.ideal_wavefronts;
  }
}

void Tally::merge(const Tally& later) {
  for (size_t i = 0; i < sites.size(); ++i) sites[i].add(later.sites[i]);
  for (const Finding& f : later.findings) {
    bool seen = false;
    for (Finding& mine : findings) {
      if (mine.kind == f.kind && mine.site == f.site) {
        mine.count += f.count;  // ours came first in launch order: keep our first offender
        seen = true;
      }
    }
    if (!seen) findings.push_back(f);
  }
  if (sectors_sink && later.sectors_sink) sectors_sink->merge_from(*later.sectors_sink);
  lane_operations += later.lane_operations;
  for (int i = 0; i < 2; ++i) runtime_divisions[i] += later.runtime_divisions[i];
  barriers_per_thread = std::max(barriers_per_thread, later.barriers_per_thread);
}

}  // namespace memsim
