#include "model/profile.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/install_paths.hpp"
#include "model/json_fields.hpp"
#include "model/significant.hpp"

#ifndef MEMSIM_DEVICE_DIR_DEFAULT
#define MEMSIM_DEVICE_DIR_DEFAULT "model/devices"
#endif

namespace memsim {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Physical ranges of a profile's numbers. They are generous (a device ten times past today's either way still
// reads), but a value past them is a typo or a unit slip, and would predict a time no device takes (cost
// fields of 1e300 gave 4e296 us). Rates have a floor, costs a ceiling: a time is work over a rate, or work
// times a cost.
constexpr NumberRange kClockMhz{100, 1e5, false, "MHz"};
constexpr NumberRange kBandwidth{1, 1e5, false, "GB/s"};
constexpr NumberRange kPicoseconds{0, 1e4, true, "ps"};          // a cost per sector, request or slot
constexpr NumberRange kPicosecondsOrNone{0, 1e4, false, "ps"};   // 0: no such cost
constexpr NumberRange kCyclesPerWavefront{0, 1000, true, "cycles"};
constexpr NumberRange kLatency{0, 100, true, "us"};
// Split sectors' growth a doubling of their writers' distance (0.1: 1.9 times the cost at 512 blocks apart).
constexpr NumberRange kPerLog2Distance{0, 10, false, ""};
constexpr NumberRange kNanosecondsOrNone{0, 1e4, false, "ns"};  // a round trip longer a request; 0: none
constexpr NumberRange kHold{0, 100, false, "us"};               // what a block or a barrier holds an SM slot
constexpr NumberRange kLaunch{0, 1000, false, "us"};
constexpr NumberRange kIssuePerCycle{0.05, 64, false, "warp instructions a cycle"};
constexpr NumberRange kInstructionsPerMemoryOp{1, 1000, false, ""};  // the memory instruction is one of them
constexpr NumberRange kInstructionsPerWarp{0, 1e5, false, ""};
constexpr NumberRange kInstructionsPerOp{0, 1000, false, ""};
constexpr NumberRange kOpenLines{1, 1e12, false, "lines"};
constexpr NumberRange kPerLogLines{0, 100, true, ""};
// Read-back of sectors written by 4 or 8 warps over 2 warps' (measured 1.7 and 1.9): interpolated
// geometrically, so the two may be at most 1000 apart (a factor of 2e-319 made the interpolation infinite).
constexpr NumberRange kWarpFactor{0.1, 100, false, ""};
constexpr NumberRange kLinesPerRequest{1, 1024, false, "lines"};
constexpr NumberRange kStoresPerWarp{1, 1e6, false, "store instructions"};
constexpr NumberRange kOverlapP{1, 100, false, ""};  // 1: terms add; 100 is the largest term already
constexpr int64_t kMaxSharedBytes = int64_t(1) << 26;  // 64 MiB a block or an SM

PartitionSpec read_partitions(const JsonFields& r) {
  PartitionSpec p;
  const std::string policy = r.text("dram.partitions.policy");
  if (policy == "linear") p.policy = PartitionSpec::Policy::Linear;
  else if (policy == "xor_hash") p.policy = PartitionSpec::Policy::XorHash;
  else r.fail("dram.partitions.policy", "must be \"linear\" or \"xor_hash\", got \"" + policy + "\"");
  p.count = int(r.count_in("dram.partitions.count", 1, 4096, "partitions"));
  p.granularity_bytes = r.power_of_two("dram.partitions.granularity_bytes", 1, 1 << 30);
  if (const json* bits = r.find("dram.partitions.xor_bits")) {
    if (!bits->is_array()) r.fail("dram.partitions.xor_bits", "must be an array of bit positions");
    for (const json& b : *bits) {
      if (!b.is_number_integer() || b.get<int64_t>() < 0 || b.get<int64_t>() > 63)
        r.fail("dram.partitions.xor_bits", "must hold bit positions 0..63");
      p.xor_bits.push_back(b.get<int>());
    }
  }
  if (p.policy == PartitionSpec::Policy::XorHash && p.xor_bits.empty())
    r.fail("dram.partitions.xor_bits", "must list the folded bits for policy xor_hash");
  if (const json* a = r.find("dram.partitions.assumed")) {
    if (!a->is_boolean()) r.fail("dram.partitions.assumed", "must be true or false");
    p.assumed = a->get<bool>();
  }
  p.note = r.text_or("dram.partitions.note", "");
  if (p.assumed && p.note.empty()) r.fail("dram.partitions.note", "must say where an assumed mapping comes from");
  return p;
}

// A caveat's threshold (model/profile.hpp: long_wait, store_bursts): optional (absent: no such caveat), else a
// positive threshold and the evidence it rests on.
void read_caveat_threshold(const JsonFields& r, const std::string& group, const char* threshold,
                           const NumberRange& range, double& from, std::string& evidence) {
  if (!r.find(group)) return;
  from = r.number_in(group + "." + threshold, range);
  evidence = r.text_or(group + ".evidence", "");
  if (evidence.empty()) r.fail(group + ".evidence", "must say what the threshold rests on");
}

CostConstants read_cost(const JsonFields& r) {
  CostConstants c;
  c.dram_gbs = r.number_in("cost.dram_gbs", kBandwidth);
  c.l2_sector_ps = r.number_in("cost.l2_sector_ps", kPicoseconds);
  const std::string lane_classes = "lanes of at most 4, 8 and 16 bytes";
  r.numbers_in("cost.partial_store_ps", 3, lane_classes, kPicoseconds, c.partial_store_ps);
  c.l1_cycles_per_wavefront = r.number_in("cost.l1_cycles_per_wavefront", kCyclesPerWavefront);
  c.l2_write_slot_ps = r.number_in_or("cost.l2_write_slot_ps", kPicosecondsOrNone, 0);  // absent: no crossbar term
  c.scattered_read_ps_per_byte = r.number_in_or("cost.scattered_read_ps_per_byte", kPicosecondsOrNone, 0);
  c.scattered_write_ps_per_byte = r.number_in_or("cost.scattered_write_ps_per_byte", kPicosecondsOrNone, 0);
  c.split_sector_ps = r.number_in_or("cost.split_sector_ps", kPicosecondsOrNone, 0);
  c.split_sector_per_log2_distance = r.number_in_or("cost.split_sector_per_log2_distance", kPerLog2Distance, 0);
  c.latency_us = r.number_in("cost.latency_us", kLatency);
  c.l2_request_ns = r.number_in_or("cost.l2_request_ns", kNanosecondsOrNone, 0);  // absent: requests not charged
  read_caveat_threshold(r, "cost.long_wait", "from_lines", kLinesPerRequest, c.long_wait_lines, c.long_wait_evidence);
  read_caveat_threshold(r, "cost.store_bursts", "from_stores", kStoresPerWarp, c.store_burst_stores,
                        c.store_burst_evidence);
  c.block_us = r.number_in_or("cost.block_us", kHold, 0);  // absent: no block cost
  c.barrier_us = r.number_in_or("cost.barrier_us", kHold, 0);  // absent: barriers cost nothing extra
  c.block_drain_rounds = r.number_in_or("cost.block_drain_rounds", kHold, 0);    // absent: no drain cost
  c.block_launch_ns = r.number_in_or("cost.block_launch_ns", kHold, 0);  // absent: no launch-rate limit
  c.issue_per_cycle = r.number_in("cost.issue_per_cycle", kIssuePerCycle);
  c.instructions_per_memory_op = r.number_in("cost.instructions_per_memory_op", kInstructionsPerMemoryOp);
  // Absent in profiles without an instruction estimate: memory instructions x the ratio above.
  c.instructions_per_warp = r.number_in_or("cost.instructions_per_warp", kInstructionsPerWarp, 0);
  c.instructions_per_source_op = r.number_in_or("cost.instructions_per_source_op", kInstructionsPerOp, 0);
  if (r.find("cost.read_back")) {
    c.read_back_from_lines = r.number_in("cost.read_back.from_lines", kOpenLines);
    c.read_back_per_log_lines = r.number_in("cost.read_back.per_log_lines", kPerLogLines);
    r.numbers_in("cost.read_back.ps_per_byte", 3, lane_classes, kPicosecondsOrNone, c.read_back_ps_per_byte);
    // Absent in profiles from before it: the same read-back whatever writes a sector.
    if (r.find("cost.read_back.sector_warp_factors"))
      r.numbers_in("cost.read_back.sector_warp_factors", 2, "at 4 and 8 warps a sector", kWarpFactor,
                   c.read_back_sector_warp_factors);
    c.read_back_one_warp_factor = r.number_in_or("cost.read_back.one_warp_factor", kWarpFactor, 1);
  }
  if (r.find("cost.instructions_per_division"))
    r.numbers_in("cost.instructions_per_division", 2, "32- and 64-bit operands", kInstructionsPerOp,
                 c.instructions_per_division);
  c.launch_us = r.number_in("cost.launch_us", kLaunch);
  c.overlap_p = r.number_in("cost.overlap_p", kOverlapP);
  return c;
}

// "9.0" -> 9, 0. Digits only, one point: what cudaGetDeviceProperties' major and minor print as.
bool parse_compute_capability(const std::string& cc, int& major, int& minor) {
  const size_t dot = cc.find('.');
  if (dot == 0 || dot == std::string::npos || dot + 1 == cc.size() || cc.size() > 7) return false;
  for (size_t i = 0; i < cc.size(); ++i)
    if (i != dot && !std::isdigit(static_cast<unsigned char>(cc[i]))) return false;
  major = std::stoi(cc.substr(0, dot));
  minor = std::stoi(cc.substr(dot + 1));
  return true;
}

}  // namespace

