// The static shapes' instruction count (model/sass_counts.hpp): which table rows a launch reads, and how many
// blocks and warps take each path, worked out by hand for small launches.
#include <gtest/gtest.h>

#include <string>

#include "model/cost.hpp"
#include "model/counts.hpp"
#include "model/profile.hpp"
#include "model/sass_counts.hpp"

namespace memsim {
namespace {

LaunchConfig launch(const char* kernel, Size2 matrix, Size2 block, Dtype dtype = Dtype::F32,
                    std::optional<int> pad = std::nullopt) {
  UserConfig u;
  u.kernel = kernel;
  u.matrix = matrix;
  u.block = block;
  u.dtype = dtype;
  u.pad = pad;
  return resolve_launch(u);
}

const SassPathCounts& row(const char* kernel, Size2 block, Dtype dtype = Dtype::F32) {
  const SassPathCounts* r = sass_path_counts(launch(kernel, {1024, 1024}, block, dtype));
  EXPECT_NE(r, nullptr) << kernel;
  return *r;
}

TEST(SassCounts, UnrolledStepsCostWhatTheyCannotFold) {
  // copy 32x8 walks 4 rows of its 32x32 tile, 16x16 one: the 3 more unrolled steps each cost a load, a store and
  // a 64-bit pointer step apiece (the rows lie 8 x W elements apart, a launch value), plus one shift for 8 x W.
  EXPECT_EQ(row("copy", {32, 8}).inner - row("copy", {16, 16}).inner, 3 * (1 + 1 + 2) + 1);
  // naive's store of row y + 8 goes to out[x * H + y + 8]: 8 elements on, folded into the store's immediate
  // offset; only the load steps its pointer.
  EXPECT_EQ(row("naive", {32, 8}).inner - row("naive", {16, 16}).inner, 3 * (1 + 1 + 1) + 1);
  // padded: a global load, a shared store, a shared load, a global store a step; shared offsets are constants
  // (rows of 33 floats), the two global sides step their pointers by 8 rows of W and of H: two shifts.
  EXPECT_EQ(row("padded", {32, 8}).inner - row("padded", {16, 16}).inner, 3 * (4 + 2) + 2);
  // Every path holds at least its memory instructions, barrier and EXIT: padded 32x8 makes 4 of each access.
  EXPECT_GE(row("padded", {32, 8}).inner, 4 * 4 + 1 + 1);
  // The element type changes the width of the accesses, not their number nor the index math.
  for (const char* k : {"copy", "padded", "naive"})
    for (Dtype d : {Dtype::F16, Dtype::F64}) EXPECT_EQ(row(k, {32, 8}, d).inner, row(k, {32, 8}).inner) << k;
}

TEST(SassCounts, LoadsInFlightAlongThePath) {
  // Fully unrolled, a staged 32x8 body issues its 4 row loads before the first shared store reads one: 4 loads,
  // 1 wait; a direct one (copy, naive) stores each load before the next load issues: 4 waits. A 16x16 tile's
  // thread moves 1 element.
  for (const char* k : {"copy_shared", "coalesced", "padded", "swizzle"}) {
    EXPECT_EQ(row(k, {32, 8}).loads, 4) << k;
    EXPECT_EQ(row(k, {32, 8}).load_waits, 1) << k;
  }
  for (const char* k : {"copy", "naive", "naive_read"}) {
    EXPECT_EQ(row(k, {32, 8}).loads, 4) << k;
    EXPECT_EQ(row(k, {32, 8}).load_waits, 4) << k;
    EXPECT_EQ(row(k, {16, 16}).load_waits, row(k, {16, 16}).loads) << k;
  }
  // reg4x4 loads its 4 rows of 4 before any store, f64 rows as two 16-byte pieces.
  EXPECT_EQ(row("reg4x4", {16, 16}).loads / row("reg4x4", {16, 16}).load_waits, 4);
  EXPECT_EQ(row("reg4x4", {16, 16}, Dtype::F64).loads / row("reg4x4", {16, 16}, Dtype::F64).load_waits, 8);
}

TEST(SassCounts, InnerTilesTakeTheInnerPath) {
  // padded 32x8 on 64x96: 32x32 tiles, grid 2x3, every tile inside; 8 warps a block, none leaves early.
  const LaunchConfig cfg = launch("padded", {64, 96}, {32, 8});
  const std::optional<SassEstimate> e = sass_instruction_estimate(cfg);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->inner_blocks, 6);
  EXPECT_EQ(e->edge_blocks, 0);
  EXPECT_EQ(e->early_exit_warps_per_block, 0);
  EXPECT_EQ(e->instructions, 6 * 8 * row("padded", {32, 8}).inner);
}

TEST(SassCounts, WarpsWithNothingLeftToStoreLeaveEarly) {
  // padded 8x32 on 16x64: 8x32 tiles, grid 2x2, 8 warps of 4 rows of 8 threads. The drain walks the tile
  // transposed, 8 rows (r = threadIdx.y) by 32 columns: only threadIdx.y < 8, warps 0 and 1, has rows to store;
  // warps 2 to 7 leave at the predicated EXIT.
  const LaunchConfig cfg = launch("padded", {16, 64}, {8, 32});
  const std::optional<SassEstimate> e = sass_instruction_estimate(cfg);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->inner_blocks, 4);
  EXPECT_EQ(e->early_exit_warps_per_block, 6);
  const SassPathCounts& r = row("padded", {8, 32});
  EXPECT_LT(r.inner_exit, r.inner);
  EXPECT_EQ(e->instructions, 4 * (2 * r.inner + 6 * r.inner_exit));
}

