#include "model/profile.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "core/install_paths.hpp"
#include "model/json_fields.hpp"
#include "model/significant.hpp"
#include "model/user_text.hpp"

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
constexpr NumberRange kHeldOpenExponent{0.1, 10, false, ""};
constexpr NumberRange kHalfSectorFactor{0, 10, false, ""};
constexpr NumberRange kL2Share{0.05, 2, false, "of the L2's lines"};
constexpr NumberRange kStepsOpenSpread{0, 100, false, ""};
constexpr NumberRange kStepsOpenPower{0, 2, false, ""};
constexpr NumberRange kClosedPerLogSteps{0.001, 10, false, ""};
constexpr NumberRange kClosedStepsScale{0.001, 1000, false, ""};
constexpr NumberRange kClosedStress{0.01, 1e6, false, ""};
constexpr NumberRange kClosedStressPower{0.1, 20, false, ""};
constexpr NumberRange kClosedLinesPower{0, 4, false, ""};
// Read-back of sectors written by 4 or 8 warps over 2 warps' (measured 1.7 and 1.9): interpolated
// geometrically, so the two may be at most 1000 apart (a factor of 2e-319 made the interpolation infinite).
constexpr NumberRange kWarpFactor{0.1, 100, false, ""};
constexpr NumberRange kLinesPerRequest{1, 1024, false, "lines"};
constexpr NumberRange kStoresPerWarp{1, 1e6, false, "store instructions"};
constexpr NumberRange kWarpsPerBlock{1, 32, false, "warps"};
constexpr NumberRange kShareOfSectors{0, 1, true, "share of sectors"};  // above 0: a caveat from none on is none
constexpr NumberRange kL1KiB{1, 1 << 20, false, "KiB"};
constexpr NumberRange kOverlapP{1, 100, false, ""};  // 1: terms add; 100 is the largest term already
constexpr int64_t kMaxSharedBytes = int64_t(1) << 26;  // 64 MiB a block or an SM

// What a profile file may be: the shipped ones are 5-10 kB and nest 3 objects deep.
constexpr uintmax_t kMaxProfileBytes = uintmax_t(1) << 20;
constexpr int kMaxProfileDepth = 8;
constexpr size_t kMaxProfileText = 16384;  // a string field (cost.note is about 2 kB)

