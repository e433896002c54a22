// The replay by block classes (sim/block_classes.hpp) against the full replay: every metric, site, finding,
// instruction-estimate counter, barrier and partial-line count equal, over every kernel x dtype x block at
// sizes that are and are not multiples of the tile, and over random launches and memory rules. Then counts
// at 65536 x 65536, at a ragged size past 2^32 elements and at 2^40 elements against closed forms worked out
// by hand (below each test), and the size limits.
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <random>
#include <set>
#include <optional>
#include <string>
#include <vector>

#include "kernels/registry.hpp"
#include "sim/block_classes.hpp"
#include "sim/launch_size.hpp"
#include "sim/replay.hpp"

namespace memsim {
namespace {

void expect_same(const ReplayResult& full, const ReplayResult& fast, const std::string& what) {
  ASSERT_EQ(full.sites.size(), fast.sites.size()) << what;
  for (size_t i = 0; i < full.sites.size(); ++i) {
    const SiteCounts &a = full.sites[i], &b = fast.sites[i];
    const std::string at = what + " site " + std::to_string(i);
    EXPECT_EQ(a.counts(), b.counts()) << at;
    EXPECT_EQ(a.first_block_bank_words, b.first_block_bank_words) << at;
  }
  ASSERT_EQ(full.findings.size(), fast.findings.size()) << what;
  for (size_t i = 0; i < full.findings.size(); ++i) {
    const Finding &a = full.findings[i], &b = fast.findings[i];
    EXPECT_TRUE(a.kind == b.kind && a.site == b.site && a.count == b.count && a.first_offset == b.first_offset &&
                a.width == b.width && a.first.block_x == b.first.block_x && a.first.block_y == b.first.block_y &&
                a.first.thread_x == b.first.thread_x && a.first.thread_y == b.first.thread_y)
        << what << " finding " << i;
  }
  EXPECT_EQ(full.warps, fast.warps) << what;
  EXPECT_EQ(full.lane_operations, fast.lane_operations) << what;
  EXPECT_EQ(full.runtime_divisions[0], fast.runtime_divisions[0]) << what;
  EXPECT_EQ(full.runtime_divisions[1], fast.runtime_divisions[1]) << what;
  EXPECT_EQ(full.barriers_per_thread, fast.barriers_per_thread) << what;
  EXPECT_EQ(full.partial_lines_per_block, fast.partial_lines_per_block) << what;
  EXPECT_EQ(full.lines_completed_by_one_warp_per_block, fast.lines_completed_by_one_warp_per_block) << what;
  const std::vector<Metric> ma = ncu_metrics(full), mb = ncu_metrics(fast);
  for (size_t i = 0; i < ma.size(); ++i) EXPECT_EQ(ma[i].value, mb[i].value) << what << " " << ma[i].name;
}

// Both replays of one launch; whether the fast one ran by classes.
bool compare(const LaunchConfig& cfg, const MemoryRules& rules, const std::string& what) {
  ReplayOptions exact;
  exact.rules = rules;
  exact.exact = true;
  exact.threads = 1;
  ReplayOptions fast = exact;
  fast.exact = false;
  const ReplayResult a = replay(cfg, exact), b = replay(cfg, fast);
  EXPECT_FALSE(a.path.by_classes) << what;
  EXPECT_EQ(a.path.blocks_replayed, cfg.blocks()) << what;
  expect_same(a, b, what);
  if (cfg.kernel->diagonal_blocks) {
    EXPECT_FALSE(b.path.by_classes) << what;
  }
  return b.path.by_classes;
}

std::string describe(const UserConfig& u) {
  return u.kernel + " " + format_size2(u.matrix) + " " + dtype_name(u.dtype) + " block " + format_size2(u.block) +
         (u.tile ? " tile " + format_size2(*u.tile) : "") + (u.pad ? " pad " + std::to_string(*u.pad) : "");
}

// Every kernel x dtype x block (32x8, 16x16, 8x32) at whole tiles (256x192), ragged but a multiple of 4
// (228x172, the vector kernels' width) and odd (229x171).
TEST(BlockClasses, EqualToFullReplayOverTheSuite) {
  std::set<std::string> by_classes;
  int compared = 0;
  for (const KernelInfo& k : kernel_suite())
    for (Dtype d : {Dtype::F16, Dtype::F32, Dtype::F64})
      for (Size2 b : {Size2{32, 8}, Size2{16, 16}, Size2{8, 32}})
        for (Size2 m : {Size2{256, 192}, Size2{228, 172}, Size2{229, 171}}) {
          UserConfig u;
          u.kernel = k.name;
          u.dtype = d;
          u.block = b;
          u.matrix = m;
          const std::optional<LaunchConfig> launch = try_resolve_launch(u);
          if (!launch) continue;  // coarse and fine on ragged sizes, vector kernels on odd widths, ...
          const LaunchConfig& cfg = *launch;
          ++compared;
          if (compare(cfg, MemoryRules{}, describe(u))) by_classes.insert(k.name);
        }
  EXPECT_GE(compared, 14 * 3 * 3);
  // Every kernel of the proof's list ran by classes somewhere (a kernel added to the suite runs in full until
  // its body is checked and it joins the list, sim/block_classes.cpp).
  for (const char* k : {"copy", "copy_shared", "naive", "naive_read", "coalesced", "padded", "coarse", "fine",
                        "swizzle", "vec4", "vec4_shared", "reg4x4", "best"})
    EXPECT_EQ(by_classes.count(k), 1u) << k;
  EXPECT_EQ(by_classes.count("diagonal"), 0u);
}

// A progress callback makes the replay of every block go in chunks of at least 1024 blocks a worker: the same
// counts as one pass (here over 63 x 47 = 2961 and more blocks on 3 workers), and the blocks reported done
// rise to the launch's blocks.
TEST(BlockClasses, ProgressChunksCountTheSame) {
  for (const char* kernel : {"padded", "naive", "diagonal", "vec4_shared", "reg4x4"})
    for (Dtype d : {Dtype::F32, Dtype::F64}) {
      UserConfig u;
      u.kernel = kernel;
      u.dtype = d;
      u.matrix = {2000, 1500};
      const LaunchConfig cfg = resolve_launch(u);
      ReplayOptions plain;
      plain.exact = true;
      plain.threads = 1;
      ReplayOptions chunked = plain;
      chunked.threads = 3;
      std::mutex m;
      std::vector<int64_t> done;
      chunked.progress = [&](int64_t n, int64_t total) {
        const std::lock_guard<std::mutex> lock(m);
        EXPECT_EQ(total, cfg.blocks());
        done.push_back(n);
      };
      expect_same(replay(cfg, plain), replay(cfg, chunked), describe(u));
      ASSERT_FALSE(done.empty()) << describe(u);
      EXPECT_EQ(*std::max_element(done.begin(), done.end()), cfg.blocks()) << describe(u);
      EXPECT_GE(done.size(), size_t(cfg.blocks() / 1024)) << describe(u);  // chunks of 1024 blocks or so
    }
}

// Random launches (kernel, dtype, block, sometimes a tile and a pad, size up to 700 a side) under the
// modern rules, other sector and line sizes, and the CC 1.x rules.
TEST(BlockClasses, EqualToFullReplayOnRandomLaunches) {
  std::mt19937_64 rng(20);
  const std::vector<KernelInfo>& suite = kernel_suite();
  const Size2 blocks[] = {{32, 8}, {16, 16}, {8, 32}, {32, 4}, {64, 2}, {16, 8}, {32, 32}, {8, 8}};
  std::vector<MemoryRules> rules(4);
  rules[1].coalescing = GlobalCoalescing::Cc12Segments;
  rules[2].coalescing = GlobalCoalescing::Cc10Strict;
  rules[3].sector_bytes = 64;
  rules[3].line_bytes = 256;
  int compared = 0, fast = 0;
  for (int trial = 0; compared < 150 && trial < 2000; ++trial) {
    UserConfig u;
    u.kernel = suite[rng() % suite.size()].name;
    u.dtype = Dtype(rng() % 3);
    u.block = blocks[rng() % std::size(blocks)];
    u.matrix = {int64_t(1 + rng() % 700), int64_t(1 + rng() % 700)};
    if (rng() % 3 == 0) u.matrix.x -= u.matrix.x % 4;  // let the vector kernels in
    if (rng() % 4 == 0) u.tile = Size2{u.block.x * int64_t(1 + rng() % 4) * 4, u.block.y * int64_t(1 + rng() % 4) * 4};
    if (rng() % 3 == 0) u.pad = int(rng() % 5);
    const std::optional<LaunchConfig> launch = try_resolve_launch(u);
    if (!launch) continue;
    const LaunchConfig& cfg = *launch;
    ++compared;
    const MemoryRules& r = rules[rng() % rules.size()];
    fast += compare(cfg, r, describe(u) + " rules " + std::to_string(r.sector_bytes) + "/" +
                                std::to_string(r.line_bytes) + "/" + std::to_string(int(r.coalescing)));
  }
  EXPECT_EQ(compared, 150);
  EXPECT_GT(fast, 50);
}

// The classes of padded 8192x8192 f32 (tile 32x32: 128 bytes a tile row, so every block but the last along
// each axis is one class): 4 classes, 7 blocks replayed; f16 halves a tile row to 64 bytes (period 2).
TEST(BlockClasses, PlanOfTheIssuesExample) {
  UserConfig u;
  u.matrix = {8192, 8192};
  ClassPlan plan = plan_block_classes(resolve_launch(u), MemoryRules{});
  EXPECT_EQ(plan.why_not, "");
  EXPECT_EQ(plan.period_bytes, 128);
  EXPECT_EQ(plan.classes.size(), 4u);
  EXPECT_EQ(plan.blocks_to_replay(), 7);
  int64_t members = 0;
  for (const BlockClass& c : plan.classes) members += c.members;
  EXPECT_EQ(members, 256 * 256);
  u.dtype = Dtype::F16;
  plan = plan_block_classes(resolve_launch(u), MemoryRules{});
  EXPECT_EQ(plan.period_x, 2);
  EXPECT_EQ(plan.classes.size(), 9u);
  u.kernel = "diagonal";
  EXPECT_NE(plan_block_classes(resolve_launch(u), MemoryRules{}).why_not, "");
}

ReplayResult replay_any_size(const std::string& kernel, Size2 m) {
  UserConfig u;
  u.kernel = kernel;
  u.matrix = m;
  const LaunchConfig cfg = resolve_launch_any_size(u, LaunchLimits{}, MemoryRules{}, false);
  ReplayResult r = replay(cfg);
  EXPECT_TRUE(r.path.by_classes) << kernel;
  return r;
}

// 65536 x 65536 f32 = 2^32 elements (past resolve_launch's 2^32 - 1), block 32x8, tile 32x32. Every warp
// step moves 32 elements of one row: 2^32 / 32 = 2^27 instructions a site. A row of 32 floats is 128 aligned
// bytes: 4 sectors, 1 line, 1 L1 wavefront. Padded: a tile row store and a padded column read each take 1
// wavefront; coalesced's unpadded column read 32 (32-way). Naive's store: every lane a different output row,
// 32 sectors a request.
TEST(BlockClasses, ClosedFormsAt65536Squared) {
  const int64_t n = int64_t(1) << 27;
  const ReplayResult padded = replay_any_size("padded", {65536, 65536});
  for (int site : {0, 3}) {
    EXPECT_EQ(padded.sites[site].instructions, n);
    EXPECT_EQ(padded.sites[site].sectors, 4 * n);
    EXPECT_EQ(padded.sites[site].lines, n);
    EXPECT_EQ(padded.sites[site].l1_wavefronts, n);
    EXPECT_EQ(padded.sites[site].bytes, int64_t(4) << 32);
  }
  for (int site : {1, 2}) {
    EXPECT_EQ(padded.sites[site].instructions, n);
    EXPECT_EQ(padded.sites[site].wavefronts, n);
  }
  EXPECT_EQ(padded.warps, (int64_t(1) << 22) * 8);
  const ReplayResult coalesced = replay_any_size("coalesced", {65536, 65536});
  EXPECT_EQ(coalesced.sites[2].wavefronts, 32 * n);
  EXPECT_EQ(coalesced.sites[2].bank_conflicts(), 31 * n);
  const ReplayResult naive = replay_any_size("naive", {65536, 65536});
  EXPECT_EQ(naive.sites[0].sectors, 4 * n);
  EXPECT_EQ(naive.sites[1].sectors, 32 * n);
}

// copy f32 at 65537 x 65539 (4,295,229,443 elements > 2^32), block 32x8, tile 32x32: each row is 2048 whole
// tile rows of 32 floats and one last float. A request of 32 floats starts at byte 4 (y W + 32 k), aligned to a
// sector iff y W = y (mod 8) is 0 (W = 1 mod 8): 4 sectors on rows y = 0 mod 8, else 5; the last float 1.
TEST(BlockClasses, ClosedFormsRaggedPast2To32) {
  const int64_t W = 65537, H = 65539;
  const int64_t aligned_rows = (H + 7) / 8;
  const int64_t requests = H * 2049;
  const int64_t sectors = 2048 * (4 * H + (H - aligned_rows)) + H;
  const ReplayResult copy = replay_any_size("copy", {W, H});
  for (int site : {0, 1}) {
    EXPECT_EQ(copy.sites[site].instructions, requests);
    EXPECT_EQ(copy.sites[site].lane_accesses, W * H);
    EXPECT_EQ(copy.sites[site].bytes, 4 * W * H);
    EXPECT_EQ(copy.sites[site].sectors, sectors);
  }
}

// 2^20 x 2^20 f32 = 2^40 elements: 2^35 requests of 4 sectors each side of copy.
TEST(BlockClasses, ClosedFormsAt2To40) {
  const ReplayResult copy = replay_any_size("copy", {int64_t(1) << 20, int64_t(1) << 20});
  EXPECT_EQ(copy.sites[0].instructions, int64_t(1) << 35);
  EXPECT_EQ(copy.sites[1].sectors, int64_t(1) << 37);
  EXPECT_EQ(copy.warps, (int64_t(1) << 30) * 8);
}

TEST(BlockClasses, SizeLimits) {
  UserConfig u;
  u.matrix = {(int64_t(1) << 20) + 1, int64_t(1) << 20};
  EXPECT_THROW(resolve_launch_any_size(u, LaunchLimits{}, MemoryRules{}, false), ConfigError);
  // The full replay keeps resolve_launch's bound on the work: 2^32 elements of 1-thread blocks are refused.
  u.matrix = {65536, 65536};
  u.block = {1, 1};
  EXPECT_THROW(resolve_launch_any_size(u, LaunchLimits{}, MemoryRules{}, true), ConfigError);
  // Up to 2^32 - 1 elements, resolve_launch's launch exactly.
  u.matrix = {1000, 700};
  u.block = {32, 8};
  const LaunchConfig a = resolve_launch(u), b = resolve_launch_any_size(u, LaunchLimits{}, MemoryRules{}, false);
  EXPECT_EQ(a.shape.grid_x, b.shape.grid_x);
  EXPECT_EQ(a.shape.grid_y, b.shape.grid_y);
  // Past it: the stand-in matrix's shape, the real sides and grid.
  u.matrix = {65537, 65539};
  const LaunchConfig c = resolve_launch_any_size(u, LaunchLimits{}, MemoryRules{}, false);
  EXPECT_EQ(c.shape.width, 65537);
  EXPECT_EQ(c.shape.height, 65539);
  EXPECT_EQ(c.shape.grid_x, 2049);
  EXPECT_EQ(c.shape.grid_y, 2049);
  EXPECT_EQ(c.shape.smem_row, 33);
}

}  // namespace
}  // namespace memsim
