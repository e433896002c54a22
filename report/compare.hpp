#pragma once
// Several kernels at one configuration, side by side (memsim --kernel naive,coalesced,padded): each analysed
// on the same matrix, dtype, block and device, the copy kernel predicted once for the fraction of copy, and a
// kernel that refuses the configuration kept as a row that says why.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/analysis.hpp"

namespace memsim {

// The kernels a --kernel value names: one name, a comma-separated list, or "all" (the suite in its order).
// Throws ConfigError naming an unknown kernel, an empty name or one named twice.
std::vector<std::string> kernel_names(const std::string& spec);

// Each kernel of a comparison: its analysis, or the reason it refuses the configuration.
struct KernelComparisonRow {
  std::string kernel;
  std::optional<Analysis> analysis;  // none: refused
  std::string refused;
};
struct KernelComparison {
  UserConfig user;  // what every row shares: matrix, dtype, block, and tile and pad where given
  DeviceProfile device;
  std::optional<Prediction> copy;  // the copy kernel at that launch, for each row's fraction of copy
  std::string copy_refused;        // why there is none
  std::vector<KernelComparisonRow> rows;
};

// `user.kernel` is ignored; `kernels` are analysed in their order.
KernelComparison compare_kernels(const UserConfig& user, const std::vector<std::string>& kernels,
                                 const DeviceProfile& device, const AnalysisOptions& options = {});

// {"config": {...what every row shares...}, "device": {...}, "copy": {"time_us", "effective_bandwidth_gbs"} or
//  {"refused"}, "kernels": [{"kernel", "refused", "tile", "pad", <sectors per request and wavefronts per
//  instruction>, "time_us", "effective_bandwidth_gbs", "fraction_of_attainable", "fraction_of_copy",
//  "bottleneck", "bottleneck_share", "instructions", "instructions_basis", "advice", "metrics"}, ...]}
// (docs/cli.md).
nlohmann::ordered_json comparison_json(const KernelComparison& c);
// The comparison as one table, its advice below it.
void print_comparison(std::ostream& os, const KernelComparison& c);

// One kernel at one configuration on several device profiles (memsim --device h100,h200): each profile's
// prediction, its copy kernel, and a profile that refuses the launch as a row that says why.
struct DeviceComparisonRow {
  DeviceProfile device;
  std::optional<Analysis> analysis;  // none: refused
  std::string refused;
};
struct DeviceComparison {
  UserConfig user;  // the kernel and what every row shares
  std::vector<DeviceComparisonRow> rows;
};
// The profiles are given loaded, in the order asked.
DeviceComparison compare_devices(const UserConfig& user, const std::vector<DeviceProfile>& devices,
                                 const AnalysisOptions& options = {});
// {"config": {...}, "kernel", "devices": [{"profile", "name", "calibrated", "refused", "time_us",
//  "effective_bandwidth_gbs", "fraction_of_attainable", "attainable_bandwidth", "fraction_of_copy",
//  "bottleneck", "bottleneck_share", "instructions", "instructions_basis"}, ...]}
nlohmann::ordered_json comparison_json(const DeviceComparison& c);
void print_device_comparison(std::ostream& os, const DeviceComparison& c);

}  // namespace memsim
