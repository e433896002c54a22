// memsim --kernel-file end to end: the examples/ kernels compiled at run time and replayed, their counts
// against closed forms worked out here from each body's access pattern (never copied from memsim's output),
// and a user's mistakes, each one line and exit status 2. Every plugin is compiled once into a cache shared
// by the tests of this file (MEMSIM_CACHE_DIR), so each costs one compile (a few seconds) per build tree.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/calibration/held_open_map.hpp"
#include "lab/calibration/step_lines_map.hpp"
#include "tests/support/run_command.hpp"

namespace memsim::test {
namespace {

const std::string kExamples = std::string(MEMSIM_SOURCE_DIR) + "/examples/";
const std::string kFiles = std::string(MEMSIM_SOURCE_DIR) + "/tests/codegen/kernel_files/";

CommandResult memsim(std::vector<std::string> args) {
  setenv("MEMSIM_CACHE_DIR", MEMSIM_TEST_CACHE_DIR, 1);
  args.push_back("--no-compile");  // the instruction estimate: nvcc's code is not what these tests check
  const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
  return run_command(MEMSIM_BIN, args, std::string(MEMSIM_TEST_CACHE_DIR) + "-" + t->name());
}

// A failed run fails the test and gives an empty report; the tests hold it non-const so that reading a key
// it lacks yields null (a failed comparison), not nlohmann's assertion, which would abort before the run's
// error is shown.
nlohmann::json report(const std::vector<std::string>& args) {
  std::vector<std::string> a = args;
  a.insert(a.end(), {"--format", "json"});
  const CommandResult r = memsim(a);
  EXPECT_EQ(r.code, 0) << r.err;
  return r.code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

// -1 (and a failure) where the report has no such metric, e.g. after a failed run: never an abort that hides
// the run's own error.
int64_t metric(const nlohmann::json& r, const std::string& name) {
  if (!r.contains("metrics") || !r["metrics"].contains(name)) {
    ADD_FAILURE() << "the report has no metric " << name;
    return -1;
  }
  return r["metrics"][name].get<int64_t>();
}
const char* kLdReq = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
const char* kStReq = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum";
const char* kLdSec = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
const char* kStSec = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum";
const char* kShLd = "smsp__inst_executed_op_shared_ld.sum";
const char* kShSt = "smsp__inst_executed_op_shared_st.sum";
const char* kWaveLd = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
const char* kWaveSt = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
const char* kConfLd = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
const char* kConfSt = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";

// docs/kernels.md's example. 256x256 f32, block 32x1, tile 32x32: 8x8 blocks of one warp, 32 column steps
// each, so 64 x 32 = 2048 warp instructions per site. A load's 32 lanes read 32 different rows: one sector
// each; a store's lanes write 32 consecutive floats of an output row, 128 aligned bytes: 4 sectors.
TEST(KernelFile, DocsExampleRowPerThread) {
  auto r = report({"--kernel-file", kExamples + "row_per_thread.hpp", "--matrix", "256x256", "--block", "32x1",
                         "--tile", "32x32"});
  EXPECT_EQ(r["kernel"], "row_per_thread");
  EXPECT_EQ(metric(r, kLdReq), 2048);
  EXPECT_EQ(metric(r, kStReq), 2048);
  EXPECT_EQ(metric(r, kLdSec), 2048 * 32);
  EXPECT_EQ(metric(r, kStSec), 2048 * 4);
}

// The float2 transpose. Its footprint (2x1, looping to a square tile) sets the default tile: 32x8 covers
// 64x64, so 256x256 is 4x4 blocks of 8 warps; each warp makes 8 steps per phase. Global: 16 x 8 x 8 = 1024
// requests a side, 32 lanes x 8 bytes = 256 aligned bytes each: 8 sectors. Shared: two scalar stores and two
// scalar loads a step, 2048 instructions each. A store's lane tx writes word (2 tx + i) * (64 + pad) + r; with
// pad 1 that is 2 tx + i + r + 128 tx, so bank (2 tx + i + r) mod 32: lanes tx and tx + 16 share a bank with
// different words, 2 wavefronts where 1 is ideal. A load's lane reads word r * 65 + 2 tx + i: bank
// (r + 2 tx + i) mod 32, the same 2-way. With pad 2 the store's word is 132 tx + ...: bank 4 tx + ..., four
// lanes a bank, 4 wavefronts; the load's r * 66 + 2 tx + i keeps 2.
TEST(KernelFile, Float2PaddedTransposeClosedForms) {
  auto r = report({"--kernel-file", kExamples + "float2_padded.hpp", "--matrix", "256x256"});
  EXPECT_EQ(r["config"]["tile"]["x"], 64);
  EXPECT_EQ(r["config"]["tile"]["y"], 64);
  EXPECT_EQ(metric(r, kLdReq), 1024);
  EXPECT_EQ(metric(r, kStReq), 1024);
  EXPECT_EQ(metric(r, kLdSec), 1024 * 8);
  EXPECT_EQ(metric(r, kStSec), 1024 * 8);
  EXPECT_EQ(metric(r, kShSt), 2048);
  EXPECT_EQ(metric(r, kShLd), 2048);
  EXPECT_EQ(metric(r, kWaveSt), 2048 * 2);
  EXPECT_EQ(metric(r, kConfSt), 2048);
  EXPECT_EQ(metric(r, kWaveLd), 2048 * 2);
  EXPECT_EQ(metric(r, kConfLd), 2048);
  EXPECT_TRUE(r["findings"].empty());

  const auto p2 = report({"--kernel-file", kExamples + "float2_padded.hpp", "--matrix", "256x256", "--pad", "2"});
  EXPECT_EQ(metric(p2, kWaveSt), 2048 * 4);
  EXPECT_EQ(metric(p2, kConfSt), 2048 * 3);
  EXPECT_EQ(metric(p2, kWaveLd), 2048 * 2);
}

// 16-byte copies, tile 128x8 under 32x8. f32: 256x256 / 4 elements a thread = 16384 thread steps, 512 warp
// instructions a side, 32 x 16 = 512 bytes each: 16 sectors. f64: four elements are 32 bytes, two 16-byte
// pieces, so 1024 instructions a side, and a piece's lanes lie 32 bytes apart: 32 sectors each, every sector
// touched twice (twice the ideal 65536 x 8 / 32).
TEST(KernelFile, CopyVec4ClosedForms) {
  auto r = report({"--kernel-file", kExamples + "copy_vec4.hpp", "--matrix", "256x256"});
  EXPECT_EQ(r["config"]["tile"]["x"], 128);
  EXPECT_EQ(r["config"]["tile"]["y"], 8);
  EXPECT_EQ(metric(r, kLdReq), 512);
  EXPECT_EQ(metric(r, kLdSec), 512 * 16);
  EXPECT_EQ(metric(r, kStSec), 512 * 16);
  auto d = report({"--kernel-file", kExamples + "copy_vec4.hpp", "--matrix", "256x256", "--dtype", "f64"});
  EXPECT_EQ(metric(d, kLdReq), 1024);
  EXPECT_EQ(metric(d, kStReq), 1024);
  EXPECT_EQ(metric(d, kLdSec), 1024 * 32);
  EXPECT_EQ(metric(d, kLdSec), 2 * 65536 * 8 / 32);
}

// A kernel file's kernel is compared with the suite's by --kernel, reported first; the block classes it
// claims (blocks_translate) give what the replay of every block gives.
TEST(KernelFile, ComparedWithTheSuiteAndExactReplayAgrees) {
  auto c = report({"--kernel-file", kExamples + "float2_padded.hpp", "--kernel", "padded", "--matrix", "512x512"});
  ASSERT_EQ(c["kernels"].size(), 2u);
  EXPECT_EQ(c["kernels"][0]["kernel"], "float2_padded");
  EXPECT_EQ(c["kernels"][1]["kernel"], "padded");
  auto classes = report({"--kernel-file", kExamples + "float2_padded.hpp", "--matrix", "1000x520"});
  auto exact = report({"--kernel-file", kExamples + "float2_padded.hpp", "--matrix", "1000x520", "--exact"});
  EXPECT_EQ(classes["metrics"], exact["metrics"]);
}

// Findings hold for plugins: --define MISALIGN shifts every float2 load by one float. Lanes then start at odd
// element offsets (4 bytes past an 8-byte boundary): every load is misaligned; the last lane of the last row
// reads one element past the matrix. Without the define: none (a separate plugin, by the define).
TEST(KernelFile, FindingsAndDefines) {
  const std::string file = kFiles + "findings.hpp";
  auto clean = report({"--kernel-file", file, "--matrix", "64x64"});
  EXPECT_TRUE(clean["findings"].empty());
  auto bad = report({"--kernel-file", file, "--define", "MISALIGN", "--matrix", "64x64"});
  ASSERT_EQ(bad["findings"].size(), 2u) << bad["findings"].dump();
  std::vector<std::string> kinds;
  for (const auto& f : bad["findings"]) kinds.push_back(f["kind"]);
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "misaligned"), kinds.end());
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "out_of_bounds"), kinds.end());
  for (const auto& f : bad["findings"])
    if (f["kind"] == "misaligned") EXPECT_EQ(f["count"], 64 * 64 / 2);  // every lane access
    else EXPECT_EQ(f["count"], 1);                                        // the last one
}

