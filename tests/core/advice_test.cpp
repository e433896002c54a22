// The advice rules (report/advice.hpp), each on a real replay of a suite kernel that triggers it and one that
// does not. The figures the advice quotes are worked out by hand:
//  - naive f32, 32x8 block, 2048x2048: a warp stores out[x * H + y] for 32 consecutive x, 2048 x 4 = 8192 bytes
//    apart: 32 sectors per request where 32 lanes x 4 bytes = 128 bytes need 4.
//  - naive_read is its mirror: the loads are 32 sectors per request, the stores 4.
//  - coalesced f32, 32x8: a warp reads a column of the 32x32 float tile, rows 128 bytes apart: every lane on
//    the same bank, 32 distinct words, 32 wavefronts where 1 would do (32-way). padded's 33-float rows put
//    lane i on bank i: 1 wavefront.
//  - padded on GT200 (8 partitions of 256 bytes): a 2048-float output row is 8192 bytes = 32 partition
//    cycles, so the tiles' columns of blocks resident at once start on the same partition.
#include <optional>
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/cost.hpp"
#include "model/profile.hpp"
#include "report/advice.hpp"
#include "report/analysis.hpp"

namespace memsim {
namespace {

AdviceCounts counts_of(const std::string& kernel, Size2 matrix = {2048, 2048}, Size2 block = {32, 8},
                       const std::string& device = "h100", std::optional<Size2> tile = {},
                       bool runtime_shape = false) {
  const DeviceProfile profile = load_profile(device);
  UserConfig u;
  u.kernel = kernel;
  u.matrix = matrix;
  u.block = block;
  u.tile = tile;
  AnalysisOptions o;
  o.predict_copy = false;
  o.threads = 1;
  o.runtime_shape = runtime_shape;
  return advice_counts(analyze(u, profile, o), profile);
}

std::vector<std::string> rules_of(const AdviceCounts& c) {
  std::vector<std::string> ids;
  for (const Advice& a : advice_rules(c)) ids.push_back(a.rule);
  return ids;
}

bool fires(const AdviceCounts& c, const std::string& rule) {
  const std::vector<std::string> ids = rules_of(c);
  return std::find(ids.begin(), ids.end(), rule) != ids.end();
}

const SiteUse& site(const AdviceCounts& c, const std::string& name) {
  for (const SiteUse& s : c.sites)
    if (s.name == name) return s;
  throw std::runtime_error("no site " + name);
}

// The site's count per instruction and its ideal, as worked out by hand above.
void expect_site(const AdviceCounts& c, const std::string& name, double per, double ideal) {
  const SiteUse& s = site(c, name);
  EXPECT_DOUBLE_EQ(s.per_instruction, per) << name;
  EXPECT_DOUBLE_EQ(s.ideal_per_instruction, ideal) << name;
}

// naive strides its stores, naive_read its loads: each gets the rule for its strided side only; padded neither.
TEST(Advice, UncoalescedAccessesOnTheStridedSideOnly) {
  struct Case {
    const char *kernel, *site, *rule, *other_rule, *evidence;
  };
  for (const Case& k : {Case{"naive", "st out", "uncoalesced-stores", "uncoalesced-loads",
                             "stores at 'st out' use 32 sectors per request (ideal 4)"},
                        Case{"naive_read", "ld in", "uncoalesced-loads", "uncoalesced-stores",
                             "loads at 'ld in' use 32 sectors per request (ideal 4)"}}) {
    const AdviceCounts c = counts_of(k.kernel);
    expect_site(c, k.site, 32, 4);
    const Advice a = advise(c);
    EXPECT_EQ(a.rule, k.rule) << k.kernel;
    EXPECT_EQ(a.evidence, k.evidence) << k.kernel;
    EXPECT_NE(a.change.find("stage the tile through shared memory"), std::string::npos) << k.kernel;
    EXPECT_EQ(a.text(), "limited by " + a.limit + "; " + k.evidence + ": " + a.change);
    EXPECT_FALSE(fires(c, k.other_rule)) << k.kernel;  // the other side reads or writes whole rows: 4 sectors
  }
  const AdviceCounts padded = counts_of("padded");
  EXPECT_FALSE(fires(padded, "uncoalesced-stores"));
  EXPECT_FALSE(fires(padded, "uncoalesced-loads"));
}

TEST(Advice, BankConflictsOnCoalescedNotOnPadded) {
  const AdviceCounts c = counts_of("coalesced");
  expect_site(c, "ld tile", 32, 1);
  const Advice a = advise(c);
  EXPECT_EQ(a.rule, "bank-conflicts");
  EXPECT_EQ(a.evidence.rfind("32-way bank conflicts on the shared loads at 'ld tile'", 0), 0u) << a.evidence;
  EXPECT_NE(a.change.find("pad"), std::string::npos);
  EXPECT_NE(a.change.find("swizzle"), std::string::npos);
  const AdviceCounts padded = counts_of("padded");
  expect_site(padded, "ld tile", 1, 1);
  EXPECT_FALSE(fires(padded, "bank-conflicts"));
}

TEST(Advice, PartitionCampingOnGt200PaddedNotDiagonal) {
  const AdviceCounts padded = counts_of("padded", {2048, 2048}, {32, 8}, "gtx280");
  EXPECT_EQ(padded.partitions, 8);
  EXPECT_EQ(advise(padded).rule, "partition-camping");
  EXPECT_NE(advise(padded).change.find("diagonal"), std::string::npos);
  const AdviceCounts diagonal = counts_of("diagonal", {2048, 2048}, {32, 8}, "gtx280");
  EXPECT_FALSE(fires(diagonal, "partition-camping"));
  EXPECT_EQ(advise(diagonal).rule, "at-memory-limit");  // the cure leaves the DRAM bandwidth
}

TEST(Advice, AtMemoryLimitOnCopyNotOnNaive) {
  const AdviceCounts copy = counts_of("copy");
  EXPECT_EQ(copy.bottleneck, "DRAM bandwidth");
  EXPECT_EQ(advise(copy).rule, "at-memory-limit");
  EXPECT_FALSE(fires(counts_of("naive"), "at-memory-limit"));  // its stores are off their ideal
}

TEST(Advice, InstructionIssueOnPaddedNamesTheNarrowLanes) {
  // A kernel written with run-time shapes (--runtime-shape) and a 32x16 tile: its per-step index math, 173 warp
  // instructions per 32 elements, issue-bound (written with compile-time shapes it is DRAM-bound).
  const AdviceCounts padded = counts_of("padded", {2048, 2048}, {32, 8}, "h100", Size2{32, 16}, true);
  ASSERT_EQ(padded.bottleneck, "instruction issue");
  const Advice a = advise(padded);
  EXPECT_EQ(a.rule, "instruction-issue");
  EXPECT_NE(a.evidence.find("of 4 bytes a lane"), std::string::npos) << a.evidence;  // f32 scalar accesses
  EXPECT_NE(a.change.find("16 bytes a lane"), std::string::npos);
  EXPECT_FALSE(fires(counts_of("naive"), "instruction-issue"));
  EXPECT_FALSE(fires(counts_of("padded"), "instruction-issue"));
  EXPECT_FALSE(fires(counts_of("padded", {2048, 2048}, {32, 8}, "h100", Size2{32, 16}), "instruction-issue"));
}

TEST(Advice, LatencyOnCopyWithTallBlocksNotWideOnes) {
  // 8x32 copy: 8 lanes along a row, every warp's load spread over 4 rows, a sector each (4 requests of 1 sector:
  // sectors-fetched-apart comes first); full occupancy, one load in flight.
  const AdviceCounts tall = counts_of("copy", {2048, 2048}, {8, 32});
  ASSERT_EQ(tall.bottleneck, "latency (too few bytes in flight)");
  EXPECT_EQ(advise(tall).rule, "sectors-fetched-apart");
  const std::vector<Advice> all = advice_rules(tall);
  ASSERT_EQ(all.size(), 2u);
  const Advice a = all[1];
  EXPECT_EQ(a.rule, "latency");
  EXPECT_EQ(a.evidence, "64 of 64 warps resident an SM (limited by threads)");
  EXPECT_NE(a.change.find("more loads in flight"), std::string::npos);
  EXPECT_FALSE(fires(counts_of("copy"), "latency"));
}

TEST(Advice, LaunchOverheadOnSmallMatricesOnly) {
  const AdviceCounts small = counts_of("copy", {256, 256});
  EXPECT_EQ(advise(small).rule, "launch-overhead");
  EXPECT_FALSE(fires(counts_of("copy"), "launch-overhead"));
}

// Rules no suite kernel reaches at the shipped profiles' constants, on counts made by hand.
AdviceCounts hand_made(const std::string& bottleneck) {
  AdviceCounts c;
  c.bottleneck = bottleneck;
  c.sites = {{"ld in", true, true, 1024, 4, 4, 4},
             {"st tile", false, false, 1024, 1, 1, 4},
             {"ld tile", false, true, 1024, 1, 1, 4},
             {"st out", true, false, 1024, 4, 4, 4}};
  c.elements = 32 * 1024;
  c.blocks = 1024;
  return c;
}

// A latency-bound load that fetches a sector or so a request: naive_read f32 16x16 reads a column, each warp 2
// floats of each of 16 rows (16 lines a load), the 8 warps of a block sharing each row's 2 sectors: 1 request a
// sector, 1.04 with the merges. The same counts by hand: 4 requests a load of 1 sector each fire it, 4 of 2
// sectors (copy_shared f32 16x16's 2-sector requests, twice as many rows) do not, nor 1 request a load.
TEST(Advice, SectorsFetchedApartAskForLongerPieces) {
  const AdviceCounts c = counts_of("naive_read", {8192, 8192}, {16, 16});
  ASSERT_EQ(c.bottleneck, kTermLatency);
  const Advice a = advise(c);
  EXPECT_EQ(a.rule, "sectors-fetched-apart");
  EXPECT_EQ(a.evidence.rfind("each load sends 3.84 L2 read requests fetching 1.04 sectors each", 0), 0u)
      << a.evidence;
  AdviceCounts h = hand_made(kTermLatency);  // 1024 load instructions at 'ld in'
  h.l2_read_requests = 4096, h.l2_load_sectors = 4096;
  EXPECT_EQ(advise(h).rule, "sectors-fetched-apart");
  h.l2_load_sectors = 8192;
  EXPECT_FALSE(fires(h, "sectors-fetched-apart"));
  h.l2_read_requests = 1024, h.l2_load_sectors = 1024;
  EXPECT_FALSE(fires(h, "sectors-fetched-apart"));
  EXPECT_EQ(advise(h).rule, "latency");
}

// 12 blocks of 18 KiB (+ 1 KiB reserve) need the 228 KiB carve-out of a 256 KiB SM: 28 KiB of L1 left.
TEST(Advice, L1BesideSharedNamesTheCarveout) {
  AdviceCounts c = hand_made(kTermL1Lines);
  c.blocks_per_sm = 12, c.shared_bytes_per_block = 18432, c.shared_carveout = 233472, c.l1_bytes = 28672;
  const Advice a = advise(c);
  EXPECT_EQ(a.rule, "l1-beside-shared");
  EXPECT_EQ(a.evidence, "12 blocks an SM of 18 KiB of shared memory each take the 228 KiB carve-out, leaving 28 KiB "
                        "of L1 for the loads in flight");
  EXPECT_FALSE(fires(hand_made(kTermBlock), "l1-beside-shared"));
}

TEST(Advice, BlockOverheadNamesTheWorkABlockDoes) {
  const Advice a = advise(hand_made(kTermBlock));
  EXPECT_EQ(a.rule, "block-overhead");
  EXPECT_EQ(a.evidence, "each of 1024 blocks moves 32 elements");
  EXPECT_FALSE(fires(hand_made(kTermIssue), "block-overhead"));
}

TEST(Advice, BlockLaunchRateAsksForFewerLargerBlocks) {
  const Advice a = advise(hand_made(kTermBlockLaunch));
  EXPECT_EQ(a.rule, "block-launch-rate");
  EXPECT_EQ(a.evidence.rfind("1024 blocks of 32 elements", 0), 0u) << a.evidence;
  EXPECT_FALSE(fires(hand_made(kTermBlock), "block-launch-rate"));
}

TEST(Advice, SharedWavefrontsWithoutConflicts) {
  EXPECT_EQ(advise(hand_made("shared-memory wavefronts")).rule, "shared-wavefronts");
  AdviceCounts conflicted = hand_made("shared-memory wavefronts");
  conflicted.sites[2].per_instruction = 8;  // 8-way on the tile reads
  EXPECT_EQ(advise(conflicted).rule, "bank-conflicts");
  EXPECT_EQ(advise(conflicted).evidence.rfind("8-way bank conflicts on the shared loads at 'ld tile'", 0), 0u);
  EXPECT_FALSE(fires(conflicted, "shared-wavefronts"));
}

TEST(Advice, FaultingAccessesComeFirst) {
  AdviceCounts c = hand_made(kTermIssue);
  EXPECT_FALSE(fires(c, "faulting-accesses"));
  c.misaligned = 96;
  c.finding_site = "st out";
  const Advice a = advise(c);
  EXPECT_EQ(a.rule, "faulting-accesses");
  EXPECT_EQ(a.evidence, "96 lane accesses misaligned for their width at 'st out'");
}

// Every configuration gets one line of advice; a term no rule reads still names the bottleneck.
TEST(Advice, AlwaysOneLine) {
  const Advice a = advise(hand_made("some future term"));
  EXPECT_EQ(a.rule, "bottleneck");
  EXPECT_EQ(a.text().rfind("limited by some future term; ", 0), 0u);
  EXPECT_EQ(a.text().find('\n'), std::string::npos);
}

// The caveat on estimated code of long walks (report/launch_prediction.hpp): copy_shared 32x1 staging a
// 128x128 f64 tile loads 128 x 128 / 32 = 512 elements a lane, 4096 bytes, before its first global store, and the
// estimate issues them in ceil(512 / 10) = 52 rounds, 9.85 in flight; one warp a block (the 128 KiB tile) leaves the latency term most of the time. On a
// 64x64 tile (1024 bytes) the same launch is DRAM-bound: nothing to say, the latency term under half.
TEST(Caveats, LongWalksOfEstimatedCodeSayTheTimeMayBeHigh) {
  const DeviceProfile profile = load_profile("h100");
  const auto predicted = [&](Size2 tile) {
    UserConfig u;
    u.kernel = "copy_shared";
    u.dtype = Dtype::F64;
    u.matrix = {8192, 8192};
    u.block = {32, 1};
    u.tile = tile;
    AnalysisOptions o;
    o.predict_copy = false;
    o.threads = 1;
    o.compile = false;
    return analyze(u, profile, o).prediction;
  };
  const auto long_walk = [](const Prediction& p) {
    return std::count_if(p.caveats.begin(), p.caveats.end(), [](const std::string& c) {
      return c.find("a lane loads 4096 bytes before its first store") != std::string::npos &&
             c.find("keeps 9.85 of its loads in flight") != std::string::npos;
    });
  };
  const Prediction wide = predicted({128, 128});
  EXPECT_GE(wide.term(kTermLatency), 0.5 * wide.time_us);
  EXPECT_EQ(long_walk(wide), 1);
  EXPECT_GE(wide.caveats_time_high, 1);
  const Prediction narrow = predicted({64, 64});
  EXPECT_LT(narrow.term(kTermLatency), 0.5 * narrow.time_us);
  for (const std::string& c : narrow.caveats) EXPECT_EQ(c.find("before its first store"), std::string::npos) << c;
}

}  // namespace
}  // namespace memsim
