#include "sim/l2_requests.hpp"

#include <algorithm>
#include <vector>

#include "sim/replay.hpp"

namespace memsim {

double merged_request_share(int64_t loads_since) {
  // Nsight Compute on an H100 (validate/results/l2_read_requests.csv): the strided chain loads whose
  // neighbouring sectors are asked for 1 load apart (u64, 8 rows: 5.38M requests where one a missed line would
  // be 16.78M and one a line of the step 4.19M), 2 apart (u32 8 rows, u64 16 rows: 0.58 and 0.49) and 4 apart
  // (u32 16 rows 0.07, naive_read f32 16x16 0.07); 8 apart none (u16 16 rows). 3 lies between 2 and 4.
  static constexpr double kRequestMerged[] = {0.0, 0.90, 0.53, 0.30, 0.08};
  if (loads_since < 1 || loads_since > 4) return 0.0;
  return kRequestMerged[loads_since];
}

void L2RequestCounter::add(const WarpAccess& w, int warp) {
  if (w.space != Space::Global || w.op != Op::Load || w.mask == 0) return;
  ++loads_;
  const uint64_t warp_bit = uint64_t(1) << (warp & 63);
  const uint64_t piece_bytes = uint64_t(std::max(kL2FetchBytes, sector_bytes_));
  const uint64_t sectors_per_line = uint64_t(line_bytes_ / sector_bytes_);
  // The lines with a sector no earlier load of the block asked for: a lane's access (at most 16 bytes,
  // naturally aligned) lies in one sector. The load is an L2 hit where every such sector lies in a piece this
  // warp asked for before.
  uint64_t missed_lines[kWarpSize];
  int lines = 0;
  bool all_hit = true;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!(w.mask >> lane & 1u)) continue;
    const uint64_t sector = w.addr[lane] / uint64_t(sector_bytes_);
    if (fetched_.count(sector)) continue;
    const auto by = fetched_by_.find(w.addr[lane] / piece_bytes);
    if (by == fetched_by_.end() || !(by->second & warp_bit)) all_hit = false;
    const uint64_t line = sector / sectors_per_line;
    if (std::find(missed_lines, missed_lines + lines, line) == missed_lines + lines) missed_lines[lines++] = line;
  }
  if (lines > 0 && all_hit) ++l2_hit_loads_;
  for (int lane = 0; lane < kWarpSize; ++lane)
    if (w.mask >> lane & 1u) {
      fetched_.insert(w.addr[lane] / uint64_t(sector_bytes_));
      fetched_by_[w.addr[lane] / piece_bytes] |= warp_bit;
    }
  for (int i = 0; i < lines; ++i) {
    const auto last = last_load_.find(missed_lines[i]);
    const double merged = last == last_load_.end() ? 0.0 : merged_request_share(loads_ - last->second);
    requests_ += 1.0 - merged;
    ++unmerged_;
    last_load_[missed_lines[i]] = loads_;
  }
}

void BlockLoads::add(const WarpAccess& a, int warp) {
  if (a.space == Space::Global && a.op == Op::Load) loads_[size_t(warp)].push_back(a);
}

L2Reads BlockLoads::l2_reads(const MemoryRules& rules) const {
  L2RequestCounter counter(rules);
  size_t turns = 0;
  for (const auto& l : loads_) turns = std::max(turns, l.size());
  for (size_t t = 0; t < turns; ++t)
    for (size_t warp = 0; warp < loads_.size(); ++warp)
      if (t < loads_[warp].size()) counter.add(loads_[warp][t], int(warp));
  return {counter.requests(), counter.loads(), counter.l2_hit_loads()};
}

double l2_read_requests_of_block(const LaunchConfig& cfg, int64_t block, const MemoryRules& rules) {
  BlockLoads loads(cfg.warps_per_block());
  Tally findings(cfg.kernel->num_sites);
  for_each_warp_access(cfg, block, block + 1, Recorders::Counting,
                       [&](int64_t, int warp, const WarpAccess& a) { loads.add(a, warp); }, findings);
  return loads.l2_read_requests(rules);
}

}  // namespace memsim
