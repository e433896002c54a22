// libFuzzer target over memsim's command line: the input is the arguments, separated by NUL bytes. Each goes
// through main's own path (app/cli.hpp): parse_command_line, the device profile, the launch resolved against
// it with every option checked (resolve_analysis) and, for launches small enough to replay in a moment, the
// whole analysis and the report in the format asked for (to a string, not stdout), or the --plot document
// (the plotting script is not run); a sweep's configurations resolved, and analysed when few and small. Beyond
// the sanitizers' checks: errors are one line, reports finite.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "fuzz/fuzz_checks.hpp"
#include "model/profile.hpp"
#include "report/analysis.hpp"
#include "report/compare.hpp"
#include "report/report.hpp"
#include "report/sweep.hpp"

namespace {

using namespace memsim;

// The replay's work up to which the analysis runs: 2^18 thread steps (every block's threads over the steps of
// each walk a body may make, kernels/launch_shape.hpp) replay in a few milliseconds; larger launches are
// resolved, not replayed. The tile's area alone undercounts a block far narrower than its drain: swizzle's
// 1x632 block drains its 1x632 tile in 632 steps a thread, 400,000 a block, of which 632 touch the tile (8 s
// under the sanitizers for a 74x64 matrix whose tiles cover 46,768 elements).
constexpr double kMaxReplayedThreadSteps = 262144;

double walk_steps(const TileWalk& w) { return double(w.row_steps) * w.col_steps; }

double replayed_thread_steps(const LaunchConfig& cfg) {
  const LaunchShape& s = cfg.shape;
  const double walks = walk_steps(s.walk_tile) + walk_steps(s.walk_tile_transposed) +
                       walk_steps(s.walk_row_quads) + walk_steps(s.walk_quads);
  return double(cfg.blocks()) * cfg.threads_per_block() * std::max(walks, 1.0);
}

bool too_long_to_replay(const LaunchConfig& cfg) { return replayed_thread_steps(cfg) > kMaxReplayedThreadSteps; }

bool input_has_newline = false;

const DeviceProfile* profile(const std::string& name) {
  static std::map<std::string, DeviceProfile> loaded;  // only the shipped ones load: the cache stays small
  if (const auto it = loaded.find(name); it != loaded.end()) return &it->second;
  try {
    return &loaded.emplace(name, load_profile(name)).first->second;
  } catch (const ProfileError& e) {
    fuzz::check_error_line(e.what(), input_has_newline);
    return nullptr;
  }
}

void check_report(const nlohmann::ordered_json& report) {
  fuzz::check_finite(report);
  const double t = report["prediction"]["time_us"].get<double>();
  if (!(t > 0)) fuzz::fail("a predicted time that is not positive", std::to_string(t));
}

// The comparison when every kernel it names either refuses the launch or replays it quickly.
void run_comparison(const CliCommand& cmd, const DeviceProfile& device, const AnalysisOptions& options) {
  for (const std::string& kernel : cmd.kernels) {
    UserConfig user = cmd.user;
    user.kernel = kernel;
    try {
      const LaunchConfig cfg = resolve_analysis(user, device, options);
      if (too_long_to_replay(cfg)) return;
    } catch (const ConfigError& e) {
      fuzz::check_error_line(e.what(), input_has_newline);  // the row's reason
    }
  }
  const KernelComparison comparison = compare_kernels(cmd.user, cmd.kernels, device, options);
  fuzz::check_finite(comparison_json(comparison));
  std::ostringstream out;
  if (cmd.format == "csv") print_csv(out, comparison_json(comparison));
  else print_comparison(out, comparison);
  if (out.str().empty()) fuzz::fail("an empty comparison", cmd.format);
}

// A sweep: every configuration resolved (or refused with one line); analysed, ranked and printed when there are
// few and each replays in a moment.
void run_sweep_command(const CliCommand& cmd, const DeviceProfile& device, const AnalysisOptions& options) {
  SweepPlan plan;
  try {
    plan = expand_sweep(cmd.sweep, device, options);
  } catch (const ConfigError& e) {
    fuzz::check_error_line(e.what(), input_has_newline);
    return;
  }
  for (const SweepRefusal& r : plan.refused) fuzz::check_error_line(r.reason, input_has_newline);
  if (plan.launches.size() > 8) return;
  for (const SweepLaunch& l : plan.launches)
    if (too_long_to_replay(l.launch)) return;
  SweepResult result;
  result.axes = cmd.sweep;
  result.device = device;
  result.refused = plan.refused;
  result.rows = analyse_sweep(plan.launches, device, options, result.refused);
  rank_sweep(result.rows, result.refused);
  const nlohmann::ordered_json j = sweep_json(result);
  fuzz::check_finite(j);
  std::ostringstream out;
  if (cmd.format == "csv") print_sweep_csv(out, result);
  else print_sweep(out, result);
  if (out.str().empty()) fuzz::fail("an empty sweep", cmd.format);
}

void run(const CliCommand& cmd) {
  // --help prints the options; --version (the same action) one line naming the program.
  const bool version = cmd.help.rfind("memsim ", 0) == 0 && cmd.help.find('\n') + 1 >= cmd.help.size();
  if (cmd.action == CliCommand::Action::Help && cmd.help.find("--kernel") == std::string::npos && !version)
    fuzz::fail("help without the options", cmd.help);
  if (cmd.action == CliCommand::Action::Compare) {
    if (const DeviceProfile* device = profile(cmd.device)) {
      AnalysisOptions options = cmd.analysis;
      options.threads = 1;
      run_comparison(cmd, *device, options);
    }
    return;
  }
  if (cmd.action == CliCommand::Action::Sweep) {
    if (const DeviceProfile* device = profile(cmd.device)) {
      AnalysisOptions options = cmd.analysis;
      options.threads = 1;
      run_sweep_command(cmd, *device, options);
    }
    return;
  }
  if (cmd.action != CliCommand::Action::Report && cmd.action != CliCommand::Action::Plot) return;
  const DeviceProfile* device = profile(cmd.device);
  if (!device) return;
  AnalysisOptions options = cmd.analysis;
  options.threads = 1;  // as many as asked give the same counts (tests/core/cli_test.cpp); a thread is quicker here
  try {
    const LaunchConfig cfg = resolve_analysis(cmd.user, *device, options);
    if (too_long_to_replay(cfg)) return;
    if (cmd.action == CliCommand::Action::Plot) {
      CliCommand plot = cmd;
      plot.analysis = options;
      fuzz::check_finite(plot_document(plot, *device));
      return;
    }
    const Analysis a = analyze(cmd.user, *device, options);
    const nlohmann::ordered_json report = report_json(a);
    check_report(report);
    std::ostringstream out;
    if (cmd.format == "json") out << report.dump(2);
    else if (cmd.format == "csv") print_csv(out, a);
    else print_table(out, a);
    if (out.str().empty()) fuzz::fail("an empty report", cmd.format);
  } catch (const ConfigError& e) {
    fuzz::check_error_line(e.what(), input_has_newline);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;  // a command line, not a file
  std::vector<std::string> words(1);
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0) words.emplace_back();
    else words.back() += char(data[i]);
  }
  if (size == 0) words.clear();
  input_has_newline = std::find(data, data + size, '\n') != data + size;
  std::vector<const char*> argv = {"memsim"};
  for (const std::string& w : words) argv.push_back(w.c_str());
  CliCommand cmd;
  try {
    cmd = parse_command_line(int(argv.size()), argv.data());
  } catch (const ConfigError& e) {
    fuzz::check_error_line(e.what(), input_has_newline);
    return 0;
  }
  run(cmd);
  return 0;
}
