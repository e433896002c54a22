// Lines a block writes in partial pieces from two or more warps (sim/partial_lines.hpp): hand-made warps, then
// the suite's kernels with the pieces worked out from their index math. Every expected value is derived in the
// comment.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>

#include "sim/partial_lines.hpp"
#include "sim/replay.hpp"
#include "tests/support/suite_launch.hpp"
#include "tests/support/warp_accesses.hpp"

namespace memsim {
namespace {

// A global store with lane i at base + i * stride (bytes), all 32 lanes active.
WarpAccess store(uint64_t base, uint64_t stride, int width) {
  return test::lanes_at(Space::Global, Op::Store, base, stride, width);
}

// 4 bytes into each of 32 lines (a 128-byte stride) by warp 0: one piece of each; the next 4 bytes by warp 0
// again: still one warp; the next 4 by warp 3: all 32 lines have pieces from two warps.
TEST(PartialPieces, APieceFromASecondWarpCounts) {
  PartialPieces p;
  p.add(store(0, 128, 4), 0);
  EXPECT_EQ(p.lines_from_two_or_more_warps(), 0);
  p.add(store(4, 128, 4), 0);
  EXPECT_EQ(p.lines_from_two_or_more_warps(), 0);
  EXPECT_EQ(p.sectors_from_warps(), 0);  // sector 0 of each line from warp 0 alone
  p.add(store(8, 128, 4), 3);
  EXPECT_EQ(p.lines_from_two_or_more_warps(), 32);
  EXPECT_EQ(p.sectors_from_warps(), 32);  // sector 0 of the 32 lines now from warps 0 and 3
  // By their partly written sectors: only sector 0 of each line, from 2 warps; a line weighted by the warps
  // writing it as a share of 8 (2 of 8), the sector a quarter of it: 32 x 2/8 x 1/4 = 2 at index 2.
  PartialSectorLines want{};
  want[2] = 2;
  EXPECT_EQ(p.sectors_by_writing_warps(), want);
  // Warps 1 and 2 write the next 8 bytes of every line (still sector 0), warp 5 4 more bytes of the first 16
  // (lanes 0..15): sector 0 of 16 lines from 5 warps (16 x 5/8 x 1/4 = 2.5) and of 16 from 4 (16 x 4/8 x 1/4).
  p.add(store(12, 128, 4), 1);
  p.add(store(16, 128, 4), 2);
  WarpAccess half = store(20, 128, 4);
  half.mask = 0xffffu;
  p.add(half, 5);
  want = {};
  want[5] = 2.5;
  want[4] = 2;
  EXPECT_EQ(p.sectors_by_writing_warps(), want);
  // Warp 6 writes 4 bytes of sector 1 of every line: the lines now from 6 and 5 warps, sector 1 from warp 6
  // alone (index 1); sector 0 as before but in lines weighted 6/8 and 5/8.
  p.add(store(32, 128, 4), 6);
  EXPECT_EQ(p.sectors_from_warps(), 32);  // sector 1 of every line from warp 6 alone
  want = {};
  want[5] = 16 * 6.0 / 8 / 4;
  want[4] = 16 * 5.0 / 8 / 4;
  want[1] = 16 * 6.0 / 8 / 4 + 16 * 5.0 / 8 / 4;
  EXPECT_EQ(p.sectors_by_writing_warps(), want);
  EXPECT_DOUBLE_EQ(total_lines(want), 32 * (16 * 6.0 / 8 + 16 * 5.0 / 8) / 32 * 2 / 4);
}

// A block of 2 warps writing each line together counts it as 2 of 8 warps do, not as the whole block: warp 0
// writes 4 bytes of each of 32 lines (lane i at 128 i), warp 1 the next 4 bytes: sector 0 of 32 lines from 2
// warps, 32 x 2/8 x 1/4 = 2, whatever the block's size. And a line from more than 8 warps counts once: 12
// warps writing 4 bytes each of every line, in sectors 0 and 1.
TEST(PartialPieces, ALineCountsByItsWritersNotTheirShareOfTheBlock) {
  PartialPieces two;
  two.add(store(0, 128, 4), 0);
  two.add(store(4, 128, 4), 1);
  PartialSectorLines want{};
  want[2] = 2;
  EXPECT_EQ(two.sectors_by_writing_warps(), want);
  PartialPieces twelve;
  for (int w = 0; w < 12; ++w) twelve.add(store(uint64_t(4 * w), 128, 4), w);
  // 12 x 4 bytes = 48: sector 0 from warps 0-7 (8), sector 1 from warps 8-11 (4); each line counts once
  // (12 warps, at most 1), each sector a quarter: 32 x 1/4 at index 8 and at index 4.
  want = {};
  want[8] = 8;
  want[4] = 8;
  EXPECT_EQ(twelve.sectors_by_writing_warps(), want);
}

// 32 lanes x 4 contiguous bytes write the 4 sectors of one line whole: not partial, however often. A load
// of the same bytes and a shared store do not count either.
TEST(PartialPieces, WholeSectorsLoadsAndSharedStoresDoNotCount) {
  PartialPieces p;
  p.add(store(0, 4, 4), 0);
  p.add(store(0, 4, 4), 1);
  WarpAccess load = store(0, 128, 4);
  load.op = Op::Load;
  p.add(load, 0);
  p.add(load, 1);
  WarpAccess shared = store(0, 128, 4);
  shared.space = Space::Shared;
  p.add(shared, 0);
  p.add(shared, 1);
  EXPECT_EQ(p.lines_from_two_or_more_warps(), 0);
}

// A warp that writes the first halves of 32 sectors (8 lines) and then their second halves completes the 8
// lines itself; first halves alone complete nothing; the second halves from another warp make the lines
// two warps' (counted there, not here).
TEST(PartialPieces, LinesAWarpCompletesItself) {
  PartialPieces own;
  own.add(store(0, 32, 16), 0);
  EXPECT_EQ(own.lines_completed_by_one_warp(), 0);
  own.add(store(16, 32, 16), 0);
  EXPECT_EQ(own.lines_completed_by_one_warp(), 8);
  EXPECT_EQ(own.lines_from_two_or_more_warps(), 0);
  PartialPieces shared;
  shared.add(store(0, 32, 16), 0);
  shared.add(store(16, 32, 16), 1);
  EXPECT_EQ(shared.lines_completed_by_one_warp(), 0);
  EXPECT_EQ(shared.lines_from_two_or_more_warps(), 8);
}

// 16-byte lanes 32 bytes apart write the first halves of 32 sectors (512 bytes); the same warp's next store,
// base 16, the second halves: every partial byte is half of a pair completed in the next store (share 1).
// Another warp's second halves, or a store of other halves in between, pair nothing (share 0 of the 1024 and
// 1536 partial bytes); another warp's stores in between do not break a warp's pair (each warp is followed
// alone: the cost model decides by the block's size whether the L1 still merges).
TEST(PartialPieces, HalfSectorPairsInTheNextStore) {
  PartialPieces own;
  own.add(store(0, 32, 16), 0);
  EXPECT_DOUBLE_EQ(own.next_store_pair_share(), 0.0);
  own.add(store(16, 32, 16), 0);
  EXPECT_DOUBLE_EQ(own.next_store_pair_share(), 1.0);

  PartialPieces other;
  other.add(store(0, 32, 16), 0);
  other.add(store(16, 32, 16), 1);
  EXPECT_DOUBLE_EQ(other.next_store_pair_share(), 0.0);

  PartialPieces between;
  between.add(store(0, 32, 16), 0);
  between.add(store(4096, 32, 16), 0);  // the first halves of 32 other sectors
  between.add(store(16, 32, 16), 0);
  EXPECT_DOUBLE_EQ(between.next_store_pair_share(), 0.0);

  PartialPieces interleaved;
  interleaved.add(store(0, 32, 16), 0);
  interleaved.add(store(4096, 32, 16), 1);
  interleaved.add(store(16, 32, 16), 0);
  interleaved.add(store(4096 + 16, 32, 16), 1);
  EXPECT_DOUBLE_EQ(interleaved.next_store_pair_share(), 1.0);

  // The same halves written twice: each store's halves complement the previous store's, so every piece is in
  // a pair, and each counts once: 4 x 512 of 2048 partial bytes (not the 3 pairs' 3 x 1024).
  PartialPieces again;
  again.add(store(0, 32, 16), 0);
  again.add(store(16, 32, 16), 0);
  again.add(store(0, 32, 16), 0);
  again.add(store(16, 32, 16), 0);
  EXPECT_DOUBLE_EQ(again.next_store_pair_share(), 1.0);
}

// 8-byte lanes 32 bytes apart: quarter sectors. Four stores from one warp complete the sectors, but no piece is
// a half: the L1 seldom merges quarters (lab/studies/store_merge), and the share counts halves only (0 of
// 1024 bytes). 4-byte lanes, 4 to a half sector in 8 rows 1 KiB apart (a 4-wide block's drain in f32), then the
// next 16 bytes of each row: 256 of 256 partial bytes paired.
TEST(PartialPieces, QuartersDoNotPairAndFourLanesMakeAHalf) {
  PartialPieces quarters;
  for (int q = 0; q < 4; ++q) quarters.add(store(8 * q, 32, 8), 0);
  EXPECT_DOUBLE_EQ(quarters.next_store_pair_share(), 0.0);

  auto rows = [](uint64_t offset) {
    WarpAccess w = store(0, 4, 4);
    for (int lane = 0; lane < 32; ++lane) w.addr[lane] = uint64_t(lane / 4) * 1024 + offset + uint64_t(lane % 4) * 4;
    return w;
  };
  PartialPieces narrow;
  narrow.add(rows(0), 0);
  narrow.add(rows(16), 0);
  EXPECT_DOUBLE_EQ(narrow.next_store_pair_share(), 1.0);
}

// A tile row of 24 2-byte elements from a 12-wide block, as copy_shared f16 12x4 on 24 writes it: lanes 0-11 write
// bytes 0-23 of a sector, then, in the warp's next store, lanes 0-3 bytes 24-31: the two pieces make the sector
// whole (24 + 8 of 32 partial bytes paired, share 1). The same 8 bytes from another warp, or after a store of the
// same warp in between, pair nothing; the 8 bytes then 8 more (bytes 24-31 and a gap left at 16-23) neither: only
// a store that completes the sector with the previous one's piece pairs.
TEST(PartialPieces, UnequalPiecesPairWhenTheyCompleteTheSector) {
  auto piece = [](uint64_t first_byte, int lanes) {
    WarpAccess w = store(first_byte, 2, 2);
    w.mask = (uint32_t(1) << lanes) - 1;
    return w;
  };
  PartialPieces own;
  own.add(piece(0, 12), 0);
  own.add(piece(24, 4), 0);
  EXPECT_DOUBLE_EQ(own.next_store_pair_share(), 1.0);

  PartialPieces other;
  other.add(piece(0, 12), 0);
  other.add(piece(24, 4), 1);
  EXPECT_DOUBLE_EQ(other.next_store_pair_share(), 0.0);

  PartialPieces between;
  between.add(piece(0, 12), 0);
  between.add(piece(4096, 12), 0);
  between.add(piece(24, 4), 0);
  EXPECT_DOUBLE_EQ(between.next_store_pair_share(), 0.0);

  PartialPieces short_of_it;
  short_of_it.add(piece(0, 8), 0);   // bytes 0-15
  short_of_it.add(piece(24, 4), 0);  // bytes 24-31: 16-23 still missing
  EXPECT_DOUBLE_EQ(short_of_it.next_store_pair_share(), 0.0);

  // 24 bytes, then 8 completing them and 16 of the next sector, then that sector's other 16 (a 12-wide warp
  // over three stores): 24 + 8 and 16 + 16 pair, all 64 partial bytes.
  PartialPieces chain;
  chain.add(piece(0, 12), 0);
  chain.add(piece(24, 12), 0);  // bytes 24-47: 8 into sector 0, 16 into sector 1
  chain.add(piece(48, 8), 0);   // bytes 48-63
  EXPECT_DOUBLE_EQ(chain.next_store_pair_share(), 1.0);
}

// 16-byte lanes 32 bytes apart: lane i writes the first half of sector i, 4 sectors a line: 8 lines, one
// piece each; the second halves (base 16), from another warp, are their second pieces.
TEST(PartialPieces, HalfSectorsAreAPieceEach) {
  PartialPieces p;
  p.add(store(0, 32, 16), 0);
  EXPECT_EQ(p.lines_from_two_or_more_warps(), 0);
  p.add(store(16, 32, 16), 1);
  EXPECT_EQ(p.lines_from_two_or_more_warps(), 8);
}

PartialSectorLines suite_sectors(const char* kernel, const char* dtype, Size2 block) {
  const LaunchConfig cfg = test::suite_launch_1024(kernel, dtype, block);
  return partial_lines_of_block(cfg, cfg.blocks() / 2).from_warps;
}
double suite_lines(const char* kernel, const char* dtype, Size2 block) {
  return total_lines(suite_sectors(kernel, dtype, block));
}
// Only index `warps` holds lines, `lines` of them.
PartialSectorLines at(int warps, double lines) {
  PartialSectorLines s{};
  s[warps] = lines;
  return s;
}

int64_t suite_lines_completed_by_one_warp(const char* kernel, const char* dtype, Size2 block) {
  const LaunchConfig cfg = test::suite_launch_1024(kernel, dtype, block);
  return partial_lines_of_block(cfg, cfg.blocks() / 2).completed_by_one_warp;
}

// naive f32, 8x32 block (tile 8x32): output rows x (8 of them), each a whole 128-byte line of 32 y, written by
// the 8 warps (4 y each: a 16-byte piece): 8 lines. vec4 f32 8x32 (tile 32x32): 32 output rows, each line in 8
// pieces of 16 bytes, one from each warp (4 y each): 32. naive f32 32x8 (tile 32x32): 32 rows, each line in 32
// pieces of 4 bytes (8 warps x 4 steps, a load between steps): held open over 4 rounds and completed by the
// block, so counted as held open (RoundsALineStaysOpen below), not here: 0. copy f16 8x32 (tile 8x32): each of its 32 rows gets 8 x 2 = 16
// bytes from one warp, the rest of the line from the next blocks: 0. coalesced f32 32x8 writes whole sectors:
// 0. vec4_shared f16 8x32 (tile 32x32) drains its tile with thread (tx, ty) writing output row ty, columns
// tx + 8j (j = 0..3): each 64-byte row (f16) by one warp in 4 pieces: 0. reg4x4 f64 16x16 (tile 64x64):
// thread (tx, ty) stores its quad's column tx as output row 4tx + j, columns 4ty .. 4ty + 3, 32 bytes as two
// 16-byte halves of a sector; a row's 64 elements are 4 lines, each of 16 elements from 4 ty, that is from 2
// warps (2 ty a warp): 256 lines, each weighted 2 / 8: 64. With a 32x8 block (tile 128x32) a row's 32
// elements are 2 lines of 4 ty each, one ty a warp: 256 lines from 4 warps each: 128.
// By sectors and the warps writing each: naive f32 8x32's 16-byte pieces put 2 warps' pieces in each sector
// (4 y a warp, 8 y a sector), all 4 sectors of its 8 lines: 8 at index 2; vec4 f32 8x32 the same in 32
// lines; reg4x4 f64 writes each sector whole from one thread: index 1. Two whose
// blocks write only part of each line: vec4 f32 32x8 (tile 128x8) writes output rows 4tx + k, columns 8 by ..
// 8 by + 7, one sector of each of 128 lines, 4 bytes from each of the 8 warps (warp = ty): 128 x 1/4 = 32
// at index 8. naive f16 32x8 (tile 32x32) writes 32 elements (64 bytes, 2 of the 4 sectors of a line) of 32
// rows, elements ty + 8j, a step j each: it completes its two sectors over 4 rounds, so they are held open
// over rounds (SuiteLinesOpenAtOnce below), not counted here: 0.
TEST(PartialPieces, SuiteKernelsByHand) {
  EXPECT_EQ(suite_sectors("naive", "f32", {8, 32}), at(2, 8));
  EXPECT_EQ(suite_sectors("vec4", "f32", {8, 32}), at(2, 32));
  EXPECT_EQ(suite_sectors("naive", "f32", {32, 8}), PartialSectorLines{});  // held open over rounds: below
  EXPECT_EQ(suite_sectors("reg4x4", "f64", {16, 16}), at(1, 64));
  EXPECT_EQ(suite_sectors("vec4", "f32", {32, 8}), at(8, 32));
  EXPECT_EQ(suite_sectors("naive", "f16", {32, 8}), PartialSectorLines{});  // held open over rounds
  EXPECT_EQ(suite_lines("naive", "f32", {8, 32}), 8);
  EXPECT_EQ(suite_lines("vec4", "f32", {8, 32}), 32);
  EXPECT_EQ(suite_lines("naive", "f32", {32, 8}), 0);
  EXPECT_EQ(suite_lines("copy", "f16", {8, 32}), 0);
  EXPECT_EQ(suite_lines("coalesced", "f32", {32, 8}), 0);
  EXPECT_EQ(suite_lines("vec4_shared", "f16", {8, 32}), 0);
  EXPECT_DOUBLE_EQ(suite_lines("reg4x4", "f64", {16, 16}), 64);
  EXPECT_DOUBLE_EQ(suite_lines("reg4x4", "f64", {32, 8}), 128);
}

// reg4x4 f64 with an 8x32 block (tile 32x128): a warp's lanes are tx 0..7, ty 0..3 (4 of the block's 32 ty);
// thread (tx, ty) stores output rows 4tx + j (j = 0..3), columns 4ty .. 4ty + 3 as two 16-byte halves, one
// store after the other: the warp's 4 ty cover 16 columns = 128 bytes = one line of each of its 32 rows, and
// completes each itself: 8 warps x 32 = 256. With 16x16 (2 ty a warp) a line's 16 columns come from 2 warps:
// 0; copy f16 8x32 writes 16 bytes of each row's sector, the other half from the next block: 0.
TEST(PartialPieces, SuiteLinesCompletedByOneWarp) {
  EXPECT_EQ(suite_lines_completed_by_one_warp("reg4x4", "f64", {8, 32}), 256);
  EXPECT_EQ(suite_lines_completed_by_one_warp("reg4x4", "f64", {16, 16}), 0);
  EXPECT_EQ(suite_lines_completed_by_one_warp("copy", "f16", {8, 32}), 0);
  EXPECT_EQ(suite_lines_completed_by_one_warp("naive", "f32", {32, 8}), 0);
}

// Rounds a line stays open: a warp's round advances at a global load after a global store. Warps 0 and 1 each
// load, store 4 bytes into the 32 lines (a 128-byte stride), load, store the next 4 bytes: every line opens in
// round 0 and closes in round 1: 1. Shared accesses and a second load in a row do not start a round; a line
// one warp alone writes is not held open and does not count (warp 2's 32 other lines, over rounds 0 to 2).
TEST(PartialPieces, RoundsALineStaysOpen) {
  PartialPieces p;
  WarpAccess load = store(1 << 20, 4, 4);
  load.op = Op::Load;
  WarpAccess shared = store(0, 4, 4);
  shared.space = Space::Shared;
  EXPECT_EQ(p.mean_open_rounds(), 0.0);
  for (int warp : {0, 1}) {
    p.add(load, warp);
    p.add(store(4 * warp, 128, 4), warp);
    p.add(shared, warp);
    p.add(load, warp);
    p.add(load, warp);
    p.add(store(8 + 4 * warp, 128, 4), warp);
  }
  EXPECT_EQ(p.lines_from_two_or_more_warps(), 32);
  EXPECT_DOUBLE_EQ(p.mean_open_rounds(), 1.0);
  for (int round = 0; round < 3; ++round) {
    p.add(load, 2);
    p.add(store(4096 + 4 * round, 128, 4), 2);
  }
  EXPECT_DOUBLE_EQ(p.mean_open_rounds(), 1.0);
  // Warp 3 adds a piece to the first 32 lines two rounds later than its first piece elsewhere: those lines are
  // open from round 0 to round 2.
  p.add(load, 3);
  p.add(store(1 << 16, 4, 4), 3);
  p.add(load, 3);
  p.add(load, 3);
  p.add(store(1 << 16, 4, 4), 3);
  p.add(load, 3);
  p.add(store(16, 128, 4), 3);
  EXPECT_DOUBLE_EQ(p.mean_open_rounds(), 2.0);
}

// Held open over rounds, and how many at once: warps 0 and 1 complete 32 lines (a 128-byte stride, 4-byte
// pieces) over rounds 0..15 (16 rounds x 2 warps x 4 bytes = 128); warp 2 completes 32 others in 16-byte pieces
// over rounds 0..7 (8 x 16); warp 3 writes 4 bytes into 32 more in round 0 and round 1 and leaves their first
// sector part written, for another block to complete (a split sector). The block's rounds: 16. At once: the first
// 32 lines all 16 rounds (32), warp 2's for 8 of 16 (16, in half sectors), warp 3's for 2 of 16, each a quarter
// of its line (one sector of four): 32 x 2/16 x 1/4 = 1. Held over rounds: 96 lines; none closes in its round.
// A global load (32 lanes, 4 bytes each), which starts a warp's next round after its stores.
WarpAccess round_load() {
  WarpAccess load = store(1 << 24, 4, 4);
  load.op = Op::Load;
  return load;
}

// Warps 0 and 1 write 4 bytes of each of 32 lines (a 128-byte stride) a round, warp 0 the even words and warp 1
// the odd, over rounds 0..15: the 32 lines of bytes 0..4095, each held open over all 16 rounds.
void add_two_warps_over_16_rounds(PartialPieces& p) {
  for (int round = 0; round < 16; ++round)
    for (int warp : {0, 1}) {
      p.add(round_load(), warp);
      p.add(store(4 * (2 * round + warp), 128, 4), warp);
    }
}

TEST(PartialPieces, LinesOpenAtOnce) {
  PartialPieces p;
  const WarpAccess load = round_load();
  add_two_warps_over_16_rounds(p);
  for (int round = 0; round < 8; ++round) {
    p.add(load, 2);
    WarpAccess wide = store((1 << 16) + 16 * round, 128, 16);
    p.add(wide, 2);
  }
  for (int round = 0; round < 2; ++round) {
    p.add(load, 3);
    p.add(store((1 << 20) + 4 * round, 128, 4), 3);
  }
  const std::array<double, 2> want{33.0, 16.0};
  EXPECT_EQ(p.lines_open_at_once(), want);
  EXPECT_EQ(p.lines_held_over_rounds(), 96);
  EXPECT_EQ(p.lines_closed_in_round(), 0);
  EXPECT_EQ(total_lines(p.sectors_by_writing_warps()), 0.0);
}

// Pieces a sector of a held-open line: warps 0 and 1 write 4 bytes of each of 32 lines a round, warp 0 the even
// words and warp 1 the odd, rounds 0..15: a sector (8 words) gets 8 requests, each line held over 16 rounds. A
// warp writing 8-byte pieces of 32 other lines over rounds 0..3 (one sector each, 4 pieces): (32 x 4 x 8 + 32 x 4)
// pieces over 32 x 4 + 32 sectors = 1152 / 160 = 7.2. A line a store writes in one round, not held, adds nothing.
TEST(PartialPieces, PiecesPerHeldSector) {
  PartialPieces p;
  EXPECT_EQ(p.pieces_per_held_sector(), 0.0);
  const WarpAccess load = round_load();
  add_two_warps_over_16_rounds(p);
  EXPECT_DOUBLE_EQ(p.pieces_per_held_sector(), 8.0);
  for (int round = 0; round < 4; ++round) {
    p.add(load, 2);
    p.add(store((1 << 16) + 8 * round, 128, 8), 2);
  }
  p.add(load, 3);
  p.add(store(1 << 20, 128, 4), 3);
  EXPECT_DOUBLE_EQ(p.pieces_per_held_sector(), (32 * 4 * 8 + 32 * 4) / 160.0);
}

// naive at 128 rows a block (f32 32x2 on a 128x128 tile): a sector of a row (8 y) gets one 4-byte piece a y, from
// the block's two warps in turn: 8. f64 32x2: 4 y a sector, 8-byte pieces: 4. f16 32x2: 16.
TEST(PartialPieces, SuitePiecesPerHeldSector) {
  auto pieces = [](const char* dtype) {
    UserConfig u;
    u.kernel = "naive";
    u.matrix = {1024, 1024};
    u.block = {32, 2};
    u.tile = Size2{128, 128};
    u.dtype = parse_dtype(dtype);
    const LaunchConfig cfg = resolve_launch(u);
    return partial_lines_of_block(cfg, cfg.blocks() / 2).pieces_per_held_sector;
  };
  EXPECT_DOUBLE_EQ(pieces("f32"), 8.0);
  EXPECT_DOUBLE_EQ(pieces("f64"), 4.0);
  EXPECT_DOUBLE_EQ(pieces("f16"), 16.0);
}

// A line counts with the half sectors ([1]) only if every piece is 16 bytes or more: sector 0 of 32 lines (a
// quarter of each) written in 16-byte halves over rounds 0 and 1 is 32 x 2/2 x 1/4 = 8 at once in [1]; a 16-byte
// half and then two 8-byte quarters over rounds 0..2 is 8 in [0] (a line mixing pieces holds the small ones open).
TEST(PartialPieces, ALineWithASmallPieceCountsWithTheSmallPieces) {
  WarpAccess load = store(1 << 24, 4, 4);
  load.op = Op::Load;
  PartialPieces halves;
  halves.add(store(0, 128, 16), 0);
  halves.add(load, 0);
  halves.add(store(16, 128, 16), 0);
  EXPECT_EQ(halves.lines_open_at_once(), (std::array<double, 2>{0.0, 8.0}));
  PartialPieces mixed;
  mixed.add(store(0, 128, 16), 0);
  mixed.add(load, 0);
  mixed.add(store(16, 128, 8), 0);
  mixed.add(load, 0);
  mixed.add(store(24, 128, 8), 0);
  EXPECT_EQ(mixed.lines_open_at_once(), (std::array<double, 2>{8.0, 0.0}));
}

// The suite's naive, by its index math: f64 32x2 (tile 32x32): a block's 32 output rows get 2 lines each (32 y,
// 16 a line), each written 2 y a round (8-byte pieces) over 8 of the block's 16 rounds: 64 lines, 64 x 8 / 16 =
// 32 at once. f64 16x4 (tile 16x16): 16 rows, one line each, 2 y a warp (a 16-byte piece) over the 4 rounds: 16
// in half sectors. f32 16x4 (tile 16x16): 16 y of a 32-y line (2 of its 4 sectors; the rest from the block
// below), 4 y a round in 8-byte pieces: the block completes its sectors over all 4 rounds, 16 lines x 1/2 of
// their sectors = 8. f16 16x4: 16 y of a 64-y line (1 sector of 4), 4-byte pieces: 16 x 1/4 = 4. f16 32x8
// (tile 32x32): 32 rows, 32 y of a 64-y line (2 sectors of 4) over the block's 4 rounds, 2-byte pieces: 32 x
// 2/4 = 16. f64 32x16: 16 y a round, closed in it: none.
TEST(PartialPieces, SuiteLinesOpenAtOnce) {
  auto at_once = [](const char* dtype, Size2 block) {
    const LaunchConfig cfg = test::suite_launch_1024("naive", dtype, block);
    return partial_lines_of_block(cfg, cfg.blocks() / 2).lines_open_at_once;
  };
  EXPECT_EQ(at_once("f64", {32, 2}), (std::array<double, 2>{32.0, 0.0}));
  EXPECT_EQ(at_once("f64", {16, 4}), (std::array<double, 2>{0.0, 16.0}));
  EXPECT_EQ(at_once("f32", {16, 4}), (std::array<double, 2>{8.0, 0.0}));
  EXPECT_EQ(at_once("f16", {16, 4}), (std::array<double, 2>{4.0, 0.0}));
  EXPECT_EQ(at_once("f16", {32, 8}), (std::array<double, 2>{16.0, 0.0}));
  EXPECT_EQ(at_once("f64", {32, 16}), (std::array<double, 2>{0.0, 0.0}));
  // f64 24x4 (tile 24x24, 3 warps, each across two rows): a row's 24 y are a whole line over 4 of the block's 6
  // rounds and half a line (2 of 4 sectors) over the other 2: 24 x (4/6 + 2/6 x 1/2) = 20; the warps write 16-byte
  // pieces where their two rows meet and 8-byte ones elsewhere, so the lines count with the 8-byte pieces ([0]).
  UserConfig u;
  u.kernel = "naive";
  u.matrix = {1152, 1152};
  u.block = {24, 4};
  u.tile = Size2{24, 24};
  u.dtype = Dtype::F64;
  const LaunchConfig cfg = resolve_launch(u);
  EXPECT_EQ(partial_lines_of_block(cfg, cfg.blocks() / 2).lines_open_at_once, (std::array<double, 2>{20.0, 0.0}));
  // f32 32x2 on a 32x4 tile (1024x1024: the middle block is grid column 0, grid row 128): a row's 4 y, 512..515,
  // are the first 16 bytes of a sector whose other half the block a grid row on writes (a split sector), 2 y a
  // round (4-byte pieces from 2 warps) over both of the block's rounds. Its 32 lines are held open over those
  // rounds though it leaves a sector of each half written: 32 x 2/2 x 1/4 of their sectors = 8; none closes in
  // its round.
  u.block = {32, 2};
  u.tile = Size2{32, 4};
  u.matrix = {1024, 1024};
  u.dtype = Dtype::F32;
  const LaunchConfig split = resolve_launch(u);
  const PartialLines lines = partial_lines_of_block(split, split.blocks() / 2);
  EXPECT_EQ(lines.lines_open_at_once, (std::array<double, 2>{8.0, 0.0}));
  EXPECT_EQ(lines.lines_held_over_rounds, 32);
  EXPECT_EQ(lines.lines_closed_in_round, 0);
  EXPECT_EQ(lines.sectors_left_partial.size(), 32u);
}

// Whole sectors over rounds: warp 0 writes sector r of 8 lines in round r (lanes 4i..4i+3: line i, 8 bytes each,
// so 32 bytes a line, a whole sector), rounds 0..3: each line open all 4 of the block's 4 rounds with all 4 of
// its sectors, 8 x 4/4 x 4/4 = 8. Warp 1 writes 4 more lines whole in one store (round 0: not held open), and
// rounds 0 and 2 of warp 2 write sector 0 and then sector 2 of 8 others, open 3 of 4 rounds with half their
// sectors: 8 x 3/4 x 2/4 = 3. A line with a partial piece as well (warp 3's 4 bytes into warp 0's first line
// in round 0) leaves the count: 7 x 1 + 3 = 10. None of them is a partly written line held open.
TEST(PartialPieces, WholeLinesOpenAtOnce) {
  WarpAccess load = store(1 << 24, 4, 4);
  load.op = Op::Load;
  const auto sectors = [](uint64_t base, int sector) {
    WarpAccess w = store(0, 0, 8);
    for (int lane = 0; lane < 32; ++lane) w.addr[lane] = base + 128 * uint64_t(lane / 4) + 32 * sector + 8 * (lane % 4);
    return w;
  };
  PartialPieces p;
  for (int round = 0; round < 4; ++round) {
    p.add(load, 0);
    p.add(sectors(0, round), 0);
  }
  EXPECT_DOUBLE_EQ(p.whole_lines_open_at_once(), 8.0);
  p.add(load, 1);
  p.add(store(1 << 16, 16, 16), 1);  // 32 lanes x 16 bytes: 4 lines, whole, in one store
  p.add(load, 2);
  p.add(sectors(1 << 18, 0), 2);
  p.add(load, 2);
  p.add(store(1 << 22, 4, 4), 2);  // round 1: elsewhere (128 bytes, a line whole)
  p.add(load, 2);
  p.add(sectors(1 << 18, 2), 2);
  EXPECT_DOUBLE_EQ(p.whole_lines_open_at_once(), 8.0 + 3.0);
  p.add(load, 3);
  WarpAccess piece = store(4, 128, 4);
  piece.mask = 1;  // lane 0 alone: 4 bytes into sector 0 of line 0 (bytes written before: a partial piece)
  p.add(piece, 3);
  EXPECT_DOUBLE_EQ(p.whole_lines_open_at_once(), 7.0 + 3.0);
  EXPECT_EQ(p.lines_open_at_once(), (std::array<double, 2>{0.0, 0.0}));
  // Every sector so far is written without its 64-byte partner in the same round (warp 0's one a round; warp
  // 2's sectors 0 and 2, partners 1 and 3 never written): all lone. Warp 4 writes 4 lines in 64-byte pieces
  // (lanes 8i..8i+7: line i), sectors 0 and 1 in round 0, 2 and 3 in round 1: each line open 2 of the block's
  // 4 rounds, 4 x 2/4 = 2 whole, none lone.
  EXPECT_DOUBLE_EQ(p.lone_sector_lines_open_at_once(), 7.0 + 3.0);
  const auto halves = [](uint64_t base, int half) {
    WarpAccess w = store(0, 0, 8);
    for (int lane = 0; lane < 32; ++lane) w.addr[lane] = base + 128 * uint64_t(lane / 8) + 64 * half + 8 * (lane % 8);
    return w;
  };
  for (int half = 0; half < 2; ++half) {
    p.add(load, 4);
    p.add(halves(1 << 21, half), 4);
  }
  EXPECT_DOUBLE_EQ(p.whole_lines_open_at_once(), 7.0 + 3.0 + 2.0);
  EXPECT_DOUBLE_EQ(p.lone_sector_lines_open_at_once(), 7.0 + 3.0);
  // The sectors, each once: warp 0's 7 lines x 4, warp 2's 8 x 2 (lone), warp 4's 4 x 4 (pairs).
  EXPECT_EQ(p.whole_sectors_held_over_rounds(), 28 + 16 + 16);
  EXPECT_EQ(p.lone_sectors_held_over_rounds(), 28 + 16);
  // The most rounds between a line's pieces, by its sectors: warp 0's lines 1 (28 sectors), warp 2's 2 (16),
  // warp 4's 1 (16).
  EXPECT_DOUBLE_EQ(p.whole_line_rounds_apart(), (28 * 1 + 16 * 2 + 16 * 1) / 60.0);
}

// naive f64 8x4 on a 16x16 tile: one warp (8 x by 4 y), whose store writes 4 y of 8 bytes, a whole sector, into
// each of 8 output rows. The walk steps along x inside y (kernels/launch_shape.hpp: the column walk is the inner
// loop): rounds (y step i, x step j) = 2i + j, 8 in all. Each of the 16 rows' 16 y is one line (128 bytes) that
// gets a sector in rounds j, j + 2, j + 4, j + 6: open 7 of 8 rounds: 16 x 7/8 = 14, each sector apart from its
// 64-byte partner (lone: 14 too). At 8x16 the block's 4 warps
// write all 16 y of a row in one step: no line open over rounds.
TEST(PartialPieces, SuiteWholeLinesOpenAtOnce) {
  const auto whole = [](Size2 block) {
    UserConfig u;
    u.kernel = "naive";
    u.dtype = Dtype::F64;
    u.matrix = {1024, 1024};
    u.block = block;
    u.tile = Size2{16, 16};
    const LaunchConfig cfg = resolve_launch(u);
    return partial_lines_of_block(cfg, cfg.blocks() / 2).whole_lines_open_at_once;
  };
  EXPECT_DOUBLE_EQ(whole({8, 4}), 14.0);
  EXPECT_DOUBLE_EQ(whole({8, 16}), 0.0);
  // Each of the 8x4 block's sectors comes in a step of its own, its partner in another: all lone.
  UserConfig u;
  u.kernel = "naive";
  u.dtype = Dtype::F64;
  u.matrix = {1024, 1024};
  u.block = {8, 4};
  u.tile = Size2{16, 16};
  const LaunchConfig cfg = resolve_launch(u);
  const PartialLines lines = partial_lines_of_block(cfg, cfg.blocks() / 2);
  EXPECT_DOUBLE_EQ(lines.lone_sector_lines_open_at_once, 14.0);
  EXPECT_DOUBLE_EQ(lines.whole_line_rounds_apart, 2.0);  // a sector every 2 rounds (the tile's 2 x steps)
}

// The partial pieces of the middle block of naive at 1024x1024 in this dtype, block and tile.
PartialLines naive_middle_block(Dtype dtype, Size2 block, Size2 tile) {
  UserConfig u;
  u.kernel = "naive";
  u.dtype = dtype;
  u.matrix = {1024, 1024};
  u.block = block;
  u.tile = tile;
  const LaunchConfig cfg = resolve_launch(u);
  return partial_lines_of_block(cfg, cfg.blocks() / 2);
}

// The suite's naive, by its index math (a warp is BX x-lanes by 32 / BX rows of the block; lane (tx, ty) stores
// out[x][y]): f32 8x16 on a 16x16 tile: a warp writes 4 consecutive y (16 bytes, half a sector) of 8 output
// rows, the warp of the next 4 rows the other half: each of the block's 16 rows x 2 sectors comes from 2 warps,
// 32. f64 32x2 (tile 32x32): 32 rows x 8 sectors of 4 y, 2 y a step from the block's 2 warps (one y each): 256.
// f64 8x32 (tile 32x32): a warp writes 4 y of 8 bytes, a whole sector: none partial, 0. f32 32x2 on a 32x4 tile:
// each of 32 rows gets 4 y (half a sector, the other half the next block's) from both warps: 32, though split.
TEST(PartialPieces, SuiteSectorsFromWarps) {
  auto from_warps = [](const char* dtype, Size2 block, Size2 tile) {
    return naive_middle_block(parse_dtype(dtype), block, tile).sectors_from_warps;
  };
  EXPECT_EQ(from_warps("f32", {8, 16}, {16, 16}), 32);
  EXPECT_EQ(from_warps("f64", {32, 2}, {32, 32}), 256);
  EXPECT_EQ(from_warps("f64", {8, 32}, {32, 32}), 0);
  EXPECT_EQ(from_warps("f32", {32, 2}, {32, 4}), 32);
}

// Of the sectors from two warps or more, those of lines the block writes whole in one round. Hand-made warps:
// warp w (0..3) writes bytes 8w..8w+7 of sector s of 32 lines in its store s (lane i in line i, 8 bytes at
// 128 i + 32 s + 8 w). After its 4 stores each, with no load between, every sector of the 32 lines is whole,
// from 4 warps, in round 0: 32 lines x 4 sectors = 128.
TEST(PartialPieces, SectorsOfLinesWholeInOneRound) {
  auto fill = [](PartialPieces& p, int warps_first, bool load_between) {
    for (int w = 0; w < 4; ++w) {
      if (load_between && w >= 2) {
        // Warps 2 and 3 store a whole line elsewhere, then load: their pieces come a round later (a naive step).
        p.add(store(uint64_t(1) << 24, 4, 4), w);
        p.add(test::lanes_at(Space::Global, Op::Load, uint64_t(1) << 20, 4, 4), w);
      }
      for (int s = 0; s < warps_first; ++s) p.add(store(uint64_t(32 * s + 8 * w), 128, 8), w);
    }
  };
  PartialPieces whole;
  fill(whole, 4, false);
  EXPECT_EQ(whole.sectors_from_warps(), 128);
  EXPECT_EQ(whole.sectors_from_warps_in_one_round(), 128);
  // Warps 2 and 3 a round later: the lines are held over rounds, none counts.
  PartialPieces later;
  fill(later, 4, true);
  EXPECT_EQ(later.sectors_from_warps(), 128);
  EXPECT_EQ(later.sectors_from_warps_in_one_round(), 0);
  // Only sectors 0 and 1 of each line written (the rest for another block): not whole, none counts.
  PartialPieces half;
  fill(half, 2, false);
  EXPECT_EQ(half.sectors_from_warps(), 64);
  EXPECT_EQ(half.sectors_from_warps_in_one_round(), 0);
}

// naive f32 (1024x1024): a block BX wide and BY tall writes BX output rows x, each BY consecutive y a step.
// 16x32 (tile 16x32): each row's 32 y (a 128-byte line, 32-aligned) in its one step, 4 sectors each from 4
// warps (a warp holds 2 rows of y: 8-byte pieces): 16 x 4 = 64 sectors, all of lines whole in one round.
// 16x16 (tile 32x32): 32 rows x 4 sectors = 128, but each line's y 0..15 and 16..31 come a step apart: 0.
// 8x16 (tile 16x16): 16 rows, each half a line (16 y), the other half from another block: 16 x 2 sectors from
// 2 warps each = 32, none of a line written whole. f64 16x16 (tile 16x16): 16 y = one 128-byte line a row, in
// one step, 16 rows x 4 sectors (a warp's 2 rows: 16-byte pieces, 2 warps a sector) = 64, all counted.
TEST(PartialPieces, SuiteSectorsOfLinesWholeInOneRound) {
  auto counts = [](const char* dtype, Size2 block, Size2 tile) {
    const PartialLines p = naive_middle_block(parse_dtype(dtype), block, tile);
    return std::array<int64_t, 2>{p.sectors_from_warps, p.sectors_from_warps_in_one_round};
  };
  EXPECT_EQ(counts("f32", {16, 32}, {16, 32}), (std::array<int64_t, 2>{64, 64}));
  EXPECT_EQ(counts("f32", {16, 16}, {32, 32}), (std::array<int64_t, 2>{128, 0}));
  EXPECT_EQ(counts("f32", {8, 16}, {16, 16}), (std::array<int64_t, 2>{32, 0}));
  EXPECT_EQ(counts("f64", {16, 16}, {16, 16}), (std::array<int64_t, 2>{64, 64}));
}

// naive's loop takes a load then a store a step: a line of output row x holds 128 / E consecutive y, its
// block writes BY of them a step, so it is open 128 / (E BY) steps (rounds 0 .. 128 / (E BY) - 1) where the
// tile holds the whole line. f64 32x2 (tile 32x32): 16 y a line, 2 a step: 7. f32 32x8: 32 y, 8 a step: 3.
// f64 32x16: 16 y in one step: 0. f16 32x8 (tile 32x32, 64 y a line): the block's 32 y of the line in 4 steps: 3.
TEST(PartialPieces, SuiteRoundsOpen) {
  auto rounds = [](const char* kernel, const char* dtype, Size2 block) {
    const LaunchConfig cfg = test::suite_launch_1024(kernel, dtype, block);
    return partial_lines_of_block(cfg, cfg.blocks() / 2).mean_open_rounds;
  };
  EXPECT_DOUBLE_EQ(rounds("naive", "f64", {32, 2}), 7.0);
  EXPECT_DOUBLE_EQ(rounds("naive", "f32", {32, 8}), 3.0);
  EXPECT_DOUBLE_EQ(rounds("naive", "f64", {32, 16}), 0.0);
  EXPECT_DOUBLE_EQ(rounds("naive", "f16", {32, 8}), 3.0);
  EXPECT_DOUBLE_EQ(rounds("coalesced", "f32", {32, 8}), 0.0);
}

// The rounds the lines closed in their round open in. By hand: warps 0 and 1 write 4 bytes each of sector 0 of
// 32 lines (round 0), load, then the same for 32 other lines (round 1): 2 rounds, 64 lines. naive (tile 32x32)
// closes a line in its step where the block's BY rows hold all of a line's y (128 / E): f64 32x16 (16 y a line)
// over 32 / 16 = 2 steps, f64 32x32 in its one step; f32 32x8 holds its lines over rounds (none closed in one:
// 0), and coalesced writes whole lines (0).
TEST(PartialPieces, RoundsOfLinesClosedInTheirRound) {
  PartialPieces p;
  p.add(store(0, 128, 4), 0);
  p.add(store(4, 128, 4), 1);
  EXPECT_EQ(p.rounds_of_lines_closed_in_round(), 1);
  for (int warp : {0, 1}) p.add(test::lanes_at(Space::Global, Op::Load, 1 << 20, 4, 4), warp);
  p.add(store(4096, 128, 4), 0);
  p.add(store(4100, 128, 4), 1);
  EXPECT_EQ(p.rounds_of_lines_closed_in_round(), 2);
  EXPECT_EQ(p.lines_closed_in_round(), 64);
  auto rounds = [](const char* kernel, const char* dtype, Size2 block) {
    const LaunchConfig cfg = test::suite_launch_1024(kernel, dtype, block);
    return partial_lines_of_block(cfg, cfg.blocks() / 2).closed_line_rounds;
  };
  EXPECT_EQ(rounds("naive", "f64", {32, 16}), 2);
  EXPECT_EQ(rounds("naive", "f64", {32, 32}), 1);
  EXPECT_EQ(rounds("naive", "f32", {32, 8}), 0);
  EXPECT_EQ(rounds("coalesced", "f32", {32, 8}), 0);
}

// Sectors a block leaves partly written for another block: 16 bytes of sector 0 from 4 lanes of 4 bytes leave
// it half written; the other 16 bytes from another warp of the same block complete it.
TEST(PartialPieces, SectorsLeftPartlyWritten) {
  PartialPieces p;
  WarpAccess w = store(0, 4, 4);
  w.mask = 0xFu;  // lanes 0-3: bytes [0, 16)
  p.add(w, 0);
  EXPECT_EQ(p.sectors_left_partial(), 1);
  WarpAccess rest = store(16, 4, 4);
  rest.mask = 0xFu;  // bytes [16, 32)
  p.add(rest, 1);
  EXPECT_EQ(p.sectors_left_partial(), 0);
}

// The sectors a block writes whole beside those it leaves split, in the lines holding the latter. Bytes [0, 112)
// of line 0 by 28 lanes of 4 bytes: sectors 0-2 whole, sector 3 half (bytes 96-112): one split sector beside 3
// whole ones, 3 / 4. The first halves of all 4 sectors of line 1 (16 lanes, 16 bytes each in every sector):
// 4 split, none whole; with line 0, 3 / 8. A line the block writes whole does not count; none split: 0. The lines
// by the block's share of their bytes: 112 / 128 of line 0, then 64 / 128 of line 1 more: 0.875, 1.375.
// split_line_sectors' sectors whole and written, as one pair.
std::array<int64_t, 2> whole_and_written(const PartialPieces& p) {
  const PartialPieces::SplitLineSectors s = p.split_line_sectors();
  return {s.whole, s.written};
}

TEST(PartialPieces, WholeSectorsBesideSplitOnes) {
  PartialPieces p;
  EXPECT_EQ(whole_and_written(p), (std::array<int64_t, 2>{0, 0}));
  EXPECT_DOUBLE_EQ(p.split_line_sectors().share, 0.0);
  EXPECT_EQ(p.split_lane_bytes(), 0);
  WarpAccess first = store(0, 4, 4);
  first.mask = 0x0FFFFFFFu;  // lanes 0-27: bytes [0, 112)
  p.add(first, 0);
  EXPECT_EQ(p.sectors_left_partial(), 1);
  EXPECT_EQ(whole_and_written(p), (std::array<int64_t, 2>{3, 4}));
  EXPECT_DOUBLE_EQ(p.split_line_sectors().share, 0.875);
  EXPECT_EQ(p.split_lane_bytes(), 4);
  WarpAccess halves = store(128, 4, 4);
  for (int lane = 0; lane < 32; ++lane) halves.addr[lane] = 128 + uint64_t(lane / 4) * 32 % 128 + lane % 4 * 4;
  halves.mask = 0xFFFFu;  // lanes 0-15: bytes 0-15 of each of line 1's 4 sectors
  p.add(halves, 1);
  EXPECT_EQ(p.sectors_left_partial(), 5);
  EXPECT_EQ(whole_and_written(p), (std::array<int64_t, 2>{3, 8}));
  EXPECT_DOUBLE_EQ(p.split_line_sectors().share, 1.375);
  p.add(store(256, 4, 4), 2);  // line 2 whole: not a line holding a split sector
  EXPECT_EQ(whole_and_written(p), (std::array<int64_t, 2>{3, 8}));
  EXPECT_DOUBLE_EQ(p.split_line_sectors().share, 1.375);
}

// The suite at 1024x1024 by hand: vec4_shared f16 32x8 (tile 128x8) writes 8 halves of each of 128 output rows'
// sectors, 16 bytes of 32, the other 8 halves from the block a grid row down: 128 sectors a block. copy f16
// 8x32 writes 8 halves (16 bytes) of each of its 32 rows, the other half from the next block: 32. copy f16
// 32x8 and padded f32 32x8 write whole sectors: none.
TEST(PartialPieces, SuiteSectorsLeftForAnotherBlock) {
  auto left = [](const char* kernel, const char* dtype, Size2 block) {
    const LaunchConfig cfg = test::suite_launch_1024(kernel, dtype, block);
    return int64_t(partial_lines_of_block(cfg, cfg.blocks() / 2).sectors_left_partial.size());
  };
  EXPECT_EQ(left("vec4_shared", "f16", {32, 8}), 128);
  EXPECT_EQ(left("copy", "f16", {8, 32}), 32);
  EXPECT_EQ(left("copy", "f16", {32, 8}), 0);
  EXPECT_EQ(left("padded", "f32", {32, 8}), 0);
}

// Those kernels' lines hold split sectors alone: vec4_shared f16 32x8 writes 16 bytes (8 lanes of 2) of each
// line, copy f16 8x32 16 bytes (8 lanes of 2) of each row's line: no sector written whole there, 2-byte lanes.
TEST(PartialPieces, SuiteSplitLinesHoldNoWholeSector) {
  for (auto [kernel, block] : {std::pair{"vec4_shared", Size2{32, 8}}, std::pair{"copy", Size2{8, 32}}}) {
    SCOPED_TRACE(kernel);
    const LaunchConfig cfg = test::suite_launch_1024(kernel, "f16", block);
    const PartialLines p = partial_lines_of_block(cfg, cfg.blocks() / 2);
    EXPECT_EQ(p.split_line_whole_sectors[0], 0);
    EXPECT_EQ(p.split_lane_bytes, 2);
  }
}

// How far apart the writers of those sectors are, at 1024x1024: vec4_shared f16 32x8's other halves come from
// the block a grid row down, 1024 / 128 = 8 blocks later in launch order: log2 8 = 3 for every sector; copy f16
// 8x32's from the next block in its grid row: log2 1 = 0; none left, none to measure: 0. With the search held
// to 4 blocks, vec4_shared's are all out of reach and count at 4: 2.
TEST(PartialPieces, SuiteSplitSectorDistance) {
  auto distance = [](const char* kernel, const char* dtype, Size2 block, int64_t reach = 4096) {
    const LaunchConfig cfg = test::suite_launch_1024(kernel, dtype, block);
    return split_log2_distance(cfg, cfg.blocks() / 2, {}, reach);
  };
  EXPECT_DOUBLE_EQ(distance("vec4_shared", "f16", {32, 8}), 3.0);
  EXPECT_DOUBLE_EQ(distance("copy", "f16", {8, 32}), 0.0);
  EXPECT_DOUBLE_EQ(distance("copy", "f16", {32, 8}), 0.0);
  EXPECT_DOUBLE_EQ(distance("vec4_shared", "f16", {32, 8}, 4), 2.0);
}

// The lines holding them, from the whole replay: copy f16 8x32 at 1024x1024 writes 16 bytes of each of its 32
// rows' lines and leaves that half sector to the next block: 32 split sectors in 32 lines a block, each line
// counted by the block's 16 of its 128 bytes: 32 x 0.125 = 4 lines. copy f32 8x32 writes 32 bytes a row, whole
// sectors: none.
TEST(PartialPieces, SplitLinesCountTheLinesHoldingSplitSectors) {
  const ReplayResult half = replay(test::suite_launch_1024("copy", "f16", {8, 32}));
  EXPECT_EQ(half.split_sectors_per_block, 32);
  EXPECT_DOUBLE_EQ(half.split_line_share_per_block, 4.0);
  const ReplayResult whole = replay(test::suite_launch_1024("copy", "f32", {8, 32}));
  EXPECT_EQ(whole.split_sectors_per_block, 0);
  EXPECT_DOUBLE_EQ(whole.split_line_share_per_block, 0.0);
}

}  // namespace
}  // namespace memsim
