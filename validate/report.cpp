#include "validate/report.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

#include "app/report.hpp"
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
    // One wavefront per distinct line of each lane group (sim/global_sectors.hpp) is the floor; the H100 counts
    // 1.01-1.25x that over the suite at 2048^2 and 8192^2 (validate/results/l1_wavefronts.md), the excess, as
    // for shared wavefronts, depending on timing rather than addresses. The rule it replaced was 0.38-5.4x off.
    t.exact = false;
    t.below = 0.01;
    t.above = 0.30;
    t.reference = "predicted global wavefronts";
    t.why = "hardware counts global data-stage wavefronts 1-25% above the lines each lane group touches";
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
  // +20.3%, conflict-free both), so both bands are +25%.
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

Json timing_json(const TimingStats& t, int64_t matrix_bytes) {
  return {{"median", t.median_us},
          {"min", t.min_us},
          {"max", t.max_us},
          {"reps", t.reps},
          {"buffer_pairs", t.buffers},
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

Json record_json(const RunResult& run, const ConfigResult& r) {
  const GroupResult* g = group_of(run, r.cfg);
  const int64_t bytes = r.cfg.elements() * dtype_bytes(r.cfg.dtype);
  const Baseline* copy = baseline(g, "copy_kernel");
  const Baseline* geam = baseline(g, "cublas_geam");
  const Baseline* memcpy_b = baseline(g, "cudaMemcpy_d2d");
  Json j;
  j["id"] = config_label(r.cfg);
  j["config"] = config_json(r.cfg);
  j["config"]["output"] = output_kind_name(r.cfg.kernel->output);
  j["config"]["matrix_bytes"] = bytes;
  j["output_check"] = r.check ? check_json(*r.check, r.cfg.kernel->output) : Json(nullptr);
  Json measured;
  if (r.timing) {
    measured["time_us"] = timing_json(*r.timing, bytes);
    const double bw = effective_bandwidth_gbs(bytes, r.timing->median_us);
    measured["effective_bandwidth_gbs"] = bw;
    measured["fraction_of_copy_kernel"] = ratio(bw, copy, bytes);
    measured["fraction_of_cublas"] = ratio(bw, geam, bytes);
    measured["fraction_of_memcpy"] = ratio(bw, memcpy_b, bytes);
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
  return j;
}

Json baseline_json(const Baseline& b, int64_t matrix_bytes) {
  Json j{{"name", b.name}, {"detail", b.detail}, {"available", b.available}};
  j["note"] = b.note.empty() ? Json(nullptr) : Json(b.note);
  j["time_us"] = b.timing ? timing_json(*b.timing, matrix_bytes) : Json(nullptr);
  j["effective_bandwidth_gbs"] = b.timing ? Json(effective_bandwidth_gbs(matrix_bytes, b.timing->median_us)) : Json(nullptr);
  j["output_check"] = b.check ? check_json(*b.check, b.name == "cublas_geam" ? OutputKind::Transpose : OutputKind::Copy)
                              : Json(nullptr);
  return j;
}

std::string size_of(const Json& c);  // below, with the other Markdown helpers
std::string block_of(const Json& c);

// The cost model against the measured median times. Groups: each (matrix, dtype, block), and the two sets
// issue 4 judges: the whole suite at f32 4096x4096 and larger and f16/f64 at 8192x8192, with the default 32x8
// block and with every block measured. Rank correlation is computed within a (matrix, dtype, block) group,
// where the kernels compete on the same work.
bool judged_size(const Json& c) {
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
    if (judged_size(c)) {
      judged_all.push_back(&r);
      if (block_of(c) == "32x8") judged_default.push_back(&r);
    }
  }
  if (groups.empty()) return nullptr;
  Json by_group = Json::object();
  double worst_spearman_default = 1;
  for (const auto& [key, rs] : groups) {
    by_group[key] = accuracy_of(rs);
    if (key.find("block 32x8") != std::string::npos && judged_size(rs.front()->at("config")) && rs.size() >= 2)
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
    for (const Baseline& b : g.baselines) bl[b.name] = baseline_json(b, g.matrix_bytes);
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

// What a value is, for a message: `string "fast"`, `number 0`, `null`, `an array`.
std::string describe(const Json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return v.dump();
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  std::string text = v.dump();  // one line: JSON escapes control characters
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return (v.is_string() ? "string " : "number ") + text;
}

// The checks of check_run_document: each names the field by its path from the top of the document
// ("records[3].measured.time_us.median", "records[0].metrics[\"dram__bytes_read.sum\"].measured").
class DocumentCheck {
 public:
  explicit DocumentCheck(std::string where) : where_(std::move(where)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& why) const {
    throw RunDocumentError(where_ + ": " + path + " " + why);
  }
  [[noreturn]] void wrong(const std::string& path, const Json& v, const std::string& want) const {
    fail(path, "must be " + want + ", got " + describe(v));
  }

  static std::string field(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }
  static std::string item(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }
  static std::string member(const std::string& path, const std::string& key) { return path + "[" + Json(key).dump() + "]"; }

  // `obj` is an object here (every caller checked it).
  const Json* find(const Json& obj, const std::string& key) const {
    const auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  }
  const Json& need(const Json& obj, const std::string& path, const std::string& key) const {
    const Json* v = find(obj, key);
    if (!v) fail(field(path, key), "is missing");
    return *v;
  }
  const Json& object(const Json& obj, const std::string& path, const std::string& key) const {
    const Json& v = need(obj, path, key);
    if (!v.is_object()) wrong(field(path, key), v, "an object");
    return v;
  }
  const Json& array(const Json& obj, const std::string& path, const std::string& key) const {
    const Json& v = need(obj, path, key);
    if (!v.is_array()) wrong(field(path, key), v, "an array");
    return v;
  }
  // null or an object; nullptr for null.
  const Json* null_or_object(const Json& obj, const std::string& path, const std::string& key) const {
    const Json& v = need(obj, path, key);
    if (v.is_null()) return nullptr;
    if (!v.is_object()) wrong(field(path, key), v, "an object or null");
    return &v;
  }
  std::string text(const Json& obj, const std::string& path, const std::string& key) const {
    const Json& v = need(obj, path, key);
    if (!v.is_string()) wrong(field(path, key), v, "a string");
    return v.get<std::string>();
  }
  void text_if_present(const Json& obj, const std::string& path, const std::string& key) const {
    if (find(obj, key)) text(obj, path, key);
  }
  void null_or_text(const Json& obj, const std::string& path, const std::string& key) const {
    const Json& v = need(obj, path, key);
    if (!v.is_null() && !v.is_string()) wrong(field(path, key), v, "a string or null");
  }
  bool boolean(const Json& obj, const std::string& path, const std::string& key) const {
    const Json& v = need(obj, path, key);
    if (!v.is_boolean()) wrong(field(path, key), v, "true or false");
    return v.get<bool>();
  }
  static void check_finite(const DocumentCheck& c, const std::string& path, const Json& v) {
    const double x = v.get<double>();
    if (!std::isfinite(x)) c.fail(path, "must be finite");
  }
  double number(const Json& obj, const std::string& path, const std::string& key) const {
    const Json& v = need(obj, path, key);
    if (!v.is_number()) wrong(field(path, key), v, "a number");
    check_finite(*this, field(path, key), v);
    return v.get<double>();
  }
  double positive(const Json& obj, const std::string& path, const std::string& key) const {
    const double x = number(obj, path, key);
    if (!(x > 0)) wrong(field(path, key), need(obj, path, key), "a positive number");
    return x;
  }
  double non_negative(const Json& obj, const std::string& path, const std::string& key) const {
    const double x = number(obj, path, key);
    if (x < 0) wrong(field(path, key), need(obj, path, key), "a number not below 0");
    return x;
  }
  // Present: null, or a finite number.
  bool null_or_number(const Json& obj, const std::string& path, const std::string& key) const {
    const Json& v = need(obj, path, key);
    if (v.is_null()) return false;
    if (!v.is_number()) wrong(field(path, key), v, "a number or null");
    check_finite(*this, field(path, key), v);
    return true;
  }
  void number_if_present(const Json& obj, const std::string& path, const std::string& key) const {
    if (find(obj, key)) number(obj, path, key);
  }
  // A JSON integer (not 32.0, not a string) in [lo, hi].
  int64_t integer(const Json& obj, const std::string& path, const std::string& key, int64_t lo, int64_t hi) const {
    const Json& v = need(obj, path, key);
    const std::string want = "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
    if (!v.is_number_integer()) wrong(field(path, key), v, want);
    if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(hi)) wrong(field(path, key), v, want);
    const int64_t x = v.get<int64_t>();
    if (x < lo || x > hi) wrong(field(path, key), v, want);
    return x;
  }

 private:
  std::string where_;
};

constexpr int64_t kMaxExtent = int64_t(1) << 31;  // matrix sides
constexpr int64_t kMaxThreads = int64_t(1) << 20;  // block and tile sides

void check_output_check(const DocumentCheck& c, const Json& owner, const std::string& path) {
  if (const Json* oc = c.null_or_object(owner, path, "output_check")) {
    const std::string p = DocumentCheck::field(path, "output_check");
    c.boolean(*oc, p, "passed");
    c.text(*oc, p, "detail");
  }
}

// A timing: median, min and max in microseconds.
void check_times(const DocumentCheck& c, const Json& t, const std::string& path) {
  c.positive(t, path, "median");
  c.positive(t, path, "min");
  c.positive(t, path, "max");
}

void check_device(const DocumentCheck& c, const Json& d, const std::string& path) {
  c.text(d, path, "name");
  c.integer(d, path, "sm_count", 0, kMaxThreads);
  c.non_negative(d, path, "l2_bytes");
  c.text(d, path, "driver_version");
  c.non_negative(d, path, "peak_sm_clock_mhz");
  c.non_negative(d, path, "peak_memory_clock_mhz");
}

void check_group(const DocumentCheck& c, const Json& g, const std::string& path) {
  c.text(g, path, "matrix");
  c.text(g, path, "dtype");
  c.non_negative(g, path, "matrix_bytes");
  c.integer(g, path, "buffer_pairs", 0, kMaxThreads);
  c.non_negative(g, path, "rotated_bytes");
  const std::string bp = DocumentCheck::field(path, "baselines");
  for (const auto& [name, b] : c.object(g, path, "baselines").items()) {
    const std::string p = DocumentCheck::member(bp, name);
    if (!b.is_object()) c.wrong(p, b, "an object");
    c.text(b, p, "detail");
    c.null_or_text(b, p, "note");
    if (const Json* t = c.null_or_object(b, p, "time_us")) {
      check_times(c, *t, DocumentCheck::field(p, "time_us"));
      c.non_negative(b, p, "effective_bandwidth_gbs");
    } else {
      c.null_or_number(b, p, "effective_bandwidth_gbs");
    }
    check_output_check(c, b, p);
  }
}

void check_metric(const DocumentCheck& c, const Json& m, const std::string& path) {
  if (!m.is_object()) c.wrong(path, m, "an object");
  const bool predicted = c.null_or_number(m, path, "predicted");
  const bool measured = c.null_or_number(m, path, "measured");
  if (predicted && measured) {
    c.number(m, path, "abs_error");
    c.null_or_number(m, path, "rel_error");
  }
  if (c.find(m, "within_tolerance")) {
    c.boolean(m, path, "within_tolerance");
    if (!predicted || !measured) c.fail(DocumentCheck::field(path, "within_tolerance"), "is given without both predicted and measured counts");
    c.text(m, path, "tolerance");
  }
  c.number_if_present(m, path, "upper_bound");
  c.number_if_present(m, path, "compulsory");
  c.number_if_present(m, path, "ratio_to_compulsory");
}

void check_record(const DocumentCheck& c, const Json& r, const std::string& path) {
  c.text(r, path, "id");
  const Json& cfg = c.object(r, path, "config");
  const std::string cp = DocumentCheck::field(path, "config");
  c.text(cfg, cp, "kernel");
  const Json& matrix = c.object(cfg, cp, "matrix");
  c.integer(matrix, DocumentCheck::field(cp, "matrix"), "width", 1, kMaxExtent);
  c.integer(matrix, DocumentCheck::field(cp, "matrix"), "height", 1, kMaxExtent);
  c.text(cfg, cp, "dtype");
  for (const char* size : {"block", "tile"}) {
    const Json& s = c.object(cfg, cp, size);
    c.integer(s, DocumentCheck::field(cp, size), "x", 1, kMaxThreads);
    c.integer(s, DocumentCheck::field(cp, size), "y", 1, kMaxThreads);
  }
  if (!c.need(cfg, cp, "pad").is_null()) c.integer(cfg, cp, "pad", 0, kMaxThreads);
  c.text(cfg, cp, "output");
  check_output_check(c, r, path);

  const Json& meas = c.object(r, path, "measured");
  const std::string mp = DocumentCheck::field(path, "measured");
  if (const Json* t = c.null_or_object(meas, mp, "time_us")) {
    check_times(c, *t, DocumentCheck::field(mp, "time_us"));
    c.non_negative(meas, mp, "effective_bandwidth_gbs");
    c.null_or_number(meas, mp, "fraction_of_copy_kernel");
    c.null_or_number(meas, mp, "fraction_of_cublas");
  }
  const Json& pred = c.object(r, path, "predicted");
  const std::string pp = DocumentCheck::field(path, "predicted");
  if (c.null_or_number(pred, pp, "time_us")) {
    c.non_negative(pred, pp, "time_us");
    c.text(pred, pp, "bottleneck");
  } else {
    c.null_or_text(pred, pp, "bottleneck");
  }
  c.null_or_number(pred, pp, "effective_bandwidth_gbs");
  c.null_or_number(pred, pp, "fraction_of_copy_kernel");
  c.null_or_number(pred, pp, "fraction_of_cublas");

  const std::string metrics = DocumentCheck::field(path, "metrics");
  for (const auto& [name, m] : c.object(r, path, "metrics").items()) check_metric(c, m, DocumentCheck::member(metrics, name));
}

}  // namespace

void check_run_document(const Json& run, const std::string& where) {
  const DocumentCheck c(where);
  if (!run.is_object())
    throw RunDocumentError(where + ": not a memsim-validate run (the document is " + describe(run) +
                           ", not a JSON object)");
  const Json* schema = c.find(run, "schema");
  if (!schema) c.fail("schema", "is missing: not a memsim-validate run");
  if (*schema != "memsim-validate/1") c.wrong("schema", *schema, "\"memsim-validate/1\"");

  const Json& ctx = c.object(run, "", "context");
  if (c.find(ctx, "device")) check_device(c, c.object(ctx, "context", "device"), "context.device");
  for (const char* key : {"date", "git_revision", "command_line"}) c.text_if_present(ctx, "context", key);

  const Json& mode = c.need(run, "", "mode");
  if (mode != "measure" && mode != "check-only" && mode != "check-addresses")
    c.wrong("mode", mode, "\"measure\", \"check-only\" or \"check-addresses\"");
  if (c.find(run, "counts_gate")) c.boolean(run, "", "counts_gate");

  const Json& groups = c.array(run, "", "groups");
  const Json& records = c.array(run, "", "records");
  const Json& skipped = c.array(run, "", "skipped");
  const Json& addresses = c.array(run, "", "address_checks");
  c.text(c.object(run, "", "ncu"), "ncu", "status");

  for (size_t i = 0; i < groups.size(); ++i) {
    const std::string p = DocumentCheck::item("groups", i);
    if (!groups[i].is_object()) c.wrong(p, groups[i], "an object");
    check_group(c, groups[i], p);
  }
  for (size_t i = 0; i < records.size(); ++i) {
    const std::string p = DocumentCheck::item("records", i);
    if (!records[i].is_object()) c.wrong(p, records[i], "an object");
    check_record(c, records[i], p);
  }
  for (size_t i = 0; i < skipped.size(); ++i) {
    const std::string p = DocumentCheck::item("skipped", i);
    if (!skipped[i].is_object()) c.wrong(p, skipped[i], "an object");
    c.text(skipped[i], p, "config");
    c.text(skipped[i], p, "reason");
  }
  for (size_t i = 0; i < addresses.size(); ++i) {
    const std::string p = DocumentCheck::item("address_checks", i);
    const Json& a = addresses[i];
    if (!a.is_object()) c.wrong(p, a, "an object");
    c.text(a, p, "id");
    c.non_negative(a, p, "blocks");
    c.non_negative(a, p, "warp_accesses");
    c.non_negative(a, p, "lane_accesses");
    c.boolean(a, p, "passed");
    c.null_or_text(a, p, "first_mismatch");
  }
  // A run that checked nothing passes nothing: say so rather than report "all checks passed".
  if (mode == "check-addresses" ? addresses.empty() : records.empty())
    c.fail(mode == "check-addresses" ? "address_checks" : "records", "is empty: the run checked nothing");
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
      q("effective_bandwidth_gbs", pred["effective_bandwidth_gbs"], meas["effective_bandwidth_gbs"], nullptr, nullptr);
      q("fraction_of_copy_kernel", pred["fraction_of_copy_kernel"], meas["fraction_of_copy_kernel"], nullptr, nullptr);
      q("fraction_of_cublas", pred["fraction_of_cublas"], meas["fraction_of_cublas"], nullptr, nullptr);
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

void markdown_bandwidth(std::ostream& os, const Json& run, const Json& g) {
  const std::string m = g["matrix"].get<std::string>(), d = g["dtype"].get<std::string>();
  os << "### " << d << " " << m << " (" << num(g["matrix_bytes"].get<double>() / 1e6, 1) << " MB; "
     << g["buffer_pairs"] << " buffer pairs, " << num(g["rotated_bytes"].get<double>() / 1e6, 0) << " MB rotated)\n\n";
  os << "| kernel | block | tile | output | verified | median µs (min–max) | GB/s | % of copy kernel | % of cuBLAS |\n";
  os << "|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& [name, b] : g["baselines"].items()) {
    os << "| *" << name << "* | | | " << b["detail"].get<std::string>() << " | ";
    os << (b["output_check"].is_object() ? (b["output_check"]["passed"].get<bool>() ? "yes" : "**NO**") : "—") << " | ";
    if (b["time_us"].is_object())
      os << num(b["time_us"]["median"].get<double>(), 1) << " (" << num(b["time_us"]["min"].get<double>(), 1) << "–"
         << num(b["time_us"]["max"].get<double>(), 1) << ") | " << num(b["effective_bandwidth_gbs"].get<double>(), 0)
         << " | | |\n";
    else
      os << (b["note"].is_string() ? b["note"].get<std::string>() : "n/a") << " | | | |\n";
  }
  std::string best;
  double best_bw = 0;
  Json best_rec;
  for (const Json& r : run["records"]) {
    const Json& c = r["config"];
    if (size_of(c) != m || c["dtype"] != d) continue;
    const Json& t = r["measured"]["time_us"];
    const bool ok = r["output_check"].is_object() && r["output_check"]["passed"].get<bool>();
    os << "| " << c["kernel"].get<std::string>() << " | " << block_of(c) << " | " << tile_of(c) << " | "
       << c["output"].get<std::string>() << " | " << (r["output_check"].is_object() ? (ok ? "yes" : "**NO**") : "—")
       << " | ";
    if (t.is_object()) {
      const double bw = r["measured"]["effective_bandwidth_gbs"].get<double>();
      os << num(t["median"].get<double>(), 1) << " (" << num(t["min"].get<double>(), 1) << "–" << num(t["max"].get<double>(), 1)
         << ") | " << num(bw, 0) << " | " << pct(r["measured"]["fraction_of_copy_kernel"]) << " | "
         << pct(r["measured"]["fraction_of_cublas"]) << " |\n";
      if (ok && c["output"] == "transpose" && bw > best_bw) {
        best_bw = bw;
        best = c["kernel"].get<std::string>() + " (block " + block_of(c) + ", tile " + tile_of(c) + ")";
        best_rec = r;
      }
    } else {
      os << "— | — | — | — |\n";
    }
  }
  if (!best.empty())
    os << "\nBest transpose: **" << best << "**, " << num(best_bw, 0) << " GB/s = "
       << pct(best_rec["measured"]["fraction_of_copy_kernel"]) << " of the copy kernel, "
       << pct(best_rec["measured"]["fraction_of_cublas"]) << " of cuBLAS geam.\n";
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
