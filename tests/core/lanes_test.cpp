// The warp replay's building blocks: lane-wise operators must compute, lane by lane, exactly what the scalar
// operator computes (same values, same promoted types, as on the GPU); lane_mask must put lane i in bit i;
// the warp recorder must turn one call into one warp access (hand-worked below) and refuse warps that need
// a finding; and the choice between warp and lane-by-lane replay must follow the body's signature.
#include <gtest/gtest.h>

#include <random>
#include <type_traits>
#include <utility>

#include "kernels/resolve.hpp"
#include "kernels/suite.hpp"
#include "sim/replay.hpp"
#include "sim/lanes.hpp"
#include "sim/warp_recorder.hpp"

namespace memsim {
namespace {

Lanes<int> random_lanes(std::mt19937& rng, int lo, int hi) {
  std::uniform_int_distribution<int> d(lo, hi);
  Lanes<int> x;
  for (int& v : x.v) v = d(rng);
  return x;
}

TEST(Lanes, ArithmeticMatchesTheScalarOperatorLaneByLane) {
  std::mt19937 rng(7);
  for (int round = 0; round < 50; ++round) {
    const Lanes<int> a = random_lanes(rng, -1000, 1000);
    Lanes<int> b = random_lanes(rng, -50, 50);
    for (int& v : b.v) v = v == 0 ? 3 : v;  // divisors
    const int64_t big = int64_t(1) << 40;
    const auto sum = a + big;  // int + int64_t promotes, as in C++ and CUDA
    const auto quotient = a / b;
    const auto remainder = a % b;
    const auto mixed = (a * 7 - b) ^ (a & 0xff);
    const auto shifted = (a & 0x3ff) << 3;
    for (int i = 0; i < kWarpSize; ++i) {
      EXPECT_EQ(sum.v[i], a.v[i] + big);
      EXPECT_EQ(quotient.v[i], a.v[i] / b.v[i]);
      EXPECT_EQ(remainder.v[i], a.v[i] % b.v[i]);
      EXPECT_EQ(mixed.v[i], (a.v[i] * 7 - b.v[i]) ^ (a.v[i] & 0xff));
      EXPECT_EQ(shifted.v[i], (a.v[i] & 0x3ff) << 3);
    }
    static_assert(std::is_same_v<decltype(sum), const Lanes<int64_t>>);
    static_assert(std::is_same_v<decltype(quotient), const Lanes<int>>);
  }
}

TEST(Lanes, ComparisonsAndLogicGiveBooleanLanes) {
  std::mt19937 rng(11);
  const Lanes<int> a = random_lanes(rng, 0, 40), b = random_lanes(rng, 0, 40);
  const int64_t limit = 20;
  const auto both = a < b && a < limit;
  const auto either = a >= b || !(a != 3);
  static_assert(std::is_same_v<decltype(both), const Lanes<bool>>);
  uint32_t expected_both = 0, expected_either = 0;
  for (int i = 0; i < kWarpSize; ++i) {
    EXPECT_EQ(both.v[i], a.v[i] < b.v[i] && a.v[i] < limit);
    EXPECT_EQ(either.v[i], a.v[i] >= b.v[i] || a.v[i] == 3);
    expected_both |= uint32_t(a.v[i] < b.v[i] && a.v[i] < limit) << i;
    expected_either |= uint32_t(a.v[i] >= b.v[i] || a.v[i] == 3) << i;
  }
  EXPECT_EQ(lane_mask(both), expected_both);
  EXPECT_EQ(lane_mask(either), expected_either);
}

// One warp instruction per lane-wise operation, two when its result is 64 bits wide.
TEST(Lanes, EachOperationCountsOnce64BitTwice) {
  Lanes<int> a{};
  const int64_t before = lane_operations;
  const auto x = a + 1;                  // 1
  const auto y = x * int64_t(3);         // 2 (int64_t result)
  const auto ok = x < 5 && !(y == 0);    // <, ==, !, && : 4
  (void)ok;
  EXPECT_EQ(lane_operations - before, 7);
}

TEST(Lanes, MaskPutsLaneIInBitI) {
  Lanes<bool> p{};
  p.v[0] = p.v[5] = p.v[16] = p.v[31] = true;
  EXPECT_EQ(lane_mask(p), (1u << 0) | (1u << 5) | (1u << 16) | (1u << 31));
  EXPECT_EQ(lane_mask(true), ~0u);
  EXPECT_EQ(lane_mask(false), 0u);
}

// Lane i of a 32x8 block's warp 2: thread (i, 2). A load of in[row * 64 + 2 * lane] with lanes 0..19 on.
WarpCoord warp_of_block_32x8(int warp) {
  WarpCoord t;
  for (int i = 0; i < kWarpSize; ++i) {
    t.thread_x.v[i] = i;
    t.thread_y.v[i] = warp;
  }
  return t;
}

TEST(WarpRecorder, OneCallIsOneWarpAccess) {
  BufferLayout layout;
  layout.in_base = 1 << 20;
  layout.in_elems = 64 * 8;
  layout.elem_bytes = 4;
  WarpRecorder<float> rec(layout);
  const WarpCoord t = warp_of_block_32x8(2);
  rec.start_warp(~0u);
  load_global<float>(rec, 3, t.thread_x < 20, t.thread_y * 64 + 2 * t.thread_x);
  int seen = 0;
  ASSERT_TRUE(rec.flush([&](const WarpAccess& w) {
    ++seen;
    EXPECT_EQ(w.site, 3);
    EXPECT_EQ(w.space, Space::Global);
    EXPECT_EQ(w.op, Op::Load);
    EXPECT_EQ(w.width, 4);
    EXPECT_EQ(w.mask, (1u << 20) - 1);
    for (int i = 0; i < 20; ++i) EXPECT_EQ(w.addr[i], uint64_t(1 << 20) + 4 * (2 * 64 + 2 * i));
  }));
  EXPECT_EQ(seen, 1);
}

TEST(WarpRecorder, AWarpThatNeedsAFindingIsHandedBack) {
  BufferLayout layout;
  layout.in_elems = 64;
  layout.shared_elems = 64;
  layout.elem_bytes = 4;
  WarpRecorder<float> rec(layout);
  const WarpCoord t = warp_of_block_32x8(0);
  // Lane 31 reads element 64, one past the buffer: out of bounds.
  rec.start_warp(~0u);
  load_global<float>(rec, 0, true, 33 + t.thread_x);
  EXPECT_FALSE(rec.flush([](const WarpAccess&) { ADD_FAILURE(); }));
  // The same access with lane 31 predicated off, or outside a 31-lane warp, is fine.
  rec.start_warp(~0u);
  load_global<float>(rec, 0, t.thread_x < 31, 33 + t.thread_x);
  EXPECT_TRUE(rec.flush([](const WarpAccess&) {}));
  rec.start_warp((1u << 31) - 1);
  load_global<float>(rec, 0, true, 33 + t.thread_x);
  EXPECT_TRUE(rec.flush([](const WarpAccess&) {}));
  // A 16-byte access at an odd element: misaligned.
  rec.start_warp(~0u);
  load_shared<Vec<float, 4>>(rec, 1, t.thread_x < 8, 1 + 4 * t.thread_x);
  EXPECT_FALSE(rec.flush([](const WarpAccess&) { ADD_FAILURE(); }));
  // A negative offset.
  rec.start_warp(~0u);
  store_shared<float>(rec, 1, true, t.thread_x - 1, 0.0f);
  EXPECT_FALSE(rec.flush([](const WarpAccess&) { ADD_FAILURE(); }));
}

// The lane-wise operations the warp replay counts for a launch (f32, default tile), on one worker.
int64_t replayed_operations(const char* kernel, Size2 matrix, Size2 block) {
  UserConfig u;
  u.kernel = kernel;
  u.matrix = matrix;
  u.block = block;
  ReplayOptions one;
  one.threads = 1;
  return replay(resolve_launch(u), one).lane_operations;
}

// The copy body's operations per step, counted by hand from kernels/suite/copy.hpp and launch_shape.hpp:
// r = ty + i*by, c = tx + j*bx (1 each; i*by is uniform), in_tile = r < rows && c < cols (3), x = col0 + c and
// y = row0 + r (2 each: 64-bit), ok = in_tile && x < W && y < H (4), two offsets y * W + x (4 each: 64-bit
// multiply and add), the load and the store (1 each): 23. A 256x64 matrix under 32x8 blocks (tile 32x32):
// 16 blocks x 8 warps x 4 steps.
TEST(Lanes, ReplayCountsTheCopyBodysOperations) {
  EXPECT_EQ(replayed_operations("copy", {256, 64}, {32, 8}), 16 * 8 * 4 * 23);
}

// In a column walk's later steps only what varies with the column counts; the rest depends on the row alone
// and the GPU computes it in the row's first step. Worked by hand from kernels/tiles.hpp for the coalesced
// kernel on an 8x32 matrix under one 8x32 block (tile 8x32; 8 warps). Staging: one step of 25 (r, c: 1 each;
// in_tile 3; ok = in_tile && col0 + c < W && row0 + r < H: 8; (row0 + r) * W + col0 + c: 8; r * smem_row + c:
// 2; the two accesses). Draining, 8 rows x 32 columns: the thread's first shared offset tx * smem_row + ty
// once (2), then 1 row step of 4 column steps; the first 24, as above but for the shared offset, that first
// one plus the step's (1); each later one 13: c (1), c < cols and the && (2), ok's two && and row0 + c < H
// (5), the shared offset (1), the final + c of (col0 + r) * H + row0 + c (2), the two accesses.
TEST(Lanes, LaterColumnStepsCountWhatVariesPerColumn) {
  EXPECT_EQ(replayed_operations("coalesced", {8, 32}, {8, 32}), 8 * 25 + 8 * (2 + 24 + 3 * 13));
}

// The diagonal kernel reorders its blocks with divisions by the grid's dimensions (kernels/tiles.hpp), once
// per warp: on a square grid one 32-bit remainder, else a 64-bit quotient and remainder and one more 64-bit
// remainder. f32 under 32x8 blocks (tile 32x32, 8 warps): 64x64 is a 2x2 grid (4 blocks), 128x64 a 4x2 one
// (8 blocks), 1024x512 a 32x16 one (512 blocks, split over 3 workers); no other kernel divides.
TEST(Lanes, ReplayCountsTheDiagonalReorderingsDivisions) {
  const auto divisions = [](const char* kernel, Size2 matrix, int workers) {
    UserConfig u;
    u.kernel = kernel;
    u.matrix = matrix;
    u.block = {32, 8};
    ReplayOptions o;
    o.threads = workers;
    const ReplayResult r = replay(resolve_launch(u), o);
    return std::pair<int64_t, int64_t>(r.runtime_divisions[0], r.runtime_divisions[1]);
  };
  using Counts = std::pair<int64_t, int64_t>;
  EXPECT_EQ(divisions("diagonal", {64, 64}, 1), Counts(4 * 8, 0));
  EXPECT_EQ(divisions("diagonal", {128, 64}, 1), Counts(0, 8 * 8 * 2));
  EXPECT_EQ(divisions("diagonal", {1024, 512}, 3), Counts(0, 512 * 8 * 2));
  EXPECT_EQ(divisions("padded", {128, 64}, 1), Counts(0, 0));
}

// Each worker counts on its own thread: the total must not depend on how many there are. 1024x1024 under
// 32x8 blocks: 1024 blocks, enough for the replay to split over 2 and 3 workers.
TEST(Lanes, OperationCountDoesNotDependOnWorkers) {
  UserConfig u;
  u.kernel = "swizzle";
  u.matrix = {1024, 1024};
  u.block = {32, 8};
  const LaunchConfig cfg = resolve_launch(u);
  int64_t counts[3];
  for (int w = 1; w <= 3; ++w) {
    ReplayOptions o;
    o.threads = w;
    counts[w - 1] = replay(cfg, o).lane_operations;
  }
  EXPECT_GT(counts[0], 0);
  EXPECT_EQ(counts[1], counts[0]);
  EXPECT_EQ(counts[2], counts[0]);
}

// A body written for one thread (it may branch on its lane) cannot take a warp.
struct LaneBranching {
  template <class Mem>
  static void body(Mem& m, const LaunchShape&, const ThreadCoord& t) {
    if (t.thread_x % 2 == 0) load_global<typename Mem::Elem>(m, 0, true, t.thread_x);
  }
};

#define MEMSIM_EXPECT_PER_WARP(K) \
  static_assert(runs_per_warp<suite::K, float> && runs_per_warp<suite::K, double>, #K " replays per warp");
MEMSIM_KERNEL_SUITE(MEMSIM_EXPECT_PER_WARP)
#undef MEMSIM_EXPECT_PER_WARP
static_assert(!runs_per_warp<LaneBranching, float>, "a ThreadCoord body is replayed lane by lane");

}  // namespace
}  // namespace memsim
