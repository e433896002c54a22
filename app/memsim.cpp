// memsim: replay a transpose kernel's memory accesses, report what the hardware would count, and predict its
// time on a device. This file only wires options to the modules; the logic lives in kernels/, sim/, model/ and
// report/.
#include <unistd.h>

#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "app/plot.hpp"
#include "app/progress.hpp"
#include "codegen/kernel_file.hpp"
#include "kernels/registry.hpp"
#include "kernels/resolve.hpp"
#include "model/profile.hpp"
#include "report/analysis.hpp"
#include "report/compare.hpp"
#include "report/report.hpp"
#include "report/sweep.hpp"

using namespace memsim;

namespace {

constexpr int kExitUsage = 2;

// The progress line of long replays and sweeps: on stderr, only when it is a terminal, from one second after
// the start; cleared before anything else is written.
Progress& progress() {
  static Progress line(std::cerr, isatty(STDERR_FILENO) == 1);
  return line;
}

// A message echoes what the user typed; however long that was, the line stays readable.
constexpr size_t kMaxMessage = 1000;

int usage_error(const std::string& msg) {
  progress().clear();
  std::string line = one_line(msg);
  if (line.size() > kMaxMessage) line = line.substr(0, kMaxMessage) + "... (" + std::to_string(line.size()) + " characters)";
  std::cerr << "memsim: " << line << "\n";
  return kExitUsage;
}

void list_kernels(std::ostream& os, const std::string& format) {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  if (format == "csv") csv_row(os, {"name", "summary", "from"});
  for (const KernelInfo* kp : all_kernels()) {
    const KernelInfo& k = *kp;
    if (format == "table") {
      os << std::left << std::setw(13) << k.name << " " << k.summary << "  [" << k.seed << "]\n";
    } else if (format == "csv") {
      csv_row(os, {k.name, k.summary, k.seed});
    } else {
      nlohmann::ordered_json sites = nlohmann::ordered_json::array();
      for (int i = 0; i < k.num_sites; ++i)
        sites.push_back({{"name", k.sites[i].name},
                         {"space", k.sites[i].space == Space::Global ? "global" : "shared"},
                         {"op", k.sites[i].op == Op::Load ? "ld" : "st"},
                         {"expr", k.sites[i].expr}});
      all.push_back({{"name", k.name}, {"summary", k.summary}, {"from", k.seed}, {"sites", sites}});
    }
  }
  if (format == "json") os << all.dump(2) << "\n";
}

// Every profile of the directory; one that does not load is listed with its error (on stderr too) rather than
// hiding the others. No profile at all is an error: memsim cannot run without one.
int list_devices(std::ostream& os, const std::string& format) {
  const std::vector<std::string> names = list_profiles();
  if (names.empty()) return usage_error("no device profiles (*.json) in " + device_dir() + " (MEMSIM_DEVICE_DIR)");
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  if (format == "csv")
    csv_row(os, {"profile", "name", "compute_capability", "calibrated", "cost_basis", "provenance", "error"});
  for (const std::string& n : names) {
    try {
      const DeviceProfile p = load_profile(n);
      if (format == "table")
        os << std::left << std::setw(9) << n << " " << p.display_name << " (cc " << p.compute_capability
           << "): " << cost_basis_text(p) << "\n";
      else if (format == "csv")
        csv_row(os, {n, p.display_name, p.compute_capability, p.calibrated ? "true" : "false", p.cost_basis,
                     cost_basis_text(p), ""});
      else
        all.push_back(provenance_json(p));
    } catch (const ProfileError& e) {
      if (format == "table") os << std::left << std::setw(9) << n << " (not usable: see the error)\n";
      else if (format == "csv") csv_row(os, {n, "", "", "", "", "", e.what()});
      else all.push_back({{"profile", n}, {"error", e.what()}});
      std::cerr << "memsim: " << one_line(e.what()) << "\n";
    }
  }
  if (format == "json") os << all.dump(2) << "\n";
  return 0;
}

// A full disk or a closed pipe must not pass for a report written.
int flushed_output() {
  std::cout.flush();
  if (std::cout) return 0;
  std::cerr << "memsim: cannot write the output\n";
  return 1;
}

// A comparison (of kernels or of devices) as --format asks: JSON, the long CSV of that JSON, or its table.
template <class Comparison>
int print_comparison_as(const std::string& format, const Comparison& comparison,
                        void (*table)(std::ostream&, const Comparison&)) {
  progress().clear();
  if (format == "json")
    std::cout << comparison_json(comparison).dump(2) << "\n";
  else if (format == "csv")
    print_csv(std::cout, comparison_json(comparison));
  else
    table(std::cout, comparison);
  return flushed_output();
}

}  // namespace

