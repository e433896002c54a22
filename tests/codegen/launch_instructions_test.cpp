// A launch's instructions from its compiled paths (codegen/launch_instructions.hpp): which rows of the shipped
// table a launch reads, and how many blocks and warps take each path, worked out by hand for small launches.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "codegen/launch_instructions.hpp"
#include "model/cost.hpp"
#include "model/profile.hpp"
#include "report/launch_prediction.hpp"
#include "sim/launch_counts.hpp"

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

const SassPaths& row(const char* kernel, Size2 block, Dtype dtype = Dtype::F32) {
  const SassPaths* r = shipped_sass_paths(launch(kernel, {1024, 1024}, block, dtype));
  EXPECT_NE(r, nullptr) << kernel;
  return *r;
}

std::optional<LaunchInstructions> estimate(const LaunchConfig& cfg) {
  const SassPaths* p = shipped_sass_paths(cfg);
  if (!p) return std::nullopt;
  return launch_instructions(cfg, *p, first_block_warps(cfg).early_exit_warps);
}

TEST(LaunchInstructions, UnrolledStepsCostWhatTheyCannotFold) {
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

TEST(LaunchInstructions, LoadsInFlightAlongThePath) {
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

TEST(LaunchInstructions, InnerTilesTakeTheInnerPath) {
  // padded 32x8 on 64x96: 32x32 tiles, grid 2x3, every tile inside; 8 warps a block, none leaves early.
  const LaunchConfig cfg = launch("padded", {64, 96}, {32, 8});
  const std::optional<LaunchInstructions> e = estimate(cfg);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->inner_blocks, 6);
  EXPECT_EQ(e->edge_blocks, 0);
  EXPECT_EQ(e->early_exit_warps_per_block, 0);
  EXPECT_EQ(e->instructions, 6 * 8 * row("padded", {32, 8}).inner);
}

TEST(LaunchInstructions, WarpsWithNothingLeftToStoreLeaveEarly) {
  // padded 8x32 on 16x64: 8x32 tiles, grid 2x2, 8 warps of 4 rows of 8 threads. The drain walks the tile
  // transposed, 8 rows (r = threadIdx.y) by 32 columns: only threadIdx.y < 8, warps 0 and 1, has rows to store;
  // warps 2 to 7 leave at the predicated EXIT.
  const LaunchConfig cfg = launch("padded", {16, 64}, {8, 32});
  const std::optional<LaunchInstructions> e = estimate(cfg);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->inner_blocks, 4);
  EXPECT_EQ(e->early_exit_warps_per_block, 6);
  const SassPaths& r = row("padded", {8, 32});
  EXPECT_LT(r.inner_exit, r.inner);
  EXPECT_EQ(e->instructions, 4 * (2 * r.inner + 6 * r.inner_exit));
}

TEST(LaunchInstructions, EdgeTilesTakeTheEdgePath) {
  // copy 32x8 on 40x40: 32x32 tiles, grid 2x2; only tile (0, 0) lies inside, the other 3 reach past.
  const std::optional<LaunchInstructions> e = estimate(launch("copy", {40, 40}, {32, 8}));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->inner_blocks, 1);
  EXPECT_EQ(e->edge_blocks, 3);
  const SassPaths& r = row("copy", {32, 8});
  EXPECT_EQ(e->instructions, 8 * r.square + 3 * 8 * r.edge_square);
  // naive_read lays its tile over the output (64 columns = the input's rows, 40 rows): 2 x 1 tiles of 32x32
  // inside, 2 of the grid's 2 x 2 reach past the output's 40 rows.
  const std::optional<LaunchInstructions> n = estimate(launch("naive_read", {40, 64}, {32, 8}));
  ASSERT_TRUE(n);
  EXPECT_EQ(n->inner_blocks, 2);
  EXPECT_EQ(n->edge_blocks, 2);
}

TEST(LaunchInstructions, DiagonalOnASquareGridSkipsTheGeneralDivisions) {
  const SassPaths& r = row("diagonal", {32, 8});
  // The general reordering divides twice by grid values that the square one does not need.
  EXPECT_LT(r.square, r.inner);
  const std::optional<LaunchInstructions> sq = estimate(launch("diagonal", {64, 64}, {32, 8}));
  const std::optional<LaunchInstructions> wide = estimate(launch("diagonal", {128, 64}, {32, 8}));
  ASSERT_TRUE(sq && wide);
  EXPECT_EQ(sq->instructions, 4 * 8 * r.square);      // grid 2x2
  EXPECT_EQ(wide->instructions, 8 * 8 * r.inner);     // grid 4x2
}

