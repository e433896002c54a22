// The validation stage's host side, without a GPU: the reference each output is checked against, the input
// and poison it relies on, Nsight Compute's CSV, the report's verdicts, the check of a saved run, and
// memsim-validate (--render, option errors) and memsim-microbench (option errors) run as a user runs them.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <numeric>
#include <sstream>
#include <vector>

#include "codegen/compiled_code.hpp"
#include "codegen/kernel_file.hpp"
#include "kernels/registry.hpp"
#include "kernels/resolve.hpp"
#include "sim/replay.hpp"
#include "tests/support/run_command.hpp"
#include "validate/cute_transpose.hpp"
#include "validate/device_info.hpp"
#include "validate/kernel_file_launch.hpp"
#include "validate/ncu.hpp"
#include "validate/reached.hpp"
#include "validate/reference.hpp"
#include "validate/report.hpp"
#include "validate/suite_launch.hpp"
#include "validate/sweep.hpp"

#ifndef MEMSIM_VALIDATE_BIN
#error "MEMSIM_VALIDATE_BIN (path of the memsim-validate binary) must be defined by the build"
#endif

namespace memsim::validate {
namespace {

LaunchShape shape(int64_t w, int64_t h, int tile) {
  LaunchShape s;
  s.width = w;
  s.height = h;
  s.tile_x = s.tile_y = tile;
  return s;
}

std::vector<uint32_t> expected(OutputKind k, const LaunchShape& s) {
  const OutputDims d = output_dims(k, s);
  std::vector<uint32_t> out;
  for (int64_t r = 0; r < d.rows; ++r)
    for (int64_t c = 0; c < d.cols; ++c) out.push_back(uint32_t(source_index(k, s, r, c)));
  return out;
}

// A 4-column, 2-row input 0..7 with 2x2 tiles: A = [[0,1],[4,5]] at the left, B = [[2,3],[6,7]] at the right.
TEST(Reference, WorkedExamples) {
  const LaunchShape s = shape(4, 2, 2);
  EXPECT_EQ(expected(OutputKind::Copy, s), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(expected(OutputKind::Transpose, s), (std::vector<uint32_t>{0, 4, 1, 5, 2, 6, 3, 7}));
  // coarse: tiles stacked in the 2-column output, each unchanged
  EXPECT_EQ(expected(OutputKind::TilesMoved, s), (std::vector<uint32_t>{0, 1, 4, 5, 2, 3, 6, 7}));
  // fine: each tile transposed where it stands
  EXPECT_EQ(expected(OutputKind::TilesTransposed, s), (std::vector<uint32_t>{0, 4, 2, 6, 1, 5, 3, 7}));
}

TEST(Reference, EveryKindIsAPermutation) {
  const LaunchShape s = shape(96, 64, 32);
  for (OutputKind k : {OutputKind::Copy, OutputKind::Transpose, OutputKind::TilesMoved, OutputKind::TilesTransposed}) {
    std::vector<uint32_t> e = expected(k, s);
    std::sort(e.begin(), e.end());
    std::vector<uint32_t> all(e.size());
    std::iota(all.begin(), all.end(), 0u);
    EXPECT_EQ(e, all) << output_kind_name(k);
  }
}

TEST(Reference, CheckFindsSwapsAndUnwrittenElements) {
  const LaunchShape s = shape(100, 72, 32);
  const int64_t n = s.width * s.height;
  for (int eb : {2, 4, 8}) {
    std::vector<unsigned char> in(size_t(n) * eb), out(size_t(n) * eb);
    fill_random_input(in.data(), n, eb, 11);
    const OutputDims d = output_dims(OutputKind::Transpose, s);
    for (int64_t r = 0; r < d.rows; ++r)
      for (int64_t c = 0; c < d.cols; ++c)
        std::memcpy(&out[size_t(r * d.cols + c) * eb], &in[size_t(source_index(OutputKind::Transpose, s, r, c)) * eb], eb);
    EXPECT_TRUE(check_output(OutputKind::Transpose, s, eb, in.data(), out.data()).passed());

    std::vector<unsigned char> swapped = out;
    std::swap_ranges(&swapped[size_t(5) * eb], &swapped[size_t(6) * eb], &swapped[size_t(77) * eb]);
    const OutputCheck sw = check_output(OutputKind::Transpose, s, eb, in.data(), swapped.data());
    EXPECT_EQ(sw.mismatches, 2);
    EXPECT_EQ(sw.first_row, 0);
    EXPECT_EQ(sw.first_col, 5);

    std::vector<unsigned char> hole = out;
    std::memset(&hole[size_t(n - 1) * eb], kPoisonByte, eb);
    const OutputCheck h = check_output(OutputKind::Transpose, s, eb, in.data(), hole.data(), 3);
    EXPECT_EQ(h.mismatches, 1);
    EXPECT_EQ(h.unwritten, 1);
    EXPECT_EQ(h.first_row, d.rows - 1);
  }
}

TEST(Reference, RandomInputIsNeverZeroOrPoisonAndRepeats) {
  const int64_t n = 3 << 20;  // more than one generator chunk
  for (int eb : {2, 4, 8}) {
    std::vector<unsigned char> a(size_t(n) * eb), b(size_t(n) * eb), zero(eb, 0), poison(eb, kPoisonByte);
    fill_random_input(a.data(), n, eb, 5);
    fill_random_input(b.data(), n, eb, 5);
    EXPECT_EQ(a, b);
    int64_t bad = 0;
    for (int64_t i = 0; i < n; ++i) {
      const unsigned char* e = &a[size_t(i) * eb];
      bad += std::memcmp(e, zero.data(), eb) == 0 || std::memcmp(e, poison.data(), eb) == 0;
    }
    EXPECT_EQ(bad, 0) << eb;
  }
}

TEST(Sweep, ListsExpandInGroupOrderAndSkipUnsupported) {
  const SweepSpec spec = parse_sweep("copy,coarse", "32x8", "64x64,100x72", "f32,f64", std::nullopt, std::nullopt);
  const std::vector<UserConfig> users = expand_sweep(spec);
  ASSERT_EQ(users.size(), 8u);
  EXPECT_EQ(users[0].matrix, (Size2{64, 64}));
  EXPECT_EQ(users[1].kernel, "coarse");
  EXPECT_EQ(users[2].dtype, Dtype::F64);
  const ResolvedSweep r = resolve_sweep(users, LaunchLimits{});
  EXPECT_EQ(r.configs.size(), 6u);  // coarse needs whole tiles: not 100x72
  ASSERT_EQ(r.skipped.size(), 2u);
  EXPECT_NE(r.skipped[0].reason.find("whole tiles"), std::string::npos);
  EXPECT_THROW(parse_sweep("nope", "32x8", "64x64", "f32", std::nullopt, std::nullopt), ConfigError);
  EXPECT_THROW(resolve_sweep({users[5]}, LaunchLimits{}), ConfigError);  // a sweep of one rethrows
  EXPECT_EQ(parse_sweep("all", "32x8", "64x64", "f32", std::nullopt, std::nullopt).kernels.size(), kernel_suite().size());
}

// A value listed twice would run the same configurations twice: refused, naming it.
TEST(Sweep, RefusesValuesListedTwice) {
  auto error = [](const char* k, const char* b, const char* m, const char* d) -> std::string {
    try {
      parse_sweep(k, b, m, d, std::nullopt, std::nullopt);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_EQ(error("all,all,naive", "32x8", "64x64", "f32"),
            "--kernels lists copy more than once (all is every kernel of the suite)");
  EXPECT_EQ(error("all,naive", "32x8", "64x64", "f32"), "--kernels lists naive more than once (all is every kernel of the suite)");
  EXPECT_EQ(error("copy, copy", "32x8", "64x64", "f32"), "--kernels lists copy more than once");
  EXPECT_EQ(error("copy", "32x8,16x16,32x8", "64x64", "f32"), "--blocks lists 32x8 more than once");
  EXPECT_EQ(error("copy", "32x8", "64x64,64x64", "f32"), "--matrices lists 64x64 more than once");
  EXPECT_EQ(error("copy", "32x8", "64x64", "f32,f64,f32"), "--dtypes lists f32 more than once");
  EXPECT_EQ(error("copy,naive", "32x8,8x32", "64x64,64x32", "f32,f16"), "accepted");
}

TEST(Ncu, ParsesCsvWithProfilerLinesAndGroupedDigits) {
  std::istringstream in(
      "==PROF== Connected to process 123 (/x/memsim-validate)\n"
      "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
      "\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
      "\"0\",\"123\",\"memsim-validate\",\"h\",\"void memsim::validate::suite_kernel<memsim::suite::Padded, float>"
      "(memsim::DeviceMemory<float>, memsim::LaunchShape)\",\"1\",\"7\",\"(32, 8, 1)\",\"(64, 64, 1)\",\"0\",\"9.0\","
      "\"Command line profiler metrics\",\"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum\",\"sector\",\"524,288\"\n"
      "\"0\",\"123\",\"memsim-validate\",\"h\",\"void memsim::validate::suite_kernel<memsim::suite::Padded, float>"
      "(memsim::DeviceMemory<float>, memsim::LaunchShape)\",\"1\",\"7\",\"(32, 8, 1)\",\"(64, 64, 1)\",\"0\",\"9.0\","
      "\"Command line profiler metrics\",\"gpu__time_duration.sum\",\"nsecond\",\"12544\"\n"
      "\"1\",\"123\",\"memsim-validate\",\"h\",\"void memsim::validate::suite_kernel<memsim::suite::Copy, double>"
      "(memsim::DeviceMemory<double>, memsim::LaunchShape)\",\"1\",\"7\",\"(32, 8, 1)\",\"(64, 64, 1)\",\"0\",\"9.0\","
      "\"Command line profiler metrics\",\"dram__bytes_read.sum\",\"byte\",\"16777216\"\n"
      "==PROF== Disconnected from process 123\n");
  const std::vector<NcuRow> rows = parse_ncu_csv(in);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_NE(rows[0].kernel_name.find("suite::Padded, float>"), std::string::npos);
  EXPECT_EQ(rows[0].grid_size, "(64, 64, 1)");
  EXPECT_EQ(rows[0].metrics.at("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), 524288.0);
  EXPECT_EQ(rows[0].metrics.at("gpu__time_duration.sum"), 12544.0);
  EXPECT_EQ(rows[1].metrics.at("dram__bytes_read.sum"), 16777216.0);
}

TEST(Ncu, ParsesTheRawPageToo) {
  std::istringstream in(
      "\"ID\",\"Kernel Name\",\"Grid Size\",\"dram__bytes_read.sum\",\"smsp__inst_executed_op_shared_ld.sum\"\n"
      "\"\",\"\",\"\",\"byte\",\"inst\"\n"
      "\"0\",\"suite_kernel\",\"(64, 64, 1)\",\"1,024\",\"7\"\n"
      "\"1\",\"suite_kernel\",\"(8, 8, 1)\",\"2048\",\"0\"\n");
  const std::vector<NcuRow> rows = parse_ncu_csv(in);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].metrics.at("dram__bytes_read.sum"), 1024.0);
  EXPECT_EQ(rows[1].grid_size, "(8, 8, 1)");
  EXPECT_EQ(rows[1].metrics.at("smsp__inst_executed_op_shared_ld.sum"), 0.0);
}

// ncu prints demangled names without namespaces; c++filt keeps them. Either must find its configuration, and
// a kernel whose name extends another's (CopyShared, Vec4Shared) must not be taken for it, nor a static
// instantiation for the run-time one or for another static shape.
TEST(Ncu, KernelNamesMatchTheirConfiguration) {
  UserConfig u;
  u.kernel = "copy";
  const LaunchConfig copy = resolve_launch(u);  // block 32x8: the static shape of tile 32x32
  u.kernel = "copy_shared";
  const LaunchConfig shared = resolve_launch(u);
  u.kernel = "copy";
  u.dtype = Dtype::F16;
  const LaunchConfig copy16 = resolve_launch(u);
  u.dtype = Dtype::F32;
  u.block = {64, 4};  // no static instantiation
  const LaunchConfig copy_dynamic = resolve_launch(u);
  ASSERT_STREQ(suite_kernel_shape_kind(copy), "static");
  ASSERT_STREQ(suite_kernel_shape_kind(copy_dynamic), "dynamic");
  const std::string ncu_name =
      "void suite_kernel_any<Copy, float, StaticShape<32, 8, 32, 32, 0, int>>(DeviceMemory<T2>, T3)";
  const std::string full =
      "void memsim::validate::suite_kernel_any<memsim::suite::Copy, float, memsim::StaticShape<32, 8, 32, 32, 0, "
      "int>>(memsim::DeviceMemory<float>, memsim::StaticShape<32, 8, 32, 32, 0, int>)";
  EXPECT_TRUE(kernel_name_matches(ncu_name, copy));
  EXPECT_TRUE(kernel_name_matches(full, copy));
  EXPECT_FALSE(kernel_name_matches(ncu_name, shared));
  EXPECT_FALSE(kernel_name_matches(ncu_name, copy16));
  EXPECT_FALSE(kernel_name_matches(ncu_name, copy_dynamic));
  EXPECT_TRUE(kernel_name_matches(
      "void suite_kernel_any<Copy, unsigned short, StaticShape<32, 8, 32, 32, 0, int>>(DeviceMemory<T2>, T3)", copy16));
  EXPECT_FALSE(kernel_name_matches(
      "void suite_kernel_any<CopyShared, float, StaticShape<32, 8, 32, 32, 33, int>>(DeviceMemory<T2>, T3)", copy));
  EXPECT_FALSE(kernel_name_matches(
      "void suite_kernel_any<Copy, float, StaticShape<16, 16, 16, 16, 0, int>>(DeviceMemory<T2>, T3)", copy));
  EXPECT_TRUE(kernel_name_matches("void suite_kernel_scalar<Copy, float, LaunchShape>(DeviceMemory<T2>, LaunchShape)",
                                  copy_dynamic));
  EXPECT_FALSE(kernel_name_matches("void suite_kernel_scalar<Copy, float, LaunchShape>(DeviceMemory<T2>, LaunchShape)",
                                   copy));
}

// A kernel file's kernel runs as suite_kernel_any<ItsStruct, ...> from its GPU plugin, compiled by nvcc for the
// run's configurations (loading it needs no GPU): ncu's rows find it by its struct's name, with or without
// the namespace, and the suite's padded is not taken for it.
TEST(Ncu, KernelFileNamesMatchTheirConfiguration) {
  if (find_toolkit().nvcc.empty()) GTEST_SKIP() << "no nvcc";
  setenv("MEMSIM_CACHE_DIR", MEMSIM_TEST_CACHE_DIR, 1);
  const KernelInfo* k = load_kernel_file(std::string(MEMSIM_SOURCE_DIR) + "/examples/float2_padded.hpp");
  UserConfig u;
  u.kernel = k->name;
  u.matrix = {8192, 8192};
  const LaunchConfig f32 = resolve_launch(u);
  u.dtype = Dtype::F64;
  const LaunchConfig f64 = resolve_launch(u);
  u.kernel = "padded";
  u.dtype = Dtype::F32;
  const LaunchConfig padded = resolve_launch(u);
  EXPECT_FALSE(is_kernel_file_config(f32));
  const nlohmann::ordered_json built = load_kernel_file_plugins({f32, padded, f64}, 9, 0);
  ASSERT_EQ(built.size(), 1u);
  EXPECT_EQ(built[0]["kernel"], "float2_padded");
  EXPECT_EQ(built[0]["symbol"], "Float2Padded");
  EXPECT_EQ(built[0]["instantiations"], 2);
  EXPECT_EQ(built[0]["arch"], "sm_90");
  EXPECT_TRUE(is_kernel_file_config(f32));
  EXPECT_FALSE(is_kernel_file_config(padded));
  EXPECT_STREQ(suite_kernel_shape_kind(f32), "static");
  EXPECT_EQ(suite_kernel_signature(f32), "Float2Padded, float, ");
  const std::string ncu_name =
      "void suite_kernel_any<Float2Padded, float, StaticShape<32, 8, 64, 64, 65, int>>(DeviceMemory<T2>, T3)";
  const std::string full =
      "void memsim::validate::suite_kernel_any<example::Float2Padded, float, memsim::StaticShape<32, 8, 64, 64, 65, "
      "int>>(memsim::DeviceMemory<float>, memsim::StaticShape<32, 8, 64, 64, 65, int>)";
  EXPECT_TRUE(kernel_name_matches(ncu_name, f32));
  EXPECT_TRUE(kernel_name_matches(full, f32));
  EXPECT_FALSE(kernel_name_matches(ncu_name, f64));
  EXPECT_FALSE(kernel_name_matches(ncu_name, padded));
  EXPECT_FALSE(kernel_name_matches(
      "void suite_kernel_any<Padded, float, StaticShape<32, 8, 32, 32, 33, int>>(DeviceMemory<T2>, T3)", f32));
}

TEST(Ncu, MetricListHoldsEveryPredictionAndTheTrafficCounters) {
  const std::vector<std::string> names = ncu_metric_list();
  EXPECT_EQ(names.size(), 17u);  // 11 predicted + 6 measured only
  EXPECT_EQ(names.front(), "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");
  EXPECT_EQ(names.back(), "smsp__inst_executed.sum");
  EXPECT_EQ(shell_quote("a'b"), "'a'\\''b'");
}

// Block 8x32 over an 8x32 tile: every thread stages one element, but only the first two warps (rows 0..7)
// take part in draining the transposed tile; the other six still reach its four steps, all lanes off.
TEST(Reached, CountsWarpsWhoseLanesAreAllOff) {
  UserConfig u;
  u.kernel = "padded";
  u.matrix = {64, 64};
  u.block = {8, 32};
  const LaunchConfig cfg = resolve_launch(u);
  ASSERT_EQ(cfg.blocks(), 16);
  const std::vector<int64_t> reached = warp_instructions_reached(cfg);  // ld in, st tile, ld tile, st out
  EXPECT_EQ(reached, (std::vector<int64_t>{16 * 8, 16 * 8, 16 * 8 * 4, 16 * 8 * 4}));
  const ReplayResult r = replay(cfg);
  EXPECT_EQ(metric_value(ncu_metrics(r), "smsp__inst_executed_op_shared_ld.sum"), 16 * 2 * 4);
  EXPECT_EQ(metric_value(ncu_metrics(r), "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"), 16 * 2 * 4);
  // On a ragged matrix every block counts alike too (only predicates change at the edges).
  u.matrix = {100, 72};
  u.block = {32, 8};
  const LaunchConfig ragged = resolve_launch(u);
  const std::vector<int64_t> rr = warp_instructions_reached(ragged);
  EXPECT_EQ(rr[2], ragged.blocks() * 8 * 4);
}

// A record of `kernel` at 64x64 (its defaults otherwise), as a measuring run starts one.
ConfigResult record_of(const std::string& kernel) {
  UserConfig u;
  u.kernel = kernel;
  u.matrix = {64, 64};
  ConfigResult r;
  r.cfg = resolve_launch(u);
  return r;
}

// A record carries the GPU's registers and resident blocks beside memsim's, as memsim-validate read them.
TEST(Report, RecordsCarryTheOccupancyOnBothSides) {
  RunResult run;
  run.mode = "measure";
  ConfigResult r = record_of("copy_shared");
  r.registers_per_thread = 56, r.blocks_per_sm = 12;
  r.predicted_registers_per_thread = 30, r.predicted_blocks_per_sm = 21, r.predicted_l1_bytes = 94208;
  run.configs.push_back(r);
  const auto o = run_json(run)["records"][0]["occupancy"];
  EXPECT_EQ(o["registers_per_thread"], 56);
  EXPECT_EQ(o["blocks_per_sm"], 12);
  EXPECT_EQ(o["predicted_registers_per_thread"], 30);
  EXPECT_EQ(o["predicted_blocks_per_sm"], 21);
  EXPECT_EQ(o["predicted_l1_bytes"], 94208);
}

// A record whose global sectors are off by one fails; wavefronts inside their band pass.
TEST(Report, ExactCountsFailOnAnyDifferenceWavefrontsWithinTheirBand) {
  RunResult run;
  run.mode = "measure";
  ConfigResult r = record_of("padded");
  r.predicted = ncu_metrics(replay(r.cfg));
  for (const Metric& m : r.predicted) r.measured[m.name] = double(m.value);
  r.measured["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"] *= 1.2;
  r.measured["l1tex__data_pipe_lsu_wavefronts_mem_lgds.sum"] *= 1.25;  // global wavefronts: -1%/+30%
  r.check = OutputCheck{r.cfg.elements(), 0, 0, -1, -1, 0, 0};
  run.configs.push_back(r);
  EXPECT_TRUE(failures(run_json(run)).empty());
  // Twice the count (as the old rule was off by 2-5x for rows of several lines): outside the band.
  run.configs[0].measured["l1tex__data_pipe_lsu_wavefronts_mem_lgds.sum"] *= 2.0;
  ASSERT_EQ(failures(run_json(run)).size(), 1u);
  EXPECT_NE(failures(run_json(run))[0].find("l1tex__data_pipe_lsu_wavefronts_mem_lgds.sum"), std::string::npos);
  run.configs[0].measured["l1tex__data_pipe_lsu_wavefronts_mem_lgds.sum"] /= 2.0;

  // Shared instructions may read above memsim's count up to the instructions reached, not beyond.
  run.configs[0].upper_bounds["smsp__inst_executed_op_shared_ld.sum"] =
      int64_t(run.configs[0].measured["smsp__inst_executed_op_shared_ld.sum"]) + 10;
  run.configs[0].measured["smsp__inst_executed_op_shared_ld.sum"] += 10;
  EXPECT_TRUE(failures(run_json(run)).empty());
  run.configs[0].measured["smsp__inst_executed_op_shared_ld.sum"] += 1;
  EXPECT_EQ(failures(run_json(run)).size(), 1u);
  run.configs[0].measured["smsp__inst_executed_op_shared_ld.sum"] -= 11;

  run.configs[0].measured["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] += 1;
  const nlohmann::ordered_json j = run_json(run);
  const std::vector<std::string> f = failures(j);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].find("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"), std::string::npos);
  EXPECT_EQ(j["records"][0]["predicted"]["time_us"], nullptr);  // no model prediction in this record: nulls
  std::ostringstream md, csv;
  write_markdown(md, j);
  write_csv(csv, j);
  EXPECT_NE(md.str().find("1 failed checks"), std::string::npos);
  EXPECT_NE(csv.str().find("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"), std::string::npos);
}


// ---- rounds: every cell timed again on fresh buffers ------------------------------------------------------

TEST(Timing, RoundsCombineToTheMedianOfTheirMediansAndTheWholeRange) {
  auto round = [](double median, double lo, double hi) {
    TimingStats t;
    t.reps = 50;
    t.buffers = 4;
    t.median_us = median;
    t.min_us = lo;
    t.max_us = hi;
    t.round_medians = {median};
    return t;
  };
  const TimingStats three = combine_rounds({round(10.0, 9.5, 12.0), round(11.0, 9.0, 11.5), round(10.4, 10.0, 13.0)});
  EXPECT_EQ(three.median_us, 10.4);
  EXPECT_EQ(three.min_us, 9.0);
  EXPECT_EQ(three.max_us, 13.0);
  EXPECT_EQ(three.round_medians, (std::vector<double>{10.0, 11.0, 10.4}));
  EXPECT_EQ(three.reps, 50);
  EXPECT_EQ(three.buffers, 4);
  const TimingStats two = combine_rounds({round(10.0, 9.5, 12.0), round(11.0, 9.0, 11.5)});
  EXPECT_EQ(two.median_us, 10.5);
  const TimingStats one = combine_rounds({round(10.0, 9.5, 12.0)});
  EXPECT_EQ(one.median_us, 10.0);
  EXPECT_EQ(one.round_medians, (std::vector<double>{10.0}));
  EXPECT_EQ(combine_rounds({}).reps, 0);
}

// ---- a saved run: the document check, and memsim-validate --render as a user runs it ---------------------

using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

TimingStats timing(double median) {
  TimingStats t;
  t.reps = 50;
  t.buffers = 2;
  t.median_us = median;
  t.min_us = 0.9 * median;
  t.max_us = 1.2 * median;
  return t;
}

OutputCheck passed_check(int64_t elements) { return OutputCheck{elements, 0, 0, -1, -1, 0, 0}; }

// A small run as memsim-validate writes it: one 64x64 f32 group with its four baselines (the CuTe transpose
// timed in three rounds and counted), copy and padded
// timed, predicted and counted (the counts as predicted, the traffic as compulsory), one skipped
// configuration, and a device in the context.
Json small_run() {
  RunResult run;
  run.mode = "measure";
  run.context = {{"program", "memsim-validate"},
                 {"command_line", "memsim-validate --kernels copy,padded --matrices 64x64"},
                 {"git_revision", "test"},
                 {"date", "2026-01-01T00:00:00Z"},
                 {"device",
                  {{"name", "Test GPU"},
                   {"sm_count", 132},
                   {"l2_bytes", 52428800},
                   {"driver_version", "1.0"},
                   {"peak_sm_clock_mhz", 1980.0},
                   {"peak_memory_clock_mhz", 2619.0}}}};
  run.ncu["status"] = "ok";
  GroupResult g;
  g.matrix = {64, 64};
  g.dtype = Dtype::F32;
  g.matrix_bytes = 64 * 64 * 4;
  g.buffer_pairs = 2;
  for (const char* name : {"copy_kernel", "cudaMemcpy_d2d", "cublas_geam"}) {
    Baseline b;
    b.name = name;
    b.detail = std::string(name) + " as run";
    b.timing = timing(2.0);
    b.check = passed_check(64 * 64);
    g.baselines.push_back(b);
  }
  Baseline cute;
  cute.name = kCuteBaselineName;
  cute.detail = "CuTe transpose as run";
  cute.output = OutputKind::Transpose;
  cute.ncu_kernel = kCuteKernelName;
  cute.timing = combine_rounds({timing(2.2), timing(2.1), timing(2.4)});
  cute.check = passed_check(64 * 64);
  cute.measured = {{"smsp__inst_executed.sum", 1000}, {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 64}};
  cute.ncu_kernel_name = "void cute_transpose_kernel<float>(const float *, float *, int, int)";
  g.baselines.push_back(cute);
  run.groups.push_back(g);
  double median = 2.5;
  for (const char* kernel : {"copy", "padded"}) {
    UserConfig u;
    u.kernel = kernel;
    u.matrix = {64, 64};
    ConfigResult r;
    r.cfg = resolve_launch(u);
    r.check = passed_check(r.cfg.elements());
    r.timing = timing(median);
    median += 1.0;
    r.predicted = ncu_metrics(replay(r.cfg));
    for (const Metric& m : r.predicted) r.measured[m.name] = double(m.value);
    for (const char* m : {"lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_write.sum"})
      r.measured[m] = 64 * 64 * 4 / 32.0;
    r.measured["dram__bytes_read.sum"] = r.measured["dram__bytes_write.sum"] = 64 * 64 * 4;
    r.measured["gpu__time_duration.sum"] = 2500;
    for (const char* m : {"smsp__inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_shared_st.sum"})
      r.upper_bounds[m] = int64_t(r.measured[m]);
    r.model = ModelPrediction{2.2, 15.0, "DRAM bandwidth", "memsim cost model, profile test"};
    run.configs.push_back(r);
  }
  UserConfig skipped;
  skipped.kernel = "coarse";
  skipped.matrix = {64, 64};
  skipped.block = {8, 32};
  run.skipped.push_back({skipped, "kernel coarse needs a square tile, got 8x32"});
  return run_json(run);
}

// The same configurations in the other two modes: outputs only (no timing, no counts), and addresses.
Json check_only_run() {
  Json j = small_run();
  j["mode"] = "check-only";
  for (Json& g : j["groups"]) {
    g["baselines"] = Json::object();
    g["buffer_pairs"] = 1;
  }
  for (Json& r : j["records"]) {
    r["measured"] = {{"time_us", nullptr}, {"ncu_kernel_name", nullptr}};
    for (auto& [key, v] : r["predicted"].items()) v = nullptr;
    r["metrics"] = Json::object();
  }
  j["ncu"] = {{"status", "not requested"}};
  return j;
}

Json addresses_run() {
  Json j = small_run();
  j["mode"] = "check-addresses";
  j["groups"] = Json::array();
  j["records"] = Json::array();
  j["address_checks"] = Json::array(
      {{{"id", "copy f32 64x64 block 32x8 tile 32x32"}, {"blocks", 4}, {"warp_accesses", 256}, {"lane_accesses", 8192},
        {"mismatches", 0}, {"passed", true}, {"first_mismatch", nullptr}}});
  j["ncu"] = {{"status", "not requested"}};
  return j;
}

std::string render_error(const Json& doc) {
  try {
    check_run_document(doc, "run.json");
  } catch (const RunDocumentError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(RunDocument, TheProgramsOwnRunsPass) {
  for (const Json& doc : {small_run(), check_only_run(), addresses_run()}) EXPECT_EQ(render_error(doc), "accepted");
}

// Every field a renderer reads, named by its path when it is missing or of the wrong type or range.
TEST(RunDocument, NamesTheFieldThatIsWrong) {
  struct Case {
    std::function<void(Json&)> change;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](Json& j) { j = Json::array({1, 2, 3}); }, "run.json: not a memsim-validate run (the document is an array, not a JSON object)"},
      {[](Json& j) { j = 42; }, "run.json: not a memsim-validate run (the document is number 42, not a JSON object)"},
      {[](Json& j) { j = nullptr; }, "run.json: not a memsim-validate run (the document is null, not a JSON object)"},
      {[](Json& j) { j = Json::object(); }, "run.json: schema is missing: not a memsim-validate run"},
      {[](Json& j) { j["schema"] = "memsim-validate/2"; }, "run.json: schema must be \"memsim-validate/1\", got string \"memsim-validate/2\""},
      {[](Json& j) { j.erase("records"); }, "run.json: records is missing"},
      {[](Json& j) { j.erase("groups"); }, "run.json: groups is missing"},
      {[](Json& j) { j.erase("ncu"); }, "run.json: ncu is missing"},
      {[](Json& j) { j.erase("address_checks"); }, "run.json: address_checks is missing"},
      {[](Json& j) { j.erase("skipped"); }, "run.json: skipped is missing"},
      {[](Json& j) { j["context"] = nullptr; }, "run.json: context must be a JSON object, got null"},
      {[](Json& j) { j["context"] = 3; }, "run.json: context must be a JSON object, got number 3"},
      {[](Json& j) { j["mode"] = "fast"; }, "run.json: mode must be \"measure\", \"check-only\" or \"check-addresses\", got string \"fast\""},
      {[](Json& j) { j["mode"] = nullptr; }, "run.json: mode must be \"measure\", \"check-only\" or \"check-addresses\", got null"},
      {[](Json& j) { j["counts_gate"] = "yes"; }, "run.json: counts_gate must be true or false, got string \"yes\""},
      {[](Json& j) { j["records"][1].erase("id"); }, "run.json: records[1].id is missing"},
      {[](Json& j) { j["records"][1].erase("config"); }, "run.json: records[1].config is missing"},
      {[](Json& j) { j["records"][1].erase("measured"); }, "run.json: records[1].measured is missing"},
      {[](Json& j) { j["records"][1].erase("predicted"); }, "run.json: records[1].predicted is missing"},
      {[](Json& j) { j["records"][1].erase("metrics"); }, "run.json: records[1].metrics is missing"},
      {[](Json& j) { j["records"][1]["output_check"].erase("passed"); }, "run.json: records[1].output_check.passed is missing"},
      {[](Json& j) { j["records"][1]["output_check"]["passed"] = "yes"; },
       "run.json: records[1].output_check.passed must be true or false, got string \"yes\""},
      {[](Json& j) { j["records"][0]["measured"]["time_us"]["median"] = "fast"; },
       "run.json: records[0].measured.time_us.median must be a number, got string \"fast\""},
      {[](Json& j) { j["records"][0]["measured"]["time_us"]["median"] = 0; },
       "run.json: records[0].measured.time_us.median must be positive, got 0"},
      {[](Json& j) { j["records"][0]["config"]["block"]["x"] = 32.5; },
       "run.json: records[0].config.block.x must be a whole number from 1 to 1048576, got number 32.5"},
      {[](Json& j) { j["records"][0]["metrics"]["dram__bytes_read.sum"].erase("measured"); },
       "run.json: records[0].metrics[\"dram__bytes_read.sum\"].measured is missing"},
      {[](Json& j) { j["records"][0]["metrics"]["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]["within_tolerance"] = 1; },
       "run.json: records[0].metrics[\"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum\"].within_tolerance must be true or "
       "false, got number 1"},
      {[](Json& j) { j["groups"][0].erase("matrix"); }, "run.json: groups[0].matrix is missing"},
      {[](Json& j) { j["groups"][0].erase("baselines"); }, "run.json: groups[0].baselines is missing"},
      {[](Json& j) { j["groups"][0]["baselines"]["cublas_geam"].erase("note"); },
       "run.json: groups[0].baselines[\"cublas_geam\"].note is missing"},
      {[](Json& j) { j["context"]["device"]["l2_bytes"] = "big"; },
       "run.json: context.device.l2_bytes must be a number, got string \"big\""},
      {[](Json& j) { j["records"] = Json::array(); }, "run.json: records is empty: the run checked nothing"},
      {[](Json& j) { j["skipped"][0]["reason"] = Json::array(); }, "run.json: skipped[0].reason must be a string, got an array"},
      {[](Json& j) { j["records"][1] = "x"; }, "run.json: records[1] must be a JSON object, got string \"x\""},
      {[](Json& j) { j["records"][0]["metrics"]["dram__bytes_read.sum"] = 3; },
       "run.json: records[0].metrics[\"dram__bytes_read.sum\"] must be a JSON object, got number 3"},
      {[](Json& j) { j["records"][0]["config"]["block"]["x"] = 32.0; },
       "run.json: records[0].config.block.x must be a whole number from 1 to 1048576, got number 32.0"},
      {[](Json& j) { j["records"][0]["output_check"] = 1; },
       "run.json: records[0].output_check must be a JSON object or null, got number 1"},
      {[](Json& j) { j["records"][0]["predicted"]["fraction_of_cublas"] = "x"; },
       "run.json: records[0].predicted.fraction_of_cublas must be a number or null, got string \"x\""},
      {[](Json& j) { j["groups"][0]["baselines"]["copy_kernel"]["note"] = 5; },
       "run.json: groups[0].baselines[\"copy_kernel\"].note must be a string or null, got number 5"},
      {[](Json& j) { j["groups"][0]["rotated_bytes"] = -1; }, "run.json: groups[0].rotated_bytes must not be negative, got -1"},
      {[](Json& j) { j["records"][0]["measured"]["time_us"]["max"] = std::numeric_limits<double>::infinity(); },
       "run.json: records[0].measured.time_us.max must be finite, got inf"},
      {[](Json& j) { j["records"][0]["measured"]["time_us"]["round_medians"] = Json::array(); },
       "run.json: records[0].measured.time_us.round_medians is empty"},
      {[](Json& j) { j["groups"][0]["baselines"]["cute_transpose"]["time_us"]["round_medians"][1] = "x"; },
       "run.json: groups[0].baselines[\"cute_transpose\"].time_us.round_medians[1] must be a positive number, got "
       "string \"x\""},
  };
  for (const Case& c : cases) {
    Json doc = small_run();
    c.change(doc);
    EXPECT_EQ(render_error(doc), c.message);
  }
  Json addresses = addresses_run();
  addresses["address_checks"] = Json::array();
  EXPECT_EQ(render_error(addresses), "run.json: address_checks is empty: the run checked nothing");
}

// Every field of the three kinds of run removed, or replaced by a value of another type or sign: the check
// refuses it in one line naming the document, or the document renders without an error. (A gap in the check
// would be a render that throws here, and an abort in the program.)
TEST(RunDocument, WhatTheCheckAcceptsRenders) {
  const std::vector<Json> replacements = {nullptr, "x", -1, 0, 1.5, true, Json::object(), Json::array()};
  int refused = 0, rendered = 0;
  for (const Json& base : {small_run(), check_only_run(), addresses_run()}) {
    std::vector<Json::json_pointer> paths;
    std::function<void(const Json&, const Json::json_pointer&)> walk = [&](const Json& v, const Json::json_pointer& p) {
      if (v.is_object())
        for (const auto& [key, child] : v.items()) walk(child, p / key);
      else if (v.is_array())
        for (size_t i = 0; i < v.size(); ++i) walk(v[i], p / i);
      if (!p.empty()) paths.push_back(p);
    };
    walk(base, Json::json_pointer());
    for (const Json::json_pointer& p : paths)
      for (int k = -1; k < int(replacements.size()); ++k) {
        Json doc = base;
        if (k < 0) {
          Json& parent = doc[p.parent_pointer()];
          if (parent.is_object()) parent.erase(p.back());
          else parent.erase(size_t(std::stoul(p.back())));
        } else {
          doc[p] = replacements[size_t(k)];
        }
        const std::string why = render_error(doc);
        if (why != "accepted") {
          ++refused;
          EXPECT_EQ(why.rfind("run.json: ", 0), 0u) << why;
          EXPECT_EQ(why.find('\n'), std::string::npos) << why;
          continue;
        }
        ++rendered;
        const auto render_all = [&doc] {
          refresh_summaries(doc);
          failures(doc);
          std::ostringstream csv;
          std::ostringstream md;
          write_csv(csv, doc);
          write_markdown(md, doc);
        };
        EXPECT_NO_THROW(render_all()) << p.to_string() << " = " << (k < 0 ? "(removed)" : replacements[size_t(k)].dump());
      }
  }
  EXPECT_GT(refused, 1000);
  EXPECT_GT(rendered, 100);  // e.g. ids and details of any string, nulls where nulls are allowed
}

int g_counter = 0;

// A fresh directory under the test's temporary directory.
std::string fresh_dir(const std::string& what) {
  const std::string dir =
      ::testing::TempDir() + "memsim_validate_" + what + "_" + std::to_string(getpid()) + "_" + std::to_string(g_counter++);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

test::CommandResult run_program(const char* binary, const std::vector<std::string>& args) {
  return test::run_command(binary, args,
                           ::testing::TempDir() + "memsim_validate_cmd_" + std::to_string(getpid()) + "_" +
                               std::to_string(g_counter++));
}

test::CommandResult run_validate(const std::vector<std::string>& args) { return run_program(MEMSIM_VALIDATE_BIN, args); }

// One line on stderr that starts with "memsim-validate: ", nothing on stdout.
::testing::AssertionResult one_line_error(const test::CommandResult& r, const std::string& program = "memsim-validate") {
  if (!r.out.empty()) return ::testing::AssertionFailure() << "stdout: " << r.out;
  if (r.err.rfind(program + ": ", 0) != 0 || r.err.empty() || r.err.back() != '\n' ||
      r.err.find('\n') != r.err.size() - 1)
    return ::testing::AssertionFailure() << "stderr is not one line starting with " << program << ": [" << r.err << "]";
  return ::testing::AssertionSuccess();
}

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Reports already in the output directory, which a failed render must leave as they were.
void old_reports(const std::string& dir, const std::string& name) {
  for (const char* ext : {".json", ".csv", ".md"}) write_text(dir + "/" + name + ext, std::string("old") + ext + "\n");
}

::testing::AssertionResult old_reports_intact(const std::string& dir, const std::string& name) {
  for (const char* ext : {".json", ".csv", ".md"})
    if (test::slurp(dir + "/" + name + ext) != std::string("old") + ext + "\n")
      return ::testing::AssertionFailure() << dir << "/" << name << ext << " changed";
  const std::vector<std::string> want = {name + ".csv", name + ".json", name + ".md"};
  if (entries(dir) != want) return ::testing::AssertionFailure() << "other files were left in " << dir;
  return ::testing::AssertionSuccess();
}

TEST(Render, SmallRunRendersAsTheLibraryDoes) {
  const std::string dir = fresh_dir("render");
  const Json doc = small_run();
  write_text(dir + "/run.json", doc.dump(2) + "\n");
  fs::create_directories(dir + "/out");
  const test::CommandResult r = run_validate({"--render", dir + "/run.json", "--out-dir", dir + "/out", "--name", "r"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "memsim-validate: wrote " + dir + "/out/r.json, .csv, .md\n");
  Json refreshed = doc;
  refresh_summaries(refreshed);
  std::ostringstream csv, md;
  write_csv(csv, refreshed);
  write_markdown(md, refreshed);
  EXPECT_EQ(test::slurp(dir + "/out/r.csv"), csv.str());
  EXPECT_EQ(test::slurp(dir + "/out/r.md"), md.str());
  EXPECT_NE(md.str().find("**all checks passed**"), std::string::npos);
  EXPECT_EQ(Json::parse(test::slurp(dir + "/out/r.json")), refreshed);
  EXPECT_EQ(entries(dir + "/out"), (std::vector<std::string>{"r.csv", "r.json", "r.md"}));  // no temporaries left

  // In place: the input is the report it replaces.
  const test::CommandResult again = run_validate({"--render", dir + "/out/r.json", "--out-dir", dir + "/out", "--name", "r"});
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(test::slurp(dir + "/out/r.csv"), csv.str());
  EXPECT_EQ(test::slurp(dir + "/out/r.md"), md.str());
  EXPECT_EQ(entries(dir + "/out"), (std::vector<std::string>{"r.csv", "r.json", "r.md"}));
  fs::remove_all(dir);
}

// Every baseline carries its fraction of cudaMemcpy; the CuTe transpose its counters; every timing its rounds.
TEST(Report, BaselinesShowRoundsFractionOfMemcpyAndCounters) {
  const Json doc = small_run();
  const Json& cute = doc["groups"][0]["baselines"]["cute_transpose"];
  EXPECT_EQ(cute["time_us"]["median"], 2.2);
  EXPECT_EQ(cute["time_us"]["rounds"], 3);
  EXPECT_EQ(cute["time_us"]["round_medians"], Json::array({2.2, 2.1, 2.4}));
  EXPECT_EQ(cute["time_us"]["round_median_min"], 2.1);
  EXPECT_EQ(cute["time_us"]["round_median_max"], 2.4);
  EXPECT_DOUBLE_EQ(cute["fraction_of_memcpy"].get<double>(), 2.0 / 2.2);
  EXPECT_EQ(doc["groups"][0]["baselines"]["cudaMemcpy_d2d"]["fraction_of_memcpy"], 1.0);
  EXPECT_EQ(cute["counters"]["smsp__inst_executed.sum"], 1000.0);
  EXPECT_EQ(cute["instructions"], 1000.0);
  EXPECT_FALSE(doc["groups"][0]["baselines"]["cublas_geam"].contains("counters"));
  EXPECT_EQ(doc["records"][0]["measured"]["time_us"]["rounds"], 1);
  EXPECT_DOUBLE_EQ(doc["records"][0]["measured"]["fraction_of_memcpy"].get<double>(), 2.0 / 2.5);
  std::ostringstream md, csv;
  write_markdown(md, doc);
  write_csv(csv, doc);
  EXPECT_NE(md.str().find("| *cute_transpose* | | | CuTe transpose as run | yes | 2.2 (1.9–2.9) | 2.2 / 2.1 / 2.4 (13.6%) | "),
            std::string::npos)
      << md.str();
  EXPECT_NE(md.str().find("% of cudaMemcpy"), std::string::npos);
  EXPECT_NE(csv.str().find("baseline,cute_transpose,64x64,f32,,,,fraction_of_memcpy,,0.9090909091"), std::string::npos)
      << csv.str();
  EXPECT_NE(csv.str().find("baseline,cute_transpose,64x64,f32,,,,time_us_round_median_max,,2.4"), std::string::npos);
}

// A document that cannot be rendered: exit 2, one line naming the file and the field, the old reports kept.
TEST(Render, BadDocumentsExitTwoAndKeepTheOldReports) {
  const std::string dir = fresh_dir("bad_doc");
  const std::string out = dir + "/out", file = dir + "/run.json";
  fs::create_directories(out);
  old_reports(out, "r");
  struct Case {
    std::string text;
    std::string message;  // after "memsim-validate: "
  };
  auto changed = [](const std::function<void(Json&)>& change) {
    Json j = small_run();
    change(j);
    return j.dump();
  };
  const std::vector<Case> cases = {
      {"[1,2,3]", file + ": not a memsim-validate run (the document is an array, not a JSON object)"},
      {"\"str\"", file + ": not a memsim-validate run (the document is string \"str\", not a JSON object)"},
      {"{}", file + ": schema is missing: not a memsim-validate run"},
      {R"({"tool": "memsim-microbench", "format": 1, "runs": []})", file + ": schema is missing: not a memsim-validate run"},
      {changed([](Json& j) { j["records"][1].erase("config"); }), file + ": records[1].config is missing"},
      {changed([](Json& j) { j["records"][0]["measured"]["time_us"]["median"] = 0; }),
       file + ": records[0].measured.time_us.median must be positive, got 0"},
      {changed([](Json& j) { j["records"][0]["output_check"]["passed"] = "yes"; }),
       file + ": records[0].output_check.passed must be true or false, got string \"yes\""},
      {changed([](Json& j) { j["groups"][0].erase("baselines"); }), file + ": groups[0].baselines is missing"},
      {changed([](Json& j) { j["context"]["device"]["l2_bytes"] = "big"; }),
       file + ": context.device.l2_bytes must be a number, got string \"big\""},
      {changed([](Json& j) { j["mode"] = 3; }),
       file + ": mode must be \"measure\", \"check-only\" or \"check-addresses\", got number 3"},
      {changed([](Json& j) { j["records"] = Json::array(); }), file + ": records is empty: the run checked nothing"},
  };
  for (const Case& c : cases) {
    write_text(file, c.text);
    const test::CommandResult r = run_validate({"--render", file, "--out-dir", out, "--name", "r"});
    EXPECT_EQ(r.code, 2) << c.text.substr(0, 80);
    EXPECT_TRUE(one_line_error(r)) << c.text.substr(0, 80);
    EXPECT_EQ(r.err, "memsim-validate: " + c.message + "\n");
    EXPECT_TRUE(old_reports_intact(out, "r")) << c.message;
  }
  // Not a file of JSON at all.
  write_text(file, "{\"schema\": ");
  test::CommandResult r = run_validate({"--render", file, "--out-dir", out, "--name", "r"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(one_line_error(r));
  EXPECT_EQ(r.err.rfind("memsim-validate: " + file + " is not a memsim-validate JSON: ", 0), 0u) << r.err;
  r = run_validate({"--render", dir, "--out-dir", out, "--name", "r"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "memsim-validate: cannot read " + dir + ": it is a directory, not a memsim-validate run\n");
  r = run_validate({"--render", dir + "/none.json", "--out-dir", out, "--name", "r"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "memsim-validate: cannot read " + dir + "/none.json: No such file or directory\n");
  EXPECT_TRUE(old_reports_intact(out, "r"));
  fs::remove_all(dir);
}

// Where the reports cannot go: exit 2 naming the path, before anything is written.
TEST(Render, UnusableOutputExitsTwoAndWritesNothing) {
  const std::string dir = fresh_dir("bad_out");
  const std::string file = dir + "/run.json", out = dir + "/out";
  write_text(file, small_run().dump());
  fs::create_directories(out);
  old_reports(out, "r");
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--out-dir", file, "--name", "r"}, "--out-dir " + file + " is not a directory"},
      {{"--out-dir", dir + "/none/sub", "--name", "r"}, "--out-dir " + dir + "/none/sub: No such file or directory"},
      {{"--out-dir", "", "--name", "r"}, "--out-dir is empty (give . for the working directory)"},
      {{"--out-dir", out, "--name", ""}, "--name is empty (it names the reports NAME.json, NAME.csv, NAME.md)"},
      {{"--out-dir", out, "--name", "sub/x"}, "--name 'sub/x' must be a file name without '/' (the directory goes in --out-dir)"},
      {{"--out-dir", out, "--name", "../escaped"},
       "--name '../escaped' must be a file name without '/' (the directory goes in --out-dir)"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"--render", file};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const test::CommandResult r = run_validate(args);
    EXPECT_EQ(r.code, 2) << c.message;
    EXPECT_EQ(r.err, "memsim-validate: " + c.message + "\n");
    EXPECT_TRUE(r.out.empty());
    EXPECT_TRUE(old_reports_intact(out, "r"));
  }
  EXPECT_FALSE(fs::exists(dir + "/escaped.json"));
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"out", "run.json"}));

  // NAME.json is a directory: nothing is written, not even the CSV and Markdown beside it.
  const std::string blocked = dir + "/blocked";
  fs::create_directories(blocked + "/r.json");
  test::CommandResult r = run_validate({"--render", file, "--out-dir", blocked, "--name", "r"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "memsim-validate: cannot write " + blocked + "/r.json: it is a directory\n");
  EXPECT_EQ(entries(blocked), (std::vector<std::string>{"r.json"}));

  // A directory no file can be made in (root writes anywhere: then there is nothing to test).
  if (geteuid() != 0) {
    const std::string locked = dir + "/locked";
    fs::create_directories(locked);
    old_reports(locked, "r");
    chmod(locked.c_str(), 0555);
    r = run_validate({"--render", file, "--out-dir", locked, "--name", "r"});
    chmod(locked.c_str(), 0755);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, "memsim-validate: --out-dir " + locked + " is not writable: Permission denied\n");
    EXPECT_TRUE(old_reports_intact(locked, "r"));
  }
  fs::remove_all(dir);
}

// A stored failed check fails the render too, saying which, as the run that measured it did.
TEST(Render, StoredFailuresArePrinted) {
  const std::string dir = fresh_dir("failed");
  Json doc = small_run();
  doc["records"][1]["output_check"]["passed"] = false;
  doc["records"][1]["output_check"]["detail"] = "1 of 4096 elements differ";
  Json& sectors = doc["records"][0]["metrics"]["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"];
  sectors["measured"] = sectors["predicted"].get<double>() + 1;
  sectors["within_tolerance"] = false;
  write_text(dir + "/run.json", doc.dump());
  const test::CommandResult r = run_validate({"--render", dir + "/run.json", "--out-dir", dir, "--name", "r"});
  EXPECT_EQ(r.code, 1);
  const std::string id0 = doc["records"][0]["id"], id1 = doc["records"][1]["id"];
  EXPECT_EQ(r.err, "memsim-validate: wrote " + dir + "/r.json, .csv, .md\n"
                   "memsim-validate: FAILED " + id0 + ": l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum predicted " +
                   sectors["predicted"].dump() + ", measured " + sectors["measured"].dump() + " (tolerance exact)\n"
                   "memsim-validate: FAILED " + id1 + ": wrong output: 1 of 4096 elements differ\n");
  EXPECT_NE(test::slurp(dir + "/r.md").find("**2 failed checks:**"), std::string::npos);
  fs::remove_all(dir);
}

TEST(Render, RefusesTheSweepOptions) {
  const std::string dir = fresh_dir("render_opts");
  write_text(dir + "/run.json", small_run().dump());
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--kernels", "copy"}, {"--reps", "0"}, {"--ncu"}, {"--seed", "-1"}, {"--counts-informational"}}) {
    std::vector<std::string> args = {"--render", dir + "/run.json", "--out-dir", dir, "--name", "r"};
    args.insert(args.end(), extra.begin(), extra.end());
    const test::CommandResult r = run_validate(args);
    EXPECT_EQ(r.code, 2) << extra[0];
    EXPECT_EQ(r.err, "memsim-validate: --render re-renders a saved run: " + extra[0] +
                         " does not apply (only --out-dir and --name do)\n");
  }
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"run.json"}));
  fs::remove_all(dir);
}

// Bad options of a measuring run: refused before any GPU work (so the same without a GPU).
TEST(ValidateOptions, BadInputsExitTwoWithOneLine) {
  const std::string dir = fresh_dir("options");
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--seed", "-1"}, "--seed must be a whole number from 0 to 18446744073709551615, got '-1'"},
      {{"--seed", "18446744073709551616"}, "--seed must be a whole number from 0 to 18446744073709551615, got '18446744073709551616'"},
      {{"--seed", "1e3"}, "--seed must be a whole number from 0 to 18446744073709551615, got '1e3'"},
      {{"extra"}, "unexpected argument 'extra' (memsim-validate takes options only; --help lists them)"},
      {{"--kernels", "all,all,naive"}, "--kernels lists copy more than once (all is every kernel of the suite)"},
      {{"--blocks", "32x8,32x8"}, "--blocks lists 32x8 more than once"},
      {{"--device", "-1"}, "--device must be a CUDA device ordinal (0 or more), got -1"},
      {{"--rounds", "0"}, "--rounds must be between 1 and 100"},
      {{"--ncu", "--ncu-path", dir + "/no-ncu"},
       "--ncu-path " + dir + "/no-ncu: no such executable (Nsight Compute's ncu; --ncu needs it)"},
      {{"--name", ""}, "--name is empty (it names the reports NAME.json, NAME.csv, NAME.md)"},
      {{"--name", "../x"}, "--name '../x' must be a file name without '/' (the directory goes in --out-dir)"},
      {{"--out-dir", dir + "/none"}, "--out-dir " + dir + "/none: No such file or directory"},
      {{"--define", "PAD=2"}, "--define goes with --kernel-file: it sets a macro for compiling the kernel's file"},
      {{"--kernel-file", dir + "/none.hpp"}, "--kernel-file " + dir + "/none.hpp: no such file"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"--matrices", "64x64"};
    for (const char* option : {"--out-dir", "--kernels"})
      if (std::find(c.args.begin(), c.args.end(), option) == c.args.end())
        args.insert(args.end(), {option, option == std::string("--out-dir") ? dir : "copy"});
    args.insert(args.end(), c.args.begin(), c.args.end());
    const test::CommandResult r = run_validate(args);
    EXPECT_EQ(r.code, 2) << c.message;
    EXPECT_TRUE(one_line_error(r)) << c.message;
    EXPECT_EQ(r.err, "memsim-validate: " + c.message + "\n");
  }
  EXPECT_TRUE(entries(dir).empty());
  const test::CommandResult help = run_validate({"--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("--render RUN.json"), std::string::npos);
  // Shapes the build lacks are compiled when the run starts; this option asks for the run-time-shaped bodies.
  EXPECT_NE(help.out.find("--runtime-shape"), std::string::npos);
  fs::remove_all(dir);
}

TEST(ValidateOptions, NoGpuIsAUsageError) {
  const std::optional<std::string> why = gpu_unavailable_reason();
  if (!why) GTEST_SKIP() << "a GPU is present: the run would measure";
  const std::string dir = fresh_dir("nogpu");
  const test::CommandResult r = run_validate({"--out-dir", dir, "--kernels", "copy", "--matrices", "64x64"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "memsim-validate: " + *why + "\n");
  EXPECT_TRUE(entries(dir).empty());
  fs::remove_all(dir);
}

#ifdef MEMSIM_MICROBENCH_BIN
test::CommandResult run_microbench(const std::vector<std::string>& args) { return run_program(MEMSIM_MICROBENCH_BIN, args); }

TEST(MicrobenchOptions, HelpGoesToStdout) {
  for (const char* flag : {"--help", "-h"}) {
    const test::CommandResult r = run_microbench({flag});
    EXPECT_EQ(r.code, 0);
    EXPECT_TRUE(r.err.empty());
    EXPECT_EQ(r.out.rfind("usage: memsim-microbench", 0), 0u);
    EXPECT_NE(r.out.find("--help, -h"), std::string::npos);
    EXPECT_NE(r.out.find("--one KERNEL WxH DTYPE BXxBY"), std::string::npos);
  }
}

// Bad arguments, --one's configuration included, and options a mode would ignore: refused before the GPU is
// looked at.
TEST(MicrobenchOptions, BadInputsExitTwoWithOneLine) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--one", "bogus", "64x64", "f32", "32x8"}, "--one: unknown kernel 'bogus' (memsim --list-kernels lists the suite)"},
      {{"--one", "copy", "abc", "f32", "32x8"}, ""},
      {{"--one", "copy", "64x64", "f99", "32x8"}, ""},
      {{"--one", "copy", "64x64", "f32", "0x0"}, ""},
      {{"--one", "copy", "64x64"}, "--one takes exactly KERNEL WxH DTYPE BXxBY and no other option"},
      {{"--one", "copy", "64x64", "f32", "32x8", "--quick"}, "--one takes exactly KERNEL WxH DTYPE BXxBY and no other option"},
      {{"--quick", "--one", "copy", "64x64", "f32", "32x8"},
       "--one is a mode of its own: memsim-microbench --one KERNEL WxH DTYPE BXxBY"},
      {{"--issue-only", "--chain-loads"},
       "--issue-only launches each issue benchmark once (for ncu) and takes no other option: drop --chain-loads"},
      {{"--quick", "--issue-only"},
       "--issue-only launches each issue benchmark once (for ncu) and takes no other option: drop --quick"},
      {{"--stores-only", "--quick"}, "--stores-only launches each store benchmark once (for ncu): --quick does not apply"},
      {{"--stores-only", "--chain-loads", "--capped-stores"},
       "--stores-only profiles one set at a time: give at most one of --capped-stores, --chain-loads, --chain-stores, "
       "--half-sector-bursts, --split-sectors, --store-sizes, --narrow-lanes, --merge-window, --drain-merges, "
       "--store-order"},
      {{"--stores-only", "--chain-stores", "--chain-loads"},
       "--stores-only profiles one set at a time: give at most one of --capped-stores, --chain-loads, --chain-stores, "
       "--half-sector-bursts, --split-sectors, --store-sizes, --narrow-lanes, --merge-window, --drain-merges, "
       "--store-order"},
      {{"--stores-only", "--split-sectors", "--half-sector-bursts"},
       "--stores-only profiles one set at a time: give at most one of --capped-stores, --chain-loads, --chain-stores, "
       "--half-sector-bursts, --split-sectors, --store-sizes, --narrow-lanes, --merge-window, --drain-merges, "
       "--store-order"},
      {{"--stores-only", "--store-sizes", "--split-sectors"},
       "--stores-only profiles one set at a time: give at most one of --capped-stores, --chain-loads, --chain-stores, "
       "--half-sector-bursts, --split-sectors, --store-sizes, --narrow-lanes, --merge-window, --drain-merges, "
       "--store-order"},
      {{"--stores-only", "--merge-window", "--drain-merges"},
       "--stores-only profiles one set at a time: give at most one of --capped-stores, --chain-loads, --chain-stores, "
       "--half-sector-bursts, --split-sectors, --store-sizes, --narrow-lanes, --merge-window, --drain-merges, "
       "--store-order"},
      {{"--stores-only", "--store-order", "--drain-merges"},
       "--stores-only profiles one set at a time: give at most one of --capped-stores, --chain-loads, --chain-stores, "
       "--half-sector-bursts, --split-sectors, --store-sizes, --narrow-lanes, --merge-window, --drain-merges, "
       "--store-order"},
      {{"--stores-only", "--narrow-lanes", "--merge-window"},
       "--stores-only profiles one set at a time: give at most one of --capped-stores, --chain-loads, --chain-stores, "
       "--half-sector-bursts, --split-sectors, --store-sizes, --narrow-lanes, --merge-window, --drain-merges, "
       "--store-order"},
      {{"--stores-only", "--block-shapes"},
       "--stores-only does not apply to --dram-order, --dram-order-latency, --chunk-sizes or --block-shapes (no partial "
       "stores there)"},
      {{"--stores-only", "--chunk-sizes"},
       "--stores-only does not apply to --dram-order, --dram-order-latency, --chunk-sizes or --block-shapes (no partial "
       "stores there)"},
      {{"--bogus"}, "unknown option '--bogus' (memsim-microbench --help lists them)"},
      {{"--quick", "extra"}, "unexpected argument 'extra' (memsim-microbench --help lists the options)"},
  };
  for (const Case& c : cases) {
    const test::CommandResult r = run_microbench(c.args);
    EXPECT_EQ(r.code, 2) << c.args[0] << " " << c.args.back();
    EXPECT_TRUE(one_line_error(r, "memsim-microbench")) << c.args.back();
    if (!c.message.empty()) EXPECT_EQ(r.err, "memsim-microbench: " + c.message + "\n");
    else EXPECT_EQ(r.err.rfind("memsim-microbench: --one: ", 0), 0u) << r.err;
  }
}

TEST(MicrobenchOptions, NoGpuIsAUsageError) {
  const std::optional<std::string> why = gpu_unavailable_reason();
  if (!why) GTEST_SKIP() << "a GPU is present: the run would measure";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--quick"}, {"--one", "copy", "64x64", "f32", "32x8"}, {"--stores-only", "--chain-loads"}}) {
    const test::CommandResult r = run_microbench(args);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, "memsim-microbench: " + *why + "\n");
    EXPECT_TRUE(r.out.empty());
  }
}
#endif

}  // namespace
}  // namespace memsim::validate
