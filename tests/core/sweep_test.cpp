// The sweep over kernels, dtypes, matrices, blocks and tiles (report/sweep.hpp): the list parsing, the cross
// product and its refusals, and the ranking, checked against single analyses run one by one (report/analysis.hpp:
// what `memsim` prints for one configuration).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/registry.hpp"
#include "model/cost.hpp"
#include "model/profile.hpp"
#include "report/analysis.hpp"
#include "report/sweep.hpp"

#ifndef MEMSIM_SOURCE_DIR
#error "MEMSIM_SOURCE_DIR (the source tree, for docs/cli.md) must be defined by the build"
#endif

namespace memsim {
namespace {

const DeviceProfile& h100() {
  static const DeviceProfile p = load_profile("h100");
  return p;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no ConfigError)";
}

TEST(Sweep, ListsParseInOrder) {
  EXPECT_EQ(parse_size_list("32x8,16x16,8x32", "--block"), (std::vector<Size2>{{32, 8}, {16, 16}, {8, 32}}));
  EXPECT_EQ(parse_size_list("64x64", "--matrix"), (std::vector<Size2>{{64, 64}}));
  EXPECT_EQ(parse_dtype_list("f64,f16"), (std::vector<Dtype>{Dtype::F64, Dtype::F16}));
  EXPECT_EQ(parse_size_list("all", "--block", &tuner_blocks()), tuner_blocks());
  EXPECT_TRUE(is_list("32x8,16x16"));
  EXPECT_TRUE(is_list("all", true));
  EXPECT_FALSE(is_list("all"));
  EXPECT_FALSE(is_list("32x8", true));
}

// Every malformed element: one line that names it (and the whole value).
TEST(Sweep, MalformedElementsAreNamed) {
  const std::vector<std::pair<std::function<void()>, std::string>> cases = {
      {[] { parse_size_list("32x8,,16x16", "--block", &tuner_blocks()); },
       "empty element in --block '32x8,,16x16' (values separated by commas)"},
      {[] { parse_size_list("32x8,", "--block"); }, "empty element in --block '32x8,' (values separated by commas)"},
      {[] { parse_size_list("32x8,16x16,32x8", "--block"); }, "32x8 named twice in --block '32x8,16x16,32x8'"},
      {[] { parse_size_list("32x8,032x8", "--block"); }, "32x8 named twice in --block '32x8,032x8'"},
      {[] { parse_size_list("32x8,32y8", "--block"); },
       "invalid --block '32y8': no 'x' between the two sides (expected WxH with positive integers, e.g. 32x8) in "
       "--block '32x8,32y8'"},
      {[] { parse_size_list("all,32x8", "--block", &tuner_blocks()); },
       "--block all stands alone (it names every usual shape); got 'all,32x8'"},
      {[] { parse_size_list("64x64,all", "--matrix"); }, "--matrix takes WxH values, not 'all'; got '64x64,all'"},
      {[] { parse_dtype_list("f32,f8"); }, "invalid --dtype 'f8': expected f16, f32 or f64 in --dtype 'f32,f8'"},
      {[] { parse_dtype_list("f32,f32"); }, "f32 named twice in --dtype 'f32,f32'"},
      {[] { parse_dtype_list(",f32"); }, "empty element in --dtype ',f32' (values separated by commas)"},
  };
  for (const auto& [f, want] : cases) EXPECT_EQ(message_of(f), want);
}

TEST(Sweep, SizeIsTheCrossProductAndIsBounded) {
  SweepAxes a;
  a.kernels = {"naive", "padded"};
  a.dtypes = {Dtype::F16, Dtype::F32, Dtype::F64};
  a.matrices = {{64, 64}};
  a.blocks = tuner_blocks();
  EXPECT_EQ(sweep_size(a), 2 * 3 * 16);
  a.tiles = {Size2{32, 32}, Size2{64, 64}};
  EXPECT_EQ(sweep_size(a), 2 * 3 * 16 * 2);
  // The suite's kernels (14: 2016) x 16 blocks x 3 dtypes x 3 matrices: refused before anything runs.
  for (const KernelInfo& k : kernel_suite()) a.kernels.push_back(k.name);
  a.kernels.erase(a.kernels.begin(), a.kernels.begin() + 2);
  a.tiles = {std::nullopt};
  a.matrices = {{64, 64}, {128, 128}, {256, 256}};
  // However many kernels the suite has (14 or more: each added one makes the sweep larger).
  const size_t n = a.kernels.size();
  ASSERT_GE(n, 14u);
  EXPECT_EQ(message_of([&] { sweep_size(a); }),
            "a sweep of " + std::to_string(n * 3 * 3 * 16) + " configurations (" + std::to_string(n) +
                " kernels x 3 dtypes x 3 matrices x 16 blocks x 1 tiles) is more than 2000; sweep fewer values at once");
  a.blocks.clear();
  EXPECT_EQ(message_of([&] { sweep_size(a); }), "a sweep needs at least one value on every axis");
}

// The cross product, kernel outermost and tile innermost, split into launches and refusals with the very
// reason a single run gives.
TEST(Sweep, ExpansionResolvesOrRefusesEachConfiguration) {
  SweepAxes a;
  a.kernels = {"naive", "coalesced", "swizzle"};
  a.dtypes = {Dtype::F32, Dtype::F64};
  a.matrices = {{256, 256}, {128, 64}};
  a.blocks = {{32, 8}, {24, 8}};
  a.tiles = {std::nullopt, Size2{256, 256}};
  const SweepPlan plan = expand_sweep(a, h100());
  ASSERT_EQ(plan.launches.size() + plan.refused.size(), 3u * 2 * 2 * 2 * 2);
  std::vector<size_t> seen;
  for (const SweepLaunch& l : plan.launches) seen.push_back(l.point.index);
  for (const SweepRefusal& r : plan.refused) seen.push_back(r.point.index);
  std::sort(seen.begin(), seen.end());
  for (size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], i);
  // Each configuration, resolved on its own.
  size_t index = 0, refusals = 0;
  for (const std::string& k : a.kernels)
    for (const Dtype d : a.dtypes)
      for (const Size2& m : a.matrices)
        for (const Size2& b : a.blocks)
          for (const auto& t : a.tiles) {
            UserConfig u;
            u.kernel = k, u.dtype = d, u.matrix = m, u.block = b, u.tile = t;
            std::string why;
            try {
              resolve_analysis(u, h100());
            } catch (const ConfigError& e) {
              why = e.what();
            }
            const auto launch = std::find_if(plan.launches.begin(), plan.launches.end(),
                                             [&](const SweepLaunch& l) { return l.point.index == index; });
            const auto refusal = std::find_if(plan.refused.begin(), plan.refused.end(),
                                              [&](const SweepRefusal& r) { return r.point.index == index; });
            const SweepPoint& p = launch != plan.launches.end() ? launch->point : refusal->point;
            EXPECT_EQ(p.user.kernel, k);
            EXPECT_EQ(p.user.dtype, d);
            EXPECT_EQ(p.user.matrix, m);
            EXPECT_EQ(p.user.block, b);
            EXPECT_EQ(p.user.tile.has_value(), t.has_value());
            if (why.empty()) {
              EXPECT_NE(launch, plan.launches.end()) << index;
            } else {
              ASSERT_NE(refusal, plan.refused.end()) << index << ": " << why;
              EXPECT_EQ(refusal->reason, why);
              ++refusals;
            }
            ++index;
          }
  EXPECT_EQ(refusals, plan.refused.size());
  // What is refused, and why: every 256x256 tile of coalesced (256 KiB of shared memory in f32, more than the
  // H100 allows a block) and swizzle's 24x24 tile (24x8 blocks).
  bool shared = false, swizzle = false;
  for (const SweepRefusal& r : plan.refused) {
    if (r.point.user.kernel == "coalesced" && r.point.user.tile && r.point.user.block == Size2{32, 8}) {
      EXPECT_NE(r.reason.find("shared"), std::string::npos) << r.reason;
      shared = true;
    }
    if (r.point.user.kernel == "swizzle" && r.point.user.block == Size2{24, 8} && !r.point.user.tile) swizzle = true;
  }
  EXPECT_TRUE(shared);
  EXPECT_TRUE(swizzle);
  EXPECT_GT(plan.launches.size(), 8u);
}