// The profile schema (version 1, the only one; "schema_version" is optional and must then be 1): the keys each
// object may hold. A key outside it is refused by name: a misspelt "readback" used to drop its whole block
// silently and predict with the defaults. kernel_registers holds "kernel/dtype" keys, checked on their own.
constexpr int kProfileSchemaVersion = 1;
const std::map<std::string, std::vector<std::string>>& profile_schema() {
  static const std::map<std::string, std::vector<std::string>> schema = {
      {"",
       {"schema_version", "display_name", "compute_capability", "source", "sm", "shared", "launch", "global",
        "l2_bytes", "dram", "cost", "kernel_registers", "calibration", "cost_basis"}},
      {"sm",
       {"count", "clock_mhz", "max_threads", "max_warps", "max_blocks", "registers", "max_registers_per_thread",
        "max_registers_per_block", "register_allocation_unit", "register_allocation_granularity",
        "warp_allocation_granularity"}},
      {"shared",
       {"per_sm", "per_block", "per_block_optin", "reserved_per_block", "allocation_granularity", "banks",
        "bank_bytes", "phase_lanes", "l1_and_shared_per_sm", "carveouts_kb"}},
      {"launch", {"max_threads_per_block", "max_block_x", "max_block_y", "max_grid_x", "max_grid_y"}},
      {"global", {"sector_bytes", "line_bytes", "coalescing"}},
      {"dram", {"peak_gbs", "bytes", "clock_mhz", "bus_width_bits", "partitions", "memcpy"}},
      {"dram.memcpy", {"gbs", "measured"}},
      {"dram.partitions", {"policy", "count", "granularity_bytes", "xor_bits", "assumed", "note"}},
      {"cost",
       {"note", "dram_gbs", "l2_sector_ps", "partial_store_ps", "l1_cycles_per_wavefront", "l2_write_slot_ps",
        "scattered_read_ps_per_byte", "scattered_write_ps_per_byte", "split_sector_ps",
        "split_sector_per_log2_distance", "split_line_scattered_ps", "sector_from_warps_ps", "sector_from_warps_one_round_ps", "latency_us",
        "l2_hit_latency_us", "l1_line_hold_us", "l2_request_ns", "long_wait", "store_bursts",
        "half_sector_wait", "split_lines", "narrow_lane_pieces", "small_l1", "next_store_merge", "drain_merges", "block_us", "barrier_us", "block_drain_rounds",
        "block_launch_ns", "issue_per_cycle", "instructions_per_memory_op", "instructions_per_warp",
        "instructions_per_source_op", "read_back", "whole_lines", "instructions_per_division", "launch_us",
        "overlap_p"}},
      {"cost.long_wait", {"from_lines", "evidence"}},
      {"cost.store_bursts", {"from_stores", "evidence"}},
      {"cost.half_sector_wait", {"from_lines", "evidence"}},
      {"cost.split_lines", {"from_whole_share", "evidence"}},
      {"cost.narrow_lane_pieces", {"from_share", "evidence"}},
      {"cost.small_l1", {"up_to_kib", "evidence"}},
      {"cost.next_store_merge", {"up_to_warps", "up_to_stores", "evidence"}},
      {"cost.drain_merges", {"lanes_2_staged", "lanes_2_direct", "lanes_4_staged", "lanes_4_direct", "evidence"}},
      {"cost.read_back",
       {"from_lines", "per_log_lines", "ps_per_byte", "sector_warp_factors", "one_warp_factor", "held_open",
        "steps_open", "closed_steps"}},
      {"cost.read_back.held_open", {"lines", "exponent", "half_sector_factor", "past_l2_share", "past_l2_note", "note"}},
      {"cost.read_back.steps_open", {"spread", "power", "note"}},
      {"cost.read_back.closed_steps",
       {"per_log_steps", "steps_scale", "stress", "stress_power", "lines_power", "sector_warp_factors", "note"}},
      {"cost.whole_lines", {"count", "lines", "exponent", "ps_per_byte", "note"}},
      {"cost_basis", {"kind", "summary"}},
      {"calibration",
       {"measurements", "base", "date", "device", "driver_version", "runtime_version", "method", "runs",
        "runs_left_out", "fitted", "held", "rms_log_error", "mape_pct", "max_error_pct", "warnings",
        "constants_hash", "heldout"}},
      {"calibration.heldout", {"configurations", "mape_pct", "worst_pct", "runs"}},
  };
  return schema;
}

// Levenshtein distance, for "did you mean".
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The known key nearest to `key`, when it is near enough to be a slip ("readback" -> "read_back"); "" else.
std::string nearest_key(const std::string& key, const std::vector<std::string>& known) {
  if (key.size() > 64) return "";
  std::string best;
  size_t best_d = std::max<size_t>(2, key.size() / 3) + 1;
  for (const std::string& k : known) {
    const size_t d = edit_distance(key, k);
    if (d < best_d) best_d = d, best = k;
  }
  return best;
}

// Every key of every object the schema describes is one it knows; kernel_registers' keys are "kernel/dtype"
// (whether the kernel exists is the caller's check, which knows the kernels: unknown_kernel_register_key).
void check_schema(const json& obj, const std::string& path, const JsonFields& r) {
  const auto it = profile_schema().find(path);
  if (it == profile_schema().end() || !obj.is_object()) return;
  for (const auto& [key, value] : obj.items()) {
    const std::string full = path.empty() ? key : path + "." + key;
    const std::vector<std::string>& known = it->second;
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      const std::string near = nearest_key(key, known);
      const std::string where = path.empty() ? "the profile" : "'" + path + "'";
      r.fail(echo_text(full), "is not a field of " + where + " (profile schema " +
                                  std::to_string(kProfileSchemaVersion) + ")" +
                                  (near.empty() ? std::string() : "; did you mean '" + (path.empty() ? near : path + "." + near) + "'?"));
    }
    check_schema(value, full, r);
  }
  if (path.empty())
    if (const auto regs = obj.find("kernel_registers"); regs != obj.end() && regs->is_object())
      for (const auto& [key, value] : regs->items()) {
        const size_t slash = key.find('/');
        const std::string kernel = key.substr(0, slash), dtype = slash == std::string::npos ? "" : key.substr(slash + 1);
        if (slash == std::string::npos || kernel.empty() || (dtype != "f16" && dtype != "f32" && dtype != "f64"))
          r.fail("kernel_registers." + echo_text(key),
                 "is not a \"kernel/dtype\" key (a kernel of memsim --list-kernels, and f16, f32 or f64)");
      }
}

