#include "lab/calibration/microbench_records.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>

#include "kernels/registry.hpp"
#include "kernels/resolve.hpp"
#include "model/json_fields.hpp"
#include "model/cost.hpp"
#include "model/profile.hpp"
#include "model/user_text.hpp"
#include "sim/partitions.hpp"

namespace memsim {
namespace {

using nlohmann::json;

// Instructions per memory instruction in the microbenchmarks' loops (address arithmetic, loop control):
// the shared-memory loop is LDS + FADD, the others a few integer operations per access.
double instructions_per_memory_op(const std::string& bench) { return bench == "shared_conflict" ? 2.0 : 6.0; }

// The largest grid CUDA launches is (2^31-1) x 65535 x 65535 blocks; 2^53 is beyond any run and still exact
// in the double the cost model divides by.
constexpr int64_t kMaxBlocks = int64_t(1) << 53;

KernelCounts counts_from(const std::string& bench, const JsonFields& f) {
  KernelCounts c;
  // The launch's shape bounds what occupancy and the per-SM share read: a block of 0 threads or none at all
  // would divide by zero there.
  c.blocks = f.integer("blocks", 1, kMaxBlocks);
  c.threads_per_block = int(f.integer("threads_per_block", 1, 1024));
  c.shared_bytes_per_block = f.integer("shared_bytes_per_block", 0, std::numeric_limits<int32_t>::max());
  c.regs_per_thread = int(f.integer("regs_per_thread", 0, 255));  // 0: not known
  // Counts are finite and not negative: a negative one makes a negative time, whose log is NaN in the fit.
  c.useful_bytes = f.non_negative("useful_bytes");
  c.dram_read_bytes = f.non_negative("dram_read_bytes");
  c.dram_write_bytes = f.non_negative("dram_write_bytes");
  const double l1_ld = f.non_negative("l1_sectors_ld"), l1_st = f.non_negative("l1_sectors_st");
  const double ld_inst = f.non_negative("global_ld_instructions"), st_inst = f.non_negative("global_st_instructions");
  c.l2_load_sectors = f.non_negative("l2_sectors_ld");
  c.l2_read_requests = f.non_negative_or("l2_requests_ld", 0);  // 0: not counted (runs before 2026-11-26)
  const double l2_st = f.non_negative("l2_sectors_st");
  // Sectors beyond the bytes they carry are partial (every byte is stored once).
  const bool partial = l2_st * 32 > c.dram_write_bytes * 1.001;
  // Fields older runs do not carry: 0 when absent.
  const double ld_wavefronts = f.non_negative_or("l1_wavefronts_ld", 0);
  const double st_wavefronts = f.non_negative_or("l1_wavefronts_st", 0);
  double store_requests = 0;  // L2 write requests of the stores
  if (partial) {
    const double lane_bytes = st_inst > 0 ? c.dram_write_bytes / st_inst / 32 : 4;
    // L2 write requests, one per line a request writes; a record without them (an older run, whose
    // partial stores all wrote one sector of each line) has one per sector.
    const double requests = f.non_negative_or("l2_requests_st", 0);
    const int cls = partial_store_class(lane_bytes, c.dram_write_bytes / l2_st);
    store_requests = requests > 0 ? requests : l2_st;
    c.partial_store_requests[cls] = store_requests;
    c.partial_store_bytes[cls] = c.dram_write_bytes;
    if (cls == kLanes4 && c.dram_write_bytes >= 16.0 * l2_st) c.lane4_half_sector_bytes = c.dram_write_bytes;
    c.partial_store_sectors = l2_st;
    // The L2's sector writes where the record carries them (lab/calibration/add_l2_write_sectors.py: Nsight
    // Compute's, for a study of the pieces the L1 merges); absent: not given.
    c.l2_write_sectors_given = f.non_negative_or("l2_write_sectors_measured", -1);
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
  // Sectors a block leaves for another block to complete, summed over the blocks (runs before 2026-11-26: 0).
  c.split_sectors = f.non_negative_or("split_sectors", 0);
  // The share of the DRAM bytes met out of order (sim/dram_order.hpp); runs before 2026-11-26 do not carry it:
  // 0, as for every benchmark that streams its buffers in order.
  c.dram_scattered[0] = f.non_negative_or("dram_scattered_ld", 0);
  c.dram_scattered[1] = f.non_negative_or("dram_scattered_st", 0);
  if (c.dram_scattered[0] > 1) f.fail("dram_scattered_ld", "must be at most 1");
  if (c.dram_scattered[1] > 1) f.fail("dram_scattered_st", "must be at most 1");
  c.shared_wavefronts = f.non_negative("shared_wavefronts");
  const double shared_inst = f.non_negative("shared_instructions");
  c.shared_conflict_wavefronts = std::max(0.0, c.shared_wavefronts - shared_inst);
  c.global_load_instructions = ld_inst;
  c.memory_instructions = ld_inst + st_inst + shared_inst;
  // Issue-bound benchmarks carry their measured count (lab/calibration/add_instructions.py); the others
  // are estimated from their loops (0: not measured).
  const double counted = f.non_negative_or("instructions", 0);
  c.instructions = counted > 0 ? counted : c.memory_instructions * instructions_per_memory_op(bench);
  // memsim-microbench writes 1 or more (a warp with no load has one "in flight" in the model's terms);
  // less would be read as 1 by the cost model, a number the record did not mean.
  c.loads_in_flight_per_warp = f.at_least("loads_in_flight_per_warp", 1);
  // Older runs do not say: their barrier-free reading is what the model assumed then.
  c.barriers_per_block = f.non_negative_or("barriers", 0);
  // Older runs do not carry it: no read-back is charged for them. Every partial sector of a benchmark is
  // written by the same number of warps (partial_sector_warps): runs from before that field refuse to guess it.
  const double partial_lines = f.non_negative_or("partial_lines_per_block", 0);
  if (partial_lines > 0) {
    if (!f.find("partial_sector_warps"))
      f.fail("partial_sector_warps", "is missing (a run with partly written lines from before the field: "
                                     "take it again with this memsim-microbench)");
    c.partial_lines_per_block[f.integer("partial_sector_warps", 1, kWarpSize)] = partial_lines;
  }
  return c;
}

// The time a record measured: its median, positive and finite (the fit takes its log, MAPE divides by it).
// At most 1e9 us (17 minutes: no transpose or microbenchmark run takes that long); 1e308 printed a 309-digit
// time and an error of -inf%.
double median_time(const JsonFields& r) {
  const JsonFields t = r.object("time_us");
  const double v = t.positive("median");
  if (v > 1e9) t.fail("median", "must be at most 1e9 us (17 minutes), got " + t.need("median").dump());
  return v;
}

// The device facts memsim-calibrate takes into the profile it writes (calibrate_main.cpp, take_measured):
// checked here, so that a wrong one is blamed on the run document, not on the profile it lands in. Each is
// optional (the profile's own value stays), and a whole number where the profile wants one.
struct DeviceFact {
  const char* key;
  bool integer;
  int64_t lo, hi;  // bounds of an integer; a number that is not must be positive
};
const DeviceFact kDeviceFacts[] = {
    {"sm_count", true, 1, 1 << 30},
    {"sm_clock_mhz", false, 0, 0},
    {"max_threads_per_sm", true, 1, 1 << 30},
    {"max_blocks_per_sm", true, 1, 1 << 30},
    {"regs_per_sm", true, 1, 1 << 30},
    {"shared_per_sm", true, 1, int64_t(1) << 40},
    {"shared_per_block", true, 1, int64_t(1) << 40},
    {"shared_per_block_optin", true, 1, int64_t(1) << 40},
    {"reserved_shared_per_block", true, 0, 1 << 30},
    {"l2_bytes", true, 0, int64_t(1) << 50},
    {"mem_clock_mhz", false, 0, 0},
    {"bus_width_bits", true, 1, 1 << 20},
    {"driver_version", true, 0, std::numeric_limits<int32_t>::max()},
    {"runtime_version", true, 0, std::numeric_limits<int32_t>::max()},
};

void check_device(const JsonFields& d) {
  for (const DeviceFact& f : kDeviceFacts) {
    if (!d.find(f.key)) continue;
    if (f.integer) d.integer(f.key, f.lo, f.hi);
    else d.positive(f.key);
  }
  d.text_or("name", "?");
}

// A document a user names, parsed: every failure names the path. A directory opens as a stream on Linux and
// fails only when read, with a message that names no file.
// A document is bounded before it is read: a regular file (not /dev/zero, read until the kernel killed
// memsim-calibrate at 22.7 GiB, nor a FIFO), of at most kMaxDocumentBytes, nesting at most kMaxDocumentDepth,
// no key given twice in an object.
constexpr uintmax_t kMaxDocumentBytes = uintmax_t(64) << 20;  // the committed runs and suites are 1 MiB or less
constexpr int kMaxDocumentDepth = 32;

json read_json_file(const std::string& path_text) {
  const std::string path = echo_text(path_text);
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path_text, ec);
  if (ec || !std::filesystem::exists(st))
    throw ProfileError(path + ": cannot be read (" + (ec ? ec.message() : "no such file") + ")");
  if (std::filesystem::is_directory(st)) throw ProfileError(path + ": is a directory, not a JSON file");
  if (!std::filesystem::is_regular_file(st))
    throw ProfileError(path + ": is not a regular file (a FIFO, socket or device): give a JSON file");
  const uintmax_t size = std::filesystem::file_size(path_text, ec);
  if (ec) throw ProfileError(path + ": cannot be read (" + ec.message() + ")");
  if (size > kMaxDocumentBytes)
    throw ProfileError(path + ": is " + std::to_string(size) + " bytes, more than a document's 64 MiB");
  std::ifstream in(path_text, std::ios::binary);
  if (!in) throw ProfileError(path + ": cannot be read");
  std::string text(size_t(kMaxDocumentBytes) + 1, '\0');
  in.read(text.data(), std::streamsize(text.size()));
  text.resize(size_t(in.gcount()));
  if (text.size() > kMaxDocumentBytes) throw ProfileError(path + ": is more than a document's 64 MiB");
  try {
    return parse_strict_json(text, path, kMaxDocumentDepth);  // a key given twice is refused, as in a profile
  } catch (const json::exception& e) {
    // nlohmann's own tag ("[json.exception.parse_error.101] ") says nothing to a user: the rest does.
    std::string what = e.what();
    if (what.rfind("[json.exception.", 0) == 0 && what.find("] ") != std::string::npos) what.erase(0, what.find("] ") + 2);
    std::replace(what.begin(), what.end(), '\n', ' ');
    throw ProfileError(path + ": not valid JSON (" + what + ")");
  } catch (const std::ios_base::failure& e) {
    throw ProfileError(path + ": cannot be read (" + e.what() + ")");
  }
}

}  // namespace

KernelCounts counts_from_microbench(const std::string& bench, const json& j, const std::string& where) {
  const std::string at = where.empty() ? "microbenchmark '" + bench + "' counts" : where;
  if (!j.is_object()) throw ProfileError(at + ": counts must be a JSON object");
  return counts_from(bench, JsonFields(j, at));
}

namespace {
// R, the blocks of the run resident at once on the profile's SMs (registers a thread as predict() takes them).
int64_t resident_of(const KernelCounts& c, const DeviceProfile& p) {
  BlockResources br;
  br.threads = c.threads_per_block;
  br.shared_bytes = c.shared_bytes_per_block;
  if (c.regs_per_thread > 0) br.regs_per_thread = c.regs_per_thread;
  return resident_blocks(p.sms, occupancy(p, br).blocks_per_sm, c.blocks);
}

bool splits_sectors(const Measurement& m) {
  return m.bench.rfind("split_sector_store", 0) == 0 && m.params.is_object() && m.params.value("mode", "") == "split";
}
}  // namespace

std::vector<std::string> leave_split_sectors_out(std::vector<Measurement>& runs, const DeviceProfile& prof) {
  std::vector<std::string> out;
  std::vector<Measurement> kept;
  for (Measurement& m : runs) {
    std::string why;
    if (m.bench == "split_sector_store" && m.params.is_object() && m.params.value("layout", "") == "linear")
      why = "linear layout: the L2 merges a warp's requests into one line (ncu: 2.76M, 7.17M and 6.51M write "
            "requests where the counts have 4.19M, 8.39M and 8.39M)";
    else if (splits_sectors(m) && m.counts.split_sectors <= 0)
      why = "each sector's halves from two blocks, and the run does not count such sectors (a run from before "
            "2026-11-26: its counts are the same_warp run's; docs/model.md, split sectors)";
    else if (splits_sectors(m) && m.params.value("distance_blocks", int64_t(0)) >= resident_of(m.counts, prof))
      why = "each sector's halves from blocks " + std::to_string(m.params.value("distance_blocks", int64_t(0))) +
            " apart, further than the " + std::to_string(resident_of(m.counts, prof)) +
            " resident at once: the L2 reads part of the first half back from DRAM, which the counts do not see";
    if (why.empty()) kept.push_back(std::move(m));
    else out.push_back(m.where + ": " + why);
  }
  runs = std::move(kept);
  return out;
}

void leave_4_byte_read_back_out(std::vector<Measurement>& runs) {
  for (Measurement& m : runs)
    if (m.counts.partial_store_requests[kLanes4] > 0) m.counts.partial_lines_per_block = {};
}

MicrobenchRun read_microbench(const json& doc, const std::string& where) {
  if (!doc.is_object() || !doc.contains("runs") || !doc.contains("device"))
    throw ProfileError(where + ": not a memsim-microbench document (no \"runs\" array or \"device\")");
  const JsonFields top(doc, where);
  MicrobenchRun run;
  const JsonFields device = top.object("device");
  check_device(device);
  run.device = device.self();
  if (const json* date = top.find("date")) {
    if (!date->is_string()) top.fail("date", "must be a string, got " + JsonFields::type_of(*date));
    run.date = date->get<std::string>();
  }
  const json& runs = top.need("runs");
  if (!runs.is_array()) top.fail("runs", "must be an array, got " + JsonFields::type_of(runs));
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string index = where + ": runs[" + std::to_string(i) + "]";
    if (!runs[i].is_object()) throw ProfileError(index + " must be a JSON object, got " + JsonFields::type_of(runs[i]));
    Measurement m;
    m.bench = JsonFields(runs[i], index).text("bench");
    m.where = index + " (" + m.bench + ")";
    const JsonFields r(runs[i], m.where);
    m.params = r.find("params") ? r.need("params") : json::object();
    if (!m.params.is_object()) r.fail("params", "must be a JSON object, got " + JsonFields::type_of(m.params));
    m.counts = counts_from(m.bench, r.object("counts"));
    // A split run's two writers are distance_blocks apart in launch order (the replay measures the same for a
    // suite kernel: sim/partial_lines.hpp, split_log2_distance).
    if (m.counts.split_sectors > 0 && m.params.contains("distance_blocks")) {
      const JsonFields params(m.params, m.where + ": params");
      m.counts.split_log2_distance = std::log2(double(params.integer("distance_blocks", 1, int64_t(1) << 40)));
    }
    m.time_us = median_time(r);
    if (r.text_or("check", "ok").rfind("WRONG", 0) == 0) continue;  // a wrong result is no measurement
    run.runs.push_back(std::move(m));
  }
  if (const json* holdout = top.find("holdout")) {
    if (!holdout->is_array()) top.fail("holdout", "must be an array, got " + JsonFields::type_of(*holdout));
    for (size_t i = 0; i < holdout->size(); ++i) {
      const json& h = (*holdout)[i];
      const std::string index = where + ": holdout[" + std::to_string(i) + "]";
      if (!h.is_object()) throw ProfileError(index + " must be a JSON object, got " + JsonFields::type_of(h));
      if (JsonFields(h, index).text_or("check", "ok") != "ok") continue;  // not a measurement to compare with
      HoldoutRecord rec;
      rec.kernel = JsonFields(h, index).text("kernel");
      rec.where = index + " (" + rec.kernel + ")";
      const JsonFields f(h, rec.where);
      // memsim-calibrate --holdout replays the record; the kernel and dtype also key the profile's register
      // table: each must be what memsim reads.
      if (!find_kernel(rec.kernel)) f.fail("kernel", "names no kernel of the suite ('" + rec.kernel + "'; memsim --list-kernels lists them)");
      rec.matrix = f.text("matrix");
      rec.dtype = f.text_or("dtype", "f32");
      rec.block = f.text_or("block", "32x8");
      for (const char* key : {"matrix", "block"}) {
        if (!f.find(key)) continue;
        try {
          parse_size2(f.need(key).get<std::string>(), key);
        } catch (const ConfigError&) {
          f.fail(key, "must be WxH with positive integers (e.g. 32x8), got " + f.need(key).dump());
        }
      }
      if (rec.dtype != "f16" && rec.dtype != "f32" && rec.dtype != "f64")
        f.fail("dtype", "must be f16, f32 or f64, got " + f.need("dtype").dump());
      rec.regs_per_thread = f.find("regs_per_thread") ? int(f.integer("regs_per_thread", 0, 255)) : 0;
      rec.time_us = median_time(f);
      run.holdout.push_back(rec);
    }
  }
  return run;
}

