#pragma once
// What limits a launch and the one change that would help most, worked out from its counts: the prediction's
// largest term names the limit, the counts behind that term name the change ("stores use 32 sectors per
// request at 'st out' (ideal 4): stage the tile through shared memory ..."). No kernel is named here: a kernel
// gets the advice its replay's counts call for, whatever its name.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace memsim {

struct Analysis;
struct DeviceProfile;

// One access site as the rules see it: sectors per request (global) or wavefronts per instruction (shared),
// against the ideal for the bytes its lanes move.
struct SiteUse {
  std::string name;  // "st out"
  bool global = true;
  bool load = true;
  int64_t instructions = 0;
  double per_instruction = 0;
  double ideal_per_instruction = 0;
  int lane_bytes = 0;  // bytes one lane moves per access
};

// The counts the rules read: the access sites, the prediction's bottleneck and terms, occupancy, the partition
// imbalance and the findings.
struct AdviceCounts {
  std::vector<SiteUse> sites;
  std::string bottleneck;                                 // Prediction::bottleneck
  std::vector<std::pair<std::string, double>> terms_us;  // Prediction::terms_us
  int resident_warps_per_sm = 0, max_warps_per_sm = 0;
  // Resident blocks, the shared memory each takes, the carve-out they need and the L1 left beside it (bytes;
  // Occupancy: 0 where the profile does not split its L1).
  int blocks_per_sm = 0;
  int64_t shared_bytes_per_block = 0, shared_carveout = 0, l1_bytes = 0;
  std::string occupancy_limiter;  // Occupancy::limiter
  int64_t elements = 0, blocks = 0;
  double instructions = 0;          // warp instructions the issue term charges
  // The L2 read requests the loads send and the sectors they fetch (Prediction; 0: not counted).
  double l2_read_requests = 0, l2_load_sectors = 0;
  double partition_imbalance = 0;   // the paced imbalance; 0 when partitions were not counted
  int partitions = 0;
  int64_t misaligned = 0, out_of_bounds = 0;  // lane accesses the findings report
  std::string finding_site;                   // the first finding's site
};

struct Advice {
  std::string rule;      // which rule fired: "uncoalesced-stores", "bank-conflicts", ...
  std::string limit;     // what limits the launch: the bottleneck, or the fault
  std::string evidence;  // the counts that say why
  std::string change;    // the one change that would help most
  std::string text() const;  // "limited by LIMIT; EVIDENCE: CHANGE", one line
};

// Every rule whose condition the counts meet, the most useful first; never empty (the last rule names the
// bottleneck when no other applies). advise() is the first of them.
std::vector<Advice> advice_rules(const AdviceCounts& c);
Advice advise(const AdviceCounts& c);
// {"rule", "limit", "evidence", "change", "text"}: the report's "advice".
nlohmann::ordered_json advice_json(const Advice& a);

// The counts of an analysis (report/analysis.hpp) on `device`, for the rules.
AdviceCounts advice_counts(const Analysis& a, const DeviceProfile& device);

}  // namespace memsim
