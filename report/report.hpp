#pragma once
// Turns an analysis of a launch (report/analysis.hpp: its replay, partition traffic, prediction, device and
// advice) into what memsim prints: a readable table, one JSON object, a long CSV table, or Nsight Compute's CSV
// layout. Each printer reads the typed results; the names, units and formats of the quantities they share
// come from one table (report/metrics.hpp). No counting happens here.
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "model/profile.hpp"
#include "report/analysis.hpp"
#include "report/metrics.hpp"
#include "sim/replay.hpp"

namespace memsim {

nlohmann::ordered_json config_json(const LaunchConfig& cfg);
nlohmann::ordered_json replay_json(const ReplayResult& r);  // {"kernel", "config", "metrics", "warps", "sites", "findings"}
// The totals as the report's "metrics": {"<ncu metric name>": n, ...}, in ncu_metrics' order.
nlohmann::ordered_json metrics_json(const std::vector<Metric>& totals);
// A value, or null where there is none (a fraction without its reference).
nlohmann::ordered_json optional_json(const std::optional<double>& v);

// The report of one analysis as one JSON object: replay_json's keys with "device" (provenance_json) after
// "config", then "partitions" (where counted), "prediction" (to_json, with "fraction_of_attainable") and
// "advice" (docs/cli.md, "--format json").
nlohmann::ordered_json report_json(const Analysis& a);
// The report as a person reads it (docs/cli.md, "--format table").
void print_table(std::ostream& os, const Analysis& a);
// One long table: section,index,name,value, a row for every scalar of report_json (docs/cli.md).
void print_csv(std::ostream& os, const Analysis& a);
// Nsight Compute's `ncu --csv --metrics ...` layout: one launch, a row per metric (docs/cli.md).
void print_ncu_csv(std::ostream& os, const Analysis& a);

// A bandwidth against what a user can reach on the device (attainable_bandwidth in model/profile.hpp): the
// fraction (none without a figure), its words, "70.7% of attainable DRAM bandwidth (3006 GB/s,
// cudaMemcpy-measured)" or "... of the data-sheet DRAM peak (3352 GB/s)", and the legend line of a table's
// "of attain" column: "of attain: the effective bandwidth over attainable DRAM bandwidth (...)".
std::optional<double> fraction_of_attainable(double gbs, const DeviceProfile& device);
std::string attainable_text(double fraction, const DeviceProfile& device);
std::string attainable_legend(const DeviceProfile& device);
// "Prediction on h100 (NVIDIA H100 80GB HBM3, compute capability 9.0)\n  calibrated: ...\n": the heading of
// a comparison or a sweep, naming the profile and where its constants come from.
std::string device_heading(const DeviceProfile& device);
// "DRAM bandwidth (66%)": the bottleneck and its share of the time, a comparison's or a sweep's last column.
std::string bottleneck_cell(const std::string& bottleneck, double share);

// One CSV row, fields quoted as RFC 4180 needs (a comma, a quote, a line break or edge spaces).
void csv_row(std::ostream& os, const std::vector<std::string>& fields);
// A JSON object in the long layout: section,index,name,value, a row for every scalar (docs/cli.md,
// "--format csv"); the comparisons' CSV and print_csv write their JSON so.
void print_csv(std::ostream& os, const nlohmann::ordered_json& report);

}  // namespace memsim
