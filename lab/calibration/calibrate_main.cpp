// memsim-calibrate: fits a device profile's cost constants to a memsim-microbench run and writes the fitted profile
// (docs/validation.md, "Calibrating and judging the model"). The profile keeps its data-sheet fields, takes the
// device facts the run measured (SM count, clocks, L2, shared memory), its "cost" block is replaced by the fit, and
// a "calibration" block records where the numbers came from. With --holdout it also replays the suite kernels the
// run timed and prints prediction against measurement: the fit never reads them.
//
//   memsim-calibrate --microbench lab/calibration/results/h100_microbench.json --base h100 --out model/devices/h100.json
//
// The profile written keeps the base's limits and the constants the fit holds. A base calibrated on another GPU
// (a second GPU fitted from h100) or a stand-in (a data-sheet profile of the same GPU) is named in the profile's
// source and cost note, and a calibrated base's display name gives way to the run's device name.
//
// --microbench may be given several times (the calibration run, then memsim-microbench --split-sectors' run of
// the same GPU, which scripts/calibrate_gpu.sh keeps but does not fit: docs/model.md, split sectors): their
// runs are fitted together; the device facts, the date and the hold-out records are the first file's, and
// every file must come from the same device (name). A fit leaves out the split-sector runs whose counts do not
// describe them and lists them (lab/calibration/microbench_records.hpp); --predict-only predicts every run.
//
// --predict-only (no fit): the run's microbenchmarks predicted by the profile --base names, against their times.
//
// --holdout-validate SUITE.json [...] (no fit): replays every configuration a memsim-validate result file
// measured (records[i].config, records[i].measured.time_us.median), predicts it with the profile --base
// names, and prints MAPE, max APE and Spearman per (matrix, dtype, block) group and for the judged set, with the
// median and lowest Spearman within a group.
//
//   memsim-calibrate --base h100 --holdout-validate validate/results/suite_f32.json validate/results/suite_f16_f64.json
//
// Exit status: 0; 2 for anything the user gave wrong (an option, a field of a document or profile: one line on
// stderr naming the file, the record and the field, before any report or file is written where it can be
// told then); 1 for a failure of the tool itself.
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/registry.hpp"
#include "model/atomic_file.hpp"
#include "model/cost.hpp"
#include "lab/calibration/fit.hpp"
#include "lab/calibration/microbench_records.hpp"
#include "model/stats.hpp"
#include "model/user_text.hpp"
#include "report/launch_prediction.hpp"
#include "sim/replay.hpp"

using namespace memsim;
using nlohmann::json;
using nlohmann::ordered_json;

namespace {

// As memsim: 2 for what the user got wrong (options, documents, profiles), 1 for a failure of the tool itself.
constexpr int kExitInput = 2;
constexpr int kExitInternal = 1;

int usage() {
  std::cerr << "usage: memsim-calibrate --microbench RUN.json [--microbench RUN.json...] --base DEVICE|PROFILE.json\n"
               "                        [--out PROFILE.json] [--holdout] [--threads N] [--hold CONSTANT]...\n"
               "       memsim-calibrate --base DEVICE|PROFILE.json --holdout-validate SUITE.json [SUITE.json...]\n"
               "                        [--threads N]\n"
               "       memsim-calibrate --microbench RUN.json [...] --base DEVICE|PROFILE.json --predict-only\n";
  return kExitInput;
}

int usage_error(const std::string& msg) {
  std::cerr << "memsim-calibrate: " << msg << "\n";
  return usage();
}

// What the user gave is wrong: one line, exit 2 (main catches it).
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// --threads as memsim takes it: 0 (one per hardware thread) to 256, a whole number and nothing else.
int parse_threads(const std::string& text) {
  int v = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 0 || v > 256)
    throw InputError("--threads must be an integer from 0 to 256 (0: one per hardware thread), got '" + echo_text(text) + "'");
  return v;
}

// A base given as a path must be a file: a directory opens as a stream and fails only when read, with a
// message that names no path.
std::string base_path(const std::string& base) {
  std::string path;
  DeviceProfile profile;  // read once here, for the clear error of an unknown name and the register table's check
  if (base.find('/') != std::string::npos || (base.size() > 5 && base.substr(base.size() - 5) == ".json")) {
    std::error_code ec;
    if (std::filesystem::is_directory(base, ec)) throw InputError("device profile " + base + ": is a directory, not a JSON file");
    path = base;
    profile = load_profile_file(path);
  } else {
    profile = load_profile(base);
    path = device_dir() + "/" + base + ".json";
  }
  // A register table that names no kernel would leave that kernel's registers assumed, silently.
  if (const std::string key = unknown_kernel_register_key(profile.kernel_registers); !key.empty())
    throw InputError("device profile " + base + ": field 'kernel_registers." + key + "' names no kernel");
  return path;
}

