#include "sim/block_classes.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "sim/replay.hpp"

namespace memsim {
namespace {

// The kernels whose addresses have the form the header's proof needs, each read off its body: input loads
// at (row0 + r) * W + col0 + c (stage_tile, copy, naive, vec4's row vectors, reg4x4's rows); stores at
// (col0 + r) * H + row0 + c (drain_tile_transposed, coarse, naive's x * H + y, vec4's and reg4x4's columns)
// or at the load's place (copy, copy_shared, fine); naive_read's ox * W + oy and oy * H + ox over the
// output's grid; shared offsets from (r, c) alone (plain, padded or XOR-swizzled rows; best's transposed rows
// with chunks swizzled by the row). Not `diagonal`:
// its tile origin is a permutation of the block index (kernels/tiles.hpp, diagonal_tile_origin). A kernel
// added to the suite is replayed in full until its body is checked and its name added here.
constexpr const char* kProvenKernels[] = {"copy",   "copy_shared", "naive",   "naive_read", "coalesced",
                                          "padded", "coarse",      "fine",    "swizzle",    "vec4",
                                          "vec4_shared", "reg4x4", "best"};

bool proven(const KernelInfo& k) {
  if (k.diagonal_blocks) return false;
  if (k.blocks_translate) return true;
  return std::any_of(std::begin(kProvenKernels), std::end(kProvenKernels),
                     [&](const char* name) { return std::strcmp(name, k.name) == 0; });
}

int64_t lcm64(int64_t a, int64_t b) { return a / std::gcd(a, b) * b; }

// One axis of the grid: blocks 0 .. extent-2 by their residue mod period, the last block alone.
struct AxisClass {
  int64_t first, last, members;
};
std::vector<AxisClass> axis_classes(int64_t extent, int64_t period) {
  std::vector<AxisClass> out;
  const int64_t inner = extent - 1;  // blocks before the last
  for (int64_t r = 0; r < std::min(period, inner); ++r) {
    const int64_t n = (inner - r + period - 1) / period;
    out.push_back({r, r + (n - 1) * period, n});
  }
  if (extent > 0) out.push_back({extent - 1, extent - 1, 1});
  return out;
}

// A digest of a block's warp instructions up to moving each global one by a multiple of `period` bytes: per
// instruction its warp, site, kind, width and lanes, a global one's first address mod period and every
// active lane's address relative to it, a shared one's addresses. Two independent 64-bit mixes.
struct Digest {
  uint64_t a = 0x243F6A8885A308D3ull, b = 0x13198A2E03707344ull;
  int64_t instructions = 0;
  void mix(uint64_t v) {
    a = (a ^ v) * 0x100000001B3ull;
    a ^= a >> 29;
    b = (b + v) * 0x9E3779B97F4A7C15ull;
    b ^= b >> 31;
  }
  bool operator==(const Digest& o) const { return a == o.a && b == o.b && instructions == o.instructions; }
};

Digest digest_block(const LaunchConfig& cfg, int64_t block, uint64_t period, Tally& findings) {
  Digest d;
  for_each_warp_access(
      cfg, block, block + 1, Recorders::Counting,
      [&](int64_t, int warp, const WarpAccess& w) {
        ++d.instructions;
        d.mix(uint64_t(warp) << 40 | uint64_t(w.site) << 24 | uint64_t(w.width) << 8 | uint64_t(w.space) << 4 |
              uint64_t(w.op));
        d.mix(w.mask);
        if (!w.mask) return;
        const uint64_t lead = w.addr[__builtin_ctz(w.mask)];
        const bool global = w.space == Space::Global;
        if (global) d.mix(lead % period);
        for (int i = 0; i < kWarpSize; ++i)
          if (w.mask >> i & 1u) d.mix(global ? w.addr[i] - lead : w.addr[i]);
      },
      findings);
  return d;
}

bool same_counts(const Tally& x, const Tally& y) {
  if (x.lane_operations != y.lane_operations || x.runtime_divisions[0] != y.runtime_divisions[0] ||
      x.runtime_divisions[1] != y.runtime_divisions[1])
    return false;
  for (size_t i = 0; i < x.sites.size(); ++i)
    if (x.sites[i].counts() != y.sites[i].counts()) return false;
  return true;
}

}  // namespace

int64_t ClassPlan::blocks_to_replay() const {
  int64_t n = 0;
  for (const BlockClass& c : classes) n += c.members > 1 ? 2 : 1;
  return n;
}

ClassPlan plan_block_classes(const LaunchConfig& cfg, const MemoryRules& rules) {
  ClassPlan plan;
  if (!proven(*cfg.kernel)) {
    plan.why_not = cfg.kernel->diagonal_blocks
                       ? std::string("kernel ") + cfg.kernel->name + " reorders its blocks diagonally"
                       : std::string("kernel ") + cfg.kernel->name + " has no proof of translation invariance";
    return plan;
  }
  if (rules.sector_bytes < 1 || rules.line_bytes < 1) {
    plan.why_not = "sector or line size not positive";
    return plan;
  }
  int64_t period = lcm64(rules.sector_bytes, rules.line_bytes);
  if (rules.coalescing != GlobalCoalescing::Sectors32) period = lcm64(period, 256);
  plan.period_bytes = period;
  const int64_t elem = dtype_bytes(cfg.dtype);
  const LaunchShape& s = cfg.shape;
  plan.period_x = period / std::gcd(period, int64_t(s.tile_x) * elem);
  plan.period_y = period / std::gcd(period, int64_t(s.tile_y) * elem);
  for (const AxisClass& y : axis_classes(s.grid_y, plan.period_y))
    for (const AxisClass& x : axis_classes(s.grid_x, plan.period_x))
      plan.classes.push_back({y.first * s.grid_x + x.first, y.last * s.grid_x + x.last, x.members * y.members});
  if (plan.blocks_to_replay() >= cfg.blocks()) {
    plan.why_not = "every block would be replayed anyway (" + std::to_string(plan.classes.size()) + " classes of " +
                   std::to_string(cfg.blocks()) + " blocks)";
    plan.classes.clear();
  }
  return plan;
}

std::string replay_by_classes(const LaunchConfig& cfg, const BufferLayout& layout, const ClassPlan& plan,
                              const MemoryRules& rules, Tally& out) {
  const int sites = cfg.kernel->num_sites;
  for (const BlockClass& c : plan.classes) {
    Tally first(sites);
    replay_range(cfg, layout, c.first, c.first + 1, rules, first);
    if (!first.findings.empty()) return "block " + std::to_string(c.first) + " makes a finding";
    if (c.members > 1) {
      Tally last(sites), findings(sites);
      replay_range(cfg, layout, c.last, c.last + 1, rules, last);
      const uint64_t period = uint64_t(plan.period_bytes);
      const bool same = same_counts(first, last) && last.findings.empty() &&
                        digest_block(cfg, c.first, period, findings) == digest_block(cfg, c.last, period, findings);
      if (!same || !findings.findings.empty())
        return "blocks " + std::to_string(c.first) + " and " + std::to_string(c.last) +
               " of a class do not issue the same instructions moved by whole periods";
    }
    for (int i = 0; i < sites; ++i) out.sites[i].add_times(first.sites[i], c.members);
    out.lane_operations += c.members * first.lane_operations;
    for (int i = 0; i < 2; ++i) out.runtime_divisions[i] += c.members * first.runtime_divisions[i];
    out.barriers_per_thread = std::max(out.barriers_per_thread, first.barriers_per_thread);
  }
  return {};
}

}  // namespace memsim