TEST(Sweep, AWrongOptionRefusesTheWholeSweep) {
  SweepAxes a;
  a.kernels = {"padded"};
  a.dtypes = {Dtype::F32};
  a.matrices = {{64, 64}};
  a.blocks = {{32, 8}, {16, 16}};
  AnalysisOptions o;
  o.regs = 9999;
  EXPECT_EQ(message_of([&] { expand_sweep(a, h100(), o); }),
            "--regs must be between 1 and 255 (h100's registers a thread)");
}

// Every row is the single analysis of its configuration, and the rows are ranked: by effective bandwidth over
// all, by time within each (kernel, dtype, matrix) group.
TEST(Sweep, RowsAreSingleAnalysesRanked) {
  SweepAxes a;
  a.kernels = {"naive", "coalesced", "padded", "vec4"};
  a.dtypes = {Dtype::F16, Dtype::F32};
  a.matrices = {{512, 512}, {256, 128}};
  a.blocks = {{32, 8}, {16, 16}, {8, 32}, {32, 32}, {64, 4}};
  const SweepResult r = run_sweep(a, h100());
  ASSERT_EQ(r.rows.size() + r.refused.size(), size_t(sweep_size(a)));
  ASSERT_GT(r.rows.size(), 40u);
  for (const SweepRow& row : r.rows) {
    const Analysis single = analyze(row.point.user, h100());
    const Prediction& p = single.prediction;
    const std::string what = row.point.user.kernel + " " + dtype_name(row.point.user.dtype) + " " +
                             format_size2(row.point.user.matrix) + " " + format_size2(row.point.user.block);
    EXPECT_EQ(row.time_us, p.time_us) << what;
    EXPECT_EQ(row.effective_bandwidth_gbs, p.effective_bandwidth_gbs) << what;
    ASSERT_TRUE(row.fraction_of_copy && p.fraction_of_copy) << what;
    EXPECT_EQ(*row.fraction_of_copy, *p.fraction_of_copy) << what;
    EXPECT_EQ(row.bottleneck, p.bottleneck) << what;
    EXPECT_EQ(row.bottleneck_share, p.bottleneck_share()) << what;
    EXPECT_EQ(row.blocks_per_sm, p.occupancy.blocks_per_sm) << what;
    EXPECT_EQ(row.warps_per_sm, p.occupancy.resident_warps()) << what;
    EXPECT_EQ(row.instructions_basis, p.instructions_basis) << what;
    EXPECT_EQ(row.caveats, p.caveats) << what;
    EXPECT_EQ(row.launch.shared_bytes, single.config.shared_bytes) << what;
    EXPECT_EQ(row.launch.shape.tile_x, single.config.shape.tile_x) << what;
    EXPECT_EQ(row.launch.shape.pad, single.config.shape.pad) << what;
  }
  for (size_t i = 0; i < r.rows.size(); ++i) {
    EXPECT_EQ(r.rows[i].rank, int64_t(i) + 1);
    if (i) {
      EXPECT_GE(r.rows[i - 1].effective_bandwidth_gbs, r.rows[i].effective_bandwidth_gbs) << i;
    }
  }
  // Within a group, ranks follow the times; the group's first is its fastest.
  std::map<std::tuple<std::string, int, int64_t>, std::vector<const SweepRow*>> groups;
  for (const SweepRow& row : r.rows)
    groups[{row.point.user.kernel, int(row.point.user.dtype), row.point.user.matrix.x}].push_back(&row);
  EXPECT_EQ(groups.size(), 16u);
  for (auto& [key, members] : groups) {
    std::sort(members.begin(), members.end(),
              [](const SweepRow* x, const SweepRow* y) { return x->group_rank < y->group_rank; });
    for (size_t i = 0; i < members.size(); ++i) {
      EXPECT_EQ(members[i]->group_rank, int64_t(i) + 1);
      if (i) {
        EXPECT_LE(members[i - 1]->time_us, members[i]->time_us);
      }
    }
  }
  const std::vector<const SweepRow*> best = best_per_group(r);
  EXPECT_EQ(best.size(), groups.size());
  for (size_t i = 1; i < best.size(); ++i) EXPECT_LT(best[i - 1]->point.index, best[i]->point.index);
  for (const SweepRow* b : best) EXPECT_EQ(b->group_rank, 1);
  // Within one matrix and dtype, the overall order is the time's too: rank order of one group's rows.
  for (const auto& [key, members] : groups)
    for (size_t i = 1; i < members.size(); ++i) EXPECT_LT(members[i - 1]->rank, members[i]->rank);
}

