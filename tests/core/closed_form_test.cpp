// Closed forms per kernel, derived by hand from the kernels' index math (kernels/suite/*.hpp) and the rules
// of docs/hardware.md. Notation: W x H matrix (W columns), e = bytes per element, N = W * H. Unless said otherwise
// the block is 32x8 and the tile 32x32, so a warp is one block row (32 consecutive threadIdx.x) and every
// scalar instruction is 32 lanes along one tile row: N / 32 instructions per scalar site.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kernels/resolve.hpp"
#include "kernels/tiles.hpp"
#include "sim/replay.hpp"

namespace memsim {
namespace {

ReplayResult run(const std::string& kernel, Size2 matrix, Size2 block = {32, 8}, Dtype dtype = Dtype::F32,
                 std::optional<Size2> tile = {}, std::optional<int> pad = {}) {
  UserConfig u;
  u.kernel = kernel;
  u.matrix = matrix;
  u.block = block;
  u.dtype = dtype;
  u.tile = tile;
  u.pad = pad;
  ReplayOptions opt;
  opt.threads = 2;
  return replay(resolve_launch(u), opt);
}

// Per site: instructions (= requests for global), then sectors (global) or wavefronts (shared), then the ideal.
struct Want {
  int64_t instructions, count, ideal;
};

void expect_sites(const ReplayResult& r, const std::vector<Want>& want, const std::string& what) {
  ASSERT_EQ(r.sites.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    const bool global = r.config.kernel->sites[i].space == Space::Global;
    const SiteCounts& c = r.sites[i];
    const std::string where = what + " site " + std::to_string(i) + " (" + r.config.kernel->sites[i].name + ")";
    EXPECT_EQ(c.instructions, want[i].instructions) << where;
    EXPECT_EQ(global ? c.sectors : c.wavefronts, want[i].count) << where;
    EXPECT_EQ(global ? c.ideal_sectors : c.ideal_wavefronts, want[i].ideal) << where;
    EXPECT_EQ(global ? c.wavefronts : c.sectors, 0) << where;
  }
  EXPECT_TRUE(r.findings.empty()) << what;
}

int64_t metric(const ReplayResult& r, const std::string& name) { return metric_value(ncu_metrics(r), name); }

constexpr int64_t kN2048 = 2048 * 2048;
constexpr int64_t kI = kN2048 / 32;  // 131,072 scalar warp instructions per site at 2048x2048

// naive f32, block 32x8: a load is 32 consecutive floats of one input row, 128 B starting at a multiple of
// 128 (col0 = 32 bx, W * 4 = 8192): 4 sectors. A store writes out[x * H + y] for 32 consecutive x: 32
// output rows 8 KiB apart, one sector each: 32 sectors. So ld sectors = 4 N / 32 = 524,288 and
// st sectors = N = 4,194,304.
TEST(ClosedForm, NaiveF32Block32x8) {
  const ReplayResult r = run("naive", {2048, 2048});
  expect_sites(r, {{kI, 4 * kI, 4 * kI}, {kI, 32 * kI, 4 * kI}}, "naive f32 32x8");
  EXPECT_EQ(metric(r, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"), 131072);
  EXPECT_EQ(metric(r, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), 524288);
  EXPECT_EQ(metric(r, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"), 131072);
  EXPECT_EQ(metric(r, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"), 4194304);
  EXPECT_EQ(r.warps, (kN2048 / (32 * 32)) * 8);  // 4096 blocks of 8 warps
}

// naive f32, block 8x32 (seed 000): the default tile is the block, 8x32 (8 is not a multiple of 32). Warp w
// holds threadIdx.y = 4w .. 4w+3, threadIdx.x = 0..7. Load: 4 input rows x 8 floats = 4 runs of 32 B, each
// starting at a multiple of 32 (col0 = 8 bx) -> 4 sectors. Store: 8 output rows (x) x 4 consecutive y
// starting at row0 + 4w (a multiple of 4, so 16 B inside one 32-B sector) -> 8 sectors. Seed 000's "8
// sectors instead of 32".
TEST(ClosedForm, NaiveF32Block8x32) {
  const ReplayResult r = run("naive", {2048, 2048}, {8, 32});
  EXPECT_EQ(r.config.shape.tile_x, 8);
  EXPECT_EQ(r.config.shape.tile_y, 32);
  expect_sites(r, {{kI, 4 * kI, 4 * kI}, {kI, 8 * kI, 4 * kI}}, "naive f32 8x32");
  // L1 wavefronts: 4-byte lanes go through as one group, one pass per line: a load's 4 rows are 4 lines, a
  // store's 8 output rows 8 lines (the old rule, one per 128 bytes, said 1 for the loads).
  EXPECT_EQ(metric(r, "l1tex__data_pipe_lsu_wavefronts_mem_lgds.sum"), (4 + 8) * kI);
}

// f64 and f16 naive: a 32-lane row load is 256 B (8 sectors) or 64 B (2 sectors), aligned; stores stay one
// sector per lane (output rows are >= 32 B apart). Non-square 1024 x 512 keeps it quick.
TEST(ClosedForm, NaiveF64AndF16) {
  const int64_t i = 1024 * 512 / 32;
  expect_sites(run("naive", {1024, 512}, {32, 8}, Dtype::F64), {{i, 8 * i, 8 * i}, {i, 32 * i, 8 * i}}, "naive f64");
  expect_sites(run("naive", {1024, 512}, {32, 8}, Dtype::F16), {{i, 2 * i, 2 * i}, {i, 32 * i, 2 * i}}, "naive f16");
  // f64 lanes go through L1 in half-warps: the 256-byte row load is 2 lines, one per half (2 passes); the
  // store's 32 output rows are 16 lines per half (32 passes).
  EXPECT_EQ(metric(run("naive", {1024, 512}, {32, 8}, Dtype::F64), "l1tex__data_pipe_lsu_wavefronts_mem_lgds.sum"),
            (2 + 32) * i);
}

// naive_read (002 step 1) lays the tile over the output: lanes walk output columns = input rows, so a load
// touches 32 input rows (32 sectors) and a store is 32 consecutive output elements (4 sectors for f32).
TEST(ClosedForm, NaiveReadF32) {
  expect_sites(run("naive_read", {2048, 2048}), {{kI, 32 * kI, 4 * kI}, {kI, 4 * kI, 4 * kI}}, "naive_read");
}

// copy: both sides row runs of 128 B aligned: ideal everywhere.
TEST(ClosedForm, CopyIsIdeal) {
  expect_sites(run("copy", {2048, 2048}), {{kI, 4 * kI, 4 * kI}, {kI, 4 * kI, 4 * kI}}, "copy");
}

// copy_shared: global as copy; the tile (32 floats a row, no pad) is written and read along rows: 32
// consecutive words in 32 banks -> 1 wavefront each.
TEST(ClosedForm, CopySharedIsIdeal) {
  expect_sites(run("copy_shared", {2048, 2048}),
               {{kI, 4 * kI, 4 * kI}, {kI, kI, kI}, {kI, kI, kI}, {kI, 4 * kI, 4 * kI}}, "copy_shared");
}

// coalesced f32: global both ways 4 sectors per request. Shared store tile[r][c] walks a row: 1 wavefront.
// Shared load tile[c][r] (lanes = c) has word 32 c + r: bank r for every lane, 32 distinct words -> 32
// wavefronts, 31 conflicts: ld wavefronts = 32 x 131,072 = 4,194,304, conflicts 4,063,232.
TEST(ClosedForm, CoalescedF32ThirtyTwoWay) {
  const ReplayResult r = run("coalesced", {2048, 2048});
  expect_sites(r, {{kI, 4 * kI, 4 * kI}, {kI, kI, kI}, {kI, 32 * kI, kI}, {kI, 4 * kI, 4 * kI}}, "coalesced");
  EXPECT_EQ(metric(r, "smsp__inst_executed_op_shared_ld.sum"), 131072);
  EXPECT_EQ(metric(r, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"), 4194304);
  EXPECT_EQ(metric(r, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"), 4063232);
  EXPECT_EQ(metric(r, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"), 0);
}

// padded f32: row of 33 words; tile[c][r] at word 33 c + r, bank (c + r) mod 32: all distinct -> 1.
// swizzle f32: element (r, c) at word 32 r + (c ^ r); the column walk reads word 32 c + (r ^ c), bank r ^ c,
// which for fixed r is a permutation of 0..31 over c -> 1; the row walk writes bank c ^ r -> 1 too.
// diagonal: padded with blocks permuted -> the same.
TEST(ClosedForm, PaddedSwizzleDiagonalConflictFreeF32) {
  for (const char* k : {"padded", "swizzle", "diagonal"}) {
    const ReplayResult r = run(k, {2048, 2048});
    expect_sites(r, {{kI, 4 * kI, 4 * kI}, {kI, kI, kI}, {kI, kI, kI}, {kI, 4 * kI, 4 * kI}}, k);
    EXPECT_EQ(metric(r, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"), 0) << k;
    EXPECT_EQ(metric(r, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"), 0) << k;
  }
}

// The half-transposes (pad 1): coarse reads its tile along rows (word 33 r + c, consecutive) and stores
// out[(col0 + r) H + row0 + c]: 32 consecutive floats starting at a multiple of 32 elements -> 4 sectors.
// fine reads tile[c][r] (padded column, 1 wavefront) and stores like a copy.
TEST(ClosedForm, CoarseAndFineAreIdeal) {
  for (const char* k : {"coarse", "fine"})
    expect_sites(run(k, {2048, 2048}), {{kI, 4 * kI, 4 * kI}, {kI, kI, kI}, {kI, kI, kI}, {kI, 4 * kI, 4 * kI}}, k);
}

// f64 shared tiles (8-byte lanes, two phases of 16): coalesced column walk: lane c at words 64 c + 2 r (+1),
// banks 2r and 2r+1 for all 16 lanes of a phase -> 16 per phase, 32 per instruction, ideal 256 B / 128 = 2.
// padded: words 66 c + 2 r, banks 2 (c + r) mod 32 distinct over 16 lanes -> 1 per phase, 2 in all.
// swizzle: words 2 (32 c + (r ^ c)), banks 2 ((r ^ c) mod 16) distinct over 16 consecutive c -> 2 in all.
// Row walks (stores) are 16 x 8 B = 128 contiguous bytes per phase -> 2. Global: 256 B rows -> 8 sectors.
TEST(ClosedForm, SharedTilesF64) {
  const int64_t i = 1024 * 512 / 32;
  const std::vector<std::pair<const char*, int64_t>> ld_per_inst = {{"coalesced", 32}, {"padded", 2}, {"swizzle", 2}};
  for (const auto& [k, per] : ld_per_inst)
    expect_sites(run(k, {1024, 512}, {32, 8}, Dtype::F64),
                 {{i, 8 * i, 8 * i}, {i, 2 * i, 2 * i}, {i, per * i, 2 * i}, {i, 8 * i, 8 * i}},
                 std::string(k) + " f64");
}

// f16 shared tiles (2-byte lanes, one phase of 32, ideal 64 B -> 1):
// coalesced: lane c at half 32 c + r = word 16 c + r/2: banks r/2 (even c) and 16 + r/2 (odd c), 16 distinct
//   words each -> 16 wavefronts.
// padded (33 halves a row): lane c at half 33 c + r, word floor((33 c + r) / 2), bank = ((33 c + r) mod 64) / 2.
//   33 c mod 64 = c for even c and c + 32 for odd c. For even r the even-c lanes land in banks r/2 .. r/2+15
//   and the odd-c lanes in the other 16 banks: 1 wavefront. For odd r both groups shift by one half-word:
//   the even-c lanes cover banks (r-1)/2 .. (r-1)/2 + 15 and the odd-c lanes (r+33)/2 .. (r+33)/2 + 15
//   (mod 32), which overlap in exactly one bank ((r-1)/2) -> 2 wavefronts. r runs over 0..31 equally often, so
//   wavefronts = 1.5 x instructions: a one-element pad does NOT remove all conflicts for 2-byte elements.
// swizzle: lane c at half 32 c + (r ^ c), bank 16 (c mod 2) + ((r ^ c) >> 1) mod 16 -> even and odd c each
//   cover 16 distinct banks in their half -> 1. Row walks: 32 halves = 16 or 17 consecutive words -> 1.
// Global: 64-byte rows -> 2 sectors per request.
TEST(ClosedForm, SharedTilesF16) {
  const int64_t i = 1024 * 512 / 32;
  const std::vector<std::pair<const char*, int64_t>> ld_wavefronts = {
      {"coalesced", 16 * i}, {"padded", i + i / 2}, {"swizzle", i}, {"copy_shared", i}};
  for (const auto& [k, wf] : ld_wavefronts)
    expect_sites(run(k, {1024, 512}, {32, 8}, Dtype::F16), {{i, 2 * i, 2 * i}, {i, i, i}, {i, wf, i}, {i, 2 * i, 2 * i}},
                 std::string(k) + " f16");
}

// vec4 f32, block 32x8 -> tile 128x8. A load is 32 lanes x 16 B consecutive = 512 B aligned -> 16 sectors;
// there are N / 128 of them. Each thread then makes 4 scalar stores out[(x + k) H + y] with x = col0 + 4 c4:
// 32 different output rows -> 32 sectors, 4 N / 128 = N / 32 stores.
TEST(ClosedForm, Vec4F32) {
  const int64_t v = kN2048 / 128;
  const ReplayResult r = run("vec4", {2048, 2048});
  EXPECT_EQ(r.config.shape.tile_x, 128);
  EXPECT_EQ(r.config.shape.tile_y, 8);
  expect_sites(r, {{v, 16 * v, 16 * v}, {4 * v, 32 * 4 * v, 4 * 4 * v}}, "vec4");
  EXPECT_EQ(r.sites[0].bytes, kN2048 * 4);
  EXPECT_EQ(r.sites[0].lane_accesses, kN2048 / 4);
}

// vec4 f64: each thread's 4 elements (32 B) are two 16-byte loads: 2 N / 128 loads of 16 B x 32 lanes, lanes
// 32 B apart: lane footprints of load 0 are bytes [32 l, 32 l + 16) -> one sector per lane = 32 sectors,
// ideal 16. Together the two loads read every byte once.
TEST(ClosedForm, Vec4F64SplitsIntoTwoSixteenByteLoads) {
  const int64_t v = 1024 * 512 / 128;
  const ReplayResult r = run("vec4", {1024, 512}, {32, 8}, Dtype::F64);
  expect_sites(r, {{2 * v, 32 * 2 * v, 16 * 2 * v}, {4 * v, 32 * 4 * v, 8 * 4 * v}}, "vec4 f64");
}

// vec4_shared f32, block 32x8 -> tile 128x8, row of 129 floats. Global loads as vec4. The 4 scalar tile
// stores of one thread go to word 129 r + 4 c4 + k: bank (r + 4 c4 + k) mod 32 takes 8 values over the 32
// lanes, 4 distinct words each -> 4 wavefronts (3 conflicts). The drain walks the 128x8 transposed tile with
// a 32x8 block: c = threadIdx.x < 8 only, so each drain instruction has 8 active lanes: shared word 129 c + r
// (banks c + r, distinct) -> 1 wavefront; global 8 consecutive floats starting at a multiple of 8 -> 1 sector.
// Drain instructions: 8 warps x 16 steps per block x N / 1024 blocks = N / 8.
TEST(ClosedForm, Vec4SharedF32Block32x8) {
  const int64_t v = kN2048 / 128, d = kN2048 / 8;
  const ReplayResult r = run("vec4_shared", {2048, 2048});
  expect_sites(r, {{v, 16 * v, 16 * v}, {4 * v, 4 * 4 * v, 4 * v}, {d, d, d}, {d, d, d}}, "vec4_shared 32x8");
  EXPECT_EQ(r.sites[2].lane_accesses, kN2048);  // every element read once, 8 lanes at a time
}

// reg4x4 f32. Block 32x8 -> tile 128x32, one 4x4 step per thread, N / 16 threads = N / 512 warps, 4 loads
// and 4 stores each. Loads: 32 lanes x 16 B along one input row -> 16 sectors. Stores: lane c4 writes 16 B
// to output row x + j with x = col0 + 4 c4: 32 rows, 16 B inside one sector each -> 32 sectors (ideal 16).
// Block 16x16 -> tile 64x64: warp w holds threadIdx.y = 2w, 2w+1 and threadIdx.x 0..15. Loads: two runs of
// 16 x 16 B = 256 B (8 sectors) -> 16. Stores: 16 output rows, and in each the two lanes (tx, 2w), (tx, 2w+1)
// write y = row0 + 8w .. +3 and +4 .. +7: 32 B at a multiple of 32 B -> one sector -> 16 per store: ideal.
TEST(ClosedForm, Reg4x4Blocks32x8And16x16) {
  const int64_t i = 4 * (kN2048 / 512);
  ReplayResult r = run("reg4x4", {2048, 2048}, {32, 8});
  EXPECT_EQ(r.config.shape.tile_x, 128);
  EXPECT_EQ(r.config.shape.tile_y, 32);
  expect_sites(r, {{i, 16 * i, 16 * i}, {i, 32 * i, 16 * i}}, "reg4x4 32x8");
  r = run("reg4x4", {2048, 2048}, {16, 16});
  EXPECT_EQ(r.config.shape.tile_x, 64);
  EXPECT_EQ(r.config.shape.tile_y, 64);
  expect_sites(r, {{i, 16 * i, 16 * i}, {i, 16 * i, 16 * i}}, "reg4x4 16x16");
}

// 1000 x 3000 f32 naive, tile 32x32: grid 32 x 94. A load instruction is one row of one tile with >= 1
// column < W: 3000 rows x 32 tile columns = 96,000. Rows start at 4000 y bytes = 125 y sectors (aligned),
// so a full tile row is 4 sectors and the last (8 columns = 32 B) 1: 3000 x (31 x 4 + 1) = 375,000. A store
// touches one sector per active lane (output rows 12,000 B apart): N = 3,000,000.
TEST(ClosedForm, NaiveNonMultiple1000x3000) {
  const ReplayResult r = run("naive", {1000, 3000});
  expect_sites(r, {{96000, 375000, 375000}, {96000, 3000000, 375000}}, "naive 1000x3000");
}

// padded 1000 x 3000: ld in as naive. st tile: the same 96,000 instructions, each a row walk -> 1. The drain
// walks, per input column x (1000) and tile row band (94), one instruction of lanes c = rows: 94,000. Its
// shared reads are padded columns -> 1. Its stores: output row x starts at 12,000 x bytes (aligned), 93 full
// bands of 32 floats (4 sectors) and a last band of 3000 - 2976 = 24 floats = 96 B at an aligned start (3)
// -> 1000 x (93 x 4 + 3) = 375,000.
TEST(ClosedForm, PaddedNonMultiple1000x3000) {
  const ReplayResult r = run("padded", {1000, 3000});
  expect_sites(r, {{96000, 375000, 375000}, {96000, 96000, 96000}, {94000, 94000, 94000}, {94000, 375000, 375000}},
               "padded 1000x3000");
}

// vec4 1000 x 3000 f32 (tile 128x8): per row, ceil(1000 / 128) = 8 load instructions (the last with 26 lanes):
// 24,000 loads reading 4000 B per row = 125 sectors -> 375,000 (the 26-lane load: 416 B = 13 sectors, ideal
// too). Stores: 4 per load = 96,000, one sector per active lane -> N; their ideal is ceil(lanes x 4 / 32) = 4
// for the 32-lane ones and ceil(104 / 32) = 4 for the 26-lane ones -> 4 x 96,000.
TEST(ClosedForm, Vec4NonMultiple1000x3000) {
  expect_sites(run("vec4", {1000, 3000}), {{24000, 375000, 375000}, {96000, 3000000, 384000}}, "vec4 1000x3000");
}

// 33 x 17 f32 naive: grid 2 x 1. Loads: 17 rows x 2 tiles = 34. Tile 0 row y covers bytes 132 y .. 132 y +
// 127; 132 y mod 32 = 4 y mod 32, zero for y = 0, 8, 16 (4 sectors), else the run straddles 5 sectors; tile 1
// is one float (1 sector): 3 x 4 + 14 x 5 + 17 = 99. Stores: 34, one sector per element (output rows 68 B
// apart): 561. Ideal: ceil(128 / 32) = 4 for the 32-lane instructions, 1 for the single-lane ones.
TEST(ClosedForm, NaiveNonMultiple33x17) {
  expect_sites(run("naive", {33, 17}), {{34, 99, 17 * 4 + 17}, {34, 561, 17 * 4 + 17}}, "naive 33x17");
}

// diagonal only permutes which block does which tile (kernels/tiles.hpp), so every per-site total equals
// padded's, on square and non-square grids, and for partial tiles.
TEST(ClosedForm, DiagonalEqualsPadded) {
  const std::vector<std::pair<Size2, Dtype>> cases = {
      {{2048, 2048}, Dtype::F32}, {{96, 64}, Dtype::F32}, {{1000, 3000}, Dtype::F32},
      {{64, 224}, Dtype::F64},    {{250, 130}, Dtype::F16}};
  for (const auto& [m, d] : cases) {
    const ReplayResult a = run("padded", m, {32, 8}, d), b = run("diagonal", m, {32, 8}, d);
    const std::string what = "diagonal vs padded " + format_size2(m) + " " + dtype_name(d);
    ASSERT_EQ(a.sites.size(), b.sites.size());
    for (size_t i = 0; i < a.sites.size(); ++i) {
      EXPECT_EQ(a.sites[i].instructions, b.sites[i].instructions) << what << " site " << i;
      EXPECT_EQ(a.sites[i].lane_accesses, b.sites[i].lane_accesses) << what << " site " << i;
      EXPECT_EQ(a.sites[i].sectors, b.sites[i].sectors) << what << " site " << i;
      EXPECT_EQ(a.sites[i].wavefronts, b.sites[i].wavefronts) << what << " site " << i;
      EXPECT_EQ(a.sites[i].ideal_sectors, b.sites[i].ideal_sectors) << what << " site " << i;
      EXPECT_EQ(a.sites[i].ideal_wavefronts, b.sites[i].ideal_wavefronts) << what << " site " << i;
    }
    // And the loads cover the matrix exactly once.
    EXPECT_EQ(b.sites[0].lane_accesses, m.x * m.y) << what;
    EXPECT_EQ(b.sites[3].lane_accesses, m.x * m.y) << what;
  }
}

// The diagonal block mapping is a bijection of the tile grid, for square and non-square grids.
// best, block 16x16, default tile E*16 square (E = 16 / e: 64x64 f32, 32x32 f64, 128x128 f16). Every access is
// 16 bytes a lane, so each site moves the matrix's N e bytes in instructions of 32 x 16 = 512 B: N e / 512
// instructions. A global load is 16 lanes along one input row (256 contiguous bytes) and the next 16 along
// the row E below: 2 x 8 = 16 whole sectors, the ideal. A store is 16 lanes along an output row, twice: 16
// sectors. Shared 16-byte accesses are 4 phases of 8 lanes (4 ideal wavefronts). The swizzle puts a phase's 8
// column stores (8 consecutive j, transposed rows E j + c) in chunk i ^ (j mod 8): 8 distinct 16-byte bank
// groups, no conflict; a row load's 8 consecutive chunks are permuted within an aligned group of 8: none.
TEST(ClosedForm, BestIsIdealAtEveryDtype) {
  for (const auto& [dtype, e] : {std::pair{Dtype::F32, 4}, std::pair{Dtype::F64, 8}, std::pair{Dtype::F16, 2}}) {
    const int64_t insts = kN2048 * e / 512;
    const ReplayResult r = run("best", {2048, 2048}, {16, 16}, dtype);
    expect_sites(r, {{insts, 16 * insts, 16 * insts}, {insts, 4 * insts, 4 * insts}, {insts, 4 * insts, 4 * insts},
                     {insts, 16 * insts, 16 * insts}},
                 std::string("best ") + dtype_name(dtype));
    EXPECT_EQ(metric(r, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"), 0);
    EXPECT_EQ(metric(r, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"), 0);
  }
}

// best f32 with a pad of one chunk (4 elements) instead of the swizzle: transposed row E j + c starts
// (4 j + c) x 68 x 4 bytes in, so a phase's 8 column stores (j = j0 .. j0 + 7, same i and c) fall in 16-byte
// bank group (4 j + c + i) mod 8: 2 groups, 4 distinct chunks each, 4 wavefronts a phase, 16 an instruction
// against the ideal 4. The row loads stay contiguous: ideal.
TEST(ClosedForm, BestPaddedByAChunkConflictsFourWaysOnStores) {
  const int64_t insts = kN2048 * 4 / 512;
  const ReplayResult r = run("best", {2048, 2048}, {16, 16}, Dtype::F32, {}, 4);
  expect_sites(r, {{insts, 16 * insts, 16 * insts}, {insts, 16 * insts, 4 * insts}, {insts, 4 * insts, 4 * insts},
                   {insts, 16 * insts, 16 * insts}},
               "best f32 pad 4");
  EXPECT_EQ(metric(r, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"), 12 * insts);
}

TEST(Tiles, DiagonalTileOriginIsABijection) {
  const std::vector<std::pair<int, int>> grids = {{3, 5}, {5, 3}, {7, 2}, {2, 7}, {64, 64}, {1, 1},
                                                  {1, 9}, {9, 1}, {13, 13}, {6, 4}, {4, 6}};
  for (const auto& [gx, gy] : grids) {
    LaunchShape s;
    s.grid_x = gx;
    s.grid_y = gy;
    s.tile_x = 3;  // tiles of 3 x 5 elements: origins are multiples of these
    s.tile_y = 5;
    std::set<std::pair<int64_t, int64_t>> seen;
    for (int by = 0; by < gy; ++by) {
      for (int bx = 0; bx < gx; ++bx) {
        const TileOrigin o = diagonal_tile_origin(s, bx, by);
        ASSERT_EQ(o.col0 % 3, 0);
        ASSERT_EQ(o.row0 % 5, 0);
        ASSERT_GE(o.col0, 0);
        ASSERT_LT(o.col0 / 3, gx) << gx << "x" << gy;
        ASSERT_GE(o.row0, 0);
        ASSERT_LT(o.row0 / 5, gy) << gx << "x" << gy;
        seen.insert({o.col0, o.row0});
      }
    }
    EXPECT_EQ(int64_t(seen.size()), int64_t(gx) * gy) << "grid " << gx << "x" << gy << " is not covered once";
  }
}

// The diagonal mapping really reorders: on a square grid block (bx, by) takes tile column (bx + by) mod g in
// tile row bx (the whitepaper's formula), so block (1, 0) of a 4x4 grid takes tile (1, 1).
TEST(Tiles, DiagonalSquareFormula) {
  LaunchShape s;
  s.grid_x = s.grid_y = 4;
  s.tile_x = s.tile_y = 32;
  const TileOrigin o = diagonal_tile_origin(s, 1, 0);
  EXPECT_EQ(o.col0, 32);
  EXPECT_EQ(o.row0, 32);
  const TileOrigin p = diagonal_tile_origin(s, 3, 2);  // column (3 + 2) mod 4 = 1, row 3
  EXPECT_EQ(p.col0, 32);
  EXPECT_EQ(p.row0, 96);
}

// XorColumns permutes each row of a power-of-two tile; for_each_tile_step visits every tile position exactly
// once over the block's threads, with the same number of steps for every thread.
TEST(Tiles, XorColumnsPermuteRowsAndTileStepsCoverOnce) {
  for (int tx : {1, 2, 8, 32, 64}) {
    const XorColumns cols{tx};
    for (int r = 0; r < 2 * tx; ++r) {
      std::set<int> out;
      for (int c = 0; c < tx; ++c) out.insert(cols(r, c));
      ASSERT_EQ(int(out.size()), tx);
      ASSERT_EQ(*out.rbegin(), tx - 1);
    }
  }
  const int shapes[][4] = {{32, 32, 32, 8}, {8, 32, 8, 32}, {5, 7, 4, 2}, {7, 5, 32, 1}, {32, 128, 32, 8}};
  for (const auto& sh : shapes) {
    const int rows = sh[0], cols = sh[1], bx = sh[2], by = sh[3];
    std::vector<int> hits(rows * cols, 0);
    int steps_first = -1;
    for (int ty = 0; ty < by; ++ty)
      for (int txx = 0; txx < bx; ++txx) {
        int steps = 0;
        for_each_tile_step(make_tile_walk(rows, cols, bx, by), bx, by, txx, ty, [&](int r, int c, bool in) {
          ++steps;
          if (in) ++hits[r * cols + c];
          EXPECT_EQ(in, r < rows && c < cols);
        });
        if (steps_first < 0) steps_first = steps;
        EXPECT_EQ(steps, steps_first);
        EXPECT_EQ(steps, ((rows + by - 1) / by) * ((cols + bx - 1) / bx));
      }
    for (int h : hits) EXPECT_EQ(h, 1);
  }
}

}  // namespace
}  // namespace memsim
