#include "report/launch_prediction.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

#include "codegen/code_estimate.hpp"
#include "codegen/launch_instructions.hpp"
#include "sim/partitions.hpp"

namespace memsim {

bool has_sector_l2(const DeviceProfile& p) { return p.l2_bytes > 0 && p.coalescing == "sectors32"; }

Occupancy launch_occupancy(const DeviceProfile& p, const LaunchConfig& cfg, int regs) {
  BlockResources br;
  br.threads = cfg.threads_per_block();
  br.shared_bytes = cfg.shared_bytes;
  if (regs > 0) br.regs_per_thread = regs;
  return occupancy(p, br);
}

Occupancy launch_occupancy(const DeviceProfile& p, const LaunchConfig& cfg, const LaunchRegisters& regs) {
  Occupancy o = launch_occupancy(p, cfg, regs.count);
  o.registers_basis = regs.count > 0 ? regs.basis : "assumed: 32";
  return o;
}

void prepare_replay(ReplayOptions& ro, const DeviceProfile& p, const LaunchConfig& cfg, const Occupancy& occupancy) {
  ro.rules = memory_rules(p);
  ro.cached = has_sector_l2(p);
  ro.dram_order_resident =
      ro.cached && charges_dram_order(p.cost) ? resident_blocks(p.sms, occupancy.blocks_per_sm, cfg.blocks()) : 0;
}

void add_compiled_code(KernelCounts& c, const ReplayResult& r, const CompiledCode& code) {
  c.sass_instructions = launch_instructions(r.config, code.paths, r.first_block.early_exit_warps).instructions;
  c.code_basis = code.basis;
  c.code_source = code.source;
  const double warps = c.warps();
  const double loads_per_warp = warps > 0 ? c.global_load_instructions / warps : 0;
  c.loads_in_flight_per_warp = std::max(1.0, std::min(loads_per_warp, code.loads_in_flight));
}

Prediction predict(const ReplayResult& r, const DeviceProfile& p, const PredictOptions& o) {
  const bool cached = has_sector_l2(p);
  if (r.cached != cached || (cached && charges_dram_order(p.cost) && r.config.kernel && r.dram_order_resident < 1))
    throw std::logic_error("predict: the replay of " + std::string(r.config.kernel ? r.config.kernel->name : "?") +
                           " was not prepared for " + p.name + " (prepare_replay)");
  KernelCounts c = r.counts;
  const std::string arch = sass_arch(p.compute_capability);
  std::optional<CompiledCode> code;
  if (cached && !o.runtime_shape && r.config.kernel && !arch.empty()) {
    CodegenOptions co;
    co.compile = o.compile;
    co.arch = arch;
    code = compiled_code(r.config, co, r.first_block);
    add_compiled_code(c, r, *code);
  }
  Prediction pr = predict(c, p, o);
  if (code) add_long_walk_caveat(pr, *code, c);
  return pr;
}

// Where the estimated code's loads in flight carry the time (the latency term at least half of it) and the walk
// is one whose compiled loads in flight the estimate often falls short of (code_estimate.hpp).
void add_long_walk_caveat(Prediction& pr, const CompiledCode& code, const KernelCounts& c) {
  if (code.basis != CodeBasis::Estimated || code.estimate_bytes_before_store < kEstimateLongWalkBytes) return;
  if (pr.term(kTermLatency) < 0.5 * pr.time_us) return;
  pr.caveats.push_back(with_evidence(
      caveat_words("the compiled code is estimated: a lane loads %.0f bytes before its first store, and the estimate "
                   "keeps %.3g of its loads in flight; ptxas often keeps more in walks this long, so the latency term "
                   "may be long and the time above high (with the CUDA Toolkit memsim reads them off the compiled "
                   "code)",
                   code.estimate_bytes_before_store, c.loads_in_flight_per_warp),
      kEstimateLongWalkEvidence));
  ++pr.caveats_time_high;
}

}  // namespace memsim