// The configurations are analysed side by side (AnalysisOptions::threads): one thread or five, the rows,
// their ranks and the refusals are the same, and the progress counts up to every analysis and copy prediction
// exactly once.
TEST(Sweep, ThreadsChangeNothingButTheTime) {
  SweepAxes a;
  a.kernels = {"copy", "padded", "swizzle"};
  a.dtypes = {Dtype::F32, Dtype::F64};
  a.matrices = {{512, 256}};
  a.blocks = {{32, 8}, {16, 16}, {64, 16}, {128, 8}, {64, 32}};  // 64x32: 2048 threads, refused
  const auto run = [&](int threads, std::vector<int64_t>& done) {
    AnalysisOptions o;
    o.threads = threads;
    return run_sweep(a, h100(), o, [&](const std::string& stage, int64_t d, int64_t total) {
      if (stage == "sweep") done.push_back(d), done.push_back(total);
    });
  };
  std::vector<int64_t> one_done, five_done;
  const SweepResult one = run(1, one_done), five = run(5, five_done);
  ASSERT_EQ(one.rows.size(), five.rows.size());
  ASSERT_EQ(one.refused.size(), five.refused.size());
  EXPECT_EQ(one.rows.size(), 24u);
  EXPECT_EQ(one.refused.size(), 6u);
  for (size_t i = 0; i < one.rows.size(); ++i) {
    EXPECT_EQ(one.rows[i].point.index, five.rows[i].point.index) << i;
    EXPECT_EQ(one.rows[i].rank, five.rows[i].rank) << i;
    EXPECT_EQ(one.rows[i].time_us, five.rows[i].time_us) << i;
    EXPECT_EQ(one.rows[i].fraction_of_copy, five.rows[i].fraction_of_copy) << i;
    EXPECT_EQ(one.rows[i].instructions, five.rows[i].instructions) << i;
  }
  for (size_t i = 0; i < one.refused.size(); ++i) {
    EXPECT_EQ(one.refused[i].point.index, five.refused[i].point.index) << i;
    EXPECT_EQ(one.refused[i].reason, five.refused[i].reason) << i;
  }
  // 24 analyses and 8 copy predictions (one per dtype and allowed block): counted one by one, the total
  // reached once, at the end.
  for (const std::vector<int64_t>* d : {&one_done, &five_done}) {
    ASSERT_EQ(d->size(), 2u * 33u);
    const int64_t total = d->back();
    EXPECT_EQ(total, 32);
    EXPECT_EQ((*d)[d->size() - 2], total);
    for (size_t i = 0; i + 2 < d->size(); i += 2) {
      EXPECT_EQ((*d)[i + 1], total);
      EXPECT_LT((*d)[i], total);
      if (i) {
        EXPECT_EQ((*d)[i], (*d)[i - 2] + 1);
      }
    }
  }
  EXPECT_EQ(one_done, five_done);
}

