#pragma once
// Several kernels at one configuration, side by side (memsim --kernel naive,coalesced,padded): each analysed
// on the same matrix, dtype, block and device, the copy kernel predicted once for the fraction of copy, and a
// kernel that refuses the configuration kept as a row that says why.
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/analysis.hpp"

namespace memsim {

// The kernels a --kernel value names: one name, a comma-separated list, or "all" (the suite in its order).
// Throws ConfigError naming an unknown kernel, an empty name or one named twice.
std::vector<std::string> kernel_names(const std::string& spec);

// {"config": {...what every row shares...}, "device": {...}, "copy": {"time_us", "effective_bandwidth_gbs"} or
//  null, "kernels": [{"kernel", "refused", "tile", "pad", <sectors per request and wavefronts per instruction>,
//  "time_us", "effective_bandwidth_gbs", "fraction_of_copy", "bottleneck", "bottleneck_share", "instructions",
//  "instructions_basis", "advice", "metrics"}, ...]}
// (docs/cli.md). `user.kernel` is ignored; `kernels` are analysed in their order.
nlohmann::ordered_json compare_kernels(const UserConfig& user, const std::vector<std::string>& kernels,
                                       const DeviceProfile& device, const AnalysisOptions& options = {});

// The comparison as one table, its advice below it.
void print_comparison(std::ostream& os, const nlohmann::ordered_json& comparison);

// One kernel at one configuration on several device profiles (memsim --device h100,h200): each profile's
// prediction, its copy kernel, and a profile that refuses the launch as a row that says why.
// {"config": {...}, "kernel", "devices": [{"profile", "name", "calibrated", "refused", "time_us",
//  "effective_bandwidth_gbs", "fraction_of_copy", "bottleneck", "bottleneck_share", "instructions",
//  "instructions_basis"}, ...]}; the profiles are given loaded, in the order asked.
nlohmann::ordered_json compare_devices(const UserConfig& user, const std::vector<DeviceProfile>& devices,
                                       const AnalysisOptions& options = {});
void print_device_comparison(std::ostream& os, const nlohmann::ordered_json& comparison);

}  // namespace memsim
