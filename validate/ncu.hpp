#pragma once
// Nsight Compute counters for the launches a run measures: the program re-runs itself under
// `ncu --clock-control none --csv` in a hidden mode that launches each configuration once, and reads the CSV.
#include <istream>
#include <map>
#include <string>
#include <vector>

namespace memsim::validate {

// Counters read beside memsim's predictions: L2 and DRAM traffic and the kernel's duration under ncu.
const std::vector<std::string>& measured_only_metrics();

// memsim's predicted metric names (sim/replay.cpp ncu_metrics) followed by measured_only_metrics().
std::vector<std::string> ncu_metric_list();

// One profiled kernel launch: its name and launch shape as ncu prints them, and its metric values in base
// units (bytes, nanoseconds, counts).
struct NcuRow {
  int id = -1;
  std::string kernel_name;
  std::string block_size;  // "(32, 8, 1)"
  std::string grid_size;
  std::map<std::string, double> metrics;
};

// Parses `ncu --csv --print-units base` output (one line per metric and launch), skipping ncu's own
// "==PROF==" lines and anything before the header. Rows come back in launch order.
std::vector<NcuRow> parse_ncu_csv(std::istream& in);

// One CSV line split into fields (quotes removed, "" unescaped).
std::vector<std::string> split_csv_line(const std::string& line);

struct NcuInvocation {
  std::string ncu = "ncu";
  std::string log_file;                 // where ncu writes its CSV
  std::string kernel_regex;             // --kernel-name regex:...
  std::vector<std::string> metrics;
  std::vector<std::string> program;     // the program and its arguments
};
std::string ncu_command_line(const NcuInvocation& inv);  // shell-quoted

std::string shell_quote(const std::string& s);

}  // namespace memsim::validate