// --out: a file name in a directory that exists and is writable, not a directory itself.
void check_out_path(const std::string& out) {
  namespace fs = std::filesystem;
  const fs::path path(out);
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::error_code ec;
  if (out.size() > 4096 || path.filename().string().size() > 255)
    throw InputError("--out " + echo_text(out) + ": the name is too long");
  if (fs::is_directory(path, ec)) throw InputError("--out " + echo_text(out) + ": is a directory, not a file to write");
  if (!fs::is_directory(dir, ec))
    throw InputError("--out " + echo_text(out) + ": no directory " + echo_text(dir.string()));
  if (access(dir.c_str(), W_OK) != 0)
    throw InputError("--out " + echo_text(out) + ": " + echo_text(dir.string()) + " is not writable");
}

// The profile as written, its keys in their order; load_profile_file has read it already, so it parses.
ordered_json read_ordered(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ProfileError("device profile " + path + ": cannot be read");
  return ordered_json::parse(in);
}

// The device facts the run measured replace the data sheet's (read_microbench checked each: a positive
// number, whole where the profile wants an integer).
void take_measured(ordered_json& prof, const json& dev) {
  auto set = [&](const char* a, const char* b, const char* key, bool integer = true) {
    if (!dev.contains(key)) return;
    const ordered_json v = integer ? ordered_json(int64_t(dev[key].get<double>())) : ordered_json(dev[key]);
    if (b) prof[a][b] = v;
    else prof[a] = v;
  };
  set("sm", "count", "sm_count");
  set("sm", "clock_mhz", "sm_clock_mhz", false);
  set("sm", "max_threads", "max_threads_per_sm");
  set("sm", "max_blocks", "max_blocks_per_sm");
  set("sm", "registers", "regs_per_sm");
  set("shared", "per_sm", "shared_per_sm");
  set("shared", "per_block", "shared_per_block");
  set("shared", "per_block_optin", "shared_per_block_optin");
  set("shared", "reserved_per_block", "reserved_shared_per_block");
  set("l2_bytes", nullptr, "l2_bytes");
  set("dram", "clock_mhz", "mem_clock_mhz", false);
  set("dram", "bus_width_bits", "bus_width_bits");
  if (dev.contains("mem_clock_mhz") && dev.contains("bus_width_bits"))
    prof["dram"]["peak_gbs"] = std::round(dev["mem_clock_mhz"].get<double>() * 2 * dev["bus_width_bits"].get<double>() / 8 / 1e3);
}

// Every run must be one the profile can predict: a block the device cannot hold (more threads, registers or
// shared memory than an SM has) has no occupancy, and its time would come out infinite.
void check_runs(const MicrobenchRun& run, const DeviceProfile& prof) {
  for (const Measurement& m : run.runs) {
    const Prediction p = predict(m.counts, prof);
    if (p.occupancy.blocks_per_sm <= 0)
      throw InputError(m.where + ": a block of " + std::to_string(m.counts.threads_per_block) + " threads, " +
                       std::to_string(m.counts.regs_per_thread) + " registers a thread and " +
                       std::to_string(m.counts.shared_bytes_per_block) + " bytes of shared memory cannot be resident on " +
                       prof.name + " (limit: " + p.occupancy.limiter + ")");
    if (!std::isfinite(p.time_us) || !(p.time_us > 0))
      throw InputError(m.where + ": its counts give no finite positive time on " + prof.name);
  }
}

// The hold-out records' launches, resolved before anything is fitted or written: a record the device cannot
// launch is an error in the run document, not a failure half-way through the report.
std::vector<LaunchConfig> holdout_launches(const MicrobenchRun& run, const DeviceProfile& prof) {
  std::vector<LaunchConfig> out;
  for (const HoldoutRecord& h : run.holdout) {
    UserConfig u;
    u.kernel = h.kernel;
    try {
      u.matrix = parse_size2(h.matrix, "matrix");
      u.block = parse_size2(h.block, "block");
      u.dtype = parse_dtype(h.dtype);
      out.push_back(resolve_launch(u, launch_limits(prof)));
    } catch (const ConfigError& e) {
      throw InputError(h.where + ": " + e.what());
    }
  }
  return out;
}

// Spearman's rho where a summary has 2 pairs or more; one pair has no rank order to correlate.
std::string rho_text(const std::vector<double>& pred, const std::vector<double>& meas) {
  const std::optional<double> rho = spearman_or_none(pred, meas);
  if (!rho) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", *rho);
  return buf;
}

std::string short_params(const json& p) {
  std::ostringstream os;
  for (const auto& [k, v] : p.items()) {
    if (k == "side" || k == "strided") continue;
    os << k.substr(0, 4) << "=" << (v.is_string() ? v.get<std::string>() : v.dump()) << " ";
  }
  return os.str();
}

