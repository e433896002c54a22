#include "report/report.hpp"

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "model/significant.hpp"

namespace memsim {
namespace {

const char* space_name(Space s) { return s == Space::Global ? "global" : "shared"; }
const char* op_name(Op o) { return o == Op::Load ? "ld" : "st"; }

std::string fixed(double v, int digits) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(digits) << v;
  return os.str();
}


// A row of per-partition shares of one window's bytes, as a bar of digits: 0 = idle .. 9 = all of it.
std::string share_bar(const nlohmann::ordered_json& bytes) {
  double total = 0;
  for (const auto& b : bytes) total += b.get<double>();
  std::string bar;
  for (const auto& b : bytes) {
    const int level = total > 0 ? int(9.0 * b.get<double>() / total + 0.5) : 0;
    bar += char('0' + std::min(9, level));
  }
  return bar;
}

// The partition-camping summary: mapping (flagged when assumed), schedule, imbalance per direction, and the
// first windows' per-partition shares, where a camped direction shows as one hot digit per row.
void print_partitions(std::ostream& os, const nlohmann::ordered_json& p) {
  const auto& m = p["mapping"];
  const auto& sch = p["schedule"];
  const auto& im = p["imbalance"];
  os << "\nDRAM partitions: " << m["partitions"] << " x " << m["granularity_bytes"] << " B, "
     << m["policy"].get<std::string>() << (m["assumed"].get<bool>() ? " (ASSUMED mapping: the real one is not public)" : "")
     << "; " << sch["resident_blocks"] << " blocks resident, " << sch["windows"] << " windows\n";
  os << "  imbalance (busiest partition / mean, 1 = even, " << m["partitions"] << " = all on one): loads "
     << fixed(im["ld"].get<double>(), 2) << ", stores " << fixed(im["st"].get<double>(), 2) << ", paced "
     << fixed(im["paced"].get<double>(), 2) << " (scales the DRAM term)\n";
  const auto& w = p["windows"];
  const size_t shown = std::min<size_t>(8, w["index"].size());
  if (shown == 0) return;
  os << "  first windows, share of each partition (0 idle .. 9 all):\n    blocks          loads     stores\n";
  for (size_t i = 0; i < shown; ++i) {
    const std::string blocks = std::to_string(w["first_block"][i].get<int64_t>()) + "-" +
                               std::to_string(w["last_block"][i].get<int64_t>() - 1);
    os << "    " << std::left << std::setw(15) << blocks << " " << std::setw(9) << share_bar(w["ld_bytes"][i]) << " "
       << share_bar(w["st_bytes"][i]) << std::right << "\n";
  }
}

}  // namespace

nlohmann::ordered_json fraction_of_attainable(double gbs, const nlohmann::ordered_json& device) {
  if (!device.is_object() || !device.contains("attainable_bandwidth")) return nullptr;
  const double attainable = device["attainable_bandwidth"]["gbs"].get<double>();
  return attainable > 0 ? nlohmann::ordered_json(gbs / attainable) : nlohmann::ordered_json(nullptr);
}

namespace {

std::string attainable_words(const nlohmann::ordered_json& device) {
  const auto& a = device["attainable_bandwidth"];
  const std::string gbs = significant(a["gbs"].get<double>()) + " GB/s";
  if (a["basis"] == "cudaMemcpy-measured") return "attainable DRAM bandwidth (" + gbs + ", cudaMemcpy-measured)";
  return "the data-sheet DRAM peak (" + gbs + "; no cudaMemcpy measured for this profile)";
}

}  // namespace

std::string attainable_text(double fraction, const nlohmann::ordered_json& device) {
  return significant(100.0 * fraction, 3) + "% of " + attainable_words(device);
}

std::string attainable_legend(const nlohmann::ordered_json& device) {
  if (!device.is_object() || !device.contains("attainable_bandwidth")) return "";
  return "of attain: the effective bandwidth over " + attainable_words(device);
}

std::string grouped(int64_t v) {
  std::string s = std::to_string(v < 0 ? -v : v);
  for (int i = int(s.size()) - 3; i > 0; i -= 3) s.insert(size_t(i), ",");
  return v < 0 ? "-" + s : s;
}

