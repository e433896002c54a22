// Issue 39, "Nothing changed silently": every input memsim and memsim-calibrate read is checked and bounded
// before it is used, a user's mistake is exit 2 with one bounded line, and nothing is written half. One test
// per case of the issue, on the built commands (as a user runs them; under the sanitizers in the checking
// build, docs/testing.md) and on the profile reader directly.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/registry.hpp"
#include "model/profile.hpp"
#include "report/analysis.hpp"
#include "sim/partitions.hpp"
#include "tests/support/run_command.hpp"

#if !defined(MEMSIM_BIN) || !defined(MEMSIM_CALIBRATE_BIN) || !defined(MEMSIM_TEST_DEVICE_DIR) || \
    !defined(MEMSIM_RUN_DOC)
#error "the build defines MEMSIM_BIN, MEMSIM_CALIBRATE_BIN, MEMSIM_TEST_DEVICE_DIR and MEMSIM_RUN_DOC"
#endif

namespace memsim {
namespace {

using Cli = test::CommandResult;
using test::quote;
using test::slurp;

std::string scratch(const std::string& name) {
  return ::testing::TempDir() + "memsim_bounds_" + std::to_string(getpid()) + "_" + name;
}

Cli run_memsim(const std::vector<std::string>& args) {
  static int n = 0;
  return test::run_command(MEMSIM_BIN, args, scratch("memsim_" + std::to_string(n++)));
}

Cli run_calibrate(const std::vector<std::string>& args) {
  static int n = 0;
  return test::run_command(MEMSIM_CALIBRATE_BIN, args, scratch("calibrate_" + std::to_string(n++)));
}

size_t line_count(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// A user's mistake: exit 2, nothing on stdout, one line on stderr holding `needle`.
void expect_refused(const Cli& r, const std::string& needle, const std::string& what) {
  EXPECT_EQ(r.code, 2) << what << ": " << r.err;
  EXPECT_EQ(r.out, "") << what;
  EXPECT_EQ(line_count(r.err), 1u) << what << ": " << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << what << ": " << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << what << ": " << r.err;
}

std::string shipped(const std::string& name) { return slurp(std::string(MEMSIM_TEST_DEVICE_DIR) + "/" + name + ".json"); }

// The shipped profile's text with `from` replaced by `to` (which must occur).
std::string edited(const std::string& name, const std::string& from, const std::string& to) {
  std::string text = shipped(name);
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string profile_error(const std::string& text) {
  try {
    parse_profile(text, "edited", "edited.json");
  } catch (const ProfileError& e) {
    return e.what();
  }
  return "";
}

// A profile directory of the test's own, MEMSIM_DEVICE_DIR pointing at it while the object lives.
struct DeviceDir {
  std::string path = scratch("devices");
  DeviceDir() {
    std::system(("rm -rf " + quote(path) + " && mkdir -p " + quote(path)).c_str());
    setenv("MEMSIM_DEVICE_DIR", path.c_str(), 1);
  }
  ~DeviceDir() {
    unsetenv("MEMSIM_DEVICE_DIR");
    std::system(("rm -rf " + quote(path)).c_str());
  }
  void write(const std::string& name, const std::string& text) const { std::ofstream(path + "/" + name + ".json") << text; }
};

// ---- device profiles: a schema, read whole ------------------------------------------------------------

TEST(InputBounds, ShippedProfilesLoadUnderTheSchema) {
  for (const char* name : {"8800gtx", "a100", "gtx280", "h100", "h200", "h200_datasheet", "v100"})
    EXPECT_EQ(profile_error(shipped(name)), "") << name;
  const DeviceProfile h100 = parse_profile(shipped("h100"), "h100", "h100.json");
  EXPECT_EQ(h100.sms, 132);
  EXPECT_DOUBLE_EQ(h100.cost.read_back_from_lines, 11457);
  EXPECT_DOUBLE_EQ(h100.cost.read_back_one_warp_factor, 0.276);
}

TEST(InputBounds, MisspeltKeyIsRefusedWithANearMiss) {
  // "readback" dropped the whole read-back block: naive 87.6 -> 72.5 us, exit 0.
  const std::string why = profile_error(edited("h100", "\"read_back\"", "\"readback\""));
  EXPECT_NE(why.find("field 'cost.readback' is not a field of 'cost'"), std::string::npos) << why;
  EXPECT_NE(why.find("did you mean 'cost.read_back'?"), std::string::npos) << why;
  // A key like no other gets no guess; the message names it.
  const std::string far = profile_error(edited("h100", "\"display_name\"", "\"zzzzzzzzzzzz\": 1, \"display_name\""));
  EXPECT_NE(far.find("field 'zzzzzzzzzzzz' is not a field of the profile"), std::string::npos) << far;
  EXPECT_EQ(far.find("did you mean"), std::string::npos) << far;
  // And memsim says it, exit 2.
  DeviceDir dir;
  dir.write("typo", edited("h100", "\"read_back\"", "\"readback\""));
  expect_refused(run_memsim({"--device", "typo", "--kernel", "naive"}), "did you mean 'cost.read_back'?", "readback");
}

TEST(InputBounds, DuplicateKeyIsRefused) {
  // "count": 132, "count": 1 kept the last: 15.8 -> 513 us.
  const std::string why = profile_error(edited("h100", "\"count\": 132,", "\"count\": 132, \"count\": 1,"));
  EXPECT_NE(why.find("field 'sm.count' is given twice"), std::string::npos) << why;
  const std::string nested = profile_error(edited("h100", "\"from_lines\": 11457,", "\"from_lines\": 11457, \"from_lines\": 1,"));
  EXPECT_NE(nested.find("field 'cost.read_back.from_lines' is given twice"), std::string::npos) << nested;
}

TEST(InputBounds, ComputeCapabilityMustBeAShippedOne) {
  for (const char* bad : {"0.0", "123.456", "9.9", "4.0"}) {
    const std::string why = profile_error(edited("h100", "\"9.0\"", std::string("\"") + bad + "\""));
    EXPECT_NE(why.find("must be a compute capability NVIDIA has shipped"), std::string::npos) << bad << ": " << why;
  }
  for (const char* good : {"1.0", "2.1", "3.7", "5.3", "6.2", "7.5", "8.9", "10.0", "12.0"})
    EXPECT_EQ(profile_error(edited("h100", "\"9.0\"", std::string("\"") + good + "\"")), "") << good;
}

TEST(InputBounds, CalibrationFieldsAreTyped) {
  const std::string date = profile_error(edited("h100", "\"date\": \"2026-11-26T05:41:54Z\"", "\"date\": 5"));
  EXPECT_NE(date.find("field 'calibration.date' must be a string"), std::string::npos) << date;
  const std::string fitted = profile_error(edited("h100", "\"fitted\": [", "\"fitted\": [3,"));
  EXPECT_NE(fitted.find("calibration.fitted"), std::string::npos) << fitted;
  const std::string unknown = profile_error(edited("h100", "\"base\": \"h100\"", "\"base\": \"h100\", \"bsae\": 1"));
  EXPECT_NE(unknown.find("field 'calibration.bsae' is not a field"), std::string::npos) << unknown;
}

TEST(InputBounds, KernelRegisterKeysNameAKernelAndADtype) {
  // The reader checks the key's form; that its kernel exists is checked by whoever knows the kernels.
  const std::string form = profile_error(edited("h100", "\"copy/f32\": 26", "\"copy/f128\": 26"));
  EXPECT_NE(form.find("field 'kernel_registers.copy/f128' is not a \"kernel/dtype\" key"), std::string::npos) << form;
  const DeviceProfile misspelt = parse_profile(edited("h100", "\"copy/f32\": 26", "\"cpoy/f32\": 26"), "h100", "h100.json");
  EXPECT_EQ(unknown_kernel_register_key(misspelt.kernel_registers), "cpoy/f32");
  EXPECT_EQ(unknown_kernel_register_key(parse_profile(shipped("h100"), "h100", "h100.json").kernel_registers), "");
  UserConfig user;
  user.kernel = "padded";
  try {
    analyze(user, misspelt, AnalysisOptions{});
    ADD_FAILURE() << "a register table naming no kernel was accepted";
  } catch (const ProfileError& e) {
    EXPECT_NE(std::string(e.what()).find("field 'kernel_registers.cpoy/f32' names no kernel"), std::string::npos)
        << e.what();
  }
}

TEST(InputBounds, SchemaVersionIsOneOrAbsent) {
  // The shipped profiles say their version; a user's may leave it out.
  EXPECT_EQ(profile_error(edited("h100", "\"schema_version\": 1,", "")), "");
  const std::string why = profile_error(edited("h100", "\"schema_version\": 1", "\"schema_version\": 2"));
  EXPECT_NE(why.find("field 'schema_version' must be a whole number from 1 to 1"), std::string::npos) << why;
}

TEST(InputBounds, ProfileSizeAndDepthAreBounded) {
  std::string deep = "{\"display_name\": ";
  for (int i = 0; i < 20; ++i) deep += "[";
  for (int i = 0; i < 20; ++i) deep += "]";
  EXPECT_NE(profile_error(deep + "}").find("nests objects or arrays more than 8 deep"), std::string::npos);
  const std::string big = edited("h100", "\"source\": \"", "\"source\": \"" + std::string(2 << 20, 'x'));
  EXPECT_NE(profile_error(big).find("more than a profile's 1 MiB"), std::string::npos);
  const std::string long_text = edited("h100", "\"source\": \"", "\"source\": \"" + std::string(20000, 'x'));
  EXPECT_NE(profile_error(long_text).find("field 'source' is 20"), std::string::npos) << profile_error(long_text);
}

// ---- memsim: exit 2 with one bounded line for a user's mistake --------------------------------------------

TEST(InputBounds, LongDeviceNameIsEchoedCapped) {
  for (const size_t n : {size_t(251), size_t(300), size_t(100000)}) {
    const Cli r = run_memsim({"--device", std::string(n, 'a')});
    expect_refused(r, "unknown device 'aaaa", "a device name of " + std::to_string(n));
    EXPECT_LT(r.err.size(), 400u) << n;
    EXPECT_NE(r.err.find("... (" + std::to_string(n) + " bytes)"), std::string::npos) << r.err;
  }
  // Control characters are escaped, the line stays one.
  expect_refused(run_memsim({"--device", "h\n1\x01"}), "unknown device 'h\\n1\\x01'", "control characters");
}

TEST(InputBounds, LongArgumentsKeepTheErrorLineBounded) {
  const Cli r = run_memsim({"--kernel", std::string(100000, 'k')});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(line_count(r.err), 1u);
  EXPECT_LT(r.err.size(), 1100u);
  EXPECT_NE(r.err.find("characters)"), std::string::npos) << r.err.substr(0, 200);
}

TEST(InputBounds, ProfilesThatAreNoFilesAreUserErrors) {
  DeviceDir dir;
  ASSERT_EQ(symlink("loop.json", (dir.path + "/loop.json").c_str()), 0);
  ASSERT_EQ(mkdir((dir.path + "/folder.json").c_str(), 0755), 0);
  ASSERT_EQ(mkfifo((dir.path + "/pipe.json").c_str(), 0644), 0);
  dir.write("h100", shipped("h100"));
  expect_refused(run_memsim({"--device", "loop"}), "device profile ", "a symlink loop");
  expect_refused(run_memsim({"--device", "loop"}), "loop.json: cannot be read (", "a symlink loop");
  expect_refused(run_memsim({"--device", "folder"}), "folder.json: is a directory, not a JSON file", "a directory");
  expect_refused(run_memsim({"--device", "pipe"}), "pipe.json: is not a regular file", "a FIFO");
  // The directory itself a FIFO, or a file: said so, not "no profiles in".
  const std::string fifo_dir = dir.path + "/pipe.json";
  setenv("MEMSIM_DEVICE_DIR", fifo_dir.c_str(), 1);
  expect_refused(run_memsim({"--kernel", "naive"}), "is not a directory (set MEMSIM_DEVICE_DIR)", "a FIFO as the directory");
  setenv("MEMSIM_DEVICE_DIR", dir.path.c_str(), 1);
  // A profile path given to memsim-calibrate: /dev/zero was read until the kernel killed it at 22.7 GiB.
  const auto start = std::chrono::steady_clock::now();
  expect_refused(run_calibrate({"--microbench", MEMSIM_RUN_DOC, "--base", "/dev/zero", "--predict-only"}),
                 "/dev/zero: is not a regular file", "--base /dev/zero");
  expect_refused(run_calibrate({"--microbench", "/dev/zero", "--base", "h100", "--predict-only"}),
                 "/dev/zero: is not a regular file", "--microbench /dev/zero");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 30);
}

TEST(InputBounds, PlotOutputNameIsCheckedBeforeTheWork) {
  expect_refused(run_memsim({"--plot", "banks", "--kernel", "coalesced", "--plot-out", scratch(std::string(300, 'p') + ".json")}),
                 "the file name is longer than 200 characters", "a 300-character --plot-out");
  expect_refused(run_memsim({"--plot", "banks", "--kernel", "coalesced", "--plot-out", "/nonexistent/dir/b.json"}),
                 "no directory /nonexistent/dir", "--plot-out in no directory");
}

TEST(InputBounds, AbbreviatedOptionsAreRefused) {
  expect_refused(run_memsim({"--kern", "naive"}), "unrecognised option '--kern'", "--kern");
  expect_refused(run_memsim({"--mat", "64x64"}), "unrecognised option '--mat'", "--mat");
  EXPECT_EQ(run_memsim({"--kernel", "naive", "--matrix", "64x64"}).code, 0);
}

// The H100 profile without its memory size (dram.bytes): the replay budgets below are checked on launches
// larger than any card holds, which the shipped profile refuses first.
std::string unbounded_h100() {
  static const std::string path = [] {
    std::istringstream in(slurp(std::string(MEMSIM_TEST_DEVICE_DIR) + "/h100.json"));
    std::string text;
    for (std::string line; std::getline(in, line);)
      if (line.find("\"bytes\":") == std::string::npos) text += line + "\n";
    const std::string file = scratch("h100_unbounded.json");
    std::ofstream(file) << text;
    return file;
  }();
  return path;
}

TEST(InputBounds, MatricesLargerThanTheCardAreRefused) {
  // 100000^2 f64 in and out: 1.6e11 bytes; the H100 profile holds 81559 MiB = 8.55e10.
  expect_refused(run_memsim({"--matrix", "100000x100000", "--dtype", "f64"}),
                 "needs 160 GB for its input and output; h100 has 85.5 GB (dram.bytes)", "160 GB on an H100");
  EXPECT_EQ(run_memsim({"--matrix", "65536x65536", "--dtype", "f64"}).code, 0);  // 68.7 GB fits
}

TEST(InputBounds, FullReplaySaysWhyItIsFull) {
  const Cli r = run_memsim({"--partitions", "--matrix", "1048576x1048576", "--device", unbounded_h100()});
  expect_refused(r, "partition traffic is counted, which replays every block", "--partitions at 2^40");
  EXPECT_EQ(r.err.find("asked for"), std::string::npos) << r.err;
  expect_refused(run_memsim({"--exact", "--matrix", "1048576x1048576", "--device", unbounded_h100()}),
                 "--exact asks for the full replay", "--exact");
}

TEST(InputBounds, MatricesEitherSideOf2To32ReplayAlike) {
  // 4294967295x1 was refused as too much work while 4294967296x1 ran in 0.01 s: both replay by classes.
  for (const char* m : {"4294967295x1", "4294967296x1"}) {
    const Cli r = run_memsim({"--matrix", m, "--format", "json"});
    ASSERT_EQ(r.code, 0) << m << ": " << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["config"]["replay"]["path"], "block_classes") << m << ": " << j["config"]["replay"].dump();
    EXPECT_EQ(j["config"]["replay"]["blocks_replayed"], 3) << m << ": " << j["config"]["replay"].dump();
  }
  // A full replay of it is still too much, and said so.
  expect_refused(run_memsim({"--matrix", "4294967295x1", "--exact"}), "this launch replays", "--exact 4294967295x1");
}

// ---- option values at their extremes: no signed overflow (UBSan in the checking build) -------------------

TEST(InputBounds, ExtremeOptionValuesExitZeroOrTwo) {
  const std::string max64 = std::to_string(std::numeric_limits<int64_t>::max());
  const std::string min64 = std::to_string(std::numeric_limits<int64_t>::min());
  const std::string max32 = std::to_string(std::numeric_limits<int32_t>::max());
  const std::string min32 = std::to_string(std::numeric_limits<int32_t>::min());
  // The case: signed overflow at sim/partitions.cpp:255.
  const Cli windows = run_memsim({"--partitions", "--matrix", "256x256", "--max-windows", max64, "--format", "json"});
  ASSERT_EQ(windows.code, 0) << windows.err;
  const auto j = nlohmann::json::parse(windows.out);
  EXPECT_EQ(j["partitions"]["windows"]["every"], 1) << j["partitions"]["windows"].dump().substr(0, 300);
  const std::vector<std::vector<std::string>> cases = {
      {"--partitions", "--window-step", max64},
      {"--partitions", "--window-step", min64},
      {"--partitions", "--max-windows", min64},
      {"--partitions", "--resident-blocks", max64},
      {"--partitions", "--resident-blocks", min64},
      {"--pad", max32},
      {"--pad", min32},
      {"--regs", max32},
      {"--regs", min32},
      {"--threads", max32},
      {"--threads", min32},
      {"--instructions", "1e308"},
      {"--instructions", "-1e308"},
      {"--plot", "banks", "--plot-out", scratch("x.json"), "--plot-instruction", max64},
      {"--plot", "banks", "--plot-out", scratch("x.json"), "--plot-instruction", min64},
      {"--matrix", max64 + "x" + max64},
      {"--matrix", "9223372036854775808x1"},
      {"--block", max64 + "x1"},
      {"--tile", max64 + "x" + max64},
  };
  for (std::vector<std::string> args : cases) {
    args.insert(args.begin(), {"--matrix", "256x256", "--kernel", "coalesced"});
    std::string text;
    for (const std::string& a : args) text += a + " ";
    const Cli r = run_memsim(args);
    EXPECT_TRUE(r.code == 0 || r.code == 2) << text << "-> " << r.code << ": " << r.err;
    if (r.code == 2) {
      EXPECT_EQ(line_count(r.err), 1u) << text << r.err;
    }
  }
  std::remove(scratch("x.json").c_str());
}

TEST(InputBounds, SummaryKeepsWindowsWithTheLargestMaximum) {
  const PartitionSpec spec = linear_partitions(4, 256, "test");
  PartitionTrafficSink sink(spec, block_schedule(100, 10, 1), 32);
  const PartitionTraffic t = summarize_partition_traffic(sink, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(t.windows, 91);
  EXPECT_EQ(t.window_every, 1);
  EXPECT_EQ(t.kept.size(), 91u);
  EXPECT_EQ(summarize_partition_traffic(sink, 45).window_every, 3);  // ceil(91 / 45)
  EXPECT_EQ(summarize_partition_traffic(sink, 91).window_every, 1);
}

// ---- a partition replay's budget, said up front -------------------------------------------------------------

TEST(InputBounds, PartitionReplayBudgetIsCheckedBeforeReplaying) {
  // 169 s and 5.25 GB before: a counter for each of 2^24 blocks in every replay thread.
  const auto start = std::chrono::steady_clock::now();
  const Cli r = run_memsim({"--partitions", "--window-step", "1", "--block", "32x1", "--matrix", "131072x131072",
                            "--device", unbounded_h100()});
  expect_refused(r, "more than a partition replay's budget of 128 MiB", "--window-step 1 on 2^24 blocks");
  EXPECT_NE(r.err.find("16777216"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--window-step"), std::string::npos) << r.err;
  // The windows a report keeps are bounded too: --max-windows names the most it may be.
  const Cli kept = run_memsim({"--partitions", "--window-step", "1", "--matrix", "16384x16384", "--max-windows",
                               std::to_string(std::numeric_limits<int64_t>::max())});
  expect_refused(kept, "more than a report's budget of 2^22 counts", "kept windows");
  EXPECT_NE(kept.err.find("choose --max-windows 209715 or fewer"), std::string::npos) << kept.err;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 20);
}

// ---- memsim-calibrate: its inputs checked like profiles, its output before the work -----------------------

std::string write_run_with_median(double median) {
  nlohmann::json doc = nlohmann::json::parse(slurp(MEMSIM_RUN_DOC));
  doc["runs"][0]["time_us"]["median"] = median;
  const std::string path = scratch("run_" + std::to_string(std::hash<double>()(median)) + ".json");
  std::ofstream(path) << doc.dump();
  return path;
}

TEST(InputBounds, AbsurdMeasuredTimesAreRefused) {
  const std::string run = write_run_with_median(1e308);
  const Cli r = run_calibrate({"--microbench", run, "--base", "h100", "--predict-only"});
  expect_refused(r, "field 'time_us.median' must be at most 1e9 us", "median 1e308");
  std::remove(run.c_str());
}

TEST(InputBounds, MeasurementDocumentsRefuseDuplicateKeys) {
  std::string text = slurp(MEMSIM_RUN_DOC);
  const std::string from = "\"median\":";
  const size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos);
  text.insert(at, "\"median\": 1e6, ");
  const std::string path = scratch("duplicate_run.json");
  std::ofstream(path) << text;
  const Cli r = run_calibrate({"--microbench", path, "--base", "h100", "--predict-only"});
  expect_refused(r, "field 'runs[].time_us.median' is given twice", "a median given twice");
  std::remove(path.c_str());
}

TEST(InputBounds, CalibrateChecksItsOutputBeforeTheFit) {
  const auto start = std::chrono::steady_clock::now();
  const Cli r = run_calibrate({"--microbench", MEMSIM_RUN_DOC, "--base", "h100", "--out", "/nonexistent/dir/p.json"});
  expect_refused(r, "--out /nonexistent/dir/p.json: no directory /nonexistent/dir", "--out in no directory");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10);
  expect_refused(run_calibrate({"--microbench", MEMSIM_RUN_DOC, "--base", "h100", "--out", "/"}), "is a directory",
                 "--out /");
}

}  // namespace
}  // namespace memsim