void print_holdout(const MicrobenchRun& run, const std::vector<LaunchConfig>& launches, const DeviceProfile& prof,
                   int threads) {
  std::printf("\nHold-out: the suite's kernels as the run timed them (never fitted)\n");
  std::printf("  %-12s %-10s %-4s %-6s %10s %10s %8s  %s\n", "kernel", "matrix", "type", "block", "measured", "predicted",
              "error", "bottleneck");
  std::vector<double> pred, meas;
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> groups;
  for (size_t i = 0; i < run.holdout.size(); ++i) {
    const HoldoutRecord& h = run.holdout[i];
    PredictOptions po;
    po.regs_per_thread = h.regs_per_thread;
    po.occupancy = launch_occupancy(prof, launches[i], po.regs_per_thread);
    ReplayOptions ro;
    prepare_replay(ro, prof, launches[i], *po.occupancy);
    ro.threads = threads;
    const Prediction p = predict(replay(launches[i], ro), prof, po);
    const double err = 100 * (p.time_us - h.time_us) / h.time_us;
    std::printf("  %-12s %-10s %-4s %-6s %10.1f %10.1f %+7.1f%%  %s\n", h.kernel.c_str(), h.matrix.c_str(),
                h.dtype.c_str(), h.block.c_str(), h.time_us, p.time_us, err, p.bottleneck.c_str());
    pred.push_back(p.time_us);
    meas.push_back(h.time_us);
    auto& g = groups[h.matrix + " " + h.dtype + (h.block == "32x8" ? "" : " other blocks")];
    g.first.push_back(p.time_us);
    g.second.push_back(h.time_us);
  }
  if (pred.empty()) return;
  for (const auto& [name, g] : groups)
    std::printf("  %-28s n=%-3zu MAPE %5.1f%%  max %5.1f%%  Spearman %s\n", name.c_str(), g.first.size(),
                mape(g.first, g.second), max_ape(g.first, g.second), rho_text(g.first, g.second).c_str());
  std::printf("  %-28s n=%-3zu MAPE %5.1f%%  max %5.1f%%  Spearman %s\n", "all", pred.size(), mape(pred, meas),
              max_ape(pred, meas), rho_text(pred, meas).c_str());
}


struct Stat3 {
  size_t n;
  double mape, max;
  std::string rho;
};
Stat3 stat3(const std::vector<double>& p, const std::vector<double>& m) {
  return {p.size(), mape(p, m), max_ape(p, m), rho_text(p, m)};
}
void print_stat(const std::string& name, const Stat3& s) {
  std::printf("  %-34s n=%-4zu MAPE %5.1f%%  max %5.1f%%  Spearman %s\n", name.c_str(), s.n, s.mape, s.max, s.rho.c_str());
}

// The judged set: f32 at 4096x4096 and larger (8192x2048 included), f16 and f64 at 8192x8192, blocks 32x8,
// 16x16 and 8x32 (the runs at 16384x16384 also hold 32x32 blocks: not judged).
bool judged(int64_t w, int64_t h, const std::string& dtype, const std::string& block) {
  if (block != "32x8" && block != "16x16" && block != "8x32") return false;
  if (dtype == "f32") return w * h >= int64_t(4096) * 4096;
  return w == 8192 && h == 8192;
}

// A run's microbenchmarks against the profile as it is (no fit): how a new benchmark or a new run fits it.
int predict_only(const MicrobenchRun& run, const DeviceProfile& prof) {
  check_runs(run, prof);
  std::printf("Prediction by %s (no fit) of %s (%s), %zu microbenchmark runs\n", prof.name.c_str(),
              run.device.value("name", "?").c_str(), run.date.c_str(), run.runs.size());
  std::printf("  %-18s %-44s %10s %10s %8s  %s\n", "bench", "params", "measured", "predicted", "error", "bottleneck");
  std::vector<double> pred, meas;
  for (const Measurement& m : run.runs) {
    const Prediction p = predict(m.counts, prof);
    pred.push_back(p.time_us);
    meas.push_back(m.time_us);
    std::printf("  %-18s %-44s %10.2f %10.2f %+7.1f%%  %s\n", m.bench.c_str(), short_params(m.params).c_str(),
                m.time_us, p.time_us, 100 * (p.time_us - m.time_us) / m.time_us, p.bottleneck.c_str());
  }
  std::printf("MAPE %.1f%%, max %.1f%%\n", mape(pred, meas), max_ape(pred, meas));
  return 0;
}

// One suite configuration of the hold-out: its (matrix, dtype, block) group and its two times.
struct HoldoutRow {
  std::string group, dtype, block;
  bool judged;
  double pred, meas;
};

