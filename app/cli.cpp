#include "app/cli.hpp"

#include <cmath>

#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <sstream>

#include "app/plot.hpp"
#include "codegen/kernel_file.hpp"
#include "kernels/registry.hpp"
#include "report/compare.hpp"
#include "report/report.hpp"

namespace po = boost::program_options;

namespace memsim {
namespace {

// The formats --format accepts; the lists have no counts for the ncu layout.
const std::vector<std::string> kFormats = {"table", "json", "csv", "ncu-csv"};

// Boost.Program_options (1.74) words an error by replacing %name% placeholders in its template with the
// option and the value as typed, over and over while one is left: an argument that holds one ("--pad
// %value%") never runs out, and memsim hung there for good. The parser gets the arguments with every '%'
// escaped (and the escape character itself), and what it gives back, values and messages, is unescaped.
constexpr char kEscape = '\x1f';

std::string escape_percent(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '%' || c == kEscape) out += {kEscape, c == '%' ? 'p' : 'e'};
    else out += c;
  }
  return out;
}

std::string unescape_percent(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == kEscape && i + 1 < s.size()) out += s[++i] == 'p' ? '%' : kEscape;
    else out += s[i];
  }
  return out;
}

std::string text(const po::variables_map& vm, const char* option) {
  return unescape_percent(vm[option].as<std::string>());
}

// The --plot options, checked before anything is replayed; "" when they are fine.
std::string check_plot_options(const po::variables_map& vm, const std::string& kernel) {
  const bool plot = vm.count("plot") > 0;
  for (const char* opt : {"plot-out", "plot-site", "plot-instruction"})
    if (vm.count(opt) && !plot) return std::string("--") + opt + " goes with --plot (banks, partitions or sectors)";
  if (!plot) return "";
  const std::string kind = text(vm, "plot");
  const std::vector<std::string>& kinds = plot_kinds();
  if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end())
    return "unknown --plot '" + kind + "': expected banks, partitions or sectors";
  if (!vm.count("plot-out")) return "--plot " + kind + " needs --plot-out FILE (.png, .svg, or .json for its data)";
  const std::filesystem::path out = text(vm, "plot-out");
  std::string ext = out.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (ext != ".png" && ext != ".svg" && ext != ".json")
    return "--plot-out " + out.string() + ": the extension picks the format: .png, .svg, or .json for the data";
  // Room for the temporary name it is written under first (model/atomic_file.hpp), in a file system's 255.
  if (out.filename().string().size() > 200) return "--plot-out: the file name is longer than 200 characters";
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
    const std::string site = text(vm, "plot-site");
    for (int i = 0; i < k->num_sites; ++i)
      if (k->sites[i].space == Space::Shared && (site == k->sites[i].name || site == std::to_string(i))) return "";
    return "unknown --plot-site '" + site + "' for kernel " + kernel + ": its shared sites are " + shared;
  }
  return "";
}

// The kernels asked at one matrix, dtype and block on each device asked, global sites only: the sector map's
// data. Of several launches, one the launch does not allow is listed with the reason, as a comparison does; one
// launch alone is refused as its report would be.
nlohmann::ordered_json kernel_sectors(const UserConfig& chosen, const std::vector<std::string>& kernels,
                                      const std::vector<DeviceProfile>& devices, AnalysisOptions aopts) {
  aopts.predict_copy = false;
  nlohmann::ordered_json reports = nlohmann::ordered_json::array(), skipped = nlohmann::ordered_json::array();
  const auto outer = aopts.progress;  // told each kernel's replay, prefixed with where the map stands
  const size_t total = kernels.size() * devices.size();
  size_t done = 0;
  for (const DeviceProfile& device : devices) {
    for (const std::string& name : kernels) {
      const std::string stage = "sector map, launch " + std::to_string(done + 1) + " of " + std::to_string(total);
      if (outer) {
        outer(stage, int64_t(done), int64_t(total));
        aopts.progress = [&outer, &stage](const std::string& what, int64_t d, int64_t t) {
          outer(stage + ": " + what, d, t);
        };
      }
      ++done;
      UserConfig user = chosen;  // a --tile or --pad given applies to every kernel, as in a comparison
      user.kernel = name;
      try {
        const nlohmann::ordered_json report = replay_json(analyze(user, device, aopts).replay);
        nlohmann::ordered_json sites = nlohmann::ordered_json::array();
        for (const auto& s : report["sites"])
          if (s["space"] == "global") sites.push_back(s);
        reports.push_back({{"kernel", name}, {"config", report["config"]}, {"sites", sites},
                           {"plot", {{"device", device.display_name}, {"device_profile", device.name}}}});
      } catch (const ConfigError& e) {
        if (total == 1) throw;
        skipped.push_back({{"kernel", name}, {"device_profile", device.name}, {"reason", e.what()}});
      }
    }
  }
  // Nothing to draw: the first refusal says why.
  if (reports.empty()) throw ConfigError(skipped[0]["reason"].get<std::string>());
  return {{"reports", reports}, {"skipped", skipped}};
}

}  // namespace

