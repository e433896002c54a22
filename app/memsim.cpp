// memsim: replay a transpose kernel's memory accesses, report what the hardware would count, and predict its
// time on a device. This file only wires options to the modules; the logic lives in kernels/, sim/, model/.
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cctype>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include "app/analysis.hpp"
#include "app/plot.hpp"
#include "app/progress.hpp"
#include "app/report.hpp"
#include "kernels/registry.hpp"
#include "kernels/resolve.hpp"
#include "model/profile.hpp"

namespace po = boost::program_options;
using namespace memsim;

namespace {

constexpr int kExitUsage = 2;

// The progress line of long replays and sweeps: on stderr, only when it is a terminal, from one second after
// the start; cleared before anything else is written.
Progress& progress() {
  static Progress line(std::cerr, isatty(STDERR_FILENO) == 1);
  return line;
}

int usage_error(const std::string& msg) {
  progress().clear();
  std::cerr << "memsim: " << msg << "\n";
  return kExitUsage;
}

// The formats --format accepts; the lists have no counts for the ncu layout.
const std::vector<std::string> kFormats = {"table", "json", "csv", "ncu-csv"};

void list_kernels(std::ostream& os, const std::string& format) {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  if (format == "csv") csv_row(os, {"name", "summary", "from"});
  for (const KernelInfo& k : kernel_suite()) {
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
  if (format == "csv") csv_row(os, {"profile", "name", "compute_capability", "calibrated", "cost_basis", "provenance", "error"});
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
      std::cerr << "memsim: " << e.what() << "\n";
    }
  }
  if (format == "json") os << all.dump(2) << "\n";
  return 0;
}

// The --plot options, checked before anything is replayed; "" when they are fine.
std::string check_plot_options(const po::variables_map& vm, const std::string& kernel) {
  const bool plot = vm.count("plot") > 0;
  for (const char* opt : {"plot-out", "plot-site", "plot-instruction"})
    if (vm.count(opt) && !plot) return std::string("--") + opt + " goes with --plot (banks, partitions or sectors)";
  if (!plot) return "";
  const std::string kind = vm["plot"].as<std::string>();
  const std::vector<std::string>& kinds = plot_kinds();
  if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end())
    return "unknown --plot '" + kind + "': expected banks, partitions or sectors";
  if (!vm.count("plot-out")) return "--plot " + kind + " needs --plot-out FILE (.png, .svg, or .json for its data)";
  const std::filesystem::path out = vm["plot-out"].as<std::string>();
  std::string ext = out.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (ext != ".png" && ext != ".svg" && ext != ".json")
    return "--plot-out " + out.string() + ": the extension picks the format: .png, .svg, or .json for the data";
  const std::filesystem::path dir = out.has_parent_path() ? out.parent_path() : ".";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    return "cannot write --plot-out " + out.string() + ": no directory " + dir.string();
  if (std::filesystem::is_directory(out, ec)) return "cannot write --plot-out " + out.string() + ": it is a directory";
  if (access(dir.c_str(), W_OK) != 0) return "cannot write --plot-out " + out.string() + ": " + dir.string() + " is not writable";
  if (kind != "banks")
    for (const char* opt : {"plot-site", "plot-instruction"})
      if (vm.count(opt)) return std::string("--") + opt + " goes with --plot banks";
  if (vm.count("plot-instruction") && vm["plot-instruction"].as<int64_t>() < 0)
    return "--plot-instruction must be 0 or more (the warp instructions of block 0 at the site, in launch order)";
  const KernelInfo* k = find_kernel(kernel);
  if (kind != "banks" || !k) return "";  // an unknown kernel: the analysis says so
  std::string shared;
  for (int i = 0; i < k->num_sites; ++i)
    if (k->sites[i].space == Space::Shared) shared += (shared.empty() ? "" : ", ") + std::to_string(i) + " '" + k->sites[i].name + "'";
  if (shared.empty())
    return "kernel " + kernel + " has no shared-memory access for --plot banks (try coalesced, padded or swizzle)";
  if (vm.count("plot-site")) {
    const std::string site = vm["plot-site"].as<std::string>();
    for (int i = 0; i < k->num_sites; ++i)
      if (k->sites[i].space == Space::Shared && (site == k->sites[i].name || site == std::to_string(i))) return "";
    return "unknown --plot-site '" + site + "' for kernel " + kernel + ": its shared sites are " + shared;
  }
  return "";
}

// A full disk or a closed pipe must not pass for a report written.
int flushed_output() {
  std::cout.flush();
  if (std::cout) return 0;
  std::cerr << "memsim: cannot write the output\n";
  return 1;
}

