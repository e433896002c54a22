#include "validate/address_check.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "sim/replay.hpp"
#include "validate/capture_format.hpp"
#include "validate/sweep.hpp"

namespace memsim::validate {

void AddressCheck::add(const AddressCheck& o) {
  if (!mismatches && o.mismatches) first_mismatch = o.first_mismatch;
  blocks += o.blocks;
  warp_accesses += o.warp_accesses;
  lane_accesses += o.lane_accesses;
  mismatches += o.mismatches;
}

namespace {

// One warp access as the GPU's capture saw it: the lanes that made it and what each addressed.
struct CapturedAccess {
  uint32_t mask = 0;
  int64_t packed[kWarpSize];  // pack_capture(byte offset, width) per active lane
};

// The GPU's accesses of one warp at one site, in occurrence order, leaving out those no lane made (the
// recorder's flush leaves them out too).
std::vector<CapturedAccess> captured_site(const AddressCapture& gpu, int64_t block, int warp, int lanes, int site) {
  int most = 0;
  for (int lane = 0; lane < lanes; ++lane) most = std::max(most, gpu.count(block, warp * kWarpSize + lane, site));
  std::vector<CapturedAccess> out;
  for (int o = 0; o < std::min(most, gpu.capacity); ++o) {
    CapturedAccess a;
    for (int lane = 0; lane < lanes; ++lane) {
      const int64_t v = gpu.slot(block, warp * kWarpSize + lane, site, o);
      if (v >= 0) {
        a.mask |= 1u << lane;
        a.packed[lane] = v;
      }
    }
    if (a.mask) out.push_back(a);
  }
  return out;
}

// The replay's address of one lane as a byte offset into its own space (input, output or tile), packed like
// the capture's.
int64_t replay_packed(const WarpAccess& w, int lane, const BufferLayout& layout) {
  uint64_t base = 0;
  if (w.space == Space::Global) base = w.op == Op::Load ? layout.in_base : layout.out_base;
  return pack_capture(int64_t(w.addr[lane] - base), w.width);
}

std::string where(const LaunchConfig& cfg, int64_t block, int warp, int site, size_t index) {
  std::ostringstream os;
  os << config_label(cfg) << ": block " << block << " warp " << warp << " site " << site << " ("
     << cfg.kernel->sites[site].name << ") access #" << index << ": ";
  return os.str();
}

void note_mismatch(AddressCheck& c, const std::string& what) {
  if (!c.mismatches) c.first_mismatch = what;
  ++c.mismatches;
}

void compare_warp(const LaunchConfig& cfg, const BufferLayout& layout, const AddressCapture& gpu, int64_t block,
                  int warp, int lanes, const std::vector<WarpAccess>& replayed, AddressCheck& c) {
  for (int site = 0; site < cfg.kernel->num_sites; ++site) {
    std::vector<const WarpAccess*> cpu;
    for (const WarpAccess& w : replayed)
      if (w.site == site) cpu.push_back(&w);
    const std::vector<CapturedAccess> dev = captured_site(gpu, block, warp, lanes, site);
    c.warp_accesses += int64_t(cpu.size());
    if (cpu.size() != dev.size()) {
      std::ostringstream os;
      os << "replay has " << cpu.size() << " warp accesses, GPU " << dev.size();
      note_mismatch(c, where(cfg, block, warp, site, 0) + os.str());
      continue;
    }
    for (size_t i = 0; i < cpu.size(); ++i) {
      const WarpAccess& w = *cpu[i];
      c.lane_accesses += active_lanes(w);
      if (w.mask != dev[i].mask) {
        std::ostringstream os;
        os << "active lanes differ: replay 0x" << std::hex << w.mask << ", GPU 0x" << dev[i].mask;
        note_mismatch(c, where(cfg, block, warp, site, i) + os.str());
        continue;
      }
      for (uint32_t m = w.mask; m; m &= m - 1) {
        const int lane = __builtin_ctz(m);
        const int64_t want = replay_packed(w, lane, layout), got = dev[i].packed[lane];
        if (want == got) continue;
        std::ostringstream os;
        os << "lane " << lane << ": replay byte offset " << want / 256 << " width " << want % 256
           << ", GPU byte offset " << got / 256 << " width " << got % 256;
        note_mismatch(c, where(cfg, block, warp, site, i) + os.str());
        break;
      }
    }
  }
}

// Walks the replay's warp accesses over the blocks the capture holds (sim/replay.hpp), once as the counting
// replay makes them (warp recorder, grouping Recorder for warps with findings) and once with the grouping
// Recorder for every warp, which defines the (site, occurrence) rule: the GPU's addresses are checked against
// both.
AddressCheck compare_one(const LaunchConfig& cfg, const AddressCapture& gpu, Recorders recorders) {
  const BufferLayout layout = default_layout(cfg);
  const int threads = cfg.threads_per_block();
  AddressCheck c;
  Tally findings(cfg.kernel->num_sites);
  std::vector<std::vector<WarpAccess>> by_warp(size_t(cfg.warps_per_block()));
  for (int64_t b = gpu.first_block; b < gpu.last_block; ++b) {
    for (auto& v : by_warp) v.clear();
    for_each_warp_access(cfg, b, b + 1, recorders,
                         [&](int64_t, int warp, const WarpAccess& a) { by_warp[size_t(warp)].push_back(a); }, findings);
    // Every warp is compared, also one with no access at all (its GPU capture must be empty too).
    for (int w = 0; w < cfg.warps_per_block(); ++w)
      compare_warp(cfg, layout, gpu, b, w, std::min(kWarpSize, threads - w * kWarpSize), by_warp[size_t(w)], c);
    ++c.blocks;
  }
  return c;
}

}  // namespace

AddressCheck compare_with_replay(const LaunchConfig& cfg, const AddressCapture& gpu) {
  AddressCheck c = compare_one(cfg, gpu, Recorders::Counting);
  const AddressCheck grouping = compare_one(cfg, gpu, Recorders::Grouping);
  c.warp_accesses += grouping.warp_accesses;
  c.lane_accesses += grouping.lane_accesses;
  if (!c.mismatches && grouping.mismatches) c.first_mismatch = grouping.first_mismatch;
  c.mismatches += grouping.mismatches;
  return c;
}

AddressCheck check_addresses(const LaunchConfig& cfg, int64_t max_slots) {
  const int capacity = std::max(1, max_site_occurrences(cfg));
  const int64_t per_block = int64_t(cfg.threads_per_block()) * cfg.kernel->num_sites * capacity;
  const int64_t chunk = std::max<int64_t>(1, max_slots / per_block);
  AddressCheck total;
  for (int64_t first = 0; first < cfg.blocks(); first += chunk) {
    const int64_t last = std::min(cfg.blocks(), first + chunk);
    total.add(compare_with_replay(cfg, capture_addresses(cfg, first, last, capacity)));
  }
  return total;
}

}  // namespace memsim::validate
