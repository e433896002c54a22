#include "report/metrics.hpp"

#include <cmath>
#include <stdexcept>

#include "model/significant.hpp"

namespace memsim {

namespace {

using F = MetricFormat;
using M = MetricId;

// A metric that is its own value (numerator and denominator itself).
MetricSpec plain(M id, const char* key, const char* label, const char* unit, const char* ncu_name,
                 const char* ncu_unit, F format, const char* description) {
  return {id, key, label, unit, ncu_name, ncu_unit, format, description, id, id};
}

// A total under its Nsight Compute name, in ncu's unit for it (its details page: sectors in "sector",
// instructions in "inst", requests, wavefronts and conflicts without one).
MetricSpec total(M id, const char* name, const char* ncu_unit, const char* description) {
  return plain(id, name, name, ncu_unit, name, ncu_unit, F::Count, description);
}

MetricSpec ratio(M id, const char* key, const char* label, M numerator, M denominator, const char* description) {
  return {id, key, label, "", "", "", F::Ratio, description, numerator, denominator};
}

std::vector<MetricSpec> build_table() {
  return {
      total(M::GlobalLoadRequests, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "",
            "global load requests: warp instructions with an active lane"),
      total(M::GlobalStoreRequests, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "",
            "global store requests: warp instructions with an active lane"),
      total(M::GlobalLoadSectors, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sector",
            "32-byte sectors the global load requests touch"),
      total(M::GlobalStoreSectors, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "sector",
            "32-byte sectors the global store requests touch"),
      total(M::L1Wavefronts, "l1tex__data_pipe_lsu_wavefronts_mem_lgds.sum", "",
            "L1 data-stage passes of the global requests, loads and stores"),
      total(M::SharedLoadInstructions, "smsp__inst_executed_op_shared_ld.sum", "inst",
            "shared-memory load warp instructions"),
      total(M::SharedStoreInstructions, "smsp__inst_executed_op_shared_st.sum", "inst",
            "shared-memory store warp instructions"),
      total(M::SharedLoadWavefronts, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "",
            "shared-memory load wavefronts"),
      total(M::SharedStoreWavefronts, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "",
            "shared-memory store wavefronts"),
      total(M::SharedLoadConflicts, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "",
            "shared-memory load bank conflicts: wavefronts - ideal"),
      total(M::SharedStoreConflicts, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "",
            "shared-memory store bank conflicts: wavefronts - ideal"),
      ratio(M::SectorsPerLoadRequest, "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio", "ld",
            M::GlobalLoadSectors, M::GlobalLoadRequests, "global load sectors over global load requests"),
      ratio(M::SectorsPerStoreRequest, "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio", "st",
            M::GlobalStoreSectors, M::GlobalStoreRequests, "global store sectors over global store requests"),
      // Nsight Compute has no metric of its own for these: their keys are memsim's words.
      ratio(M::SharedLoadWavefrontsPerInstruction, "shared_ld_wavefronts_per_instruction", "ld",
            M::SharedLoadWavefronts, M::SharedLoadInstructions,
            "shared-memory load wavefronts over shared load instructions"),
      ratio(M::SharedStoreWavefrontsPerInstruction, "shared_st_wavefronts_per_instruction", "st",
            M::SharedStoreWavefronts, M::SharedStoreInstructions,
            "shared-memory store wavefronts over shared store instructions"),
      // memsim's own names in the ncu layout: ncu has no such metrics, and predicts no time.
      plain(M::Time, "time_us", "time us", "us", "memsim__time_predicted", "usecond", F::Figure,
            "the predicted time CUDA events see, launch included"),
      plain(M::EffectiveBandwidth, "effective_bandwidth_gbs", "GB/s", "GB/s", "memsim__effective_bandwidth_predicted",
            "Gbyte/second", F::Figure, "2 x matrix bytes / the predicted time"),
      plain(M::FractionOfAttainable, "fraction_of_attainable", "of attain", "",
            "memsim__fraction_of_attainable_bandwidth_predicted", "", F::Percent,
            "the effective bandwidth over the device's attainable DRAM bandwidth (cudaMemcpy-measured, else the "
            "data-sheet peak)"),
      plain(M::FractionOfCopy, "fraction_of_copy", "of copy k", "", "memsim__fraction_of_copy_kernel_predicted", "",
            F::Percent, "the suite's copy kernel's predicted time over this one"),
      plain(M::Bottleneck, "bottleneck", "bottleneck", "", "", "", F::Text, "the prediction's largest term"),
      plain(M::BottleneckShare, "bottleneck_share", "bottleneck", "", "", "", F::Share,
            "the bottleneck's time over the predicted time"),
      // Under ncu's name, so that memsim's file and ncu's line up.
      plain(M::Instructions, "instructions", "warp instructions", "inst", "smsp__inst_executed.sum", "inst", F::Count,
            "the warp instructions the issue term charges"),
      plain(M::InstructionsBasis, "instructions_basis", "instr", "", "", "", F::Text,
            "what the instruction count is read off: compiled SASS, the shipped table, an estimate, given"),
      plain(M::Terms, "terms_us", "terms", "us", "", "", F::Figure,
            "every cost term's time, under the model's names for them (model/cost.hpp)"),
      plain(M::BlocksPerSm, "blocks_per_sm", "blk/SM", "", "", "", F::Integer, "blocks resident on an SM at once"),
      plain(M::WarpsPerSm, "warps_per_sm", "warps/SM", "", "", "", F::Integer, "warps resident on an SM at once"),
      plain(M::OccupancyLimiter, "occupancy_limiter", "limiter", "", "", "", F::Text,
            "what holds the blocks an SM back"),
      plain(M::RegistersPerThread, "registers_per_thread", "regs", "", "", "", F::Integer,
            "registers a thread the occupancy reads: the compiled code's, else the profile's count"),
      plain(M::SharedBytesPerBlock, "shared_bytes_per_block", "shared B", "B", "", "", F::Integer,
            "shared memory per block"),
  };
}

}  // namespace

const std::vector<MetricSpec>& metric_table() {
  static const std::vector<MetricSpec> table = build_table();
  return table;
}

const MetricSpec& metric(MetricId id) {
  for (const MetricSpec& m : metric_table())
    if (m.id == id) return m;
  throw std::logic_error("metric_table() misses a MetricId");  // a test checks every id is there
}

const MetricSpec* find_metric(const std::string& key) {
  for (const MetricSpec& m : metric_table())
    if (key == m.key) return &m;
  return nullptr;
}

std::string grouped(int64_t v) {
  std::string s = std::to_string(v < 0 ? -v : v);
  for (int i = int(s.size()) - 3; i > 0; i -= 3) s.insert(size_t(i), ",");
  return v < 0 ? "-" + s : s;
}

std::string metric_cell(MetricId id, double value) {
  switch (metric(id).format) {
    case F::Count:
      return grouped(int64_t(std::llround(value)));
    case F::Integer:
      return std::to_string(int64_t(std::llround(value)));
    case F::Figure:
      return significant(value);
    case F::Ratio:
      return significant(value, 3);
    case F::Percent:
      return significant(100.0 * value, 3) + "%";
    case F::Share:
      return significant(100.0 * value, 2) + "%";
    case F::Text:
      break;
  }
  throw std::logic_error(std::string("metric_cell: ") + metric(id).key + " is words, not a number");
}

std::string metric_cell(MetricId id, const std::optional<double>& value) {
  return value ? metric_cell(id, *value) : std::string("-");
}

std::string metric_with_unit(MetricId id, double value) {
  return metric_cell(id, value) + " " + metric(id).unit;
}

std::string metric_ncu_value(MetricId id, double value) {
  return metric(id).format == F::Count ? metric_cell(id, value) : significant(value, 6);
}

}  // namespace memsim
