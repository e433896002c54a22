// memsim._memsim: the command line's own path (app/cli.hpp: parse_command_line, then report/'s analysis, sweep and
// comparisons) behind one call that takes memsim's arguments and gives back what `--format json` prints, as
// Python objects. python/memsim/__init__.py turns keyword arguments into those arguments, so that the Python
// module and the command can never disagree: same checks, same one-line errors, same JSON.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <new>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli.hpp"
#include "kernels/registry.hpp"
#include "kernels/resolve.hpp"
#include "model/profile.hpp"
#include "report/analysis.hpp"
#include "report/compare.hpp"
#include "report/report.hpp"
#include "report/sweep.hpp"

namespace py = pybind11;
using memsim::CliCommand;

namespace {

py::object to_python(const nlohmann::ordered_json& j) {
  switch (j.type()) {
    case nlohmann::ordered_json::value_t::null:
    case nlohmann::ordered_json::value_t::discarded:
      return py::none();
    case nlohmann::ordered_json::value_t::boolean:
      return py::bool_(j.get<bool>());
    case nlohmann::ordered_json::value_t::number_integer:
      return py::int_(j.get<int64_t>());
    case nlohmann::ordered_json::value_t::number_unsigned:
      return py::int_(j.get<uint64_t>());
    case nlohmann::ordered_json::value_t::number_float:
      return py::float_(j.get<double>());
    case nlohmann::ordered_json::value_t::string:
      return py::str(j.get_ref<const std::string&>());
    case nlohmann::ordered_json::value_t::array: {
      py::list out;
      for (const auto& v : j) out.append(to_python(v));
      return std::move(out);
    }
    case nlohmann::ordered_json::value_t::object: {
      py::dict out;
      for (const auto& [k, v] : j.items()) out[py::str(k)] = to_python(v);
      return std::move(out);
    }
    case nlohmann::ordered_json::value_t::binary:
      break;
  }
  throw std::runtime_error("a JSON value memsim does not write (binary)");
}

// A sweep of the one configuration the arguments name (or of the kernels a comparison names): memsim.sweep()
// with no list in it is still a sweep, one row a kernel.
memsim::SweepAxes axes_of(const CliCommand& cmd) {
  memsim::SweepAxes axes;
  axes.kernels = cmd.action == CliCommand::Action::Compare ? cmd.kernels : std::vector<std::string>{cmd.user.kernel};
  axes.dtypes = {cmd.user.dtype};
  axes.matrices = {cmd.user.matrix};
  axes.blocks = {cmd.user.block};
  axes.tiles = {cmd.user.tile};
  axes.pad = cmd.user.pad;
  return axes;
}

nlohmann::ordered_json kernel_list() {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const memsim::KernelInfo& k : memsim::kernel_suite()) {
    nlohmann::ordered_json sites = nlohmann::ordered_json::array();
    for (int i = 0; i < k.num_sites; ++i) sites.push_back(k.sites[i].name);
    all.push_back({{"name", k.name}, {"summary", k.summary}, {"from", k.seed}, {"sites", sites}});
  }
  return all;
}

// Every profile; one that does not load is listed with its error, as --list-devices does.
nlohmann::ordered_json device_list() {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const std::string& n : memsim::list_profiles()) {
    try {
      all.push_back(memsim::provenance_json(memsim::load_profile(n)));
    } catch (const memsim::ProfileError& e) {
      all.push_back({{"profile", n}, {"error", e.what()}});
    }
  }
  return all;
}

// What `memsim ARGS --format json` prints. Runs without the GIL: replays take seconds, and other Python threads
// (a notebook's, a tuner's) go on meanwhile.
nlohmann::ordered_json run(const std::vector<std::string>& args, bool as_sweep) {
  std::vector<const char*> argv = {"memsim"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  argv.push_back("--format");
  argv.push_back("json");
  const CliCommand cmd = memsim::parse_command_line(int(argv.size()), argv.data());
  switch (cmd.action) {
    case CliCommand::Action::Help:
      return {{"text", cmd.help}};
    case CliCommand::Action::ListKernels:
      return kernel_list();
    case CliCommand::Action::ListDevices:
      return device_list();
    case CliCommand::Action::Plot:
      throw memsim::ConfigError("--plot draws with the command line's plotting script; from Python, plot the "
                                "records with matplotlib (docs/python.md)");
    case CliCommand::Action::CompareDevices:
      if (as_sweep) throw memsim::ConfigError("a sweep runs on one device; call it once for each");
      {
        std::vector<memsim::DeviceProfile> devices;
        for (const std::string& d : cmd.devices) devices.push_back(memsim::load_profile(d));
        return memsim::comparison_json(memsim::compare_devices(cmd.user, devices, cmd.analysis));
      }
    case CliCommand::Action::Sweep:
    case CliCommand::Action::Compare:
    case CliCommand::Action::Report:
      break;
  }
  const memsim::DeviceProfile device = memsim::load_profile(cmd.device);
  if (cmd.action == CliCommand::Action::Sweep || as_sweep) {
    const memsim::SweepAxes axes = cmd.action == CliCommand::Action::Sweep ? cmd.sweep : axes_of(cmd);
    if (cmd.analysis.instructions)
      throw memsim::ConfigError("--instructions is one launch's count; it cannot stand for a sweep's launches");
    return memsim::sweep_json(memsim::run_sweep(axes, device, cmd.analysis));
  }
  if (cmd.action == CliCommand::Action::Compare)
    return memsim::comparison_json(memsim::compare_kernels(cmd.user, cmd.kernels, device, cmd.analysis));
  return memsim::report_json(memsim::analyze(cmd.user, device, cmd.analysis));
}

}  // namespace

PYBIND11_MODULE(_memsim, m) {
  m.doc() = "memsim's command line as a function: memsim ARGS --format json, as Python objects";
  m.attr("__version__") = MEMSIM_VERSION;

  // memsim's mistakes (a launch the device refuses, a malformed size, an unknown profile) as memsim.Error, a
  // ValueError carrying the command's one line; anything else is a bug, and stays a RuntimeError.
  static py::exception<memsim::ConfigError> error(m, "Error", PyExc_ValueError);
  error.attr("__module__") = "memsim";  // raised and documented as memsim.Error
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const memsim::ConfigError& e) {
      error(memsim::one_line(e.what()).c_str());
    } catch (const memsim::ProfileError& e) {
      error(memsim::one_line(e.what()).c_str());
    }
  });

  m.def(
      "run",
      [](const std::vector<std::string>& args, bool as_sweep) {
        nlohmann::ordered_json out;
        {
          py::gil_scoped_release release;
          out = run(args, as_sweep);
        }
        return to_python(out);
      },
      py::arg("args"), py::arg("as_sweep") = false,
      "What `memsim ARGS --format json` prints, as Python objects (as_sweep: a sweep even without a list).");
}
