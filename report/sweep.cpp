#include "report/sweep.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <iomanip>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <tuple>

#include "core/threads.hpp"
#include "model/cost.hpp"
#include "model/significant.hpp"
#include "report/metrics.hpp"
#include "report/report.hpp"

namespace memsim {

std::vector<std::string> split_list(const std::string& spec, const std::string& option) {
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    const size_t comma = spec.find(',', start);
    const std::string part = spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (part.empty()) throw ConfigError("empty element in " + option + " '" + spec + "' (values separated by commas)");
    parts.push_back(part);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return parts;
}

namespace {

std::string dims(Size2 s) { return format_size2(s); }

nlohmann::ordered_json size_json(Size2 s, const char* x, const char* y) { return {{x, s.x}, {y, s.y}}; }

// Where a configuration sits in the axes: the group (kernel, dtype, matrix) and its order.
std::tuple<std::string, int, int64_t, int64_t> group_key(const UserConfig& u) {
  return {u.kernel, int(u.dtype), u.matrix.x, u.matrix.y};
}

// "padded f32 2048x2048 block 32x8", and the tile and pad where the user gave them: a refusal's configuration.
std::string point_text(const UserConfig& u) {
  std::string s = u.kernel + " " + dtype_name(u.dtype) + " " + dims(u.matrix) + " block " + dims(u.block);
  if (u.tile) s += " tile " + dims(*u.tile);
  if (u.pad) s += " pad " + std::to_string(*u.pad);
  return s;
}

// "padded f32 2048x2048 block 32x8 tile 32x32 pad 1": a row's configuration as resolved.
std::string row_text(const SweepRow& r) {
  std::string s = r.point.user.kernel + " " + dtype_name(r.launch.dtype) + " " + dims(r.point.user.matrix) +
                  " block " + dims(r.point.user.block) + " tile " +
                  dims({r.launch.shape.tile_x, r.launch.shape.tile_y});
  if (r.launch.shared_bytes > 0) s += " pad " + std::to_string(r.launch.shape.pad);
  return s;
}

using M = MetricId;

// "15.79 us, 2125 GB/s, 70.7% of attainable, 108% of the copy kernel"
std::string figures(const SweepRow& r, const DeviceProfile& device) {
  std::string s =
      metric_with_unit(M::Time, r.time_us) + ", " + metric_with_unit(M::EffectiveBandwidth, r.effective_bandwidth_gbs);
  if (const auto fa = fraction_of_attainable(r.effective_bandwidth_gbs, device))
    s += ", " + metric_cell(M::FractionOfAttainable, *fa) + " of attainable";
  if (r.fraction_of_copy) s += ", " + metric_cell(M::FractionOfCopy, r.fraction_of_copy) + " of the copy kernel";
  return s;
}

nlohmann::ordered_json point_json(const UserConfig& u) {
  nlohmann::ordered_json j;
  j["kernel"] = u.kernel;
  j["dtype"] = dtype_name(u.dtype);
  j["matrix"] = size_json(u.matrix, "width", "height");
  j["block"] = size_json(u.block, "x", "y");
  j["tile"] = u.tile ? size_json(*u.tile, "x", "y") : nlohmann::ordered_json(nullptr);
  j["pad"] = u.pad ? nlohmann::ordered_json(*u.pad) : nlohmann::ordered_json(nullptr);
  return j;
}

nlohmann::ordered_json row_json(const SweepRow& r, const DeviceProfile& device) {
  nlohmann::ordered_json j;
  j["rank"] = r.rank;
  j["group_rank"] = r.group_rank;
  j["kernel"] = r.point.user.kernel;
  j["dtype"] = dtype_name(r.launch.dtype);
  j["matrix"] = size_json(r.point.user.matrix, "width", "height");
  j["block"] = size_json(r.point.user.block, "x", "y");
  j["tile"] = size_json({r.launch.shape.tile_x, r.launch.shape.tile_y}, "x", "y");
  j["pad"] = r.launch.shape.pad;
  j[metric(M::SharedBytesPerBlock).key] = r.launch.shared_bytes;
  j[metric(M::Time).key] = r.time_us;
  j[metric(M::EffectiveBandwidth).key] = r.effective_bandwidth_gbs;
  j[metric(M::FractionOfAttainable).key] = optional_json(fraction_of_attainable(r.effective_bandwidth_gbs, device));
  j[metric(M::FractionOfCopy).key] = optional_json(r.fraction_of_copy);
  j[metric(M::Bottleneck).key] = r.bottleneck;
  j[metric(M::BottleneckShare).key] = r.bottleneck_share;
  // As the prediction's JSON nests them (model/cost.cpp): the limiter under "occupancy", not occupancy_limiter.
  j["occupancy"] = {{metric(M::BlocksPerSm).key, r.blocks_per_sm},
                    {metric(M::WarpsPerSm).key, r.warps_per_sm},
                    {"limiter", r.occupancy_limiter},
                    {metric(M::RegistersPerThread).key, r.registers_per_thread}};
  j[metric(M::Instructions).key] = r.instructions;
  j[metric(M::InstructionsBasis).key] = r.instructions_basis;
  j["caveats"] = r.caveats;
  if (r.caveats_time_high > 0) j["caveats_time_high"] = r.caveats_time_high;
  return j;
}

// An axis as the header prints it: its values, or how many when they are many.
template <class T, class F>
std::string axis_text(const std::vector<T>& values, const char* what, F text) {
  if (values.size() > 4) return std::to_string(values.size()) + " " + what;
  std::string s;
  for (const T& v : values) s += (s.empty() ? "" : ",") + text(v);
  return s;
}

}  // namespace

const std::vector<Size2>& tuner_blocks() {
  // Warp-wide rows first (what the suite's kernels are written for), then the taller, the wider and the
  // smaller shapes tuners try; every one at most 1024 threads.
  static const std::vector<Size2> blocks = {{32, 8},  {16, 16}, {8, 32},  {32, 32}, {32, 4},  {32, 16},
                                            {64, 4},  {64, 8},  {64, 16}, {128, 4}, {128, 8}, {16, 8},
                                            {16, 32}, {8, 8},   {256, 1}, {32, 1}};
  return blocks;
}

bool is_list(const std::string& spec, bool all) {
  return (all && spec == "all") || spec.find(',') != std::string::npos;
}

std::vector<Size2> parse_size_list(const std::string& spec, const std::string& option, const std::vector<Size2>* all) {
  if (all && spec == "all") return *all;
  std::vector<Size2> values;
  for (const std::string& part : split_list(spec, option)) {
    if (part == "all")
      throw ConfigError(all ? option + " all stands alone (it names every usual shape); got '" + spec + "'"
                            : option + " takes WxH values, not 'all'; got '" + spec + "'");
    Size2 v;
    try {
      v = parse_size2(part, option);
    } catch (const ConfigError& e) {
      if (part == spec) throw;
      throw ConfigError(std::string(e.what()) + " in " + option + " '" + spec + "'");
    }
    if (std::find(values.begin(), values.end(), v) != values.end())
      throw ConfigError(dims(v) + " named twice in " + option + " '" + spec + "'");
    values.push_back(v);
  }
  return values;
}

std::vector<Dtype> parse_dtype_list(const std::string& spec) {
  std::vector<Dtype> values;
  for (const std::string& part : split_list(spec, "--dtype")) {
    Dtype d;
    try {
      d = parse_dtype(part);
    } catch (const ConfigError& e) {
      if (part == spec) throw;
      throw ConfigError(std::string(e.what()) + " in --dtype '" + spec + "'");
    }
    if (std::find(values.begin(), values.end(), d) != values.end())
      throw ConfigError(part + " named twice in --dtype '" + spec + "'");
    values.push_back(d);
  }
  return values;
}

int64_t sweep_size(const SweepAxes& a) {
  int64_t n = 1;
  for (const size_t k : {a.kernels.size(), a.dtypes.size(), a.matrices.size(), a.blocks.size(), a.tiles.size()}) {
    if (k == 0) throw ConfigError("a sweep needs at least one value on every axis");
    n *= int64_t(k);
    if (n > kMaxSweepConfigurations) break;  // no overflow: each axis is at most a command line long
  }
  if (n > kMaxSweepConfigurations) {
    // The whole product, for the message (each factor is small: the command line holds it).
    double total = 1;
    for (const size_t k : {a.kernels.size(), a.dtypes.size(), a.matrices.size(), a.blocks.size(), a.tiles.size()})
      total *= double(k);
    std::ostringstream os;
    os << "a sweep of " << std::fixed << std::setprecision(0) << total << " configurations (" << a.kernels.size()
       << " kernels x " << a.dtypes.size() << " dtypes x " << a.matrices.size() << " matrices x " << a.blocks.size()
       << " blocks x " << a.tiles.size() << " tiles) is more than " << kMaxSweepConfigurations
       << "; sweep fewer values at once";
    throw ConfigError(os.str());
  }
  return n;
}

SweepPlan expand_sweep(const SweepAxes& axes, const DeviceProfile& device, const AnalysisOptions& options) {
  sweep_size(axes);
  check_analysis_options(device, options);  // a wrong option is the command's mistake, not a configuration's
  SweepPlan plan;
  size_t index = 0;
  for (const std::string& kernel : axes.kernels)
    for (const Dtype dtype : axes.dtypes)
      for (const Size2& matrix : axes.matrices)
        for (const Size2& block : axes.blocks)
          for (const std::optional<Size2>& tile : axes.tiles) {
            SweepPoint p;
            p.index = index++;
            p.user.kernel = kernel;
            p.user.dtype = dtype;
            p.user.matrix = matrix;
            p.user.block = block;
            p.user.tile = tile;
            p.user.pad = axes.pad;
            try {
              const LaunchConfig launch = resolve_analysis(p.user, device, options);
              plan.launches.push_back({p, launch});
            } catch (const ConfigError& e) {
              plan.refused.push_back({p, e.what()});
            }
          }
  return plan;
}

std::string short_basis(const std::string& basis) {
  const auto starts = [&](const char* prefix) { return basis.rfind(prefix, 0) == 0; };
  if (starts(kBasisSass)) return basis.find("memsim ships") != std::string::npos ? "sass table" : "compiled";
  if (starts(kBasisCodeEstimate)) return "estimate";
  if (basis == kBasisCounted) return "counted";
  if (basis == kBasisOperations) return "ops";
  if (basis == kBasisMemoryRatio) return "ratio";
  if (basis == kBasisGiven) return "given";
  return basis;
}

namespace {

// Runs task(i) for i in [0, n) on `workers` threads, each taking the next index; after every task,
// done(finished) under one lock. The first exception a task throws (by index) is rethrown once all have run.
template <class Task, class Done>
void run_tasks(size_t n, int workers, Task&& task, Done&& done) {
  std::vector<std::exception_ptr> errors(n);
  std::atomic<size_t> next{0};
  std::mutex done_mutex;
  size_t finished = 0;
  const auto work = [&] {
    for (size_t i; (i = next++) < n;) {
      try {
        task(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(done_mutex);
      done(++finished);
    }
  };
  std::vector<std::thread> pool;
  for (int w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace

std::vector<SweepRow> analyse_sweep(const std::vector<SweepLaunch>& launches, const DeviceProfile& device,
                                    const AnalysisOptions& options, std::vector<SweepRefusal>& refused,
                                    const SweepProgress& progress) {
  // The configurations are independent, so they are analysed side by side: as many at once as there are
  // threads to use (AnalysisOptions::threads), each replay then on its share of them. The rows and the
  // refusals come out in launch order whatever the number of threads.
  const int threads = threads_to_use(options.threads);
  const int workers = int(std::max<size_t>(1, std::min<size_t>(size_t(threads), launches.size())));
  AnalysisOptions each = options;
  each.predict_copy = false;
  each.threads = std::max(1, threads / workers);
  // A replay's own progress, prefixed with where the sweep stands; only with one worker, where its lines
  // follow one another.
  const auto outer = options.progress;
  if (workers > 1) each.progress = nullptr;

  // The copy kernel once for each matrix, dtype and block, as a single run predicts it for its fraction of
  // copy (analyze); none where copy cannot run that launch (the comparison's habit).
  using CopyKey = std::tuple<int64_t, int64_t, int, int64_t, int64_t>;
  const auto copy_key = [](const UserConfig& u) {
    return std::make_tuple(u.matrix.x, u.matrix.y, int(u.dtype), u.block.x, u.block.y);
  };
  std::map<CopyKey, size_t> copy_index;  // into copy_users: the first launch that needs each
  std::vector<size_t> copy_users;
  for (size_t i = 0; i < launches.size(); ++i) {
    const UserConfig& u = launches[i].point.user;
    if (u.kernel != "copy" && copy_index.emplace(copy_key(u), copy_users.size()).second) copy_users.push_back(i);
  }

  // Every analysis, then every copy prediction: one list of tasks. A ConfigError is the configuration's
  // refusal; anything else is rethrown.
  std::vector<std::optional<Analysis>> analyses(launches.size());
  std::vector<std::string> refusals(launches.size());
  std::vector<std::optional<Prediction>> copies(copy_users.size());
  const size_t total = launches.size() + copy_users.size();
  // Told before each task on one worker (between a replay's own lines, which would hide a call after it), as
  // each finishes on several: done counts 0, 1, ... total either way.
  if (progress && workers > 1) progress("sweep", 0, int64_t(total));  // one stage: its rate gives the time left
  run_tasks(
      total, workers,
      [&](size_t t) {
        if (progress && workers == 1) progress("sweep", int64_t(t), int64_t(total));
        AnalysisOptions mine = each;
        if (t < launches.size()) {
          const UserConfig& u = launches[t].point.user;
          if (outer && workers == 1) {
            const std::string stage = "sweep, " + point_text(u);
            mine.progress = [&outer, stage](const std::string& what, int64_t done, int64_t of) {
              outer(stage + ": " + what, done, of);
            };
          }
          try {
            analyses[t] = analyze(u, device, mine);
          } catch (const ConfigError& e) {
            refusals[t] = e.what();
          }
        } else {
          try {
            const size_t c = t - launches.size();
            copies[c] = predict_copy(launches[copy_users[c]].point.user, device, mine);
          } catch (const ConfigError&) {
          }
        }
      },
      [&](size_t finished) {
        if (progress && workers > 1 && finished < total) progress("sweep", int64_t(finished), int64_t(total));
      });

  std::vector<SweepRow> rows;
  for (size_t i = 0; i < launches.size(); ++i) {
    if (!analyses[i]) {
      refused.push_back({launches[i].point, refusals[i]});
      continue;
    }
    const UserConfig& u = launches[i].point.user;
    const Analysis& a = *analyses[i];
    const Prediction& p = a.prediction;
    SweepRow r;
    r.point = launches[i].point;
    r.launch = a.config;
    r.time_us = p.time_us;
    r.effective_bandwidth_gbs = p.effective_bandwidth_gbs;
    if (u.kernel == "copy") {
      r.fraction_of_copy = 1.0;
    } else if (const std::optional<Prediction>& copy = copies[copy_index.at(copy_key(u))]) {
      r.fraction_of_copy = copy->time_us / p.time_us;
    }
    r.bottleneck = p.bottleneck;
    r.bottleneck_share = p.bottleneck_share();
    r.blocks_per_sm = p.occupancy.blocks_per_sm;
    r.warps_per_sm = p.occupancy.resident_warps();
    r.occupancy_limiter = p.occupancy.limiter;
    r.registers_per_thread = p.occupancy.regs_per_thread;
    r.instructions = p.instructions;
    r.instructions_basis = p.instructions_basis;
    r.caveats = p.caveats;
    r.caveats_time_high = p.caveats_time_high;
    rows.push_back(std::move(r));
  }
  if (progress) progress("sweep", int64_t(total), int64_t(total));
  return rows;
}

void rank_sweep(std::vector<SweepRow>& rows, std::vector<SweepRefusal>& refused) {
  // Within each (kernel, dtype, matrix) group: by time, then by place in the cross product.
  std::map<std::tuple<std::string, int, int64_t, int64_t>, std::vector<SweepRow*>> groups;
  for (SweepRow& r : rows) groups[group_key(r.point.user)].push_back(&r);
  for (auto& [key, members] : groups) {
    std::stable_sort(members.begin(), members.end(), [](const SweepRow* a, const SweepRow* b) {
      if (a->time_us != b->time_us) return a->time_us < b->time_us;
      return a->point.index < b->point.index;
    });
    for (size_t i = 0; i < members.size(); ++i) members[i]->group_rank = int64_t(i) + 1;
  }
  std::sort(rows.begin(), rows.end(), [](const SweepRow& a, const SweepRow& b) {
    if (a.effective_bandwidth_gbs != b.effective_bandwidth_gbs)
      return a.effective_bandwidth_gbs > b.effective_bandwidth_gbs;
    if (a.time_us != b.time_us) return a.time_us < b.time_us;
    return a.point.index < b.point.index;
  });
  for (size_t i = 0; i < rows.size(); ++i) rows[i].rank = int64_t(i) + 1;
  std::sort(refused.begin(), refused.end(),
            [](const SweepRefusal& a, const SweepRefusal& b) { return a.point.index < b.point.index; });
}

void compile_sweep(const SweepPlan& plan, const DeviceProfile& device, const AnalysisOptions& options,
                   const SweepProgress& progress) {
  std::vector<std::pair<UserConfig, LaunchConfig>> launches;
  for (const SweepLaunch& l : plan.launches) launches.push_back({l.point.user, l.launch});
  compile_launch_code(launches, device, options, true, [&progress](int done, int total) {
    if (progress) progress("compiling the configurations' code", done, total);
  });
}

SweepResult run_sweep(const SweepAxes& axes, const DeviceProfile& device, const AnalysisOptions& options,
                      const SweepProgress& progress) {
  SweepResult r;
  r.axes = axes;
  r.device = device;
  // Step 1: every configuration resolved (or refused) before anything is replayed.
  SweepPlan plan = expand_sweep(axes, device, options);
  // Step 1b: the code of every launch, and of the copy kernel each row's fraction of copy needs, compiled in
  // one batch of parallel nvcc runs (codegen/compiled_code.hpp), so that the analyses below read the cache.
  compile_sweep(plan, device, options, progress);
  // Step 2: each launch analysed as a single run would be.
  r.refused = std::move(plan.refused);
  r.rows = analyse_sweep(plan.launches, device, options, r.refused, progress);
  // Step 3.
  rank_sweep(r.rows, r.refused);
  return r;
}

std::vector<const SweepRow*> best_per_group(const SweepResult& r) {
  std::vector<const SweepRow*> best;
  for (const SweepRow& row : r.rows)
    if (row.group_rank == 1) best.push_back(&row);
  std::sort(best.begin(), best.end(),
            [](const SweepRow* a, const SweepRow* b) { return a->point.index < b->point.index; });
  return best;
}

NearFastest near_fastest(const SweepResult& r) {
  NearFastest out;
  const nlohmann::json& c = r.device.calibration;
  if (r.rows.empty() || !r.device.calibrated || !c.contains("heldout") || !c["heldout"].is_object() ||
      !c["heldout"].contains("mape_pct") || !c["heldout"]["mape_pct"].is_number())
    return out;
  out.band_pct = c["heldout"]["mape_pct"].get<double>();
  // Times compare within one dtype and matrix, whatever the kernel.
  const SweepRow& fastest = r.rows.front();
  const auto same_bytes = [&](const SweepRow& row) {
    return row.launch.dtype == fastest.launch.dtype && row.point.user.matrix == fastest.point.user.matrix;
  };
  for (const SweepRow& row : r.rows)
    if (same_bytes(row) && row.time_us <= fastest.time_us * (1 + out.band_pct / 100)) out.rows.push_back(&row);
  // memsim-validate runs the cross product of its lists with one tile and one pad: a command for each tile and pad
  // the rows were given (none: each block's default, as here) and each set of blocks, its kernels together.
  struct Command {
    std::string options;
    std::vector<std::string> blocks, kernels;
  };
  std::vector<Command> per_kernel;
  for (const SweepRow* row : out.rows) {
    const UserConfig& u = row->point.user;
    std::string options;
    if (u.tile) options += " --tile " + dims(*u.tile);
    if (u.pad) options += " --pad " + std::to_string(*u.pad);
    auto it = std::find_if(per_kernel.begin(), per_kernel.end(), [&](const Command& k) {
      return k.options == options && k.kernels.front() == u.kernel;
    });
    if (it == per_kernel.end()) it = per_kernel.insert(per_kernel.end(), Command{options, {}, {u.kernel}});
    it->blocks.push_back(dims(u.block));
  }
  std::vector<Command> merged;
  for (const Command& k : per_kernel) {
    auto it = std::find_if(merged.begin(), merged.end(),
                           [&](const Command& m) { return m.options == k.options && m.blocks == k.blocks; });
    if (it == merged.end()) merged.push_back(k);
    else it->kernels.push_back(k.kernels.front());
  }
  const auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& x : v) s += (s.empty() ? "" : ",") + x;
    return s;
  };
  // memsim-validate predicts beside each run with h100 unless told the sweep's profile.
  const std::string profile = r.device.name.empty() || r.device.name == "h100" ? "" : " --profile " + r.device.name;
  for (const Command& m : merged)
    out.commands.push_back("memsim-validate --kernels " + join(m.kernels) + " --dtypes " +
                           dtype_name(fastest.launch.dtype) + " --matrices " + dims(fastest.point.user.matrix) +
                           " --blocks " + join(m.blocks) + m.options + profile);
  return out;
}

nlohmann::ordered_json sweep_json(const SweepResult& r) {
  nlohmann::ordered_json sweep;
  const SweepAxes& a = r.axes;
  sweep["kernels"] = a.kernels;
  sweep["dtypes"] = nlohmann::ordered_json::array();
  for (const Dtype d : a.dtypes) sweep["dtypes"].push_back(dtype_name(d));
  sweep["matrices"] = nlohmann::ordered_json::array();
  for (const Size2& m : a.matrices) sweep["matrices"].push_back(size_json(m, "width", "height"));
  sweep["blocks"] = nlohmann::ordered_json::array();
  for (const Size2& b : a.blocks) sweep["blocks"].push_back(size_json(b, "x", "y"));
  sweep["tiles"] = nlohmann::ordered_json::array();
  for (const auto& t : a.tiles) sweep["tiles"].push_back(t ? size_json(*t, "x", "y") : nlohmann::ordered_json(nullptr));
  sweep["pad"] = a.pad ? nlohmann::ordered_json(*a.pad) : nlohmann::ordered_json(nullptr);
  sweep["device"] = provenance_json(r.device);
  sweep["configurations"] = r.rows.size() + r.refused.size();
  sweep["analysed"] = r.rows.size();
  sweep["refused"] = r.refused.size();
  sweep["ranking"] =
      "rank: by effective bandwidth, highest first (within one matrix and dtype, fastest first); group_rank: by "
      "time within each (kernel, dtype, matrix)";

  nlohmann::ordered_json out;
  out["sweep"] = sweep;
  out["rows"] = nlohmann::ordered_json::array();
  for (const SweepRow& row : r.rows) out["rows"].push_back(row_json(row, r.device));
  out["refused"] = nlohmann::ordered_json::array();
  for (const SweepRefusal& x : r.refused) {
    nlohmann::ordered_json j = point_json(x.point.user);
    j["reason"] = x.reason;
    out["refused"].push_back(j);
  }
  nlohmann::ordered_json best;
  best["overall"] = r.rows.empty() ? nlohmann::ordered_json(nullptr) : row_json(r.rows.front(), r.device);
  best["per_group"] = nlohmann::ordered_json::array();
  for (const SweepRow* row : best_per_group(r)) best["per_group"].push_back(row_json(*row, r.device));
  const NearFastest near = near_fastest(r);
  if (near.band_pct > 0) {
    nlohmann::ordered_json n;
    n["band_pct"] = near.band_pct;
    n["band"] = "the profile's MAPE on its held-out configurations: rows of the fastest's dtype and matrix "
                "predicted this close to it are too close for the model to order";
    n["configurations"] = nlohmann::ordered_json::array();
    for (const SweepRow* row : near.rows) n["configurations"].push_back(row_text(*row));
    n["memsim_validate"] = near.commands;
    best["near_fastest"] = n;
  } else {
    best["near_fastest"] = nullptr;
  }
  out["best"] = best;
  return out;
}

void print_sweep(std::ostream& os, const SweepResult& r) {
  const SweepAxes& a = r.axes;
  const auto size_text = [](Size2 s) { return dims(s); };
  os << "memsim: sweep of " << r.rows.size() + r.refused.size() << " configurations  kernel "
     << axis_text(a.kernels, "kernels", [](const std::string& k) { return k; }) << "  dtype "
     << axis_text(a.dtypes, "dtypes", [](Dtype d) { return std::string(dtype_name(d)); }) << "  matrix "
     << axis_text(a.matrices, "matrices", size_text) << "  block " << axis_text(a.blocks, "shapes", size_text)
     << "  tile " << axis_text(a.tiles, "tiles", [](const std::optional<Size2>& t) {
          return t ? dims(*t) : std::string("default");
        });
  if (a.pad) os << "  pad " << *a.pad;
  os << "\n";
  os << device_heading(r.device);

  // One matrix and dtype: every row moves the same bytes, and the bandwidth's order is the time's.
  const bool same_bytes = a.dtypes.size() == 1 && a.matrices.size() == 1;
  const bool one_group = best_per_group(r).size() <= 1;
  os << "  " << r.rows.size() << " analysed, " << r.refused.size() << " refused; "
     << (same_bytes ? "fastest first"
                    : "ranked by effective bandwidth, highest first (within one dtype and matrix: fastest first)");
  if (!one_group) os << "; in group: the rank within its kernel, dtype and matrix";
  os << "\n";

  // The cells, then the widths they need.
  std::vector<std::string> header = {"rank"};
  if (!one_group) header.push_back("in group");
  for (const char* h : {"kernel", "dtype", "matrix", "block", "tile", "pad"}) header.push_back(h);
  for (const MetricId id : {M::Time, M::EffectiveBandwidth, M::FractionOfAttainable, M::FractionOfCopy, M::BlocksPerSm,
                            M::WarpsPerSm, M::RegistersPerThread, M::SharedBytesPerBlock, M::InstructionsBasis,
                            M::Bottleneck})
    header.push_back(metric(id).label);
  const size_t text_from = one_group ? 1 : 2;  // kernel .. pad are left-aligned, as is the bottleneck
  const bool any_caveat =
      std::any_of(r.rows.begin(), r.rows.end(), [](const SweepRow& row) { return !row.caveats.empty(); });
  std::vector<std::vector<std::string>> cells;
  for (const SweepRow& row : r.rows) {
    std::vector<std::string> c = {std::to_string(row.rank)};
    if (!one_group) c.push_back(std::to_string(row.group_rank));
    c.push_back(row.point.user.kernel);
    c.push_back(dtype_name(row.launch.dtype));
    c.push_back(dims(row.point.user.matrix));
    c.push_back(dims(row.point.user.block));
    c.push_back(dims({row.launch.shape.tile_x, row.launch.shape.tile_y}));
    c.push_back(row.launch.shared_bytes > 0 ? std::to_string(row.launch.shape.pad) : "-");
    c.push_back(metric_cell(M::Time, row.time_us) + (!any_caveat ? "" : row.caveats.empty() ? " " : "*"));
    c.push_back(metric_cell(M::EffectiveBandwidth, row.effective_bandwidth_gbs));
    c.push_back(metric_cell(M::FractionOfAttainable, fraction_of_attainable(row.effective_bandwidth_gbs, r.device)));
    c.push_back(metric_cell(M::FractionOfCopy, row.fraction_of_copy));
    c.push_back(metric_cell(M::BlocksPerSm, row.blocks_per_sm));
    c.push_back(metric_cell(M::WarpsPerSm, row.warps_per_sm));
    c.push_back(metric_cell(M::RegistersPerThread, row.registers_per_thread));
    c.push_back(metric_cell(M::SharedBytesPerBlock, double(row.launch.shared_bytes)));
    c.push_back(short_basis(row.instructions_basis));
    c.push_back(bottleneck_cell(row.bottleneck, row.bottleneck_share));
    cells.push_back(std::move(c));
  }
  std::vector<size_t> width(header.size());
  for (size_t i = 0; i < header.size(); ++i) {
    width[i] = header[i].size();
    for (const auto& c : cells) width[i] = std::max(width[i], c[i].size());
  }
  const auto print_row = [&](const std::vector<std::string>& c) {
    std::string line;
    for (size_t i = 0; i < c.size(); ++i) {
      const bool left = (i >= text_from && i < text_from + 6) || i + 1 == c.size();
      const std::string fill(width[i] - c[i].size(), ' ');
      line += (i ? "  " : "") + (left ? c[i] + (i + 1 == c.size() ? "" : fill) : fill + c[i]);
    }
    os << line << "\n";
  };
  os << "\n";
  print_row(header);
  for (const auto& c : cells) print_row(c);
  os << "  " << attainable_legend(r.device)
     << "\n  of copy k: the suite's copy kernel's time at the same matrix, dtype and block over this one\n"
     << "  blk/SM, warps/SM: resident on an SM at once; instr: what the instruction count is based on (docs/cli.md)\n";
  if (any_caveat)
    os << "  *: the prediction carries a caveat (a cost it leaves out, or a regime where it is known to run low); "
          "memsim with that configuration alone prints it\n";

  if (!r.refused.empty()) {
    os << "\nRefused (" << r.refused.size() << ")\n";
    for (const SweepRefusal& x : r.refused) os << "  " << point_text(x.point.user) << ": " << x.reason << "\n";
  }
  if (!one_group) {
    os << "\nFastest in each group (kernel, dtype, matrix)\n";
    for (const SweepRow* row : best_per_group(r))
      os << "  " << row_text(*row) << ": " << figures(*row, r.device) << (row->caveats.empty() ? "" : " *") << "\n";
  }
  os << "\n";
  if (r.rows.empty()) {
    os << "fastest: none (every configuration was refused)\n";
    return;
  }
  const SweepRow& fastest = r.rows.front();
  os << "fastest: " << row_text(fastest) << ": " << figures(fastest, r.device)
     << (same_bytes ? "" : " (the highest effective bandwidth)") << "\n";
  if (fastest.may_be_slower()) {
    // A pick whose time is likely low may not be the fastest: the first the model has no doubt about (a caveat
    // that the time is likely high leaves none).
    const auto sure =
        std::find_if(r.rows.begin(), r.rows.end(), [](const SweepRow& row) { return !row.may_be_slower(); });
    const bool one = fastest.caveats.size() == 1;
    os << "  * its prediction carries " << fastest.caveats.size() << (one ? " caveat" : " caveats")
       << " (memsim with that configuration alone prints " << (one ? "it" : "them") << "); ";
    if (sure == r.rows.end())
      os << "so does every other row's\n";
    else
      os << "the fastest without one: " << row_text(*sure) << ": " << figures(*sure, r.device) << "\n";
  }
  const NearFastest near = near_fastest(r);
  if (near.rows.size() > 1) {
    // The block alone where each row has its block's default tile, else block/tile as the table gives them.
    const bool tiles_given = std::any_of(near.rows.begin(), near.rows.end(),
                                         [](const SweepRow* row) { return row->point.user.tile.has_value(); });
    const bool kernels_differ = std::any_of(near.rows.begin(), near.rows.end(), [&](const SweepRow* row) {
      return row->point.user.kernel != near.rows.front()->point.user.kernel;
    });
    std::string listed;
    for (const SweepRow* row : near.rows)
      listed += (listed.empty() ? "" : ", ") + (kernels_differ ? row->point.user.kernel + " " : std::string()) +
                dims(row->point.user.block) +
                (tiles_given ? "/" + dims({row->launch.shape.tile_x, row->launch.shape.tile_y}) : "");
    os << "  within " << significant(near.band_pct, 2) << "% of it (the profile's held-out MAPE: too close for the "
       << "model to order): " << near.rows.size() << " configurations, " << (kernels_differ ? "" : "blocks ")
       << listed << "\n"
       << "  to time them on a GPU:";
    for (const std::string& c : near.commands) os << (near.commands.size() > 1 ? "\n    " : " ") << c;
    os << "\n";
  }
}

void print_sweep_csv(std::ostream& os, const SweepResult& r) {
  // The prediction's columns under their JSON keys (report/metrics.hpp), between the configuration's and the
  // reason a configuration is refused.
  constexpr MetricId kFigures[] = {M::Time,       M::EffectiveBandwidth, M::FractionOfAttainable, M::FractionOfCopy,
                                   M::Bottleneck, M::BottleneckShare,   M::BlocksPerSm,          M::WarpsPerSm,
                                   M::OccupancyLimiter, M::RegistersPerThread, M::Instructions, M::InstructionsBasis};
  std::vector<std::string> header = {"rank", "group_rank", "kernel", "dtype", "matrix", "block", "tile", "pad",
                                     metric(M::SharedBytesPerBlock).key};
  for (const MetricId id : kFigures) header.push_back(metric(id).key);
  header.push_back("caveats");  // how many the prediction carries (the JSON rows hold their texts)
  header.push_back("refused");
  csv_row(os, header);
  const auto number = [](double v) { return nlohmann::ordered_json(v).dump(); };
  const auto optional_number = [&](const std::optional<double>& v) { return v ? number(*v) : std::string(); };
  for (const SweepRow& row : r.rows)
    csv_row(os, {std::to_string(row.rank), std::to_string(row.group_rank), row.point.user.kernel,
                 dtype_name(row.launch.dtype), dims(row.point.user.matrix), dims(row.point.user.block),
                 dims({row.launch.shape.tile_x, row.launch.shape.tile_y}), std::to_string(row.launch.shape.pad),
                 std::to_string(row.launch.shared_bytes), number(row.time_us), number(row.effective_bandwidth_gbs),
                 optional_number(fraction_of_attainable(row.effective_bandwidth_gbs, r.device)),
                 optional_number(row.fraction_of_copy), row.bottleneck, number(row.bottleneck_share),
                 std::to_string(row.blocks_per_sm), std::to_string(row.warps_per_sm), row.occupancy_limiter,
                 std::to_string(row.registers_per_thread), number(row.instructions), row.instructions_basis, std::to_string(row.caveats.size()), ""});
  for (const SweepRefusal& x : r.refused) {
    const UserConfig& u = x.point.user;
    std::vector<std::string> fields = {"", "", u.kernel, dtype_name(u.dtype), dims(u.matrix), dims(u.block),
                                       u.tile ? dims(*u.tile) : "", u.pad ? std::to_string(*u.pad) : "", ""};
    fields.resize(fields.size() + std::size(kFigures) + 1);  // no figures, no caveats
    fields.push_back(x.reason);
    csv_row(os, fields);
  }
}

}  // namespace memsim