std::string device_dir() {
  if (const char* env = std::getenv("MEMSIM_DEVICE_DIR"); env && *env) return env;
  if (auto installed = installed_data_path("devices")) return *installed;
  return MEMSIM_DEVICE_DIR_DEFAULT;
}

std::vector<std::string> list_profiles() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(device_dir(), ec))
    if (e.is_regular_file() && e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

DeviceProfile load_profile(const std::string& name) {
  const bool plain = !name.empty() && name.find_first_of("/\\") == std::string::npos && name[0] != '.';
  const fs::path path = fs::path(device_dir()) / (name + ".json");
  if (!plain || !fs::is_regular_file(path)) {
    std::ostringstream os;
    os << "unknown device '" << name << "'";
    const std::vector<std::string> known = list_profiles();
    if (known.empty()) {
      os << ": no profiles in " << device_dir() << " (set MEMSIM_DEVICE_DIR)";
    } else {
      os << " (known:";
      for (const std::string& k : known) os << " " << k;
      os << ")";
    }
    throw ProfileError(os.str());
  }
  return load_profile_file(path.string());
}

DeviceProfile load_profile_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ProfileError("device profile " + path + ": cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_profile(text.str(), fs::path(path).stem().string(), path);
}

DeviceProfile parse_profile(const std::string& text, const std::string& name, const std::string& where) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // a syntax error, or a number past a double's range (1e400)
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    throw ProfileError("device profile " + where + ": not valid JSON (" + what + ")");
  }
  return profile_from_json(j, name, where);
}

