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
  void add(const WarpAccess& load);  // a global load of the block; anything else is ignored
  double requests() const { return requests_; }
  int64_t unmerged_requests() const { return unmerged_; }  // every line with a missed sector one request

 private:
  int sector_bytes_, line_bytes_;
  int64_t loads_ = 0;
  std::unordered_set<uint64_t> fetched_;            // sectors the block has asked for
  std::unordered_map<uint64_t, int64_t> last_load_;  // line -> the load that last sent a request for it
  double requests_ = 0;
  int64_t unmerged_ = 0;
};

// A block's global loads, kept per warp in program order (warps numbered within the block; anything else is
// ignored), then taken in issue order, a turn at a time across the warps, for the requests they send.
class BlockLoads {
 public:
  explicit BlockLoads(int warps) : loads_(size_t(warps > 1 ? warps : 1)) {}
  void add(const WarpAccess& a, int warp);
  double l2_read_requests(const MemoryRules& rules) const;

 private:
  std::vector<std::vector<WarpAccess>> loads_;
};

// The L2 read requests of block `block`: its warps' global loads taken in issue order.
double l2_read_requests_of_block(const LaunchConfig& cfg, int64_t block, const MemoryRules& rules = {});

}  // namespace memsim
