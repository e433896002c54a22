#pragma once
// The partition-camping results as JSON (memsim puts this object under the report's top-level key
// "partitions"; plots/memsim_plot.py draws its windows). No counting happens here.
#include <nlohmann/json.hpp>

#include "sim/partitions.hpp"

namespace memsim {

// {"policy", "partitions", "granularity_bytes", "xor_bits", "assumed", "note"}
nlohmann::ordered_json partition_spec_json(const PartitionSpec& spec);

// {"mapping", "schedule", "sector_bytes", "bytes", "imbalance", "worst_window_imbalance", "partition_bytes",
//  "windows": {"total", "shown", "every", "downsampled", "note", "index", "first_block", "last_block",
//              "ld_bytes", "st_bytes", "ld_imbalance", "st_imbalance"}}
// Imbalance figures come for "ld", "st", "both" and "paced" (PartitionTraffic in sim/partitions.hpp).
nlohmann::ordered_json partition_json(const PartitionTraffic& t);

}  // namespace memsim