// Compute capabilities NVIDIA has shipped (CUDA C Programming Guide; 11.0 is CUDA 13's name for Thor's 10.1).
bool known_compute_capability(int major, int minor) {
  static const std::set<std::pair<int, int>> known = {
      {1, 0}, {1, 1}, {1, 2}, {1, 3}, {2, 0}, {2, 1}, {3, 0}, {3, 2}, {3, 5}, {3, 7}, {5, 0}, {5, 2}, {5, 3},
      {6, 0}, {6, 1}, {6, 2}, {7, 0}, {7, 2}, {7, 5}, {8, 0}, {8, 6}, {8, 7}, {8, 9}, {9, 0}, {10, 0}, {10, 1},
      {10, 3}, {11, 0}, {12, 0}, {12, 1}};
  return known.count({major, minor}) > 0;
}

// Every string of the profile is at most kMaxProfileText long.
void check_text_sizes(const json& v, const std::string& path, const JsonFields& r) {
  if (v.is_string() && v.get_ref<const std::string&>().size() > kMaxProfileText)
    r.fail(path, "is " + std::to_string(v.get_ref<const std::string&>().size()) + " characters long, more than " +
                     std::to_string(kMaxProfileText));
  if (v.is_object())
    for (const auto& [key, item] : v.items()) check_text_sizes(item, path.empty() ? echo_text(key) : path + "." + echo_text(key), r);
  if (v.is_array())
    for (size_t i = 0; i < v.size(); ++i) check_text_sizes(v[i], path + "[" + std::to_string(i) + "]", r);
}

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