// copy_shared f16 at 8x16 writes each row's 8 halves (16 bytes of a sector) from 2-byte lanes: the caveat that
// its time is likely high, which leaves no doubt that the row is as fast as predicted, so a sweep whose fastest
// row it is names no other; at 32x8 (whole sectors) there is no caveat.
TEST(Sweep, ACaveatThatTheTimeIsLikelyHighLeavesTheRowSure) {
  SweepAxes a;
  a.kernels = {"copy_shared"};
  a.dtypes = {Dtype::F16};
  a.matrices = {{4096, 4096}};
  a.blocks = {{8, 16}, {32, 8}};
  const SweepResult r = run_sweep(a, h100());
  ASSERT_EQ(r.rows.size(), 2u);
  for (const SweepRow& row : r.rows) {
    if (row.point.user.block.x == 8) {
      ASSERT_EQ(row.caveats.size(), 1u);
      EXPECT_NE(row.caveats[0].find("likely high"), std::string::npos) << row.caveats[0];
      EXPECT_EQ(row.caveats_time_high, 1);
    } else {
      EXPECT_TRUE(row.caveats.empty());
    }
    EXPECT_FALSE(row.may_be_slower());
  }
  std::ostringstream table;
  print_sweep(table, r);
  EXPECT_EQ(table.str().find("the fastest without one"), std::string::npos) << table.str();
}

