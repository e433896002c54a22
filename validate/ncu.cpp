#include "validate/ncu.hpp"

#include <cstdlib>
#include <sstream>

#include "kernels/resolve.hpp"
#include "sim/replay.hpp"

namespace memsim::validate {

const std::vector<std::string>& measured_only_metrics() {
  static const std::vector<std::string> names{
      "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_write.sum", "dram__bytes_read.sum",
      "dram__bytes_write.sum", "gpu__time_duration.sum",
      // All warp instructions: what separates kernels whose memory counts are identical (recorded for the
      // model's instruction term; memsim does not predict it per kernel yet).
      "smsp__inst_executed.sum"};
  return names;
}

std::vector<std::string> ncu_metric_list() {
  // The names come from the replay itself, so a metric memsim starts predicting is measured without edits here.
  UserConfig u;
  u.kernel = "copy";
  u.matrix = {32, 8};
  u.block = {32, 8};
  ReplayOptions options;
  options.threads = 1;
  const ReplayResult r = replay(resolve_launch(u), options);
  std::vector<std::string> names;
  for (const Metric& m : ncu_metrics(r)) names.push_back(m.name);
  for (const std::string& m : measured_only_metrics()) names.push_back(m);
  return names;
}

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields;
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  fields.push_back(cur);
  return fields;
}

namespace {

// "4,194,304" or "4194304" or "12.5": ncu may group digits even in CSV.
bool parse_number(std::string text, double& value) {
  std::string digits;
  for (char c : text)
    if (c != ',' && c != ' ') digits += c;
  if (digits.empty()) return false;
  char* end = nullptr;
  value = std::strtod(digits.c_str(), &end);
  return end && *end == '\0';
}

int column(const std::vector<std::string>& header, const char* name) {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return int(i);
  return -1;
}

bool is_number(const std::string& s) {
  double v = 0;
  return parse_number(s, v);
}

}  // namespace

// Two layouts: the details page (default), one line per launch and metric with "Metric Name" and "Metric
// Value" columns; and the raw page, one line per launch with a column per metric (after a line of units).
std::vector<NcuRow> parse_ncu_csv(std::istream& in) {
  std::vector<NcuRow> rows;
  std::vector<std::string> header;
  int c_id = -1, c_kernel = -1, c_block = -1, c_grid = -1, c_metric = -1, c_value = -1;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("==", 0) == 0 || line.empty()) continue;  // ==PROF== / ==WARNING== lines
    std::vector<std::string> f = split_csv_line(line);
    if (header.empty()) {
      if (column(f, "ID") < 0 || column(f, "Kernel Name") < 0) continue;  // not the header yet
      header = f;
      c_id = column(header, "ID");
      c_kernel = column(header, "Kernel Name");
      c_block = column(header, "Block Size");
      c_grid = column(header, "Grid Size");
      c_metric = column(header, "Metric Name");
      c_value = column(header, "Metric Value");
      continue;
    }
    if (f.size() < header.size() || !is_number(f[c_id])) continue;  // the raw page's line of units
    const int id = std::atoi(f[c_id].c_str());
    if (rows.empty() || rows.back().id != id) {
      NcuRow r;
      r.id = id;
      r.kernel_name = f[c_kernel];
      if (c_block >= 0) r.block_size = f[c_block];
      if (c_grid >= 0) r.grid_size = f[c_grid];
      rows.push_back(r);
    }
    double v = 0;
    if (c_metric >= 0 && c_value >= 0) {
      if (parse_number(f[c_value], v)) rows.back().metrics[f[c_metric]] = v;
    } else {
      for (size_t i = 0; i < header.size(); ++i)
        if (header[i].find("__") != std::string::npos && parse_number(f[i], v)) rows.back().metrics[header[i]] = v;
    }
  }
  return rows;
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'')
      q += "'\\''";
    else
      q += c;
  }
  return q + "'";
}

std::string ncu_command_line(const NcuInvocation& inv) {
  std::string metrics;
  for (const std::string& m : inv.metrics) metrics += (metrics.empty() ? "" : ",") + m;
  std::ostringstream os;
  // --clock-control none: measure at the clocks the card runs (docs/validation.md); counts do not depend on them.
  // Base units and metric names (not labels), the full demangled kernel name to match configurations.
  os << shell_quote(inv.ncu)
     << " --clock-control none --csv --print-units base --print-metric-name name --print-kernel-base demangled"
     << " --log-file "
     << shell_quote(inv.log_file) << " --kernel-name " << shell_quote("regex:" + inv.kernel_regex)
     << " --metrics " << shell_quote(metrics);
  for (const std::string& a : inv.program) os << " " << shell_quote(a);
  return os.str();
}

}  // namespace memsim::validate