// A caveat's threshold (model/profile.hpp: long_wait, store_bursts, half_sector_wait, split_lines,
// narrow_lane_pieces, small_l1), or a
// rule's (next_store_merge): optional (absent: no such caveat or rule), else a positive threshold and the evidence
// it rests on.
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
  c.split_line_scattered_ps = r.number_in_or("cost.split_line_scattered_ps", kPicosecondsOrNone, 0);
  c.sector_from_warps_ps = r.number_in_or("cost.sector_from_warps_ps", kPicosecondsOrNone, 0);
  // Absent: those sectors cost what the others do (a card without memsim-step-lines' runs).
  c.sector_from_warps_one_round_ps =
      r.number_in_or("cost.sector_from_warps_one_round_ps", kPicosecondsOrNone, c.sector_from_warps_ps);
  c.latency_us = r.number_in("cost.latency_us", kLatency);
  c.l2_hit_latency_us = r.number_in_or("cost.l2_hit_latency_us", kLatency, 0);  // absent: hits take latency_us
  c.l1_line_hold_us = r.number_in_or("cost.l1_line_hold_us", kHold, 0);  // absent: the L1's lines not charged
  c.l2_request_ns = r.number_in_or("cost.l2_request_ns", kNanosecondsOrNone, 0);  // absent: requests not charged
  read_caveat_threshold(r, "cost.long_wait", "from_lines", kLinesPerRequest, c.long_wait_lines, c.long_wait_evidence);
  read_caveat_threshold(r, "cost.store_bursts", "from_stores", kStoresPerWarp, c.store_burst_stores,
                        c.store_burst_evidence);
  read_caveat_threshold(r, "cost.half_sector_wait", "from_lines", kLinesPerRequest, c.half_sector_wait_lines,
                        c.half_sector_wait_evidence);
  read_caveat_threshold(r, "cost.split_lines", "from_whole_share", kShareOfSectors, c.split_line_whole_share,
                        c.split_line_whole_evidence);
  read_caveat_threshold(r, "cost.narrow_lane_pieces", "from_share", kShareOfSectors, c.narrow_lane_piece_share,
                        c.narrow_lane_piece_evidence);
  read_caveat_threshold(r, "cost.small_l1", "up_to_kib", kL1KiB, c.small_l1_kib, c.small_l1_evidence);
  read_caveat_threshold(r, "cost.next_store_merge", "up_to_warps", kWarpsPerBlock, c.next_store_merge_warps,
                        c.next_store_merge_evidence);
  if (c.next_store_merge_warps > 0)
    c.next_store_merge_stores = r.number_in("cost.next_store_merge.up_to_stores", kStoresPerWarp);
  if (r.find("cost.drain_merges")) {  // absent: a warp's next-store pairs merge by the rule above only
    const std::string grid = "merged shares at 1, 2, 3, 4, 5, 6, 8, 10, 14, 16 warps a block x 2, 8, 32 stores a warp";
    const char* tables[2][2] = {{"cost.drain_merges.lanes_2_direct", "cost.drain_merges.lanes_2_staged"},
                                {"cost.drain_merges.lanes_4_direct", "cost.drain_merges.lanes_4_staged"}};
    for (int lanes = 0; lanes < 2; ++lanes)
      for (int staged = 0; staged < 2; ++staged)
        r.numbers_in(tables[lanes][staged], kDrainMergeCells, grid, kShareOfSectors, c.drain_merges[lanes][staged]);
    c.drain_merges_evidence = r.text("cost.drain_merges.evidence");
    c.has_drain_merges = true;
  }
  c.block_us = r.number_in_or("cost.block_us", kHold, 0);  // absent: no block cost
  c.barrier_us = r.number_in_or("cost.barrier_us", kHold, 0);  // absent: barriers cost nothing extra
  c.block_drain_rounds = r.number_in_or("cost.block_drain_rounds", kHold, 0);    // absent: no drain cost
  c.block_launch_ns = r.number_in_or("cost.block_launch_ns", kHold, 0);  // absent: no launch-rate limit
  c.issue_per_cycle = r.number_in("cost.issue_per_cycle", kIssuePerCycle);
  c.instructions_per_memory_op = r.number_in("cost.instructions_per_memory_op", kInstructionsPerMemoryOp);
  // Absent in profiles without an instruction estimate: memory instructions x the ratio above.
  c.instructions_per_warp = r.number_in_or("cost.instructions_per_warp", kInstructionsPerWarp, 0);
  c.instructions_per_source_op = r.number_in_or("cost.instructions_per_source_op", kInstructionsPerOp, 0);
  if (r.find("cost.whole_lines")) {  // absent in profiles without memsim-held-open's whole-sector runs
    const std::string count = r.text("cost.whole_lines.count");
    if (count != "lone" && count != "whole")
      r.fail("cost.whole_lines.count", "must be \"lone\" (the sectors written without their 64-byte partner in the "
                                       "same round) or \"whole\" (every whole sector), not \"" + echo_text(count) + "\"");
    c.whole_lines_lone_only = count == "lone";
    c.whole_lines_lines = r.number_in("cost.whole_lines.lines", kOpenLines);
    c.whole_lines_exponent = r.number_in("cost.whole_lines.exponent", kHeldOpenExponent);
    c.whole_lines_ps_per_byte = r.number_in("cost.whole_lines.ps_per_byte", kPicosecondsOrNone);
  }
  if (r.find("cost.read_back")) {
    c.read_back_from_lines = r.number_in("cost.read_back.from_lines", kOpenLines);
    c.read_back_per_log_lines = r.number_in("cost.read_back.per_log_lines", kPerLogLines);
    r.numbers_in("cost.read_back.ps_per_byte", 3, lane_classes, kPicosecondsOrNone, c.read_back_ps_per_byte);
    // Absent in profiles from before it: the same read-back whatever writes a sector.
    if (r.find("cost.read_back.sector_warp_factors"))
      r.numbers_in("cost.read_back.sector_warp_factors", 2, "at 4 and 8 warps a sector", kWarpFactor,
                   c.read_back_sector_warp_factors);
    c.read_back_one_warp_factor = r.number_in_or("cost.read_back.one_warp_factor", kWarpFactor, 1);
    if (r.find("cost.read_back.held_open")) {  // absent in profiles without memsim-held-open's runs
      c.read_back_held_open_lines = r.number_in("cost.read_back.held_open.lines", kOpenLines);
      c.read_back_held_open_exponent = r.number_in("cost.read_back.held_open.exponent", kHeldOpenExponent);
      c.read_back_held_open_half_sector_factor =
          r.number_in("cost.read_back.held_open.half_sector_factor", kHalfSectorFactor);
      // Absent in profiles from before it: no read-back past the L2's lines.
      c.read_back_held_open_past_l2_share =
          r.number_in_or("cost.read_back.held_open.past_l2_share", kL2Share, 0);
    }
    if (r.find("cost.read_back.steps_open")) {  // absent in profiles without memsim-step-lines' runs
      r.numbers_in("cost.read_back.steps_open.spread", 3, "sectors from 2, 4 and 8 warps", kStepsOpenSpread,
                   c.read_back_steps_open_spread);
      r.numbers_in("cost.read_back.steps_open.power", 3, "sectors from 2, 4 and 8 warps", kStepsOpenPower,
                   c.read_back_steps_open_power);
    }
    if (r.find("cost.read_back.closed_steps")) {  // absent: the lines-open law for lines closed in their round
      c.read_back_closed_per_log_steps = r.number_in("cost.read_back.closed_steps.per_log_steps", kClosedPerLogSteps);
      c.read_back_closed_steps_scale = r.number_in("cost.read_back.closed_steps.steps_scale", kClosedStepsScale);
      c.read_back_closed_stress = r.number_in("cost.read_back.closed_steps.stress", kClosedStress);
      c.read_back_closed_stress_power = r.number_in("cost.read_back.closed_steps.stress_power", kClosedStressPower);
      c.read_back_closed_lines_power = r.number_in("cost.read_back.closed_steps.lines_power", kClosedLinesPower);
      r.numbers_in("cost.read_back.closed_steps.sector_warp_factors", 2, "at 4 and 8 warps a sector", kWarpFactor,
                   c.read_back_closed_sector_warp_factors);
    }
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
  // Every *.json that is not a directory: one that is no regular file (a FIFO, a symlink loop) is listed, and
  // load_profile says what is wrong with it.
  for (const fs::directory_entry& e : fs::directory_iterator(device_dir(), ec)) {
    std::error_code ec2;
    if (e.path().extension() == ".json" && !e.is_directory(ec2)) names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

// A profile's name: what --device takes (a file name in the profile directory, without ".json").
constexpr size_t kMaxProfileName = 64;
bool plain_profile_name(const std::string& name) {
  if (name.empty() || name.size() > kMaxProfileName || name[0] == '.') return false;
  for (const char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.' && c != '+') return false;
  return true;
}

// The file a profile is read from: a regular file of at most kMaxProfileBytes. A directory, a FIFO or a device
// (/dev/zero read until memory ran out), a symlink loop or a name too long are the user's to fix: ProfileError.
void check_profile_file(const std::string& path) {
  const std::string shown = "device profile " + echo_text(path);
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw ProfileError(shown + ": cannot be read (" + (ec ? ec.message() : "no such file") + ")");
  if (fs::is_directory(st)) throw ProfileError(shown + ": is a directory, not a JSON file");
  if (!fs::is_regular_file(st))
    throw ProfileError(shown + ": is not a regular file (a FIFO, socket or device): a profile is a JSON file");
  const uintmax_t size = fs::file_size(path, ec);
  if (ec) throw ProfileError(shown + ": cannot be read (" + ec.message() + ")");
  if (size > kMaxProfileBytes)
    throw ProfileError(shown + ": is " + std::to_string(size) + " bytes, more than a profile's 1 MiB");
}

}  // namespace

DeviceProfile load_profile(const std::string& name) {
  // A path (with a slash, or ending in .json) names a profile file of the user's own.
  if (name.find('/') != std::string::npos ||
      (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0)) {
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(name, ec)))
      throw ProfileError("no device profile file '" + echo_text(name) + "' (a --device with a '/' or ending in "
                         ".json is a profile's path; memsim --list-devices lists the named ones)");
    return load_profile_file(name);
  }
  const std::string dir = device_dir();
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw ProfileError("unknown device '" + echo_text(name) + "': the profile directory " + echo_text(dir) +
                       " is not a directory (set MEMSIM_DEVICE_DIR)");
  const bool plain = plain_profile_name(name);
  const fs::path path = fs::path(dir) / (plain ? name + ".json" : std::string("-"));
  std::error_code ec2;
  const fs::file_status st = fs::symlink_status(path, ec2);
  if (!plain || !fs::exists(st)) {
    std::ostringstream os;
    os << "unknown device '" << echo_text(name) << "'";
    const std::vector<std::string> known = list_profiles();
    if (known.empty()) {
      os << ": no profiles in " << echo_text(dir) << " (set MEMSIM_DEVICE_DIR)";
    } else {
      os << " (known:";
      for (const std::string& k : known) os << " " << echo_text(k, 32);
      os << ")";
    }
    throw ProfileError(os.str());
  }
  return load_profile_file(path.string());
}