DeviceProfile profile_from_json(const json& j, const std::string& name, const std::string& where) {
  if (!j.is_object()) throw ProfileError("device profile " + where + ": must be a JSON object");
  const JsonFields r(j, "device profile " + where);
  DeviceProfile p;
  p.name = name;
  p.display_name = r.text("display_name");
  p.compute_capability = r.text("compute_capability");
  if (int major = 0, minor = 0; !parse_compute_capability(p.compute_capability, major, minor))
    r.fail("compute_capability", "must be MAJOR.MINOR, e.g. \"9.0\", got \"" + p.compute_capability + "\"");
  p.source = r.text_or("source", "");

  p.sms = int(r.count_in("sm.count", 1, 4096, "SMs"));
  p.max_threads_per_sm = int(r.count_in("sm.max_threads", 32, 65536, "threads"));
  p.max_warps_per_sm = int(r.count_in("sm.max_warps", 1, 2048, "warps"));
  if (p.max_warps_per_sm != p.max_threads_per_sm / 32)
    r.fail("sm.max_warps", "must be sm.max_threads / 32 (" + std::to_string(p.max_threads_per_sm / 32) + "), got " +
                               std::to_string(p.max_warps_per_sm));
  p.max_blocks_per_sm = int(r.count_in("sm.max_blocks", 1, 1024, "blocks"));
  p.regs_per_sm = int(r.count_in("sm.registers", 256, 1 << 22, "registers"));
  p.max_regs_per_thread = int(r.count_in("sm.max_registers_per_thread", 1, 1024, "registers"));
  p.max_regs_per_block = int(r.count_in("sm.max_registers_per_block", 1, 1 << 22, "registers"));
  p.reg_alloc_unit = int(r.count_in("sm.register_allocation_unit", 1, 65536, "registers"));
  p.warp_alloc_granularity = int(r.count_in("sm.warp_allocation_granularity", 1, 64, "warps"));
  const std::string reg_gran = r.text_or("sm.register_allocation_granularity", "warp");
  if (reg_gran != "warp" && reg_gran != "block") r.fail("sm.register_allocation_granularity", "must be \"warp\" or \"block\"");
  p.reg_alloc_per_block = reg_gran == "block";
  p.sm_clock_mhz = r.number_in("sm.clock_mhz", kClockMhz);

  p.shared_per_sm = r.count_in("shared.per_sm", 1, kMaxSharedBytes, "bytes");
  p.shared_per_block = r.count_in("shared.per_block", 1, kMaxSharedBytes, "bytes");
  p.shared_per_block_optin = r.find("shared.per_block_optin")
                                 ? r.count_in("shared.per_block_optin", 1, kMaxSharedBytes, "bytes")
                                 : p.shared_per_block;
  if (r.find("shared.reserved_per_block"))
    p.reserved_shared_per_block = r.integer_literal("shared.reserved_per_block", 0, 1 << 20);
  p.shared_alloc_granularity = int(r.count_in("shared.allocation_granularity", 1, 65536, "bytes"));
  // The bank model works in powers of two, a warp's lanes at most, banks of at most 16 bytes.
  p.banks = r.power_of_two("shared.banks", 1, 64);
  p.bank_bytes = r.power_of_two("shared.bank_bytes", 1, 16);
  p.bank_phase_lanes = r.power_of_two("shared.phase_lanes", 1, 32);
  if (p.shared_per_block_optin < p.shared_per_block) r.fail("shared.per_block_optin", "must be at least shared.per_block");

  p.max_threads_per_block = int(r.count_in("launch.max_threads_per_block", 32, 65536, "threads"));
  p.max_block_x = int(r.count_in("launch.max_block_x", 1, 65536, "threads"));
  p.max_block_y = int(r.count_in("launch.max_block_y", 1, 65536, "threads"));
  // A launch's grid is held in ints (as CUDA's gridDim is 32-bit).
  p.max_grid_x = r.count_to("launch.max_grid_x", INT32_MAX);
  p.max_grid_y = r.count_to("launch.max_grid_y", INT32_MAX);

  // Sectors of 16 bytes or more (a 16-byte lane touches at most two) and at most 64 (the replay holds a
  // sector's written bytes in 64 bits: sim/partial_lines.cpp), lines of at most 1 KiB.
  p.sector_bytes = r.power_of_two("global.sector_bytes", 16, 64);
  p.line_bytes = r.power_of_two("global.line_bytes", 16, 1024);
  if (p.sector_bytes > 0 && (p.line_bytes < p.sector_bytes || p.line_bytes % p.sector_bytes != 0))
    r.fail("global.line_bytes", "must be a multiple of global.sector_bytes (" + std::to_string(p.sector_bytes) + ")");
  p.coalescing = r.text("global.coalescing");
  if (p.coalescing != "sectors32" && p.coalescing != "cc12_segments" && p.coalescing != "cc10_strict")
    r.fail("global.coalescing", "must be \"sectors32\", \"cc12_segments\" or \"cc10_strict\"");

  const double l2 = r.number("l2_bytes");
  if (!(l2 >= 0 && l2 <= double(int64_t(1) << 50))) r.fail("l2_bytes", "must be from 0 to 2^50");
  p.l2_bytes = int64_t(l2);
  p.dram_peak_gbs = r.number_in("dram.peak_gbs", kBandwidth);
  p.mem_clock_mhz = r.number_in("dram.clock_mhz", kClockMhz);
  if (r.find("dram.bus_width_bits")) r.count_in("dram.bus_width_bits", 8, 65536, "bits");  // read by people only
  p.partitions = read_partitions(r);

  p.cost = read_cost(r);
  if (const json* regs = r.find("kernel_registers")) {
    if (!regs->is_object()) r.fail("kernel_registers", "must map \"kernel/dtype\" to registers");
    for (const auto& [key, v] : regs->items()) {
      if (!v.is_number_integer() || v.get<int64_t>() <= 0 || v.get<int64_t>() > p.max_regs_per_thread)
        r.fail("kernel_registers." + key, "must be an integer from 1 to sm.max_registers_per_thread (" +
                                              std::to_string(p.max_regs_per_thread) + ")");
      p.kernel_registers[key] = int(v.get<int64_t>());
    }
  }
  if (const json* c = r.find("calibration")) {
    if (!c->is_object()) r.fail("calibration", "must be an object");
    // The figures every report quotes from the block (cost_basis_text): a count of runs and two percentages.
    if (c->contains("runs")) {
      const json& runs = (*c)["runs"];
      if (!runs.is_number_integer() || runs.get<int64_t>() < 1 || runs.get<int64_t>() > 1000000)
        r.fail("calibration.runs", "must be a whole number of microbenchmark runs from 1 to 1000000");
    }
    for (const char* pct : {"mape_pct", "max_error_pct"})
      if (c->contains(pct)) {
        const json& v = (*c)[pct];
        if (!v.is_number() || !(v.get<double>() >= 0 && v.get<double>() <= 1e6))
          r.fail(std::string("calibration.") + pct, "must be a percentage from 0 to 1000000");
      }
    p.calibrated = true;
    p.calibration = *c;
    p.cost_basis = "calibrated";
  }
  if (r.find("cost_basis")) {
    if (p.calibrated)
      r.fail("cost_basis", "describes constants no GPU calibrated, but the profile has a calibration block");
    p.cost_basis = r.text("cost_basis.kind");
    if (p.cost_basis != "published" && p.cost_basis != "data_sheet")
      r.fail("cost_basis.kind", "must be \"published\" or \"data_sheet\", got \"" + p.cost_basis + "\"");
    p.cost_basis_summary = r.text("cost_basis.summary");
  }
  return p;
}

