#pragma once
// The read requests a block's loads send from L1 to L2. The L1 fetches the sectors a load misses, one request
// a line; a sector an earlier load of the same block asked for is a hit (or a hit on a pending miss) and sends
// nothing. So a block whose warps read down a column, each a piece of a sector, sends each sector alone, when
// the first warp asks for it: naive_read f32 16x16 sends the L2 8.10M read requests for 8.39M sectors at
// 8192x8192 (Nsight Compute, H100), where copy_shared sends 4.19M, two sectors each.
//
// The L1 also merges a miss into the request just sent for the same line by another warp, the more often the
// sooner it follows: measured on the strided chain loads (memsim-microbench --chain-loads, ncu
// lts__t_requests_srcunit_tex_op_read), where the block's warps take their turns at each step and ask for
// neighbouring sectors of a line 1, 2 or 4 instructions apart, 0.90, 0.53 and 0.08 of such misses send no
// request of their own (kRequestMerged). The count is an estimate of a timing effect: the warps' turns are
// taken in issue order (every warp's first load, then every warp's second, ...), and a merge counts as that
// share of a request.
//
// The L2 fetches a missed sector from DRAM with its neighbour, kL2FetchBytes (64) at a time: naive_read, whose
// loads ask for one sector of each line, finds half its sectors in the L2 at 32x8 in f16, f32 and f64 (Nsight
// Compute lts__t_sectors_srcunit_tex_op_read_lookup_hit / _read, H100, validate/results/latency_suite.ncu.csv).
// So a warp that walks a line a sector a load (a narrow block's steps along its tile rows) finds every second
// load's sectors in the L2: such a load's round trip is the L2's, not DRAM's. l2_hit_loads counts the loads
// whose every request asks only for sectors of 64-byte pieces the same warp asked for in an earlier load (so
// their data is back: the warp waited for it or its later loads were issued behind it).
#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "kernels/resolve.hpp"
#include "sim/tally.hpp"
#include "sim/warp_access.hpp"

namespace memsim {

// The share of a miss that the L1 merges into the request for its line sent `loads_since` load instructions
// earlier in the block's issue order (1: by the load just before); 0 past the measured distances.
double merged_request_share(int64_t loads_since);

// Counts a block's L2 read requests from its global loads, fed in issue order.
class L2RequestCounter {
 public:
  explicit L2RequestCounter(const MemoryRules& rules) : sector_bytes_(rules.sector_bytes), line_bytes_(rules.line_bytes) {}
  // A global load of the block by its warp `warp` (0-63); anything else is ignored.
  void add(const WarpAccess& load, int warp = 0);
  double requests() const { return requests_; }
  int64_t unmerged_requests() const { return unmerged_; }  // every line with a missed sector one request
  int64_t loads() const { return loads_; }
  int64_t l2_hit_loads() const { return l2_hit_loads_; }  // loads with requests, all for pieces already fetched

 private:
  int sector_bytes_, line_bytes_;
  int64_t loads_ = 0;
  std::unordered_set<uint64_t> fetched_;            // sectors the block has asked for
  std::unordered_map<uint64_t, int64_t> last_load_;  // line -> the load that last sent a request for it
  std::unordered_map<uint64_t, uint64_t> fetched_by_;  // 64-byte piece -> the warps that asked for it (a bit each)
  double requests_ = 0;
  int64_t unmerged_ = 0, l2_hit_loads_ = 0;
};

inline constexpr int kL2FetchBytes = 64;

// What a block's loads send the L2.
struct L2Reads {
  double requests = 0;
  int64_t loads = 0, l2_hit_loads = 0;
};

// A block's global loads, kept per warp in program order (warps numbered within the block; anything else is
// ignored), then taken in issue order, a turn at a time across the warps, for the requests they send.
class BlockLoads {
 public:
  explicit BlockLoads(int warps) : loads_(size_t(warps > 1 ? warps : 1)) {}
  void add(const WarpAccess& a, int warp);
  double l2_read_requests(const MemoryRules& rules) const { return l2_reads(rules).requests; }
  L2Reads l2_reads(const MemoryRules& rules) const;

 private:
  std::vector<std::vector<WarpAccess>> loads_;
};

// The L2 read requests of block `block`: its warps' global loads taken in issue order.
double l2_read_requests_of_block(const LaunchConfig& cfg, int64_t block, const MemoryRules& rules = {});

}  // namespace memsim
