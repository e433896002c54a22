#include "codegen/code_estimate.hpp"

#include <algorithm>
#include <cstring>
#include <cmath>
#include <vector>

#include "codegen/compiled_code.hpp"
#include "sim/replay.hpp"

namespace memsim {
namespace {

// Per kernel, its constant and instructions per memory access along the inner and the edge path; the row
// named "" stands for any other kernel (lab/calibration/code_estimate/fit_code_estimate.py fits them).
struct KernelLine {
  const char* kernel;
  double inner_constant, inner_per_access, edge_constant, edge_per_access;
};
constexpr KernelLine kSm90[] = {
#include "codegen/code_estimate_sm90.inc"
};

const KernelLine& line_of(const char* kernel) {
  for (const KernelLine& l : kSm90)
    if (std::strcmp(l.kernel, kernel) == 0) return l;
  return kSm90[sizeof(kSm90) / sizeof(kSm90[0]) - 1];
}

}  // namespace

CodeFeatures code_features(const LaunchConfig& cfg, const FirstBlockWarps& busiest) {
  CodeFeatures f;
  f.global_loads = busiest.global_loads;
  f.global_stores = busiest.global_stores;
  f.shared_loads = busiest.shared_loads;
  f.shared_stores = busiest.shared_stores;
  f.loads_before_store = busiest.loads_before_store;
  f.load_rows = busiest.load_rows;
  f.store_rows = busiest.store_rows;
  f.load_bytes = busiest.load_bytes;
  f.guarded_accesses = busiest.guarded_accesses;
  f.warps_in_block = cfg.warps_per_block();
  f.kernel = cfg.kernel->name;
  return f;
}

SassPaths estimate_paths(const CodeFeatures& f) {
  const KernelLine& l = line_of(f.kernel ? f.kernel : "");
  const double accesses = f.global_loads + f.global_stores + f.shared_loads + f.shared_stores;
  SassPaths p;
  p.inner = p.inner_exit = p.square = p.square_exit =
      int(std::lround(std::max(1.0, l.inner_constant + l.inner_per_access * accesses)));
  p.edge = p.edge_square = std::max(p.inner, int(std::lround(l.edge_constant + l.edge_per_access * accesses)));
  p.loads = int(f.global_loads);
  p.load_waits = f.global_loads > 0 ? int(std::ceil(f.global_loads / std::max(1.0, f.loads_before_store))) : 0;
  return p;
}

CompiledCode estimated_code(const LaunchConfig& cfg, const FirstBlockWarps& first_block) {
  const CodeFeatures f = code_features(cfg, first_block);
  CompiledCode c;
  c.basis = CodeBasis::Estimated;
  c.paths = estimate_paths(f);
  c.loads_in_flight = std::max(1.0, f.loads_before_store);
  c.source = "sm_90's rule";
  return c;
}

}  // namespace memsim