// Kernel pairs of each (matrix, dtype, block) group among the rows `keep` takes, ordered as measured or not,
// by how far apart they measured (stats.hpp, count_pair_order).
template <class Keep>
void print_pair_order(const std::vector<HoldoutRow>& rows, const std::string& name, Keep keep) {
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> groups;
  for (const HoldoutRow& r : rows)
    if (keep(r)) {
      groups[r.group].first.push_back(r.pred);
      groups[r.group].second.push_back(r.meas);
    }
  if (groups.empty()) return;
  std::vector<PairOrderBand> bands = pair_order_bands({0, 0.02, 0.05, 0.10, 0.25});
  for (const auto& [group, g] : groups) count_pair_order(g.first, g.second, bands);
  std::printf("\nKernel pairs of a (matrix, dtype, block) group predicted in the measured order, %s:\n", name.c_str());
  for (const PairOrderBand& b : bands) {
    char range[48];
    if (std::isinf(b.to))
      std::snprintf(range, sizeof range, "%g%% or more apart", 100 * b.from);
    else
      std::snprintf(range, sizeof range, "%g-%g%% apart", 100 * b.from, 100 * b.to);
    if (b.pairs == 0)
      std::printf("  %-22s   0 pairs\n", range);
    else
      std::printf("  %-22s %4ld pairs, %4ld in order (%5.1f%%)\n", range, b.pairs, b.agreeing,
                  100.0 * double(b.agreeing) / double(b.pairs));
  }
}

// Spearman within each (matrix, dtype, block) group among the rows `keep` takes (the kernels competing on the
// same work: docs/validation.md), summed up as its median and its lowest over the groups of 2 rows or more.
template <class Keep>
void print_group_spearman(const std::vector<HoldoutRow>& rows, const std::string& name, Keep keep) {
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> groups;
  for (const HoldoutRow& r : rows)
    if (keep(r)) {
      groups[r.group].first.push_back(r.pred);
      groups[r.group].second.push_back(r.meas);
    }
  std::vector<std::pair<double, std::string>> rhos;
  for (const auto& [group, g] : groups)
    if (const std::optional<double> rho = spearman_or_none(g.first, g.second)) rhos.emplace_back(*rho, group);
  if (rhos.empty()) return;
  std::sort(rhos.begin(), rhos.end());
  const size_t n = rhos.size();
  const double median = n % 2 ? rhos[n / 2].first : (rhos[n / 2 - 1].first + rhos[n / 2].first) / 2;
  std::printf("  %-34s %zu group%s, Spearman within a group: median %.3f, lowest %.3f (%s)\n", name.c_str(), n,
              n == 1 ? "" : "s", median, rhos.front().first, rhos.front().second.c_str());
}

