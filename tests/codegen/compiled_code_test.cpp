// The compiled-code pipeline end to end with a stand-in toolkit (tests/codegen/fake_toolkit: an nvcc that
// counts its calls, a cuobjdump that prints a hand-written listing): a configuration is compiled once, its
// paths read off the listing, cached on disk and read back without compiling again; and the estimate's inputs
// for a configuration no table holds, worked out by hand.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "codegen/code_estimate.hpp"
#include "codegen/compiled_code.hpp"
#include "sim/replay.hpp"

namespace memsim {
namespace {

namespace fs = std::filesystem;

const fs::path kScratch = fs::temp_directory_path() / ("memsim-codegen-test-" + std::to_string(::getpid()));

// Before anything asks for the toolkit (find_toolkit reads the environment once).
const bool kEnvironment = [] {
  fs::create_directories(kScratch);
  setenv("MEMSIM_NVCC", MEMSIM_FAKE_TOOLKIT "/nvcc", 1);
  setenv("MEMSIM_CACHE_DIR", (kScratch / "cache").c_str(), 1);
  setenv("FAKE_NVCC_LOG", (kScratch / "nvcc.log").c_str(), 1);
  return true;
}();

int compiles() {
  std::ifstream in(kScratch / "nvcc.log");
  int n = 0;
  for (std::string line; std::getline(in, line);) n += line == "compile";
  return n;
}

LaunchConfig launch(const char* kernel, Size2 block, std::optional<Size2> tile = {}, Dtype dtype = Dtype::F32) {
  UserConfig u;
  u.kernel = kernel;
  u.dtype = dtype;
  u.matrix = {1024, 1024};
  u.block = block;
  u.tile = tile;
  return resolve_launch(u);
}

// The estimate's features of a launch, read off its first block's warps as the replay hands them over.
CodeFeatures first_block_features(const LaunchConfig& c) { return code_features(c, first_block_warps(c)); }

// The code without the toolkit (--no-compile): the shipped table's row, else the estimate.
CompiledCode estimate_or_table(const LaunchConfig& cfg) {
  return compiled_code(cfg, CodegenOptions{false, "90", 0}, first_block_warps(cfg));
}

TEST(CompiledCode, TheListingsPathsCachedOnDisk) {
  ASSERT_TRUE(kEnvironment);
  ASSERT_TRUE(find_toolkit().usable()) << find_toolkit().missing;
  EXPECT_EQ(find_toolkit().version, "13.0.88");
  const LaunchConfig a = launch("padded", {64, 8}), b = launch("coalesced", {64, 4}, Size2{64, 64});
  int progress_calls = 0;
  compile_batch({a, b}, CodegenOptions{1 == 1, "90", 1}, [&](int, int) { ++progress_calls; });
  EXPECT_EQ(compiles(), 1);  // one job: both in one nvcc run
  EXPECT_GE(progress_calls, 2);
  const CompiledCode code = compiled_code(a, CodegenOptions{}, first_block_warps(a));
  EXPECT_EQ(code.basis, CodeBasis::Compiled);
  EXPECT_EQ(code.source, "nvcc 13.0.88 for sm_90");
  // The listing: 3 instructions to the edge test, then 0x60-0x100 (11): 14 inner; the edge path 0x00-0x50: 6.
  EXPECT_EQ(code.paths.inner, 14);
  EXPECT_EQ(code.paths.edge, 6);
  EXPECT_EQ(code.paths.loads, 4);  // issued together, waited for once at the first STS
  EXPECT_EQ(code.paths.load_waits, 1);
  EXPECT_EQ(code.loads_in_flight, 4);
  // The registers of each function, as cuobjdump -res-usage lists them (20 + its index in the nvcc run).
  EXPECT_EQ(code.registers, 20);
  EXPECT_EQ(compiled_code(b, CodegenOptions{}, first_block_warps(b)).registers, 21);
  EXPECT_EQ(compiled_registers(b, CodegenOptions{}), 21);
  EXPECT_EQ(compiled_registers(b, CodegenOptions{false, "90", 0}), std::nullopt);  // --no-compile: not read
  EXPECT_EQ(compiled_code(b, CodegenOptions{}, first_block_warps(b)).paths.inner, 14);
  EXPECT_EQ(compiles(), 1);  // both from memory
  // On disk: one entry a configuration.
  int entries = 0;
  for (const auto& e : fs::directory_iterator(kScratch / "cache" / "code")) entries += e.path().extension() == ".json";
  EXPECT_EQ(entries, 2);
  // Read back from disk in a fresh process's place: the registers come with the paths.
  for (const auto& e : fs::directory_iterator(kScratch / "cache" / "code")) {
    std::ifstream in(e.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("\"registers\": 2"), std::string::npos) << text;
  }
  // Another architecture is other code: compiled again.
  EXPECT_EQ(compiled_code(a, CodegenOptions{true, "100", 1}, first_block_warps(a)).basis, CodeBasis::Compiled);
  EXPECT_EQ(compiles(), 2);
  fs::remove_all(kScratch);
}

TEST(CompiledCode, ALargeSweepCompilesInChunksOfAHundred) {
  // 150 configurations no other test compiles (copy at 32x8 over 150 tile shapes), one job: nvcc's front end
  // grows faster than its input, so they go in two runs of nvcc (100, then 50), with progress between.
  fs::create_directories(kScratch);
  const int before = compiles();
  std::vector<LaunchConfig> sweep;
  for (int tx = 32; tx <= 256 && sweep.size() < 150; tx += 32)
    for (int ty = 8; ty <= 256 && sweep.size() < 150; ty += 8) sweep.push_back(launch("copy", {32, 8}, Size2{tx, ty}));
  ASSERT_EQ(sweep.size(), 150u);
  std::vector<int> progress;
  compile_batch(sweep, CodegenOptions{true, "90", 1}, [&](int done, int) { progress.push_back(done); });
  EXPECT_EQ(compiles() - before, 2);
  EXPECT_EQ(progress, (std::vector<int>{0, 100, 150}));
  for (const LaunchConfig& c : sweep)
    EXPECT_EQ(compiled_code(c, CodegenOptions{true, "90", 1}, first_block_warps(c)).basis, CodeBasis::Compiled);
  EXPECT_EQ(compiles() - before, 2);  // every one from memory
  fs::remove_all(kScratch);
}

TEST(CompiledCode, NoCompileTakesTheEstimate) {
  const CompiledCode code = estimate_or_table(launch("padded", {32, 16}));
  EXPECT_EQ(code.basis, CodeBasis::Estimated);
  EXPECT_EQ(code.source, "--no-compile");
  // A configuration of the shipped table keeps its row without compiling.
  EXPECT_EQ(estimate_or_table(launch("padded", {32, 8})).basis, CodeBasis::Shipped);
}

TEST(CompiledCode, TheInstantiationNamesTheStaticShape) {
  // padded, block 64x8, its default tile 64x64 (64 is a multiple of 8), pad 1: a shared row of 65.
  const std::string src = instantiation_source({launch("padded", {64, 8})}, "/k");
  EXPECT_NE(src.find("extern \"C\" __global__ void memsim_code_0(DeviceMemory<float> mem, "
                     "StaticShape<64, 8, 64, 64, 65, int32_t> s)"),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("suite::Padded::body(m, s, t);"), std::string::npos);
}

TEST(CodeEstimate, FeaturesOfAWarpWorkedOutByHand) {
  // padded 64x8, tile 64x64: 512 threads cover 4096 elements, 8 a thread; a warp is half a 64-wide row and
  // walks 8 rows: 8 global loads, 8 shared stores, then 8 shared loads (a column of the tile each) and 8
  // global stores; every load before the first global store.
  const CodeFeatures f = first_block_features(launch("padded", {64, 8}));
  EXPECT_EQ(f.global_loads, 8);
  EXPECT_EQ(f.shared_stores, 8);
  EXPECT_EQ(f.shared_loads, 8);
  EXPECT_EQ(f.global_stores, 8);
  EXPECT_EQ(f.loads_before_store, 8);
  EXPECT_EQ(f.warps_in_block, 16);
  // Its rows: warp 0 (ty = 0) loads input rows 0, 8, ..., 56, and the drain (the tile's columns as output rows,
  // stepped by BY as well) stores output rows 0, 8, ..., 56; 4-byte loads.
  EXPECT_EQ(f.load_rows, 8);
  EXPECT_EQ(f.store_rows, 8);
  EXPECT_EQ(f.load_bytes, 4);
  EXPECT_EQ(f.guarded_accesses, 0);  // 64 divides both walks: no step tests its position
  // naive 32x4 (tile 32x32): 8 rows a thread, each load stored before the next: 1 before the first store. It
  // loads input rows 0, 4, ..., 28; its stores' first lane (tx = 0) writes output row 0 at every step.
  const CodeFeatures n = first_block_features(launch("naive", {32, 4}));
  EXPECT_EQ(n.global_loads, 8);
  EXPECT_EQ(n.global_stores, 8);
  EXPECT_EQ(n.loads_before_store, 1);
  EXPECT_EQ(n.load_rows, 8);
  EXPECT_EQ(n.store_rows, 1);
  EXPECT_EQ(estimate_paths(n).load_waits, 8);
  // coalesced 128x4, tile 128x64: the stage walks 64 rows / 4 = 16 steps of the whole 128 columns, exact; the
  // drain walks 128 output rows / 4 = 32 steps of 64 columns, which 128 threads across do not divide (half of
  // them idle): warp 0 makes 16 loads and 16 shared stores, then 32 shared loads and 32 stores, every step of
  // the drain tested.
  const LaunchConfig c = launch("coalesced", {128, 4}, Size2{128, 64});
  const CodeFeatures g = first_block_features(c);
  EXPECT_EQ(g.global_loads, 16);
  EXPECT_EQ(g.shared_stores, 16);
  EXPECT_EQ(g.shared_loads, 32);
  EXPECT_EQ(g.global_stores, 32);
  EXPECT_EQ(g.guarded_accesses, 64);
  // ... and its test is the same at every step (tx < 64: warps 0 and 1 always on, 2 and 3 always off).
  EXPECT_EQ(g.varying_guard_accesses, 0);
  EXPECT_EQ(g.whole_warp_guard_accesses, 64);  // and each warp is all on or all off
  // coalesced 32x5, tile 64x40: the stage walks 40 rows / 5 = 8 steps of 64 columns / 32 = 2, exact (16 loads,
  // 16 shared stores); the drain walks 64 output rows in 13 steps of 5 (the last one holds rows 60 to 63: ty <
  // 4) and 40 columns in 2 of 32 (the second one holds columns 32 to 39: tx < 8). Warp 0 (ty = 0) has all its
  // lanes on at the first column step and 8 at the second: every one of its 26 shared loads and 26 stores is
  // tested, by a test that changes from step to step.
  const LaunchConfig v = launch("coalesced", {32, 5}, Size2{64, 40});
  const CodeFeatures h = first_block_features(v);
  EXPECT_EQ(h.global_loads, 16);
  EXPECT_EQ(h.shared_stores, 16);
  EXPECT_EQ(h.shared_loads, 26);
  EXPECT_EQ(h.global_stores, 26);
  EXPECT_EQ(h.guarded_accesses, 52);
  EXPECT_EQ(h.varying_guard_accesses, 52);
  EXPECT_EQ(h.whole_warp_guard_accesses, 0);  // warp 0's second column step: 8 lanes of 32
  // coalesced 4x64, tile 32x64: the drain's 32 output rows lie within one step of 64 (ty < 32: warps 0 to 3
  // on at every step, 4 to 7 at none) and its 64 columns take 16 steps of 4, exact: 16 shared loads and 16
  // stores tested, by one test for all of them.
  const LaunchConfig u = launch("coalesced", {4, 64}, Size2{32, 64});
  const CodeFeatures k = first_block_features(u);
  EXPECT_EQ(k.shared_loads, 16);
  EXPECT_EQ(k.global_stores, 16);
  EXPECT_EQ(k.guarded_accesses, 32);
  EXPECT_EQ(k.varying_guard_accesses, 0);
  EXPECT_EQ(k.whole_warp_guard_accesses, 32);
}

TEST(CodeEstimate, GuardTestsWorkedOutByHand) {
  // coalesced 4x128, tile 32x128 (f32): 16 warps of 4 columns by 8 rows (warp w holds ty 8w to 8w + 7). The
  // stage walks 128 rows in one step of 128 and 32 columns in 8 of 4, exact: warp 0 loads 8 times from input
  // row ty = 0 (one row) into 8 shared stores, untested. The drain walks 32 output rows in one step of 128 (ty
  // < 32: warps 0 to 3 on at every step, 4 to 15 at none) and 128 columns in 32 steps of 4, exact: 32 shared
  // loads and 32 stores to output row ty = 0 (one row), all under the same test. Two guarded sites (the tile's
  // loads, the output's stores), each one test for its 32 accesses: 2 tests for 64 guarded accesses.
  const CodeFeatures a = first_block_features(launch("coalesced", {4, 128}, Size2{32, 128}));
  EXPECT_EQ(a.global_loads, 8);
  EXPECT_EQ(a.shared_stores, 8);
  EXPECT_EQ(a.shared_loads, 32);
  EXPECT_EQ(a.global_stores, 32);
  EXPECT_EQ(a.load_rows, 1);
  EXPECT_EQ(a.store_rows, 1);
  EXPECT_EQ(a.guarded_accesses, 64);
  EXPECT_EQ(a.varying_guard_accesses, 0);
  EXPECT_EQ(a.guard_tests, 2);
  // Its compiled code (nvcc 13.0, sm_90; lab/calibration/results/code_estimate_counts.json.gz, held-out set b):
  // 135 warp instructions along the inner path, 295 along the edge; the rule's estimate within 20% of both.
  const SassPaths ap = estimate_paths(a);
  EXPECT_NEAR(ap.inner, 135, 0.2 * 135);
  EXPECT_NEAR(ap.edge, 295, 0.2 * 295);
  // coalesced 4x64, tile 32x128: the same drain (ty < 32, now warps 0 to 3 of 8; 32 shared loads and 32 stores
  // to output row 0), but the stage walks 128 rows in 2 steps of 64 (input rows 0 and 64: 16 loads, 2 rows).
  // The warp's addresses are no longer the prologue's pointers alone: every guarded access is a test of its
  // own, 64 of them.
  const CodeFeatures b = first_block_features(launch("coalesced", {4, 64}, Size2{32, 128}));
  EXPECT_EQ(b.global_loads, 16);
  EXPECT_EQ(b.load_rows, 2);
  EXPECT_EQ(b.store_rows, 1);
  EXPECT_EQ(b.guarded_accesses, 64);
  EXPECT_EQ(b.varying_guard_accesses, 0);
  EXPECT_EQ(b.guard_tests, 64);
  // coalesced 4x64, tile 32x64: the stage's 64 rows take one step (row 0), the drain's 64 columns 16 steps
  // under ty < 32 (row 0): 2 tests for 32 guarded accesses.
  EXPECT_EQ(first_block_features(launch("coalesced", {4, 64}, Size2{32, 64})).guard_tests, 2);
  // coalesced 32x5, tile 64x40: the drain's test changes from step to step (its second column step holds tx <
  // 8, its last row step ty < 4): each of its 26 shared loads and 26 stores is a test.
  EXPECT_EQ(first_block_features(launch("coalesced", {32, 5}, Size2{64, 40})).guard_tests, 52);
  // padded 64x8 (tile 64x64): no guard, no test.
  EXPECT_EQ(first_block_features(launch("padded", {64, 8})).guard_tests, 0);
}

TEST(CodeEstimate, LoadsInFlightWorkedOutByHand) {
  // The fit's rounds (codegen/code_estimate_sm90.inc): 84 bytes a lane, a load counted as the 32-bit registers
  // it fills: 21 loads of 2 or 4 bytes, 10 of 8; n loads in ceil(n / k) rounds, n / ceil(n / k) in flight on
  // average. padded 64x8: its 8 loads of 4 bytes (32) all in one round, one wait.
  const LaunchConfig p = launch("padded", {64, 8});
  EXPECT_EQ(estimated_loads_in_flight(first_block_features(p)), 8);
  EXPECT_EQ(estimate_paths(first_block_features(p)).load_waits, 1);
  // coalesced 32x1 (tile 32x32): 32 loads before the first global store in rounds of 21: two rounds of 16
  // on average, two waits; in f16 too (a 2-byte load fills a register); in f64 rounds of 10: four of 8.
  for (const auto& [dtype, in_flight, waits] :
       {std::tuple{Dtype::F32, 16, 2}, std::tuple{Dtype::F16, 16, 2}, std::tuple{Dtype::F64, 8, 4}}) {
    const LaunchConfig c = launch("coalesced", {32, 1}, {}, dtype);
    const CodeFeatures f = first_block_features(c);
    EXPECT_EQ(f.loads_before_store, 32);
    EXPECT_EQ(estimated_loads_in_flight(f), in_flight) << dtype_name(dtype);
    EXPECT_EQ(estimate_paths(f).load_waits, waits) << dtype_name(dtype);
  }
  // naive 32x4: 1 load before its first store.
  const LaunchConfig n = launch("naive", {32, 4});
  EXPECT_EQ(estimated_loads_in_flight(first_block_features(n)), 1);
  // coalesced 32x3 on 32x72: 24 loads of 4 bytes, one round of 21 and one of 3: 12 on average, two waits.
  const CodeFeatures c24 = first_block_features(launch("coalesced", {32, 3}, Size2{32, 72}));
  EXPECT_EQ(c24.loads_before_store, 24);
  EXPECT_EQ(estimated_loads_in_flight(c24), 12);
  EXPECT_EQ(estimate_paths(c24).load_waits, 2);
  // copy_shared's walks of one load a row take rounds of 512 bytes: 32x1 on 32x32 in f64, its 32 loads in one
  // round (256 bytes), one wait; 32x1 on 32x128, 128 loads in two rounds of 64.
  const CodeFeatures one_row = first_block_features(launch("copy_shared", {32, 1}, {}, Dtype::F64));
  EXPECT_EQ(estimated_loads_in_flight(one_row), 32);
  EXPECT_EQ(estimate_paths(one_row).load_waits, 1);
  EXPECT_EQ(estimated_loads_in_flight(first_block_features(launch("copy_shared", {32, 1}, Size2{32, 128}, Dtype::F64))),
            64);
  // Two loads a row (32x1 on 64x64, f64: 128 loads over 64 rows) take the pooled rounds of 10: 13 rounds.
  EXPECT_DOUBLE_EQ(estimated_loads_in_flight(first_block_features(launch("copy_shared", {32, 1}, Size2{64, 64},
                                                                         Dtype::F64))),
                   128.0 / 13);
}

TEST(CodeEstimate, LongWalksNameTheBytesBeforeTheFirstStore) {
  // copy_shared 32x1 staging a 64x64 f64 tile: 64 x 64 / 32 = 128 loads a lane before the first global
  // store, 1024 bytes, in 13 rounds of at most 10: the estimate says so.
  const CompiledCode f64 = estimate_or_table(launch("copy_shared", {32, 1}, Size2{64, 64}, Dtype::F64));
  EXPECT_EQ(f64.basis, CodeBasis::Estimated);
  EXPECT_DOUBLE_EQ(f64.loads_in_flight, 128.0 / 13);
  EXPECT_EQ(f64.estimate_bytes_before_store, 1024);
  // 64x1 on the same tile: one load a row, 64 of them in one round of copy_shared's own: all in flight.
  EXPECT_EQ(estimate_or_table(launch("copy_shared", {64, 1}, Size2{64, 64}, Dtype::F64)).estimate_bytes_before_store,
            0);
  // A 128x128 tile in f16: 512 loads, each filling a 32-bit register, 512 x 4 bytes.
  EXPECT_EQ(estimate_or_table(launch("copy_shared", {32, 1}, Size2{128, 128}, Dtype::F16)).estimate_bytes_before_store,
            2048);
  // coalesced 32x1 on its 32x32 tile in f32: 32 loads, 128 bytes, in two rounds of 16: the rounds bind.
  EXPECT_EQ(estimate_or_table(launch("coalesced", {32, 1})).estimate_bytes_before_store, 128);
  // padded 64x16 on 64x64: 4 loads of 4 bytes, all in flight: nothing to say.
  EXPECT_EQ(estimate_or_table(launch("padded", {64, 16})).estimate_bytes_before_store, 0);
  // naive: one load before each store.
  EXPECT_EQ(estimate_or_table(launch("naive", {32, 4})).estimate_bytes_before_store, 0);
}

}  // namespace
}  // namespace memsim
