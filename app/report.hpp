#pragma once
// Turns a replay (and, when there is one, a prediction) into what memsim prints: one JSON object, a readable
// table, or CSV rows per site. No counting happens here.
#include <nlohmann/json.hpp>
#include <ostream>

#include "sim/replay.hpp"

namespace memsim {

nlohmann::ordered_json config_json(const LaunchConfig& cfg);
nlohmann::ordered_json replay_json(const ReplayResult& r);  // {"kernel", "config", "metrics", "warps", "sites", "findings"}

void print_table(std::ostream& os, const nlohmann::ordered_json& report);
void print_csv(std::ostream& os, const nlohmann::ordered_json& report);

}  // namespace memsim
