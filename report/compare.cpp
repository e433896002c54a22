#include "report/compare.hpp"

#include <algorithm>
#include <iomanip>
#include <optional>
#include <sstream>
#include <utility>

#include "kernels/registry.hpp"
#include "model/significant.hpp"
#include "report/advice.hpp"
#include "report/report.hpp"
#include "report/sweep.hpp"

namespace memsim {
namespace {

// Nsight Compute's names for a global site's mean sectors per request; shared wavefronts per instruction have
// no ncu metric of their own (the ratio of l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum to
// smsp__inst_executed_op_shared_ld.sum), so their keys are memsim's words.
constexpr const char* kSectorsLd = "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio";
constexpr const char* kSectorsSt = "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio";
constexpr const char* kWavefrontsLd = "shared_ld_wavefronts_per_instruction";
constexpr const char* kWavefrontsSt = "shared_st_wavefronts_per_instruction";

// A ratio of two totals, null where the kernel has no such access.
nlohmann::ordered_json ratio(const nlohmann::ordered_json& metrics, const std::string& num, const std::string& den) {
  const int64_t d = metrics.value(den, int64_t(0));
  if (d == 0) return nullptr;
  return double(metrics.value(num, int64_t(0))) / double(d);
}

nlohmann::ordered_json row_of(const Analysis& a, const DeviceProfile& device, const std::optional<Prediction>& copy) {
  const auto& m = a.report["metrics"];
  const auto& c = a.report["config"];
  nlohmann::ordered_json row;
  row["kernel"] = a.config.kernel->name;
  row["refused"] = nullptr;
  row["tile"] = c["tile"];
  row["pad"] = c["pad"];
  row[kSectorsLd] = ratio(m, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                          "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");
  row[kSectorsSt] = ratio(m, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
                          "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum");
  row[kWavefrontsLd] = ratio(m, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                             "smsp__inst_executed_op_shared_ld.sum");
  row[kWavefrontsSt] = ratio(m, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
                             "smsp__inst_executed_op_shared_st.sum");
  const Prediction& p = a.prediction;
  row["time_us"] = p.time_us;
  row["effective_bandwidth_gbs"] = p.effective_bandwidth_gbs;
  row["fraction_of_attainable"] = fraction_of_attainable(p.effective_bandwidth_gbs, provenance_json(device));
  row["fraction_of_copy"] = copy ? nlohmann::ordered_json(copy->time_us / p.time_us) : nullptr;
  row["bottleneck"] = p.bottleneck;
  row["bottleneck_share"] = p.bottleneck_share();
  row["instructions"] = p.instructions;
  row["instructions_basis"] = p.instructions_basis;
  row["advice"] = advice_json(advise(advice_counts(a, device)));
  row["metrics"] = m;
  return row;
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

std::string cell(const nlohmann::ordered_json& v, int digits = 3) {
  return v.is_null() ? std::string("-") : significant(v.get<double>(), digits);
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

nlohmann::ordered_json compare_kernels(const UserConfig& user, const std::vector<std::string>& kernels,
                                       const DeviceProfile& device, const AnalysisOptions& options) {
  nlohmann::ordered_json out;
  out["config"] = shared_config_json(user);
  out["device"] = provenance_json(device);
  // The copy kernel once, for every row's fraction of copy; none when it cannot run this launch.
  std::optional<Prediction> copy;
  try {
    copy = predict_copy(user, device, options);
    out["copy"] = {{"time_us", copy->time_us}, {"effective_bandwidth_gbs", copy->effective_bandwidth_gbs}};
  } catch (const ConfigError& e) {
    out["copy"] = {{"refused", e.what()}};
  }
  AnalysisOptions each = options;
  each.predict_copy = false;
  const auto outer = options.progress;  // told each kernel's replay, prefixed with where the comparison stands
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (size_t i = 0; i < kernels.size(); ++i) {
    const std::string stage = "comparison, kernel " + std::to_string(i + 1) + " of " + std::to_string(kernels.size());
    if (outer)
      each.progress = [&outer, &stage](const std::string& what, int64_t done, int64_t total) {
        outer(stage + ": " + what, done, total);
      };
    UserConfig u = user;
    u.kernel = kernels[i];
    try {
      rows.push_back(row_of(analyze(u, device, each), device, copy));
    } catch (const ConfigError& e) {
      rows.push_back({{"kernel", kernels[i]}, {"refused", e.what()}});
    }
  }
  out["kernels"] = rows;
  return out;
}

void print_comparison(std::ostream& os, const nlohmann::ordered_json& r) {
  const auto& c = r["config"];
  const auto& d = r["device"];
  os << "memsim: " << r["kernels"].size() << " kernels  matrix " << c["matrix"]["width"] << "x" << c["matrix"]["height"]
     << " " << c["dtype"].get<std::string>() << "  block " << c["block"]["x"] << "x" << c["block"]["y"] << "\n";
  os << "Prediction on " << d["profile"].get<std::string>() << " (" << d["name"].get<std::string>()
     << ", compute capability " << d["compute_capability"].get<std::string>() << ")\n  "
     << d["provenance"].get<std::string>() << "\n";
  const auto& copy = r["copy"];
  if (copy.contains("time_us"))
    os << "  copy kernel: " << significant(copy["time_us"].get<double>()) << " us, "
       << significant(copy["effective_bandwidth_gbs"].get<double>()) << " GB/s\n";
  else
    os << "  copy kernel refused (no fraction of copy): " << copy["refused"].get<std::string>() << "\n";

  size_t name_width = 6;
  for (const auto& k : r["kernels"]) name_width = std::max(name_width, k["kernel"].get<std::string>().size() + 1);
  const int w = int(name_width);
  os << "\n" << std::left << std::setw(w) << "" << std::right << std::setw(16) << "sectors/request" << std::setw(18)
     << "shared wavef/inst" << "\n";
  os << std::left << std::setw(w) << "kernel" << std::right << std::setw(8) << "ld" << std::setw(8) << "st"
     << std::setw(9) << "ld" << std::setw(9) << "st" << std::setw(11) << "time us" << std::setw(9) << "GB/s"
     << std::setw(11) << "of attain" << std::setw(11) << "of copy k" << std::setw(12) << "instr" << "  bottleneck\n";
  for (const auto& k : r["kernels"]) {
    os << std::left << std::setw(w) << k["kernel"].get<std::string>() << std::right;
    if (!k["refused"].is_null()) {
      os << "refused: " << k["refused"].get<std::string>() << "\n";
      continue;
    }
    const auto& f = k["fraction_of_copy"];
    const auto& fa = k["fraction_of_attainable"];
    os << std::setw(8) << cell(k[kSectorsLd]) << std::setw(8) << cell(k[kSectorsSt]) << std::setw(9)
       << cell(k[kWavefrontsLd]) << std::setw(9) << cell(k[kWavefrontsSt]) << std::setw(11)
       << significant(k["time_us"].get<double>()) << std::setw(9)
       << significant(k["effective_bandwidth_gbs"].get<double>())
       << std::setw(11) << (fa.is_null() ? std::string("-") : significant(100.0 * fa.get<double>(), 3) + "%")
       << std::setw(11) << (f.is_null() ? std::string("-") : significant(100.0 * f.get<double>(), 3) + "%")
       << std::setw(12) << short_basis(k["instructions_basis"].get<std::string>()) << "  " << k["bottleneck"].get<std::string>() << " (" << significant(100.0 * k["bottleneck_share"].get<double>(), 2)
       << "%)\n";
  }
  os << "  " << attainable_legend(d) << "; of copy k: the suite's copy kernel's time over this one\n"
     << "  sectors/request: l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_{ld,st}.ratio\n"

     << "  shared wavef/inst: l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum / "
        "smsp__inst_executed_op_shared_{ld,st}.sum\n"
     << "  instr: what the instruction count is based on (compiled, sass table, estimate: docs/cli.md)\n";

  os << "\nAdvice\n";
  for (const auto& k : r["kernels"])
    if (k["refused"].is_null())
      os << "  " << std::left << std::setw(w) << k["kernel"].get<std::string>() << std::right
         << k["advice"]["text"].get<std::string>() << "\n";
}

nlohmann::ordered_json compare_devices(const UserConfig& user, const std::vector<DeviceProfile>& devices,
                                       const AnalysisOptions& options) {
  nlohmann::ordered_json out;
  out["config"] = shared_config_json(user);
  out["kernel"] = user.kernel;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const DeviceProfile& device : devices) {
    const nlohmann::ordered_json provenance = provenance_json(device);
    nlohmann::ordered_json row{{"profile", device.name},
                               {"name", provenance["name"]},
                               {"calibrated", provenance["calibrated"]},
                               {"refused", nullptr}};
    try {
      const Analysis a = analyze(user, device, options);
      const Prediction& p = a.prediction;
      row["time_us"] = p.time_us;
      row["effective_bandwidth_gbs"] = p.effective_bandwidth_gbs;
      row["fraction_of_attainable"] = fraction_of_attainable(p.effective_bandwidth_gbs, provenance);
      row["attainable_bandwidth"] = provenance["attainable_bandwidth"];
      row["fraction_of_copy"] = p.fraction_of_copy ? nlohmann::ordered_json(*p.fraction_of_copy) : nullptr;
      row["bottleneck"] = p.bottleneck;
      row["bottleneck_share"] = p.bottleneck_share();
      row["instructions"] = p.instructions;
      row["instructions_basis"] = p.instructions_basis;
    } catch (const ConfigError& e) {
      row["refused"] = e.what();
    }
    rows.push_back(row);
  }
  out["devices"] = rows;
  return out;
}

void print_device_comparison(std::ostream& os, const nlohmann::ordered_json& r) {
  const auto& c = r["config"];
  os << "memsim: " << r["kernel"].get<std::string>() << " on " << r["devices"].size() << " devices  matrix "
     << c["matrix"]["width"] << "x" << c["matrix"]["height"] << " " << c["dtype"].get<std::string>() << "  block "
     << c["block"]["x"] << "x" << c["block"]["y"] << "\n\n";
  size_t w = 8;
  for (const auto& d : r["devices"]) w = std::max(w, d["profile"].get<std::string>().size() + 2);
  os << std::left << std::setw(int(w)) << "device" << std::right << std::setw(11) << "time us" << std::setw(9)
     << "GB/s" << std::setw(11) << "of attain" << std::setw(11) << "of copy k" << std::setw(12) << "instr"
     << std::setw(13) << "calibrated"
     << "  bottleneck\n";
  for (const auto& d : r["devices"]) {
    os << std::left << std::setw(int(w)) << d["profile"].get<std::string>() << std::right;
    if (!d["refused"].is_null()) {
      os << "refused: " << d["refused"].get<std::string>() << "\n";
      continue;
    }
    const auto& f = d["fraction_of_copy"];
    const auto& fa = d["fraction_of_attainable"];
    os << std::setw(11) << significant(d["time_us"].get<double>()) << std::setw(9)
       << significant(d["effective_bandwidth_gbs"].get<double>()) << std::setw(11)
       << (fa.is_null() ? std::string("-") : significant(100.0 * fa.get<double>(), 3) + "%") << std::setw(11)
       << (f.is_null() ? std::string("-") : significant(100.0 * f.get<double>(), 3) + "%") << std::setw(12)
       << short_basis(d["instructions_basis"].get<std::string>()) << std::setw(13)
       << (d["calibrated"].get<bool>() ? "yes" : "no") << "  " << d["bottleneck"].get<std::string>() << " ("
       << significant(100.0 * d["bottleneck_share"].get<double>(), 2) << "%)\n";
  }
  os << "  of attain: the effective bandwidth over the device's attainable DRAM bandwidth:";
  const char* sep = " ";
  for (const auto& d : r["devices"])
    if (d.contains("attainable_bandwidth"))
      os << std::exchange(sep, ", ") << d["profile"].get<std::string>() << " " << significant(d["attainable_bandwidth"]["gbs"].get<double>())
         << " GB/s (" << d["attainable_bandwidth"]["basis"].get<std::string>() << ")";
  os << "\n  of copy k: the suite's copy kernel's time on the same device over this one; calibrated: fitted to runs on "
        "that GPU (else a data-sheet stand-in)\n";
}

}  // namespace memsim