// One line, exit status 2, for each mistake.
void expect_refused(const std::vector<std::string>& args, const std::string& words) {
  const CommandResult r = memsim(args);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find(words), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(KernelFile, MistakesAreOneLine) {
  expect_refused({"--kernel-file", kFiles + "missing.hpp"}, "missing.hpp: no such file");
  expect_refused({"--kernel-file", kFiles + "findings.hpp", "--define", "1X=2"}, "invalid --define '1X=2'");
  expect_refused({"--define", "X=1"}, "--define goes with --kernel-file");
  expect_refused({"--kernel-file", kFiles + "no_kernel.hpp"}, "defines no kernel: name its struct once with MEMSIM_KERNEL");
  expect_refused({"--kernel-file", kFiles + "two_kernels.hpp"}, "defines more than one kernel");
  expect_refused({"--kernel-file", kFiles + "other_version.hpp"}, "written for another kernel interface");
  expect_refused({"--kernel-file", kFiles + "suite_name.hpp"}, "names its kernel 'padded', which a suite kernel has");
  for (const char* mistake : {"no_kernel", "two_kernels", "other_version", "suite_name"}) {
    const CommandResult r = memsim({"--kernel-file", kFiles + mistake + ".hpp"});
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

// A file that does not compile: the compiler's first error (file, line, message), then memsim's summary.
TEST(KernelFile, CompileErrorShowsTheFirstError) {
  const CommandResult r = memsim({"--kernel-file", kFiles + "does_not_compile.hpp"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("does_not_compile.hpp:11"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("load_globl"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("memsim: cannot compile kernel file"), std::string::npos) << r.err;
  EXPECT_LE(std::count(r.err.begin(), r.err.end(), '\n'), 6) << r.err;
}

// The calibration's memsim-step-lines and memsim-held-open as kernel files (lab/calibration/, what
// fit_held_open_time.py replays). 1024x1024 f32 (the output's rows x columns), a block of W = 32 warps:
// step-lines with K = 1 has lane l write row l, warp w column w, one step a tile of 32 rows x 32 columns, so
// every output line (a row's 32 floats of the block's columns) takes 32 warps' 4-byte pieces in one round:
// each of its 4 sectors from 8 warps. 1024 x 1024 x 4 / 32 = 131,072 sectors, all from several warps, all of
// lines whole in one round; with S = 4 steps a tile, each step's lines are whole in it, the same.
// held-open with P = 2 (groups of 2 warps, 8 a block of 32x8), Q = 1, R = 32: a group's line (32 columns of
// a row) takes its 32 floats from 2 warps over 16 rounds, so its sectors are from 2 warps and none of a line
// whole in one round: 131,072 and 0.
TEST(KernelFile, CalibrationKernelsSectorsOfLinesWholeInOneRound) {
  const std::string lab = std::string(MEMSIM_SOURCE_DIR) + "/lab/calibration/";
  for (const char* steps : {"SL_S=1", "SL_S=4"}) {
    auto r = report({"--kernel-file", lab + "step_lines_kernel.hpp", "--define", steps, "--define", "SL_K=1",
                     "--matrix", "1024x1024", "--block", "32x32",
                     "--tile", std::string(steps) == "SL_S=1" ? "32x32" : "128x32"});
    EXPECT_EQ(r["prediction"]["sectors_from_warps"], 131072.0) << steps;
    EXPECT_EQ(r["prediction"]["sectors_from_warps_in_one_round"], 131072.0) << steps;
  }
  auto h = report({"--kernel-file", lab + "held_open_kernel.hpp", "--define", "HO_P=2", "--define", "HO_Q=1",
                   "--matrix", "1024x1024", "--block", "32x8", "--tile", "128x32"});
  EXPECT_EQ(h["prediction"]["sectors_from_warps"], 131072.0);
  EXPECT_EQ(h["prediction"]["sectors_from_warps_in_one_round"], 0.0);
}

// memsim-microbench --store-order's tile_stores (lab/calibration/tile_stores_kernel.hpp), worked by hand: f16 tiles
// of 24 a side, blocks 12x4 (a warp of rows 0, 1 and 8 lanes of row 2, and one of row 2's last 4 and row 3), 2 x 2
// tiles on 48 x 48: 4 blocks x 2 warps x 6 rows x 2 columns = 96 store requests. A row is 96 bytes, 3 sectors: the
// left tile writes bytes 0-47 (sector 0 whole, half of sector 1), the right one 48-95. The left block's warps touch
// 3 + 6 and 2 + 3 sectors a step of rows, the right's 5 + 3 and 3 + 2: (14 + 13) x 6 x 2 = 324 sectors. Each block
// leaves sector 1 of each of its 24 rows to the other: 96 split sectors. Every one of the output's 36 lines holds one
// (they lie 96 bytes apart), and the blocks' shares of each line's bytes add up to the line: 36 split lines. The
// same both ways; the other writer is the next block along, 2 (the tiles a column) down.
TEST(KernelFile, TileStoresCountsWorkedByHand) {
  const std::string kernel = std::string(MEMSIM_SOURCE_DIR) + "/lab/calibration/tile_stores_kernel.hpp";
  for (const char* down : {"TS_DOWN=0", "TS_DOWN=1"}) {
    auto r = report({"--kernel-file", kernel, "--define", "TS_TW=24", "--define", down, "--matrix", "48x48",
                     "--dtype", "f16", "--block", "12x4", "--tile", "24x24"});
    EXPECT_EQ(metric(r, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"), 96) << down;
    EXPECT_EQ(metric(r, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"), 324) << down;
    EXPECT_EQ(r["prediction"]["split_sectors"], 96.0) << down;
    EXPECT_DOUBLE_EQ(r["prediction"]["split_lines"].get<double>(), 36.0) << down;
    EXPECT_DOUBLE_EQ(r["prediction"]["split_blocks_apart"].get<double>(), std::string(down) == "TS_DOWN=1" ? 2.0 : 1.0)
        << down;
  }
}

// memsim-step-lines' " next" runs (SL_NEXT=1): groups of E / (W K) consecutive blocks take the parts of the same
// lines. A u32 block 8x16 (4 warps, 4 elements a row each: 16 of a line's 32) on a 1024^2 matrix, tile 8x16, one
// step: 128 x 64 = 8,192 blocks, each warp one store request of 8 rows x 16 bytes, 8 half sectors: 8,192 x 4 =
// 32,768 requests and 262,144 sectors, either numbering. The " next" one takes the tiles out of launch order, so
// every block is replayed, not translated. Where the block writes whole lines (u32 32x32, 32 elements a row), the
// numbering is the usual one and the prediction the same.
TEST(KernelFile, StepLinesNextNumbersTheSameTiles) {
  const std::string kernel = std::string(MEMSIM_SOURCE_DIR) + "/lab/calibration/step_lines_kernel.hpp";
  for (const char* next : {"SL_NEXT=0", "SL_NEXT=1"}) {
    auto r = report({"--kernel-file", kernel, "--define", "SL_S=1", "--define", "SL_K=4", "--define", next,
                     "--matrix", "1024x1024", "--block", "8x16", "--tile", "8x16"});
    EXPECT_EQ(metric(r, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"), 32768) << next;
    EXPECT_EQ(metric(r, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"), 262144) << next;
    if (std::string(next) == "SL_NEXT=1") {
      EXPECT_EQ(r["config"]["replay"]["path"], "full");
      EXPECT_EQ(r["config"]["replay"]["blocks_replayed"], 8192);
    } else {
      EXPECT_EQ(r["config"]["replay"]["path"], "block_classes");
    }
  }
  std::vector<nlohmann::json> whole;
  for (const char* next : {"SL_NEXT=0", "SL_NEXT=1"})
    whole.push_back(report({"--kernel-file", kernel, "--define", "SL_S=4", "--define", "SL_K=1", "--define", next,
                            "--matrix", "1024x1024", "--block", "32x32", "--tile", "128x32"}));
  EXPECT_EQ(whole[0]["prediction"]["time_us"], whole[1]["prediction"]["time_us"]);
  EXPECT_EQ(whole[0]["prediction"]["open_partial_lines"], whole[1]["prediction"]["open_partial_lines"]);
}

// memsim-step-lines' " staged" runs (SL_STAGED=1): the same stores, every load before a barrier. A u32 block 8x16
// (4 warps, K = 4) walking S = 4 steps of a 1024^2 matrix, tile 32x16: 1024 / 32 x 1024 / 16 = 2,048 blocks, 4
// warps x 4 steps a block, each store request 8 rows x 16 bytes: 32,768 requests and 262,144 sectors either way.
// Step by step a warp's loads after a store start a round, so its lines close in 4 rounds; staged, all its stores
// follow the barrier, so they are one round.
TEST(KernelFile, StepLinesStagedStoresInOneRound) {
  const std::string kernel = std::string(MEMSIM_SOURCE_DIR) + "/lab/calibration/step_lines_kernel.hpp";
  for (const char* staged : {"SL_STAGED=0", "SL_STAGED=1"}) {
    auto r = report({"--kernel-file", kernel, "--define", "SL_S=4", "--define", "SL_K=4", "--define", staged,
                     "--matrix", "1024x1024", "--block", "8x16", "--tile", "32x16"});
    EXPECT_EQ(metric(r, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"), 32768) << staged;
    EXPECT_EQ(metric(r, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"), 262144) << staged;
    EXPECT_EQ(r["prediction"]["closed_line_rounds"], std::string(staged) == "SL_STAGED=1" ? 1.0 : 4.0) << staged;
  }
}

// step_lines_map.hpp, the index math memsim-step-lines runs on the GPU and its kernel file replays, worked by
// hand on an 8192-row output of u32: W = 4 warps, S = 2 steps, K = 4 (R = 8 rows a request), so a block covers
// 16 rows by 16 columns and 8192 / 16 = 512 row blocks. Block 513: row block 1, column block 1, origin (16, 16).
// Thread 37 is warp 1, lane 5: row 16 + 5 / 4 = 17 (25 in step 1), column 16 + 4 x 1 + 5 mod 4 = 21. A " next"
// run groups 128 / (4 x 4 x 4) = 2 blocks: block 513 is group 256's second, row block 256 (origin row 4096) and
// column block 0 x 2 + 1 = 1, so it writes columns 16-31 of the rows whose columns 0-15 block 512 writes (one
// 128-byte line between them). At W K x 4 bytes = 128 (W = 8) a block writes whole lines: no grouping.
TEST(StepLinesMap, HandWorkedPositions) {
  const step_lines::BlockOrigin o = step_lines::block_origin(4, 4, 2, 4, false, 8192, 513);
  EXPECT_EQ(o.row, 16u);
  EXPECT_EQ(o.col, 16u);
  EXPECT_EQ(step_lines::row_in_step(o, 5, 4, 0), 17u);
  EXPECT_EQ(step_lines::row_in_step(o, 5, 4, 1), 25u);
  EXPECT_EQ(step_lines::column(o, 1, 5, 4), 21u);

  const step_lines::BlockOrigin first = step_lines::block_origin(4, 4, 2, 4, true, 8192, 512);
  const step_lines::BlockOrigin second = step_lines::block_origin(4, 4, 2, 4, true, 8192, 513);
  EXPECT_EQ(first.row, 4096u);
  EXPECT_EQ(second.row, 4096u);
  EXPECT_EQ(first.col, 0u);
  EXPECT_EQ(second.col, 16u);
  EXPECT_EQ(step_lines::parts_of(4, 4, 4, true), 2u);
  EXPECT_EQ(step_lines::parts_of(4, 8, 4, true), 1u);
  EXPECT_EQ(step_lines::parts_of(4, 4, 4, false), 1u);
}

// held_open_map.hpp, memsim-held-open's index math, worked by hand on an 8192-row output of u32 (E = 32 elements
// a line): P = 2 (4 groups of 2 warps), Q = 2 lines a row, R = 16 rows a request (K = 2). A block covers 16 x 4 =
// 64 rows by 2 x 32 = 64 columns, 8192 / 64 = 128 row blocks; block 130 is row block 2, column block 1: origin
// (128, 64). Warp 3 (group 1, member 1), lane 5: row 128 + 16 x 1 + 5 / 2 = 146, first column 64 + 5 mod 2 = 65.
// Line 1's piece in round 2: column 65 + 32 + (2 x 2 + 1) x 2 = 107. Rows apart, a block covers 2 x 64 = 128 rows
// by one line: 64 row blocks, block 130 is row block 2, column block 2, origin (256, 64), and line 1 lies
// 16 x 4 = 64 rows below line 0, in the same columns (65 + 10 = 75). Sequential (R = 32, K = 1: 16 rounds a line),
// round 20 is line 1's round 4: column c0 + 32 + 4 x 2 + member.
TEST(HeldOpenMap, HandWorkedPositions) {
  const held_open::BlockOrigin o = held_open::block_origin(4, 2, 2, 16, false, 8192, 130);
  EXPECT_EQ(o.row, 128u);
  EXPECT_EQ(o.col, 64u);
  EXPECT_EQ(held_open::thread_row(o, 3, 5, 2, 16), 146u);
  EXPECT_EQ(held_open::thread_col(o, 5, 16), 65u);
  EXPECT_EQ(held_open::line_col(uint64_t(65), 2, 1, 1, false, 4, 2, 16), 107u);
  EXPECT_EQ(held_open::line_row(uint64_t(146), 1, false, 2, 16), 146u);

  const held_open::BlockOrigin apart = held_open::block_origin(4, 2, 2, 16, true, 8192, 130);
  EXPECT_EQ(apart.row, 256u);
  EXPECT_EQ(apart.col, 64u);
  EXPECT_EQ(held_open::line_row(uint64_t(274), 1, true, 2, 16), 338u);
  EXPECT_EQ(held_open::line_col(uint64_t(65), 2, 1, 1, true, 4, 2, 16), 75u);

  EXPECT_EQ(held_open::sequential_col(uint64_t(0), 20, 1, 4, 2, 32), 41u);
}

}  // namespace
}  // namespace memsim::test