namespace {

// The calibration block's figures a report quotes; memsim-calibrate writes them all, a hand-made block may not.
std::string calibration_text(const json& c) {
  std::ostringstream os;
  os << "cost constants fitted to";
  if (c.contains("runs") && c["runs"].is_number()) os << " " << c["runs"].get<int64_t>();
  os << " microbenchmark runs";
  if (c.contains("device") && c["device"].is_string()) os << " on " << c["device"].get<std::string>();
  if (c.contains("date") && c["date"].is_string()) os << " (" << c["date"].get<std::string>() << ")";
  if (c.contains("mape_pct") && c["mape_pct"].is_number()) {
    os << "; fit error MAPE " << significant(c["mape_pct"].get<double>(), 2) << "%";
    if (c.contains("max_error_pct") && c["max_error_pct"].is_number())
      os << ", worst " << significant(c["max_error_pct"].get<double>(), 2) << "%";
  }
  return os.str();
}

}  // namespace

std::string cost_basis_text(const DeviceProfile& p) {
  if (p.calibrated) return "calibrated: " + calibration_text(p.calibration);
  std::string text = p.cost_basis == "published" ? "NOT CALIBRATED: constants derived from published measurements"
                                                 : "NOT CALIBRATED: data-sheet stand-ins";
  if (!p.cost_basis_summary.empty()) text += " (" + p.cost_basis_summary + ")";
  return text + (p.cost_basis == "published" ? "; memsim has not checked them on a GPU" : "; no GPU has checked them");
}

