#include "validate/report.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <optional>
#include <sstream>

#include "codegen/kernel_file.hpp"
#include "report/report.hpp"
#include "model/json_fields.hpp"
#include "model/stats.hpp"
#include "validate/ncu.hpp"

namespace memsim::validate {

using Json = nlohmann::ordered_json;

namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

std::optional<Tolerance> tolerance_for(const std::string& metric) {
  Tolerance t;
  if (starts_with(metric, "l1tex__t_requests_pipe_lsu_mem_global") ||
      starts_with(metric, "l1tex__t_sectors_pipe_lsu_mem_global")) {
    t.why = "a warp instruction's requests and sectors follow from its addresses alone";
    return t;
  }
  if (starts_with(metric, "smsp__inst_executed_op_shared")) {
    // The hardware counts a warp's shared instruction even when all its lanes are predicated off (where the
    // compiler predicates rather than branches); memsim counts those with an active lane.
    t.bounded = true;
    t.why = "between memsim's count (instructions with an active lane) and the warp instructions reached "
            "(all-off instructions too), which the hardware issues where the compiler predicates";
    return t;
  }
  if (starts_with(metric, "l1tex__data_pipe_lsu_wavefronts_mem_lgds")) {
    // The replay's passes (sim/global_sectors.hpp: per lane group, the most words one L1 bank delivers, at least
    // a pass for every 4 lines) are the floor; the H100 counts 1.00-1.23x that over the suite and the held-out
    // sweeps (validate/results/l1_wavefronts.md), the excess, as for shared wavefronts, depending on timing
    // rather than addresses. Column walks at ragged sizes count up to 2.2x (the same file).
    t.exact = false;
    t.below = 0.01;
    t.above = 0.30;
    t.reference = "predicted global wavefronts";
    t.why = "hardware counts global data-stage wavefronts 1-25% above the passes the L1's banks need";
    return t;
  }
  const bool wavefronts = starts_with(metric, "l1tex__data_pipe_lsu_wavefronts_mem_shared");
  const bool conflicts = starts_with(metric, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared");
  if (!wavefronts && !conflicts) return std::nullopt;
  const bool store = metric.find("_op_st") != std::string::npos;
  t.exact = false;
  t.below = 0.01;
  // The hardware counts shared wavefronts a little above the address-level count, for conflict-free access
  // patterns too, and reports the excess as "bank conflicts": shared memory and the L1 cache share the L1TEX
  // data banks, and an access that loses arbitration to other traffic (global loads filling L1, other warps'
  // accesses) takes another wavefront. The excess depends on timing, not on the addresses: it appears on
  // conflict-free patterns, is steady across matrix sizes, and vanishes on small grids (1001x777). On the
  // H100 (validate/results/) loads read 0..+15.6% above memsim and stores 0..+8.4% with the kernels of
  // b7f3fca; seed 002 saw stores +17% and +22% on another GPU. With the division-free tile walks (f5d48e3)
  // the kernels run faster and the load excess grew to +18..+20% (copy_shared 16x16 f32 +18.9%, 8x32 f64
  // +20.3%, conflict-free both), so both bands are +25%. memsim-smem-traffic-probe (lab/studies/smem_traffic)
  // measured it directly on an H200: the same conflict-free drain takes 1.004 wavefronts a load alone and 1.12
  // beside global loads and stores; held-out set l's 16x10 blocks on 80-wide tiles, at 28 KiB of L1, reached
  // +28..+31%, outside the band (lab/heldout/README.md, set l).
  t.above = 0.25;
  t.reference = std::string("predicted ") + (store ? "store" : "load") + " wavefronts";
  t.why = store ? "hardware counts shared-store wavefronts above the address-level count (L1TEX data-bank "
                  "arbitration with other traffic); seed 002 saw +17..22% on an older GPU"
                : "hardware counts shared-load wavefronts above the address-level count (L1TEX data-bank "
                  "arbitration with other traffic): up to +20% on the H100 for conflict-free patterns";
  return t;
}

Json tolerances_json() {
  Json j = Json::object();
  for (const std::string& m : ncu_metric_list()) {
    const std::optional<Tolerance> t = tolerance_for(m);
    if (!t) continue;
    if (t->bounded)
      j[m] = {{"kind", "bounded"}, {"lower", "predicted"}, {"upper", "upper_bound (warp instructions reached)"},
              {"why", t->why}};
    else if (t->exact)
      j[m] = {{"kind", "exact"}, {"why", t->why}};
    else
      j[m] = {{"kind", "relative"}, {"below", t->below}, {"above", t->above}, {"of", t->reference}, {"why", t->why}};
  }
  return j;
}

namespace {

const GroupResult* group_of(const RunResult& run, const LaunchConfig& cfg) {
  for (const GroupResult& g : run.groups)
    if (g.matrix == Size2{cfg.shape.width, cfg.shape.height} && g.dtype == cfg.dtype) return &g;
  return nullptr;
}

const Baseline* baseline(const GroupResult* g, const std::string& name) {
  if (!g) return nullptr;
  for (const Baseline& b : g->baselines)
    if (b.name == name && b.available && b.timing) return &b;
  return nullptr;
}

// median: of the rounds' medians; min and max: over every launch of every round; round_medians: each round's
// median, and round_median_min/max their spread (validate/measure.hpp combine_rounds).
Json timing_json(const TimingStats& t, int64_t matrix_bytes) {
  const std::vector<double> rounds = t.round_medians.empty() ? std::vector<double>{t.median_us} : t.round_medians;
  return {{"median", t.median_us},
          {"min", t.min_us},
          {"max", t.max_us},
          {"reps", t.reps},
          {"buffer_pairs", t.buffers},
          {"rounds", rounds.size()},
          {"round_medians", rounds},
          {"round_median_min", *std::min_element(rounds.begin(), rounds.end())},
          {"round_median_max", *std::max_element(rounds.begin(), rounds.end())},
          {"effective_bandwidth_gbs", effective_bandwidth_gbs(matrix_bytes, t.median_us)},
          {"effective_bandwidth_gbs_best", effective_bandwidth_gbs(matrix_bytes, t.min_us)}};
}

Json check_json(const OutputCheck& c, OutputKind kind) {
  Json j{{"reference", output_kind_name(kind)},
         {"elements", c.elements},
         {"mismatches", c.mismatches},
         {"unwritten", c.unwritten},
         {"passed", c.passed()}};
  j["first_mismatch"] = c.passed() ? Json(nullptr)
                                   : Json{{"row", c.first_row}, {"col", c.first_col}, {"got_bits", c.first_got},
                                          {"want_bits", c.first_want}};
  j["detail"] = c.describe();
  return j;
}

Json ratio(double num, const Baseline* b, int64_t matrix_bytes) {
  if (!b) return nullptr;
  const double base = effective_bandwidth_gbs(matrix_bytes, b->timing->median_us);
  return base > 0 ? Json(num / base) : Json(nullptr);
}

int64_t predicted_value(const ConfigResult& r, const std::string& name, bool& found) {
  for (const Metric& m : r.predicted)
    if (m.name == name) {
      found = true;
      return m.value;
    }
  found = false;
  return 0;
}

// The traffic a kernel cannot avoid: every input byte read and every output byte written once.
std::optional<double> compulsory(const std::string& metric, int64_t matrix_bytes) {
  if (metric == "lts__t_sectors_srcunit_tex_op_read.sum" || metric == "lts__t_sectors_srcunit_tex_op_write.sum")
    return double(matrix_bytes) / 32.0;
  if (metric == "dram__bytes_read.sum" || metric == "dram__bytes_write.sum") return double(matrix_bytes);
  return std::nullopt;
}

Json metric_json(const ConfigResult& r, const std::string& name, int64_t matrix_bytes) {
  bool has_pred = false;
  const int64_t pred = predicted_value(r, name, has_pred);
  const auto it = r.measured.find(name);
  const bool has_meas = it != r.measured.end();
  Json j;
  j["predicted"] = has_pred ? Json(pred) : Json(nullptr);
  j["measured"] = has_meas ? Json(it->second) : Json(nullptr);
  const std::optional<Tolerance> tol = tolerance_for(name);
  if (has_pred && has_meas) {
    const double diff = it->second - double(pred);
    j["abs_error"] = diff;
    double ref = double(pred);
    if (tol && !tol->exact && name.find("bank_conflicts") != std::string::npos) {
      // Conflicts are wavefronts above the ideal: their error is measured against the wavefronts.
      bool found = false;
      const std::string wf = name.find("_op_st") != std::string::npos
                                 ? "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
                                 : "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
      ref = double(predicted_value(r, wf, found));
    }
    j["rel_error"] = ref != 0 ? Json(diff / ref) : (diff == 0 ? Json(0.0) : Json(nullptr));
    const auto upper = r.upper_bounds.find(name);
    if (tol && tol->bounded && upper != r.upper_bounds.end()) j["upper_bound"] = upper->second;
    if (tol) {
      bool ok = false;
      if (tol->bounded && upper != r.upper_bounds.end())
        ok = diff >= 0 && it->second <= double(upper->second);
      else if (tol->exact)
        ok = diff == 0;
      else if (ref != 0)
        ok = diff / ref >= -tol->below && diff / ref <= tol->above;
      else
        ok = diff == 0;
      if (tol->bounded && upper != r.upper_bounds.end())
        j["tolerance"] = "predicted <= measured <= " + std::to_string(upper->second);
      else if (tol->exact)
        j["tolerance"] = "exact";
      else
        j["tolerance"] = tol->reference + " -" + std::to_string(int(100 * tol->below)) + "%/+" +
                         std::to_string(int(100 * tol->above)) + "%";
      j["within_tolerance"] = ok;
    }
  }
  if (const std::optional<double> c = compulsory(name, matrix_bytes)) {
    j["compulsory"] = *c;
    if (has_meas) j["ratio_to_compulsory"] = it->second / *c;
  }
  return j;
}

Json model_json(const ConfigResult& r, int64_t matrix_bytes, const Baseline* copy, const Baseline* geam) {
  // Nulls where no time was predicted (--check-only runs measure nothing to put it beside).
  if (!r.model)
    return {{"time_us", nullptr},
            {"effective_bandwidth_gbs", nullptr},
            {"fraction_of_copy_kernel", nullptr},
            {"fraction_of_cublas", nullptr},
            {"bottleneck", nullptr},
            {"model", nullptr}};
  const double bw = r.model->effective_bandwidth_gbs;
  return {{"time_us", r.model->time_us},
          {"effective_bandwidth_gbs", bw},
          {"fraction_of_copy_kernel", ratio(bw, copy, matrix_bytes)},
          {"fraction_of_cublas", ratio(bw, geam, matrix_bytes)},
          {"bottleneck", r.model->bottleneck},
          {"model", r.model->model}};
}

// The hand-written reference of a configuration's kernel and block in its group, if one ran.
const Baseline* reference_of(const GroupResult* g, const LaunchConfig& cfg) {
  if (!g) return nullptr;
  for (const Baseline& b : g->baselines)
    if (b.reference_of == cfg.kernel->name && b.block_x == cfg.shape.block_x && b.block_y == cfg.shape.block_y &&
        b.available && b.timing)
      return &b;
  return nullptr;
}

constexpr const char* kInstructions = "smsp__inst_executed.sum";

Json record_json(const RunResult& run, const ConfigResult& r) {
  const GroupResult* g = group_of(run, r.cfg);
  const int64_t bytes = r.cfg.elements() * dtype_bytes(r.cfg.dtype);
  const Baseline* copy = baseline(g, "copy_kernel");
  const Baseline* geam = baseline(g, "cublas_geam");
  const Baseline* memcpy_b = baseline(g, "cudaMemcpy_d2d");
  const Baseline* ref = reference_of(g, r.cfg);
  Json j;
  j["id"] = config_label(r.cfg);
  j["config"] = config_json(r.cfg);
  j["config"]["output"] = output_kind_name(r.cfg.kernel->output);
  j["config"]["matrix_bytes"] = bytes;
  j["config"]["shape"] = r.shape_kind.empty() ? Json(nullptr) : Json(r.shape_kind);
  if (const KernelFileSource* f = kernel_file_source(*r.cfg.kernel))  // a --kernel-file's kernel: which, built how
    j["config"]["kernel_file"] = {{"path", f->path}, {"defines", f->defines}};
  j["output_check"] = r.check ? check_json(*r.check, r.cfg.kernel->output) : Json(nullptr);
  Json measured;
  if (r.timing) {
    measured["time_us"] = timing_json(*r.timing, bytes);
    const double bw = effective_bandwidth_gbs(bytes, r.timing->median_us);
    measured["effective_bandwidth_gbs"] = bw;
    measured["fraction_of_copy_kernel"] = ratio(bw, copy, bytes);
    measured["fraction_of_cublas"] = ratio(bw, geam, bytes);
    measured["fraction_of_memcpy"] = ratio(bw, memcpy_b, bytes);
    measured["reference"] = ref ? Json(ref->name) : Json(nullptr);
    measured["fraction_of_reference"] = ratio(bw, ref, bytes);
    const auto inst = r.measured.find(kInstructions);
    const auto ref_inst = ref ? ref->measured.find(kInstructions) : r.measured.end();
    measured["instructions_over_reference"] =
        ref && inst != r.measured.end() && ref_inst != ref->measured.end() && ref_inst->second > 0
            ? Json(inst->second / ref_inst->second)
            : Json(nullptr);
  } else {
    measured["time_us"] = nullptr;
  }
  measured["ncu_kernel_name"] = r.ncu_kernel_name.empty() ? Json(nullptr) : Json(r.ncu_kernel_name);
  j["measured"] = measured;
  j["predicted"] = model_json(r, bytes, copy, geam);
  Json metrics = Json::object();
  if (!r.predicted.empty() || !r.measured.empty()) {
    for (const std::string& name : ncu_metric_list()) metrics[name] = metric_json(r, name, bytes);
  }
  j["metrics"] = metrics;
  j["replay_findings"] = r.replay_findings;
  // The GPU's registers and resident blocks beside memsim's (0: not read, e.g. --check-only runs of a file).
  j["occupancy"] = {{"registers_per_thread", r.registers_per_thread},
                    {"blocks_per_sm", r.blocks_per_sm},
                    {"predicted_registers_per_thread", r.predicted_registers_per_thread},
                    {"predicted_blocks_per_sm", r.predicted_blocks_per_sm},
                    {"predicted_l1_bytes", r.predicted_l1_bytes}};
  return j;
}

// `memcpy`: the group's cudaMemcpy baseline (null where it did not run), every baseline's yardstick as in
// docs/validation.md's table of peers.
Json baseline_json(const Baseline& b, int64_t matrix_bytes, const Baseline* memcpy_b) {
  Json j{{"name", b.name}, {"detail", b.detail}, {"available", b.available}};
  j["note"] = b.note.empty() ? Json(nullptr) : Json(b.note);
  j["time_us"] = b.timing ? timing_json(*b.timing, matrix_bytes) : Json(nullptr);
  const double bw = b.timing ? effective_bandwidth_gbs(matrix_bytes, b.timing->median_us) : 0.0;
  j["effective_bandwidth_gbs"] = b.timing ? Json(bw) : Json(nullptr);
  j["fraction_of_memcpy"] = b.timing ? ratio(bw, memcpy_b, matrix_bytes) : Json(nullptr);
  j["output_check"] = b.check ? check_json(*b.check, b.output) : Json(nullptr);
  if (!b.reference_of.empty())
    j["reference_of"] = {{"kernel", b.reference_of}, {"block", {{"x", b.block_x}, {"y", b.block_y}}}};
  if (!b.ncu_kernel.empty()) {
    const auto inst = b.measured.find(kInstructions);
    j["instructions"] = inst != b.measured.end() ? Json(inst->second) : Json(nullptr);
    j["ncu_kernel_name"] = b.ncu_kernel_name.empty() ? Json(nullptr) : Json(b.ncu_kernel_name);
    // Its Nsight Compute counters under their own names (nothing predicted: the replay never sees it).
    Json counters = Json::object();
    for (const auto& [name, value] : b.measured) counters[name] = value;
    j["counters"] = b.measured.empty() ? Json(nullptr) : counters;
  }
  return j;
}

std::string size_of(const Json& c);  // below, with the other Markdown helpers
std::string block_of(const Json& c);

// The cost model against the measured median times. Groups: each (matrix, dtype, block), and the two
// judged sets (docs/validation.md): the whole suite at f32 4096x4096 and larger and f16/f64 at 8192x8192, blocks
// 32x8, 16x16 and 8x32, with the default 32x8 block and with every judged block. Rank correlation is computed
// within a (matrix, dtype, block) group, where the kernels compete on the same work.
bool judged(const Json& c) {
  const std::string b = block_of(c);
  if (b != "32x8" && b != "16x16" && b != "8x32") return false;
  const int64_t w = c["matrix"]["width"].get<int64_t>(), h = c["matrix"]["height"].get<int64_t>();
  const std::string d = c["dtype"].get<std::string>();
  if (d == "f32") return w * h >= int64_t(4096) * 4096;
  return w == 8192 && h == 8192;
}

Json accuracy_of(const std::vector<const Json*>& rs) {
  std::vector<double> pred, meas;
  std::string worst_kernel;
  double worst = -1;
  for (const Json* r : rs) {
    const double p = (*r)["predicted"]["time_us"].get<double>(), m = (*r)["measured"]["time_us"]["median"].get<double>();
    pred.push_back(p);
    meas.push_back(m);
    const double e = std::abs(p - m) / m;
    if (e > worst) {
      worst = e;
      worst_kernel = (*r)["id"].get<std::string>();
    }
  }
  // model/stats gives percentages; the report keeps fractions throughout, like every other error it holds.
  Json j{{"configurations", rs.size()}, {"mape", mape(pred, meas) / 100.0}, {"max_ape", worst}, {"worst", worst_kernel}};
  j["spearman"] = rs.size() >= 2 ? Json(spearman(pred, meas)) : Json(nullptr);
  return j;
}

Json model_accuracy_json(const Json& records) {
  std::map<std::string, std::vector<const Json*>> groups;
  std::vector<const Json*> judged_default, judged_all;
  for (const Json& r : records) {
    if (!r["predicted"]["time_us"].is_number() || !r["measured"]["time_us"].is_object()) continue;
    const Json& c = r["config"];
    const std::string key = size_of(c) + " " + c["dtype"].get<std::string>() + " block " + block_of(c);
    groups[key].push_back(&r);
    if (judged(c)) {
      judged_all.push_back(&r);
      if (block_of(c) == "32x8") judged_default.push_back(&r);
    }
  }
  if (groups.empty()) return nullptr;
  Json by_group = Json::object();
  double worst_spearman_default = 1;
  for (const auto& [key, rs] : groups) {
    by_group[key] = accuracy_of(rs);
    if (key.find("block 32x8") != std::string::npos && judged(rs.front()->at("config")) && rs.size() >= 2)
      worst_spearman_default = std::min(worst_spearman_default, by_group[key]["spearman"].get<double>());
  }
  Json j;
  j["definition"] = "predicted = memsim cost model time for the replayed counts; measured = median of the timed "
                    "launches; APE = |predicted - measured| / measured; Spearman within a (matrix, dtype, block) group";
  j["targets"] = {{"mape_at_most", 0.10}, {"max_ape_at_most", 0.25}, {"spearman_at_least", 0.95}};
  if (!judged_default.empty()) {
    j["judged_block_32x8"] = accuracy_of(judged_default);
    j["judged_block_32x8"]["lowest_group_spearman"] = worst_spearman_default;
  }
  if (!judged_all.empty()) j["judged_all_blocks"] = accuracy_of(judged_all);
  j["groups"] = by_group;
  return j;
}

Json summary_json(const Json& run_without_summary) {
  int64_t configs = 0, verified = 0, wrong = 0, timed = 0, profiled = 0, exact_total = 0, exact_equal = 0,
          bounded_total = 0, bounded_ok = 0, bounded_equal = 0, tol_total = 0, tol_ok = 0;
  std::map<std::string, std::pair<double, double>> range;  // metric -> (min, max) relative error
  for (const Json& r : run_without_summary["records"]) {
    ++configs;
    if (r["output_check"].is_object()) (r["output_check"]["passed"].get<bool>() ? verified : wrong) += 1;
    if (r["measured"]["time_us"].is_object()) ++timed;
    bool any = false;
    for (const auto& [name, m] : r["metrics"].items()) {
      if (!m.contains("within_tolerance")) continue;
      any = true;
      const std::optional<Tolerance> t = tolerance_for(name);
      const bool ok = m["within_tolerance"].get<bool>();
      if (t && t->bounded) {
        ++bounded_total;
        bounded_ok += ok;
        bounded_equal += m["abs_error"].get<double>() == 0;
      } else if (t && t->exact) {
        ++exact_total;
        exact_equal += ok;
      } else {
        ++tol_total;
        tol_ok += ok;
        if (m["rel_error"].is_number()) {
          const double e = m["rel_error"].get<double>();
          auto [itr, fresh] = range.emplace(name, std::make_pair(e, e));
          if (!fresh) itr->second = {std::min(itr->second.first, e), std::max(itr->second.second, e)};
        }
      }
    }
    profiled += any;
  }
  Json ranges = Json::object();
  for (const auto& [name, mm] : range) ranges[name] = {{"min_rel_error", mm.first}, {"max_rel_error", mm.second}};
  int64_t addr_ok = 0, addr_bad = 0;
  for (const Json& a : run_without_summary["address_checks"]) (a["passed"].get<bool>() ? addr_ok : addr_bad) += 1;
  return {{"configurations", configs},
          {"outputs_verified", verified},
          {"outputs_wrong", wrong},
          {"timed", timed},
          {"profiled", profiled},
          {"exact_counts_compared", exact_total},
          {"exact_counts_equal", exact_equal},
          {"bounded_counts_compared", bounded_total},
          {"bounded_counts_within", bounded_ok},
          {"bounded_counts_equal_to_prediction", bounded_equal},
          {"toleranced_counts_compared", tol_total},
          {"toleranced_counts_within", tol_ok},
          {"relative_error_ranges", ranges},
          {"address_checks_passed", addr_ok},
          {"address_checks_failed", addr_bad},
          {"skipped", run_without_summary["skipped"].size()}};
}

}  // namespace

Json run_json(const RunResult& run) {
  Json j;
  j["schema"] = "memsim-validate/1";
  j["context"] = run.context;
  j["mode"] = run.mode;
  j["counts_gate"] = run.counts_gate;
  j["tolerances"] = tolerances_json();
  Json groups = Json::array();
  for (const GroupResult& g : run.groups) {
    Json gj{{"matrix", format_size2(g.matrix)},
            {"dtype", dtype_name(g.dtype)},
            {"matrix_bytes", g.matrix_bytes},
            {"buffer_pairs", g.buffer_pairs},
            {"rotated_bytes", 2 * g.matrix_bytes * g.buffer_pairs}};
    Json bl = Json::object();
    for (const Baseline& b : g.baselines) bl[b.name] = baseline_json(b, g.matrix_bytes, baseline(&g, "cudaMemcpy_d2d"));
    gj["baselines"] = bl;
    gj["clocks_after_timing"] = g.clocks_after_timing;
    groups.push_back(gj);
  }
  j["groups"] = groups;
  Json records = Json::array();
  for (const ConfigResult& r : run.configs) records.push_back(record_json(run, r));
  j["records"] = records;
  Json skipped = Json::array();
  for (const Skipped& s : run.skipped) skipped.push_back({{"config", user_label(s.user)}, {"reason", s.reason}});
  j["skipped"] = skipped;
  Json addr = Json::array();
  for (const AddressCheckResult& a : run.address_checks)
    addr.push_back({{"id", config_label(a.cfg)},
                    {"blocks", a.check.blocks},
                    {"warp_accesses", a.check.warp_accesses},
                    {"lane_accesses", a.check.lane_accesses},
                    {"mismatches", a.check.mismatches},
                    {"passed", a.check.passed()},
                    {"first_mismatch", a.check.first_mismatch.empty() ? Json(nullptr) : Json(a.check.first_mismatch)}});
  j["address_checks"] = addr;
  j["ncu"] = run.ncu;
  j["summary"] = summary_json(j);
  j["model_accuracy"] = model_accuracy_json(j["records"]);
  return j;
}

void refresh_summaries(Json& run) {
  run.erase("summary");
  run.erase("model_accuracy");
  run["summary"] = summary_json(run);
  run["model_accuracy"] = model_accuracy_json(run["records"]);
}

namespace {

// check_run_document's fields are read by the one JSON field reader (model/json_fields.hpp). Its messages
// name the field by its path from the top of the document ("records[3].measured.time_us.median"), so no
// quotes set it apart from `where`, which names the file alone; and its callers catch RunDocumentError.
using Fields = OrderedJsonFields;

[[noreturn]] void raise_run_document_error(const std::string& where, const std::string& path,
                                           const std::string& why) {
  throw RunDocumentError(where + ": " + path + " " + why);
}

constexpr int64_t kMaxExtent = int64_t(1) << 31;  // matrix sides
constexpr int64_t kMaxThreads = int64_t(1) << 20;  // block and tile sides

void check_output_check(const Fields& owner) {
  if (const std::optional<Fields> oc = owner.null_or_object("output_check")) {
    oc->boolean("passed");
    oc->string("detail");
  }
}

// A timing: median, min and max in microseconds.
void check_times(const Fields& t) {
  t.positive("median");
  t.positive("min");
  t.positive("max");
  // Runs before --rounds have no round fields; where there are, the Markdown reads them.
  if (t.find("round_medians")) {
    const Json& rounds = t.array("round_medians");
    if (rounds.empty()) t.fail("round_medians", "is empty");
    for (size_t i = 0; i < rounds.size(); ++i)
      if (!rounds[i].is_number() || !(rounds[i].get<double>() > 0) || !std::isfinite(rounds[i].get<double>()))
        t.fail("round_medians[" + std::to_string(i) + "]", "must be a positive number, got " + Fields::type_of(rounds[i]));
  }
}

void check_device(const Fields& d) {
  d.string("name");
  d.integer_literal("sm_count", 0, kMaxThreads);
  d.non_negative("l2_bytes");
  d.string("driver_version");
  d.non_negative("peak_sm_clock_mhz");
  d.non_negative("peak_memory_clock_mhz");
}

void check_group(const Fields& g) {
  g.string("matrix");
  g.string("dtype");
  g.non_negative("matrix_bytes");
  g.integer_literal("buffer_pairs", 0, kMaxThreads);
  g.non_negative("rotated_bytes");
  for (const auto& entry : g.object("baselines").self().items()) {
    const Fields b = g.member("baselines", entry.key());
    b.string("detail");
    b.null_or_string("note");
    if (const std::optional<Fields> t = b.null_or_object("time_us")) {
      check_times(*t);
      b.non_negative("effective_bandwidth_gbs");
    } else {
      b.null_or_number("effective_bandwidth_gbs");
    }
    check_output_check(b);
  }
}

void check_metric(const Fields& m) {
  const bool predicted = m.null_or_number("predicted").has_value();
  const bool measured = m.null_or_number("measured").has_value();
  if (predicted && measured) {
    m.number("abs_error");
    m.null_or_number("rel_error");
  }
  if (m.find("within_tolerance")) {
    m.boolean("within_tolerance");
    if (!predicted || !measured) m.fail("within_tolerance", "is given without both predicted and measured counts");
    m.string("tolerance");
  }
  for (const char* key : {"upper_bound", "compulsory", "ratio_to_compulsory"})
    if (m.find(key)) m.number(key);
}

void check_record(const Fields& r) {
  r.string("id");
  const Fields cfg = r.object("config");
  cfg.string("kernel");
  const Fields matrix = cfg.object("matrix");
  matrix.integer_literal("width", 1, kMaxExtent);
  matrix.integer_literal("height", 1, kMaxExtent);
  cfg.string("dtype");
  for (const char* size : {"block", "tile"}) {
    const Fields s = cfg.object(size);
    s.integer_literal("x", 1, kMaxThreads);
    s.integer_literal("y", 1, kMaxThreads);
  }
  if (!cfg.need("pad").is_null()) cfg.integer_literal("pad", 0, kMaxThreads);
  cfg.string("output");
  check_output_check(r);

  const Fields meas = r.object("measured");
  if (const std::optional<Fields> t = meas.null_or_object("time_us")) {
    check_times(*t);
    meas.non_negative("effective_bandwidth_gbs");
    meas.null_or_number("fraction_of_copy_kernel");
    meas.null_or_number("fraction_of_cublas");
  }
  const Fields pred = r.object("predicted");
  if (pred.null_or_number("time_us").has_value()) {
    pred.non_negative("time_us");
    pred.string("bottleneck");
  } else {
    pred.null_or_string("bottleneck");
  }
  pred.null_or_number("effective_bandwidth_gbs");
  pred.null_or_number("fraction_of_copy_kernel");
  pred.null_or_number("fraction_of_cublas");

  for (const auto& entry : r.object("metrics").self().items()) check_metric(r.member("metrics", entry.key()));
}

}  // namespace

void check_run_document(const Json& run, const std::string& where) {
  if (!run.is_object())
    throw RunDocumentError(where + ": not a memsim-validate run (the document is " + Fields::type_of(run) +
                           ", not a JSON object)");
  const Fields top(run, where, "", raise_run_document_error);
  const Json* schema = top.find("schema");
  if (!schema) top.fail("schema", "is missing: not a memsim-validate run");
  if (*schema != "memsim-validate/1")
    top.fail("schema", "must be \"memsim-validate/1\", got " + Fields::type_of(*schema));

  const Fields ctx = top.object("context");
  if (ctx.find("device")) check_device(ctx.object("device"));
  for (const char* key : {"date", "git_revision", "command_line"})
    if (ctx.find(key)) ctx.string(key);

  const Json& mode = top.need("mode");
  if (mode != "measure" && mode != "check-only" && mode != "check-addresses")
    top.fail("mode", "must be \"measure\", \"check-only\" or \"check-addresses\", got " + Fields::type_of(mode));
  if (top.find("counts_gate")) top.boolean("counts_gate");

  const Json& groups = top.array("groups");
  const Json& records = top.array("records");
  const Json& skipped = top.array("skipped");
  const Json& addresses = top.array("address_checks");
  top.object("ncu").string("status");

  for (size_t i = 0; i < groups.size(); ++i) check_group(top.item("groups", i));
  for (size_t i = 0; i < records.size(); ++i) check_record(top.item("records", i));
  for (size_t i = 0; i < skipped.size(); ++i) {
    const Fields s = top.item("skipped", i);
    s.string("config");
    s.string("reason");
  }
  for (size_t i = 0; i < addresses.size(); ++i) {
    const Fields a = top.item("address_checks", i);
    a.string("id");
    a.non_negative("blocks");
    a.non_negative("warp_accesses");
    a.non_negative("lane_accesses");
    a.boolean("passed");
    a.null_or_string("first_mismatch");
  }
  // A run that checked nothing passes nothing: say so rather than report "all checks passed".
  if (mode == "check-addresses" ? addresses.empty() : records.empty())
    top.fail(mode == "check-addresses" ? "address_checks" : "records", "is empty: the run checked nothing");
}

std::vector<std::string> failures(const Json& run) {
  std::vector<std::string> out;
  for (const Json& g : run["groups"])
    for (const auto& [name, b] : g["baselines"].items())
      if (b["output_check"].is_object() && !b["output_check"]["passed"].get<bool>())
        out.push_back(name + " " + g["dtype"].get<std::string>() + " " + g["matrix"].get<std::string>() +
                      ": wrong output: " + b["output_check"]["detail"].get<std::string>());
  const bool counts_gate = run.value("counts_gate", true);
  for (const Json& r : run["records"]) {
    const std::string id = r["id"].get<std::string>();
    if (r["output_check"].is_object() && !r["output_check"]["passed"].get<bool>())
      out.push_back(id + ": wrong output: " + r["output_check"]["detail"].get<std::string>());
    if (!counts_gate) continue;
    for (const auto& [name, m] : r["metrics"].items())
      if (m.contains("within_tolerance") && !m["within_tolerance"].get<bool>()) {
        std::ostringstream os;
        os << id << ": " << name << " predicted " << m["predicted"].dump() << ", measured " << m["measured"].dump()
           << " (tolerance " << m["tolerance"].get<std::string>() << ")";
        out.push_back(os.str());
      }
  }
  for (const Json& a : run["address_checks"])
    if (!a["passed"].get<bool>())
      out.push_back(a["id"].get<std::string>() + ": GPU addresses differ from the replay: " +
                    (a["first_mismatch"].is_string() ? a["first_mismatch"].get<std::string>() : "nothing compared"));
  if (run["ncu"].contains("status") && run["ncu"]["status"] != "ok" && run["ncu"]["status"] != "not requested")
    out.push_back("ncu: " + run["ncu"]["status"].get<std::string>());
  return out;
}

namespace {

std::string num(double v, int digits) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(digits) << v;
  return os.str();
}

std::string grouped(double value) {
  const bool neg = value < 0;
  std::string s = std::to_string(int64_t(std::llround(std::fabs(value))));
  for (int i = int(s.size()) - 3; i > 0; i -= 3) s.insert(size_t(i), ",");
  return neg ? "-" + s : s;
}

std::string pct(const Json& fraction) { return fraction.is_number() ? num(100.0 * fraction.get<double>(), 1) + "%" : "n/a"; }

std::string csv_field(const Json& v) {
  if (v.is_null()) return "";
  if (v.is_boolean()) return v.get<bool>() ? "1" : "0";
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number()) {
    std::ostringstream os;
    os << std::setprecision(10) << v.get<double>();
    return os.str();
  }
  std::string s = v.is_string() ? v.get<std::string>() : v.dump();
  if (s.find_first_of(",\"\n") != std::string::npos) {
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  }
  return s;
}

}  // namespace