// The suite at one matrix, dtype and block on one device, global sites only: the sector map's data. The
// chosen kernel keeps its --tile and --pad; a kernel the launch does not allow is listed with the reason.
nlohmann::ordered_json suite_sectors(const UserConfig& chosen, const DeviceProfile& device, AnalysisOptions aopts) {
  aopts.predict_copy = false;
  nlohmann::ordered_json reports = nlohmann::ordered_json::array(), skipped = nlohmann::ordered_json::array();
  const std::vector<KernelInfo>& suite = kernel_suite();
  for (size_t i = 0; i < suite.size(); ++i) {
    const KernelInfo& k = suite[i];
    const std::string stage = "sector map, kernel " + std::to_string(i + 1) + " of " + std::to_string(suite.size());
    progress().update(stage, int64_t(i), int64_t(suite.size()), "kernels");
    aopts.progress = [&stage](const std::string& what, int64_t done, int64_t total) {
      progress().update(stage + ": " + what, done, total);
    };
    UserConfig user = chosen;
    if (user.kernel != k.name) {
      user.kernel = k.name;
      user.tile.reset();
      user.pad.reset();
    }
    try {
      const Analysis a = analyze(user, device, aopts);
      nlohmann::ordered_json sites = nlohmann::ordered_json::array();
      for (const auto& s : a.report["sites"])
        if (s["space"] == "global") sites.push_back(s);
      reports.push_back({{"kernel", k.name}, {"config", a.report["config"]}, {"sites", sites}});
    } catch (const ConfigError& e) {
      if (user.kernel == chosen.kernel) throw;
      skipped.push_back({{"kernel", k.name}, {"reason", e.what()}});
    }
  }
  return {{"reports", reports}, {"skipped", skipped}};
}

}  // namespace

