#include "report/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "model/significant.hpp"
#include "report/advice.hpp"
#include "report/partition_report.hpp"

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
std::string share_bar(const std::vector<int64_t>& bytes) {
  double total = 0;
  for (const int64_t b : bytes) total += double(b);
  std::string bar;
  for (const int64_t b : bytes) {
    const int level = total > 0 ? int(9.0 * double(b) / total + 0.5) : 0;
    bar += char('0' + std::min(9, level));
  }
  return bar;
}

// The partition-camping summary: mapping (flagged when assumed), schedule, imbalance per direction, and the
// first windows' per-partition shares, where a camped direction shows as one hot digit per row.
void print_partitions(std::ostream& os, const PartitionTraffic& t) {
  const PartitionSpec& m = t.spec;
  os << "\nDRAM partitions: " << m.count << " x " << m.granularity_bytes << " B, " << partition_policy_name(m.policy)
     << (m.assumed ? " (ASSUMED mapping: the real one is not public)" : "") << "; " << t.schedule.resident
     << " blocks resident, " << t.windows << " windows\n";
  os << "  imbalance (busiest partition / mean, 1 = even, " << m.count << " = all on one): loads "
     << fixed(t.loads.imbalance, 2) << ", stores " << fixed(t.stores.imbalance, 2) << ", paced "
     << fixed(t.paced.imbalance, 2) << " (scales the DRAM term)\n";
  const size_t shown = std::min<size_t>(8, t.kept.size());
  if (shown == 0) return;
  os << "  first windows, share of each partition (0 idle .. 9 all):\n    blocks          loads     stores\n";
  for (size_t i = 0; i < shown; ++i) {
    const WindowTraffic& w = t.kept[i];
    const std::string blocks = std::to_string(w.blocks.first) + "-" + std::to_string(w.blocks.last - 1);
    os << "    " << std::left << std::setw(15) << blocks << " " << std::setw(9) << share_bar(w.load_bytes) << " "
       << share_bar(w.store_bytes) << std::right << "\n";
  }
}

// What a table shows of a site: its count (sectors for a global site, wavefronts for a shared one) per
// instruction against the ideal, and its efficiency (ideal / actual). The JSON's per-site figures too.
struct SiteFigures {
  bool global = true;
  int64_t count = 0;
  double per_instruction = 0, ideal_per_instruction = 0, efficiency = 1;
};

SiteFigures site_figures(const SiteInfo& info, const SiteCounts& c) {
  SiteFigures f;
  f.global = info.space == Space::Global;
  // A site that never ran divides by 1: its figures are 0, not NaN.
  const double inst = c.instructions ? double(c.instructions) : 1.0;
  f.count = f.global ? c.sectors : c.wavefronts;
  f.per_instruction = f.count / inst;
  f.ideal_per_instruction = (f.global ? c.ideal_sectors : c.ideal_wavefronts) / inst;
  const int64_t ideal = f.global ? c.ideal_sectors : c.ideal_wavefronts;
  f.efficiency = f.count ? double(ideal) / double(f.count) : 1.0;
  return f;
}

std::string attainable_words(const DeviceProfile& device) {
  const AttainableBandwidth a = attainable_bandwidth(device);
  const std::string gbs = significant(a.gbs) + " " + metric(MetricId::EffectiveBandwidth).unit;
  if (a.basis == "cudaMemcpy-measured") return "attainable DRAM bandwidth (" + gbs + ", cudaMemcpy-measured)";
  return "the data-sheet DRAM peak (" + gbs + "; no cudaMemcpy measured for this profile)";
}

}  // namespace

std::optional<double> fraction_of_attainable(double gbs, const DeviceProfile& device) {
  const double attainable = attainable_bandwidth(device).gbs;
  if (!(attainable > 0)) return std::nullopt;
  return gbs / attainable;
}

std::string attainable_text(double fraction, const DeviceProfile& device) {
  return metric_cell(MetricId::FractionOfAttainable, fraction) + " of " + attainable_words(device);
}

std::string attainable_legend(const DeviceProfile& device) {
  return std::string(metric(MetricId::FractionOfAttainable).label) + ": the effective bandwidth over " +
         attainable_words(device);
}

std::string device_heading(const DeviceProfile& device) {
  return "Prediction on " + device.name + " (" + device.display_name + ", compute capability " +
         device.compute_capability + ")\n  " + cost_basis_text(device) + "\n";
}