void write_csv(std::ostream& os, const Json& run) {
  const std::string device = run["context"].contains("device") ? run["context"]["device"]["name"].get<std::string>() : "";
  const std::string date = run["context"].value("date", "");
  os << "date,device,kind,kernel,matrix,dtype,block,tile,pad,quantity,predicted,measured,rel_error,within_tolerance\n";
  auto row = [&](const std::string& kind, const std::string& kernel, const std::string& matrix, const std::string& dtype,
                 const std::string& block, const std::string& tile, const Json& pad, const std::string& quantity,
                 const Json& predicted, const Json& measured, const Json& rel, const Json& ok) {
    os << csv_field(date) << "," << csv_field(device) << "," << kind << "," << kernel << "," << matrix << "," << dtype
       << "," << block << "," << tile << "," << csv_field(pad) << "," << quantity << "," << csv_field(predicted) << ","
       << csv_field(measured) << "," << csv_field(rel) << "," << csv_field(ok) << "\n";
  };
  for (const Json& g : run["groups"])
    for (const auto& [name, b] : g["baselines"].items()) {
      const std::string m = g["matrix"].get<std::string>(), d = g["dtype"].get<std::string>();
      if (b["time_us"].is_object()) {
        row("baseline", name, m, d, "", "", nullptr, "time_us_median", nullptr, b["time_us"]["median"], nullptr, nullptr);
        row("baseline", name, m, d, "", "", nullptr, "effective_bandwidth_gbs", nullptr, b["effective_bandwidth_gbs"],
            nullptr, nullptr);
        for (const char* key : {"round_median_min", "round_median_max"})
          if (b["time_us"].contains(key))
            row("baseline", name, m, d, "", "", nullptr, std::string("time_us_") + key, nullptr, b["time_us"][key],
                nullptr, nullptr);
        if (b.contains("fraction_of_memcpy"))
          row("baseline", name, m, d, "", "", nullptr, "fraction_of_memcpy", nullptr, b["fraction_of_memcpy"], nullptr,
              nullptr);
      }
      if (b["output_check"].is_object())
        row("baseline", name, m, d, "", "", nullptr, "output_check_passed", nullptr, b["output_check"]["passed"], nullptr,
            nullptr);
    }
  for (const Json& r : run["records"]) {
    const Json& c = r["config"];
    const std::string k = c["kernel"].get<std::string>();
    const std::string m = std::to_string(c["matrix"]["width"].get<int64_t>()) + "x" +
                          std::to_string(c["matrix"]["height"].get<int64_t>());
    const std::string d = c["dtype"].get<std::string>();
    const std::string b = std::to_string(c["block"]["x"].get<int>()) + "x" + std::to_string(c["block"]["y"].get<int>());
    const std::string t = std::to_string(c["tile"]["x"].get<int>()) + "x" + std::to_string(c["tile"]["y"].get<int>());
    auto q = [&](const std::string& quantity, const Json& p, const Json& mv, const Json& rel, const Json& ok) {
      row("kernel", k, m, d, b, t, c["pad"], quantity, p, mv, rel, ok);
    };
    if (r["output_check"].is_object()) q("output_check_passed", nullptr, r["output_check"]["passed"], nullptr, nullptr);
    const Json& meas = r["measured"];
    const Json& pred = r["predicted"];
    if (meas["time_us"].is_object()) {
      q("time_us_median", pred["time_us"], meas["time_us"]["median"], nullptr, nullptr);
      q("time_us_min", nullptr, meas["time_us"]["min"], nullptr, nullptr);
      q("time_us_max", nullptr, meas["time_us"]["max"], nullptr, nullptr);
      for (const char* key : {"round_median_min", "round_median_max"})
        if (meas["time_us"].contains(key)) q(std::string("time_us_") + key, nullptr, meas["time_us"][key], nullptr, nullptr);
      q("effective_bandwidth_gbs", pred["effective_bandwidth_gbs"], meas["effective_bandwidth_gbs"], nullptr, nullptr);
      q("fraction_of_copy_kernel", pred["fraction_of_copy_kernel"], meas["fraction_of_copy_kernel"], nullptr, nullptr);
      q("fraction_of_cublas", pred["fraction_of_cublas"], meas["fraction_of_cublas"], nullptr, nullptr);
      if (meas.contains("fraction_of_memcpy")) q("fraction_of_memcpy", nullptr, meas["fraction_of_memcpy"], nullptr, nullptr);
    }
    for (const auto& [name, mv] : r["metrics"].items())
      q(name, mv["predicted"], mv["measured"], mv.contains("rel_error") ? mv["rel_error"] : Json(nullptr),
        mv.contains("within_tolerance") ? mv["within_tolerance"] : Json(nullptr));
  }
}