TEST(SassCounts, EdgeTilesTakeTheEdgePath) {
  // copy 32x8 on 40x40: 32x32 tiles, grid 2x2; only tile (0, 0) lies inside, the other 3 reach past.
  const std::optional<SassEstimate> e = sass_instruction_estimate(launch("copy", {40, 40}, {32, 8}));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->inner_blocks, 1);
  EXPECT_EQ(e->edge_blocks, 3);
  const SassPathCounts& r = row("copy", {32, 8});
  EXPECT_EQ(e->instructions, 8 * r.square + 3 * 8 * r.edge_square);
  // naive_read lays its tile over the output (64 columns = the input's rows, 40 rows): 2 x 1 tiles of 32x32
  // inside, 2 of the grid's 2 x 2 reach past the output's 40 rows.
  const std::optional<SassEstimate> n = sass_instruction_estimate(launch("naive_read", {40, 64}, {32, 8}));
  ASSERT_TRUE(n);
  EXPECT_EQ(n->inner_blocks, 2);
  EXPECT_EQ(n->edge_blocks, 2);
}

TEST(SassCounts, DiagonalOnASquareGridSkipsTheGeneralDivisions) {
  const SassPathCounts& r = row("diagonal", {32, 8});
  // The general reordering divides twice by grid values that the square one does not need.
  EXPECT_LT(r.square, r.inner);
  const std::optional<SassEstimate> sq = sass_instruction_estimate(launch("diagonal", {64, 64}, {32, 8}));
  const std::optional<SassEstimate> wide = sass_instruction_estimate(launch("diagonal", {128, 64}, {32, 8}));
  ASSERT_TRUE(sq && wide);
  EXPECT_EQ(sq->instructions, 4 * 8 * r.square);      // grid 2x2
  EXPECT_EQ(wide->instructions, 8 * 8 * r.inner);     // grid 4x2
}

TEST(SassCounts, OnlyWhatTheGpuRunsStatic) {
  // Another pad than the kernel's default, or a block without a static instantiation, runs a run-time shape.
  EXPECT_EQ(sass_path_counts(launch("padded", {64, 64}, {32, 8}, Dtype::F32, 2)), nullptr);
  EXPECT_EQ(sass_path_counts(launch("padded", {64, 64}, {64, 4})), nullptr);
  EXPECT_NE(sass_path_counts(launch("padded", {64, 64}, {32, 32})), nullptr);
}

TEST(SassCounts, ChargedOnTheTablesComputeCapabilityOnly) {
  UserConfig u;
  u.kernel = "padded";
  u.matrix = {256, 256};
  ReplayOptions o;
  o.threads = 1;
  const ReplayResult r = replay(resolve_launch(u), o);
  const KernelCounts c = counts_from_replay(r);
  EXPECT_EQ(c.sass_instructions, sass_instruction_estimate(r.config)->instructions);
  DeviceProfile p = load_profile_file(std::string(MEMSIM_TEST_DEVICE_DIR) + "/h100.json");
  ASSERT_EQ(p.compute_capability, kSassComputeCapability);
  Prediction pr = predict(c, p);
  EXPECT_EQ(pr.instructions_basis, kBasisSass);
  EXPECT_EQ(pr.instructions, c.sass_instructions);
  // A count the user gives still wins.
  PredictOptions given;
  given.instructions = 1234;
  EXPECT_EQ(predict(c, p, given).instructions, 1234);
  // Another architecture compiles other code: the replay's estimate stands.
  p.compute_capability = "8.0";
  EXPECT_NE(predict(c, p).instructions_basis, kBasisSass);
}

}  // namespace
}  // namespace memsim