std::string bottleneck_cell(const std::string& bottleneck, double share) {
  return bottleneck + " (" + metric_cell(MetricId::BottleneckShare, share) + ")";
}

nlohmann::ordered_json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json metrics_json(const std::vector<Metric>& totals) {
  nlohmann::ordered_json metrics = nlohmann::ordered_json::object();
  for (const Metric& m : totals) metrics[m.name] = m.value;
  return metrics;
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
  j["metrics"] = metrics_json(ncu_metrics(r));
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
    const SiteFigures f = site_figures(info, c);
    const double inst = c.instructions ? double(c.instructions) : 1.0;
    if (f.global) {
      s["requests"] = c.instructions;
      s["sectors"] = c.sectors;
      s["ideal_sectors"] = c.ideal_sectors;
      s["sectors_per_request"] = f.per_instruction;
      s["ideal_sectors_per_request"] = f.ideal_per_instruction;
      s["efficiency"] = f.efficiency;
      s["l1_wavefronts"] = c.l1_wavefronts;
      s["l1_wavefronts_per_request"] = c.l1_wavefronts / inst;
    } else {
      s["wavefronts"] = c.wavefronts;
      s["ideal_wavefronts"] = c.ideal_wavefronts;
      s["bank_conflicts"] = c.bank_conflicts();
      s["wavefronts_per_instruction"] = f.per_instruction;
      s["first_block_bank_words"] = c.first_block_bank_words;
      s["efficiency"] = f.efficiency;
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

nlohmann::ordered_json report_json(const Analysis& a) {
  nlohmann::ordered_json replay = replay_json(a.replay);
  nlohmann::ordered_json j;
  for (auto& [key, value] : replay.items()) {
    j[key] = std::move(value);
    // Where the prediction's constants come from, beside the configuration it is for.
    if (key == "config") j["device"] = provenance_json(a.device);
  }
  if (a.partitions) j["partitions"] = partition_json(*a.partitions);
  // Beside fraction_of_copy (the suite's copy kernel), the fraction of what the card reaches: before it, or
  // before the bottleneck where there is no fraction of copy.
  nlohmann::ordered_json prediction;
  const char* attainable_key = metric(MetricId::FractionOfAttainable).key;
  nlohmann::ordered_json model = to_json(a.prediction, &a.device);  // named: items() does not keep it alive
  for (auto& [key, value] : model.items()) {
    if ((key == metric(MetricId::FractionOfCopy).key || key == metric(MetricId::Bottleneck).key) &&
        a.fraction_of_attainable && !prediction.contains(attainable_key))
      prediction[attainable_key] = *a.fraction_of_attainable;
    prediction[key] = std::move(value);
  }
  j["prediction"] = std::move(prediction);
  // What limits the launch and the one change that would help most, from the counts above.
  j["advice"] = advice_json(a.advice);
  return j;
}

namespace {

void print_prediction(std::ostream& os, const Analysis& a) {
  const Prediction& p = a.prediction;
  os << "\n" << device_heading(a.device);
  // Significant digits, not fixed decimals: a 1x1 matrix's bandwidth is small, not "0.0 GB/s".
  os << "  time " << metric_with_unit(MetricId::Time, p.time_us) << ", effective bandwidth "
     << metric_with_unit(MetricId::EffectiveBandwidth, p.effective_bandwidth_gbs);
  // Against what the card reaches (cudaMemcpy where the profile holds it), then the suite's copy kernel.
  if (a.fraction_of_attainable) os << ", " << attainable_text(*a.fraction_of_attainable, a.device);
  if (p.fraction_of_copy)
    os << "; " << metric_cell(MetricId::FractionOfCopy, *p.fraction_of_copy) << " of the suite's copy kernel";
  // Its own time and share of the whole: how much a change that relieves it alone can win at most.
  os << "\n  bottleneck: " << p.bottleneck << ": " << significant(p.bottleneck_us) << " us"
     << (p.bottleneck_with.empty() ? std::string() : " with " + p.bottleneck_with) << ", "
     << significant(100.0 * p.bottleneck_share(), 3) << "% of the time\n";
  for (const std::string& caveat : p.caveats) os << "  caveat: " << caveat << "\n";
  os << "  warp instructions " << metric_cell(MetricId::Instructions, p.instructions) << " (" << p.instructions_basis
     << ")\n";
  // The blocks an SM holds, and the registers they were worked out with: where those come from decides them.
  if (p.occupancy.blocks_per_sm > 0) {
    os << "  occupancy: " << p.occupancy.blocks_per_sm << " blocks an SM (" << p.occupancy.resident_warps()
       << " warps, limited by " << p.occupancy.limiter << ")";
    if (p.occupancy.regs_per_thread > 0)
      os << ", " << p.occupancy.regs_per_thread << " registers a thread"
         << (p.occupancy.registers_basis.empty() ? "" : " (" + p.occupancy.registers_basis + ")");
    os << "\n";
  }
  for (const auto& [name, value] : p.terms_us)
    os << "    " << std::left << std::setw(36) << name << std::right << std::setw(12)
       << metric_cell(MetricId::Terms, value) << " " << metric(MetricId::Terms).unit << "\n";
  // How many sectors each L2 read request fetches: one where a block's warps ask for a sector each.
  if (p.l2_read_requests > 0)
    os << "  L2 read requests: " << grouped(int64_t(std::llround(p.l2_read_requests))) << " for "
       << grouped(int64_t(std::llround(p.l2_load_sectors))) << " sectors ("
       << significant(p.l2_load_sectors / p.l2_read_requests, 3) << " a request)\n";
  // The DRAM term's share that is bytes met out of order, when there is one.
  if (p.dram_order_counted && p.dram_order_us > 0)
    os << "  DRAM order: the resident blocks meet " << significant(100.0 * p.dram_scattered[0], 3)
       << "% of the loaded and " << significant(100.0 * p.dram_scattered[1], 3)
       << "% of the stored bytes out of order: " << significant(p.dram_order_us) << " us of the DRAM term\n";
  // The partial-store term's share that is sectors completed by another block, when there is one.
  if (p.split_sectors_us > 0)
    os << "  split sectors: " << grouped(int64_t(std::llround(p.split_sectors)))
       << " sectors left partly written by one block for another to complete (counted once by each)"
       << (p.split_sectors > 0
               ? ", " + significant(std::exp2(p.split_log2_distance)) + " blocks apart (geometric mean)"
               : std::string())
       << ": " << significant(p.split_sectors_us) << " us of the partial-store term\n";
  if (p.split_lines_scattered_us > 0)
    os << "  split lines out of order: " << grouped(int64_t(std::llround(p.split_lines)))
       << " lines hold those sectors (each block's counted by its share of the line's bytes), their stores met out "
          "of order by the resident blocks: "
       << significant(p.split_lines_scattered_us) << " us of the partial-store term\n";
  // The partial-store term's share that is sectors waiting for pieces from other warps, when there is one.
  if (p.sectors_from_warps_us > 0)
    os << "  sectors from warps: " << grouped(int64_t(std::llround(p.sectors_from_warps)))
       << " sectors written in pieces from two warps of a block or more ("
       << grouped(int64_t(std::llround(p.sectors_from_warps_in_one_round)))
       << " of them in lines written whole in one round), each waiting in the L2 for the last: "
       << significant(p.sectors_from_warps_us) << " us of the partial-store term\n";
  // Partial pieces charged as whole sectors: half-sector pairs the L1 merges in small blocks (model/cost.hpp).
  if (p.next_store_merged_share > 0)
    os << "  merged stores: " << significant(100.0 * p.next_store_merged_share, 3)
       << "% of the partial pieces' bytes are half sectors a warp completes in its next store that the L1 merges"
          " (the profile's drain table, or its rule for small blocks), charged as whole sectors\n";
  // The L2's sector writes where the user gave them (--l2-write-sectors): the pieces beyond them reached it merged.
  if (p.given_merged_piece_share >= 0)
    os << "  L2 write sectors given (--l2-write-sectors): " << significant(100.0 * p.given_merged_piece_share, 3)
       << "% of the partial stores' pieces reached the L2 merged with another piece of their sector, charged as"
          " whole sectors\n";
  // The DRAM bytes read where the user gave them (--dram-read-bytes): what lies beyond the loads' bytes is the
  // read-back, in place of the model's.
  if (p.dram_read_basis == kDramReadGiven) {
    os << "  DRAM read: " << grouped(int64_t(std::llround(p.dram_read_bytes))) << " bytes given (--dram-read-bytes), "
       << grouped(int64_t(std::llround(p.dram_read_back_bytes))) << " beyond the loads' bytes";
    if (p.read_back_us > 0)
      os << ", charged as the read-back of " << significant(100.0 * p.read_back_fraction, 3)
         << "% of the partial stores' bytes: " << significant(p.read_back_us) << " us of the partial-store term";
    os << "\n";
  } else if (p.read_back_fraction > 0) {
    // The partial-store term's share that is the read-back of partly written lines, when there is one.
    const double held_share = p.held_line_share;
    os << "  read-back: ";
    if (held_share < 1) {
      os << grouped(int64_t(std::llround(p.open_partial_lines))) << " lines partly written at once";
      // Sectors written in pieces by more than 2 warps read back more (model/cost.hpp).
      if (p.read_back_warp_factor != 1.0)
        os << " (x" << significant(p.read_back_warp_factor, 3) << " for the warps writing each sector)";
      // Read back by the steps too, where the profile has it (cost.read_back.closed_steps).
      if (p.closed_at_risk > 0)
        os << ", and over " << grouped(int64_t(std::llround(p.closed_line_rounds))) << " rounds "
           << significant(100.0 * p.closed_at_risk, 3) << "% of their bytes at risk as the warps drift apart, "
           << significant(100.0 * p.closed_evicted, 3) << "% of that evicted at "
           << significant(p.closed_warps_per_sm, 3) << " warps an SM";
    }
    // Lines held open over rounds read back by how many are open at once (model/cost.hpp).
    if (held_share > 0)
      os << (held_share < 1 ? " and " : "") << grouped(int64_t(std::llround(p.lines_open_at_once)))
         << " lines held open over rounds at once"
         << (held_share < 1 ? " (" + significant(100.0 * held_share, 3) + "% of those lines)" : std::string());
    os << "; " << significant(100.0 * p.read_back_fraction, 3)
       << "% of the partial stores' bytes read back from DRAM first: " << significant(p.read_back_us)
       << " us of the partial-store term\n";
  }
}

}  // namespace

void print_table(std::ostream& os, const Analysis& a) {
  const LaunchConfig& cfg = a.replay.config;
  const LaunchShape& s = cfg.shape;
  os << "memsim: " << cfg.kernel->name << "  matrix " << s.width << "x" << s.height << " " << dtype_name(cfg.dtype)
     << "  block " << s.block_x << "x" << s.block_y << "  tile " << s.tile_x << "x" << s.tile_y;
  if (cfg.shared_bytes > 0) os << "  pad " << s.pad << "  shared " << cfg.shared_bytes << " B/block";
  os << "  grid " << s.grid_x << "x" << s.grid_y << "\n";
  const ReplayPath& path = a.replay.path;
  if (path.by_classes)
    os << "replay: by block classes (" << grouped(path.classes) << " classes, " << grouped(path.blocks_replayed)
       << " blocks replayed; --exact replays every block)\n";
  else
    os << "replay: every block (" << path.why_full << ")\n";
  // A block that is no whole number of warps: its last warp runs with lanes off (the replay counts them so).
  if (const int threads = cfg.threads_per_block(); threads % 32 != 0)
    os << "note: block " << s.block_x << "x" << s.block_y << " is " << threads
       << " threads, not a whole number of warps: each block's last warp runs " << threads % 32
       << " of its 32 lanes\n";
  os << "\n";

  os << "Totals (Nsight Compute metric names)\n";
  for (const Metric& m : ncu_metrics(a.replay))
    os << "  " << std::left << std::setw(58) << m.name << std::right << std::setw(16) << grouped(m.value) << "\n";

  print_prediction(os, a);
  if (a.partitions) print_partitions(os, *a.partitions);

  os << "\nPer site\n";
  os << "  " << std::left << std::setw(4) << "#" << std::setw(16) << "site" << std::setw(8) << "space"
     << std::right << std::setw(14) << "instructions" << std::setw(15) << "sectors|wavef" << std::setw(11)
     << "per inst" << std::setw(9) << "ideal" << std::setw(13) << "conflicts" << std::setw(8) << "eff"
     << "  expression\n";
  const KernelInfo& k = *cfg.kernel;
  for (int i = 0; i < k.num_sites; ++i) {
    const SiteInfo& info = k.sites[i];
    const SiteCounts& c = a.replay.sites[size_t(i)];
    const SiteFigures f = site_figures(info, c);
    // The table's ideal per instruction is 0 for a site that never ran.
    const double ideal_per = f.global || c.instructions ? f.ideal_per_instruction : 0.0;
    os << "  " << std::left << std::setw(4) << i << std::setw(16)
       << (std::string(op_name(info.op)) + " " + std::string(info.name).substr(3)) << std::setw(8)
       << space_name(info.space) << std::right << std::setw(14) << grouped(c.instructions) << std::setw(15)
       << grouped(f.count) << std::setw(11) << significant(f.per_instruction, 3) << std::setw(9)
       << significant(ideal_per, 3) << std::setw(13) << (f.global ? std::string("-") : grouped(c.bank_conflicts()))
       << std::setw(7) << significant(100.0 * f.efficiency, 3) << "%"
       << "  " << info.expr << "\n";
  }

  os << "\nFindings\n";
  if (a.replay.findings.empty()) os << "  none (every access aligned and in bounds)\n";
  for (const Finding& f : a.replay.findings) {
    os << "  " << finding_kind_name(f.kind) << " at site " << f.site << " (" << k.sites[f.site].name
       << "): " << grouped(f.count) << " lane accesses of " << f.width << " bytes; first by block ("
       << f.first.block_x << "," << f.first.block_y << ") thread (" << f.first.thread_x << "," << f.first.thread_y
       << ") at element offset " << f.first_offset << "\n";
  }

  os << "\nAdvice\n  " << a.advice.text() << "\n";
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

void print_csv(std::ostream& os, const Analysis& a) { print_csv(os, report_json(a)); }

namespace {

const char* ncu_type_name(Dtype dtype) {
  return dtype == Dtype::F16 ? "unsigned short" : dtype == Dtype::F64 ? "double" : "float";  // f16 moves as 2-byte words
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

void print_ncu_csv(std::ostream& os, const Analysis& a) {
  quoted_row(os, {"ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Block Size",
                  "Grid Size", "Device", "CC", "Section Name", "Metric Name", "Metric Unit", "Metric Value"});
  const LaunchConfig& cfg = a.replay.config;
  const LaunchShape& s = cfg.shape;
  // One launch (ID 0) of a process named memsim, its kernel named like a template instance of the suite's.
  const std::string kernel = "memsim::" + std::string(cfg.kernel->name) + "<" + ncu_type_name(cfg.dtype) + ">";
  const std::string block = "(" + std::to_string(s.block_x) + ", " + std::to_string(s.block_y) + ", 1)";
  const std::string grid = "(" + std::to_string(s.grid_x) + ", " + std::to_string(s.grid_y) + ", 1)";
  const auto row = [&](const std::string& section, const std::string& metric_name, const std::string& unit,
                       const std::string& value) {
    quoted_row(os, {"0", "0", "memsim", "memsim", kernel, "0", "0", block, grid, "0", a.device.compute_capability,
                    section, metric_name, unit, value});
  };
  const auto metric_row = [&](const std::string& section, MetricId id, double value) {
    row(section, metric(id).ncu_name, metric(id).ncu_unit, metric_ncu_value(id, value));
  };
  // The counts, in the section and with the units and thousands separators ncu --metrics gives them.
  for (const Metric& m : ncu_metrics(a.replay)) {
    const MetricSpec* spec = find_metric(m.name);
    row("Command line profiler metrics", m.name, spec ? spec->ncu_unit : "", grouped(m.value));
  }
  // The prediction in memsim's own section, which names the device profile and where its constants come from.
  const Prediction& p = a.prediction;
  const std::string basis =
      a.device.calibrated ? std::string("calibrated") : "NOT CALIBRATED (" + a.device.cost_basis + ")";
  const std::string section = "memsim prediction: " + a.device.name + ", " + basis;
  metric_row(section, MetricId::Time, p.time_us);
  metric_row(section, MetricId::EffectiveBandwidth, p.effective_bandwidth_gbs);
  if (a.fraction_of_attainable) metric_row(section, MetricId::FractionOfAttainable, *a.fraction_of_attainable);
  if (p.fraction_of_copy) metric_row(section, MetricId::FractionOfCopy, *p.fraction_of_copy);
  // The warp instructions the issue term charges, under ncu's name, its basis in the section's name.
  metric_row(section + ", instructions " + p.instructions_basis, MetricId::Instructions, p.instructions);
}

}  // namespace memsim