int main(int argc, char** argv) {
  progress();  // its second of quiet counts from here
  po::options_description opts("memsim options");
  // clang-format off
  opts.add_options()
      ("help,h", "show this help and exit")
      ("kernel,k", po::value<std::string>()->default_value("padded"), "kernel of the suite (see --list-kernels)")
      ("matrix,m", po::value<std::string>()->default_value("2048x2048"), "matrix WxH: W columns, H rows")
      ("block,b", po::value<std::string>()->default_value("32x8"), "thread block BXxBY, as dim3(BX, BY)")
      ("tile,t", po::value<std::string>(), "input elements a block covers, TXxTY (default: the kernel's footprint, docs/hardware.md)")
      ("pad,p", po::value<int>(), "extra elements per shared-tile row (shared-tile kernels; default per kernel)")
      ("dtype,d", po::value<std::string>()->default_value("f32"), "element type: f16, f32 or f64")
      ("device", po::value<std::string>()->default_value("h100"), "device profile: limits, memory rules, cost model (see --list-devices)")
      ("regs", po::value<int>(), "registers per thread for occupancy (default: the profile's table for the kernel, else 32)")
      ("instructions", po::value<double>(), "warp instructions the launch executes (e.g. ncu smsp__inst_executed.sum), for the issue term (default: memory instructions x the profile's ratio)")
      ("partitions", "count DRAM partition traffic per window of resident blocks (always on for devices whose mapping is known)")
      ("resident-blocks", po::value<int64_t>(), "blocks resident at once for the partition windows (default: SMs x occupancy)")
      ("window-step", po::value<int64_t>()->default_value(0), "blocks retiring between partition windows (0: non-overlapping waves)")
      ("max-windows", po::value<int64_t>()->default_value(256), "partition windows kept in the JSON, evenly spaced (figures use all)")
      ("format,f", po::value<std::string>()->default_value("table"), "output: table, json, csv (one long table: section,index,name,value) or ncu-csv (the layout of ncu --csv --metrics); the lists take table, json or csv (docs/cli.md)")
      ("threads", po::value<int>()->default_value(0), "replay worker threads (0: all hardware threads)")
      ("exact", "replay every block (default: one block of each class of blocks with identical counts, the same figures; the JSON's config.replay says which ran)")
      ("plot", po::value<std::string>(), "draw a picture instead of printing the report: banks (one shared instruction, lanes x banks), partitions (DRAM partitions per window), sectors (global sectors per request, the whole suite); needs --plot-out")
      ("plot-out", po::value<std::string>(), "file --plot writes: .png or .svg by the extension, .json for the data it is drawn from")
      ("plot-site", po::value<std::string>(), "--plot banks: shared site by name ('ld tile') or number (default: the most wavefronts an instruction)")
      ("plot-instruction", po::value<int64_t>(), "--plot banks: warp instruction of block 0 at the site, 0-based in launch order (default: the one with the most wavefronts)")
      ("list-kernels", "list the kernel suite and exit")
      ("list-devices", "list the device profiles and exit");
  // clang-format on
  // Bare words land here, to be named in the error: memsim takes options only (a forgotten --kernel is not
  // silently ignored).
  po::options_description hidden;
  hidden.add_options()("stray", po::value<std::vector<std::string>>());
  po::options_description all;
  all.add(opts).add(hidden);

  po::variables_map vm;
  try {
    po::positional_options_description stray;
    stray.add("stray", -1);
    po::store(po::command_line_parser(argc, argv).options(all).positional(stray).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    return usage_error(std::string(e.what()) + " (memsim --help lists the options)");
  }
  if (vm.count("stray")) {
    const std::string word = vm["stray"].as<std::vector<std::string>>().front();
    return usage_error("unexpected argument '" + word + "': memsim takes options only (e.g. --kernel " + word +
                       "; memsim --help lists them)");
  }
  if (vm.count("help")) {
    std::cout << "Usage: memsim [options]\n  e.g. memsim --kernel padded --block 32x8\n\n" << opts << "\n";
    return 0;
  }

  try {
    const std::string format = vm["format"].as<std::string>();
    if (std::find(kFormats.begin(), kFormats.end(), format) == kFormats.end())
      return usage_error("invalid --format '" + format + "': expected table, json, csv or ncu-csv");
    for (const char* list : {"list-kernels", "list-devices"})
      if (vm.count(list) && format == "ncu-csv")
        return usage_error(std::string("--") + list + " prints table, json or csv; ncu-csv is for a replay's counts");
    if (vm.count("list-kernels")) {
      list_kernels(std::cout, format);
      return flushed_output();
    }
    if (vm.count("list-devices")) {
      if (const int rc = list_devices(std::cout, format); rc != 0) return rc;
      return flushed_output();
    }
    UserConfig user;
    user.kernel = vm["kernel"].as<std::string>();
    user.matrix = parse_size2(vm["matrix"].as<std::string>(), "--matrix");
    user.block = parse_size2(vm["block"].as<std::string>(), "--block");
    if (vm.count("tile")) user.tile = parse_size2(vm["tile"].as<std::string>(), "--tile");
    if (vm.count("pad")) user.pad = vm["pad"].as<int>();
    user.dtype = parse_dtype(vm["dtype"].as<std::string>());
    const int threads = vm["threads"].as<int>();
    if (threads < 0 || threads > 256) return usage_error("--threads must be between 0 and 256");

    AnalysisOptions aopts;
    aopts.progress = [](const std::string& stage, int64_t done, int64_t total) {
      progress().update(stage, done, total);
    };
    aopts.threads = threads;
    if (vm.count("regs")) aopts.regs = vm["regs"].as<int>();
    if (vm.count("instructions")) aopts.instructions = vm["instructions"].as<double>();
    aopts.partitions = vm.count("partitions") > 0;
    aopts.exact = vm.count("exact") > 0;
    if (vm.count("resident-blocks")) aopts.resident_blocks = vm["resident-blocks"].as<int64_t>();
    aopts.window_step = vm["window-step"].as<int64_t>();
    aopts.max_windows = vm["max-windows"].as<int64_t>();
    aopts.window_options_given = !vm["window-step"].defaulted() || !vm["max-windows"].defaulted();
    if (const std::string why = check_plot_options(vm, user.kernel); !why.empty()) return usage_error(why);
    const DeviceProfile device = load_profile(vm["device"].as<std::string>());
    if (vm.count("plot")) {
      const std::string kind = vm["plot"].as<std::string>();
      std::vector<std::string> extra;
      if (kind == "partitions") aopts.partitions = true;  // the picture is of them, assumed mapping or not
      nlohmann::ordered_json doc;
      if (kind == "sectors") {
        doc = suite_sectors(user, device, aopts);
        doc["kernel"] = user.kernel;
      } else {
        aopts.predict_copy = false;
        const Analysis analysis = analyze(user, device, aopts);
        doc = analysis.report;
        if (kind == "banks") doc["bank_map"] = bank_map_json(analysis.config, memory_rules(device));
        if (vm.count("plot-site")) extra = {"--site", vm["plot-site"].as<std::string>()};
        if (vm.count("plot-instruction"))
          for (const std::string& a : {std::string("--instruction"), std::to_string(vm["plot-instruction"].as<int64_t>())})
            extra.push_back(a);
      }
      doc["plot"] = {{"kind", kind}, {"device", device.display_name}, {"device_profile", device.name}};
      progress().clear();
      return draw_plot(kind, vm["plot-out"].as<std::string>(), doc, extra);
    }
    const Analysis analysis = analyze(user, device, aopts);
    const nlohmann::ordered_json& report = analysis.report;
    progress().clear();
    if (format == "json")
      std::cout << report.dump(2) << "\n";
    else if (format == "csv")
      print_csv(std::cout, report);
    else if (format == "ncu-csv")
      print_ncu_csv(std::cout, report);
    else
      print_table(std::cout, report);
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
    std::cerr << "memsim: internal error: " << e.what() << "\n";
    return 1;
  }
  return flushed_output();
}