namespace {

std::string size_of(const Json& c) {
  return std::to_string(c["matrix"]["width"].get<int64_t>()) + "x" + std::to_string(c["matrix"]["height"].get<int64_t>());
}
std::string block_of(const Json& c) {
  return std::to_string(c["block"]["x"].get<int>()) + "x" + std::to_string(c["block"]["y"].get<int>());
}
std::string tile_of(const Json& c) {
  return std::to_string(c["tile"]["x"].get<int>()) + "x" + std::to_string(c["tile"]["y"].get<int>());
}

// "= 131,072" when exact, "131,072 → 131,100 (+0.02%)" otherwise, "—" when not measured.
std::string compare_cell(const Json& m) {
  if (!m.is_object() || m["predicted"].is_null()) return "—";
  if (m["measured"].is_null()) return grouped(m["predicted"].get<double>()) + " → ?";
  const double p = m["predicted"].get<double>(), v = m["measured"].get<double>();
  if (p == v) return "= " + grouped(p);
  std::string cell = grouped(p) + " → " + grouped(v);
  if (m["rel_error"].is_number()) {
    const double e = 100.0 * m["rel_error"].get<double>();
    cell += " (" + std::string(e >= 0 ? "+" : "") + num(e, std::fabs(e) < 10 ? 2 : 1) + "%)";
  }
  if (m.contains("upper_bound")) cell += " (≤ " + grouped(m["upper_bound"].get<double>()) + ")";
  if (m.contains("within_tolerance") && !m["within_tolerance"].get<bool>()) cell += " **✗**";
  return cell;
}

std::string traffic_cell(const Json& m) {
  if (!m.is_object() || m["measured"].is_null()) return "—";
  std::string cell = grouped(m["measured"].get<double>());
  if (m.contains("ratio_to_compulsory")) cell += " (" + num(m["ratio_to_compulsory"].get<double>(), 2) + "×)";
  return cell;
}

const char* kLdReq = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
const char* kStReq = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum";
const char* kLdSec = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
const char* kStSec = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum";
const char* kShLdInst = "smsp__inst_executed_op_shared_ld.sum";
const char* kShStInst = "smsp__inst_executed_op_shared_st.sum";
const char* kShLdWf = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
const char* kShStWf = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
const char* kShLdBc = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
const char* kShStBc = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";

const Json& metric(const Json& r, const char* name) {
  static const Json none;
  return r["metrics"].contains(name) ? r["metrics"][name] : none;
}

// "183.2 / 184.0 / 183.5 (0.4%)": each round's median and (max - min) / median over them; empty for a run
// timed before rounds.
std::string rounds_cell(const Json& t) {
  if (!t.contains("round_medians") || !t["round_medians"].is_array() || t["round_medians"].empty()) return "";
  std::string cell;
  double lo = 0, hi = 0;
  for (const Json& v : t["round_medians"]) {
    const double m = v.get<double>();
    lo = cell.empty() ? m : std::min(lo, m);
    hi = cell.empty() ? m : std::max(hi, m);
    cell += (cell.empty() ? "" : " / ") + num(m, 1);
  }
  const double median = t["median"].get<double>();
  return cell + " (" + num(median > 0 ? 100.0 * (hi - lo) / median : 0.0, 1) + "%)";
}

void markdown_bandwidth(std::ostream& os, const Json& run, const Json& g) {
  const std::string m = g["matrix"].get<std::string>(), d = g["dtype"].get<std::string>();
  os << "### " << d << " " << m << " (" << num(g["matrix_bytes"].get<double>() / 1e6, 1) << " MB; "
     << g["buffer_pairs"] << " buffer pairs, " << num(g["rotated_bytes"].get<double>() / 1e6, 0) << " MB rotated)\n\n";
  os << "| kernel | block | tile | output | verified | median µs (min–max) | rounds' medians µs (spread) | GB/s | "
        "% of cudaMemcpy | % of copy kernel | % of cuBLAS | % of reference | instructions / reference |\n";
  os << "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& [name, b] : g["baselines"].items()) {
    os << "| *" << name << "* | | | " << b["detail"].get<std::string>() << " | ";
    os << (b["output_check"].is_object() ? (b["output_check"]["passed"].get<bool>() ? "yes" : "**NO**") : "—") << " | ";
    if (b["time_us"].is_object())
      os << num(b["time_us"]["median"].get<double>(), 1) << " (" << num(b["time_us"]["min"].get<double>(), 1) << "–"
         << num(b["time_us"]["max"].get<double>(), 1) << ") | " << rounds_cell(b["time_us"]) << " | "
         << num(b["effective_bandwidth_gbs"].get<double>(), 0) << " | "
         << pct(b.value("fraction_of_memcpy", Json())) << " | | | | |\n";
    else
      os << (b["note"].is_string() ? b["note"].get<std::string>() : "n/a") << " | | | | | | | |\n";
  }
  std::string best;
  double best_bw = 0;
  Json best_rec;
  for (const Json& r : run["records"]) {
    const Json& c = r["config"];
    if (size_of(c) != m || c["dtype"] != d) continue;
    const Json& t = r["measured"]["time_us"];
    const bool ok = r["output_check"].is_object() && r["output_check"]["passed"].get<bool>();
    // The shape the GPU ran (a compile-time instantiation or the run-time fallback), where the run says.
    const std::string shape = c.contains("shape") && c["shape"].is_string() ? " (" + c["shape"].get<std::string>() + ")" : "";
    os << "| " << c["kernel"].get<std::string>() << shape << " | " << block_of(c) << " | " << tile_of(c) << " | "
       << c["output"].get<std::string>() << " | " << (r["output_check"].is_object() ? (ok ? "yes" : "**NO**") : "—")
       << " | ";
    if (t.is_object()) {
      const double bw = r["measured"]["effective_bandwidth_gbs"].get<double>();
      os << num(t["median"].get<double>(), 1) << " (" << num(t["min"].get<double>(), 1) << "–" << num(t["max"].get<double>(), 1)
         << ") | " << rounds_cell(t) << " | " << num(bw, 0) << " | "
         << pct(r["measured"].value("fraction_of_memcpy", Json())) << " | " << pct(r["measured"]["fraction_of_copy_kernel"])
         << " | "
         << pct(r["measured"]["fraction_of_cublas"]) << " | "
         << (r["measured"].value("fraction_of_reference", Json()).is_number() ? pct(r["measured"]["fraction_of_reference"])
                                                                               : std::string(""))
         << " | " << (r["measured"].value("instructions_over_reference", Json()).is_number()
                          ? num(r["measured"]["instructions_over_reference"].get<double>(), 2)
                          : std::string(""))
         << " |\n";
      if (ok && c["output"] == "transpose" && bw > best_bw) {
        best_bw = bw;
        best = c["kernel"].get<std::string>() + " (block " + block_of(c) + ", tile " + tile_of(c) + ")";
        best_rec = r;
      }
    } else {
      os << "— | — | — | — | — | — | | |\n";
    }
  }
  if (!best.empty())
    os << "\nBest transpose: **" << best << "**, " << num(best_bw, 0) << " GB/s = "
       << pct(best_rec["measured"]["fraction_of_copy_kernel"]) << " of the copy kernel, "
       << pct(best_rec["measured"]["fraction_of_cublas"]) << " of cuBLAS geam, "
       << pct(best_rec["measured"].value("fraction_of_memcpy", Json())) << " of cudaMemcpy.\n";
  os << "\n";
}

}  // namespace