int holdout_validate(const std::vector<std::string>& files, const DeviceProfile& prof, int threads) {
  using Row = HoldoutRow;
  // Every file read and every record's launch resolved before the first replay: a bad record stops the run
  // at once, not after minutes of report.
  struct Launch {
    SuiteRecord rec;
    LaunchConfig cfg;
  };
  std::vector<Launch> launches;
  for (const std::string& f : files) {
    for (SuiteRecord& r : read_suite_file(f)) {
      try {
        const LaunchConfig cfg = resolve_launch(r.config, launch_limits(prof));
        launches.push_back({std::move(r), cfg});
      } catch (const ConfigError& e) {
        throw InputError(r.where + ": config: " + e.what());
      }
    }
  }
  if (launches.empty()) throw InputError("no timed records in the hold-out files");
  std::vector<Row> rows;
  std::printf("Hold-out validation of profile %s (%s) against measured suite times\n", prof.name.c_str(),
              prof.calibrated ? "calibrated" : "not calibrated");
  std::printf("  %-12s %-10s %-4s %-6s %-6s %-4s %10s %10s %8s  %s\n", "kernel", "matrix", "type", "block", "tile", "pad",
              "measured", "predicted", "error", "bottleneck");
  for (const Launch& l : launches) {
    const UserConfig& u = l.rec.config;
    PredictOptions po;
    po.regs_per_thread = kernel_registers(prof, u.kernel, u.dtype);
    po.occupancy = launch_occupancy(prof, l.cfg, po.regs_per_thread);
    ReplayOptions ro;
    prepare_replay(ro, prof, l.cfg, *po.occupancy);
    ro.threads = threads;
    const Prediction p = predict(replay(l.cfg, ro), prof, po);
    const double meas = l.rec.time_us;
    const std::string matrix = format_size2(u.matrix), dtype = dtype_name(u.dtype), block = format_size2(u.block),
                      tile = format_size2(*u.tile);
    std::printf("  %-12s %-10s %-4s %-6s %-6s %-4d %10.1f %10.1f %+7.1f%%  %s\n", u.kernel.c_str(), matrix.c_str(),
                dtype.c_str(), block.c_str(), tile.c_str(), u.pad.value_or(0), meas, p.time_us,
                100 * (p.time_us - meas) / meas, p.bottleneck.c_str());
    rows.push_back({matrix + " " + dtype + " " + block, dtype, block, judged(u.matrix.x, u.matrix.y, dtype, block), p.time_us, meas});
  }
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> groups;
  std::pair<std::vector<double>, std::vector<double>> j32x8, jall, a32x8, aall;
  for (const Row& r : rows) {
    auto add = [&](std::pair<std::vector<double>, std::vector<double>>& g) {
      g.first.push_back(r.pred);
      g.second.push_back(r.meas);
    };
    add(groups[r.group]);
    add(aall);
    if (r.block == "32x8") add(a32x8);
    if (r.judged) {
      add(jall);
      if (r.block == "32x8") add(j32x8);
    }
  }
  std::printf("\nPer (matrix, dtype, block):\n");
  for (const auto& [name, g] : groups) print_stat(name, stat3(g.first, g.second));
  std::printf("\nJudged set (f32 at >= 4096x4096 incl. 8192x2048; f16/f64 at 8192x8192; blocks 32x8, 16x16, 8x32):\n");
  if (!j32x8.first.empty()) print_stat("judged, block 32x8", stat3(j32x8.first, j32x8.second));
  if (!jall.first.empty()) print_stat("judged, all blocks", stat3(jall.first, jall.second));
  print_group_spearman(rows, "judged, block 32x8", [](const Row& r) { return r.judged && r.block == "32x8"; });
  print_group_spearman(rows, "judged, all blocks", [](const Row& r) { return r.judged; });
  print_pair_order(rows, "judged, all blocks", [](const Row& r) { return r.judged; });
  print_pair_order(rows, "judged, block 32x8", [](const Row& r) { return r.judged && r.block == "32x8"; });
  std::printf("\nEvery record:\n");
  if (!a32x8.first.empty()) print_stat("all, block 32x8", stat3(a32x8.first, a32x8.second));
  print_stat("all, all blocks", stat3(aall.first, aall.second));
  return 0;
}

std::string joined(const std::vector<std::string>& paths) {
  std::string s;
  for (const std::string& p : paths) s += (s.empty() ? "" : " + ") + p;
  return s;
}

// The runs of every --microbench file, together: the first file's device, date and hold-out records, the
// others' runs after its own. Files from different devices are refused. For a fit, the runs left out
// (leave_split_sectors_out) go to `left_out`; without one, every run stays.
MicrobenchRun read_runs(const std::vector<std::string>& paths, std::vector<std::string>* left_out,
                        const DeviceProfile* prof = nullptr) {
  MicrobenchRun run = read_microbench_file(paths.front());
  for (size_t i = 1; i < paths.size(); ++i) {
    MicrobenchRun more = read_microbench_file(paths[i]);
    const std::string a = run.device.value("name", ""), b = more.device.value("name", "");
    if (a != b)
      throw InputError(paths[i] + ": measured on '" + b + "', not on '" + a + "' as " + paths.front() +
                       ": runs of one device only are fitted together");
    for (Measurement& m : more.runs) run.runs.push_back(std::move(m));
  }
  leave_4_byte_read_back_out(run.runs);
  if (left_out && prof) *left_out = leave_split_sectors_out(run.runs, *prof);
  // A fit or a prediction needs runs: a document whose runs are all marked WRONG (or has none) has nothing.
  if (run.runs.empty()) throw InputError(joined(paths) + ": no usable runs (none, or every one marked WRONG)");
  return run;
}

