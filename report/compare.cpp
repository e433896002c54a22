#include "report/compare.hpp"

#include <algorithm>
#include <iomanip>
#include <optional>
#include <sstream>
#include <utility>

#include "kernels/registry.hpp"
#include "model/significant.hpp"
#include "report/advice.hpp"
#include "report/metrics.hpp"
#include "report/report.hpp"
#include "report/sweep.hpp"

namespace memsim {
namespace {

using M = MetricId;

// The sectors per request and shared wavefronts per instruction a comparison shows, ld then st.
constexpr MetricId kRatios[] = {M::SectorsPerLoadRequest, M::SectorsPerStoreRequest,
                                M::SharedLoadWavefrontsPerInstruction, M::SharedStoreWavefrontsPerInstruction};

std::optional<double> fraction_of_copy(const std::optional<Prediction>& copy, const Prediction& p) {
  if (!copy) return std::nullopt;
  return copy->time_us / p.time_us;
}

nlohmann::ordered_json kernel_row_json(const KernelComparisonRow& row, const KernelComparison& c) {
  if (!row.analysis) return {{"kernel", row.kernel}, {"refused", row.refused}};
  const Analysis& a = *row.analysis;
  const std::vector<Metric> totals = ncu_metrics(a.replay);
  const Prediction& p = a.prediction;
  nlohmann::ordered_json j;
  j["kernel"] = a.config.kernel->name;
  j["refused"] = nullptr;
  j["tile"] = {{"x", a.replay.config.shape.tile_x}, {"y", a.replay.config.shape.tile_y}};
  j["pad"] = a.replay.config.shape.pad;
  for (const MetricId id : kRatios) j[metric(id).key] = optional_json(metric_ratio(id, totals));
  j[metric(M::Time).key] = p.time_us;
  j[metric(M::EffectiveBandwidth).key] = p.effective_bandwidth_gbs;
  j[metric(M::FractionOfAttainable).key] = optional_json(a.fraction_of_attainable);
  j[metric(M::FractionOfCopy).key] = optional_json(fraction_of_copy(c.copy, p));
  j[metric(M::Bottleneck).key] = p.bottleneck;
  j[metric(M::BottleneckShare).key] = p.bottleneck_share();
  j[metric(M::Instructions).key] = p.instructions;
  j[metric(M::InstructionsBasis).key] = p.instructions_basis;
  j["advice"] = advice_json(a.advice);
  j["metrics"] = metrics_json(totals);
  return j;
}

// A row's analysis, or the reason the launch is refused (the row stays, saying why).
template <class Row>
void analyse_row(Row& row, const UserConfig& user, const DeviceProfile& device, const AnalysisOptions& options) {
  try {
    row.analysis = analyze(user, device, options);
  } catch (const ConfigError& e) {
    row.refused = e.what();
  }
}

// What every row of a comparison shares: matrix, dtype, block, and tile and pad where given.
nlohmann::ordered_json shared_config_json(const UserConfig& user) {
  nlohmann::ordered_json c = {{"matrix", {{"width", user.matrix.x}, {"height", user.matrix.y}}},
                              {"dtype", dtype_name(user.dtype)},
                              {"block", {{"x", user.block.x}, {"y", user.block.y}}}};
  if (user.tile) c["tile"] = {{"x", user.tile->x}, {"y", user.tile->y}};
  if (user.pad) c["pad"] = *user.pad;
  return c;
}

}  // namespace

std::vector<std::string> kernel_names(const std::string& spec) {
  std::vector<std::string> names;
  if (spec == "all") {
    for (const KernelInfo* k : all_kernels()) names.push_back(k->name);
    return names;
  }
  for (size_t start = 0;;) {
    const size_t comma = spec.find(',', start);
    const std::string name = spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (name.empty()) throw ConfigError("empty kernel name in --kernel '" + spec + "' (names separated by commas)");
    if (name == "all") throw ConfigError("--kernel all stands alone (it names every kernel); got '" + spec + "'");
    if (!find_kernel(name))
      throw ConfigError("unknown kernel '" + name + "' in --kernel '" + spec +
                        "' (see --list-kernels; 'all' for every one)");
    if (std::find(names.begin(), names.end(), name) != names.end())
      throw ConfigError("kernel '" + name + "' named twice in --kernel '" + spec + "'");
    names.push_back(name);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return names;
}

KernelComparison compare_kernels(const UserConfig& user, const std::vector<std::string>& kernels,
                                 const DeviceProfile& device, const AnalysisOptions& options) {
  KernelComparison out;
  out.user = user;
  out.device = device;
  // The copy kernel once, for every row's fraction of copy; none when it cannot run this launch.
  try {
    out.copy = predict_copy(user, device, options);
  } catch (const ConfigError& e) {
    out.copy_refused = e.what();
  }
  AnalysisOptions each = options;
  each.predict_copy = false;
  const auto outer = options.progress;  // told each kernel's replay, prefixed with where the comparison stands
  for (size_t i = 0; i < kernels.size(); ++i) {
    const std::string stage = "comparison, kernel " + std::to_string(i + 1) + " of " + std::to_string(kernels.size());
    if (outer)
      each.progress = [&outer, &stage](const std::string& what, int64_t done, int64_t total) {
        outer(stage + ": " + what, done, total);
      };
    UserConfig u = user;
    u.kernel = kernels[i];
    KernelComparisonRow row;
    row.kernel = kernels[i];
    analyse_row(row, u, device, each);
    out.rows.push_back(std::move(row));
  }
  return out;
}

nlohmann::ordered_json comparison_json(const KernelComparison& c) {
  nlohmann::ordered_json out;
  out["config"] = shared_config_json(c.user);
  out["device"] = provenance_json(c.device);
  if (c.copy)
    out["copy"] = {{metric(M::Time).key, c.copy->time_us},
                   {metric(M::EffectiveBandwidth).key, c.copy->effective_bandwidth_gbs}};
  else
    out["copy"] = {{"refused", c.copy_refused}};
  out["kernels"] = nlohmann::ordered_json::array();
  for (const KernelComparisonRow& row : c.rows) out["kernels"].push_back(kernel_row_json(row, c));
  return out;
}

void print_comparison(std::ostream& os, const KernelComparison& c) {
  const UserConfig& u = c.user;
  os << "memsim: " << c.rows.size() << " kernels  matrix " << u.matrix.x << "x" << u.matrix.y << " "
     << dtype_name(u.dtype) << "  block " << u.block.x << "x" << u.block.y << "\n";
  os << device_heading(c.device);
  if (c.copy)
    os << "  copy kernel: " << metric_with_unit(M::Time, c.copy->time_us) << ", "
       << metric_with_unit(M::EffectiveBandwidth, c.copy->effective_bandwidth_gbs) << "\n";
  else
    os << "  copy kernel refused (no fraction of copy): " << c.copy_refused << "\n";

  size_t name_width = 6;
  for (const KernelComparisonRow& row : c.rows) name_width = std::max(name_width, row.kernel.size() + 1);
  const int w = int(name_width);
  os << "\n" << std::left << std::setw(w) << "" << std::right << std::setw(16) << "sectors/request" << std::setw(18)
     << "shared wavef/inst" << "\n";
  const int ratio_width[] = {8, 8, 9, 9};
  os << std::left << std::setw(w) << "kernel" << std::right;
  for (size_t i = 0; i < 4; ++i) os << std::setw(ratio_width[i]) << metric(kRatios[i]).label;
  os << std::setw(11) << metric(M::Time).label << std::setw(9) << metric(M::EffectiveBandwidth).label << std::setw(11)
     << metric(M::FractionOfAttainable).label << std::setw(11) << metric(M::FractionOfCopy).label << std::setw(12)
     << metric(M::InstructionsBasis).label << "  " << metric(M::Bottleneck).label << "\n";
  for (const KernelComparisonRow& row : c.rows) {
    os << std::left << std::setw(w) << row.kernel << std::right;
    if (!row.analysis) {
      os << "refused: " << row.refused << "\n";
      continue;
    }
    const Analysis& a = *row.analysis;
    const Prediction& p = a.prediction;
    const std::vector<Metric> totals = ncu_metrics(a.replay);
    for (size_t i = 0; i < 4; ++i)
      os << std::setw(ratio_width[i]) << metric_cell(kRatios[i], metric_ratio(kRatios[i], totals));
    os << std::setw(11) << metric_cell(M::Time, p.time_us) << std::setw(9)
       << metric_cell(M::EffectiveBandwidth, p.effective_bandwidth_gbs) << std::setw(11)
       << metric_cell(M::FractionOfAttainable, a.fraction_of_attainable) << std::setw(11)
       << metric_cell(M::FractionOfCopy, fraction_of_copy(c.copy, p)) << std::setw(12)
       << short_basis(p.instructions_basis) << "  " << bottleneck_cell(p.bottleneck, p.bottleneck_share()) << "\n";
  }
  os << "  " << attainable_legend(c.device) << "; of copy k: the suite's copy kernel's time over this one\n"
     << "  sectors/request: l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_{ld,st}.ratio\n"
     << "  shared wavef/inst: l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum / "
        "smsp__inst_executed_op_shared_{ld,st}.sum\n"
     << "  instr: what the instruction count is based on (compiled, sass table, estimate: docs/cli.md)\n";

  os << "\nAdvice\n";
  for (const KernelComparisonRow& row : c.rows)
    if (row.analysis)
      os << "  " << std::left << std::setw(w) << row.kernel << std::right << row.analysis->advice.text() << "\n";
}

DeviceComparison compare_devices(const UserConfig& user, const std::vector<DeviceProfile>& devices,
                                 const AnalysisOptions& options) {
  DeviceComparison out;
  out.user = user;
  for (const DeviceProfile& device : devices) {
    DeviceComparisonRow row;
    row.device = device;
    analyse_row(row, user, device, options);
    out.rows.push_back(std::move(row));
  }
  return out;
}

void print_device_comparison(std::ostream& os, const DeviceComparison& c) {
  const UserConfig& u = c.user;
  os << "memsim: " << u.kernel << " on " << c.rows.size() << " devices  matrix " << u.matrix.x << "x" << u.matrix.y
     << " " << dtype_name(u.dtype) << "  block " << u.block.x << "x" << u.block.y << "\n\n";
  size_t w = 8;
  for (const DeviceComparisonRow& row : c.rows) w = std::max(w, row.device.name.size() + 2);
  os << std::left << std::setw(int(w)) << "device" << std::right << std::setw(11) << metric(M::Time).label
     << std::setw(9) << metric(M::EffectiveBandwidth).label << std::setw(11) << metric(M::FractionOfAttainable).label
     << std::setw(11) << metric(M::FractionOfCopy).label << std::setw(12) << metric(M::InstructionsBasis).label
     << std::setw(13) << "calibrated"
     << "  " << metric(M::Bottleneck).label << "\n";
  for (const DeviceComparisonRow& row : c.rows) {
    os << std::left << std::setw(int(w)) << row.device.name << std::right;
    if (!row.analysis) {
      os << "refused: " << row.refused << "\n";
      continue;
    }
    const Analysis& a = *row.analysis;
    const Prediction& p = a.prediction;
    os << std::setw(11) << metric_cell(M::Time, p.time_us) << std::setw(9)
       << metric_cell(M::EffectiveBandwidth, p.effective_bandwidth_gbs) << std::setw(11)
       << metric_cell(M::FractionOfAttainable, a.fraction_of_attainable) << std::setw(11)
       << metric_cell(M::FractionOfCopy, p.fraction_of_copy) << std::setw(12) << short_basis(p.instructions_basis)
       << std::setw(13) << (row.device.calibrated ? "yes" : "no") << "  "
       << bottleneck_cell(p.bottleneck, p.bottleneck_share()) << "\n";
  }
  os << "  " << metric(M::FractionOfAttainable).label
     << ": the effective bandwidth over the device's attainable DRAM bandwidth:";
  const char* sep = " ";
  for (const DeviceComparisonRow& row : c.rows)
    if (row.analysis) {
      const AttainableBandwidth b = attainable_bandwidth(row.device);
      os << std::exchange(sep, ", ") << row.device.name << " " << significant(b.gbs) << " "
         << metric(M::EffectiveBandwidth).unit << " (" << b.basis << ")";
    }
  os << "\n  of copy k: the suite's copy kernel's time on the same device over this one; calibrated: fitted to runs on "
        "that GPU (else a data-sheet stand-in)\n";
}

nlohmann::ordered_json comparison_json(const DeviceComparison& c) {
  nlohmann::ordered_json out;
  out["config"] = shared_config_json(c.user);
  out["kernel"] = c.user.kernel;
  out["devices"] = nlohmann::ordered_json::array();
  for (const DeviceComparisonRow& row : c.rows) {
    const nlohmann::ordered_json provenance = provenance_json(row.device);
    nlohmann::ordered_json j{{"profile", row.device.name},
                             {"name", provenance["name"]},
                             {"calibrated", provenance["calibrated"]},
                             {"refused", nullptr}};
    if (row.analysis) {
      const Analysis& a = *row.analysis;
      const Prediction& p = a.prediction;
      j[metric(M::Time).key] = p.time_us;
      j[metric(M::EffectiveBandwidth).key] = p.effective_bandwidth_gbs;
      j[metric(M::FractionOfAttainable).key] = optional_json(a.fraction_of_attainable);
      j["attainable_bandwidth"] = provenance["attainable_bandwidth"];
      j[metric(M::FractionOfCopy).key] = optional_json(p.fraction_of_copy);
      j[metric(M::Bottleneck).key] = p.bottleneck;
      j[metric(M::BottleneckShare).key] = p.bottleneck_share();
      j[metric(M::Instructions).key] = p.instructions;
      j[metric(M::InstructionsBasis).key] = p.instructions_basis;
    } else {
      j["refused"] = row.refused;
    }
    out["devices"].push_back(j);
  }
  return out;
}

}  // namespace memsim
