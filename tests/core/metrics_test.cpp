// The report's table of metrics (report/metrics.hpp) and the printers that read it: every id once, every
// total the replay names in it with ncu's unit, the cells worked out by hand, and each format of one launch
// writing the same figure under the table's name.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "model/profile.hpp"
#include "model/significant.hpp"
#include "report/analysis.hpp"
#include "report/metrics.hpp"
#include "report/report.hpp"

namespace memsim {
namespace {

TEST(Metrics, EveryIdOnceWithItsOwnKey) {
  std::set<int> ids;
  std::set<std::string> keys;
  for (const MetricSpec& m : metric_table()) {
    EXPECT_TRUE(ids.insert(int(m.id)).second) << m.key;
    EXPECT_TRUE(keys.insert(m.key).second) << m.key;
    EXPECT_EQ(&metric(m.id), &m);
    EXPECT_EQ(find_metric(m.key), &m);
    EXPECT_NE(std::string(m.description), "") << m.key;
  }
  // The last id: every one before it is in the table too (the set holds 0 .. SharedBytesPerBlock).
  EXPECT_EQ(ids.size(), size_t(MetricId::SharedBytesPerBlock) + 1);
  EXPECT_EQ(find_metric("no_such_metric"), nullptr);
}

// The totals a replay names, each in the table as a count under the same name and in the same order, with
// the unit ncu's details page gives it (validate/results/*.ncu.csv: "sector", "inst", none).
TEST(Metrics, TheReplaysTotalsAreInTheTable) {
  UserConfig u;
  u.kernel = "coalesced";
  u.matrix = {64, 64};
  const std::vector<Metric> totals = ncu_metrics(replay(resolve_launch(u)));
  ASSERT_EQ(totals.size(), 11u);
  for (size_t i = 0; i < totals.size(); ++i) {
    const MetricSpec* m = find_metric(totals[i].name);
    ASSERT_NE(m, nullptr) << totals[i].name;
    EXPECT_EQ(int(m->id), int(i)) << totals[i].name;
    EXPECT_EQ(m->format, MetricFormat::Count);
    EXPECT_EQ(std::string(m->ncu_name), totals[i].name);
  }
  EXPECT_EQ(std::string(metric(MetricId::GlobalStoreSectors).ncu_unit), "sector");
  EXPECT_EQ(std::string(metric(MetricId::SharedLoadInstructions).ncu_unit), "inst");
  EXPECT_EQ(std::string(metric(MetricId::SharedLoadConflicts).ncu_unit), "");
  EXPECT_EQ(std::string(metric(MetricId::GlobalLoadRequests).ncu_unit), "");
}

TEST(Metrics, CellsAsATableWritesThem) {
  EXPECT_EQ(metric_cell(MetricId::SharedLoadConflicts, 4063232.0), "4,063,232");
  EXPECT_EQ(metric_cell(MetricId::SharedBytesPerBlock, 4224.0), "4224");
  EXPECT_EQ(metric_cell(MetricId::Time, 15.7912), "15.79");
  EXPECT_EQ(metric_cell(MetricId::EffectiveBandwidth, 2125.4), "2125");
  EXPECT_EQ(metric_with_unit(MetricId::EffectiveBandwidth, 2125.4), "2125 GB/s");
  EXPECT_EQ(metric_cell(MetricId::SectorsPerStoreRequest, 32.0), "32.0");
  EXPECT_EQ(metric_cell(MetricId::FractionOfAttainable, 0.70712), "70.7%");  // 2125.4 / 3006 GB/s
  EXPECT_EQ(metric_cell(MetricId::FractionOfCopy, 1.0834), "108%");
  EXPECT_EQ(metric_cell(MetricId::BottleneckShare, 0.6620), "66%");
  EXPECT_EQ(metric_cell(MetricId::FractionOfCopy, std::nullopt), "-");
  EXPECT_EQ(metric_cell(MetricId::Instructions, 1234567.4), "1,234,567");
  EXPECT_THROW(metric_cell(MetricId::Bottleneck, 1.0), std::logic_error);
  // ncu-csv: counts grouped, other numbers to 6 significant digits.
  EXPECT_EQ(metric_ncu_value(MetricId::Time, 8.105507641973126), "8.10551");
  EXPECT_EQ(metric_ncu_value(MetricId::Instructions, 131072.0), "131,072");
}

TEST(Metrics, RatiosOfTwoTotals) {
  // padded 2048x2048 f32 (README): 524,288 load sectors over 131,072 requests.
  const std::vector<Metric> totals = {{"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 131072},
                                      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 524288},
                                      {"smsp__inst_executed_op_shared_st.sum", 0}};
  EXPECT_EQ(metric_ratio(MetricId::SectorsPerLoadRequest, totals), 4.0);
  EXPECT_EQ(metric_ratio(MetricId::SharedStoreWavefrontsPerInstruction, totals), std::nullopt);
  EXPECT_EQ(metric_ratio(MetricId::SectorsPerStoreRequest, totals), std::nullopt);
}

// One analysis in each format: the time under the table's key, label and ncu name, the same figure each time.
TEST(Metrics, EveryFormatWritesTheSameTime) {
  UserConfig u;
  u.kernel = "coalesced";
  u.matrix = {64, 64};
  AnalysisOptions o;
  o.compile = false;
  const Analysis a = analyze(u, load_profile("h100"), o);
  const double t = a.prediction.time_us;

  const nlohmann::ordered_json j = report_json(a);
  EXPECT_EQ(j["prediction"][metric(MetricId::Time).key].get<double>(), t);
  ASSERT_TRUE(a.fraction_of_attainable.has_value());
  EXPECT_EQ(j["prediction"][metric(MetricId::FractionOfAttainable).key].get<double>(), *a.fraction_of_attainable);
  // h100's attainable figure is cudaMemcpy's 3006 GB/s (model/devices/h100.json).
  EXPECT_DOUBLE_EQ(*a.fraction_of_attainable, a.prediction.effective_bandwidth_gbs / 3006.0);
  for (const MetricId id : {MetricId::Time, MetricId::EffectiveBandwidth, MetricId::FractionOfCopy,
                            MetricId::Bottleneck, MetricId::BottleneckShare, MetricId::Instructions,
                            MetricId::InstructionsBasis, MetricId::Terms})
    EXPECT_TRUE(j["prediction"].contains(metric(id).key)) << metric(id).key;

  std::ostringstream table, csv, ncu;
  print_table(table, a);
  print_csv(csv, a);
  print_ncu_csv(ncu, a);
  EXPECT_NE(table.str().find("  time " + significant(t) + " us, "), std::string::npos) << table.str();
  EXPECT_NE(csv.str().find("prediction,,time_us," + nlohmann::ordered_json(t).dump() + "\n"), std::string::npos);
  EXPECT_NE(ncu.str().find("\"memsim__time_predicted\",\"usecond\",\"" + significant(t, 6) + "\""),
            std::string::npos)
      << ncu.str();
}

}  // namespace
}  // namespace memsim