// One fit, its report and the profile it writes (--out).
int calibrate(const std::vector<std::string>& bench_paths, const std::string& base, const std::string& out,
              bool holdout, int threads, const std::vector<std::string>& hold) {
  const std::string bench_path = joined(bench_paths);
  // An output that cannot be written is said before anything is read or fitted, not after the fit's report.
  if (!out.empty()) check_out_path(out);
  // The base profile first: which split-sector runs describe the GPU depends on its occupancy.
  const std::string bp = base_path(base);
  const DeviceProfile base_prof = load_profile_file(bp);  // every error in the profile itself, named as such
  std::vector<std::string> left_out;
  const MicrobenchRun run = read_runs(bench_paths, &left_out, &base_prof);
  ordered_json prof_json = read_ordered(bp);
  take_measured(prof_json, run.device);
  // What the base profile accepts alone and refuses with the run's device facts is the run's doing.
  DeviceProfile prof = [&] {
    try {
      return profile_from_json(json::parse(prof_json.dump()), base_prof.name, bp);
    } catch (const ProfileError& e) {
      throw InputError(bench_path + ": the device facts it measured (field 'device') do not fit the base profile: " +
                       e.what());
    }
  }();
  check_runs(run, prof);
  const std::vector<LaunchConfig> launches = holdout ? holdout_launches(run, prof) : std::vector<LaunchConfig>{};

  const FitResult fit = [&] {
    try {
      return fit_constants(prof, run.runs, 200, hold);
    } catch (const FitError& e) {
      throw InputError(bench_path + ": the fit is refused: " + e.what());
    }
  }();
  prof.cost = fit.constants;
  std::vector<double> pred = fit.predicted_us, meas;
  std::printf("Calibration of %s on %s (%s), %zu microbenchmark runs\n", prof.name.c_str(),
              run.device.value("name", "?").c_str(), run.date.c_str(), run.runs.size());
  std::printf("  %-16s %-44s %10s %10s %8s\n", "bench", "params", "measured", "fitted", "error");
  for (size_t i = 0; i < run.runs.size(); ++i) {
    const Measurement& m = run.runs[i];
    meas.push_back(m.time_us);
    std::printf("  %-16s %-44s %10.2f %10.2f %+7.1f%%\n", m.bench.c_str(), short_params(m.params).c_str(), m.time_us,
                pred[i], 100 * (pred[i] - m.time_us) / m.time_us);
  }
  const CostConstants& c = fit.constants;
  std::printf("Fitted (rms log error %.3f, MAPE %.1f%%, %d iterations): dram_gbs %.0f, partial_store_ps %.2f/%.2f/%.2f, "
              "read_back ps_per_byte %.2f/%.2f/%.2f, l1_cycles_per_wavefront %.3f, latency_us %.3f, block_us %.4f, barrier_us %.4f, launch_us %.2f, overlap_p %.2f\n",
              fit.rms_log_error, mape(pred, meas), fit.iterations, c.dram_gbs, c.partial_store_ps[0],
              c.partial_store_ps[1], c.partial_store_ps[2], c.read_back_ps_per_byte[0], c.read_back_ps_per_byte[1],
              c.read_back_ps_per_byte[2], c.l1_cycles_per_wavefront, c.latency_us, c.block_us, c.barrier_us, c.launch_us,
              c.overlap_p);
  for (const std::string& h : fit.held)
    std::printf("  held at the profile's value (%s): %s\n",
                std::find(hold.begin(), hold.end(), h) != hold.end() ? "--hold" : "no measurement moves it", h.c_str());
  for (const std::string& l : left_out) std::printf("  left out of the fit: %s\n", l.c_str());
  // A constant the runs hardly determine is written (the fit is still the least-squares answer), but said on
  // stderr and in the profile's calibration block, so that no one reads it as measured.
  for (const std::string& w : fit.warnings) std::cerr << "memsim-calibrate: warning: " << bench_path << ": " << w << "\n";
  for (const HoldoutRecord& h : run.holdout)
    if (h.regs_per_thread > 0) prof_json["kernel_registers"][h.kernel + "/" + h.dtype] = h.regs_per_thread;
  ordered_json cost = prof_json["cost"];
  cost["note"] = "fitted by memsim-calibrate to the microbenchmarks (see calibration); held as the profile gave "
                 "them: l2_sector_ps (whole-sector L2 traffic never limits a microbenchmark), issue_per_cycle "
                 "(4 schedulers: the issue microbenchmarks reach 3.7-3.9 a cycle, and fitted freely it comes out "
                 "above 4, so it stays at the data sheet's peak), instructions_per_memory_op (the suite's bodies "
                 "as ncu counts them on sm_90); "
                 "instructions_per_warp and instructions_per_source_op: least squares of the copy kernel's "
                 "instruction counts (ncu smsp__inst_executed.sum, 18 configurations) on warps and the replay's "
                 "operations, lab/calibration/fit_instruction_estimate.py; instructions_per_division: nvcc "
                 "13.0's sm_90 sequences for a warp-uniform division by a kernel argument, counted in the SASS "
                 "(32-bit: 17; 64-bit operands with values below 2^32: 25, the 32-bit sequence behind a check "
                 "of the high words); read_back: from_lines, per_log_lines and ps_per_byte[0] (4-byte lanes) by "
                 "lab/calibration/fit_read_back.py on memsim-partial-lines' runs (validate/results/"
                 "partial_lines.json and .ncu.csv), sector_warp_factors by the same on its 4-, 8- and 16-byte "
                 "pieces (partial_lines_pieces and _spread), one_warp_factor held as the base profile gives it (its "
                 "text: docs/model.md, partly written lines), ps_per_byte[1] and [2] (8- and 16-byte lanes) fitted here "
                 "with the partial-store costs, on the strided stores at 1, 2, 4 and 8 blocks an SM "
                 "(validate/results/l2_partial_lines.md); next_store_merge (a rule, not fitted: the half-sector "
                 "pairs the L1 merges in small blocks) as the base profile gives it, its evidence beside it";
  // What the caller held (--hold) is the base's value, not a fit: said in the note that every refit writes.
  if (!hold.empty()) {
    std::string held;
    for (const std::string& h : hold) held += (held.empty() ? "" : ", ") + h;
    cost["note"] = cost["note"].get<std::string>() + "; held at the base profile's values on request (--hold): " + held;
  }
  cost["dram_gbs"] = c.dram_gbs;
  cost["l2_sector_ps"] = c.l2_sector_ps;
  cost["partial_store_ps"] = {c.partial_store_ps[0], c.partial_store_ps[1], c.partial_store_ps[2]};
  cost["read_back"]["ps_per_byte"] = {c.read_back_ps_per_byte[0], c.read_back_ps_per_byte[1],
                                      c.read_back_ps_per_byte[2]};
  cost["l1_cycles_per_wavefront"] = c.l1_cycles_per_wavefront;
  if (c.l2_write_slot_ps > 0) cost["l2_write_slot_ps"] = c.l2_write_slot_ps;
  if (c.scattered_read_ps_per_byte > 0) cost["scattered_read_ps_per_byte"] = c.scattered_read_ps_per_byte;
  if (c.scattered_write_ps_per_byte > 0) cost["scattered_write_ps_per_byte"] = c.scattered_write_ps_per_byte;
  if (c.split_sector_ps > 0) cost["split_sector_ps"] = c.split_sector_ps;
  if (c.split_sector_per_log2_distance > 0) cost["split_sector_per_log2_distance"] = c.split_sector_per_log2_distance;
  cost["latency_us"] = c.latency_us;
  if (c.l2_request_ns > 0) cost["l2_request_ns"] = c.l2_request_ns;
  cost["block_us"] = c.block_us;
  cost["barrier_us"] = c.barrier_us;
  cost["block_drain_rounds"] = c.block_drain_rounds;
  cost["block_launch_ns"] = c.block_launch_ns;
  cost["issue_per_cycle"] = c.issue_per_cycle;
  cost["instructions_per_memory_op"] = c.instructions_per_memory_op;
  cost["launch_us"] = c.launch_us;
  cost["overlap_p"] = c.overlap_p;
  prof_json["cost"] = cost;
  prof_json.erase("cost_basis");  // what the stand-ins were: the calibration block replaces it
  // A base calibrated on another GPU (a second GPU's first fit from the h100 profile) or a stand-in (a data-sheet
  // profile of the same GPU) lends its limits and the constants no microbenchmark here moves; the profile says
  // so, and that its device facts are this run's. A base calibrated on this GPU (a refit) keeps its texts.
  const std::string run_device = run.device.value("name", "");
  const std::string base_device =
      base_prof.calibrated && base_prof.calibration.is_object() ? base_prof.calibration.value("device", "") : "";
  if (base_device.empty() || base_device != run_device) {
    if (base_prof.calibrated && !run_device.empty()) prof_json["display_name"] = run_device;
    prof_json["source"] = "compute capability " + base_prof.compute_capability +
                          " limits (CUDA C Programming Guide, occupancy calculator granularities) as the base "
                          "profile " + base_prof.name + " gives them; SM count, clocks, L2, shared memory, DRAM clock "
                          "and bus width as cudaGetDeviceProperties reported them in the calibration run";
    const std::string whose = base_device.empty() ? " (not calibrated; its file says where its constants come from)"
                                                  : " (calibrated on " + base_device + ")";
    prof_json["cost"]["note"] = cost["note"].get<std::string>() + ". Base profile " + base_prof.name + whose +
                                ": the constants the fit holds, the 4-byte read-back cost and growth, the "
                                "instruction estimate and the long_wait and store_bursts thresholds are its, not "
                                "measured on " + (run_device.empty() ? std::string("this run's GPU") : run_device);
  } else {
    // A refit of a profile first fitted from another base: where its held constants come from still holds.
    const std::string base_note = base_prof.calibration.is_object() ? read_ordered(bp)["cost"].value("note", "") : "";
    const size_t from = base_note.find(". Base profile ");
    if (from != std::string::npos) prof_json["cost"]["note"] = cost["note"].get<std::string>() + base_note.substr(from);
  }
  prof_json["calibration"] = ordered_json{
      {"measurements", bench_path},
      {"base", base_prof.name},
      {"date", run.date},
      {"device", run.device.value("name", "")},
      {"driver_version", run.device.value("driver_version", 0)},
      {"runtime_version", run.device.value("runtime_version", 0)},
      {"method", "Levenberg-Marquardt least squares (Eigen) on log(predicted/measured time) over the "
                 "microbenchmark runs; the suite's hold-out times are not used"},
      {"runs", run.runs.size()},
      {"runs_left_out", left_out.size()},
      {"fitted", fit.fitted},
      {"held", fit.held},
      {"rms_log_error", fit.rms_log_error},
      {"mape_pct", mape(pred, meas)},
      {"max_error_pct", max_ape(pred, meas)},
  };
  if (!fit.warnings.empty()) prof_json["calibration"]["warnings"] = fit.warnings;
  // The fitted constants' fingerprint: a profile whose constants are edited after this no longer says
  // "calibrated" (model/profile.hpp).
  prof_json["calibration"]["constants_hash"] = cost_constants_hash(json::parse(prof_json["cost"].dump()));
  // The profile as written must read back (fit_constants refused anything non-finite or degenerate; this is
  // the last guard before a file others will predict with). A constant past its physical range is the fit's
  // doing, not the base profile's: the profile is named as fitted from the run.
  prof = profile_from_json(json::parse(prof_json.dump()), prof.name, "fitted from " + bench_path);
  if (!out.empty()) {
    // Whole or not at all: a profile half written would be read by every memsim after.
    if (const std::string why = write_file_atomically(out, prof_json.dump(2) + "\n"); !why.empty())
      throw InputError(echo_text(out) + ": cannot be written (" + why + ")");
    std::printf("wrote %s\n", out.c_str());
  }
  if (holdout) print_holdout(run, launches, prof, threads);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> bench_paths;
  std::string base, out;
  std::optional<std::string> threads_text;  // as given: "" is not "not given"
  bool holdout = false, only_predict = false;
  std::vector<std::string> validate_files, hold;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool takes_value = a == "--microbench" || a == "--base" || a == "--out" || a == "--threads" || a == "--hold";
    if (takes_value && i + 1 >= argc) return usage_error("option " + a + " needs a value");
    if (a == "--microbench") bench_paths.push_back(argv[++i]);
    else if (a == "--base") base = argv[++i];
    else if (a == "--out") out = argv[++i];
    else if (a == "--threads") threads_text = argv[++i];
    else if (a == "--hold") {
      const std::string name = argv[++i];
      std::string names;
      bool known = false;
      for (const FitParameter& f : fit_parameters()) {
        known = known || name == f.name;
        names += (names.empty() ? "" : ", ") + std::string(f.name);
      }
      if (!known) return usage_error("--hold '" + echo_text(name) + "': not a fitted constant (one of: " + names + ")");
      hold.push_back(name);
    }
    else if (a == "--holdout") holdout = true;
    else if (a == "--predict-only") only_predict = true;
    else if (a == "--holdout-validate") {
      while (i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0) validate_files.push_back(argv[++i]);
      if (validate_files.empty()) return usage_error("option --holdout-validate needs at least one file");
    } else return usage_error("unknown option '" + echo_text(a) + "'");
  }
  try {
    const int threads = threads_text ? parse_threads(*threads_text) : 0;
    if (!validate_files.empty()) {
      if (base.empty() || !bench_paths.empty()) return usage_error("--holdout-validate takes --base and no --microbench");
      if (!out.empty() || holdout || only_predict || !hold.empty())
        return usage_error("--out, --holdout, --hold and --predict-only go with --microbench, not --holdout-validate");
      return holdout_validate(validate_files, load_profile_file(base_path(base)), threads);
    }
    if (bench_paths.empty() || base.empty()) return usage();
    if (only_predict) {
      if (!out.empty() || holdout || !hold.empty())
        return usage_error("--predict-only fits nothing: --out, --holdout and --hold do not apply");
      const MicrobenchRun run = read_runs(bench_paths, nullptr);
      return predict_only(run, load_profile_file(base_path(base)));
    }
    return calibrate(bench_paths, base, out, holdout, threads, hold);
  } catch (const InputError& e) {
    std::cerr << "memsim-calibrate: " << e.what() << "\n";
    return kExitInput;
  } catch (const ProfileError& e) {  // a document or profile that is malformed, named with its field
    std::cerr << "memsim-calibrate: " << e.what() << "\n";
    return kExitInput;
  } catch (const ConfigError& e) {
    std::cerr << "memsim-calibrate: " << e.what() << "\n";
    return kExitInput;
  } catch (const std::bad_alloc&) {
    std::cerr << "memsim-calibrate: out of memory\n";
    return kExitInternal;
  } catch (const std::exception& e) {
    // A bug, not a user's mistake: every input was checked before use. Say so rather than abort.
    std::cerr << "memsim-calibrate: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
}
