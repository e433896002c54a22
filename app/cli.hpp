#pragma once
// The memsim command line as data: what main (app/memsim.cpp) runs, parsed and checked without replaying,
// printing or exiting, so that the tests and the fuzz target (fuzz/cli_fuzz.cpp) take main's own path.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/resolve.hpp"
#include "model/profile.hpp"
#include "report/analysis.hpp"
#include "report/sweep.hpp"

namespace memsim {

struct CliCommand {
  enum class Action { Help, ListKernels, ListDevices, Report, Compare, CompareDevices, Sweep, Plot };
  Action action = Action::Report;
  std::string help;  // Help: the usage text and every option
  // Report, Compare, Sweep and Plot:
  UserConfig user;
  std::vector<std::string> kernels;  // Compare and Plot: the kernels --kernel names (a list, or all)
  SweepAxes sweep;  // Sweep: a list in --block (or all), --tile, --dtype or --matrix; the kernels too
  AnalysisOptions analysis;
  std::string device;  // the profile's name (or path)
  std::vector<std::string> devices;  // CompareDevices and Plot: the profiles --device lists
  std::string format;  // table, json, csv or ncu-csv (the lists: table, json or csv)
  // Plot: the kind, the file and the extra arguments of the plotting script (--site, --instruction).
  std::string plot_kind, plot_out;
  std::vector<std::string> plot_extra;
};

// argv as main has it (argv[0] the program). Anything wrong throws ConfigError with one line, without the
// "memsim: " that main puts before it (exit status 2). Checks the --plot options' files too (read only).
CliCommand parse_command_line(int argc, const char* const* argv);

// The document --plot draws: the analysis' report (with the bank map for banks), or the kernels' global
// sites for sectors ({"reports": [...], "skipped": [...]}, --kernel all: the suite). Several kernels or devices
// (cmd.kernels, several profiles): {"plot": {"kind", "kernels", "devices"}, "reports": [one report each]}, drawn
// side by side on one colour scale. Throws ConfigError as analyze does.
nlohmann::ordered_json plot_document(const CliCommand& cmd, const std::vector<DeviceProfile>& devices);
nlohmann::ordered_json plot_document(const CliCommand& cmd, const DeviceProfile& device);

// An error for one line of stderr: control characters (a newline in an argument echoed back) escaped.
std::string one_line(const std::string& message);

}  // namespace memsim
