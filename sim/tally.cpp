#include "sim/tally.hpp"

namespace memsim {

void SiteCounts::add(const SiteCounts& o) {
  instructions += o.instructions;
  lane_accesses += o.lane_accesses;
  bytes += o.bytes;
  sectors += o.sectors;
  ideal_sectors += o.ideal_sectors;
  wavefronts += o.wavefronts;
  if (first_block_bank_words.empty()) first_block_bank_words = o.first_block_bank_words;
  ideal_wavefronts += o.ideal_wavefronts;
}

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
    uint64_t ids[kMaxSectorsPerAccess];
    const GlobalCost c = count_global_sectors(w, rules.sector_bytes, sectors_sink ? ids : nullptr);
    s.sectors += c.sectors;
    s.ideal_sectors += c.ideal_sectors;
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

void Tally::note_finding(FindingKind kind, int site, const ThreadCoord& t, int64_t offset, int width) {
  for (Finding& f : findings) {
    if (f.kind == kind && f.site == site) {
      ++f.count;
      return;
    }
  }
  findings.push_back({kind, site, 1, t, offset, width});
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
}

}  // namespace memsim