nlohmann::ordered_json config_json(const LaunchConfig& cfg) {
  const LaunchShape& s = cfg.shape;
  return {
      {"kernel", cfg.kernel->name},
      {"matrix", {{"width", s.width}, {"height", s.height}}},
      {"dtype", dtype_name(cfg.dtype)},
      {"elem_bytes", dtype_bytes(cfg.dtype)},
      {"block", {{"x", s.block_x}, {"y", s.block_y}}},
      {"tile", {{"x", s.tile_x}, {"y", s.tile_y}}},
      {"tile_over_output", cfg.kernel->tile_over_output},
      {"grid", {{"x", s.grid_x}, {"y", s.grid_y}}},
      {"pad", s.pad},
      {"shared_bytes_per_block", cfg.shared_bytes},
      {"threads_per_block", cfg.threads_per_block()},
      {"blocks", cfg.blocks()},
  };
}

nlohmann::ordered_json replay_json(const ReplayResult& r) {
  nlohmann::ordered_json j;
  j["kernel"] = r.config.kernel->name;
  j["config"] = config_json(r.config);
  // Which replay ran: one block of each class of identical counts, or every block (and why).
  nlohmann::ordered_json path{{"path", r.path.by_classes ? "block_classes" : "full"},
                              {"blocks_replayed", r.path.blocks_replayed}};
  if (r.path.by_classes)
    path["classes"] = r.path.classes;
  else
    path["why_full"] = r.path.why_full;
  j["config"]["replay"] = path;
  nlohmann::ordered_json metrics = nlohmann::ordered_json::object();
  for (const Metric& m : ncu_metrics(r)) metrics[m.name] = m.value;
  j["metrics"] = metrics;
  j["warps"] = r.warps;

  nlohmann::ordered_json sites = nlohmann::ordered_json::array();
  for (int i = 0; i < r.config.kernel->num_sites; ++i) {
    const SiteInfo& info = r.config.kernel->sites[i];
    const SiteCounts& c = r.sites[i];
    nlohmann::ordered_json s{{"site", i},
                     {"name", info.name},
                     {"space", space_name(info.space)},
                     {"op", op_name(info.op)},
                     {"expr", info.expr},
                     {"instructions", c.instructions},
                     {"lane_accesses", c.lane_accesses},
                     {"bytes", c.bytes}};
    const double inst = c.instructions ? double(c.instructions) : 1.0;
    if (info.space == Space::Global) {
      s["requests"] = c.instructions;
      s["sectors"] = c.sectors;
      s["ideal_sectors"] = c.ideal_sectors;
      s["sectors_per_request"] = c.sectors / inst;
      s["ideal_sectors_per_request"] = c.ideal_sectors / inst;
      s["efficiency"] = c.sectors ? double(c.ideal_sectors) / double(c.sectors) : 1.0;
      s["l1_wavefronts"] = c.l1_wavefronts;
      s["l1_wavefronts_per_request"] = c.l1_wavefronts / inst;
    } else {
      s["wavefronts"] = c.wavefronts;
      s["ideal_wavefronts"] = c.ideal_wavefronts;
      s["bank_conflicts"] = c.bank_conflicts();
      s["wavefronts_per_instruction"] = c.wavefronts / inst;
      s["first_block_bank_words"] = c.first_block_bank_words;
      s["efficiency"] = c.wavefronts ? double(c.ideal_wavefronts) / double(c.wavefronts) : 1.0;
    }
    sites.push_back(s);
  }
  j["sites"] = sites;

  nlohmann::ordered_json findings = nlohmann::ordered_json::array();
  for (const Finding& f : r.findings) {
    const SiteInfo& info = r.config.kernel->sites[f.site];
    findings.push_back({{"kind", finding_kind_name(f.kind)},
                        {"site", f.site},
                        {"site_name", info.name},
                        {"count", f.count},
                        {"width", f.width},
                        {"first_block", {{"x", f.first.block_x}, {"y", f.first.block_y}}},
                        {"first_thread", {{"x", f.first.thread_x}, {"y", f.first.thread_y}}},
                        {"first_offset", f.first_offset}});
  }
  j["findings"] = findings;
  return j;
}