int main(int argc, char** argv) {
  progress();  // its second of quiet counts from here
  try {
    CliCommand cmd = parse_command_line(argc, argv);
    cmd.analysis.progress = [](const std::string& stage, int64_t done, int64_t total) {
      progress().update(stage, done, total);
    };
    switch (cmd.action) {
      case CliCommand::Action::Help:
        std::cout << cmd.help;
        return 0;
      case CliCommand::Action::ListKernels:
        list_kernels(std::cout, cmd.format);
        return flushed_output();
      case CliCommand::Action::ListDevices:
        if (const int rc = list_devices(std::cout, cmd.format); rc != 0) return rc;
        return flushed_output();
      case CliCommand::Action::Plot: {
        std::vector<DeviceProfile> devices;
        if (cmd.devices.empty()) devices.push_back(load_profile(cmd.device));
        for (const std::string& d : cmd.devices) devices.push_back(load_profile(d));
        const nlohmann::ordered_json doc = plot_document(cmd, devices);
        progress().clear();
        return draw_plot(cmd.plot_kind, cmd.plot_out, doc, cmd.plot_extra);
      }
      case CliCommand::Action::Compare: {
        const DeviceProfile device = load_profile(cmd.device);
        return print_comparison_as(cmd.format, compare_kernels(cmd.user, cmd.kernels, device, cmd.analysis),
                                   print_comparison);
      }
      case CliCommand::Action::CompareDevices: {
        std::vector<DeviceProfile> devices;
        for (const std::string& d : cmd.devices) devices.push_back(load_profile(d));
        return print_comparison_as(cmd.format, compare_devices(cmd.user, devices, cmd.analysis),
                                   print_device_comparison);
      }
      case CliCommand::Action::Sweep: {
        const DeviceProfile device = load_profile(cmd.device);
        const SweepResult sweep =
            run_sweep(cmd.sweep, device, cmd.analysis, [](const std::string& stage, int64_t done, int64_t total) {
              progress().update(stage, done, total, "predictions");
            });
        progress().clear();
        if (cmd.format == "json")
          std::cout << sweep_json(sweep).dump(2) << "\n";
        else if (cmd.format == "csv")
          print_sweep_csv(std::cout, sweep);
        else
          print_sweep(std::cout, sweep);
        return flushed_output();
      }
      case CliCommand::Action::Report:
        break;
    }
    const DeviceProfile device = load_profile(cmd.device);
    const Analysis analysis = analyze(cmd.user, device, cmd.analysis);
    progress().clear();
    if (cmd.format == "json")
      std::cout << report_json(analysis).dump(2) << "\n";
    else if (cmd.format == "csv")
      print_csv(std::cout, analysis);
    else if (cmd.format == "ncu-csv")
      print_ncu_csv(std::cout, analysis);
    else
      print_table(std::cout, analysis);
  } catch (const KernelFileError& e) {
    // The compiler's own words for a kernel file that does not compile, then memsim's line.
    progress().clear();
    if (!e.detail.empty()) std::cerr << e.detail << "\n";
    return usage_error(e.what());
  } catch (const ConfigError& e) {
    return usage_error(e.what());
  } catch (const ProfileError& e) {
    return usage_error(e.what());
  } catch (const std::bad_alloc&) {
    progress().clear();
    std::cerr << "memsim: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    // A bug, not a user's mistake: say so rather than abort.
    progress().clear();
    std::cerr << "memsim: internal error: " << one_line(e.what()) << "\n";
    return 1;
  }
  return flushed_output();
}