MicrobenchRun read_microbench_file(const std::string& path) { return read_microbench(read_json_file(path), path); }

std::vector<SuiteRecord> read_suite_records(const json& doc, const std::string& where) {
  const JsonFields top(doc, where);
  if (!doc.is_object()) throw ProfileError(where + ": not a memsim-validate result document (not a JSON object)");
  const json& records = top.need("records");
  if (!records.is_array()) top.fail("records", "must be an array, got " + JsonFields::type_of(records));
  std::vector<SuiteRecord> out;
  for (size_t i = 0; i < records.size(); ++i) {
    const std::string index = where + ": records[" + std::to_string(i) + "]";
    if (!records[i].is_object()) throw ProfileError(index + " must be a JSON object, got " + JsonFields::type_of(records[i]));
    SuiteRecord rec;
    const std::string id = JsonFields(records[i], index).text_or("id", "");
    rec.where = id.empty() ? index : index + " (" + id + ")";
    const JsonFields r(records[i], rec.where);
    // An untimed record (memsim-validate without timing) says so with a null time: not a measurement.
    const JsonFields measured = r.object("measured");
    if (measured.need("time_us").is_null()) continue;
    rec.time_us = median_time(measured);
    const JsonFields c = r.object("config");
    UserConfig& u = rec.config;
    u.kernel = c.text("kernel");
    if (!find_kernel(u.kernel)) c.fail("kernel", "names no kernel of the suite ('" + u.kernel + "'; memsim --list-kernels lists them)");
    // Sizes bounded as memsim's own options are (kernels/resolve.cpp); resolve_launch checks the rest.
    const JsonFields m = c.object("matrix"), b = c.object("block"), t = c.object("tile");
    u.matrix = {m.integer("width", 1, 4294967295LL), m.integer("height", 1, 4294967295LL)};
    u.block = {b.integer("x", 1, 1024), b.integer("y", 1, 1024)};
    u.tile = Size2{t.integer("x", 1, 65536), t.integer("y", 1, 65536)};
    const std::string dtype = c.text("dtype");
    if (dtype != "f16" && dtype != "f32" && dtype != "f64") c.fail("dtype", "must be f16, f32 or f64, got \"" + dtype + "\"");
    u.dtype = parse_dtype(dtype);
    // The pad is the record's own only where its kernel stages a tile in shared memory.
    const int64_t shared = c.find("shared_bytes_per_block") ? c.integer("shared_bytes_per_block", 0, int64_t(1) << 40) : 0;
    if (c.find("pad")) {
      const int pad = int(c.integer("pad", 0, 64));
      if (shared > 0) u.pad = pad;
    }
    out.push_back(std::move(rec));
  }
  return out;
}

std::vector<SuiteRecord> read_suite_file(const std::string& path) { return read_suite_records(read_json_file(path), path); }

}  // namespace memsim
