// memsim: replay a transpose kernel's memory accesses, report what the hardware would count, and predict its
// time on a device. This file only wires options to the modules; the logic lives in kernels/, sim/, model/.
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include "app/analysis.hpp"
#include "app/cli.hpp"
#include "app/plot.hpp"
#include "app/report.hpp"
#include "kernels/registry.hpp"
#include "kernels/resolve.hpp"
#include "model/profile.hpp"

using namespace memsim;

namespace {

constexpr int kExitUsage = 2;

int usage_error(const std::string& msg) {
  std::cerr << "memsim: " << one_line(msg) << "\n";
  return kExitUsage;
}

void list_kernels(std::ostream& os) {
  for (const KernelInfo& k : kernel_suite())
    os << std::left << std::setw(13) << k.name << " " << k.summary << "  [" << k.seed << "]\n";
}

// Every profile of the directory; one that does not load is listed with its error (on stderr too) rather than
// hiding the others. No profile at all is an error: memsim cannot run without one.
int list_devices(std::ostream& os) {
  const std::vector<std::string> names = list_profiles();
  if (names.empty()) return usage_error("no device profiles (*.json) in " + device_dir() + " (MEMSIM_DEVICE_DIR)");
  for (const std::string& n : names) {
    os << std::left << std::setw(9) << n << " ";
    try {
      const DeviceProfile p = load_profile(n);
      os << p.display_name << " (cc " << p.compute_capability << ")"
         << (p.calibrated ? "  calibrated" : "  data-sheet stand-ins") << "\n";
    } catch (const ProfileError& e) {
      os << "(not usable: see the error)\n";
      std::cerr << "memsim: " << one_line(e.what()) << "\n";
    }
  }
  return 0;
}

// A full disk or a closed pipe must not pass for a report written.
int flushed_output() {
  std::cout.flush();
  if (std::cout) return 0;
  std::cerr << "memsim: cannot write the output\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const CliCommand cmd = parse_command_line(argc, argv);
    switch (cmd.action) {
      case CliCommand::Action::Help:
        std::cout << cmd.help;
        return 0;
      case CliCommand::Action::ListKernels:
        list_kernels(std::cout);
        return flushed_output();
      case CliCommand::Action::ListDevices:
        if (const int rc = list_devices(std::cout); rc != 0) return rc;
        return flushed_output();
      case CliCommand::Action::Plot: {
        const DeviceProfile device = load_profile(cmd.device);
        return draw_plot(cmd.plot_kind, cmd.plot_out, plot_document(cmd, device), cmd.plot_extra);
      }
      case CliCommand::Action::Report:
        break;
    }
    const DeviceProfile device = load_profile(cmd.device);
    const Analysis analysis = analyze(cmd.user, device, cmd.analysis);
    const nlohmann::ordered_json& report = analysis.report;

    if (cmd.format == "json")
      std::cout << report.dump(2) << "\n";
    else if (cmd.format == "csv")
      print_csv(std::cout, report);
    else
      print_table(std::cout, report);
  } catch (const ConfigError& e) {
    return usage_error(e.what());
  } catch (const ProfileError& e) {
    return usage_error(e.what());
  } catch (const std::bad_alloc&) {
    std::cerr << "memsim: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    // A bug, not a user's mistake: say so rather than abort.
    std::cerr << "memsim: internal error: " << one_line(e.what()) << "\n";
    return 1;
  }
  return flushed_output();
}
