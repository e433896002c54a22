// memsim-calibrate as a user runs it, on documents that are wrong in one field each: exit 2 and one line on
// stderr that names the file, the record and the field; never a crash, a NaN in the report or a profile with
// a non-finite constant. The documents are the committed H100 microbenchmark run
// (lab/calibration/results/h100_microbench.json) and suite results (validate/results/suite_f32.json), cut down and
// broken in one place. The reader tests call read_microbench and read_suite_records directly.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "lab/calibration/microbench_records.hpp"
#include "model/profile.hpp"
#include "tests/support/run_command.hpp"

#ifndef MEMSIM_CALIBRATE_BIN
#error "MEMSIM_CALIBRATE_BIN (path of the memsim-calibrate binary) must be defined by the build"
#endif

namespace memsim {
namespace {

using nlohmann::json;

using Cli = test::CommandResult;
using test::quote;
using test::slurp;

// A path of this test process's own under the test's temporary directory.
std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "memsim_calibrate_" + std::to_string(getpid()) + "_" + name;
}

bool exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

Cli run_cli(const std::vector<std::string>& args) {
  static int counter = 0;
  return test::run_command(MEMSIM_CALIBRATE_BIN, args, temp_path("cli_" + std::to_string(counter++)));
}

// The documents the tests write, removed when the tests end.
std::vector<std::string>& written() {
  static std::vector<std::string> paths;
  return paths;
}
struct RemoveWritten : ::testing::Environment {
  void TearDown() override {
    for (const std::string& p : written()) std::remove(p.c_str());
  }
};
const ::testing::Environment* const kRemoveWritten = ::testing::AddGlobalTestEnvironment(new RemoveWritten);

std::string write_doc(const std::string& name, const json& doc) {
  const std::string path = temp_path(name);
  std::ofstream(path) << doc.dump();
  written().push_back(path);
  return path;
}

const json& run_doc() {
  static const json doc = json::parse(slurp(MEMSIM_RUN_DOC));
  return doc;
}
const json& suite_doc() {
  static const json doc = json::parse(slurp(MEMSIM_SUITE_DOC));
  return doc;
}

// The committed run without its hold-out records (which --holdout would replay): still a fit of 132 runs.
json runs_only() {
  json d = run_doc();
  d["holdout"] = json::array();
  return d;
}

// The first two suite records (copy f32 2048x2048, blocks 32x8 and 16x16), quick to replay.
json two_records() { return json{{"records", {suite_doc()["records"][0], suite_doc()["records"][1]}}}; }

// An input error: exit 2, one line on stderr that holds every piece of `named` (the file, the record, the
// field), and no raw nlohmann message.
void expect_input_error(const Cli& r, const std::vector<std::string>& named) {
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("memsim-calibrate: ", 0), 0u) << r.err;
  for (const std::string& n : named) EXPECT_NE(r.err.find(n), std::string::npos) << "'" << n << "' not in: " << r.err;
  EXPECT_EQ(r.err.find("json.exception"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
}

// --- the command line on valid input ---

TEST(CalibrateCli, FitWritesAProfileOfFiniteConstants) {
  const std::string run = write_doc("valid.json", runs_only()), out = temp_path("valid_out.json");
  const Cli r = run_cli({"--microbench", run, "--base", "h100", "--out", out});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.find("nan"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("inf"), std::string::npos) << r.out;
  const DeviceProfile p = load_profile_file(out);  // reads back: every field in range
  const json j = json::parse(slurp(out));
  EXPECT_EQ(j["calibration"]["runs"], run_doc()["runs"].size());
  EXPECT_TRUE(j["calibration"]["rms_log_error"].is_number());
  EXPECT_LT(j["calibration"]["rms_log_error"].get<double>(), 0.5);
  for (double v : {p.cost.dram_gbs, p.cost.l1_cycles_per_wavefront, p.cost.latency_us, p.cost.launch_us,
                   p.cost.block_drain_rounds, p.cost.block_launch_ns, p.cost.barrier_us, p.cost.partial_store_ps[0],
                   p.cost.overlap_p})
    EXPECT_TRUE(std::isfinite(v) && v > 0) << v;
  // Nothing held on request: the note says none.
  EXPECT_EQ(j["cost"]["note"].get<std::string>().find("--hold"), std::string::npos);
  std::remove(out.c_str());
}

// A constant held on request keeps the base's value, and the profile's note names it, so that a refit (which
// writes the note afresh) keeps saying so.
TEST(CalibrateCli, HeldConstantsAreNamedInTheNote) {
  const std::string run = write_doc("held.json", runs_only()), out = temp_path("held_out.json");
  const Cli r = run_cli({"--microbench", run, "--base", "h100", "--hold", "latency_us", "--hold", "launch_us", "--out", out});
  ASSERT_EQ(r.code, 0) << r.err;
  const DeviceProfile base = load_profile("h100"), p = load_profile_file(out);
  EXPECT_EQ(p.cost.latency_us, base.cost.latency_us);
  EXPECT_EQ(p.cost.launch_us, base.cost.launch_us);
  const std::string note = json::parse(slurp(out))["cost"]["note"].get<std::string>();
  EXPECT_NE(note.find("held at the base profile's values on request (--hold): latency_us, launch_us"), std::string::npos)
      << note;
  std::remove(out.c_str());
}

// Several --microbench files are fitted together: the calibration run and the split-sector study of the same
// GPU. The study's runs whose counts do not describe them are left out of a fit and listed (lab/calibration/microbench_records.hpp:
// each sector's halves from two blocks; narrow stores in the linear layout, whose requests the L2 merges); the
// rest join the fit, and the profile names both files. A file from another device is refused, naming both.
TEST(CalibrateCli, SeveralMicrobenchFilesAreFittedTogether) {
  json study = runs_only();
  const json copy_run = run_doc()["runs"][1];
  auto split_run = [&](const std::string& bench, const std::string& mode, const std::string& layout) {
    json r = copy_run;
    r["bench"] = bench;
    r["params"] = {{"mode", mode}, {"lanes", "8x2B"}, {"layout", layout}, {"distance_blocks", mode == "split" ? 64 : 0}};
    return r;
  };
  study["runs"] = {split_run("split_sector_store", "split", "transposed"),
                   split_run("split_sector_store", "same_warp", "linear"),
                   split_run("split_sector_store", "same_warp", "transposed"),
                   split_run("split_sector_store_dense", "split", "linear")};
  const std::string run = write_doc("several_run.json", runs_only()), more = write_doc("several_study.json", study);
  const std::string out = temp_path("several_out.json");
  const Cli r = run_cli({"--microbench", run, "--microbench", more, "--base", "h100", "--out", out});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("left out of the fit: " + more + ": runs[0] (split_sector_store): each sector's halves from two blocks"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find(more + ": runs[1] (split_sector_store): linear layout"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(more + ": runs[3] (split_sector_store_dense): each sector's halves"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(more + ": runs[2]"), std::string::npos) << r.out;
  const json j = json::parse(slurp(out));
  EXPECT_EQ(j["calibration"]["runs"], run_doc()["runs"].size() + 1);
  EXPECT_EQ(j["calibration"]["runs_left_out"], 3);
  EXPECT_EQ(j["calibration"]["measurements"], run + " + " + more);
  load_profile_file(out);  // reads back
  std::remove(out.c_str());

  // --predict-only predicts every run, those a fit leaves out included: 132 + 4 rows.
  const Cli p = run_cli({"--microbench", run, "--microbench", more, "--base", "h100", "--predict-only"});
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_NE(p.out.find(std::to_string(run_doc()["runs"].size() + 4) + " microbenchmark runs"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("split_sector_store_dense"), std::string::npos) << p.out;

  study["device"]["name"] = "NVIDIA H200";
  const std::string other = write_doc("several_other.json", study);
  expect_input_error(run_cli({"--microbench", run, "--microbench", other, "--base", "h100"}),
                     {other, "NVIDIA H200", run, "one device"});
}

// One hold-out record: its row and a summary of n=1, whose Spearman is not defined (n/a), then exit 0: the
// --out file written before it is a finished profile, not one written by a run that then failed.
TEST(CalibrateCli, OneHoldoutRecordHasNoSpearman) {
  json d = run_doc();
  d["holdout"] = json::array({run_doc()["holdout"][0]});
  const std::string run = write_doc("one_holdout.json", d), out = temp_path("one_holdout_out.json");
  const Cli r = run_cli({"--microbench", run, "--base", "h100", "--holdout", "--out", out});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("  all                          n=1   "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Spearman n/a\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Spearman 1.000"), std::string::npos) << r.out;  // no made-up correlation
  EXPECT_TRUE(exists(out));
  std::remove(out.c_str());
}

TEST(CalibrateCli, HoldoutValidateSkipsUntimedRecords) {
  json s = two_records();
  s["records"][1]["measured"]["time_us"] = nullptr;  // memsim-validate's "not timed"
  const Cli r = run_cli({"--base", "h100", "--holdout-validate", write_doc("untimed.json", s), "--threads", "2"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("all, all blocks                    n=1    "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Spearman n/a"), std::string::npos) << r.out;
}

// The rank correlation the judging uses is the one within a (matrix, dtype, block) group: its median and lowest
// over the judged groups, the group named. Three kernels of one judged group (f32 4096x4096, block 32x8).
TEST(CalibrateCli, HoldoutValidateSummarizesSpearmanWithinGroups) {
  json s{{"records", json::array()}};
  for (const json& r : suite_doc()["records"])
    if (r["config"]["matrix"]["width"] == 4096 && r["config"]["block"]["x"] == 32 && r["config"]["block"]["y"] == 8 &&
        s["records"].size() < 3)
      s["records"].push_back(r);
  ASSERT_EQ(s["records"].size(), 3u);
  const Cli r = run_cli({"--base", "h100", "--holdout-validate", write_doc("one_group.json", s), "--threads", "2"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("judged, block 32x8                 1 group, Spearman within a group: median "),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(4096x4096 f32 32x8)\n"), std::string::npos) << r.out;
}

// A fit for another GPU from a base calibrated on the H100 takes the run's device name and says whose the
// constants it holds are; a refit on the base's own GPU keeps the base's texts. Both record the base.
TEST(CalibrateCli, FitFromAnotherGpusBaseNamesTheBase) {
  json d = runs_only();
  const std::string same = write_doc("same_gpu.json", d), same_out = temp_path("same_gpu_out.json");
  d["device"]["name"] = "NVIDIA H200";
  const std::string other = write_doc("other_gpu.json", d), other_out = temp_path("other_gpu_out.json");
  ASSERT_EQ(run_cli({"--microbench", same, "--base", "h100", "--out", same_out}).code, 0);
  ASSERT_EQ(run_cli({"--microbench", other, "--base", "h100", "--out", other_out}).code, 0);
  const json h100 = json::parse(slurp(MEMSIM_H100_PROFILE));
  const json refit = json::parse(slurp(same_out)), second = json::parse(slurp(other_out));
  EXPECT_EQ(refit["display_name"], h100["display_name"]);
  EXPECT_EQ(refit["source"], h100["source"]);
  EXPECT_EQ(refit["calibration"]["base"], "h100");
  EXPECT_EQ(refit["cost"]["note"].get<std::string>().find("Base profile"), std::string::npos);
  EXPECT_EQ(second["display_name"], "NVIDIA H200");
  EXPECT_NE(second["source"].get<std::string>().find("as the base profile h100 gives them"), std::string::npos);
  EXPECT_EQ(second["calibration"]["base"], "h100");
  EXPECT_NE(second["cost"]["note"].get<std::string>().find(
                "Base profile h100 (calibrated on NVIDIA H100 80GB HBM3): the constants the fit holds"),
            std::string::npos)
      << second["cost"]["note"];
  load_profile_file(other_out);  // reads back
  std::remove(same_out.c_str());
  std::remove(other_out.c_str());
}

// A fitted constant a million times off its prior is written (it is the least-squares answer) but said: on
// stderr and in the profile's calibration block.
// A base profile whose constant is out of its physical range is refused before any fit, naming the field (the
// fit's warning for a constant far from its prior is tested on fit_constants: tests/model/fit_test.cpp; a
// profile can no longer hold a prior a million times off, 1e-3 GB/s here).
TEST(CalibrateCli, BaseProfileOutOfRangeIsRefused) {
  json base = json::parse(slurp(MEMSIM_H100_PROFILE));
  base["cost"]["dram_gbs"] = 1e-3;
  const std::string bp = write_doc("low_bandwidth.json", base), out = temp_path("low_bandwidth_out.json");
  const Cli r = run_cli({"--microbench", write_doc("warn_run.json", runs_only()), "--base", bp, "--out", out});
  expect_input_error(r, {bp, "'cost.dram_gbs'", "from 1 to 100000 GB/s", "got 0.001"});
  EXPECT_FALSE(exists(out));
}

// Runs that measured 3000 times longer than the H100 takes fit constants past the profile's physical ranges
// (a DRAM bandwidth of about 3366 / 3000 GB/s, a latency of about 0.5 x 3000 us): the fit is refused, its
// profile named as fitted from the run, not as the base profile (which is fine), and nothing is written.
TEST(CalibrateCli, FitOutsideThePhysicalRangesIsRefused) {
  json slow = runs_only();
  for (json& run : slow["runs"]) run["time_us"]["median"] = run["time_us"]["median"].get<double>() * 3000;
  const std::string run = write_doc("slow_run.json", slow), out = temp_path("slow_out.json");
  Cli r = run_cli({"--microbench", run, "--base", "h100", "--out", out});
  // Such a fit may warn of a constant far from its prior first (a warning line each); then the one error.
  std::string errors, line;
  std::istringstream lines(r.err);
  while (std::getline(lines, line))
    if (line.rfind("memsim-calibrate: warning: ", 0) != 0) errors += line + "\n";
  r.err = errors;
  expect_input_error(r, {"device profile fitted from " + run + ": field 'cost.", "must be"});
  EXPECT_EQ(r.err.find("h100.json"), std::string::npos) << r.err;
  EXPECT_FALSE(exists(out));
}

// --- the command line's own options ---

TEST(CalibrateCli, ThreadsMustBeAnIntegerInRange) {
  const std::string suite = write_doc("threads_suite.json", two_records());
  for (const char* bad : {"abc", "-5", "100000", "1.5", "", "4x"})
    expect_input_error(run_cli({"--base", "h100", "--holdout-validate", suite, "--threads", bad}),
                       {"--threads", std::string("'") + bad + "'"});
  EXPECT_EQ(run_cli({"--base", "h100", "--holdout-validate", suite, "--threads", "0"}).code, 0);
  EXPECT_EQ(run_cli({"--base", "h100", "--holdout-validate", suite, "--threads", "256"}).code, 0);
}

TEST(CalibrateCli, UsageErrorsExit2) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{},
                                             {"--bogus"},
                                             {"--microbench"},
                                             {"--base", "h100", "--holdout-validate"},
                                             {"--microbench", MEMSIM_RUN_DOC},
                                             {"--microbench", MEMSIM_RUN_DOC, "--base", "h100", "--predict-only", "--out", "x.json"},
                                             {"--microbench", MEMSIM_RUN_DOC, "--base", "h100", "--hold"},
                                             {"--microbench", MEMSIM_RUN_DOC, "--base", "h100", "--hold", "dram"},
                                             {"--microbench", MEMSIM_RUN_DOC, "--base", "h100", "--predict-only", "--hold", "dram_gbs"}}) {
    const Cli r = run_cli(args);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("usage:"), std::string::npos) << r.err;
  }
}

// A directory opens as a stream and fails only when read ("basic_filebuf::underflow ... Is a directory"):
// the message must name the path.
TEST(CalibrateCli, DirectoryGivenAsAFileIsNamed) {
  const std::string dir = temp_path("a_dir");
  mkdir(dir.c_str(), 0700);
  expect_input_error(run_cli({"--microbench", dir, "--base", "h100"}), {dir, "directory"});
  expect_input_error(run_cli({"--microbench", MEMSIM_RUN_DOC, "--base", dir + "/"}), {dir, "directory"});
  expect_input_error(run_cli({"--base", "h100", "--holdout-validate", dir}), {dir, "directory"});
  expect_input_error(run_cli({"--microbench", MEMSIM_RUN_DOC, "--base", "h100", "--out", dir}), {dir, "directory"});
  rmdir(dir.c_str());
}

TEST(CalibrateCli, InvalidJsonIsNamed) {
  const std::string path = temp_path("truncated.json");
  std::ofstream(path) << "{\"runs\": [";
  written().push_back(path);
  expect_input_error(run_cli({"--microbench", path, "--base", "h100"}), {path, "not valid JSON"});
  expect_input_error(run_cli({"--base", "h100", "--holdout-validate", path}), {path, "not valid JSON"});
  // The profile reader (model/profile.cpp) words its own message; it names the file.
  const Cli base = run_cli({"--microbench", MEMSIM_RUN_DOC, "--base", path});
  EXPECT_EQ(base.code, 2) << base.err;
  EXPECT_NE(base.err.find("device profile " + path + ": not valid JSON"), std::string::npos) << base.err;
}

// --- the microbenchmark run document ---

// Counts are finite and not negative: dram_read_bytes -1e9 made every prediction -nan, "MAPE nan%" and a
// profile with "rms_log_error": null, with exit 0.
TEST(CalibrateCli, NegativeCountIsRefusedBeforeAnythingIsWritten) {
  json d = runs_only();
  d["runs"][5]["counts"]["dram_read_bytes"] = -1e9;
  const std::string run = write_doc("negative.json", d), out = temp_path("negative_out.json");
  const Cli r = run_cli({"--microbench", run, "--base", "h100", "--out", out});
  expect_input_error(r, {run, "runs[5]", "'counts.dram_read_bytes'", "negative"});
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(exists(out));
}

TEST(CalibrateCli, CountsOutOfRangeNameTheField) {
  struct Case {
    const char* field;
    json value;
  };
  for (const Case& c : {Case{"threads_per_block", 0}, Case{"threads_per_block", 2048}, Case{"threads_per_block", 32.5},
                        Case{"blocks", 0}, Case{"blocks", -4}, Case{"regs_per_thread", 300},
                        Case{"shared_bytes_per_block", -1}, Case{"loads_in_flight_per_warp", 0},
                        Case{"l2_sectors_st", "many"}, Case{"barriers", -1}, Case{"instructions", nullptr}}) {
    json d = runs_only();
    d["runs"][3]["counts"][c.field] = c.value;
    const std::string run = write_doc("count.json", d);
    expect_input_error(run_cli({"--microbench", run, "--base", "h100"}),
                       {run, "runs[3] (copy)", std::string("'counts.") + c.field + "'"});
  }
  json d = runs_only();
  d["runs"][3]["counts"].erase("useful_bytes");
  const std::string run = write_doc("count_missing.json", d);
  expect_input_error(run_cli({"--microbench", run, "--base", "h100"}), {run, "runs[3]", "'counts.useful_bytes' is missing"});
}

// A run's median is what the fit takes the log of and MAPE divides by: 0 gave a "+inf%" row and then
// "mape: measured values must be positive", naming no record.
TEST(CalibrateCli, MedianMustBePositiveAndFinite) {
  for (const json& bad : {json(0), json(-2.5), json("fast"), json(nullptr)}) {
    json d = runs_only();
    d["runs"][7]["time_us"]["median"] = bad;
    const std::string run = write_doc("median.json", d);
    for (const std::vector<std::string>& extra : {std::vector<std::string>{}, std::vector<std::string>{"--predict-only"}})
    {
      std::vector<std::string> args{"--microbench", run, "--base", "h100"};
      args.insert(args.end(), extra.begin(), extra.end());
      const Cli r = run_cli(args);
      expect_input_error(r, {run, "runs[7]", "'time_us.median'"});
      EXPECT_EQ(r.out.find("inf%"), std::string::npos) << r.out;
    }
  }
  json d = runs_only();
  d["runs"][7].erase("time_us");
  const std::string run = write_doc("no_time.json", d);
  expect_input_error(run_cli({"--microbench", run, "--base", "h100"}), {run, "runs[7]", "'time_us' is missing"});
}

// One run fitted l1_cycles_per_wavefront = 1.9e-11 and wrote it.
TEST(CalibrateCli, FitOfTooFewRunsIsRefused) {
  json d = runs_only();
  d["runs"] = json::array({run_doc()["runs"][4]});
  const std::string run = write_doc("one_run.json", d), out = temp_path("one_run_out.json");
  const Cli r = run_cli({"--microbench", run, "--base", "h100", "--out", out});
  expect_input_error(r, {run, "1 usable run", "at least as many runs"});
  EXPECT_FALSE(exists(out));
}

TEST(CalibrateCli, NoUsableRunsIsAnError) {
  json none = runs_only();
  none["runs"] = json::array();
  json wrong = runs_only();
  for (json& r : wrong["runs"]) r["check"] = "WRONG: 3 mismatches";
  for (const json& d : {none, wrong}) {
    const std::string run = write_doc("no_runs.json", d);
    expect_input_error(run_cli({"--microbench", run, "--base", "h100"}), {run, "no usable runs"});
    const Cli p = run_cli({"--microbench", run, "--base", "h100", "--predict-only"});
    expect_input_error(p, {run, "no usable runs"});
    EXPECT_EQ(p.out, "");  // no empty table
  }
}

// sm_count 0 was blamed on the base profile ("device profile .../h100.json: field 'sm.count' ...").
TEST(CalibrateCli, DeviceFactsAreBlamedOnTheRunDocument) {
  for (const auto& [field, value] : std::vector<std::pair<std::string, json>>{
           {"sm_count", 0}, {"sm_count", "132"}, {"sm_clock_mhz", -1980}, {"l2_bytes", 1.5}, {"name", 7}}) {
    json d = runs_only();
    d["device"][field] = value;
    const std::string run = write_doc("device.json", d);
    const Cli r = run_cli({"--microbench", run, "--base", "h100"});
    expect_input_error(r, {run, "'device." + field + "'"});
    EXPECT_EQ(r.err.find("h100.json"), std::string::npos) << r.err;
  }
  // Facts each fine alone that the profile cannot take together: the run document and its device block named.
  json d = runs_only();
  d["device"]["shared_per_block"] = 300000;  // above its shared_per_block_optin
  const std::string run = write_doc("device_conflict.json", d);
  expect_input_error(run_cli({"--microbench", run, "--base", "h100"}), {run, "'device'", "shared.per_block_optin"});
}

// Raw nlohmann messages ("cannot use value() with array", "type must be string, but is number") named no
// file and no field.
TEST(CalibrateCli, WrongTypesNameTheField) {
  struct Case {
    const char* pointer;
    json value;
    std::vector<std::string> named;
  };
  for (const Case& c : std::vector<Case>{{"/device", json::array({1, 2}), {"'device'", "array"}},
                                         {"/runs/2/bench", 7, {"runs[2]", "'bench'"}},
                                         {"/runs/2", 5, {"runs[2]", "JSON object"}},
                                         {"/runs/2/counts", "x", {"runs[2] (copy)", "'counts'"}},
                                         {"/runs/2/params", json::array({1}), {"runs[2]", "'params'"}},
                                         {"/runs/2/check", 3, {"runs[2]", "'check'"}},
                                         {"/date", 20261121, {"'date'"}},
                                         {"/runs", json::object(), {"'runs'"}}}) {
    json d = runs_only();
    d[json::json_pointer(c.pointer)] = c.value;
    const std::string run = write_doc("types.json", d);
    std::vector<std::string> named = c.named;
    named.push_back(run);
    expect_input_error(run_cli({"--microbench", run, "--base", "h100"}), named);
  }
}

// A block the device cannot hold has no occupancy and an infinite time.
TEST(CalibrateCli, RunTheDeviceCannotHoldIsRefused) {
  json d = runs_only();
  d["runs"][4]["counts"]["shared_bytes_per_block"] = 300000;
  const std::string run = write_doc("too_much_shared.json", d);
  expect_input_error(run_cli({"--microbench", run, "--base", "h100"}), {run, "runs[4]", "shared memory"});
}

// A hold-out record without time_us read out of bounds (operator[] on a const json).
TEST(CalibrateCli, HoldoutRecordFieldsAreChecked) {
  struct Case {
    const char* field;
    json value;  // null: removed
  };
  for (const Case& c : {Case{"time_us", nullptr}, Case{"kernel", nullptr}, Case{"kernel", "nope"},
                        Case{"matrix", "4096"}, Case{"block", 32}, Case{"dtype", "f8"}, Case{"regs_per_thread", -1}}) {
    json d = run_doc();
    if (c.value.is_null()) d["holdout"][1].erase(c.field);
    else d["holdout"][1][c.field] = c.value;
    const std::string run = write_doc("holdout.json", d), out = temp_path("holdout_out.json");
    const Cli r = run_cli({"--microbench", run, "--base", "h100", "--holdout", "--out", out});
    expect_input_error(r, {run, "holdout[1]", std::string("'") + c.field + "'"});
    EXPECT_FALSE(exists(out));
  }
  // A record the device cannot launch: refused before the fit writes anything.
  json d = run_doc();
  d["holdout"][1]["block"] = "64x64";
  const std::string run = write_doc("holdout_block.json", d), out = temp_path("holdout_block_out.json");
  const Cli r = run_cli({"--microbench", run, "--base", "h100", "--holdout", "--out", out});
  expect_input_error(r, {run, "holdout[1]", "64x64"});
  EXPECT_FALSE(exists(out));
}

// --- the suite documents of --holdout-validate ---

// A missing config.matrix.height, config.kernel, config.block or config.dtype read out of bounds ("type must
// be number, but is number").
TEST(CalibrateCli, SuiteRecordFieldsAreChecked) {
  struct Case {
    const char* pointer;
    json value;  // null: removed
    const char* field;
  };
  for (const Case& c : std::vector<Case>{{"/records/1/config/matrix/height", nullptr, "'config.matrix.height'"},
                                         {"/records/1/config/kernel", nullptr, "'config.kernel'"},
                                         {"/records/1/config/block", nullptr, "'config.block'"},
                                         {"/records/1/config/dtype", nullptr, "'config.dtype'"},
                                         {"/records/1/config/tile/x", "wide", "'config.tile.x'"},
                                         {"/records/1/config/kernel", "nope", "'config.kernel'"},
                                         {"/records/1/config/dtype", "f8", "'config.dtype'"},
                                         {"/records/1/config/pad", 100, "'config.pad'"},
                                         {"/records/1/measured/time_us/median", nullptr, "'measured.time_us.median'"},
                                         {"/records/1/measured/time_us/median", -1, "'measured.time_us.median'"},
                                         {"/records/1/config", nullptr, "'config'"}}) {
    json s = two_records();
    const json::json_pointer ptr(c.pointer);
    if (c.value.is_null()) s[ptr.parent_pointer()].erase(ptr.back());
    else s[ptr] = c.value;
    const std::string suite = write_doc("suite.json", s);
    const Cli r = run_cli({"--base", "h100", "--holdout-validate", suite});
    expect_input_error(r, {suite, "records[1] (copy f32 2048x2048 block 16x16 tile 16x16)", c.field});
    EXPECT_EQ(r.out, "");  // refused before the report starts
  }
  const std::string suite = write_doc("suite_records.json", json{{"records", 5}});
  expect_input_error(run_cli({"--base", "h100", "--holdout-validate", suite}), {suite, "'records'"});
}

// --- the readers, called directly ---

json minimal_counts() {
  return {{"blocks", 4},           {"threads_per_block", 256}, {"shared_bytes_per_block", 0},
          {"regs_per_thread", 18}, {"useful_bytes", 32768},    {"dram_read_bytes", 16384},
          {"dram_write_bytes", 16384}, {"l1_sectors_ld", 512},  {"l1_sectors_st", 512},
          {"l2_sectors_ld", 512},  {"l2_sectors_st", 512},     {"shared_wavefronts", 0},
          {"shared_instructions", 0}, {"global_ld_instructions", 128},
          {"global_st_instructions", 128}, {"loads_in_flight_per_warp", 1}};
}

json minimal_run() {
  return {{"device", {{"name", "test"}, {"sm_count", 132.0}}},
          {"runs", {{{"bench", "copy"}, {"counts", minimal_counts()}, {"time_us", {{"median", 5.0}}}}}}};
}

std::string error_of(const json& doc) {
  try {
    read_microbench(doc, "run.json");
  } catch (const ProfileError& e) {
    return e.what();
  }
  return "";
}

TEST(MicrobenchReader, ReadsAMinimalRunAndNamesItsRecords) {
  json doc = minimal_run();
  doc["runs"].push_back(doc["runs"][0]);
  doc["runs"][1]["check"] = "WRONG: 1 mismatch";  // no measurement
  doc["holdout"] = {{{"kernel", "copy"}, {"check", "skipped"}},  // not compared: nothing else read
                    {{"kernel", "copy"}, {"matrix", "64x64"}, {"time_us", {{"median", 2.0}}}}};
  const MicrobenchRun run = read_microbench(doc, "run.json");
  ASSERT_EQ(run.runs.size(), 1u);
  EXPECT_EQ(run.runs[0].where, "run.json: runs[0] (copy)");
  EXPECT_EQ(run.runs[0].time_us, 5.0);
  EXPECT_EQ(run.runs[0].counts.threads_per_block, 256);
  ASSERT_EQ(run.holdout.size(), 1u);
  EXPECT_EQ(run.holdout[0].where, "run.json: holdout[1] (copy)");
  EXPECT_EQ(run.holdout[0].dtype, "f32");  // the defaults of older runs
  EXPECT_EQ(run.holdout[0].block, "32x8");
}

// A split run's writers are distance_blocks apart: log2 of it, for runs with split sectors only; a distance
// that is not a whole number of blocks from 1 on is refused, naming the field.
TEST(MicrobenchReader, ReadsTheSplitDistance) {
  json doc = minimal_run();
  doc["runs"][0]["params"] = {{"mode", "split"}, {"distance_blocks", 64}};
  EXPECT_EQ(read_microbench(doc, "run.json").runs[0].counts.split_log2_distance, 0.0);  // no split sectors
  doc["runs"][0]["counts"]["split_sectors"] = 1024;
  EXPECT_DOUBLE_EQ(read_microbench(doc, "run.json").runs[0].counts.split_log2_distance, 6.0);
  doc["runs"][0]["params"]["distance_blocks"] = 0;
  EXPECT_NE(error_of(doc).find("distance_blocks"), std::string::npos) << error_of(doc);
  doc["runs"][0]["params"]["distance_blocks"] = "far";
  EXPECT_NE(error_of(doc).find("distance_blocks"), std::string::npos) << error_of(doc);
}

// The share of the DRAM bytes out of order: 0 where a run does not carry it, a share where it does, and no
// more than all of them.
TEST(MicrobenchReader, ReadsTheShareOutOfOrder) {
  json doc = minimal_run();
  EXPECT_EQ(read_microbench(doc, "run.json").runs[0].counts.dram_scattered[1], 0.0);
  doc["runs"][0]["counts"]["dram_scattered_ld"] = 0.25;
  doc["runs"][0]["counts"]["dram_scattered_st"] = 1.0;
  const MicrobenchRun run = read_microbench(doc, "run.json");
  EXPECT_EQ(run.runs[0].counts.dram_scattered[0], 0.25);
  EXPECT_EQ(run.runs[0].counts.dram_scattered[1], 1.0);
  doc["runs"][0]["counts"]["dram_scattered_st"] = 1.5;
  EXPECT_NE(error_of(doc).find("'counts.dram_scattered_st' must be at most 1"), std::string::npos) << error_of(doc);
  doc["runs"][0]["counts"]["dram_scattered_st"] = -0.5;
  EXPECT_NE(error_of(doc).find("dram_scattered_st"), std::string::npos) << error_of(doc);
}

TEST(MicrobenchReader, EveryFieldIsChecked) {
  auto with = [](const char* pointer, const json& v) {
    json d = minimal_run();
    d[json::json_pointer(pointer)] = v;
    return error_of(d);
  };
  EXPECT_EQ(with("/runs/0/counts/dram_write_bytes", -1),
            "run.json: runs[0] (copy): field 'counts.dram_write_bytes' must not be negative, got -1");
  EXPECT_EQ(with("/runs/0/counts/threads_per_block", 1025),
            "run.json: runs[0] (copy): field 'counts.threads_per_block' must be an integer from 1 to 1024, got 1025");
  EXPECT_EQ(with("/runs/0/time_us/median", 0), "run.json: runs[0] (copy): field 'time_us.median' must be positive, got 0");
  EXPECT_EQ(with("/device/sm_count", 0),
            "run.json: field 'device.sm_count' must be an integer from 1 to 2^30, got 0");
  EXPECT_EQ(with("/device/mem_clock_mhz", "fast"), "run.json: field 'device.mem_clock_mhz' must be a number, got string \"fast\"");
  EXPECT_EQ(with("/runs/0/bench", ""), "run.json: runs[0]: field 'bench' must be a non-empty string, got \"\"");
  // JSON has no NaN; a double past its range is what reaches the reader as a non-finite number.
  EXPECT_EQ(with("/runs/0/counts/useful_bytes", HUGE_VAL),
            "run.json: runs[0] (copy): field 'counts.useful_bytes' must be finite, got inf");
  EXPECT_EQ(error_of(json::array()), "run.json: not a memsim-microbench document (no \"runs\" array or \"device\")");
}

TEST(MicrobenchReader, CountsWithoutWhereKeepTheirOldName) {
  json c = minimal_counts();
  c["blocks"] = 0;
  try {
    counts_from_microbench("copy", c);
    FAIL();
  } catch (const ProfileError& e) {
    EXPECT_EQ(std::string(e.what()), "microbenchmark 'copy' counts: field 'blocks' must be an integer from 1 to 2^53, got 0");
  }
}

TEST(SuiteReader, ReadsTimedRecordsAndTheirPad) {
  json s = two_records();
  s["records"].push_back(s["records"][0]);
  s["records"][2]["measured"]["time_us"] = nullptr;  // untimed: left out
  s["records"][1]["config"]["pad"] = 3;               // no shared tile: the pad is not the record's
  s["records"][0]["config"]["shared_bytes_per_block"] = 4096;
  s["records"][0]["config"]["pad"] = 1;
  const std::vector<SuiteRecord> recs = read_suite_records(s, "suite.json");
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[0].where, "suite.json: records[0] (copy f32 2048x2048 block 32x8 tile 32x32)");
  EXPECT_EQ(recs[0].config.kernel, "copy");
  EXPECT_EQ(recs[0].config.matrix, (Size2{2048, 2048}));
  EXPECT_EQ(recs[0].config.pad, 1);
  EXPECT_FALSE(recs[1].config.pad.has_value());
  EXPECT_EQ(recs[1].config.block, (Size2{16, 16}));
  EXPECT_DOUBLE_EQ(recs[0].time_us, suite_doc()["records"][0]["measured"]["time_us"]["median"].get<double>());
}

}  // namespace
}  // namespace memsim