DeviceProfile load_profile_file(const std::string& path) {
  check_profile_file(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ProfileError("device profile " + echo_text(path) + ": cannot be read");
  std::string text(size_t(kMaxProfileBytes) + 1, '\0');
  in.read(text.data(), std::streamsize(text.size()));
  text.resize(size_t(in.gcount()));
  if (text.size() > kMaxProfileBytes)  // it grew since it was checked
    throw ProfileError("device profile " + echo_text(path) + ": is more than a profile's 1 MiB");
  return parse_profile(text, fs::path(path).stem().string(), echo_text(path));
}

DeviceProfile parse_profile(const std::string& text, const std::string& name, const std::string& where) {
  if (text.size() > kMaxProfileBytes)
    throw ProfileError("device profile " + where + ": is " + std::to_string(text.size()) +
                       " bytes, more than a profile's 1 MiB");
  json j;
  try {
    // A key given twice in one object is refused (nlohmann keeps the last: "count": 132, "count": 1 predicted
    // 32 times slower), and so is nesting deeper than a profile's.
    j = parse_strict_json(text, "device profile " + where, kMaxProfileDepth);
  } catch (const json::exception& e) {  // a syntax error, or a number past a double's range (1e400)
    std::string what = e.what();
    if (what.rfind("[json.exception.", 0) == 0 && what.find("] ") != std::string::npos) what.erase(0, what.find("] ") + 2);
    throw ProfileError("device profile " + where + ": not valid JSON (" + echo_text(what, 200) + ")");
  }
  return profile_from_json(j, name, where);
}

AttainableBandwidth attainable_bandwidth(const DeviceProfile& p) {
  if (p.memcpy_gbs > 0) return {p.memcpy_gbs, "cudaMemcpy-measured"};
  return {p.dram_peak_gbs, "data-sheet DRAM peak"};
}

std::string cost_constants_hash(const json& cost) {
  // Every number under the block by its path (texts are notes, not constants), sorted, as %.17g: a double
  // prints the same digits wherever it was parsed or written. FNV-1a, 64 bits: a fingerprint, not a secret.
  std::map<std::string, std::string> lines;
  std::function<void(const json&, const std::string&)> walk = [&](const json& v, const std::string& path) {
    if (v.is_object()) {
      for (const auto& [key, x] : v.items()) walk(x, path.empty() ? key : path + "." + key);
    } else if (v.is_array()) {
      for (size_t i = 0; i < v.size(); ++i) walk(v[i], path + "[" + std::to_string(i) + "]");
    } else if (v.is_number()) {
      char text[40];
      std::snprintf(text, sizeof text, "%.17g", v.get<double>());
      lines[path] = text;
    }
  };
  walk(cost, "");
  uint64_t h = 1469598103934665603ull;
  for (const auto& [path, value] : lines)
    for (const char c : path + "=" + value + "\n") {
      h ^= uint64_t(static_cast<unsigned char>(c));
      h *= 1099511628211ull;
    }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

DeviceProfile profile_from_json(const json& j, const std::string& name, const std::string& where) {
  if (!j.is_object()) throw ProfileError("device profile " + where + ": must be a JSON object");
  const JsonFields r(j, "device profile " + where);
  check_schema(j, "", r);
  check_text_sizes(j, "", r);
  if (r.find("schema_version")) r.integer_literal("schema_version", kProfileSchemaVersion, kProfileSchemaVersion);
  DeviceProfile p;
  p.name = name;
  p.display_name = r.text("display_name");
  p.compute_capability = r.text("compute_capability");
  if (int major = 0, minor = 0; !parse_compute_capability(p.compute_capability, major, minor))
    r.fail("compute_capability",
           "must be MAJOR.MINOR, e.g. \"9.0\", got \"" + echo_text(p.compute_capability, 16) + "\"");
  else if (!known_compute_capability(major, minor))
    r.fail("compute_capability", "must be a compute capability NVIDIA has shipped (1.0-1.3, 2.0, 2.1, 3.0, 3.2, 3.5, "
                                 "3.7, 5.0, 5.2, 5.3, 6.0-6.2, 7.0, 7.2, 7.5, 8.0, 8.6, 8.7, 8.9, 9.0, 10.0, 10.1, "
                                 "10.3, 11.0, 12.0, 12.1), got \"" + p.compute_capability + "\"");
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
  // Both or neither: the carve-outs ascend, the largest is shared.per_sm, and L1 and shared memory hold it.
  if (r.find("shared.l1_and_shared_per_sm") || r.find("shared.carveouts_kb")) {
    p.l1_and_shared_per_sm = r.count_in("shared.l1_and_shared_per_sm", 1, kMaxSharedBytes, "bytes");
    const json& kb = r.array("shared.carveouts_kb");
    for (size_t i = 0; i < kb.size(); ++i) {
      const json& v = kb[i];
      if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > kMaxSharedBytes / 1024)
        r.fail("shared.carveouts_kb[" + std::to_string(i) + "]",
               "must be a whole number of KiB from 0 to " + std::to_string(kMaxSharedBytes / 1024));
      const int64_t bytes = v.get<int64_t>() * 1024;
      if (!p.shared_carveouts.empty() && bytes <= p.shared_carveouts.back())
        r.fail("shared.carveouts_kb", "must ascend");
      p.shared_carveouts.push_back(bytes);
    }
    if (p.shared_carveouts.empty() || p.shared_carveouts.back() != p.shared_per_sm)
      r.fail("shared.carveouts_kb", "must end at shared.per_sm (" + std::to_string(p.shared_per_sm / 1024) + " KiB)");
    if (p.l1_and_shared_per_sm < p.shared_per_sm)
      r.fail("shared.l1_and_shared_per_sm", "must be at least shared.per_sm");
  }

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
  // The device memory a launch's buffers must fit in (optional: no check without it).
  if (r.find("dram.bytes")) p.dram_bytes = r.count_in("dram.bytes", int64_t(1) << 20, int64_t(1) << 50, "bytes");
  p.mem_clock_mhz = r.number_in("dram.clock_mhz", kClockMhz);
  // What cudaMemcpy device to device measured on the card (optional): the bandwidth a user can reach, which
  // reports quote a kernel's bandwidth as a fraction of.
  if (r.find("dram.memcpy")) {
    p.memcpy_gbs = r.number_in("dram.memcpy.gbs", kBandwidth);
    p.memcpy_measured = r.text("dram.memcpy.measured");
  }
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
    // The rest of what memsim-calibrate writes, by type: a report quotes the date and the device.
    for (const char* key : {"measurements", "base", "date", "device", "method"})
      if (c->contains(key)) r.string(std::string("calibration.") + key);
    for (const char* key : {"driver_version", "runtime_version"})
      if (c->contains(key)) r.integer_literal(std::string("calibration.") + key, 0, INT32_MAX);
    if (c->contains("runs_left_out")) r.integer_literal("calibration.runs_left_out", 0, 1000000);
    // How the fitted profile predicts kernels no fit saw (validate/figures.py checks it against the runs).
    if (c->contains("heldout")) {
      r.integer_literal("calibration.heldout.configurations", 1, 1000000);
      r.number_in("calibration.heldout.mape_pct", NumberRange{0, 1e6, false, "%"});
      r.number_in("calibration.heldout.worst_pct", NumberRange{-1e6, 1e6, false, "%"});
      r.text("calibration.heldout.runs");
    }
    // The fingerprint of the cost constants the fit wrote: constants edited since no longer carry the fit's name.
    if (c->contains("constants_hash")) {
      const std::string hash = r.string("calibration.constants_hash");
      if (hash.size() != 16 || hash.find_first_not_of("0123456789abcdef") != std::string::npos)
        r.fail("calibration.constants_hash", "must be 16 lower-case hex digits (memsim-calibrate writes it)");
      if (const json* cost = r.find("cost"); cost && cost_constants_hash(*cost) != hash) p.hand_edited = true;
    }
    if (c->contains("rms_log_error")) r.number_in("calibration.rms_log_error", NumberRange{0, 1000, false, ""});
    for (const char* key : {"fitted", "held", "warnings"})
      if (c->contains(key))
        for (const json& item : r.array(std::string("calibration.") + key))
          if (!item.is_string()) r.fail(std::string("calibration.") + key, "must be an array of strings");
    p.calibration = *c;
    p.calibrated = !p.hand_edited;
    p.cost_basis = p.hand_edited ? "hand_edited" : "calibrated";
  }
  if (r.find("cost_basis")) {
    if (r.find("calibration"))
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
  // Two figures, each named: how well the constants fit the runs they were fitted to, and how well the profile
  // predicts kernels no fit saw (the figure a user's kernel should expect).
  if (c.contains("mape_pct") && c["mape_pct"].is_number()) {
    os << "; microbenchmark fit: MAPE " << significant(c["mape_pct"].get<double>(), 2) << "%";
    if (c.contains("max_error_pct") && c["max_error_pct"].is_number())
      os << ", worst " << significant(c["max_error_pct"].get<double>(), 2) << "%";
  }
  if (c.contains("heldout") && c["heldout"].is_object()) {
    const json& h = c["heldout"];
    char worst[32];
    std::snprintf(worst, sizeof worst, "%+.1f", h["worst_pct"].get<double>());
    os << "; on " << h["configurations"].get<int64_t>() << " held-out configurations: MAPE "
       << significant(h["mape_pct"].get<double>(), 2) << "%, worst " << worst << "% (docs/validation.md)";
  } else {
    os << "; on held-out kernels: not measured for this profile (docs/validation.md)";
  }
  return os.str();
}

}  // namespace

std::string cost_basis_text(const DeviceProfile& p) {
  if (p.calibrated) return "calibrated: " + calibration_text(p.calibration);
  if (p.hand_edited) {
    const json& c = p.calibration;
    const std::string date = c.contains("date") && c["date"].is_string() ? c["date"].get<std::string>() : "?";
    return "hand-edited after calibration (fit of " + date + " no longer applies): its cost constants differ "
           "from those memsim-calibrate wrote; NOT CALIBRATED";
  }
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
  const AttainableBandwidth a = attainable_bandwidth(p);
  j["attainable_bandwidth"] = {{"gbs", a.gbs}, {"basis", a.basis}};
  if (!p.memcpy_measured.empty()) j["attainable_bandwidth"]["measured"] = p.memcpy_measured;
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
