#include "report/advice.hpp"

#include <algorithm>
#include <cmath>

#include "model/cost.hpp"
#include "model/significant.hpp"
#include "report/analysis.hpp"

namespace memsim {
namespace {

// A site off its ideal by more than a quarter: a boundary block's shorter rows move the mean by less.
constexpr double kOffIdeal = 1.25;
// A busiest partition serving 1.5 times the mean: camping, not noise (an even spread reads 1.0-1.1).
constexpr double kCamping = 1.5;

// The bottlenecks that global traffic makes: more sectors per request make each of them larger.
bool global_traffic_bound(const std::string& b) {
  return b == kTermDram || b == kTermL2 || b == kTermPartial || b == kTermWrites ||
         b == "uncoalesced accesses (L1 sectors per request)";
}

bool shared_bound(const std::string& b) {
  return b == kTermL1 || b == "shared-memory bank conflicts" || b == "shared-memory wavefronts";
}

double excess(const SiteUse& s) { return double(s.instructions) * (s.per_instruction - s.ideal_per_instruction); }

bool off_ideal(const SiteUse& s) {
  return s.instructions > 0 && s.per_instruction > kOffIdeal * s.ideal_per_instruction;
}

std::string quoted(const std::string& name) { return "'" + name + "'"; }

// Three significant digits without trailing zeros: 32 sectors, 4 ideal, 1.52 a request.
std::string figure(double v) {
  std::string s = significant(v, 3);
  if (s.find('.') == std::string::npos) return s;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

double term_us(const AdviceCounts& c, const std::string& name) {
  for (const auto& [n, v] : c.terms_us)
    if (n == name) return v;
  return 0;
}

// The global sites off their ideal, the most excess sectors first.
std::vector<const SiteUse*> uncoalesced(const AdviceCounts& c) {
  std::vector<const SiteUse*> v;
  for (const SiteUse& s : c.sites)
    if (s.global && off_ideal(s)) v.push_back(&s);
  std::stable_sort(v.begin(), v.end(), [](const SiteUse* a, const SiteUse* b) { return excess(*a) > excess(*b); });
  return v;
}

}  // namespace

std::string Advice::text() const { return "limited by " + limit + "; " + evidence + ": " + change; }

std::vector<Advice> advice_rules(const AdviceCounts& c) {
  std::vector<Advice> out;
  const std::string& b = c.bottleneck;
  auto add = [&](const char* rule, const std::string& evidence, const std::string& change) {
    out.push_back({rule, b, evidence, change});
  };

  // A launch that faults on the GPU has no time to improve: its accesses come first.
  if (c.misaligned > 0)
    out.push_back({"faulting-accesses", "accesses the GPU refuses",
                   std::to_string(c.misaligned) + " lane accesses misaligned for their width at " +
                       quoted(c.finding_site),
                   "start each vector access at a multiple of its width (pad rows to it), or move scalars there"});
  else if (c.out_of_bounds > 0)
    out.push_back({"faulting-accesses", "accesses the GPU refuses",
                   std::to_string(c.out_of_bounds) + " lane accesses outside the matrix at " + quoted(c.finding_site),
                   "guard the index against the matrix's width and height"});

  if (global_traffic_bound(b))
    for (const SiteUse* s : uncoalesced(c))
      add(s->load ? "uncoalesced-loads" : "uncoalesced-stores",
          std::string(s->load ? "loads" : "stores") + " at " + quoted(s->name) + " use " +
              figure(s->per_instruction) + " sectors per request (ideal " + figure(s->ideal_per_instruction) + ")",
          std::string("stage the tile through shared memory so that each warp ") + (s->load ? "reads" : "writes") +
              " whole rows of consecutive elements");

  if (b == kTermDram && c.partition_imbalance >= kCamping)
    add("partition-camping",
        "the resident blocks' traffic camps on few DRAM partitions (busiest " + figure(c.partition_imbalance) +
            "x the mean of " + std::to_string(c.partitions) + ")",
        "reorder the blocks so that those resident at once touch different partitions (diagonal block order)");

  if (shared_bound(b)) {
    const SiteUse* worst = nullptr;
    for (const SiteUse& s : c.sites)
      if (!s.global && off_ideal(s) && (!worst || excess(s) > excess(*worst))) worst = &s;
    if (worst)
      add("bank-conflicts",
          figure(std::round(worst->per_instruction / std::max(1e-9, worst->ideal_per_instruction))) +
              "-way bank conflicts on the shared " + (worst->load ? "loads" : "stores") + " at " +
              quoted(worst->name) + " (" + figure(worst->per_instruction) + " wavefronts per instruction, ideal " +
              figure(worst->ideal_per_instruction) + ")",
          "pad each tile row by 1 element or swizzle the column index, so that the lanes reach distinct banks");
    else
      add("shared-wavefronts", "every shared access at its ideal wavefronts",
          "move more bytes a lane through shared memory (8- or 16-byte accesses), or transpose in registers");
  }

  if ((b == kTermDram || b == kTermL2 || b == kTermPartial || b == kTermWrites) && uncoalesced(c).empty() &&
      c.partition_imbalance < kCamping)
    add("at-memory-limit",
        "every global access at its ideal sectors" +
            std::string(c.partitions > 0 ? ", spread evenly over the DRAM partitions" : ""),
        "nothing left in the access pattern; only fewer bytes (a narrower element type) would go faster");

  if (b == kTermIssue) {
    // The global site whose lanes move the fewest bytes: where vector accesses would save the most.
    const SiteUse* narrowest = nullptr;
    for (const SiteUse& s : c.sites)
      if (s.global && s.instructions > 0 && (!narrowest || s.lane_bytes < narrowest->lane_bytes)) narrowest = &s;
    const double per_element = c.elements > 0 ? c.instructions * 32.0 / double(c.elements) : 0;
    const std::string evidence = figure(per_element) + " warp instructions per 32 elements moved";
    if (narrowest && narrowest->lane_bytes < 16)
      add("instruction-issue",
          evidence + ", " + (narrowest->load ? "loads" : "stores") + " at " + quoted(narrowest->name) + " of " +
              std::to_string(narrowest->lane_bytes) + " bytes a lane",
          "move 16 bytes a lane there (vector accesses), so that fewer instructions move the same bytes");
    else
      add("instruction-issue", evidence,
          "cover more elements a thread, so that more of them share each thread's index math");
  }

  // Latency-bound loads that fetch a sector or so a request: a load's wait grows with the requests it sends
  // (model/cost.hpp), and a warp that reads longer pieces of fewer rows sends fewer, fuller ones.
  if (b == kTermLatency && c.l2_read_requests > 0) {
    int64_t loads = 0;
    for (const SiteUse& s : c.sites)
      if (s.global && s.load) loads += s.instructions;
    const double per_load = loads > 0 ? c.l2_read_requests / double(loads) : 0;
    const double sectors_each = c.l2_load_sectors / c.l2_read_requests;
    if (per_load > 1.5 && sectors_each < 1.5)
      add("sectors-fetched-apart",
          "each load sends " + figure(per_load) + " L2 read requests fetching " + figure(sectors_each) +
              " sectors each (a request a line; a sector the block's warps share is fetched once, alone)",
          "let each warp read longer pieces of fewer rows (a block 32 threads wide, or 16-byte lanes), so that a "
          "load sends fewer, fuller requests");
  }

  if (b == kTermLatency) {
    const bool room = c.resident_warps_per_sm < c.max_warps_per_sm;
    add("latency",
        std::to_string(c.resident_warps_per_sm) + " of " + std::to_string(c.max_warps_per_sm) +
            " warps resident an SM (limited by " + c.occupancy_limiter + ")",
        room && c.occupancy_limiter == "shared memory"
            ? "use less shared memory a block (a smaller tile) so that more warps are resident"
        : room && c.occupancy_limiter == "registers"
            ? "use fewer registers a thread so that more warps are resident"
            : "keep more loads in flight a warp: cover more elements a thread and issue their loads together");
  }

  // The loads in flight wait for L1 lines: the resident blocks' shared memory took the rest (model/cost.hpp).
  if (b == kTermL1Lines)
    add("l1-beside-shared",
        std::to_string(c.blocks_per_sm) + " blocks an SM of " + figure(double(c.shared_bytes_per_block) / 1024) +
            " KiB of shared memory each take the " + figure(double(c.shared_carveout) / 1024) +
            " KiB carve-out, leaving " + figure(double(c.l1_bytes) / 1024) + " KiB of L1 for the loads in flight",
        "hold less shared memory an SM (a smaller tile, or fewer resident blocks), so that a smaller carve-out "
        "leaves more L1; or let each warp's loads touch fewer 128-byte lines (pieces that start and end on them)");

  if (b == kTermBlock)
    add("block-overhead",
        "each of " + std::to_string(c.blocks) + " blocks moves " +
            figure(c.blocks > 0 ? double(c.elements) / double(c.blocks) : 0) + " elements",
        "give each block a larger tile (more elements a thread), so that fewer blocks pay the per-block cost");

  if (b == kTermBlockLaunch)
    add("block-launch-rate",
        std::to_string(c.blocks) + " blocks of " +
            figure(c.blocks > 0 ? double(c.elements) / double(c.blocks) : 0) +
            " elements each: the GPU starts blocks one at a time, and blocks this small are done sooner than the "
            "next can start",
        "give each block a larger tile (more elements a thread): fewer, larger blocks");

  if (b == kTermLaunch)
    add("launch-overhead", "the launch costs " + figure(term_us(c, kTermLaunch)) + " us, more than the kernel's work",
        "nothing to change in the kernel at this size; batch several transposes into one launch");

  if (out.empty())
    add("bottleneck", "no access off its ideal behind this term",
        "see the terms: the next largest is what a change would have to shrink as well");
  return out;
}

Advice advise(const AdviceCounts& c) { return advice_rules(c).front(); }

nlohmann::ordered_json advice_json(const Advice& a) {
  return {{"rule", a.rule}, {"limit", a.limit}, {"evidence", a.evidence}, {"change", a.change}, {"text", a.text()}};
}

AdviceCounts advice_counts(const Analysis& an, const DeviceProfile& device) {
  AdviceCounts c;
  const ReplayResult& r = an.replay;
  const KernelInfo& k = *an.config.kernel;
  for (int i = 0; i < k.num_sites; ++i) {
    const SiteInfo& info = k.sites[i];
    const SiteCounts& n = r.sites[size_t(i)];
    SiteUse s;
    s.name = info.name;
    s.global = info.space == Space::Global;
    s.load = info.op == Op::Load;
    s.instructions = n.instructions;
    const double inst = n.instructions ? double(n.instructions) : 1.0;
    s.per_instruction = (s.global ? double(n.sectors) : double(n.wavefronts)) / inst;
    s.ideal_per_instruction = (s.global ? double(n.ideal_sectors) : double(n.ideal_wavefronts)) / inst;
    s.lane_bytes = n.lane_accesses ? int(n.bytes / n.lane_accesses) : 0;
    c.sites.push_back(s);
  }
  const Prediction& p = an.prediction;
  c.bottleneck = p.bottleneck;
  c.terms_us = p.terms_us;
  c.resident_warps_per_sm = p.occupancy.resident_warps();
  c.max_warps_per_sm = device.max_warps_per_sm;
  c.occupancy_limiter = p.occupancy.limiter;
  c.blocks_per_sm = p.occupancy.blocks_per_sm;
  c.shared_bytes_per_block = an.config.shared_bytes;
  c.shared_carveout = p.occupancy.shared_carveout;
  c.l1_bytes = p.occupancy.l1_bytes;
  c.instructions = p.instructions;
  c.l2_read_requests = p.l2_read_requests;
  c.l2_load_sectors = p.l2_load_sectors;
  c.elements = an.config.shape.width * an.config.shape.height;
  c.blocks = an.config.blocks();
  if (an.partitions) {
    c.partition_imbalance = an.partitions->paced.imbalance;
    c.partitions = an.partitions->spec.count;
  }
  for (const Finding& f : r.findings) {
    (f.kind == FindingKind::Misaligned ? c.misaligned : c.out_of_bounds) += f.count;
    if (c.finding_site.empty()) c.finding_site = k.sites[f.site].name;
  }
  return c;
}

}  // namespace memsim