CliCommand parse_command_line(int argc, const char* const* argv) {
  po::options_description opts("memsim options");
  // clang-format off
  opts.add_options()
      ("help,h", "show this help and exit")
      ("version", "print memsim's version and git revision and exit")
      ("kernel,k", po::value<std::string>()->default_value("padded"), "kernel of the suite (see --list-kernels); several, comma-separated, or all: one comparison table")
      ("kernel-file", po::value<std::vector<std::string>>()->composing(), "your own kernel: a header written against memsim's kernel interface (docs/kernel_interface.md), compiled now (cached); its kernel is reported, or compared with those --kernel names; repeatable")
      ("define,D", po::value<std::vector<std::string>>()->composing(), "NAME or NAME=VALUE: a macro for the --kernel-file's compilation, as -D; repeatable")
      ("matrix,m", po::value<std::string>()->default_value("2048x2048"), "matrix WxH: W columns, H rows; several, comma-separated: a sweep")
      ("block,b", po::value<std::string>()->default_value("32x8"), "thread block BXxBY, as dim3(BX, BY); several, comma-separated, or all (the usual shapes a tuner tries, docs/cli.md): a sweep, one ranked table")
      ("tile,t", po::value<std::string>(), "input elements a block covers, TXxTY (default: the kernel's footprint, docs/hardware.md); several, comma-separated: a sweep")
      ("pad,p", po::value<int>(), "extra elements per shared-tile row (shared-tile kernels; default per kernel)")
      ("dtype,d", po::value<std::string>()->default_value("f32"), "element type: f16, f32 or f64; several, comma-separated: a sweep")
      ("device", po::value<std::string>()->default_value("h100"), "device profile: limits, memory rules, cost model (see --list-devices), or a profile file's path (with a '/' or ending in .json)")
      ("regs", po::value<int>(), "registers per thread for occupancy (default: the compiled code's, else the profile's count for the kernel, else 32)")
      ("instructions", po::value<double>(), "warp instructions the launch executes (e.g. ncu smsp__inst_executed.sum), for the issue term (default: counted along the code nvcc generates for the configuration)")
      ("dram-read-bytes", po::value<double>(), "bytes the launch reads from DRAM (e.g. ncu dram__bytes_read.sum), for the DRAM term; what lies beyond its loads' bytes is charged as the read-back of its partial stores (default: modelled)")
      ("l2-write-sectors", po::value<double>(), "sector writes the L2 receives from the launch's stores (e.g. ncu lts__t_sectors_srcunit_tex_op_write.sum); the partial stores' pieces beyond them reached the L2 merged, and are charged as whole sectors (default: every piece its own write)")
      ("runtime-shape", "the kernel keeps its block, tile and pad as run-time values: estimate its instructions from the replay's operations instead of its compiled code")
      ("no-compile", "never run nvcc: take the compiled code from the cache, the shipped table or the estimate (docs/model.md)")
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

  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.push_back(escape_percent(argv[i]));
  po::variables_map vm;
  try {
    po::positional_options_description stray;
    stray.add("stray", -1);
    // No abbreviations: "--kern" is refused, not read as --kernel (an option added later would change what
    // an abbreviation meant).
    const int style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
    po::store(po::command_line_parser(args).options(all).positional(stray).style(style).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw ConfigError(unescape_percent(e.what()) + " (memsim --help lists the options)");
  }
  if (vm.count("stray")) {
    const std::string word = unescape_percent(vm["stray"].as<std::vector<std::string>>().front());
    throw ConfigError("unexpected argument '" + word + "': memsim takes options only (e.g. --kernel " + word +
                      "; memsim --help lists them)");
  }
  CliCommand cmd;
  if (vm.count("help")) {
    std::ostringstream os;
    os << "Usage: memsim [options]\n  e.g. memsim --kernel padded --block 32x8\n"
       << "       memsim --kernel naive,coalesced,padded (one table comparing the three)\n"
       << "       memsim --kernel padded --block all --dtype f16,f32 (a sweep: one ranked table)\n\n"
       << opts << "\n";
    cmd.action = CliCommand::Action::Help;
    cmd.help = os.str();
    return cmd;
  }
  if (vm.count("version")) {
    cmd.action = CliCommand::Action::Help;
    cmd.help = std::string("memsim ") + MEMSIM_VERSION + " (git " + MEMSIM_GIT_REVISION + ")\n";
    return cmd;
  }
  cmd.format = text(vm, "format");
  if (vm.count("plot") && !vm["format"].defaulted())
    throw ConfigError("--format shapes a report; --plot writes a picture, or its data as JSON with --plot-out "
                      "NAME.json");
  if (std::find(kFormats.begin(), kFormats.end(), cmd.format) == kFormats.end())
    throw ConfigError("invalid --format '" + cmd.format + "': expected table, json, csv or ncu-csv");
  // A kernel file joins the suite before anything looks a kernel up.
  std::vector<std::string> file_kernels;
  if (vm.count("kernel-file")) {
    std::vector<std::string> defines;
    if (vm.count("define"))
      for (const std::string& d : vm["define"].as<std::vector<std::string>>()) defines.push_back(unescape_percent(d));
    for (const std::string& f : vm["kernel-file"].as<std::vector<std::string>>())
      file_kernels.push_back(load_kernel_file(unescape_percent(f), defines)->name);
  } else if (vm.count("define")) {
    throw ConfigError("--define goes with --kernel-file: it sets a macro for compiling the kernel's file");
  }
  for (const char* list : {"list-kernels", "list-devices"})
    if (vm.count(list) && cmd.format == "ncu-csv")
      throw ConfigError(std::string("--") + list + " prints table, json or csv; ncu-csv is for a replay's counts");
  // A list stands alone: any other option given with it would be ignored without a word.
  for (const char* list : {"list-kernels", "list-devices"})
    if (vm.count(list))
      for (const auto& [name, value] : vm)
        if (name != list && name != "format" && name != "kernel-file" && name != "define" && !value.defaulted())
          throw ConfigError(std::string("--") + list + " takes no other option than --format; --" + name +
                            " was given");
  if (vm.count("list-kernels")) {
    cmd.action = CliCommand::Action::ListKernels;
    return cmd;
  }
  if (vm.count("list-devices")) {
    cmd.action = CliCommand::Action::ListDevices;
    return cmd;
  }
  UserConfig& user = cmd.user;
  user.kernel = text(vm, "kernel");
  // With a kernel file, its kernel is the one reported; --kernel names the ones it is compared with.
  if (!file_kernels.empty() && user.kernel != "all") {
    std::string named = vm["kernel"].defaulted() ? std::string() : user.kernel;
    const std::vector<std::string> listed = named.empty() ? std::vector<std::string>{} : split_list(named, "--kernel");
    std::string joined;
    for (const std::string& k : file_kernels)
      if (std::find(listed.begin(), listed.end(), k) == listed.end()) joined += (joined.empty() ? "" : ",") + k;
    user.kernel = joined.empty() ? named : named.empty() ? joined : joined + "," + named;
  }
  // A list in --block (or all), --tile, --dtype or --matrix makes a sweep: every axis parsed as a list.
  const std::string matrix = text(vm, "matrix"), block = text(vm, "block"), dtype = text(vm, "dtype");
  const std::string tile = vm.count("tile") ? text(vm, "tile") : "";
  const bool sweep = is_list(matrix) || is_list(block, true) || is_list(dtype) || is_list(tile);
  if (sweep) {
    SweepAxes& axes = cmd.sweep;
    axes.kernels = kernel_names(user.kernel);
    axes.dtypes = parse_dtype_list(dtype);
    axes.matrices = parse_size_list(matrix, "--matrix");
    axes.blocks = parse_size_list(block, "--block", &tuner_blocks());
    if (vm.count("tile")) {
      axes.tiles.clear();  // no default tile: the ones given
      for (const Size2& t : parse_size_list(tile, "--tile")) axes.tiles.push_back(t);
    }
    if (vm.count("pad")) axes.pad = vm["pad"].as<int>();
    sweep_size(axes);
  } else {
    user.matrix = parse_size2(matrix, "--matrix");
    user.block = parse_size2(block, "--block");
    if (vm.count("tile")) user.tile = parse_size2(tile, "--tile");
    user.dtype = parse_dtype(dtype);
  }
  if (vm.count("pad")) user.pad = vm["pad"].as<int>();
  const int threads = vm["threads"].as<int>();
  if (threads < 0 || threads > 256) throw ConfigError("--threads must be between 0 and 256");

  AnalysisOptions& aopts = cmd.analysis;
  aopts.threads = threads;
  if (vm.count("regs")) aopts.regs = vm["regs"].as<int>();
  if (vm.count("instructions")) {
    aopts.instructions = vm["instructions"].as<double>();
    if (*aopts.instructions != std::floor(*aopts.instructions))
      throw ConfigError("--instructions must be a whole number of warp instructions, got " +
                        [&] {
                          std::ostringstream os;
                          os << *aopts.instructions;
                          return os.str();
                        }());
  }
  // A measured count of the launch, whole, from 0 to 1e15: past that (a petabyte, or 32 petabytes of sectors) no
  // launch a user meant, and the table's counts would overflow.
  const auto whole_count = [&vm](const char* option, const char* unit) {
    const double v = vm[option].as<double>();
    if (!(v >= 0 && v <= 1e15) || v != std::floor(v)) {
      std::ostringstream os;
      os << "--" << option << " must be a whole number of " << unit << " from 0 to 1e15, got " << v;
      throw ConfigError(os.str());
    }
    return v;
  };
  if (vm.count("dram-read-bytes")) aopts.dram_read_bytes = whole_count("dram-read-bytes", "bytes");
  if (vm.count("l2-write-sectors")) aopts.l2_write_sectors = whole_count("l2-write-sectors", "sectors");
  // --instructions, --dram-read-bytes and --l2-write-sectors are one launch's measured counts: no sweep,
  // comparison or set of devices.
  const auto refuse_one_launch_counts = [&aopts](const std::string& where, const std::string& not_for) {
    for (const auto& [option, given] : {std::pair<const char*, bool>{"--instructions", bool(aopts.instructions)},
                                        {"--dram-read-bytes", bool(aopts.dram_read_bytes)},
                                        {"--l2-write-sectors", bool(aopts.l2_write_sectors)}})
      if (given)
        throw ConfigError(std::string(option) + " is one launch's count" + where + "; it cannot stand for " + not_for);
  };
  aopts.runtime_shape = vm.count("runtime-shape") > 0;
  aopts.compile = vm.count("no-compile") == 0;
  aopts.partitions = vm.count("partitions") > 0;
  aopts.exact = vm.count("exact") > 0;
  if (vm.count("resident-blocks")) aopts.resident_blocks = vm["resident-blocks"].as<int64_t>();
  aopts.window_step = vm["window-step"].as<int64_t>();
  aopts.max_windows = vm["max-windows"].as<int64_t>();
  aopts.window_options_given = !vm["window-step"].defaulted() || !vm["max-windows"].defaulted();
  if (sweep) {
    if (vm.count("plot"))
      throw ConfigError("--plot draws one launch; a list in --block, --tile, --dtype or --matrix makes a sweep of " +
                        std::to_string(sweep_size(cmd.sweep)));
    if (cmd.format == "ncu-csv")
      throw ConfigError("--format ncu-csv holds one launch; sweep with table, json or csv");
    refuse_one_launch_counts("", "the " + std::to_string(sweep_size(cmd.sweep)) + " launches of a sweep");
    cmd.action = CliCommand::Action::Sweep;
  } else if (user.kernel == "all" || user.kernel.find(',') != std::string::npos) {
    cmd.kernels = kernel_names(user.kernel);
    // Several kernels drawn side by side on one scale: every one must have what the picture shows.
    if (vm.count("plot"))
      for (const std::string& k : cmd.kernels)
        if (const std::string why = check_plot_options(vm, k); !why.empty()) throw ConfigError(why);
    if (cmd.format == "ncu-csv")
      throw ConfigError("--format ncu-csv holds one launch; compare kernels with table, json or csv");
    refuse_one_launch_counts("", std::to_string(cmd.kernels.size()) + " kernels");
    cmd.action = CliCommand::Action::Compare;
  } else if (const std::string why = check_plot_options(vm, user.kernel); !why.empty()) {
    throw ConfigError(why);
  }
  cmd.device = text(vm, "device");
  if (cmd.device.find(',') != std::string::npos) {
    for (const std::string& name : split_list(cmd.device, "--device")) {
      if (std::find(cmd.devices.begin(), cmd.devices.end(), name) != cmd.devices.end())
        throw ConfigError("device '" + name + "' named twice in --device");
      cmd.devices.push_back(name);
    }
    if (cmd.action == CliCommand::Action::Compare && vm.count("plot"))
      throw ConfigError("--plot draws several kernels or several devices side by side, not both: --kernel names " +
                        std::to_string(cmd.kernels.size()) + ", --device " + std::to_string(cmd.devices.size()));
    if (cmd.action != CliCommand::Action::Report)
      throw ConfigError("--device with several profiles compares one launch on each; give one kernel and one "
                        "configuration (no list in --kernel, --block, --tile, --dtype or --matrix)");
    if (cmd.format == "ncu-csv")
      throw ConfigError("--format ncu-csv holds one launch on one device; compare devices with table, json or csv");
    refuse_one_launch_counts(" on one device", std::to_string(cmd.devices.size()) + " devices");
    cmd.action = CliCommand::Action::CompareDevices;
  }
  if (vm.count("plot")) {
    cmd.action = CliCommand::Action::Plot;
    cmd.plot_kind = text(vm, "plot");
    cmd.plot_out = text(vm, "plot-out");
    if (cmd.plot_kind == "partitions") aopts.partitions = true;  // the picture is of them, assumed mapping or not
    if (vm.count("plot-site")) cmd.plot_extra = {"--site", text(vm, "plot-site")};
    if (vm.count("plot-instruction"))
      for (const std::string& a : {std::string("--instruction"), std::to_string(vm["plot-instruction"].as<int64_t>())})
        cmd.plot_extra.push_back(a);
  }
  return cmd;
}

nlohmann::ordered_json plot_document(const CliCommand& cmd, const DeviceProfile& device) {
  return plot_document(cmd, std::vector<DeviceProfile>{device});
}

nlohmann::ordered_json plot_document(const CliCommand& cmd, const std::vector<DeviceProfile>& devices) {
  const std::vector<std::string> kernels = cmd.kernels.empty() ? std::vector<std::string>{cmd.user.kernel}
                                                                : cmd.kernels;
  AnalysisOptions aopts = cmd.analysis;
  aopts.predict_copy = false;
  aopts.keep_first_block_shared = cmd.plot_kind == "banks";
  auto plot_block = [&](const DeviceProfile& device) {
    return nlohmann::ordered_json{{"kind", cmd.plot_kind}, {"device", device.display_name},
                                  {"device_profile", device.name}};
  };
  if (cmd.plot_kind == "sectors") {
    nlohmann::ordered_json doc = kernel_sectors(cmd.user, kernels, devices, aopts);
    if (kernels.size() == 1) doc["kernel"] = kernels[0];
    doc["plot"] = plot_block(devices[0]);
    return doc;
  }
  // One report per launch, each as one launch's picture holds it; several go under "reports", drawn side by
  // side on one colour scale.
  nlohmann::ordered_json reports = nlohmann::ordered_json::array();
  for (const DeviceProfile& device : devices)
    for (const std::string& name : kernels) {
      UserConfig user = cmd.user;
      user.kernel = name;
      const Analysis analysis = analyze(user, device, aopts);
      nlohmann::ordered_json doc = report_json(analysis);
      if (cmd.plot_kind == "banks") doc["bank_map"] = bank_map_json(analysis.replay, memory_rules(device));
      doc["plot"] = plot_block(device);
      reports.push_back(std::move(doc));
    }
  if (reports.size() == 1) return reports[0];
  nlohmann::ordered_json plot = {{"kind", cmd.plot_kind}, {"kernels", kernels}, {"devices", nlohmann::ordered_json::array()}};
  for (const DeviceProfile& d : devices) plot["devices"].push_back(d.name);
  return {{"plot", plot}, {"reports", reports}};
}

std::string one_line(const std::string& message) {
  std::string out;
  for (const char c : message) {
    if (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) {
      out += c;
    } else {
      static const char* hex = "0123456789abcdef";
      out += c == '\n' ? std::string("\\n") : c == '\t' ? std::string("\\t") : std::string("\\x") + hex[(c >> 4) & 15] + hex[c & 15];
    }
  }
  return out;
}

}  // namespace memsim