void print_table(std::ostream& os, const nlohmann::ordered_json& r) {
  const auto& c = r["config"];
  os << "memsim: " << r["kernel"].get<std::string>() << "  matrix " << c["matrix"]["width"] << "x"
     << c["matrix"]["height"] << " " << c["dtype"].get<std::string>() << "  block " << c["block"]["x"] << "x"
     << c["block"]["y"] << "  tile " << c["tile"]["x"] << "x" << c["tile"]["y"];
  if (c["shared_bytes_per_block"].get<int64_t>() > 0)
    os << "  pad " << c["pad"] << "  shared " << c["shared_bytes_per_block"] << " B/block";
  os << "  grid " << c["grid"]["x"] << "x" << c["grid"]["y"] << "\n";
  if (c.contains("replay")) {
    const auto& p = c["replay"];
    if (p["path"] == "block_classes")
      os << "replay: by block classes (" << grouped(p["classes"].get<int64_t>()) << " classes, "
         << grouped(p["blocks_replayed"].get<int64_t>()) << " blocks replayed; --exact replays every block)\n";
    else
      os << "replay: every block (" << p["why_full"].get<std::string>() << ")\n";
  }
  // A block that is no whole number of warps: its last warp runs with lanes off (the replay counts them so).
  if (const int64_t threads = c["threads_per_block"].get<int64_t>(); threads % 32 != 0)
    os << "note: block " << c["block"]["x"] << "x" << c["block"]["y"] << " is " << threads
       << " threads, not a whole number of warps: each block's last warp runs " << threads % 32
       << " of its 32 lanes\n";
  os << "\n";

  os << "Totals (Nsight Compute metric names)\n";
  for (const auto& [name, value] : r["metrics"].items())
    os << "  " << std::left << std::setw(58) << name << std::right << std::setw(16) << grouped(value.get<int64_t>())
       << "\n";

  if (r.contains("prediction")) {
    const auto& p = r["prediction"];
    os << "\nPrediction on " << p["device"].get<std::string>();
    // Where the constants come from, right where the time is read: calibrated on which run, or stand-ins.
    if (r.contains("device")) {
      const auto& d = r["device"];
      os << " (" << d["name"].get<std::string>() << ", compute capability "
         << d["compute_capability"].get<std::string>() << ")\n  " << d["provenance"].get<std::string>();
    }
    os << "\n";
    // Significant digits, not fixed decimals: a 1x1 matrix's bandwidth is small, not "0.0 GB/s".
    os << "  time " << significant(p["time_us"].get<double>()) << " us, effective bandwidth "
       << significant(p["effective_bandwidth_gbs"].get<double>()) << " GB/s";
    // Against what the card reaches (cudaMemcpy where the profile holds it), then the suite's copy kernel.
    if (p.contains("fraction_of_attainable") && r.contains("device"))
      os << ", " << attainable_text(p["fraction_of_attainable"].get<double>(), r["device"]);
    if (p.contains("fraction_of_copy"))
      os << "; " << significant(100.0 * p["fraction_of_copy"].get<double>(), 3) << "% of the suite's copy kernel";
    os << "\n  bottleneck: " << p["bottleneck"].get<std::string>();
    // Its own time and share of the whole: how much a change that relieves it alone can win at most.
    if (p.contains("bottleneck_us"))
      os << ": " << significant(p["bottleneck_us"].get<double>()) << " us"
         << (p.contains("bottleneck_with") ? " with " + p["bottleneck_with"].get<std::string>() : std::string())
         << ", " << significant(100.0 * p["bottleneck_share"].get<double>(), 3) << "% of the time";
    os << "\n";
    if (p.contains("caveats"))
      for (const auto& caveat : p["caveats"]) os << "  caveat: " << caveat.get<std::string>() << "\n";
    if (p.contains("instructions"))
      os << "  warp instructions " << grouped(int64_t(std::llround(p["instructions"].get<double>()))) << " ("
         << p["instructions_basis"].get<std::string>() << ")\n";
    if (p.contains("terms_us"))
      for (const auto& [name, value] : p["terms_us"].items())
        os << "    " << std::left << std::setw(36) << name << std::right << std::setw(12)
           << significant(value.get<double>()) << " us\n";
    // How many sectors each L2 read request fetches: one where a block's warps ask for a sector each.
    if (p.contains("l2_read_requests")) {
      const auto& q = p["l2_read_requests"];
      const double requests = q["requests"].get<double>(), sectors = q["sectors"].get<double>();
      os << "  L2 read requests: " << grouped(int64_t(std::llround(requests))) << " for "
         << grouped(int64_t(std::llround(sectors))) << " sectors (" << significant(sectors / requests, 3)
         << " a request)\n";
    }
    // The DRAM term's share that is bytes met out of order, when there is one.
    if (p.contains("dram_order") && p["dram_order"].value("time_us", 0.0) > 0) {
      const auto& d = p["dram_order"];
      os << "  DRAM order: the resident blocks meet " << significant(100.0 * d["scattered_loads"].get<double>(), 3)
         << "% of the loaded and " << significant(100.0 * d["scattered_stores"].get<double>(), 3)
         << "% of the stored bytes out of order: " << significant(d["time_us"].get<double>())
         << " us of the DRAM term\n";
    }
    // The partial-store term's share that is sectors completed by another block, when there is one.
    if (p.value("split_sectors_us", 0.0) > 0)
      os << "  split sectors: " << grouped(int64_t(std::llround(p["split_sectors"].get<double>())))
         << " sectors left partly written by one block for another to complete (counted once by each)"
         << (p.contains("split_blocks_apart")
                 ? ", " + significant(p["split_blocks_apart"].get<double>()) + " blocks apart (geometric mean)"
                 : std::string())
         << ": " << significant(p["split_sectors_us"].get<double>()) << " us of the partial-store term\n";
    // The partial-store term's share that is the read-back of partly written lines, when there is one.
    if (p.value("read_back_fraction", 0.0) > 0) {
      const double held_share = p.value("held_line_share", 0.0);
      os << "  read-back: ";
      if (held_share < 1) {
        os << grouped(int64_t(std::llround(p["open_partial_lines"].get<double>())))
           << " lines partly written at once";
        // Sectors written in pieces by more than 2 warps read back more (model/cost.hpp).
        if (p.value("read_back_warp_factor", 1.0) != 1.0)
          os << " (x" << significant(p["read_back_warp_factor"].get<double>(), 3)
             << " for the warps writing each sector)";
      }
      // Lines held open over rounds read back by how many are open at once (model/cost.hpp).
      if (held_share > 0)
        os << (held_share < 1 ? " and " : "")
           << grouped(int64_t(std::llround(p.value("lines_open_at_once", 0.0))))
           << " lines held open over rounds at once"
           << (held_share < 1 ? " (" + significant(100.0 * held_share, 3) + "% of those lines)" : std::string());
      os << "; " << significant(100.0 * p["read_back_fraction"].get<double>(), 3)
         << "% of the partial stores' bytes read back from DRAM first: " << significant(p["read_back_us"].get<double>())
         << " us of the partial-store term\n";
    }
  }

  if (r.contains("partitions")) print_partitions(os, r["partitions"]);

  os << "\nPer site\n";
  os << "  " << std::left << std::setw(4) << "#" << std::setw(16) << "site" << std::setw(8) << "space"
     << std::right << std::setw(14) << "instructions" << std::setw(15) << "sectors|wavef" << std::setw(11)
     << "per inst" << std::setw(9) << "ideal" << std::setw(13) << "conflicts" << std::setw(8) << "eff"
     << "  expression\n";
  for (const auto& s : r["sites"]) {
    const bool global = s["space"] == "global";
    const int64_t count = global ? s["sectors"].get<int64_t>() : s["wavefronts"].get<int64_t>();
    const double per = global ? s["sectors_per_request"].get<double>() : s["wavefronts_per_instruction"].get<double>();
    const double ideal_per = global ? s["ideal_sectors_per_request"].get<double>()
                                    : (s["instructions"].get<int64_t>()
                                           ? double(s["ideal_wavefronts"].get<int64_t>()) / s["instructions"].get<double>()
                                           : 0.0);
    os << "  " << std::left << std::setw(4) << s["site"].get<int>() << std::setw(16)
       << (s["op"].get<std::string>() + " " + s["name"].get<std::string>().substr(3)) << std::setw(8)
       << s["space"].get<std::string>() << std::right << std::setw(14) << grouped(s["instructions"].get<int64_t>())
       << std::setw(15) << grouped(count) << std::setw(11) << significant(per, 3) << std::setw(9)
       << significant(ideal_per, 3)
       << std::setw(13) << (global ? std::string("-") : grouped(s["bank_conflicts"].get<int64_t>())) << std::setw(7)
       << significant(100.0 * s["efficiency"].get<double>(), 3) << "%"
       << "  " << s["expr"].get<std::string>() << "\n";
  }

  os << "\nFindings\n";
  if (r["findings"].empty()) os << "  none (every access aligned and in bounds)\n";
  for (const auto& f : r["findings"]) {
    os << "  " << f["kind"].get<std::string>() << " at site " << f["site"] << " (" << f["site_name"].get<std::string>()
       << "): " << grouped(f["count"].get<int64_t>()) << " lane accesses of " << f["width"] << " bytes; first by block ("
       << f["first_block"]["x"] << "," << f["first_block"]["y"] << ") thread (" << f["first_thread"]["x"] << ","
       << f["first_thread"]["y"] << ") at element offset " << f["first_offset"] << "\n";
  }

  if (r.contains("advice")) os << "\nAdvice\n  " << r["advice"]["text"].get<std::string>() << "\n";
}