std::string provenance_line(const DeviceProfile& p) {
  return p.name + " (" + p.display_name + ", compute capability " + p.compute_capability + "): " + cost_basis_text(p);
}

nlohmann::ordered_json provenance_json(const DeviceProfile& p) {
  nlohmann::ordered_json j{{"profile", p.name},
                           {"name", p.display_name},
                           {"compute_capability", p.compute_capability},
                           {"calibrated", p.calibrated},
                           {"cost_basis", p.cost_basis},
                           {"provenance", cost_basis_text(p)}};
  nlohmann::ordered_json cal = nullptr;
  if (p.calibrated) {
    cal = nlohmann::ordered_json::object();
    for (const char* key : {"date", "device", "driver_version", "measurements", "runs", "mape_pct", "max_error_pct",
                            "rms_log_error"})
      if (p.calibration.contains(key)) cal[key] = p.calibration[key];
  }
  j["calibration"] = cal;
  return j;
}

std::string dtype_refusal(const DeviceProfile& p, Dtype dtype) {
  int major = 0, minor = 0;
  if (dtype != Dtype::F64 || !parse_compute_capability(p.compute_capability, major, minor)) return "";
  if (major > 1 || (major == 1 && minor >= 3)) return "";
  return "--dtype f64: " + p.name + " (" + p.display_name + ", compute capability " + p.compute_capability +
         ") has no double precision, which came with compute capability 1.3 (nvcc compiles double as float below "
         "it); use --dtype f32 or f16, or a device of compute capability 1.3 or later";
}

