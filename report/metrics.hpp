#pragma once
// The report's metrics in one table: for each quantity memsim prints, its JSON key (the long CSV's name, the
// sweep CSV's column too), the words a table heads it with, its unit, its name and unit in Nsight Compute's CSV
// layout, how a table writes it, and a line saying what it is. Every format reads it: the report of one launch
// (table, JSON, long CSV, ncu-csv: report/report.cpp), the comparisons (report/compare.cpp) and the sweep
// (report/sweep.cpp), so that a name or a unit is spelt here and nowhere else (docs/cli.md, "Output formats").
// The cost terms' names are the model's (kTerm* in model/cost.hpp); the totals' names are computed by
// ncu_metrics (sim/replay.hpp), and a test checks that this table holds each of them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace memsim {

// How a table writes a value. JSON and the CSVs write numbers in their shortest exact form whatever this says;
// ncu-csv writes a Count with thousands separators and any other number with 6 significant digits.
enum class MetricFormat {
  Count,    // a whole number with thousands separators, as Nsight Compute prints counts: 4,063,232
  Integer,  // a whole number as it is: 4224
  Figure,   // 4 significant digits: 15.79, 2125
  Ratio,    // 3 significant digits: 4.00, 32.0
  Percent,  // a fraction as a percentage of 3 significant digits: 70.7%
  Share,    // a fraction as a percentage of 2 significant digits: 66%
  Text,     // words, as they are
};

enum class MetricId {
  // Totals under Nsight Compute's names, in the order ncu_metrics gives them.
  GlobalLoadRequests,
  GlobalStoreRequests,
  GlobalLoadSectors,
  GlobalStoreSectors,
  L1Wavefronts,
  SharedLoadInstructions,
  SharedStoreInstructions,
  SharedLoadWavefronts,
  SharedStoreWavefronts,
  SharedLoadConflicts,
  SharedStoreConflicts,
  // Ratios of two totals: a comparison's columns.
  SectorsPerLoadRequest,
  SectorsPerStoreRequest,
  SharedLoadWavefrontsPerInstruction,
  SharedStoreWavefrontsPerInstruction,
  // The prediction.
  Time,
  EffectiveBandwidth,
  FractionOfAttainable,
  FractionOfCopy,
  Bottleneck,
  BottleneckShare,
  Instructions,
  InstructionsBasis,
  Terms,
  // Occupancy and the block's resources: a sweep's columns.
  BlocksPerSm,
  WarpsPerSm,
  OccupancyLimiter,
  RegistersPerThread,
  SharedBytesPerBlock,
};

struct MetricSpec {
  MetricId id;
  const char* key;       // JSON key; the long CSV's name; the sweep CSV's column
  const char* label;     // a table's column head
  const char* unit;      // "us", "GB/s", "sector", "B"; "" for a plain count, a fraction or words
  const char* ncu_name;  // its name in --format ncu-csv; "" where that layout leaves it out
  const char* ncu_unit;  // Nsight Compute's "Metric Unit" column there ("sector", "inst", "usecond", "")
  MetricFormat format;
  const char* description;  // one line
  // A ratio of two totals: numerator over denominator (no such access: no value). Otherwise the metric itself.
  MetricId numerator, denominator;
  bool is_ratio() const { return numerator != id; }
};

// Every metric, in the order above.
const std::vector<MetricSpec>& metric_table();
const MetricSpec& metric(MetricId id);
// The metric a JSON key (an Nsight Compute name, for the totals) names; nullptr where none does.
const MetricSpec* find_metric(const std::string& key);

// Thousands separators, as ncu prints counts: 1234567 -> "1,234,567".
std::string grouped(int64_t v);
// A value as a table writes it in the metric's format; "-" for none (a ratio without accesses, a fraction
// without its reference). Not for Text metrics, whose words are their cell.
std::string metric_cell(MetricId id, double value);
std::string metric_cell(MetricId id, const std::optional<double>& value);
// The cell and its unit: "15.79 us", "2125 GB/s".
std::string metric_with_unit(MetricId id, double value);
// A value as --format ncu-csv writes it: a Count with thousands separators, other numbers to 6 significant
// digits.
std::string metric_ncu_value(MetricId id, double value);

// A ratio metric from the totals (name, value as ncu_metrics gives them): none without the denominator's accesses.
template <class Metrics>
std::optional<double> metric_ratio(MetricId id, const Metrics& totals) {
  const MetricSpec& m = metric(id);
  int64_t num = 0, den = 0;
  for (const auto& t : totals) {
    if (t.name == metric(m.numerator).key) num = t.value;
    if (t.name == metric(m.denominator).key) den = t.value;
  }
  if (den == 0) return std::nullopt;
  return double(num) / double(den);
}

}  // namespace memsim
