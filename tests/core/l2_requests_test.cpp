// L2 read requests of a block's loads (sim/l2_requests.hpp): hand-made warps, then suite kernels whose requests
// follow from their index math. Every expected value is derived in the comment.
#include <gtest/gtest.h>

#include <cstdint>

#include "sim/l2_requests.hpp"
#include "tests/support/suite_launch.hpp"
#include "tests/support/warp_accesses.hpp"

namespace memsim {
namespace {

// A global load with lane i at base + i * stride (bytes), all 32 lanes active.
WarpAccess load(uint64_t base, uint64_t stride, int width) {
  return test::lanes_at(Space::Global, Op::Load, base, stride, width);
}

// A row of 32 floats: 4 sectors of one line, one request. Loaded again: every sector was asked for, none.
TEST(L2Requests, ALineIsOneRequestAndAHitIsNone) {
  L2RequestCounter c{MemoryRules{}};
  c.add(load(0, 4, 4));
  EXPECT_DOUBLE_EQ(c.requests(), 1);
  c.add(load(0, 4, 4));
  EXPECT_DOUBLE_EQ(c.requests(), 1);
}

// 16-byte lanes, 512 contiguous bytes: 4 lines, 4 requests; a 4-byte lane a row 128 bytes apart: 32 lines.
TEST(L2Requests, OneRequestALine) {
  L2RequestCounter wide{MemoryRules{}};
  wide.add(load(0, 16, 16));
  EXPECT_DOUBLE_EQ(wide.requests(), 4);
  L2RequestCounter column{MemoryRules{}};
  column.add(load(0, 128, 4));
  EXPECT_DOUBLE_EQ(column.requests(), 32);
}

// Stores and shared accesses send no read request.
TEST(L2Requests, OnlyGlobalLoadsCount) {
  L2RequestCounter c{MemoryRules{}};
  WarpAccess st = load(0, 4, 4);
  st.op = Op::Store;
  c.add(st);
  WarpAccess sh = load(0, 4, 4);
  sh.space = Space::Shared;
  c.add(sh);
  EXPECT_DOUBLE_EQ(c.requests(), 0);
}

// Down a column of 32 lines, sector 0 of each; then sector 1 of the same lines by the next load (1 apart):
// 0.90 of those misses merge into the requests just sent, 32 x 0.10 = 3.2 more; sector 2 two loads after
// that (a hit on sector 0 in between): 32 x (1 - 0.53) = 15.04 more. Far apart (5 loads) nothing merges.
TEST(L2Requests, AMissMergesIntoTheRequestJustSentForItsLine) {
  L2RequestCounter c{MemoryRules{}};
  c.add(load(0, 128, 4));
  EXPECT_DOUBLE_EQ(c.requests(), 32);
  c.add(load(32, 128, 4));
  EXPECT_NEAR(c.requests(), 32 + 3.2, 1e-9);
  c.add(load(0, 128, 4));  // hits
  c.add(load(64, 128, 4));
  EXPECT_NEAR(c.requests(), 32 + 3.2 + 15.04, 1e-9);
  for (int i = 0; i < 4; ++i) c.add(load(0, 128, 4));  // hits
  c.add(load(96, 128, 4));  // 5 loads after the last request: 32 more
  EXPECT_NEAR(c.requests(), 32 + 3.2 + 15.04 + 32, 1e-9);
  EXPECT_EQ(c.unmerged_requests(), 4 * 32);
}

// A warp's load of 8 floats from each of 4 rows 1 KiB apart, starting `offset` bytes into each row: one sector
// of each of 4 lines.
WarpAccess four_rows(uint64_t offset) {
  WarpAccess w = load(0, 4, 4);
  for (int i = 0; i < kWarpSize; ++i) w.addr[i] = uint64_t(i / 8) * 1024 + offset + uint64_t(i % 8) * 4;
  return w;
}

// The L2 fetches 64 bytes a miss. Warp 0 walks its 4 lines a sector a load: sector 0 misses (its piece, sectors
// 0-1, is new), sector 1 lies in the piece warp 0 asked for: a hit load; sector 2 starts a new piece: a miss;
// then warp 1 reads sector 3, in the piece warp 0 asked for, not warp 1: not counted (its data need not be back).
// A load that finds everything in L1 (sector 0 again) sends nothing and is no hit load either.
TEST(L2Requests, AWarpWalkingItsLinesFindsEverySecondSectorInL2) {
  L2RequestCounter c{MemoryRules{}};
  c.add(four_rows(0), 0);
  EXPECT_EQ(c.l2_hit_loads(), 0);
  c.add(four_rows(32), 0);
  EXPECT_EQ(c.l2_hit_loads(), 1);
  c.add(four_rows(64), 0);
  EXPECT_EQ(c.l2_hit_loads(), 1);
  c.add(four_rows(96), 1);
  EXPECT_EQ(c.l2_hit_loads(), 1);
  c.add(four_rows(0), 0);
  EXPECT_EQ(c.l2_hit_loads(), 1);
  EXPECT_EQ(c.loads(), 5);
}

// The same walk in a block: BlockLoads takes each warp's loads in its own order, so warp w's second load (the
// next sector of its own lines) is a hit wherever its first load started a piece: 2 warps x 2 steps, 1 of 2
// loads a warp.
TEST(L2Requests, BlockLoadsKeepTheWarpOfEachLoad) {
  BlockLoads block(2);
  for (int warp = 0; warp < 2; ++warp)
    for (int step = 0; step < 2; ++step) {
      WarpAccess w = four_rows(uint64_t(step) * 32);
      for (int i = 0; i < kWarpSize; ++i) w.addr[i] += uint64_t(warp) * 4096;  // each warp its own rows
      block.add(w, warp);
    }
  const L2Reads reads = block.l2_reads(MemoryRules{});
  EXPECT_EQ(reads.loads, 4);
  EXPECT_EQ(reads.l2_hit_loads, 2);
}

double suite_requests(const char* kernel, const char* dtype, Size2 block) {
  const LaunchConfig cfg = test::suite_launch_1024(kernel, dtype, block);
  return l2_read_requests_of_block(cfg, cfg.blocks() / 2);
}

// copy_shared f32 32x8: each of the 8 warps loads 4 rows of 32 floats (a line each), 32 requests; at 16x16
// (a 16x16 tile) each of the 8 warps loads 2 rows of 16 floats, 2 lines: 16 requests.
TEST(L2Requests, StagedCopiesSendOneRequestALine) {
  EXPECT_DOUBLE_EQ(suite_requests("copy_shared", "f32", {32, 8}), 32);
  EXPECT_DOUBLE_EQ(suite_requests("copy_shared", "f32", {16, 16}), 16);
}

// naive_read f32 16x16 reads a 16x16 tile down its columns: warp w's lanes read 16 rows, 2 floats (columns 2w,
// 2w+1) of each, the same sector for warps 0-3 (columns 0-7) and the next for warps 4-7. Warp 0 sends 16
// requests, warps 1-3 hit, warp 4 misses sector 1 of the same 16 lines 4 loads after warp 0's requests:
// 16 x (1 - 0.08) = 14.72. naive_read f16 16x16: the 16 columns are one sector, warp 0's 16 requests only.
TEST(L2Requests, AColumnReadSendsEachSectorAlone) {
  EXPECT_NEAR(suite_requests("naive_read", "f32", {16, 16}), 16 + 14.72, 1e-9);
  EXPECT_DOUBLE_EQ(suite_requests("naive_read", "f16", {16, 16}), 16);
}

}  // namespace
}  // namespace memsim