int kernel_registers(const DeviceProfile& p, const std::string& kernel, Dtype dtype) {
  const auto it = p.kernel_registers.find(kernel + "/" + dtype_name(dtype));
  return it == p.kernel_registers.end() ? 0 : it->second;
}

LaunchLimits launch_limits(const DeviceProfile& p) {
  LaunchLimits l;
  l.max_threads_per_block = p.max_threads_per_block;
  l.max_block_x = p.max_block_x;
  l.max_block_y = p.max_block_y;
  l.max_shared_per_block = p.shared_per_block_optin;
  l.max_grid_x = p.max_grid_x;
  l.max_grid_y = p.max_grid_y;
  return l;
}

MemoryRules memory_rules(const DeviceProfile& p) {
  MemoryRules m;
  m.sector_bytes = p.sector_bytes;
  m.line_bytes = p.line_bytes;
  m.banks.banks = p.banks;
  m.banks.bank_bytes = p.bank_bytes;
  m.banks.phase_lanes = p.bank_phase_lanes;
  m.coalescing = p.coalescing == "cc12_segments" ? GlobalCoalescing::Cc12Segments
                 : p.coalescing == "cc10_strict" ? GlobalCoalescing::Cc10Strict
                                                 : GlobalCoalescing::Sectors32;
  return m;
}

}  // namespace memsim
