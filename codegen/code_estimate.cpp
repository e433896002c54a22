#include "codegen/code_estimate.hpp"

#include <algorithm>
#include <cstring>
#include <cmath>
#include <vector>

#include "codegen/compiled_code.hpp"

namespace memsim {
namespace {

// Per kernel, along the inner and then the edge path, its constant and instructions per global and per shared
// access, per access whose walk tests every step, more per such an access whose test changes from step to
// step (each step its own predicate, its addresses recomputed under it), more per such an access whose test
// leaves each warp all on or all off, per guard test (sim/busiest_warp.hpp: a guard the same at every step
// is one test for all of them where the warp's loads and stores each lie in one row, else one an access), and
// per matrix row of its global loads and of its global stores; the
// row named "" stands for any other kernel; and the bytes a lane's loads take in one round, where its walks of
// one load a row take rounds of their own (lab/calibration/code_estimate/fit_code_estimate.py fits them).
struct PathLine {
  double constant, per_global, per_shared, per_guarded, per_varying_guard, per_whole_warp_guard, per_guard_test,
      per_load_row, per_store_row;
  double at(const CodeFeatures& f) const {
    return constant + per_global * (f.global_loads + f.global_stores) +
           per_shared * (f.shared_loads + f.shared_stores) + per_guarded * f.guarded_accesses +
           per_varying_guard * f.varying_guard_accesses + per_whole_warp_guard * f.whole_warp_guard_accesses +
           per_guard_test * f.guard_tests + per_load_row * f.load_rows + per_store_row * f.store_rows;
  }
};
struct KernelLine {
  const char* kernel;
  PathLine inner, edge;
  int one_row_round_bytes;  // the rounds of its walks of one load a row, where its own (0: the pooled rounds)
};
#include "codegen/code_estimate_sm90.inc"

const KernelLine& line_of(const char* kernel) {
  for (const KernelLine& l : kSm90)
    if (std::strcmp(l.kernel, kernel) == 0) return l;
  return kSm90[sizeof(kSm90) / sizeof(kSm90[0]) - 1];
}

}  // namespace

CodeFeatures code_features(const LaunchConfig& cfg, const BusiestWarp& busiest) {
  CodeFeatures f;
  static_cast<BusiestWarp&>(f) = busiest;
  f.warps_in_block = cfg.warps_per_block();
  f.kernel = cfg.kernel->name;
  return f;
}

double estimated_load_rounds(const CodeFeatures& f) {
  const double before_store = std::max(1.0, f.loads_before_store);
  if (f.load_bytes <= 0) return 1;
  const KernelLine& l = line_of(f.kernel ? f.kernel : "");
  const int load_bytes = std::max(f.load_bytes, kLoadBytesAtLeast);
  double round_bytes = kLoadRoundBytes;
  // A long walk of few loads a row (its block about as wide as the tile) takes rounds of its own where the fit
  // gives them; a kernel whose walks of one load a row ptxas hoists further, its own there.
  if (kFewLoadsARow > 0 && before_store <= kFewLoadsARow * std::max(1.0, f.load_rows) &&
      before_store * load_bytes >= kFewLoadsFromBytes)
    round_bytes = kFewLoadsRoundBytes;
  if (f.loads_before_store <= f.load_rows && l.one_row_round_bytes > 0) round_bytes = l.one_row_round_bytes;
  const double per_round = std::max(1.0, std::floor(round_bytes / load_bytes));
  // Where the fit lets a long walk's rounds grow (kLoadRoundGrowth < 1), fewer rounds than n / k; the slack keeps
  // n / k = 2 from reading as 2.0000001.
  return std::ceil(std::pow(before_store / per_round, kLoadRoundGrowth) - 1e-9);
}

double estimated_loads_in_flight(const CodeFeatures& f) {
  return std::max(1.0, f.loads_before_store) / estimated_load_rounds(f);
}

SassPaths estimate_paths(const CodeFeatures& f) {
  const KernelLine& l = line_of(f.kernel ? f.kernel : "");
  SassPaths p;
  p.inner = p.inner_exit = p.square = p.square_exit = int(std::lround(std::max(1.0, l.inner.at(f))));
  p.edge = p.edge_square = std::max(p.inner, int(std::lround(l.edge.at(f))));
  p.loads = int(f.global_loads);
  // Each phase of loads before a store waits once a round (a kernel's phases walk alike).
  p.load_waits = f.global_loads > 0 ? int(std::ceil(f.global_loads / estimated_loads_in_flight(f) - 1e-9)) : 0;
  return p;
}

CompiledCode estimated_code(const LaunchConfig& cfg, const BusiestWarp& first_block) {
  const CodeFeatures f = code_features(cfg, first_block);
  CompiledCode c;
  c.basis = CodeBasis::Estimated;
  c.paths = estimate_paths(f);
  c.loads_in_flight = estimated_loads_in_flight(f);
  const double before = std::max(1.0, f.loads_before_store);
  if (f.load_bytes > 0 && c.loads_in_flight < before)
    c.estimate_bytes_before_store = before * std::max(f.load_bytes, kLoadBytesAtLeast);
  c.source = "sm_90's rule";
  return c;
}

}  // namespace memsim
