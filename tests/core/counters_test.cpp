// The two counters fed hand-made warp accesses (the rules of docs/hardware.md). Every expected value is worked out in
// the comment above it from the rule, never taken from the program's output.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <vector>

#include "sim/global_sectors.hpp"
#include "sim/shared_banks.hpp"
#include "tests/support/warp_accesses.hpp"

namespace memsim {
namespace {

// A warp load with lane i at base + i * stride (bytes), the lanes of `mask` active.
WarpAccess strided(Space space, uint64_t base, uint64_t stride, int width, uint32_t mask = ~0u) {
  return test::lanes_at(space, Op::Load, base, stride, width, mask);
}
WarpAccess global(uint64_t base, uint64_t stride, int width, uint32_t mask = ~0u) {
  return strided(Space::Global, base, stride, width, mask);
}
// The same lanes as a global store (whose partial sectors the counter counts).
WarpAccess store(uint64_t base, uint64_t stride, int width, uint32_t mask = ~0u) {
  return test::lanes_at(Space::Global, Op::Store, base, stride, width, mask);
}
WarpAccess shared(uint64_t base, uint64_t stride, int width, uint32_t mask = ~0u) {
  return strided(Space::Shared, base, stride, width, mask);
}

// ---------------------------------------------------------------------------------------------------------
// Global sectors

// A warp access's counts with a store's partial sectors filled in, as the tally takes them.
GlobalCost with_partial(const WarpAccess& w) {
  GlobalCost c = count_global_sectors(w);
  count_store_partial_sectors(w, 32, 128, c);
  return c;
}

TEST(GlobalSectors, ContiguousAlignedFloatsTouchFourSectors) {
  // 32 lanes x 4 B = bytes [4096, 4224): 128 aligned bytes = sectors 128..131.
  const GlobalCost c = count_global_sectors(global(4096, 4, 4));
  EXPECT_EQ(c.sectors, 4);
  EXPECT_EQ(c.ideal_sectors, 4);
}

TEST(GlobalSectors, OffsetByFourBytesTouchesFive) {
  // Bytes [4100, 4228): from sector 128 (4096..4127) to sector 132 (4224..4255) = 5 sectors.
  const GlobalCost c = count_global_sectors(global(4100, 4, 4));
  EXPECT_EQ(c.sectors, 5);
  EXPECT_EQ(c.ideal_sectors, 4);
}

TEST(GlobalSectors, Stride128TouchesOneSectorPerLane) {
  const GlobalCost c = count_global_sectors(global(0, 128, 4));
  EXPECT_EQ(c.sectors, 32);
  EXPECT_EQ(c.ideal_sectors, 4);
}

TEST(GlobalSectors, WideContiguousAccesses) {
  // 8 B x 32 = 256 B = 8 sectors; 16 B x 32 = 512 B = 16 sectors; 2 B x 32 = 64 B = 2 sectors.
  EXPECT_EQ(count_global_sectors(global(1 << 20, 8, 8)).sectors, 8);
  EXPECT_EQ(count_global_sectors(global(1 << 20, 16, 16)).sectors, 16);
  EXPECT_EQ(count_global_sectors(global(1 << 20, 2, 2)).sectors, 2);
  EXPECT_EQ(count_global_sectors(global(1 << 20, 2, 2)).ideal_sectors, 2);
}

TEST(GlobalSectors, LinesAreTheDistinct128ByteLines) {
  // 32 x 4 B from 4096: bytes [4096, 4224) = line 32 alone; from 4100: [4100, 4228) = lines 32 and 33.
  EXPECT_EQ(count_global_sectors(global(4096, 4, 4)).lines, 1);
  EXPECT_EQ(count_global_sectors(global(4100, 4, 4)).lines, 2);
  // Stride 128: a line per lane; stride 32: four lanes (four sectors) to a line, 8 lines.
  EXPECT_EQ(count_global_sectors(global(0, 128, 4)).lines, 32);
  EXPECT_EQ(count_global_sectors(global(0, 32, 16)).lines, 8);
  EXPECT_EQ(count_global_sectors(global(0, 32, 16)).sectors, 32);
  // The same lanes in reverse order (the sorting path), and with a straddling lane (the general path):
  // lane i at 4064 - 32 i, 16 B: bytes 3072..4079 = lines 24..31, 8 lines; lane 0 moved to byte 120
  // straddles 120..135 = lines 0 and 1, and lanes 1..31 (3072..4047) still cover lines 24..31.
  WarpAccess r = global(0, 0, 16);
  for (int i = 0; i < kWarpSize; ++i) r.addr[i] = 4064 - 32 * uint64_t(i);
  EXPECT_EQ(count_global_sectors(r).lines, 8);
  r.addr[0] = 120;
  EXPECT_EQ(count_global_sectors(r).lines, 2 + 8);
  // With 64-byte lines (a profile may say so), stride 32 pairs lanes: 16 lines.
  EXPECT_EQ(count_global_sectors(global(0, 32, 16), 32, nullptr, 64).lines, 16);
  EXPECT_THROW(count_global_sectors(global(0, 32, 16), 32, nullptr, 48), std::invalid_argument);
}

// L1 wavefronts: lanes pass in groups of 128 / width (the whole warp up to 4-byte lanes, half-warps for 8-byte
// ones); a pass reads one 4-byte word a bank (word i of a line in bank i) from at most 4 lines, so a group takes
// as many passes as the most distinct words one bank holds, and at least its lines / 4.
TEST(GlobalSectors, WavefrontsOneALineWhereLinesShareBanks) {
  // 32 x 4 B aligned: one line, one pass. Stride 128 (a column): 32 lines all in slot 0, 32 passes.
  EXPECT_EQ(count_global_sectors(global(4096, 4, 4)).wavefronts, 1);
  EXPECT_EQ(count_global_sectors(global(0, 128, 4)).wavefronts, 32);
  // From 4100: line 32's words 1..31 and line 33's word 0, each bank once: 1 pass.
  EXPECT_EQ(count_global_sectors(global(4100, 4, 4)).wavefronts, 1);
  // From 4160: line 32's words 16..31 and line 33's words 0..15: 1 pass; with lane 31 moved to line 34's word 0,
  // bank 0 holds two words: 2.
  EXPECT_EQ(count_global_sectors(global(4160, 4, 4)).wavefronts, 1);
  {
    WarpAccess w = global(4160, 4, 4);
    w.addr[31] = 34 * 128;
    EXPECT_EQ(count_global_sectors(w).wavefronts, 2);
  }
  // 8 B x 32 aligned: half-warps of 16 lanes, a line each: 2 passes; 16 B lanes: quarter-warps, 4 passes.
  EXPECT_EQ(count_global_sectors(global(1 << 20, 8, 8)).wavefronts, 2);
  EXPECT_EQ(count_global_sectors(global(1 << 20, 16, 16)).wavefronts, 4);
}

TEST(GlobalSectors, TwoLinesInDifferentBanksShareAWavefront) {
  // A warp across two rows of a block 48 wide (f16): lanes 0..15 at bytes 64..95 of line 0 (words 16..23),
  // lanes 16..31 at bytes 0..31 of line 8 (words 0..7). Two lines, no bank twice: one pass.
  WarpAccess w = global(64, 2, 2);
  for (int lane = 16; lane < 32; ++lane) w.addr[lane] = 1024 + 2 * uint64_t(lane - 16);
  GlobalCost c = count_global_sectors(w);
  EXPECT_EQ(c.lines, 2);
  EXPECT_EQ(c.wavefronts, 1);
  // The same lanes, line 8's part moved to its bytes 64..95 (words 16..23, as line 0's): two passes.
  for (int lane = 16; lane < 32; ++lane) w.addr[lane] += 64;
  EXPECT_EQ(count_global_sectors(w).wavefronts, 2);
  // Lanes in reverse order (the unsorted path), words 16..23 and 0..7 again: one pass.
  WarpAccess r = global(64, 2, 2);
  for (int lane = 16; lane < 32; ++lane) r.addr[lane] = 1024 + 2 * uint64_t(lane - 16);
  std::reverse(r.addr, r.addr + kWarpSize);
  EXPECT_EQ(count_global_sectors(r).wavefronts, 1);
  // Only lanes 16..31 active: one line, one pass.
  r.mask = 0xFFFFu;
  EXPECT_EQ(count_global_sectors(r).wavefronts, 1);
}

TEST(GlobalSectors, HalfWarpAcrossTwoLinesTakesOnePass) {
  // 32 x 8 B from byte 64: half-warp 0 covers 64..191 (line 0 words 16..31, line 1 words 0..15), half-warp 1
  // covers 192..319 (line 1 words 16..31, line 2 words 0..15): no bank twice in a half-warp, 1 pass each.
  EXPECT_EQ(count_global_sectors(global(64, 8, 8)).wavefronts, 2);
  // From byte 32: half-warp 0 covers 32..159 (line 0 words 8..31, line 1 words 0..7): one pass; half-warp 1
  // covers 160..287 (line 1 words 8..31, line 2 words 0..7): one pass.
  EXPECT_EQ(count_global_sectors(global(32, 8, 8)).wavefronts, 2);
}

TEST(GlobalSectors, AtMostFourLinesAPass) {
  // Stride 132 B, 4 B lanes (a column whose rows start 4 B further on): lane i in line i (132 i / 128 = i + i /
  // 32), word i: 32 lines, no bank twice, but 4 lines a pass: 8 passes.
  EXPECT_EQ(count_global_sectors(global(0, 132, 4)).wavefronts, 8);
  // Stride 136 B, 8 B lanes: lane i in line i + i / 16, words 2i and 2i + 1 mod 32. Half-warp 0 (lanes 0..15)
  // fills the 32 banks once from 16 lines: 4 passes; half-warp 1 the same: 8.
  EXPECT_EQ(count_global_sectors(global(0, 136, 8)).wavefronts, 8);
  // Lanes 0..3 only, stride 132: 4 lines, banks 0..3: one pass; lanes 0..4: 5 lines, 2.
  EXPECT_EQ(count_global_sectors(global(0, 132, 4, 0xFu)).wavefronts, 1);
  EXPECT_EQ(count_global_sectors(global(0, 132, 4, 0x1Fu)).wavefronts, 2);
}

TEST(GlobalSectors, WavefrontsWithLinesOfOtherSizes) {
  // 96-byte lines (24 words, 24 banks), 4 B lanes: groups of 24 lanes. From byte 48: lanes 0..23 cover bytes
  // 48..143, line 0's words 12..23 and line 1's words 0..11, no bank twice: 1 pass; lanes 24..31 cover 144..175,
  // line 1's words 12..19: 1 pass.
  EXPECT_EQ(count_global_sectors(global(48, 4, 4), 32, nullptr, 96).wavefronts, 2);
  // 64-byte lines (16 banks), from byte 32: lanes 0..15 cover 32..95 (line 0 words 8..15, line 1 words 0..7):
  // 1 pass; lanes 16..31 cover 96..159 (line 1 words 8..15, line 2 words 0..7): 1 pass.
  EXPECT_EQ(count_global_sectors(global(32, 4, 4), 32, nullptr, 64).wavefronts, 2);
}

TEST(GlobalSectors, StraddlingLaneTouchesBothSectors) {
  // One lane, 16 bytes at 24: bytes 24..39 = sector 0 (0..31) and sector 1 (32..63).
  WarpAccess w = global(24, 0, 16, 1u);
  GlobalCost c = count_global_sectors(w);
  EXPECT_EQ(c.sectors, 2);
  EXPECT_EQ(c.ideal_sectors, 1);
  // The same lane at 16 (aligned to 16): bytes 16..31, one sector.
  w.addr[0] = 16;
  EXPECT_EQ(count_global_sectors(w).sectors, 1);
  // A 4-byte lane at 30 straddles too: bytes 30..33.
  WarpAccess n = global(30, 0, 4, 1u);
  EXPECT_EQ(count_global_sectors(n).sectors, 2);
}

TEST(GlobalSectors, MisalignedVectorWarpCountsEveryStraddle) {
  // 32 lanes x 16 B starting at byte 8: bytes [8, 520) = sectors 0..16 = 17 distinct sectors.
  EXPECT_EQ(count_global_sectors(global(8, 16, 16)).sectors, 17);
  // Stride 64 with 16 B at offset 24 in each 64-byte chunk: each lane straddles its own two sectors.
  EXPECT_EQ(count_global_sectors(global(24, 64, 16)).sectors, 64);
}

TEST(GlobalSectors, InactiveLanesAreIgnored) {
  // Only even lanes active, stride 128: 16 sectors. Inactive lanes hold garbage addresses that would add
  // sectors if they were read.
  WarpAccess w = global(0, 128, 4, 0x55555555u);
  for (int i = 1; i < 32; i += 2) w.addr[i] = 0xdead0000u + 4096u * i;
  EXPECT_EQ(count_global_sectors(w).sectors, 16);
  EXPECT_EQ(count_global_sectors(w).ideal_sectors, 2);  // 16 lanes x 4 B = 64 B
  // No active lane: nothing.
  w.mask = 0;
  EXPECT_EQ(count_global_sectors(w).sectors, 0);
  EXPECT_EQ(count_global_sectors(w).ideal_sectors, 0);
}

TEST(GlobalSectors, DuplicatesCountedOnce) {
  // All 32 lanes on one word: one sector.
  EXPECT_EQ(count_global_sectors(global(640, 0, 4)).sectors, 1);
  // Lane i at (i / 8) * 32: 4 distinct sectors, each hit by 8 lanes.
  WarpAccess w = global(0, 0, 4);
  for (int i = 0; i < 32; ++i) w.addr[i] = uint64_t(i / 8) * 32;
  EXPECT_EQ(count_global_sectors(w).sectors, 4);
}

TEST(GlobalSectors, UnsortedAddressesAndSectorList) {
  // Reverse and shuffled orders of the 5-sector warp above give the same 5 sectors, listed ascending.
  WarpAccess w = global(4100, 4, 4);
  std::reverse(std::begin(w.addr), std::end(w.addr));
  uint64_t ids[kMaxSectorsPerAccess];
  GlobalCost c = count_global_sectors(w, 32, ids);
  ASSERT_EQ(c.sectors, 5);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(ids[i], uint64_t(128 + i));

  std::mt19937 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    std::shuffle(std::begin(w.addr), std::end(w.addr), rng);
    EXPECT_EQ(count_global_sectors(w).sectors, 5);
  }
  // Stride -128 (lane 0 highest): 32 sectors.
  WarpAccess down = global(0, 0, 4);
  for (int i = 0; i < 32; ++i) down.addr[i] = uint64_t(31 - i) * 128 + 4;
  c = count_global_sectors(down, 32, ids);
  ASSERT_EQ(c.sectors, 32);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(ids[i], uint64_t(i) * 4);  // sector of byte 128 i + 4
}

TEST(GlobalSectors, OtherSegmentSizes) {
  // 64-byte segments: 128 contiguous aligned bytes = 2; offset by 4 = 3.
  EXPECT_EQ(count_global_sectors(global(4096, 4, 4), 64).sectors, 2);
  EXPECT_EQ(count_global_sectors(global(4100, 4, 4), 64).sectors, 3);
  EXPECT_EQ(count_global_sectors(global(4100, 4, 4), 128).sectors, 2);
}

// ---------------------------------------------------------------------------------------------------------
// Shared wavefronts

TEST(SharedBanks, ContiguousWordsOneWavefront) {
  const SharedCost c = count_shared_wavefronts(shared(0, 4, 4));
  EXPECT_EQ(c.wavefronts, 1);
  EXPECT_EQ(c.ideal_wavefronts, 1);
  EXPECT_EQ(c.conflicts(), 0);
}

TEST(SharedBanks, ColumnWalkStride32Words) {
  // Lane i at word 32 i: bank (32 i) mod 32 = 0 for every lane, 32 distinct words -> 32 wavefronts.
  const SharedCost c = count_shared_wavefronts(shared(0, 128, 4));
  EXPECT_EQ(c.wavefronts, 32);
  EXPECT_EQ(c.ideal_wavefronts, 1);
  EXPECT_EQ(c.conflicts(), 31);
}

TEST(SharedBanks, ColumnWalkStride33Words) {
  // Lane i at word 33 i + 5: bank (i + 5) mod 32, all distinct -> 1 wavefront.
  const SharedCost c = count_shared_wavefronts(shared(20, 132, 4));
  EXPECT_EQ(c.wavefronts, 1);
  EXPECT_EQ(c.conflicts(), 0);
}

TEST(SharedBanks, EvenStridesConflict) {
  // Stride 2 words: banks 0,2,..,30 each twice with distinct words -> 2. Stride 16 words: banks 0 and 16,
  // each 16 distinct words -> 16. Stride 8: banks 0,8,16,24 with 8 words each -> 8.
  EXPECT_EQ(count_shared_wavefronts(shared(0, 8, 4)).wavefronts, 2);
  EXPECT_EQ(count_shared_wavefronts(shared(0, 64, 4)).wavefronts, 16);
  EXPECT_EQ(count_shared_wavefronts(shared(0, 32, 4)).wavefronts, 8);
}

TEST(SharedBanks, BroadcastOfOneWord) {
  const SharedCost c = count_shared_wavefronts(shared(4 * 77, 0, 4));
  EXPECT_EQ(c.wavefronts, 1);
  EXPECT_EQ(c.conflicts(), 0);
}

TEST(SharedBanks, TwoWordsInOneBank) {
  // Lanes 0..15 on word 3, lanes 16..31 on word 35: both bank 3, two distinct words -> 2 wavefronts.
  WarpAccess w = shared(0, 0, 4);
  for (int i = 0; i < 32; ++i) w.addr[i] = 4 * uint64_t(i < 16 ? 3 : 35);
  const SharedCost c = count_shared_wavefronts(w);
  EXPECT_EQ(c.wavefronts, 2);
  EXPECT_EQ(c.conflicts(), 1);
  // Lane order does not matter.
  std::reverse(std::begin(w.addr), std::end(w.addr));
  EXPECT_EQ(count_shared_wavefronts(w).wavefronts, 2);
}

TEST(SharedBanks, InactiveLanesAreIgnored) {
  // Stride 32 words, only lanes 0..3 active: 4 words in bank 0 -> 4 wavefronts, ideal ceil(16/128) = 1.
  SharedCost c = count_shared_wavefronts(shared(0, 128, 4, 0xFu));
  EXPECT_EQ(c.wavefronts, 4);
  EXPECT_EQ(c.ideal_wavefronts, 1);
  // No active lane: nothing at all.
  c = count_shared_wavefronts(shared(0, 128, 4, 0u));
  EXPECT_EQ(c.wavefronts, 0);
  EXPECT_EQ(c.ideal_wavefronts, 0);
}

TEST(SharedBanks, EightByteAccessesTwoPhases) {
  // Contiguous 8 B: phase of lanes 0..15 covers words 0..31, one per bank -> 1; same for lanes 16..31.
  SharedCost c = count_shared_wavefronts(shared(0, 8, 8));
  EXPECT_EQ(c.wavefronts, 2);
  EXPECT_EQ(c.ideal_wavefronts, 2);  // 256 B / 128
  // Column walk of a 32-wide f64 tile: lane i at element 32 i = word 64 i (+1): every lane of a phase in
  // banks 0 and 1 with 16 distinct words each -> 16 per phase, 32 in all, 30 conflicts.
  c = count_shared_wavefronts(shared(0, 256, 8));
  EXPECT_EQ(c.wavefronts, 32);
  EXPECT_EQ(c.conflicts(), 30);
  // Padded to 33 elements: lane i at word 66 i: banks 2i mod 32 (+1) distinct within 16 lanes -> 1 per phase.
  c = count_shared_wavefronts(shared(0, 264, 8));
  EXPECT_EQ(c.wavefronts, 2);
  EXPECT_EQ(c.conflicts(), 0);
  // Only lanes 16..31 active and contiguous: the first phase costs nothing -> 1 wavefront, ideal 1.
  c = count_shared_wavefronts(shared(0, 8, 8, 0xFFFF0000u));
  EXPECT_EQ(c.wavefronts, 1);
  EXPECT_EQ(c.ideal_wavefronts, 1);
}

TEST(SharedBanks, EightByteLanesAcrossPhasesDoNotConflict) {
  // Lane i and lane i + 16 on the same bank pair but different words (i*8 and i*8 + 128): they are in
  // different phases, so each phase is conflict-free -> 2.
  WarpAccess w = shared(0, 0, 8);
  for (int i = 0; i < 32; ++i) w.addr[i] = uint64_t(i % 16) * 8 + (i >= 16 ? 128 : 0);
  EXPECT_EQ(count_shared_wavefronts(w).wavefronts, 2);
  // Swap so that lanes 0..7 and 8..15 share banks with distinct words inside the first phase: lane i < 8 at
  // 8 i, lane 8 <= i < 16 at 8 (i - 8) + 128 -> banks 0..15, 2 words each -> 2 in phase 0; same in phase 1.
  for (int i = 0; i < 32; ++i) w.addr[i] = uint64_t(i % 8) * 8 + ((i / 8) % 2 ? 128 : 0) + (i >= 16 ? 512 : 0);
  EXPECT_EQ(count_shared_wavefronts(w).wavefronts, 4);
}

TEST(SharedBanks, SixteenByteAccessesFourPhases) {
  // Contiguous 16 B: each phase of 8 lanes covers 32 consecutive words -> 1; 4 phases.
  SharedCost c = count_shared_wavefronts(shared(0, 16, 16));
  EXPECT_EQ(c.wavefronts, 4);
  EXPECT_EQ(c.ideal_wavefronts, 4);
  // Row stride 16 words (64 B): lane i covers words 16 i .. 16 i + 3, banks 16 (i mod 2) + 0..3. In a phase
  // of 8 lanes, 4 lanes share banks 0..3 and 4 lanes banks 16..19, each bank holding 4 distinct words ->
  // 4 wavefronts per phase, 16 in all, 12 conflicts.
  c = count_shared_wavefronts(shared(0, 64, 16));
  EXPECT_EQ(c.wavefronts, 16);
  EXPECT_EQ(c.ideal_wavefronts, 4);
  EXPECT_EQ(c.conflicts(), 12);
  // Row stride 32 words (128 B): all 8 lanes of a phase in banks 0..3 -> 8 per phase, 32 in all.
  c = count_shared_wavefronts(shared(0, 128, 16));
  EXPECT_EQ(c.wavefronts, 32);
  // Row stride 36 words (144 B): lane i covers banks 4 i + 0..3 mod 32, 8 lanes cover all 32 banks -> 1.
  c = count_shared_wavefronts(shared(0, 144, 16));
  EXPECT_EQ(c.wavefronts, 4);
}

TEST(SharedBanks, TwoByteAccessesPairsShareWords) {
  // 2-byte lanes at 2 i: lanes 2k and 2k+1 read word k (broadcast), 16 words in banks 0..15 -> 1.
  SharedCost c = count_shared_wavefronts(shared(0, 2, 2));
  EXPECT_EQ(c.wavefronts, 1);
  EXPECT_EQ(c.ideal_wavefronts, 1);  // 64 B
  // Column walk of a 32-wide f16 tile: lane i at half 32 i = word 16 i -> banks 0 and 16, 16 words each -> 16.
  c = count_shared_wavefronts(shared(0, 64, 2));
  EXPECT_EQ(c.wavefronts, 16);
  EXPECT_EQ(c.conflicts(), 15);
  // One-byte lanes: 32 bytes = 8 words in 8 banks -> 1.
  EXPECT_EQ(count_shared_wavefronts(shared(0, 1, 1)).wavefronts, 1);
}

TEST(SharedBanks, BankWordsHeatmapRow) {
  // Stride 2 words: banks 0,2,..,30 each deliver 2 words, odd banks none.
  int64_t row[32] = {};
  count_shared_wavefronts(shared(0, 8, 4), BankRules{}, row);
  for (int b = 0; b < 32; ++b) EXPECT_EQ(row[b], b % 2 == 0 ? 2 : 0) << "bank " << b;
  // Accumulates: 8-byte contiguous adds 2 words to every bank (one per phase).
  count_shared_wavefronts(shared(0, 8, 8), BankRules{}, row);
  for (int b = 0; b < 32; ++b) EXPECT_EQ(row[b], b % 2 == 0 ? 4 : 2) << "bank " << b;
}

TEST(SharedBanks, ComputeCapability1xHalfWarps) {
  const BankRules cc1{16, 4, 16};
  // Contiguous words: each half-warp spans 16 words = 16 banks -> 1 per half -> 2; ideal = 128 B / 64 B = 2.
  SharedCost c = count_shared_wavefronts(shared(0, 4, 4), cc1);
  EXPECT_EQ(c.wavefronts, 2);
  EXPECT_EQ(c.ideal_wavefronts, 2);
  // Stride 16 words: every lane of a half-warp in bank 0 -> 16 per half -> 32.
  c = count_shared_wavefronts(shared(0, 64, 4), cc1);
  EXPECT_EQ(c.wavefronts, 32);
  EXPECT_EQ(c.conflicts(), 30);
  // Stride 17 words (the whitepaper's padded 16x17 tile): banks (i mod 16) distinct per half -> 2.
  EXPECT_EQ(count_shared_wavefronts(shared(0, 68, 4), cc1).wavefronts, 2);
  // Stride 32 words: bank 0 for every lane on 16 banks as well -> 16 per half-warp -> 32.
  EXPECT_EQ(count_shared_wavefronts(shared(0, 128, 4), cc1).wavefronts, 32);
  // Lanes 0 and 16 on words 0 and 16: bank 0 twice on 16 banks, but in different half-warps -> 1 + 1 = 2.
  WarpAccess w = shared(0, 0, 4, 0x00010001u);
  w.addr[0] = 0;
  w.addr[16] = 64;
  EXPECT_EQ(count_shared_wavefronts(w, cc1).wavefronts, 2);
  // On 32 banks (one phase) the same two lanes use banks 0 and 16 -> 1.
  EXPECT_EQ(count_shared_wavefronts(w).wavefronts, 1);
  // Only the first half-warp active: 1 wavefront, ideal 1.
  c = count_shared_wavefronts(shared(0, 4, 4, 0xFFFFu), cc1);
  EXPECT_EQ(c.wavefronts, 1);
  EXPECT_EQ(c.ideal_wavefronts, 1);
}

TEST(SharedBanks, RandomWarpsAgainstDirectRule) {
  // A second, direct statement of the rule (phase by lane index, per-bank distinct-word sets) checked on
  // random warps of every width, including misaligned 4-byte lanes that cover two words.
  std::mt19937_64 rng(12345);
  for (int trial = 0; trial < 3000; ++trial) {
    const int widths[] = {1, 2, 4, 8, 16};
    const int width = widths[trial % 5];
    WarpAccess w = shared(0, 0, width, uint32_t(rng()));
    const bool aligned = trial % 7 != 0;
    for (int i = 0; i < 32; ++i) {
      uint64_t a = rng() % 512;  // a small window makes conflicts and broadcasts frequent
      if (aligned) a -= a % width;
      w.addr[i] = a;
    }
    const int phase = width <= 4 ? 32 : width == 8 ? 16 : 8;
    int expect = 0;
    for (int first = 0; first < 32; first += phase) {
      std::vector<std::vector<uint64_t>> bank(32);
      for (int l = first; l < first + phase; ++l) {
        if (!(w.mask >> l & 1u)) continue;
        for (uint64_t word = w.addr[l] / 4; word <= (w.addr[l] + width - 1) / 4; ++word) {
          auto& v = bank[word % 32];
          if (std::find(v.begin(), v.end(), word) == v.end()) v.push_back(word);
        }
      }
      size_t worst = 0;
      for (auto& v : bank) worst = std::max(worst, v.size());
      expect += int(worst);
    }
    int active_phases = 0;  // the ideal: one wavefront for each phase with an active lane
    for (int first = 0; first < 32; first += phase) active_phases += (w.mask >> first & ((1ull << phase) - 1)) != 0;
    const SharedCost c = count_shared_wavefronts(w);
    ASSERT_EQ(c.wavefronts, expect) << "trial " << trial << " width " << width;
    ASSERT_EQ(c.ideal_wavefronts, active_phases) << "trial " << trial;
  }
}

TEST(GlobalSectors, L1WavefrontsAreLinesPerLaneGroupWhereTheLinesShareSlots) {
  // 4-byte lanes pass through L1 as one group of 32: a row of 32 floats is 1 line, 1 wavefront.
  EXPECT_EQ(count_global_sectors(global(4096, 4, 4)).wavefronts, 1);
  // A warp of an 8x32 block reading floats: 4 rows of 8 lanes (32 B each), rows 8 KiB apart: 4 lines.
  {
    WarpAccess w = global(0, 0, 4);
    for (int i = 0; i < 32; ++i) w.addr[i] = 65536 + uint64_t(i / 8) * 8192 + uint64_t(i % 8) * 4;
    const GlobalCost c = count_global_sectors(w);
    EXPECT_EQ(c.sectors, 4);  // whole sectors: the old "one wavefront per 128 bytes" said 1
    EXPECT_EQ(c.wavefronts, 4);
  }
  // 8-byte lanes go in half-warps: a row of 32 doubles (256 B) is 2 lines, one per half: 2.
  EXPECT_EQ(count_global_sectors(global(0, 8, 8)).wavefronts, 2);
  // A column of 32 doubles (each lane its own line): 16 + 16 lines = 32.
  EXPECT_EQ(count_global_sectors(global(0, 8192, 8)).wavefronts, 32);
  // naive_read f64 under 16x16 blocks: lanes 0-15 a column of 16 rows, lanes 16-31 the next column of the same
  // rows. The warp touches 16 lines, but each half-warp touches all 16: 32 wavefronts.
  {
    WarpAccess w = global(0, 0, 8);
    for (int i = 0; i < 32; ++i) w.addr[i] = uint64_t(i % 16) * 65536 + uint64_t(i / 16) * 8;
    const GlobalCost c = count_global_sectors(w);
    EXPECT_EQ(c.lines, 16);
    EXPECT_EQ(c.wavefronts, 32);
  }
  // 16-byte lanes go in quarter-warps: the first halves of 32-byte pieces (a 4 x f64 row read in two 16-byte
  // loads) span 8 x 32 = 256 B a quarter: 2 lines each, 8 in all, where there are 32 sectors.
  {
    const GlobalCost c = count_global_sectors(global(0, 32, 16));
    EXPECT_EQ(c.sectors, 32);
    EXPECT_EQ(c.wavefronts, 8);
  }
  // Inactive lanes: 8-byte lanes 0 and 16 of a contiguous row are in different halves (lines 0 and 1): 2; as
  // 4-byte lanes (bytes 0 and 64) they are one group in one line: 1.
  EXPECT_EQ(count_global_sectors(global(0, 8, 8, 1u | 1u << 16)).wavefronts, 2);
  EXPECT_EQ(count_global_sectors(global(0, 4, 4, 1u | 1u << 16)).wavefronts, 1);
  // A lane across a line boundary (bytes 126..129) touches sector 3 of line 0 and sector 0 of line 1: slots 3
  // and 0, one pass; with lane 1 on line 0's sector 0 (bytes 0..3), slot 0 holds two sectors: 2.
  EXPECT_EQ(count_global_sectors(global(126, 0, 4, 1u)).wavefronts, 1);
  {
    WarpAccess w = global(126, 0, 4, 3u);
    w.addr[1] = 0;
    EXPECT_EQ(count_global_sectors(w).wavefronts, 2);
  }
  // Lanes walking down a row count as walking up.
  {
    WarpAccess w = global(0, 0, 4);
    for (int i = 0; i < 32; ++i) w.addr[i] = 4096 + uint64_t(31 - i) * 4;
    EXPECT_EQ(count_global_sectors(w).wavefronts, 1);
  }
}

TEST(GlobalSectors, RandomWarpsAgainstDirectRule) {
  std::mt19937_64 rng(999);
  for (int trial = 0; trial < 3000; ++trial) {
    const int widths[] = {1, 2, 4, 8, 16};
    const int width = widths[trial % 5];
    WarpAccess w = global(0, 0, width, uint32_t(rng()));
    for (int i = 0; i < 32; ++i) w.addr[i] = (uint64_t(1) << 32) + rng() % 2048;
    std::vector<uint64_t> s;
    for (int l = 0; l < 32; ++l)
      if (w.mask >> l & 1u)
        for (uint64_t b = w.addr[l]; b < w.addr[l] + width; ++b) s.push_back(b / 32);
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    ASSERT_EQ(count_global_sectors(w).sectors, int(s.size())) << "trial " << trial;
  }
}

TEST(GlobalSectors, PartialSectorsOfAWarpAcrossTwoTileRows) {
  // A warp of 8-byte lanes across two rows, as a block 34 wide has (rows here 544 bytes apart): lanes 0-1 at bytes
  // 256..271 (half of sector 8, in line 2), lanes 2-31 from byte 544 (sector 17): bytes 544..783 = sectors 17..23
  // whole and half of sector 24 (bytes 768..783, in line 6). 9 sectors, 2 of them in part, in 2 lines.
  WarpAccess w = store(0, 8, 8);
  w.addr[0] = 256, w.addr[1] = 264;
  for (int i = 2; i < 32; ++i) w.addr[i] = 544 + 8 * uint64_t(i - 2);
  const GlobalCost c = with_partial(w);
  EXPECT_EQ(c.sectors, 9);
  EXPECT_EQ(c.partial_sectors, 2);
  EXPECT_EQ(c.partial_lines, 2);
  // The same warp a row earlier, every sector whole: 32 x 8 bytes from byte 0 = sectors 0..7.
  const GlobalCost whole = with_partial(store(0, 8, 8));
  EXPECT_EQ(whole.partial_sectors, 0);
  EXPECT_EQ(whole.partial_lines, 0);
  // A column of 4-byte lanes 128 bytes apart: each lane a sector and a line of its own, every one in part.
  const GlobalCost column = with_partial(store(0, 128, 4));
  EXPECT_EQ(column.partial_sectors, 32);
  EXPECT_EQ(column.partial_lines, 32);
  // 2-byte lanes, 8 to a sector (16 bytes: bytes 0..15 of each of 4 sectors 64 bytes apart): 4 in part, in 2 lines.
  WarpAccess pieces = store(0, 2, 2, 0xffu);
  for (int i = 8; i < 32; ++i) pieces.addr[i] = 0;
  for (int i = 0; i < 8; ++i) pieces.addr[i] = uint64_t(64 * (i / 2) + 2 * (i % 2));
  const GlobalCost p = with_partial(pieces);
  EXPECT_EQ(p.sectors, 4);
  EXPECT_EQ(p.partial_sectors, 4);
  EXPECT_EQ(p.partial_lines, 2);
  // Loads write nothing: the same column as a load has none.
  EXPECT_EQ(with_partial(global(0, 128, 4)).partial_sectors, 0);
}

TEST(GlobalSectors, RandomPartialSectorsAgainstDirectRule) {
  // Store-like warps (no two lanes share a byte): lanes at distinct width-aligned slots, in random order and
  // sorted, random masks, and some slots off by 4 bytes so that 8- and 16-byte lanes straddle. A sector is in
  // part when fewer than 32 of its bytes are written; its line is 128 bytes.
  std::mt19937_64 rng(2027);
  for (int trial = 0; trial < 4000; ++trial) {
    const int widths[] = {1, 2, 4, 8, 16};
    const int width = widths[trial % 5];
    const uint32_t mask = trial % 3 == 0 ? ~0u : uint32_t(rng());
    WarpAccess w = store(0, 0, width, mask);
    std::vector<uint64_t> slots(96);
    std::iota(slots.begin(), slots.end(), uint64_t(0));
    std::shuffle(slots.begin(), slots.end(), rng);
    const uint64_t shift = (trial % 7 == 0 && width >= 8) ? 4 : 0;
    for (int i = 0; i < 32; ++i) w.addr[i] = (uint64_t(1) << 32) + slots[i] * uint64_t(width) + shift;
    if (trial % 2 == 0) std::sort(w.addr, w.addr + 32);
    std::map<uint64_t, std::set<uint64_t>> bytes;
    for (int l = 0; l < 32; ++l)
      if (w.mask >> l & 1u)
        for (uint64_t b = w.addr[l]; b < w.addr[l] + width; ++b) bytes[b / 32].insert(b);
    int partial = 0;
    std::set<uint64_t> lines;
    for (const auto& [sector, in] : bytes)
      if (in.size() < 32) ++partial, lines.insert(sector / 4);
    const GlobalCost c = with_partial(w);
    ASSERT_EQ(c.partial_sectors, partial) << "trial " << trial;
    ASSERT_EQ(c.partial_lines, int(lines.size())) << "trial " << trial;
  }
}

// L1 wavefronts by brute force: for each group of 128 / width lanes, the distinct 4-byte words of its bytes by
// bank (word mod 32) and its distinct 128-byte lines; the group takes max(fullest bank, ceil(lines / 4)).
int wavefronts_by_bytes(const WarpAccess& w) {
  const int group = std::clamp(128 / int(w.width), 1, 32);
  int total = 0;
  for (int first = 0; first < 32; first += group) {
    std::set<uint64_t> words, lines;
    for (int l = first; l < first + group; ++l)
      if (w.mask >> l & 1u)
        for (uint64_t b = w.addr[l]; b < w.addr[l] + w.width; ++b) words.insert(b / 4), lines.insert(b / 128);
    std::map<uint64_t, int> per_bank;
    int fullest = 0;
    for (uint64_t word : words) fullest = std::max(fullest, ++per_bank[word % 32]);
    total += std::max(fullest, int((lines.size() + 3) / 4));
  }
  return total;
}

TEST(GlobalSectors, RandomWavefrontsAgainstDirectRule) {
  // Random masks and addresses (the general path), and full warps of sorted addresses (the scan's path, with
  // and without the memo: the same pattern twice).
  std::mt19937_64 rng(4242);
  for (int trial = 0; trial < 3000; ++trial) {
    const int widths[] = {1, 2, 4, 8, 16};
    const int width = widths[trial % 5];
    const bool full_sorted = trial % 2 == 1;
    WarpAccess w = global(0, 0, width, full_sorted ? ~0u : uint32_t(rng()));
    for (int i = 0; i < 32; ++i) w.addr[i] = (uint64_t(1) << 32) + rng() % 4096 / uint64_t(width) * uint64_t(width);
    if (full_sorted) std::sort(w.addr, w.addr + 32);
    const int want = wavefronts_by_bytes(w);
    ASSERT_EQ(count_global_sectors(w).wavefronts, want) << "trial " << trial;
    ASSERT_EQ(count_global_sectors(w).wavefronts, want) << "trial " << trial << " (again)";
  }
}

}  // namespace
}  // namespace memsim