static void markdown_model(std::ostream& os, const Json& run) {
  const Json& a = run.value("model_accuracy", Json(nullptr));
  if (!a.is_object()) return;
  os << "### Predicted vs measured time (memsim cost model)\n\n";
  auto line = [&](const char* what, const Json& g) {
    os << "- " << what << ": " << g["configurations"] << " configurations, MAPE " << num(100 * g["mape"].get<double>(), 1)
       << "%, worst " << num(100 * g["max_ape"].get<double>(), 1) << "% (" << g["worst"].get<std::string>() << ")";
    if (g.contains("lowest_group_spearman"))
      os << ", lowest Spearman within a group " << num(g["lowest_group_spearman"].get<double>(), 3);
    os << "\n";
  };
  if (a.contains("judged_block_32x8")) line("judged set, block 32x8 (f32 >= 4096^2, f16/f64 8192^2)", a["judged_block_32x8"]);
  if (a.contains("judged_all_blocks")) line("judged set, every block", a["judged_all_blocks"]);
  os << "- targets: MAPE <= 10%, every configuration within 25%, Spearman >= 0.95\n\n";
  os << "| group | n | MAPE | worst APE | worst configuration | Spearman |\n|---|---|---|---|---|---|\n";
  for (const auto& [key, g] : a["groups"].items())
    os << "| " << key << " | " << g["configurations"] << " | " << num(100 * g["mape"].get<double>(), 1) << "% | "
       << num(100 * g["max_ape"].get<double>(), 1) << "% | " << g["worst"].get<std::string>() << " | "
       << (g["spearman"].is_number() ? num(g["spearman"].get<double>(), 3) : "—") << " |\n";
  os << "\n| kernel | dtype | matrix | block | measured µs | predicted µs | error | predicted bottleneck |\n"
        "|---|---|---|---|---|---|---|---|\n";
  for (const Json& r : run["records"]) {
    if (!r["predicted"]["time_us"].is_number() || !r["measured"]["time_us"].is_object()) continue;
    const Json& c = r["config"];
    const double p = r["predicted"]["time_us"].get<double>(), m = r["measured"]["time_us"]["median"].get<double>();
    os << "| " << c["kernel"].get<std::string>() << " | " << c["dtype"].get<std::string>() << " | " << size_of(c)
       << " | " << block_of(c) << " | " << num(m, 1) << " | " << num(p, 1) << " | " << (p >= m ? "+" : "")
       << num(100 * (p - m) / m, 1) << "% | " << r["predicted"]["bottleneck"].get<std::string>() << " |\n";
  }
  os << "\n";
}