namespace {

// One CSV field as RFC 4180 writes it: quoted when it holds a comma, a quote, a line break or edge spaces.
std::string csv_field(const std::string& text) {
  const bool quote = text.find_first_of(",\"\r\n") != std::string::npos ||
                     (!text.empty() && (text.front() == ' ' || text.back() == ' '));
  if (!quote) return text;
  std::string q = "\"";
  for (char c : text) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// A JSON scalar as a CSV value: strings as they are, numbers as JSON writes them (shortest exact form),
// true/false, null as an empty field.
std::string scalar_text(const nlohmann::ordered_json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";
  return v.dump();
}

// The per-window partition arrays and the bank heatmap rows: picture data, left to the JSON.
bool left_to_json(const std::string& section, const std::string& path) {
  return (section == "partitions" && path.rfind("windows.", 0) == 0 && path != "windows.total" &&
          path != "windows.shown" && path != "windows.every" && path != "windows.downsampled" &&
          path != "windows.note") ||
         (section == "sites" && path == "first_block_bank_words");
}

// Every scalar under `v` as a row: objects add ".key" to the name, arrays their position to the index.
void flatten(std::ostream& os, const nlohmann::ordered_json& v, const std::string& section, const std::string& index,
             const std::string& path) {
  if (left_to_json(section, path)) return;
  if (v.is_object()) {
    for (const auto& [key, x] : v.items()) flatten(os, x, section, index, path.empty() ? key : path + "." + key);
  } else if (v.is_array()) {
    for (size_t i = 0; i < v.size(); ++i)
      flatten(os, v[i], section, index.empty() ? std::to_string(i) : index + "." + std::to_string(i), path);
  } else {
    csv_row(os, {section, index, path, scalar_text(v)});
  }
}

}  // namespace

void csv_row(std::ostream& os, const std::vector<std::string>& fields) {
  for (size_t i = 0; i < fields.size(); ++i) os << (i ? "," : "") << csv_field(fields[i]);
  os << "\n";
}

void print_csv(std::ostream& os, const nlohmann::ordered_json& r) {
  csv_row(os, {"section", "index", "name", "value"});
  for (const auto& [key, v] : r.items()) {
    if (v.is_object() || v.is_array())
      flatten(os, v, key, "", "");
    else
      csv_row(os, {"run", "", key, scalar_text(v)});
  }
}

namespace {

// What Nsight Compute prints in its "Metric Unit" column for the counts memsim has (the committed runs'
// details page: sectors in "sector", instructions in "inst", requests and wavefronts without a unit).
const char* ncu_unit(const std::string& metric) {
  if (metric.find("__t_sectors") != std::string::npos) return "sector";
  if (metric.rfind("smsp__inst_executed", 0) == 0) return "inst";
  return "";
}

const char* ncu_type_name(const std::string& dtype) {
  return dtype == "f16" ? "unsigned short" : dtype == "f64" ? "double" : "float";  // f16 moves as 2-byte words
}

// Every field quoted, as ncu writes its CSV.
void quoted_row(std::ostream& os, const std::vector<std::string>& fields) {
  for (size_t i = 0; i < fields.size(); ++i) {
    os << (i ? ",\"" : "\"");
    for (char c : fields[i]) os << (c == '"' ? "\"\"" : std::string(1, c));
    os << "\"";
  }
  os << "\n";
}

}  // namespace

void print_ncu_csv(std::ostream& os, const nlohmann::ordered_json& r) {
  quoted_row(os, {"ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Block Size",
                  "Grid Size", "Device", "CC", "Section Name", "Metric Name", "Metric Unit", "Metric Value"});
  const auto& c = r["config"];
  const auto& d = r["device"];
  // One launch (ID 0) of a process named memsim, its kernel named like a template instance of the suite's.
  const std::string kernel =
      "memsim::" + c["kernel"].get<std::string>() + "<" + ncu_type_name(c["dtype"].get<std::string>()) + ">";
  const std::string block = "(" + c["block"]["x"].dump() + ", " + c["block"]["y"].dump() + ", 1)";
  const std::string grid = "(" + c["grid"]["x"].dump() + ", " + c["grid"]["y"].dump() + ", 1)";
  auto row = [&](const std::string& section, const std::string& metric, const std::string& unit,
                 const std::string& value) {
    quoted_row(os, {"0", "0", "memsim", "memsim", kernel, "0", "0", block, grid, "0",
                    d["compute_capability"].get<std::string>(), section, metric, unit, value});
  };
  // The counts, in the section and with the units and thousands separators ncu --metrics gives them.
  for (const auto& [name, value] : r["metrics"].items())
    row("Command line profiler metrics", name, ncu_unit(name), grouped(value.get<int64_t>()));
  // The prediction in memsim's own section, which names the device profile and where its constants come from.
  if (r.contains("prediction")) {
    const auto& p = r["prediction"];
    const std::string basis = d["calibrated"].get<bool>()
                                  ? std::string("calibrated")
                                  : "NOT CALIBRATED (" + d["cost_basis"].get<std::string>() + ")";
    const std::string section = "memsim prediction: " + d["profile"].get<std::string>() + ", " + basis;
    row(section, "memsim__time_predicted", "usecond", significant(p["time_us"].get<double>(), 6));
    row(section, "memsim__effective_bandwidth_predicted", "Gbyte/second",
        significant(p["effective_bandwidth_gbs"].get<double>(), 6));
    if (p.contains("fraction_of_attainable"))
      row(section, "memsim__fraction_of_attainable_bandwidth_predicted", "",
          significant(p["fraction_of_attainable"].get<double>(), 6));
    if (p.contains("fraction_of_copy"))
      row(section, "memsim__fraction_of_copy_kernel_predicted", "", significant(p["fraction_of_copy"].get<double>(), 6));
    // The warp instructions the issue term charges, under ncu's name, its basis in the section's name.
    if (p.contains("instructions") && p.contains("instructions_basis"))
      row(section + ", instructions " + p["instructions_basis"].get<std::string>(), "smsp__inst_executed.sum", "inst",
          grouped(int64_t(std::llround(p["instructions"].get<double>()))));
  }
}

}  // namespace memsim
