// Compute capability 1.x coalescing on hand-worked half-warps: the examples of the CUDA C Programming Guide
// 2.x/3.x appendix ("Global Memory", figures for 1.0/1.1 and 1.2/1.3) and the CUDA C Best Practices Guide 3.x
// (sequential but misaligned accesses), plus the rule's corner cases. Expected values follow from the rules
// in sim/coalescing_cc1x.hpp by hand.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/resolve.hpp"
#include "sim/coalescing_cc1x.hpp"
#include "sim/replay.hpp"
#include "sim/tally.hpp"

namespace memsim {
namespace {

// Half-warp 0 only (lanes 0-15 active unless `mask` says otherwise), lane k at base + k * stride.
WarpAccess half_warp(uint64_t base, int64_t stride, int width, uint32_t mask = 0xFFFFu) {
  WarpAccess w{};
  for (int i = 0; i < kWarpSize; ++i) w.addr[i] = uint64_t(int64_t(base) + i * stride);
  w.mask = mask;
  w.width = uint8_t(width);
  w.space = Space::Global;
  return w;
}

struct Tx {
  uint64_t addr;
  int bytes;
  bool operator==(const Tx& o) const { return addr == o.addr && bytes == o.bytes; }
};
std::ostream& operator<<(std::ostream& os, const Tx& t) { return os << "{" << t.addr << ", " << t.bytes << "}"; }

std::vector<Tx> cc12(const WarpAccess& w) {
  Transaction t[kMaxCc1xTransactions];
  const Cc1xCost c = coalesce_cc12(w, t);
  std::vector<Tx> v;
  int64_t bytes = 0;
  for (int i = 0; i < c.transactions; ++i) {
    v.push_back({t[i].addr, t[i].bytes});
    bytes += t[i].bytes;
  }
  EXPECT_EQ(bytes, c.bytes);
  return v;
}
Cc1xCost cc10(const WarpAccess& w) { return coalesce_cc10(w); }

// ---------------------------------------------------------------------------------------------------------
// CC 1.2 / 1.3

TEST(Cc12, AlignedSequentialFloatsOne64ByteTransaction) {
  // Words k = 0..15 of a 64-byte aligned segment: bytes [256, 320), the lower half of the 128-byte segment
  // [256, 384) -> reduced to 64 B; both 32-byte halves used -> stays 64.
  EXPECT_EQ(cc12(half_warp(256, 4, 4)), (std::vector<Tx>{{256, 64}}));
}

TEST(Cc12, PermutedWordsInOneSegmentStillOneTransaction) {
  // Guide: any pattern inside the segment coalesces. Lane k reads word 15 - k of [256, 320).
  EXPECT_EQ(cc12(half_warp(256 + 60, -4, 4)), (std::vector<Tx>{{256, 64}}));
}

TEST(Cc12, MisalignedSequentialInsideOne128ByteSegmentIs128Bytes) {
  // Best Practices: words 1..16 of [256, 384): bytes [260, 324) use both 64-byte halves -> one 128-B transaction.
  EXPECT_EQ(cc12(half_warp(260, 4, 4)), (std::vector<Tx>{{256, 128}}));
}

TEST(Cc12, MisalignedAcrossTwo128ByteSegmentsIs64Plus32) {
  // Best Practices: "one 64-byte transaction and one 32-byte transaction". Start at 256 + 72 = 328: lanes 0-13
  // cover [328, 384): upper half of [256, 384) -> [320, 384), which uses both its 32-byte halves -> 64 B.
  // Lanes 14-15 cover [384, 392): lower half of [384, 512), then lower half of [384, 448) -> [384, 416), 32 B.
  EXPECT_EQ(cc12(half_warp(328, 4, 4)), (std::vector<Tx>{{320, 64}, {384, 32}}));
}

TEST(Cc12, InactiveLanesDoNotBreakCoalescing) {
  // Lane 3 inactive: still [256, 320) -> 64 B.
  EXPECT_EQ(cc12(half_warp(256, 4, 4, 0xFFFFu & ~(1u << 3))), (std::vector<Tx>{{256, 64}}));
  // Only lanes 0-7: [256, 288) -> lower 64, lower 32 -> 32 B.
  EXPECT_EQ(cc12(half_warp(256, 4, 4, 0x00FFu)), (std::vector<Tx>{{256, 32}}));
  // Only lane 15: byte 316 -> 128 [256,384) -> lower 64 [256,320) -> upper 32 [288,320).
  EXPECT_EQ(cc12(half_warp(256, 4, 4, 1u << 15)), (std::vector<Tx>{{288, 32}}));
}

TEST(Cc12, SameAddressForAllLanesIsOne32ByteTransaction) {
  EXPECT_EQ(cc12(half_warp(1000, 0, 4)), (std::vector<Tx>{{992, 32}}));
}

TEST(Cc12, StrideTwoWordsUseTheWhole128Bytes) {
  // Lane k at word 2k: bytes 0..127 (every other word) touch both halves of [0, 128) -> 128 B.
  EXPECT_EQ(cc12(half_warp(0, 8, 4)), (std::vector<Tx>{{0, 128}}));
}

TEST(Cc12, ColumnAccessIsSixteen32ByteTransactions) {
  // The naive transpose's store: lane k at row k of a 2048-float matrix (stride 8192 B): each lane alone in its
  // segment, reduced to 32 B: 16 transactions, 512 B for 64 B of data.
  const std::vector<Tx> v = cc12(half_warp(8192, 8192, 4));
  ASSERT_EQ(v.size(), 16u);
  for (int k = 0; k < 16; ++k) EXPECT_EQ(v[size_t(k)], (Tx{uint64_t(8192) * (k + 1), 32}));
}

TEST(Cc12, SegmentSizeFollowsWordSize) {
  EXPECT_EQ(cc12_segment_bytes(1), 32);
  EXPECT_EQ(cc12_segment_bytes(2), 64);
  EXPECT_EQ(cc12_segment_bytes(4), 128);
  EXPECT_EQ(cc12_segment_bytes(8), 128);
  EXPECT_EQ(cc12_segment_bytes(16), 128);
  // 16 chars at [64, 80): segment 32 B [64, 96), already the smallest -> 32 B.
  EXPECT_EQ(cc12(half_warp(64, 1, 1)), (std::vector<Tx>{{64, 32}}));
  // 16 shorts at [64, 96): segment 64 B [64, 128), lower half used -> [64, 96) 32 B.
  EXPECT_EQ(cc12(half_warp(64, 2, 2)), (std::vector<Tx>{{64, 32}}));
  // 16 shorts at [96, 128)+[128,...): base 100 -> [100, 132): segment [64, 128) serves lanes 0-13 (upper
  // half [96, 128) -> 32 B), then lanes 14-15 at [128, 132): segment [128, 192), lower half twice -> 32 B.
  EXPECT_EQ(cc12(half_warp(100, 2, 2)), (std::vector<Tx>{{96, 32}, {128, 32}}));
  // 16 doubles at 0: 128 B, one segment -> 128 B.
  EXPECT_EQ(cc12(half_warp(0, 8, 8)), (std::vector<Tx>{{0, 128}}));
  // 16 float4 at 0: 256 B = two 128-byte segments -> two transactions.
  EXPECT_EQ(cc12(half_warp(0, 16, 16)), (std::vector<Tx>{{0, 128}, {128, 128}}));
}

TEST(Cc12, LowestLaneFirstThenTheRest) {
  // Lanes alternate between two segments: even lanes at [0, 32), odd lanes at [4096, 4128).
  WarpAccess w = half_warp(0, 4, 4);
  for (int k = 0; k < 16; ++k) w.addr[k] = (k % 2 ? 4096 : 0) + uint64_t(4 * (k / 2));
  EXPECT_EQ(cc12(w), (std::vector<Tx>{{0, 32}, {4096, 32}}));
}

TEST(Cc12, TwoHalfWarpsAreServedApart) {
  // A full warp of 32 consecutive floats at 256: each half-warp its own 64-byte transaction (modern rules: 4
  // sectors of one request; here 2 transactions, 128 B).
  WarpAccess w = half_warp(256, 4, 4, ~0u);
  EXPECT_EQ(cc12(w), (std::vector<Tx>{{256, 64}, {320, 64}}));
  const Cc1xCost c = coalesce_cc12(w);
  EXPECT_EQ(c.half_warps, 2);
  // Only lanes 16..31 active: one half-warp.
  EXPECT_EQ(coalesce_cc12(half_warp(256, 4, 4, 0xFFFF0000u)).half_warps, 1);
}

// ---------------------------------------------------------------------------------------------------------
// CC 1.0 / 1.1

TEST(Cc10, KthThreadKthWordIsOneTransaction) {
  // Floats: one 64-byte transaction; the 64-byte segment must be aligned.
  Cc1xCost c = cc10(half_warp(256, 4, 4));
  EXPECT_EQ(c.transactions, 1);
  EXPECT_EQ(c.bytes, 64);
  // Doubles: one 128-byte transaction on a 128-aligned segment.
  c = cc10(half_warp(128, 8, 8));
  EXPECT_EQ(c.transactions, 1);
  EXPECT_EQ(c.bytes, 128);
  // float4: two 128-byte transactions on a 256-aligned segment.
  Transaction t[kMaxCc1xTransactions];
  c = coalesce_cc10(half_warp(512, 16, 16), t);
  ASSERT_EQ(c.transactions, 2);
  EXPECT_EQ(t[0].addr, 512u);
  EXPECT_EQ(t[1].addr, 640u);
  EXPECT_EQ(c.bytes, 256);
}

TEST(Cc10, InactiveThreadsAreAllowed) {
  // Guide figure: one thread does not participate -> still one 64-byte transaction (the whole segment).
  Cc1xCost c = cc10(half_warp(256, 4, 4, 0xFFFFu & ~(1u << 3)));
  EXPECT_EQ(c.transactions, 1);
  EXPECT_EQ(c.bytes, 64);
  // Lane 0 inactive: lane 1 at word 1 still implies the segment [256, 320).
  c = cc10(half_warp(256, 4, 4, 0xFFFEu));
  EXPECT_EQ(c.transactions, 1);
}

TEST(Cc10, PermutedWordsAreSixteenTransactions) {
  // Guide figure: same segment, threads out of order -> a 32-byte transaction per thread.
  const Cc1xCost c = cc10(half_warp(256 + 60, -4, 4));
  EXPECT_EQ(c.transactions, 16);
  EXPECT_EQ(c.bytes, 16 * 32);
}

TEST(Cc10, MisalignedSequentialIsSixteenTransactions) {
  // Guide/Best Practices: shifted by one word -> not the k-th word of an aligned 64-byte segment.
  const Cc1xCost c = cc10(half_warp(260, 4, 4));
  EXPECT_EQ(c.transactions, 16);
  EXPECT_EQ(c.bytes, 512);
  // Aligned to 32 but not to 64 fails too: base 288.
  EXPECT_EQ(cc10(half_warp(288, 4, 4)).transactions, 16);
}

TEST(Cc10, SmallWordsNeverCoalesce) {
  // 1- and 2-byte words: one transaction per thread even when contiguous and aligned.
  EXPECT_EQ(cc10(half_warp(0, 1, 1)).transactions, 16);
  EXPECT_EQ(cc10(half_warp(0, 2, 2)).transactions, 16);
  EXPECT_EQ(cc10(half_warp(0, 2, 2)).bytes, 16 * 32);
}

TEST(Cc10, SameAddressIsNotCoalesced) {
  // Lane 1 reads word 0, not word 1: 16 transactions (1.2 does it in one).
  EXPECT_EQ(cc10(half_warp(256, 0, 4)).transactions, 16);
}

TEST(Cc10, HalfWarpsAreJudgedApart) {
  // Half-warp 0 sequential, half-warp 1 permuted: 1 + 16 transactions.
  WarpAccess w = half_warp(0, 4, 4, ~0u);
  std::swap(w.addr[20], w.addr[21]);
  const Cc1xCost c = cc10(w);
  EXPECT_EQ(c.half_warps, 2);
  EXPECT_EQ(c.transactions, 17);
  EXPECT_EQ(c.bytes, 64 + 16 * 32);
}

// ---------------------------------------------------------------------------------------------------------
// Through Tally: what the counts and the sector sink receive under each rule.

class RecordingSink final : public SectorSink {
 public:
  std::vector<uint64_t> got;
  void add(int64_t, Op, const uint64_t* s, int n) override { got.insert(got.end(), s, s + n); }
  std::unique_ptr<SectorSink> clone_empty() const override { return std::make_unique<RecordingSink>(); }
  void merge_from(const SectorSink&) override {}
};

TEST(Cc1xTally, CountsTransactionsAndTheirBytesAsSectors) {
  MemoryRules rules;
  rules.coalescing = GlobalCoalescing::Cc12Segments;
  Tally t(1);
  t.sectors_sink = std::make_unique<RecordingSink>();
  // Full warp, 32 floats from 328 (misaligned): half-warp 0 as in the Best Practices case = 64 + 32; half-warp 1
  // covers [392, 456): segment [384, 512), both 64-halves used ([392,448) and [448,456)) -> 128 B.
  WarpAccess w = half_warp(328, 4, 4, ~0u);
  t.add(w, 0, rules);
  const SiteCounts& s = t.sites[0];
  EXPECT_EQ(s.instructions, 1);
  EXPECT_EQ(s.transactions, 3);
  EXPECT_EQ(s.sectors, (64 + 32 + 128) / 32);
  EXPECT_EQ(s.ideal_sectors, 4);  // 128 bytes asked for
  const auto& got = static_cast<RecordingSink&>(*t.sectors_sink).got;
  // [320,384) = sectors 10, 11; [384,416) = 12; [384,512) = 12..15: sector 12 moved twice.
  EXPECT_EQ(got, (std::vector<uint64_t>{10, 11, 12, 12, 13, 14, 15}));
}

TEST(Cc1xTally, ModernRulesLeaveTransactionsAtZero) {
  Tally t(1);
  t.add(half_warp(328, 4, 4, ~0u), 0, MemoryRules{});
  EXPECT_EQ(t.sites[0].transactions, 0);
  EXPECT_EQ(t.sites[0].sectors, 5);  // [328, 456): sectors 10..14
}

TEST(Cc1xTally, Cc10SendsEveryTransactionsSector) {
  MemoryRules rules;
  rules.coalescing = GlobalCoalescing::Cc10Strict;
  Tally t(1);
  t.sectors_sink = std::make_unique<RecordingSink>();
  // Half-warp 0 all at byte 40: 16 transactions of the 32-byte segment [32, 64) = sector 1, sixteen times.
  t.add(half_warp(40, 0, 4), 0, rules);
  EXPECT_EQ(t.sites[0].transactions, 16);
  EXPECT_EQ(t.sites[0].sectors, 16);
  EXPECT_EQ(static_cast<RecordingSink&>(*t.sectors_sink).got, std::vector<uint64_t>(16, 1));
}

// The whole naive transpose, 2048 x 2048 f32, 32x8 blocks, CC 1.2 rules, by hand: 2048^2 / 32 = 131072 warp
// instructions per global site. Loads: each warp reads 32 consecutive floats of a row (128 B aligned):
// 2 x 64-byte transactions = 262144 transactions, 4 sectors each instruction = 524288 sectors. Stores: lane
// k writes row k of a column: 32 transactions of 32 B per instruction = 4194304 transactions = sectors.
TEST(Cc1xTally, NaiveTransposeOnGt200Rules) {
  UserConfig user;
  user.kernel = "naive";
  const LaunchConfig cfg = resolve_launch(user);
  ReplayOptions o;
  o.rules.coalescing = GlobalCoalescing::Cc12Segments;
  const ReplayResult r = replay(cfg, o);
  const SiteCounts& ld = r.sites[0];
  const SiteCounts& st = r.sites[1];
  EXPECT_EQ(ld.instructions, 131072);
  EXPECT_EQ(ld.transactions, 262144);
  EXPECT_EQ(ld.sectors, 524288);
  EXPECT_EQ(st.transactions, 4194304);
  EXPECT_EQ(st.sectors, 4194304);
  // CC 1.0 rules: loads coalesce the same way (k-th word of aligned 64 B), stores one 32 B per thread.
  o.rules.coalescing = GlobalCoalescing::Cc10Strict;
  const ReplayResult g = replay(cfg, o);
  EXPECT_EQ(g.sites[0].transactions, 262144);
  EXPECT_EQ(g.sites[1].transactions, 4194304);
}

}  // namespace
}  // namespace memsim
