#include "model/microbench.hpp"

#include <algorithm>
#include <fstream>

#include "model/profile.hpp"

namespace memsim {
namespace {

using nlohmann::json;

double field(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || !j[key].is_number()) throw ProfileError(where + ": field '" + key + "' missing or not a number");
  return j[key].get<double>();
}

// A field older runs do not carry: 0 when absent (or not a number), never negative.
double optional_count(const json& j, const char* key, const std::string& where) {
  const double v = j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
  if (v < 0) throw ProfileError(where + ": field '" + key + "' is negative");
  return v;
}

// Instructions per memory instruction in the microbenchmarks' loops (address arithmetic, loop control):
// the shared-memory loop is LDS + FADD, the others a few integer operations per access.
double instructions_per_memory_op(const std::string& bench) { return bench == "shared_conflict" ? 2.0 : 6.0; }

}  // namespace

KernelCounts counts_from_microbench(const std::string& bench, const json& j) {
  const std::string where = "microbenchmark '" + bench + "' counts";
  KernelCounts c;
  c.blocks = int64_t(field(j, "blocks", where));
  c.threads_per_block = int(field(j, "threads_per_block", where));
  c.shared_bytes_per_block = int64_t(field(j, "shared_bytes_per_block", where));
  c.regs_per_thread = int(field(j, "regs_per_thread", where));
  c.useful_bytes = field(j, "useful_bytes", where);
  c.dram_read_bytes = field(j, "dram_read_bytes", where);
  c.dram_write_bytes = field(j, "dram_write_bytes", where);
  const double l1_ld = field(j, "l1_sectors_ld", where), l1_st = field(j, "l1_sectors_st", where);
  const double ld_inst = field(j, "global_ld_instructions", where), st_inst = field(j, "global_st_instructions", where);
  c.l2_load_sectors = field(j, "l2_sectors_ld", where);
  const double l2_st = field(j, "l2_sectors_st", where);
  // Sectors beyond the bytes they carry are partial (every byte is stored once).
  const bool partial = l2_st * 32 > c.dram_write_bytes * 1.001;
  const double ld_wavefronts = optional_count(j, "l1_wavefronts_ld", where);
  const double st_wavefronts = optional_count(j, "l1_wavefronts_st", where);
  double store_requests = 0;  // L2 write requests of the stores
  if (partial) {
    const double lane_bytes = st_inst > 0 ? c.dram_write_bytes / st_inst / 32 : 4;
    // L2 write requests, one per line a request writes; a record without them (an older run, whose
    // partial stores all wrote one sector of each line) has one per sector.
    const double requests = optional_count(j, "l2_requests_st", where);
    const int cls = partial_store_class(lane_bytes, c.dram_write_bytes / l2_st);
    store_requests = requests > 0 ? requests : l2_st;
    c.partial_store_requests[cls] = store_requests;
    c.partial_store_bytes[cls] = c.dram_write_bytes;
  } else {
    c.l2_store_sectors = l2_st;
    // The other store benchmarks write each line in one L1 pass (lanes of 4 bytes or more, a line per lane
    // group): their requests are their L1 wavefronts when the record carries those, else one per 4 sectors.
    store_requests = st_wavefronts > 0 ? st_wavefronts : l1_st / 4;
  }
  // L1 wavefronts as the replay counts them (sim/global_sectors.hpp), carried by the record; runs before
  // 2026-11-21 15:00 UTC do not carry them and get the rule of their time (one per sector when scattered,
  // else one per 128 bytes), which the suite's counters showed off by 0.4x-5x for rows of several lines.
  auto wavefronts = [](double carried, double sectors, double inst, double bytes) {
    if (carried > 0 || inst <= 0) return carried;
    return sectors * 32 > bytes * 1.001 ? sectors : std::max(inst, sectors / 4);
  };
  c.l1_global_wavefronts = wavefronts(ld_wavefronts, l1_ld, ld_inst, c.dram_read_bytes) +
                           wavefronts(st_wavefronts, l1_st, st_inst, c.dram_write_bytes);
  // Crossbar slots of the stores: their L2 write requests plus their sectors.
  c.l2_write_slots = l1_st + store_requests;
  c.shared_wavefronts = field(j, "shared_wavefronts", where);
  const double shared_inst = field(j, "shared_instructions", where);
  c.shared_conflict_wavefronts = std::max(0.0, c.shared_wavefronts - shared_inst);
  c.global_load_instructions = ld_inst;
  c.memory_instructions = ld_inst + st_inst + shared_inst;
  // Issue-bound benchmarks carry their measured count (validate/microbench/add_instructions.py); the others
  // are estimated from their loops.
  const double counted = optional_count(j, "instructions", where);
  c.instructions = counted > 0 ? counted : c.memory_instructions * instructions_per_memory_op(bench);
  c.loads_in_flight_per_warp = field(j, "loads_in_flight_per_warp", where);
  // Older runs do not say: their barrier-free reading is what the model assumed then.
  c.barriers_per_block = optional_count(j, "barriers", where);
  // Older runs do not carry it: no read-back is charged for them.
  c.partial_lines_per_block = optional_count(j, "partial_lines_per_block", where);
  return c;
}

void leave_4_byte_read_back_out(std::vector<Measurement>& runs) {
  for (Measurement& m : runs)
    if (m.counts.partial_store_requests[kLanes4] > 0) m.counts.partial_lines_per_block = 0;
}

MicrobenchRun read_microbench(const json& doc, const std::string& where) {
  if (!doc.is_object() || !doc.contains("runs") || !doc["runs"].is_array() || !doc.contains("device"))
    throw ProfileError(where + ": not a memsim-microbench document (no \"runs\" array or \"device\")");
  MicrobenchRun run;
  run.device = doc["device"];
  run.date = doc.value("date", "");
  for (size_t i = 0; i < doc["runs"].size(); ++i) {
    const json& r = doc["runs"][i];
    const std::string at = where + ": runs[" + std::to_string(i) + "]";
    if (!r.contains("bench") || !r.contains("counts") || !r.contains("time_us"))
      throw ProfileError(at + " lacks bench, counts or time_us");
    Measurement m;
    m.bench = r["bench"].get<std::string>();
    m.params = r.value("params", json::object());
    m.counts = counts_from_microbench(m.bench, r["counts"]);
    m.time_us = field(r["time_us"], "median", at);
    if (r.value("check", "ok").rfind("WRONG", 0) == 0) continue;  // a wrong result is no measurement
    run.runs.push_back(std::move(m));
  }
  if (doc.contains("holdout") && doc["holdout"].is_array()) {
    for (const json& h : doc["holdout"]) {
      if (h.value("check", "ok") != "ok") continue;
      HoldoutRecord rec;
      rec.kernel = h.value("kernel", "");
      rec.matrix = h.value("matrix", "");
      rec.dtype = h.value("dtype", "f32");
      rec.block = h.value("block", "32x8");
      rec.regs_per_thread = h.value("regs_per_thread", 0);
      rec.time_us = field(h["time_us"], "median", where + ": holdout " + rec.kernel);
      run.holdout.push_back(rec);
    }
  }
  return run;
}

MicrobenchRun read_microbench_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ProfileError(path + ": cannot be read");
  try {
    return read_microbench(json::parse(in), path);
  } catch (const json::exception& e) {
    throw ProfileError(path + ": " + e.what());
  }
}

}  // namespace memsim
