// Device profiles: the shipped files load and say what the data sheets say; errors are one clear line.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <stdexcept>
#include <tuple>

#include "model/cost.hpp"
#include "model/json_fields.hpp"
#include "model/profile.hpp"

namespace memsim {
namespace {

namespace fs = std::filesystem;

TEST(Profile, ListsTheShippedDevices) {
  const std::vector<std::string> names = list_profiles();
  for (const char* n : {"8800gtx", "a100", "gtx280", "h100", "v100"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
}

TEST(Profile, H100Limits) {
  const DeviceProfile p = load_profile("h100");
  EXPECT_EQ(p.compute_capability, "9.0");
  EXPECT_EQ(p.sms, 132);
  EXPECT_EQ(p.max_threads_per_sm, 2048);
  EXPECT_EQ(p.max_blocks_per_sm, 32);
  EXPECT_EQ(p.shared_per_block, 48 * 1024);
  EXPECT_EQ(p.shared_per_block_optin, 227 * 1024);
  EXPECT_EQ(p.l2_bytes, 50 * 1024 * 1024);
  EXPECT_EQ(p.coalescing, "sectors32");
  EXPECT_TRUE(p.partitions.assumed);
  EXPECT_FALSE(p.partitions.note.empty());
  const LaunchLimits l = launch_limits(p);
  EXPECT_EQ(l.max_threads_per_block, 1024);
  EXPECT_EQ(l.max_shared_per_block, 227 * 1024);
  const MemoryRules m = memory_rules(p);
  EXPECT_EQ(m.sector_bytes, 32);
  EXPECT_EQ(m.banks.banks, 32);
  EXPECT_EQ(m.banks.phase_lanes, 32);
}

TEST(Profile, WhitepaperDevices) {
  const DeviceProfile gt200 = load_profile("gtx280");
  EXPECT_EQ(gt200.partitions.policy, PartitionSpec::Policy::Linear);
  EXPECT_EQ(gt200.partitions.count, 8);
  EXPECT_EQ(gt200.partitions.granularity_bytes, 256);
  EXPECT_FALSE(gt200.partitions.assumed);
  EXPECT_EQ(memory_rules(gt200).banks.banks, 16);
  EXPECT_EQ(memory_rules(gt200).banks.phase_lanes, 16);
  EXPECT_EQ(memory_rules(gt200).coalescing, GlobalCoalescing::Cc12Segments);
  EXPECT_EQ(launch_limits(gt200).max_threads_per_block, 512);
  const DeviceProfile g80 = load_profile("8800gtx");
  EXPECT_EQ(g80.partitions.count, 6);
  EXPECT_EQ(g80.partitions.granularity_bytes, 256);
  EXPECT_EQ(memory_rules(g80).coalescing, GlobalCoalescing::Cc10Strict);
  EXPECT_EQ(g80.max_threads_per_sm, 768);
}

TEST(Profile, UnknownDeviceListsTheKnownOnes) {
  try {
    load_profile("h900");
    FAIL() << "no error";
  } catch (const ProfileError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("unknown device 'h900'"), std::string::npos) << what;
    EXPECT_NE(what.find("h100"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos);
  }
  EXPECT_THROW(load_profile("../model/devices/h100"), ProfileError);
}

// A scratch device directory, pointed to by MEMSIM_DEVICE_DIR for the test's lifetime.
class ScratchDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("memsim_profiles_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    setenv("MEMSIM_DEVICE_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("MEMSIM_DEVICE_DIR");
    fs::remove_all(dir_);
  }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir_ / (name + ".json")) << text; }
  // The shipped H100 profile, to be edited into broken ones.
  static nlohmann::json shipped_h100() {
    std::ifstream in(std::string(MEMSIM_TEST_DEVICE_DIR) + "/h100.json");
    return nlohmann::json::parse(in);
  }
  // Each field of cost.`group` left out in turn: the profile is refused, the error naming the field.
  void expect_each_field_required(nlohmann::json j, const std::string& group,
                                  std::initializer_list<const char*> fields) {
    const nlohmann::json good = j["cost"][group];
    for (const char* field : fields) {
      j["cost"][group] = good;
      j["cost"][group].erase(field);
      write("missing", j.dump());
      try {
        load_profile("missing");
        FAIL() << field;
      } catch (const ProfileError& e) {
        EXPECT_NE(std::string(e.what()).find("cost." + group + "." + field), std::string::npos) << e.what();
      }
    }
  }
  // `j` written as a profile is refused with an error that names `field`.
  void expect_refused(const nlohmann::json& j, const std::string& field) {
    write("refused", j.dump());
    try {
      load_profile("refused");
      ADD_FAILURE() << "accepted: " << field;
    } catch (const ProfileError& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  }
  fs::path dir_;
};

TEST_F(ScratchDir, MalformedFilesNameTheFileAndField) {
  write("broken", "{ not json");
  write("partial", R"({"display_name": "x", "compute_capability": "9.0"})");
  EXPECT_EQ(list_profiles(), (std::vector<std::string>{"broken", "partial"}));
  try {
    load_profile("broken");
    FAIL();
  } catch (const ProfileError& e) {
    EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
  try {
    load_profile("partial");
    FAIL();
  } catch (const ProfileError& e) {
    EXPECT_NE(std::string(e.what()).find("field 'sm.count' is missing"), std::string::npos) << e.what();
  }
}

// A profile without cost.sector_from_warps_one_round_ps prices those sectors as the others (the profiles
// before the two were measured apart); one with it, at its own value.
TEST_F(ScratchDir, OneRoundSectorCostDefaultsToTheOther) {
  nlohmann::json j = shipped_h100();
  j["cost"]["sector_from_warps_ps"] = 12.5;
  j["cost"].erase("sector_from_warps_one_round_ps");
  write("h100a", j.dump());
  EXPECT_DOUBLE_EQ(load_profile("h100a").cost.sector_from_warps_one_round_ps, 12.5);
  j["cost"]["sector_from_warps_one_round_ps"] = 3.0;
  write("h100b", j.dump());
  EXPECT_DOUBLE_EQ(load_profile("h100b").cost.sector_from_warps_one_round_ps, 3.0);
  EXPECT_DOUBLE_EQ(load_profile("h100b").cost.sector_from_warps_ps, 12.5);
  // In range as the other.
  j["cost"]["sector_from_warps_one_round_ps"] = 1e300;
  expect_refused(j, "'cost.sector_from_warps_one_round_ps'");
}

// cost.split_line_scattered_ps: absent, not charged (0); present, its value; out of range (negative, or past
// 10,000 ps), named.
TEST_F(ScratchDir, SplitLineScatteredCost) {
  nlohmann::json j = shipped_h100();
  j["cost"].erase("split_line_scattered_ps");
  write("sla", j.dump());
  EXPECT_DOUBLE_EQ(load_profile("sla").cost.split_line_scattered_ps, 0.0);
  j["cost"]["split_line_scattered_ps"] = 31.5;
  write("slb", j.dump());
  EXPECT_DOUBLE_EQ(load_profile("slb").cost.split_line_scattered_ps, 31.5);
  for (double bad : {-1.0, 2e4}) {
    SCOPED_TRACE(bad);
    j["cost"]["split_line_scattered_ps"] = bad;
    expect_refused(j, "'cost.split_line_scattered_ps'");
  }
}

TEST_F(ScratchDir, WrongTypesAreNamed) {
  nlohmann::json j = shipped_h100();
  j["sm"]["count"] = "many";
  write("h100x", j.dump());
  try {
    load_profile("h100x");
    FAIL();
  } catch (const ProfileError& e) {
    EXPECT_NE(std::string(e.what()).find("field 'sm.count' must be a positive integer"), std::string::npos) << e.what();
  }
  j["sm"]["count"] = 132;
  j["dram"]["partitions"]["policy"] = "random";
  write("h100y", j.dump());
  EXPECT_THROW(load_profile("h100y"), ProfileError);
}

// Values the counting code cannot take are refused with the field named, not met later by an abort, a
// division by zero or a wrapped integer.
TEST_F(ScratchDir, OutOfRangeValuesAreNamed) {
  const std::vector<std::pair<std::string, nlohmann::json>> bad = {
      {"shared.banks", 3},                               // not a power of two
      {"shared.banks", 1073741824},                      // 2^30 banks
      {"shared.bank_bytes", 3},
      {"shared.bank_bytes", 1073741824},                 // divided by, shifted by
      {"shared.phase_lanes", 64},                        // more than a warp
      {"shared.reserved_per_block", -1},
      {"shared.reserved_per_block", 1.5},
      {"global.sector_bytes", 8},                        // below 16: a 16-byte lane spans three
      {"global.sector_bytes", 1073741824},
      {"dram.partitions.count", 1073741824},
      {"launch.max_grid_x", 1000000000000LL},            // past a 32-bit grid
      {"kernel_registers.copy/f32", 4294967297LL},       // 2^32 + 1 would read as 1
      {"kernel_registers.copy/f32", 1000},               // past the H100's 255
      {"sm.count", 18446744073709551615ULL},             // 2^64 - 1 would read as -1
      {"l2_bytes", 1e30},
      {"shared.carveouts_kb", nlohmann::json::array({0, 100, 64, 228})},  // not ascending
      {"shared.carveouts_kb", nlohmann::json::array({0, 8, 16})},          // not ending at shared.per_sm
      {"shared.carveouts_kb", "all"},                                      // not an array
      {"shared.l1_and_shared_per_sm", 1024},                               // less than shared.per_sm
      {"cost.l1_line_hold_us", -1},
  };
  for (const auto& [path, value] : bad) {
    nlohmann::json j = shipped_h100();
    nlohmann::json* node = &j;
    for (size_t start = 0;;) {
      const size_t dot = path.find('.', start);
      node = &(*node)[path.substr(start, dot == std::string::npos ? std::string::npos : dot - start)];
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    *node = value;
    write("bad", j.dump());
    try {
      load_profile("bad");
      ADD_FAILURE() << path << " = " << value.dump() << " accepted";
    } catch (const ProfileError& e) {
      EXPECT_NE(std::string(e.what()).find("'" + path + "'"), std::string::npos) << path << ": " << e.what();
    }
  }
  // A number past a double's range is a JSON error, reported as one (it escaped as an exception before).
  write("huge", R"({"display_name": 1e400})");
  try {
    load_profile("huge");
    FAIL();
  } catch (const ProfileError& e) {
    EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos) << e.what();
  }
}

// Every number of a profile has a physical range: a cost field of 1e300 was accepted and predicted
// 4e296 us. Each numeric leaf of the shipped H100 profile (the others' fields but the H200's measured-there
// read_back.steps_open), set to 1e300 and to -1e300 in turn, is refused
// with the field named by its path; the calibration block is a record of the fit, read by people only.
TEST_F(ScratchDir, EveryNumericFieldHasAPhysicalRange) {
  const nlohmann::json shipped = shipped_h100();
  // Each numeric leaf: its JSON pointer, and the field as the error names it (dots between keys, [i] for an
  // array's items; the XOR bits are named as the array).
  std::vector<std::pair<std::string, std::string>> leaves;
  const std::function<void(const nlohmann::json&, const std::string&, const std::string&)> walk =
      [&](const nlohmann::json& v, const std::string& pointer, const std::string& field) {
        if (v.is_object()) {
          for (const auto& [k, item] : v.items()) {
            if (pointer.empty() && k == "calibration") continue;
            std::string escaped;  // RFC 6901: ~ and / within a key
            for (char c : k) escaped += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
            walk(item, pointer + "/" + escaped, (field.empty() ? "" : field + ".") + k);
          }
        } else if (v.is_array()) {
          for (size_t i = 0; i < v.size(); ++i)
            walk(v[i], pointer + "/" + std::to_string(i),
                 field.find("xor_bits") != std::string::npos ? field : field + "[" + std::to_string(i) + "]");
        } else if (v.is_number()) {
          leaves.emplace_back(pointer, field);
        }
      };
  walk(shipped, "", "");
  ASSERT_GT(leaves.size(), 50u);  // about 60 outside the register table and the XOR bits, 39 in the table
  for (const auto& [pointer, field] : leaves) {
    for (const double value : {1e300, -1e300}) {
      nlohmann::json j = shipped;
      j[nlohmann::json::json_pointer(pointer)] = value;
      write("bad", j.dump());
      try {
        load_profile("bad");
        ADD_FAILURE() << pointer << " = " << value << " accepted";
      } catch (const ProfileError& e) {
        EXPECT_NE(std::string(e.what()).find("'" + field + "'"), std::string::npos) << pointer << ": " << e.what();
      }
    }
  }
}

// The message names the field, the value and the range with its unit.
TEST_F(ScratchDir, OutOfRangeMessagesNameTheValueAndTheRange) {
  const std::vector<std::tuple<std::string, nlohmann::json, std::string>> cases = {
      {"/cost/latency_us", 1e300, "field 'cost.latency_us' must be above 0 and at most 100 us, got 1e+300"},
      {"/cost/dram_gbs", 0.5, "field 'cost.dram_gbs' must be from 1 to 100000 GB/s, got 0.5"},
      {"/cost/partial_store_ps/1", 2e4, "field 'cost.partial_store_ps[1]' must be above 0 and at most 10000 ps, got 20000.0"},
      {"/cost/read_back/ps_per_byte/2", -1, "field 'cost.read_back.ps_per_byte[2]' must be from 0 to 10000 ps, got -1"},
      {"/cost/overlap_p", 0.5, "field 'cost.overlap_p' must be from 1 to 100, got 0.5"},
      {"/cost/issue_per_cycle", 0, "field 'cost.issue_per_cycle' must be from 0.05 to 64 warp instructions a cycle, got 0"},
      {"/sm/clock_mhz", 1.98e9, "field 'sm.clock_mhz' must be from 100 to 100000 MHz, got 1980000000.0"},
      {"/sm/count", 100000, "field 'sm.count' must be from 1 to 4096 SMs, got 100000"},
      {"/sm/max_warps", 32, "field 'sm.max_warps' must be sm.max_threads / 32 (64), got 32"},
      {"/shared/per_sm", 1LL << 40, "field 'shared.per_sm' must be from 1 to 2^26 bytes, got 1099511627776"},
      {"/dram/bus_width_bits", 0, "field 'dram.bus_width_bits' must be a positive integer"},
      {"/dram/partitions/count", 5000, "field 'dram.partitions.count' must be from 1 to 4096 partitions, got 5000"},
      {"/global/sector_bytes", 128, "field 'global.sector_bytes' must be a power of two from 16 to 64, got 128"},
  };
  for (const auto& [pointer, value, message] : cases) {
    nlohmann::json j = shipped_h100();
    j[nlohmann::json::json_pointer(pointer)] = value;
    write("bad", j.dump());
    try {
      load_profile("bad");
      ADD_FAILURE() << pointer << " accepted";
    } catch (const ProfileError& e) {
      EXPECT_EQ(e.what(), "device profile " + (dir_ / "bad.json").string() + ": " + message);
    }
  }
}

// Fuzzing finding: read-back factors of 2.15e-319 and 1.88 at 4 and 8 warps were accepted, and
// the geometric interpolation between them (1.88 / 2.15e-319 overflows) gave 5 to 7 warps an infinite factor,
// printed as null. The factors now lie from 0.1 to 100; at both ends every warp count gets a finite factor
// within them.
TEST_F(ScratchDir, ReadBackWarpFactorsStayFinite) {
  nlohmann::json j = shipped_h100();
  j["cost"]["read_back"]["sector_warp_factors"] = {2.15e-319, 1.88};
  write("tiny", j.dump());
  try {
    load_profile("tiny");
    ADD_FAILURE() << "accepted";
  } catch (const ProfileError& e) {
    EXPECT_NE(std::string(e.what()).find("field 'cost.read_back.sector_warp_factors[0]' must be from 0.1 to 100"),
              std::string::npos) << e.what();
  }
  for (const auto& [at4, at8] : {std::pair{0.1, 100.0}, std::pair{100.0, 0.1}}) {
    j["cost"]["read_back"]["sector_warp_factors"] = {at4, at8};
    write("edges", j.dump());
    const DeviceProfile p = load_profile("edges");
    for (int warps = 1; warps <= 32; ++warps) {
      const double f = read_back_sector_warp_factor(p.cost, warps);
      EXPECT_TRUE(std::isfinite(f) && f >= 0.1 && f <= 100) << at4 << ", " << at8 << " at " << warps << ": " << f;
    }
  }
}

// Fuzzing finding: a calibration block whose "runs" held -1.08e236 was accepted, and every report's provenance
// line converted it to an integer (undefined behaviour). The figures a report quotes from the block are checked
// on load: runs a whole number from 1 to 10^6, the fit's percentages from 0 to 10^6; the shipped values pass.
TEST_F(ScratchDir, CalibrationFiguresAreChecked) {
  const std::vector<std::pair<const char*, nlohmann::json>> bad = {
      {"runs", -1.0773087426743214e+236}, {"runs", 0}, {"runs", 2.5}, {"runs", "132"},
      {"mape_pct", -1}, {"mape_pct", 1e300}, {"max_error_pct", "40"}};
  for (const auto& [key, value] : bad) {
    nlohmann::json j = shipped_h100();
    j["calibration"][key] = value;
    write("badcal", j.dump());
    try {
      load_profile("badcal");
      ADD_FAILURE() << key << " = " << value.dump() << " accepted";
    } catch (const ProfileError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("calibration.") + key), std::string::npos) << e.what();
    }
  }
  nlohmann::json j = shipped_h100();
  j["calibration"]["runs"] = 1000000;
  j["calibration"]["mape_pct"] = 0;
  write("edgecal", j.dump());
  const DeviceProfile p = load_profile("edgecal");
  EXPECT_NE(cost_basis_text(p).find("fitted to 1000000 microbenchmark runs"), std::string::npos) << cost_basis_text(p);
}

// The read-back constants are optional (absent: no read-back), else all three, ps_per_byte 3 numbers.
TEST_F(ScratchDir, ReadBackConstants) {
  nlohmann::json j = shipped_h100();
  write("shipped", j.dump());
  EXPECT_GT(load_profile("shipped").cost.read_back_from_lines, 0);
  expect_each_field_required(j, "read_back", {"from_lines", "per_log_lines", "ps_per_byte"});
  j["cost"]["read_back"]["ps_per_byte"] = {4.7, 0};
  write("short", j.dump());
  EXPECT_THROW(load_profile("short"), ProfileError);
  j["cost"]["read_back"]["ps_per_byte"] = {4.7, -1, 0};
  write("negative", j.dump());
  EXPECT_THROW(load_profile("negative"), ProfileError);
  j["cost"].erase("read_back");
  write("plain", j.dump());
  EXPECT_EQ(load_profile("plain").cost.read_back_from_lines, 0);
}

// The read-back by the steps (cost.read_back.closed_steps) is optional (absent: per_log_steps 0, the lines-open
// law alone), else its five numbers and two warp factors in range, named by their path when out of it.
TEST_F(ScratchDir, ClosedStepsConstants) {
  nlohmann::json j = shipped_h100();
  j["cost"]["read_back"].erase("closed_steps");
  write("without", j.dump());
  EXPECT_EQ(load_profile("without").cost.read_back_closed_per_log_steps, 0);
  j["cost"]["read_back"]["closed_steps"] = {{"per_log_steps", 0.36}, {"steps_scale", 0.1}, {"stress", 146},
                                            {"stress_power", 3}, {"lines_power", 0.57},
                                            {"sector_warp_factors", {0.95, 0.33}}, {"note", "x"}};
  write("with", j.dump());
  const DeviceProfile p = load_profile("with");
  EXPECT_EQ(p.cost.read_back_closed_per_log_steps, 0.36);
  EXPECT_EQ(p.cost.read_back_closed_stress, 146);
  EXPECT_EQ(p.cost.read_back_closed_lines_power, 0.57);
  EXPECT_EQ(p.cost.read_back_closed_sector_warp_factors[1], 0.33);
  j["cost"]["read_back"]["closed_steps"].erase("stress");
  write("short", j.dump());
  EXPECT_THROW(load_profile("short"), ProfileError);
  j["cost"]["read_back"]["closed_steps"]["stress"] = 146;
  j["cost"]["read_back"]["closed_steps"]["lines_power"] = -1;
  write("negative", j.dump());
  try {
    load_profile("negative");
    ADD_FAILURE() << "lines_power -1 accepted";
  } catch (const ProfileError& e) {
    EXPECT_NE(std::string(e.what()).find("'cost.read_back.closed_steps.lines_power'"), std::string::npos) << e.what();
  }
}

// How many of a block's steps hold their lines open at once (cost.read_back.steps_open) is optional (absent:
// all of them, spread -1), else spread and power, 3 numbers each (sectors from 2, 4 and 8 warps) in range.
TEST_F(ScratchDir, StepsOpenConstants) {
  nlohmann::json j = shipped_h100();
  j["cost"]["read_back"].erase("steps_open");  // the shipped profiles carry it since 2026-12-05
  write("without", j.dump());
  EXPECT_EQ(load_profile("without").cost.read_back_steps_open_spread[1], -1);
  j["cost"]["read_back"]["steps_open"] = {{"spread", {0.3, 0.18, 0.57}}, {"power", {1.45, 1.05, 0.25}}, {"note", "x"}};
  write("with", j.dump());
  const DeviceProfile p = load_profile("with");
  EXPECT_EQ(p.cost.read_back_steps_open_spread[1], 0.18);
  EXPECT_EQ(p.cost.read_back_steps_open_power[2], 0.25);
  j["cost"]["read_back"]["steps_open"]["power"] = {1.45, 1.05};
  write("short", j.dump());
  EXPECT_THROW(load_profile("short"), ProfileError);
  j["cost"]["read_back"]["steps_open"]["power"] = {1.45, 1.05, 5};
  write("steep", j.dump());
  try {
    load_profile("steep");
    ADD_FAILURE() << "power 5 accepted";
  } catch (const ProfileError& e) {
    EXPECT_NE(std::string(e.what()).find("'cost.read_back.steps_open.power[2]'"), std::string::npos) << e.what();
  }
  j["cost"]["read_back"]["steps_open"].erase("spread");
  j["cost"]["read_back"]["steps_open"]["power"] = {1, 1, 1};
  write("half", j.dump());
  EXPECT_THROW(load_profile("half"), ProfileError);
}

// The cost of lines written whole over rounds (cost.whole_lines) is optional (absent: nothing charged); its
// count is "lone" or "whole", its scale, exponent and cost in range.
TEST_F(ScratchDir, WholeLinesConstants) {
  nlohmann::json j = shipped_h100();
  j["cost"].erase("whole_lines");
  write("without", j.dump());
  EXPECT_EQ(load_profile("without").cost.whole_lines_lines, 0);
  j["cost"]["whole_lines"] = {{"count", "whole"}, {"lines", 150000}, {"exponent", 2.5}, {"ps_per_byte", 4.5},
                              {"note", "x"}};
  write("with", j.dump());
  const DeviceProfile p = load_profile("with");
  EXPECT_FALSE(p.cost.whole_lines_lone_only);
  EXPECT_EQ(p.cost.whole_lines_lines, 150000);
  EXPECT_EQ(p.cost.whole_lines_exponent, 2.5);
  EXPECT_EQ(p.cost.whole_lines_ps_per_byte, 4.5);
  j["cost"]["whole_lines"]["count"] = "lone";
  write("lone", j.dump());
  EXPECT_TRUE(load_profile("lone").cost.whole_lines_lone_only);
  j["cost"]["whole_lines"]["count"] = "half";
  write("half", j.dump());
  try {
    load_profile("half");
    ADD_FAILURE() << "count half accepted";
  } catch (const ProfileError& e) {
    EXPECT_NE(std::string(e.what()).find("'cost.whole_lines.count'"), std::string::npos) << e.what();
  }
  j["cost"]["whole_lines"]["count"] = "lone";
  j["cost"]["whole_lines"]["exponent"] = 50;
  write("steep", j.dump());
  EXPECT_THROW(load_profile("steep"), ProfileError);
  j["cost"]["whole_lines"].erase("exponent");
  write("short", j.dump());
  EXPECT_THROW(load_profile("short"), ProfileError);
}

// Each caveat is optional (absent: none), else a positive threshold and the evidence behind it: the long wait
// (lines a request), the store bursts (stores a warp), the half-sector wait (lines a request) and the split lines
// (a share of sectors); so is the
// next-store merge rule (warps a block, at most 32, and stores a warp).
TEST_F(ScratchDir, CaveatsNeedTheirEvidence) {
  struct Caveat {
    const char* key;
    const char* threshold;
    double CostConstants::*field;
    double shipped;
  };
  for (const Caveat& c : {Caveat{"long_wait", "from_lines", &CostConstants::long_wait_lines, 8},
                          Caveat{"store_bursts", "from_stores", &CostConstants::store_burst_stores, 8},
                          Caveat{"half_sector_wait", "from_lines", &CostConstants::half_sector_wait_lines, 2},
                          Caveat{"split_lines", "from_whole_share", &CostConstants::split_line_whole_share, 0.25},
                          Caveat{"narrow_lane_pieces", "from_share", &CostConstants::narrow_lane_piece_share, 0.5},
                          Caveat{"next_store_merge", "up_to_warps", &CostConstants::next_store_merge_warps, 2}}) {
    SCOPED_TRACE(c.key);
    nlohmann::json j = shipped_h100();
    write("shipped", j.dump());
    EXPECT_EQ(load_profile("shipped").cost.*c.field, c.shipped);
    expect_each_field_required(j, c.key, {c.threshold, "evidence"});
    j["cost"][c.key][c.threshold] = 0;
    write("zero", j.dump());
    EXPECT_THROW(load_profile("zero"), ProfileError);
    if (std::string(c.key) == "next_store_merge") {
      j["cost"][c.key][c.threshold] = 33;
      write("too_many", j.dump());
      EXPECT_THROW(load_profile("too_many"), ProfileError);
      j["cost"][c.key][c.threshold] = 2;
      j["cost"][c.key].erase("up_to_stores");  // the rule's second bound, required with it
      write("no_stores", j.dump());
      EXPECT_THROW(load_profile("no_stores"), ProfileError);
      j["cost"][c.key]["up_to_stores"] = 2;
      write("both", j.dump());
      EXPECT_EQ(load_profile("both").cost.next_store_merge_stores, 2);
    }
    j["cost"].erase(c.key);
    write("plain", j.dump());
    EXPECT_EQ(load_profile("plain").cost.*c.field, 0);
  }
}

// The drain table is optional (absent: not charged), else four tables of 30 shares (0 to 1) and its evidence: the
// shipped one's first cell (1 warp, 2 stores, 2-byte lanes, staged) is 0.99.
TEST_F(ScratchDir, DrainMergesAreFourTablesOfShares) {
  nlohmann::json j = shipped_h100();
  write("shipped", j.dump());
  const CostConstants shipped = load_profile("shipped").cost;
  EXPECT_TRUE(shipped.has_drain_merges);
  EXPECT_DOUBLE_EQ(shipped.drain_merges[0][1][0], 0.99);
  expect_each_field_required(j, "drain_merges",
                             {"lanes_2_staged", "lanes_2_direct", "lanes_4_staged", "lanes_4_direct", "evidence"});
  j["cost"]["drain_merges"]["lanes_4_direct"][29] = 1.5;  // a share past 1
  write("past_one", j.dump());
  EXPECT_THROW(load_profile("past_one"), ProfileError);
  j["cost"]["drain_merges"]["lanes_4_direct"].erase(29);  // 29 numbers
  write("short", j.dump());
  EXPECT_THROW(load_profile("short"), ProfileError);
  j["cost"].erase("drain_merges");
  write("plain", j.dump());
  EXPECT_FALSE(load_profile("plain").cost.has_drain_merges);
}

// The crossbar's cost per store slot is optional (absent: no such term), never negative.
TEST_F(ScratchDir, CrossbarSlotCostIsOptional) {
  nlohmann::json j = shipped_h100();
  write("shipped", j.dump());
  EXPECT_GT(load_profile("shipped").cost.l2_write_slot_ps, 0);
  j["cost"]["l2_write_slot_ps"] = -1;
  write("negative", j.dump());
  EXPECT_THROW(load_profile("negative"), ProfileError);
  j["cost"].erase("l2_write_slot_ps");
  write("plain", j.dump());
  EXPECT_EQ(load_profile("plain").cost.l2_write_slot_ps, 0);
}

// The per-division instructions are optional (absent: divisions cost nothing extra), else two numbers.
TEST_F(ScratchDir, InstructionsPerDivisionAreTwoNumbers) {
  nlohmann::json j = shipped_h100();
  write("shipped", j.dump());
  EXPECT_EQ(load_profile("shipped").cost.instructions_per_division[1], 25);
  j["cost"].erase("instructions_per_division");
  write("plain", j.dump());
  EXPECT_EQ(load_profile("plain").cost.instructions_per_division[0], 0);
  for (const char* bad : {"[17]", "17", "[17, -1]", "[\"a\", 25]"}) {
    j["cost"]["instructions_per_division"] = nlohmann::json::parse(bad);
    write("bad", j.dump());
    try {
      load_profile("bad");
      FAIL() << bad;
    } catch (const ProfileError& e) {
      EXPECT_NE(std::string(e.what()).find("field 'cost.instructions_per_division"), std::string::npos) << e.what();
    }
  }
}

// The one reader of JSON fields (model/json_fields.hpp) in the profile readers' words: a ProfileError naming
// the document and the field by its path, through nested objects, array items and map members whose keys
// hold dots. (memsim-validate --render reads its runs with the same reader: tests/gpu/validate_host_test.cpp.)
// Where the constants come from: the calibration block (which run, the fit's error) or the cost_basis block of a
// profile no GPU calibrated; the figures quoted are the block's own, rounded to two significant digits.
TEST_F(ScratchDir, ProvenanceNamesTheRunOrTheStandIns) {
  nlohmann::json j = shipped_h100();
  j["calibration"] = {{"date", "2026-01-02T03:04:05Z"}, {"device", "Test GPU"}, {"runs", 12},
                      {"mape_pct", 4.349}, {"max_error_pct", 18.51}};
  write("cal", j.dump());
  const DeviceProfile cal = load_profile("cal");
  EXPECT_TRUE(cal.calibrated);
  EXPECT_EQ(cal.cost_basis, "calibrated");
  EXPECT_EQ(cost_basis_text(cal), "calibrated: cost constants fitted to 12 microbenchmark runs on Test GPU "
                                  "(2026-01-02T03:04:05Z); microbenchmark fit: MAPE 4.3%, worst 19%; on held-out "
                                  "kernels: not measured for this profile (docs/validation.md)");
  EXPECT_EQ(provenance_line(cal).rfind("cal (NVIDIA H100 SXM5 80GB HBM3, compute capability 9.0): calibrated: ", 0),
            0u);
  const nlohmann::ordered_json pj = provenance_json(cal);
  EXPECT_EQ(pj["profile"], "cal");
  EXPECT_EQ(pj["calibrated"], true);
  EXPECT_EQ(pj["calibration"]["runs"], 12);
  EXPECT_EQ(pj["calibration"]["date"], "2026-01-02T03:04:05Z");

  j.erase("calibration");
  write("plain", j.dump());
  const DeviceProfile plain = load_profile("plain");
  EXPECT_FALSE(plain.calibrated);
  EXPECT_EQ(plain.cost_basis, "data_sheet");  // the default
  EXPECT_EQ(cost_basis_text(plain), "NOT CALIBRATED: data-sheet stand-ins; no GPU has checked them");
  EXPECT_TRUE(provenance_json(plain)["calibration"].is_null());

  j["cost_basis"] = {{"kind", "published"}, {"summary", "from a paper"}};
  write("paper", j.dump());
  EXPECT_EQ(cost_basis_text(load_profile("paper")),
            "NOT CALIBRATED: constants derived from published measurements (from a paper); memsim has not checked "
            "them on a GPU");
  for (const auto& [field, value] :
       std::vector<std::pair<std::string, nlohmann::json>>{{"cost_basis.kind", {{"kind", "guess"}, {"summary", "x"}}},
                                                           {"cost_basis.summary", {{"kind", "data_sheet"}}}}) {
    j["cost_basis"] = value;
    expect_refused(j, field);
  }
  // Both blocks: a stand-in's description on calibrated constants is a contradiction.
  j["cost_basis"] = {{"kind", "data_sheet"}, {"summary", "x"}};
  j["calibration"] = {{"runs", 1}};
  expect_refused(j, "cost_basis");
}

// The shipped profiles: h100 and h200 are calibrated; gtx280's constants come from the whitepaper's timings;
// h200_datasheet is the H200 predicted from the h100 profile and the data sheet, before its calibration.
TEST(Profile, ShippedProvenance) {
  EXPECT_EQ(load_profile("h100").cost_basis, "calibrated");
  EXPECT_EQ(load_profile("h200").cost_basis, "calibrated");
  EXPECT_EQ(load_profile("gtx280").cost_basis, "published");
  for (const char* n : {"a100", "v100", "8800gtx", "h200_datasheet"}) {
    const DeviceProfile p = load_profile(n);
    EXPECT_EQ(p.cost_basis, "data_sheet") << n;
    EXPECT_NE(cost_basis_text(p).find("NOT CALIBRATED"), std::string::npos) << n;
  }
}

// f64 arrived with compute capability 1.3; every other type is 2- or 4-byte words any device moves. A compute
// capability that is not MAJOR.MINOR is refused when the profile loads.
TEST_F(ScratchDir, DoublePrecisionFromComputeCapability13) {
  nlohmann::json j = shipped_h100();
  for (const auto& [cc, f64] : std::vector<std::pair<std::string, bool>>{{"1.0", false},
                                                                          {"1.1", false},
                                                                          {"1.2", false},
                                                                          {"1.3", true},
                                                                          {"2.0", true},
                                                                          {"9.0", true},
                                                                          {"10.0", true}}) {
    j["compute_capability"] = cc;
    write("cc", j.dump());
    const DeviceProfile p = load_profile("cc");
    EXPECT_EQ(dtype_refusal(p, Dtype::F64).empty(), f64) << cc;
    EXPECT_EQ(dtype_refusal(p, Dtype::F32), "") << cc;
    EXPECT_EQ(dtype_refusal(p, Dtype::F16), "") << cc;
  }
  const std::string shipped = MEMSIM_TEST_DEVICE_DIR;
  EXPECT_NE(dtype_refusal(load_profile_file(shipped + "/8800gtx.json"), Dtype::F64), "");
  EXPECT_EQ(dtype_refusal(load_profile_file(shipped + "/gtx280.json"), Dtype::F64), "");
  for (const char* bad : {"9", "9.", ".0", "nine", "9.0.1", "-1.0"}) {
    j["compute_capability"] = bad;
    expect_refused(j, "compute_capability");
  }
}

TEST(JsonFields, NamesTheFieldByItsPath) {
  const nlohmann::json doc = nlohmann::json::parse(
      R"({"runs": [{"n": 32.0, "ok": "yes", "id": ""}, 7], "metrics": {"a.b": {"v": null}}})");
  const JsonFields top(doc, "run.json");
  const auto error = [](const std::function<void()>& read) -> std::string {
    try {
      read();
    } catch (const ProfileError& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_EQ(error([&] { EXPECT_EQ(top.item("runs", 0).integer("n", 1, 64), 32); }), "accepted");  // 32.0 is 32
  EXPECT_EQ(error([&] { top.item("runs", 0).integer_literal("n", 1, 64); }),
            "run.json: field 'runs[0].n' must be a whole number from 1 to 64, got number 32.0");
  EXPECT_EQ(error([&] { top.item("runs", 0).boolean("ok"); }),
            "run.json: field 'runs[0].ok' must be true or false, got string \"yes\"");
  EXPECT_EQ(error([&] { EXPECT_EQ(top.item("runs", 0).string("id"), ""); }), "accepted");
  EXPECT_EQ(error([&] { top.item("runs", 0).text("id"); }), "run.json: field 'runs[0].id' must be a non-empty string, got \"\"");
  EXPECT_EQ(error([&] { top.item("runs", 1); }), "run.json: field 'runs[1]' must be a JSON object, got number 7");
  EXPECT_EQ(error([&] { EXPECT_FALSE(top.member("metrics", "a.b").null_or_number("v")); }), "accepted");
  EXPECT_EQ(error([&] { top.member("metrics", "a.b").number("v"); }),
            "run.json: field 'metrics[\"a.b\"].v' must be a number, got null");
  EXPECT_EQ(error([&] { top.member("metrics", "a"); }), "run.json: field 'metrics[\"a\"]' is missing");
  EXPECT_EQ(error([&] { top.object("runs"); }), "run.json: field 'runs' must be a JSON object, got an array");
  EXPECT_EQ(error([&] { top.array("metrics"); }), "run.json: field 'metrics' must be an array, got an object");
  EXPECT_EQ(error([&] { top.null_or_object("runs"); }),
            "run.json: field 'runs' must be a JSON object or null, got an array");

  // A reader of ordered_json (validation runs), raising its own error.
  const nlohmann::ordered_json run = nlohmann::ordered_json::parse(R"({"records": [{"id": 3}]})");
  const OrderedJsonFields ordered(run, "suite.json", "", [](const std::string& where, const std::string& path,
                                                           const std::string& why) -> void {
    throw std::invalid_argument(where + ": " + path + " " + why);
  });
  try {
    ordered.item("records", 0).string("id");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "suite.json: records[0].id must be a string, got number 3");
  }
}

}  // namespace

// Issue 42: the fingerprint of the fitted constants. Worked out here from its definition (every number of the cost
// block as "path=%.17g" lines in path order, FNV-1a 64), not taken from the program.
TEST(Profile, ConstantsHashIsFnv1aOfTheNumbersByPath) {
  const std::string canonical = "a=1\nb.c=0.5\nd[0]=2\nd[1]=3.0000000000000001e-05\n";
  uint64_t h = 1469598103934665603ull;
  for (const char c : canonical) h = (h ^ uint64_t(static_cast<unsigned char>(c))) * 1099511628211ull;
  char want[17];
  std::snprintf(want, sizeof want, "%016llx", static_cast<unsigned long long>(h));
  const nlohmann::json cost = {{"note", "texts are not constants"}, {"d", {2, 3e-5}}, {"a", 1}, {"b", {{"c", 0.5}}}};
  EXPECT_EQ(cost_constants_hash(cost), want);
}

// The shipped profiles carry the hash of the constants they ship: calibrated. A constant edited by hand is no
// longer the fit's: the profile says so and is not calibrated; a note edited changes nothing.
TEST_F(ScratchDir, ProfileEditedAfterCalibrationIsNoLongerCalibrated) {
  for (const char* name : {"h100", "h200"}) {
    unsetenv("MEMSIM_DEVICE_DIR");
    const DeviceProfile shipped = load_profile(name);
    setenv("MEMSIM_DEVICE_DIR", dir_.c_str(), 1);
    EXPECT_TRUE(shipped.calibrated) << name;
    EXPECT_FALSE(shipped.hand_edited) << name;
    EXPECT_EQ(shipped.calibration["constants_hash"].get<std::string>().size(), 16u) << name;
  }
  nlohmann::json j = shipped_h100();
  const std::string date = j["calibration"]["date"];
  j["cost"]["note"] = "a note rewritten";
  write("note", j.dump());
  EXPECT_TRUE(load_profile("note").calibrated);
  j["cost"]["dram_gbs"] = 3000.0;
  write("edited", j.dump());
  const DeviceProfile edited = load_profile("edited");
  EXPECT_FALSE(edited.calibrated);
  EXPECT_TRUE(edited.hand_edited);
  EXPECT_EQ(edited.cost_basis, "hand_edited");
  EXPECT_EQ(cost_basis_text(edited).rfind("hand-edited after calibration (fit of " + date + " no longer applies)", 0),
            0u)
      << cost_basis_text(edited);
  EXPECT_EQ(cost_basis_text(edited).find("calibrated: "), std::string::npos);
  j["calibration"]["constants_hash"] = "not-a-hash";
  write("bad_hash", j.dump());
  EXPECT_THROW(load_profile("bad_hash"), ProfileError);
}

// The bandwidth a fraction is of: cudaMemcpy as measured where the profile holds it (H100: 3006 GB/s, the
// committed 16384x16384 f32 run), else the data-sheet DRAM peak (GTX 280: 141.7 GB/s).
TEST(Profile, AttainableBandwidthIsMemcpyOrTheDataSheetPeak) {
  const AttainableBandwidth h100 = attainable_bandwidth(load_profile("h100"));
  EXPECT_EQ(h100.gbs, 3006);
  EXPECT_EQ(h100.basis, "cudaMemcpy-measured");
  EXPECT_EQ(attainable_bandwidth(load_profile("h200")).gbs, 4254);
  const AttainableBandwidth gt = attainable_bandwidth(load_profile("gtx280"));
  EXPECT_EQ(gt.gbs, 141.7);
  EXPECT_EQ(gt.basis, "data-sheet DRAM peak");
}

}  // namespace memsim