// A row whose prediction carries a caveat is marked in the table, counted in the CSV and listed in the JSON; the
// fastest row's caveat names the fastest row without one. naive f32 at 8x32 (8 columns a warp: loads over 4
// lines, one in flight, beside 16-byte pieces two warps complete) carries the half-sector-wait caveat on the
// h100 profile; at 16x16 (8-byte pieces) and 32x8 (4-byte pieces) it does not.
TEST(Sweep, CaveatsAreMarkedAndTheFastestWithoutOneNamed) {
  SweepAxes a;
  a.kernels = {"naive"};
  a.dtypes = {Dtype::F32};
  a.matrices = {{4096, 4096}};
  a.blocks = {{8, 32}, {16, 16}, {32, 8}};
  const SweepResult r = run_sweep(a, h100());
  ASSERT_EQ(r.rows.size(), 3u);
  std::map<int64_t, const SweepRow*> by_block_x;
  for (const SweepRow& row : r.rows) by_block_x[row.point.user.block.x] = &row;
  ASSERT_EQ(by_block_x[8]->caveats.size(), 1u);
  EXPECT_NE(by_block_x[8]->caveats[0].find("half-sector pieces"), std::string::npos) << by_block_x[8]->caveats[0];
  EXPECT_TRUE(by_block_x[16]->caveats.empty());
  EXPECT_TRUE(by_block_x[32]->caveats.empty());
  ASSERT_EQ(r.rows.front().point.user.block.x, 8) << "the model ranks 8x32 fastest";
  std::ostringstream table;
  print_sweep(table, r);
  const std::string t = table.str();
  EXPECT_NE(t.find("*: the prediction carries a caveat"), std::string::npos) << t;
  const SweepRow& second = r.rows[1];
  EXPECT_NE(t.find("the fastest without one: naive f32 4096x4096 block " + format_size2(second.point.user.block)),
            std::string::npos)
      << t;
  const nlohmann::ordered_json j = sweep_json(r);
  EXPECT_EQ(j["rows"][0]["caveats"].size(), 1u);
  EXPECT_EQ(j["rows"][1]["caveats"].size(), 0u);
  std::ostringstream csv;
  print_sweep_csv(csv, r);
  std::istringstream lines(csv.str());
  std::string header, first;
  std::getline(lines, header);
  std::getline(lines, first);
  EXPECT_NE(header.find(",caveats,refused"), std::string::npos) << header;
  EXPECT_NE(first.find(",1,"), std::string::npos) << first;
}

// --block all is the list docs/cli.md shows, in its order.
TEST(Sweep, BlockAllIsTheDocumentedList) {
  std::ifstream f(std::string(MEMSIM_SOURCE_DIR) + "/docs/cli.md");
  ASSERT_TRUE(f) << "docs/cli.md";
  std::string line, listed;
  while (std::getline(f, line))
    if (line.find("`--block all` is these") != std::string::npos) listed = line;
  ASSERT_FALSE(listed.empty()) << "docs/cli.md has no line saying what `--block all` is";
  std::vector<Size2> documented;
  const std::regex shape("`([0-9]+)x([0-9]+)`");
  for (auto it = std::sregex_iterator(listed.begin(), listed.end(), shape); it != std::sregex_iterator(); ++it)
    documented.push_back({std::stoll((*it)[1]), std::stoll((*it)[2])});
  EXPECT_EQ(documented, tuner_blocks()) << listed;
  for (const Size2& b : tuner_blocks()) EXPECT_LE(b.x * b.y, 1024) << format_size2(b);
}

TEST(Sweep, ShortBasisNamesEveryBasis) {
  EXPECT_EQ(short_basis(std::string(kBasisSass) + " (nvcc 13.0.88, sm_90)"), "compiled");
  EXPECT_EQ(short_basis(std::string(kBasisSass) + " (the SASS table memsim ships (...))"), "sass table");
  EXPECT_EQ(short_basis(std::string(kBasisCodeEstimate) + " (no cuobjdump)"), "estimate");
  EXPECT_EQ(short_basis(kBasisCounted), "counted");
  EXPECT_EQ(short_basis(kBasisOperations), "ops");
  EXPECT_EQ(short_basis(kBasisMemoryRatio), "ratio");
  EXPECT_EQ(short_basis(kBasisGiven), "given");
}

}  // namespace
}  // namespace memsim