void write_markdown(std::ostream& os, const Json& run) {
  const Json& ctx = run["context"];
  os << "## memsim-validate";
  if (ctx.contains("device")) os << " on " << ctx["device"]["name"].get<std::string>();
  os << "\n\n";
  if (ctx.contains("device")) {
    const Json& d = ctx["device"];
    os << "- device: " << d["name"].get<std::string>() << ", " << d["sm_count"] << " SMs, L2 "
       << num(d["l2_bytes"].get<double>() / 1e6, 1) << " MB, driver " << d["driver_version"].get<std::string>()
       << ", peak clocks SM " << num(d["peak_sm_clock_mhz"].get<double>(), 0) << " MHz / memory "
       << num(d["peak_memory_clock_mhz"].get<double>(), 0) << " MHz\n";
  }
  os << "- date " << ctx.value("date", "?") << ", git " << ctx.value("git_revision", "unknown") << ", mode "
     << run["mode"].get<std::string>() << "\n";
  if (ctx.contains("command_line")) os << "- command: `" << ctx["command_line"].get<std::string>() << "`\n";
  os << "\n";

  if (!run["groups"].empty()) {
    os << "### Effective bandwidth (2 x matrix bytes / median time, GB/s = 1e9 B/s)\n\n";
    for (const Json& g : run["groups"]) markdown_bandwidth(os, run, g);
    markdown_model(os, run);
  } else if (!run["records"].empty()) {
    os << "| kernel | dtype | matrix | block | tile | output | verified |\n|---|---|---|---|---|---|---|\n";
    for (const Json& r : run["records"]) {
      const Json& c = r["config"];
      os << "| " << c["kernel"].get<std::string>() << " | " << c["dtype"].get<std::string>() << " | " << size_of(c)
         << " | " << block_of(c) << " | " << tile_of(c) << " | " << c["output"].get<std::string>() << " | "
         << (r["output_check"].is_object() ? (r["output_check"]["passed"].get<bool>() ? "yes" : "**NO**") : "—")
         << " |\n";
    }
    os << "\n";
  }

  bool any_measured = false;
  for (const Json& r : run["records"])
    if (!metric(r, kLdReq).is_null() && !metric(r, kLdReq)["measured"].is_null()) any_measured = true;
  if (any_measured) {
    os << "### Counts: memsim predicted → Nsight Compute measured\n\n";
    os << "Global requests and sectors must match exactly (`= n`); shared instructions must lie between memsim's "
          "count and the warp instructions reached (shown as `≤ n` where they differ); shared wavefronts, bank "
          "conflicts and the global requests' L1 wavefronts (in the JSON and CSV) within the stated band (errors of "
          "conflicts are relative to the wavefronts).\n\n";
    os << "| kernel | dtype | matrix | block | global ld requests | global ld sectors | global st requests | "
          "global st sectors | shared ld inst | shared st inst | shared ld wavefronts | shared st wavefronts | "
          "ld bank conflicts | st bank conflicts |\n";
    os << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const Json& r : run["records"]) {
      const Json& c = r["config"];
      os << "| " << c["kernel"].get<std::string>() << " | " << c["dtype"].get<std::string>() << " | " << size_of(c)
         << " | " << block_of(c);
      for (const char* name : {kLdReq, kLdSec, kStReq, kStSec, kShLdInst, kShStInst, kShLdWf, kShStWf, kShLdBc, kShStBc})
        os << " | " << compare_cell(metric(r, name));
      os << " |\n";
    }
    os << "\n### Traffic below L1 (measured; × = over the compulsory one read and one write of the matrix)\n\n";
    os << "| kernel | dtype | matrix | block | L2 read sectors | L2 write sectors | DRAM read bytes | DRAM write bytes | "
          "ncu duration µs |\n|---|---|---|---|---|---|---|---|---|\n";
    for (const Json& r : run["records"]) {
      const Json& c = r["config"];
      const Json& dur = metric(r, "gpu__time_duration.sum");
      os << "| " << c["kernel"].get<std::string>() << " | " << c["dtype"].get<std::string>() << " | " << size_of(c)
         << " | " << block_of(c) << " | " << traffic_cell(metric(r, "lts__t_sectors_srcunit_tex_op_read.sum")) << " | "
         << traffic_cell(metric(r, "lts__t_sectors_srcunit_tex_op_write.sum")) << " | "
         << traffic_cell(metric(r, "dram__bytes_read.sum")) << " | " << traffic_cell(metric(r, "dram__bytes_write.sum"))
         << " | " << (dur.is_object() && dur["measured"].is_number() ? num(dur["measured"].get<double>() / 1000.0, 1) : "—")
         << " |\n";
    }
    os << "\n";
  }

  if (!run["address_checks"].empty()) {
    os << "### GPU addresses against the replay\n\n| configuration | blocks | warp accesses | lane accesses | result |\n"
          "|---|---|---|---|---|\n";
    for (const Json& a : run["address_checks"])
      os << "| " << a["id"].get<std::string>() << " | " << grouped(a["blocks"].get<double>()) << " | "
         << grouped(a["warp_accesses"].get<double>()) << " | " << grouped(a["lane_accesses"].get<double>()) << " | "
         << (a["passed"].get<bool>() ? "identical" : "**differ**: " + a["first_mismatch"].dump()) << " |\n";
    os << "\n";
  }

  if (any_measured) {
    os << "### Notes\n\n"
          "- Exact counts (global requests and sectors) follow from the addresses alone: memsim replays the "
          "kernel's own body, so any difference would be a modelling error.\n"
          "- Shared wavefronts: the hardware counts a few percent more than the address-level count even for "
          "conflict-free patterns and books the excess as bank conflicts (shared memory and L1 share the L1TEX data "
          "banks; an access that loses arbitration to other traffic takes another wavefront). Hence the one-sided "
          "band; conflicts are compared against the wavefronts.\n"
          "- At matrices no larger than the L2 (50 MB on the H100) most written lines are still in L2 when the kernel "
          "ends, so `dram__bytes_write.sum` sits far below the matrix size; L2 sectors show the traffic that L1 "
          "passes down (a strided store of one 4-byte element moves a whole 32-byte sector: naive's 8x).\n"
          "- `smsp__inst_executed_op_shared_*` counts a warp's shared instruction even when every lane is "
          "predicated off, where the compiler predicates instead of branching around it; memsim counts "
          "instructions with an active lane. Block 8x32 over an 8x32 tile leaves three warps of four out of the "
          "transposed drain, and on ragged edges whole warps fall outside the matrix: there the hardware counts up "
          "to the instructions reached. Global requests never count an instruction without an active lane.\n\n";
  }
  const Json& s = run["summary"];
  os << "### Summary\n\n";
  os << "- " << s["configurations"] << " configurations: " << s["outputs_verified"] << " outputs verified, "
     << s["outputs_wrong"] << " wrong; " << s["timed"] << " timed; " << s["profiled"] << " profiled\n";
  if (s["exact_counts_compared"].get<int64_t>() > 0)
    os << "- exact counts (global requests and sectors): " << s["exact_counts_equal"] << " of "
       << s["exact_counts_compared"] << " equal\n";
  if (s["bounded_counts_compared"].get<int64_t>() > 0)
    os << "- shared instructions: " << s["bounded_counts_within"] << " of " << s["bounded_counts_compared"]
       << " within [memsim, reached], " << s["bounded_counts_equal_to_prediction"] << " equal to memsim's count\n";
  if (s["toleranced_counts_compared"].get<int64_t>() > 0) {
    os << "- wavefronts (shared, and global in L1) / bank conflicts: " << s["toleranced_counts_within"] << " of "
       << s["toleranced_counts_compared"] << " within tolerance; relative error ranges:";
    for (const auto& [name, rr] : s["relative_error_ranges"].items())
      os << "\n  - `" << name << "`: " << num(100.0 * rr["min_rel_error"].get<double>(), 2) << "% .. "
         << num(100.0 * rr["max_rel_error"].get<double>(), 2) << "%";
    os << "\n";
  }
  if (!run["address_checks"].empty())
    os << "- address checks: " << s["address_checks_passed"] << " identical, " << s["address_checks_failed"] << " differ\n";
  if (!run["skipped"].empty()) {
    os << "- skipped (the kernel does not support the configuration):\n";
    for (const Json& k : run["skipped"])
      os << "  - " << k["config"].get<std::string>() << ": " << k["reason"].get<std::string>() << "\n";
  }
  if (!run.value("counts_gate", true)) {
    int64_t off = 0;
    for (const Json& r : run["records"])
      for (const auto& [name, m] : r["metrics"].items()) off += m.contains("within_tolerance") && !m["within_tolerance"].get<bool>();
    os << "- counts are informational in this run (--counts-informational): " << off
       << " comparisons outside their tolerance, marked ✗ above, do not fail it\n";
  }
  const std::vector<std::string> f = failures(run);
  if (f.empty())
    os << "- **all checks passed**\n";
  else {
    os << "- **" << f.size() << " failed checks:**\n";
    for (const std::string& line : f) os << "  - " << line << "\n";
  }
}

}  // namespace memsim::validate
