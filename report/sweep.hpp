#pragma once
// A sweep: the cross product of kernels, element types, matrices, blocks and tiles (memsim --block all,
// --block 32x8,16x16 --dtype f16,f32, ...), each configuration analysed exactly as a single run would be, and
// one ranked table (docs/cli.md, "Sweeps"). Three steps, each a free function over plain records:
//   1. expand_sweep: the axes into the resolved launches (and the configurations the device refuses, with the
//      reason), before anything is replayed;
//   2. analyse_sweep: each resolved launch analysed (report/analysis.hpp), a row each;
//   3. rank_sweep, then sweep_json / print_sweep / print_sweep_csv.
// run_sweep does the three in that order; a batch step over every resolved launch (compiling them all at once,
// say) belongs between 1 and 2, where run_sweep says so.
#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/resolve.hpp"
#include "model/profile.hpp"
#include "report/analysis.hpp"

namespace memsim {

// The most configurations one sweep may hold: more is refused before anything runs (exit 2).
inline constexpr int64_t kMaxSweepConfigurations = 2000;

// What --block all names: the block shapes a tuner usually tries, in this order (docs/cli.md, "Sweeps").
const std::vector<Size2>& tuner_blocks();

// --block, --tile and --matrix values: one WxH, a comma-separated list, or (where `all` is given, --block's)
// "all". Throws ConfigError naming an empty element, a malformed one, or one named twice.
std::vector<Size2> parse_size_list(const std::string& spec, const std::string& option,
                                   const std::vector<Size2>* all = nullptr);
// The elements of a comma-separated list, each checked non-empty; `option` and `spec` name them in errors.
std::vector<std::string> split_list(const std::string& spec, const std::string& option);
// --dtype: one element type or a comma-separated list; the same errors.
std::vector<Dtype> parse_dtype_list(const std::string& spec);
// Whether an option's value names more than one value (a comma; or "all", where `all` says it may): a sweep.
bool is_list(const std::string& spec, bool all = false);

// The axes of a sweep; their cross product, in this nesting (kernel outermost, tile innermost), is the sweep.
struct SweepAxes {
  std::vector<std::string> kernels;
  std::vector<Dtype> dtypes;
  std::vector<Size2> matrices;
  std::vector<Size2> blocks;
  std::vector<std::optional<Size2>> tiles{std::nullopt};  // nullopt: each kernel's default tile
  std::optional<int> pad;                                 // one value, for every configuration
};

// Configurations in the cross product. Throws ConfigError past kMaxSweepConfigurations (or an empty axis).
int64_t sweep_size(const SweepAxes& axes);

// One configuration of the cross product; `index` is its place there (the ranking's last tie-break).
struct SweepPoint {
  size_t index = 0;
  UserConfig user;
};
// A configuration the device or the kernel refuses (resolve or the analysis threw ConfigError), with the reason.
struct SweepRefusal {
  SweepPoint point;
  std::string reason;
};
// A configuration resolved as analyze() resolves it, every limit checked, nothing replayed.
struct SweepLaunch {
  SweepPoint point;
  LaunchConfig launch;
};
struct SweepPlan {
  std::vector<SweepLaunch> launches;  // in cross-product order
  std::vector<SweepRefusal> refused;  // in cross-product order
};

// Step 1: the cross product, each configuration resolved (resolve_analysis) or refused. Throws ConfigError for
// what refuses them all: too many (sweep_size) or a wrong option (check_analysis_options).
SweepPlan expand_sweep(const SweepAxes& axes, const DeviceProfile& device, const AnalysisOptions& options = {});

// Step 1b: the code nvcc generates for every launch of the plan (and for the copy kernel at each one's matrix,
// dtype and block), compiled at once in parallel where the toolkit is, into the cache the analyses then read.
using SweepProgress = std::function<void(const std::string& stage, int64_t done, int64_t total)>;
void compile_sweep(const SweepPlan& plan, const DeviceProfile& device, const AnalysisOptions& options,
                   const SweepProgress& progress = {});

// One analysed configuration: what the table, the JSON and the CSV show.
struct SweepRow {
  SweepPoint point;
  LaunchConfig launch;
  int64_t rank = 0;        // 1-based, over every row (by effective bandwidth; see rank_sweep)
  int64_t group_rank = 0;  // 1-based, within its (kernel, dtype, matrix) group (by time)
  double time_us = 0, effective_bandwidth_gbs = 0;
  std::optional<double> fraction_of_copy;  // copy at the same matrix, dtype and block; none where copy refuses
  std::string bottleneck;
  double bottleneck_share = 0;
  int blocks_per_sm = 0, warps_per_sm = 0;
  std::string occupancy_limiter;
  int registers_per_thread = 0;  // what the occupancy was worked out with (0: the assumed 32)
  double instructions = 0;
  std::string instructions_basis;  // the prediction's words (model/cost.hpp)
  // What the prediction says its time leaves out or where it is known to run low (Prediction::caveats): the
  // table marks such rows, and names the fastest row without any beside the fastest.
  std::vector<std::string> caveats;
  int caveats_time_high = 0;  // of them, how many say the time is likely high (no doubt that the row is as fast)
  // Whether a caveat says the time may be low: then the row may not be as fast as predicted.
  bool may_be_slower() const { return int(caveats.size()) > caveats_time_high; }
};

// The table's short word for a prediction's instructions_basis: sass, counted, ops, ratio or given.
std::string short_basis(const std::string& basis);

// Called with "sweep" as the analyses and copy predictions finish (done of total: from the worker threads, one
// call at a time) and once at the end. Where the sweep runs on one thread (AnalysisOptions::threads 1, or one
// configuration), a replay's own progress (AnalysisOptions::progress) is told too, its stage after
// "sweep, padded f32 2048x2048 block 32x8: ".

// Step 2: each launch analysed as analyze() does for a single run (the copy kernel predicted once for each
// matrix, dtype and block), as many at once as AnalysisOptions::threads allows (0: every hardware thread). A
// launch that refuses here after all joins `refused`. Rows in launch order, unranked, the same for any number
// of threads.
std::vector<SweepRow> analyse_sweep(const std::vector<SweepLaunch>& launches, const DeviceProfile& device,
                                    const AnalysisOptions& options, std::vector<SweepRefusal>& refused,
                                    const SweepProgress& progress = {});

// Step 3: sorts the rows by effective bandwidth, highest first (within one matrix and dtype: fastest first),
// ties by time, then by place in the cross product, and numbers them (rank); group_rank numbers each
// (kernel, dtype, matrix) group's rows by time. Refusals sorted by place in the cross product.
void rank_sweep(std::vector<SweepRow>& rows, std::vector<SweepRefusal>& refused);

struct SweepResult {
  SweepAxes axes;
  DeviceProfile device;           // the profile every configuration is predicted on
  std::vector<SweepRow> rows;     // ranked
  std::vector<SweepRefusal> refused;
};

// The three steps.
SweepResult run_sweep(const SweepAxes& axes, const DeviceProfile& device, const AnalysisOptions& options = {},
                      const SweepProgress& progress = {});

// The best row of each (kernel, dtype, matrix) group, in the axes' order; empty groups (all refused) left out.
std::vector<const SweepRow*> best_per_group(const SweepResult& r);

// The rows of the fastest's dtype and matrix (any kernel) predicted within the profile's held-out MAPE of it
// (itself first): closer than the model's own error, so only a GPU can order them; and the memsim-validate
// commands that time exactly them (kernels with the same blocks, tile and pad share one). band_pct 0 and no rows
// where the profile has no held-out figure.
struct NearFastest {
  double band_pct = 0;
  std::vector<const SweepRow*> rows;
  std::vector<std::string> commands;
};
NearFastest near_fastest(const SweepResult& r);

// {"sweep": {axes, device, counts, ranking}, "rows": [...], "refused": [...], "best": {"overall", "per_group",
// "near_fastest"}}.
nlohmann::ordered_json sweep_json(const SweepResult& r);
// The ranked table, the refusals below it, the best of each group (when there are several) and "fastest: ...".
void print_sweep(std::ostream& os, const SweepResult& r);
// One row a configuration, refused ones last with their reason (docs/cli.md).
void print_sweep_csv(std::ostream& os, const SweepResult& r);

}  // namespace memsim
