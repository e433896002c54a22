#pragma once
// Turns a replay (and, when there is one, a prediction) into what memsim prints: one JSON object, a readable
// table, a long CSV table, or Nsight Compute's CSV layout. No counting happens here.
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "sim/replay.hpp"

namespace memsim {

// Thousands separators, as ncu prints counts: 1234567 -> "1,234,567".
std::string grouped(int64_t v);

nlohmann::ordered_json config_json(const LaunchConfig& cfg);
nlohmann::ordered_json replay_json(const ReplayResult& r);  // {"kernel", "config", "metrics", "warps", "sites", "findings"}

void print_table(std::ostream& os, const nlohmann::ordered_json& report);

// A bandwidth against what a user can reach on the device, from provenance_json's "attainable_bandwidth":
// the fraction (null without one) and its words, "70.7% of attainable DRAM bandwidth (3006 GB/s,
// cudaMemcpy-measured)" or "... of the data-sheet DRAM peak (3352 GB/s)".
nlohmann::ordered_json fraction_of_attainable(double gbs, const nlohmann::ordered_json& device);
std::string attainable_text(double fraction, const nlohmann::ordered_json& device);
// The legend line of a table's "of attain" column: "of attain: of attainable DRAM bandwidth (...)".
std::string attainable_legend(const nlohmann::ordered_json& device);
// One CSV row, fields quoted as RFC 4180 needs (a comma, a quote, a line break or edge spaces).
void csv_row(std::ostream& os, const std::vector<std::string>& fields);
// One long table: section,index,name,value, a row for every scalar of the JSON report (docs/cli.md).
void print_csv(std::ostream& os, const nlohmann::ordered_json& report);
// Nsight Compute's `ncu --csv --metrics ...` layout: one launch, a row per metric (docs/cli.md).
void print_ncu_csv(std::ostream& os, const nlohmann::ordered_json& report);

}  // namespace memsim
