// The order in which resident blocks reach DRAM (sim/dram_order.hpp): the share out of order for a number of
// streams, hand-made blocks whose runs are worked out in the comments, the window sampling, then suite kernels
// whose two sides have a closed form.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "kernels/resolve.hpp"
#include "sim/dram_order.hpp"

namespace memsim {
namespace {

constexpr uint64_t kKiB = 1024, kMiB = 1024 * kKiB;

// log2(streams / 2) / log2(32): 0 up to 2 streams, 1/5 a doubling, 1 from 64.
TEST(DramOrder, ShareOutOfOrderGrowsWithTheLogOfTheStreams) {
  EXPECT_DOUBLE_EQ(scattered_share(1), 0.0);
  EXPECT_DOUBLE_EQ(scattered_share(2), 0.0);
  EXPECT_DOUBLE_EQ(scattered_share(4), 0.2);
  EXPECT_DOUBLE_EQ(scattered_share(8), 0.4);
  EXPECT_DOUBLE_EQ(scattered_share(32), 0.8);
  EXPECT_DOUBLE_EQ(scattered_share(64), 1.0);
  EXPECT_DOUBLE_EQ(scattered_share(65536), 1.0);
}

// Block b loads [64 KiB b, 64 KiB (b + 1)) and stores 64 KiB at 16 MiB (b % m) + 64 KiB (b / m).
BlockAccesses interleaved(uint64_t m) {
  return [m](int64_t first, int64_t last, const EmitAccess& emit) {
    for (int64_t b = first; b < last; ++b) {
      emit(Op::Load, uint64_t(b) * 64 * kKiB, int(64 * kKiB));
      emit(Op::Store, (uint64_t(b) % m) * 16 * kMiB + (uint64_t(b) / m) * 64 * kKiB, int(64 * kKiB));
    }
  };
}

// 8 blocks a window, m = 8: each window loads one run of 512 KiB (1 stream: in order) and stores 8 runs of
// 64 KiB, one in each 16 MiB region (8 streams: 0.4 out of order). 4 windows of 8 blocks, all sampled.
TEST(DramOrder, EightRunsAreEightStreams) {
  const WindowOrder o = window_order(32, 8, 8, interleaved(8));
  EXPECT_EQ(o.windows_sampled, 4);
  EXPECT_DOUBLE_EQ(o.bytes[0], 4 * 512.0 * kKiB);
  EXPECT_DOUBLE_EQ(o.streams(0), 1.0);
  EXPECT_DOUBLE_EQ(o.scattered(0), 0.0);
  EXPECT_DOUBLE_EQ(o.bytes[1], 4 * 512.0 * kKiB);
  EXPECT_DOUBLE_EQ(o.streams(1), 8.0);
  EXPECT_DOUBLE_EQ(o.scattered(1), 0.4);
  // One window of all 32 blocks: the stores are 8 runs of 256 KiB: still 8 streams.
  const WindowOrder all = window_order(32, 32, 8, interleaved(8));
  EXPECT_DOUBLE_EQ(all.streams(1), 8.0);
  // m = 64 with 64 blocks a window: 64 runs, wholly out of order.
  const WindowOrder wide = window_order(64, 64, 1, interleaved(64));
  EXPECT_DOUBLE_EQ(wide.streams(1), 64.0);
  EXPECT_DOUBLE_EQ(wide.scattered(1), 1.0);
}

// Runs of 3 MiB and 1 MiB: (4 MiB)^2 / ((3 MiB)^2 + (1 MiB)^2) = 16 / 10 streams, below 2: in order. A line
// counts once however often the window touches it (block 0 loads its first MiB twice).
TEST(DramOrder, OneLongRunWithAShortOneIsInOrder) {
  const WindowOrder o = window_order(2, 2, 1, [](int64_t first, int64_t last, const EmitAccess& emit) {
    for (int64_t b = first; b < last; ++b) {
      if (b == 0) emit(Op::Load, 0, int(kMiB)), emit(Op::Load, 0, int(3 * kMiB));
      else emit(Op::Load, 8 * kMiB, int(kMiB));
    }
  });
  EXPECT_DOUBLE_EQ(o.bytes[0], 4.0 * kMiB);
  EXPECT_DOUBLE_EQ(o.streams(0), 1.6);
  EXPECT_DOUBLE_EQ(o.scattered(0), 0.0);
  EXPECT_DOUBLE_EQ(o.bytes[1], 0);  // no stores: nothing out of order
  EXPECT_DOUBLE_EQ(o.scattered(1), 0.0);
}

// Runs are counted in 128-byte lines: bytes [240, 272) touch lines 1 and 2 (bytes 128-383), one run of 256
// bytes; [0, 32) and [96, 128) the same line 0.
TEST(DramOrder, CountsLines) {
  const WindowOrder o = window_order(1, 1, 1, [](int64_t, int64_t, const EmitAccess& emit) {
    emit(Op::Store, 240, 32);
    emit(Op::Load, 0, 32);
    emit(Op::Load, 96, 32);
  });
  EXPECT_DOUBLE_EQ(o.bytes[1], 256);
  EXPECT_DOUBLE_EQ(o.streams(1), 1.0);
  EXPECT_DOUBLE_EQ(o.bytes[0], 128);
}

// 100 blocks, 10 a window: 10 full windows, 3 sampled: the first, the last full one and one between
// (0, 4 = 9 / 2, 9).
TEST(DramOrder, SamplesSpreadWindows) {
  std::vector<int64_t> firsts;
  const WindowOrder o = window_order(100, 10, 3, [&](int64_t first, int64_t last, const EmitAccess&) {
    EXPECT_EQ(last - first, 10);
    firsts.push_back(first);
  });
  EXPECT_EQ(o.windows_sampled, 3);
  EXPECT_EQ(firsts, (std::vector<int64_t>{0, 40, 90}));
  // Fewer blocks than a window: the launch is its one window.
  firsts.clear();
  window_order(7, 10, 3, [&](int64_t first, int64_t last, const EmitAccess&) {
    EXPECT_EQ(first, 0);
    EXPECT_EQ(last, 7);
    firsts.push_back(first);
  });
  EXPECT_EQ(firsts.size(), 1u);
}

TEST(DramOrder, RefusesBadArguments) {
  const BlockAccesses none = [](int64_t, int64_t, const EmitAccess&) {};
  EXPECT_THROW(window_order(4, 0, 1, none), std::invalid_argument);
  EXPECT_THROW(window_order(4, 2, 0, none), std::invalid_argument);
}

// padded, block 32x8, tile 32x32, f32, 4096 x 4096: a grid of 128 x 128 tiles in row order. 256 blocks a
// window are two tile rows: they read input rows 64k to 64k + 63 whole, one run of 64 x 16 KiB = 1 MiB (1
// stream), and write two tile columns of every output row: 256 bytes in each of the 4096 rows of 16 KiB, 4096
// runs (wholly out of order). 64 windows, 2 sampled by default (the first and the last). copy_shared writes
// where it reads: one run on both sides. The replay's warp walk gives the lines, as the generic count does.
TEST(DramOrder, PaddedHasOneSideInOrderAndOneScattered) {
  UserConfig u;
  u.kernel = "padded";
  u.matrix = {4096, 4096};
  u.block = {32, 8};
  const WindowOrder o = window_order(resolve_launch(u), 256);
  EXPECT_EQ(o.windows_sampled, 2);
  EXPECT_DOUBLE_EQ(o.bytes[0], 2.0 * kMiB);
  EXPECT_DOUBLE_EQ(o.streams(0), 1.0);
  EXPECT_DOUBLE_EQ(o.scattered(0), 0.0);
  EXPECT_DOUBLE_EQ(o.bytes[1], 2.0 * kMiB);
  EXPECT_DOUBLE_EQ(o.streams(1), 4096.0);
  EXPECT_DOUBLE_EQ(o.scattered(1), 1.0);
  u.kernel = "copy_shared";
  const WindowOrder c = window_order(resolve_launch(u), 256, 3);
  EXPECT_EQ(c.windows_sampled, 3);
  EXPECT_DOUBLE_EQ(c.streams(0), 1.0);
  EXPECT_DOUBLE_EQ(c.streams(1), 1.0);
}

// naive, block 32x8, tile 32x32, f32, 1024 x 1024: a grid of 32 x 32 tiles. 64 blocks a window are two tile
// rows: they read input rows 64k to 64k + 63 whole (256 KiB, one run) and write, lane by lane down a column, the
// 256 bytes of columns 64k to 64k + 63 in each of the 1024 output rows of 4 KiB: 1024 runs of 2 lines, so
// streams = 2048^2 / (1024 x 2^2) = 1024. Each line is touched by 32 lanes of 32 store instructions, which the
// count takes once.
TEST(DramOrder, NaiveColumnStoresAreARunARow) {
  UserConfig u;
  u.kernel = "naive";
  u.matrix = {1024, 1024};
  u.block = {32, 8};
  u.tile = Size2{32, 32};
  const WindowOrder o = window_order(resolve_launch(u), 64, 3);
  EXPECT_EQ(o.windows_sampled, 3);
  EXPECT_DOUBLE_EQ(o.bytes[0], 3 * 256.0 * kKiB);
  EXPECT_DOUBLE_EQ(o.streams(0), 1.0);
  EXPECT_DOUBLE_EQ(o.bytes[1], 3 * 256.0 * kKiB);
  EXPECT_DOUBLE_EQ(o.streams(1), 1024.0);
  EXPECT_DOUBLE_EQ(o.scattered(1), 1.0);
}

}  // namespace
}  // namespace memsim