TEST(LaunchInstructions, OnlyWhatTheGpuRunsStatic) {
  // Another pad than the kernel's default, or a block without a static instantiation, runs a run-time shape.
  EXPECT_EQ(shipped_sass_paths(launch("padded", {64, 64}, {32, 8}, Dtype::F32, 2)), nullptr);
  EXPECT_EQ(shipped_sass_paths(launch("padded", {64, 64}, {64, 4})), nullptr);
  EXPECT_NE(shipped_sass_paths(launch("padded", {64, 64}, {32, 32})), nullptr);
}

TEST(LaunchInstructions, ChargedFromTheLaunchsCode) {
  UserConfig u;
  u.kernel = "padded";
  u.matrix = {256, 256};
  ReplayOptions o;
  o.threads = 1;
  const ReplayResult r = replay(resolve_launch(u), o);
  const CompiledCode code{CodeBasis::Shipped, *shipped_sass_paths(r.config), "test", 4};
  KernelCounts c = launch_counts(r);
  add_compiled_code(c, r, code);
  EXPECT_EQ(c.sass_instructions, launch_instructions(r.config, code.paths, r.first_block.early_exit_warps).instructions);
  const DeviceProfile p = load_profile_file(std::string(MEMSIM_TEST_DEVICE_DIR) + "/h100.json");
  Prediction pr = predict(c, p);
  EXPECT_EQ(pr.instructions_basis, std::string(kBasisSass) + " (test)");
  EXPECT_EQ(pr.instructions, c.sass_instructions);
  // A count the user gives still wins.
  PredictOptions given;
  given.instructions = 1234;
  EXPECT_EQ(predict(c, p, given).instructions, 1234);
  // A kernel that keeps run-time shapes: the replay's operations stand.
  const KernelCounts runtime = launch_counts(r, true);
  EXPECT_EQ(runtime.sass_instructions, 0);
  EXPECT_EQ(predict(runtime, p).instructions_basis, kBasisOperations);
}

// The replay is told beforehand what the prediction needs of it. padded 256x256 f32 in 32x32 tiles is 8 x 8 = 64
// blocks, fewer than the H100's 132 SMs hold: R, capped by the launch, is 64, and the H100 charges the DRAM
// order, so the replay counts it over windows of 64 blocks. The GTX 280 has no L2: nothing of the kind.
TEST(LaunchPrediction, TheReplayIsPreparedForTheDevice) {
  UserConfig u;
  u.matrix = {256, 256};
  const LaunchConfig cfg = resolve_launch(u);
  const DeviceProfile h100 = load_profile_file(std::string(MEMSIM_TEST_DEVICE_DIR) + "/h100.json");
  ReplayOptions o;
  prepare_replay(o, h100, cfg, launch_occupancy(h100, cfg, 0));
  EXPECT_TRUE(o.cached);
  EXPECT_EQ(o.dram_order_resident, 64);
  o.threads = 1;
  const ReplayResult r = replay(cfg, o);
  EXPECT_EQ(r.dram_order_resident, 64);
  EXPECT_NO_THROW(predict(r, h100));
  // A replay not told about the DRAM order cannot be predicted on a device that charges it.
  ReplayOptions plain;
  plain.threads = 1;
  EXPECT_THROW(predict(replay(cfg, plain), h100), std::logic_error);
  const DeviceProfile gt200 = load_profile_file(std::string(MEMSIM_TEST_DEVICE_DIR) + "/gtx280.json");
  ReplayOptions g;
  prepare_replay(g, gt200, cfg, launch_occupancy(gt200, cfg, 0));
  EXPECT_FALSE(g.cached);
  EXPECT_EQ(g.dram_order_resident, 0);
  EXPECT_THROW(predict(replay(cfg, plain), gt200), std::logic_error);  // counted with an L2 it lacks
}

}  // namespace
}  // namespace memsim
