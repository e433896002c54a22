// The memsim command as a user runs it: exit codes, one-line errors, --help, --list-kernels, and the pinned
// shape of its JSON and CSV output (google/benchmark's habit: tests that pin the output format). Values are
// checked against closed forms for a 64x64 f32 coalesced transpose (block 32x8, tile 32x32, 4 blocks):
// per site 64 * 64 / 32 = 128 warp instructions; global rows of 32 floats = 4 sectors (512); the column
// read of the unpadded tile is 32 wavefronts per instruction (4096, 3968 conflicts).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "report/report.hpp"
#include "kernels/registry.hpp"
#include "kernels/resolve.hpp"
#include "model/profile.hpp"
#include "sim/replay.hpp"
#include "tests/support/run_command.hpp"

#ifndef MEMSIM_BIN
#error "MEMSIM_BIN (path of the memsim binary) must be defined by the build"
#endif

namespace memsim {
namespace {

using Cli = test::CommandResult;
using test::quote;
using test::slurp;

Cli run_cli(const std::vector<std::string>& args) {
  static int counter = 0;
  return test::run_command(MEMSIM_BIN, args, ::testing::TempDir() + "memsim_cli_" + std::to_string(getpid()) + "_" +
                                                 std::to_string(counter++));
}

std::string join(const std::vector<std::string>& args) {
  std::string s;
  for (const std::string& a : args) s += (s.empty() ? "" : " ") + a;
  return s;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> v;
  std::istringstream is(text);
  for (std::string l; std::getline(is, l);) v.push_back(l);
  return v;
}

std::vector<std::string> split(const std::string& row, char sep) {
  std::vector<std::string> v;
  std::string cur;
  for (char c : row) {
    if (c == sep) {
      v.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  v.push_back(cur);
  return v;
}

template <class J>
std::vector<std::string> keys_of(const J& j) {
  std::vector<std::string> k;
  for (auto it = j.begin(); it != j.end(); ++it) k.push_back(it.key());
  return k;
}

// Every bad input: exit 2, nothing on stdout, exactly one line on stderr that starts with "memsim: ".
TEST(Cli, BadInputsExitTwoWithOneLine) {
  const std::vector<std::vector<std::string>> bad = {
      {"--matrix", "32x"},
      {"--matrix", "0x8"},
      {"--matrix=-4x8"},
      {"--matrix", "-4x8"},
      {"--matrix", "abc"},
      {"--matrix", "x8"},
      {"--matrix", "32x8x2"},
      {"--matrix", "99999999999999999999x2"},
      {"--block", "32x"},
      {"--tile", "abc"},
      {"--block", "64x32"},                                  // 2048 threads
      {"--kernel", "naive", "--tile", "48x32"},              // not a multiple of the 32x8 block
      {"--kernel", "coalesced", "--tile", "256x256"},        // 256 KiB shared tile > H100 opt-in 227 KiB
      {"--kernel", "coalesced", "--tile", "64x72", "--device", "gtx280"},  // 18 KiB tile > GT200 16 KiB
      {"--kernel", "naive", "--block", "32x32", "--device", "gtx280"},     // 1024 threads > GT200 512
      {"--device", "nosuchgpu"},                                          // unknown device profile
      {"--kernel", "vec4", "--matrix", "1001x64"},
      {"--kernel", "reg4x4", "--matrix", "64x1001"},
      {"--matrix", "1048577x1048576"},                       // past 2^40 elements
      {"--kernel", "swizzle", "--block", "24x8"},            // tile 24x24
      {"--kernel", "coarse", "--tile", "32x64"},
      {"--kernel", "coarse", "--matrix", "100x64"},
      {"--kernel", "naive", "--pad", "1"},
      {"--pad", "65"},
      {"--pad=-1"},
      {"--pad", "abc"},
      {"--kernel", "bogus"},
      {"--kernel", "naive,bogus,padded"},                    // a comparison names the unknown one
      {"--kernel", "naive,,padded"},
      {"--kernel", "naive,"},
      {"--kernel", "naive,naive"},
      {"--kernel", "all,naive"},
      {"--kernel", "naive,padded", "--format", "ncu-csv"},   // one launch in ncu's layout
      {"--kernel", "all", "--plot", "banks", "--plot-out", "banks.png"},
      {"--dtype", "f8"},
      {"--format", "bogus"},
      {"--threads", "999"},
      {"--threads", "-1"},
      {"--threads", "abc"},
      {"--bogus-option"},
      {"--matrix"},  // missing value
      {"--instructions", "0"},
      {"--instructions", "-3e6"},
      {"--instructions", "nan"},
      {"--instructions", "abc"},
      {"--instructions", "1e308"},                           // beyond 1e15: no time a user meant
      {"--instructions", "1e-9"},                            // less than one instruction
      {"--dram-read-bytes", "-1"},
      {"--dram-read-bytes", "nan"},
      {"--dram-read-bytes", "abc"},
      {"--dram-read-bytes", "1e308"},                        // beyond 1e15: no launch a user meant
      {"--dram-read-bytes", "0.5"},                          // bytes come whole
      {"--l2-write-sectors", "-1"},
      {"--l2-write-sectors", "nan"},
      {"--l2-write-sectors", "1e308"},                       // beyond 1e15: no launch a user meant
      {"--l2-write-sectors", "0.5"},                         // sectors come whole
      {"--block", "32x32", "--regs", "255"},                 // 1024 x 255 registers > the H100's 65536 a block
      {"--device", "8800gtx", "--block", "16x32"},           // 512 threads x 32 registers > G80's 8192
      {"--device", "gtx280", "--regs", "200"},               // GT200: at most 124 registers a thread
      {"--resident-blocks", "1000000"},                      // more than 132 SMs x 32 blocks
      {"--window-step", "3"},                                // partition windows are not counted on h100
      {"--block", "1x1", "--matrix", "65537x65535", "--exact"},  // 2^32 one-lane warps: over the replay's bound
      {"--kernel", "diagonal", "--block", "1x1", "--matrix", "65537x65535"},  // no classes: the same bound
      {"--kernel", "coarse", "--matrix", "65601x65536"},     // past 2^32-1: still whole tiles only
      {"--kernel", "vec4", "--matrix", "65537x65536"},       // ... and vector widths
      {"--matrix", "65536x2097153"},                         // 65537 blocks tall: more than the device launches
      {"--kernel", "naive", "--matrix", "1x1", "--tile", "65536x65536", "--block", "32x32"},
      {"--device", "8800gtx", "--dtype", "f64"},             // compute capability 1.0: no double precision
      {"--device", "8800gtx", "--dtype", "f64", "--plot", "sectors", "--plot-out", "sectors.json"},
  };
  for (const auto& args : bad) {
    const Cli r = run_cli(args);
    const std::string what = "memsim " + join(args);
    EXPECT_EQ(r.code, 2) << what << "\nstderr: " << r.err;
    EXPECT_EQ(r.out, "") << what;
    EXPECT_EQ(r.err.rfind("memsim: ", 0), 0u) << what << "\nstderr: " << r.err;
    ASSERT_FALSE(r.err.empty()) << what;
    EXPECT_EQ(r.err.back(), '\n') << what;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << "\nstderr: " << r.err;
  }
}

// Fuzzing finding: Boost.Program_options words an error by replacing %name% placeholders with what
// was typed until none is left, so an argument holding one ("--pad %value%") hung memsim for good. Each is
// refused at once (timeout gives 124 past 20 s), with the argument quoted as typed.
TEST(Cli, PlaceholdersInArgumentsAreQuotedNotExpanded) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--ma%canonical_option%"}, "memsim: unrecognised option '--ma%canonical_option%'"},
      {{"--pad", "%value%"}, "memsim: the argument ('%value%') for option '--pad' is invalid"},
      {{"--threads=%value%x"}, "memsim: the argument ('%value%x') for option '--threads' is invalid"},
      {{"--regs", "%prefix%%option%"}, "memsim: the argument ('%prefix%%option%') for option '--regs' is invalid"},
      {{"--kernel", "%option%"}, "memsim: unknown kernel '%option%'"},
      {{"%original_token%"}, "memsim: unexpected argument '%original_token%'"},
      {{"--device", "h%100\x1fp"}, "memsim: unknown device 'h%100\\x1fp'"},
  };
  for (const auto& [args, start] : cases) {
    std::vector<std::string> timed = {"20", MEMSIM_BIN};
    timed.insert(timed.end(), args.begin(), args.end());
    const Cli r = test::run_command("timeout", timed, ::testing::TempDir() + "memsim_cli_placeholder_" +
                                                          std::to_string(getpid()));
    EXPECT_EQ(r.code, 2) << join(args) << "\nstderr: " << r.err;
    EXPECT_EQ(r.err.rfind(start, 0), 0u) << join(args) << "\nstderr: " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

// An argument with a newline or another control character, echoed in an error, stays on the error's one
// line: escaped as \n, \t or \xNN.
TEST(Cli, ControlCharactersInAnErrorAreEscaped) {
  const Cli r = run_cli({"--kernel", "a\nb\tc\x01"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "memsim: unknown kernel 'a\\nb\\tc\\x01' (memsim --list-kernels lists the suite)\n");
}

// f64 needs compute capability 1.3: refused on the G80 profile (1.0) with the reason, run on the GT200 (1.3); the
// G80 runs f32 and f16 (2- and 4-byte words, no arithmetic).
TEST(Cli, DoublePrecisionNeedsComputeCapability13) {
  const Cli g80 = run_cli({"--device", "8800gtx", "--dtype", "f64", "--matrix", "256x256"});
  EXPECT_EQ(g80.code, 2);
  EXPECT_NE(g80.err.find("has no double precision"), std::string::npos) << g80.err;
  EXPECT_NE(g80.err.find("compute capability 1.0"), std::string::npos) << g80.err;
  for (const std::vector<std::string>& ok :
       {std::vector<std::string>{"--device", "gtx280", "--dtype", "f64"}, {"--device", "8800gtx", "--dtype", "f32"},
        {"--device", "8800gtx", "--dtype", "f16"}}) {
    std::vector<std::string> args = ok;
    for (const char* a : {"--matrix", "256x256"}) args.push_back(a);
    const Cli r = run_cli(args);
    EXPECT_EQ(r.code, 0) << join(args) << ": " << r.err;
  }
}

// A number from the text after `label` (the table's figures).
double number_after(const std::string& text, const std::string& label) {
  const size_t at = text.find(label);
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + label.size()));
}

// Figures carry significant digits: a 1x1 f32 transpose moves 2 x 4 bytes, so its bandwidth is 8 bytes over the
// predicted time, about 0.0012 GB/s on the H100, which fixed decimals printed as "0.0 GB/s".
TEST(Cli, SmallFiguresKeepTheirDigits) {
  const Cli json = run_cli({"--matrix", "1x1", "--format", "json"});
  ASSERT_EQ(json.code, 0) << json.err;
  const double time_us = nlohmann::json::parse(json.out)["prediction"]["time_us"].get<double>();
  const Cli table = run_cli({"--matrix", "1x1"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_EQ(table.out.find(" 0.0 GB/s"), std::string::npos) << table.out;
  const double gbs = number_after(table.out, "effective bandwidth ");
  const double want = 8.0 / (time_us * 1e3);  // bytes / (us x 1e3) = GB/s
  EXPECT_NEAR(gbs, want, want * 1e-3) << table.out;  // 4 significant digits
  EXPECT_NEAR(number_after(table.out, "  time "), time_us, time_us * 1e-3) << table.out;
}

// A word without an option (a forgotten --kernel: `memsim naive`) must be refused, not ignored, and named.
TEST(Cli, StrayPositionalArgumentIsRefused) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"naive"},
                                               std::vector<std::string>{"--kernel", "naive", "extra"}}) {
    const Cli r = run_cli(args);
    EXPECT_EQ(r.code, 2) << join(args);
    EXPECT_EQ(r.out, "") << join(args);
    EXPECT_EQ(r.err.rfind("memsim: ", 0), 0u) << join(args);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << join(args);
    EXPECT_NE(r.err.find("'" + args.back() + "'"), std::string::npos) << r.err;
  }
}

// A launch no SM can hold is refused with the resource and its figures, not given a time.
TEST(Cli, BlockThatDoesNotFitNamesTheRegisters) {
  // 1024 threads x 255 registers = 261,120 registers; an H100 block may have 65,536.
  const Cli r = run_cli({"--block", "32x32", "--regs", "255"});
  EXPECT_NE(r.err.find("261120 registers"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("65536"), std::string::npos) << r.err;
  // The same block with the kernel's 32 registers (32,768) fits.
  EXPECT_EQ(run_cli({"--block", "32x32", "--matrix", "256x256"}).code, 0);
}

// The occupancy names the registers it was worked out with and where they come from. 40 registers a thread:
// 1,280 a warp (a multiple of the 256-register unit), 65,536 / 1,280 = 51 warps, 48 in whole groups of 4, so 6
// blocks of 8 warps an SM, limited by registers. Without the toolkit (--no-compile), the profile's count.
TEST(Cli, OccupancyNamesItsRegisters) {
  const Cli given = run_cli({"--kernel", "coalesced", "--matrix", "256x256", "--regs", "40", "--format", "json"});
  ASSERT_EQ(given.code, 0) << given.err;
  const auto o = nlohmann::json::parse(given.out)["prediction"]["occupancy"];
  EXPECT_EQ(o["registers_per_thread"], 40);
  EXPECT_EQ(o["registers_basis"], "given (--regs)");
  EXPECT_EQ(o["blocks_per_sm"], 6);
  EXPECT_EQ(o["limiter"], "registers");
  const Cli table = run_cli({"--kernel", "coalesced", "--matrix", "256x256", "--regs", "40"});
  EXPECT_NE(table.out.find("occupancy: 6 blocks an SM (48 warps, limited by registers), 40 registers a thread "
                           "(given (--regs))"),
            std::string::npos)
      << table.out;
  const Cli profile = run_cli({"--kernel", "coalesced", "--matrix", "256x256", "--no-compile", "--format", "json"});
  ASSERT_EQ(profile.code, 0) << profile.err;
  EXPECT_EQ(nlohmann::json::parse(profile.out)["prediction"]["occupancy"]["registers_basis"],
            "the profile's count for coalesced f32 (not compiled here)");
}

// One broken profile does not hide the others from --list-devices; an empty directory is an error.
TEST(Cli, ListDevicesSurvivesABrokenProfile) {
  const std::string dir = ::testing::TempDir() + "memsim_devices_" + std::to_string(getpid());
  ASSERT_EQ(std::system(("mkdir -p " + quote(dir)).c_str()), 0);
  std::ofstream(dir + "/broken.json") << "{\"display_name\": 3}";
  ASSERT_EQ(std::system(("cp " + quote(device_dir() + "/h100.json") + " " + quote(dir)).c_str()), 0);
  setenv("MEMSIM_DEVICE_DIR", dir.c_str(), 1);
  const Cli listed = run_cli({"--list-devices"});
  setenv("MEMSIM_DEVICE_DIR", (dir + "/none").c_str(), 1);
  const Cli empty = run_cli({"--list-devices"});
  unsetenv("MEMSIM_DEVICE_DIR");
  std::system(("rm -rf " + quote(dir)).c_str());
  EXPECT_EQ(listed.code, 0);
  EXPECT_NE(listed.out.find("h100"), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("broken"), std::string::npos) << listed.out;
  EXPECT_NE(listed.err.find("'display_name'"), std::string::npos) << listed.err;
  EXPECT_EQ(empty.code, 2);
  EXPECT_NE(empty.err.find("no device profiles"), std::string::npos) << empty.err;
}

// A report that cannot be written is a failure, not a success.
TEST(Cli, UnwritableOutputFails) {
  if (access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no /dev/full";
  const int rc = std::system((std::string(MEMSIM_BIN) + " --matrix 64x64 > /dev/full 2> /dev/null").c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  EXPECT_EQ(WEXITSTATUS(rc), 1);
}

TEST(Cli, HelpMentionsEveryOptionAndDefault) {
  const Cli r = run_cli({"--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.err, "");
  // Option -> what its help text must show as its default.
  const std::vector<std::pair<std::string, std::string>> opts = {
      {"--help", ""},          {"--kernel", "padded"}, {"--matrix", "2048x2048"}, {"--block", "32x8"},
      {"--tile", "default"},   {"--pad", "default"},   {"--dtype", "f32"},        {"--format", "table"},
      {"--threads", "0"},      {"--list-kernels", ""}};
  // The option list starts at the first line that starts with "  -" (the usage line above it has examples).
  const size_t list = r.out.find("\n  -");
  ASSERT_NE(list, std::string::npos) << r.out;
  const std::string text = r.out.substr(list);
  for (const auto& [opt, def] : opts) {
    const size_t at = text.find(opt);
    ASSERT_NE(at, std::string::npos) << opt << " missing from --help:\n" << r.out;
    // The option's entry runs to the next line that starts another option.
    const size_t end = text.find("\n  -", at);
    const std::string entry = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
    EXPECT_NE(entry.find(def), std::string::npos) << opt << " does not show '" << def << "': " << entry;
  }
  EXPECT_EQ(run_cli({"-h"}).code, 0);
}

// The suite as built (a kernel added to kernels/suite/ joins it), the seed articles' kernels among them.
TEST(Cli, ListKernelsListsTheSuite) {
  const Cli r = run_cli({"--list-kernels"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.err, "");
  std::set<std::string> want;
  for (const KernelInfo& k : kernel_suite()) want.insert(k.name);
  const std::vector<std::string> ls = lines(r.out);
  EXPECT_EQ(ls.size(), kernel_suite().size()) << r.out;
  std::set<std::string> got;
  for (const std::string& l : ls) got.insert(l.substr(0, l.find(' ')));
  EXPECT_EQ(got, want);
  for (const char* k : {"copy", "copy_shared", "naive", "naive_read", "coalesced", "padded", "diagonal", "coarse",
                        "fine", "swizzle", "vec4", "vec4_shared", "reg4x4", "best"})
    EXPECT_EQ(got.count(k), 1u) << k;
}

const std::vector<std::string> kMetricNames = {
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_lgds.sum",
    "smsp__inst_executed_op_shared_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
};
// Global wavefronts: 256 requests of one 128-byte row each, one pass apiece.
const std::vector<int64_t> kCoalesced64Metrics = {128, 128, 512, 512, 256, 128, 128, 4096, 128, 3968, 0};

const std::vector<std::string> kSiteCommonKeys = {"site", "name", "space", "op", "expr", "instructions",
                                                  "lane_accesses", "bytes"};
const std::vector<std::string> kGlobalSiteKeys = {"requests", "sectors", "ideal_sectors", "sectors_per_request",
                                                  "ideal_sectors_per_request", "efficiency", "l1_wavefronts",
                                                  "l1_wavefronts_per_request"};
const std::vector<std::string> kSharedSiteKeys = {"wavefronts", "ideal_wavefronts", "bank_conflicts",
                                                  "wavefronts_per_instruction", "first_block_bank_words",
                                                  "efficiency"};

TEST(Cli, JsonShapeIsPinned) {
  const Cli r = run_cli({"--kernel", "coalesced", "--matrix", "64x64", "--format", "json", "--threads", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(r.out);  // throws (fails) if not JSON
  EXPECT_EQ(keys_of(j),
            (std::vector<std::string>{"kernel", "config", "device", "metrics", "warps", "sites", "findings",
                                      "prediction", "advice"}));
  EXPECT_EQ(j["kernel"], "coalesced");
  EXPECT_EQ(j["warps"], 32);  // 4 blocks x 8 warps

  const auto& c = j["config"];
  EXPECT_EQ(keys_of(c), (std::vector<std::string>{"kernel", "matrix", "dtype", "elem_bytes", "block", "tile",
                                                   "tile_over_output", "grid", "pad", "shared_bytes_per_block",
                                                   "threads_per_block", "blocks", "replay"}));
  EXPECT_EQ(c["replay"]["path"], "full");  // 4 blocks, each its own class: nothing to gain
  EXPECT_EQ(c["replay"]["blocks_replayed"], 4);
  EXPECT_EQ(keys_of(c["matrix"]), (std::vector<std::string>{"width", "height"}));
  for (const char* xy : {"block", "tile", "grid"}) EXPECT_EQ(keys_of(c[xy]), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(c["kernel"], "coalesced");
  EXPECT_EQ(c["matrix"]["width"], 64);
  EXPECT_EQ(c["matrix"]["height"], 64);
  EXPECT_EQ(c["dtype"], "f32");
  EXPECT_EQ(c["elem_bytes"], 4);
  EXPECT_EQ(c["block"]["x"], 32);
  EXPECT_EQ(c["block"]["y"], 8);
  EXPECT_EQ(c["tile"]["x"], 32);
  EXPECT_EQ(c["tile"]["y"], 32);
  EXPECT_EQ(c["tile_over_output"], false);
  EXPECT_EQ(c["grid"]["x"], 2);
  EXPECT_EQ(c["grid"]["y"], 2);
  EXPECT_EQ(c["pad"], 0);
  EXPECT_EQ(c["shared_bytes_per_block"], 32 * 32 * 4);
  EXPECT_EQ(c["threads_per_block"], 256);
  EXPECT_EQ(c["blocks"], 4);

  EXPECT_EQ(keys_of(j["metrics"]), kMetricNames);
  for (size_t i = 0; i < kMetricNames.size(); ++i)
    EXPECT_EQ(j["metrics"][kMetricNames[i]].get<int64_t>(), kCoalesced64Metrics[i]) << kMetricNames[i];

  ASSERT_EQ(j["sites"].size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    const auto& s = j["sites"][i];
    const bool global = i == 0 || i == 3;
    std::vector<std::string> want = kSiteCommonKeys;
    for (const std::string& k : global ? kGlobalSiteKeys : kSharedSiteKeys) want.push_back(k);
    EXPECT_EQ(keys_of(s), want) << "site " << i;
    EXPECT_EQ(s["site"], int(i));
    EXPECT_EQ(s["space"], global ? "global" : "shared");
    EXPECT_EQ(s["op"], i == 0 || i == 2 ? "ld" : "st");
    EXPECT_EQ(s["instructions"], 128);
    EXPECT_EQ(s["lane_accesses"], 64 * 64);
    EXPECT_EQ(s["bytes"], 64 * 64 * 4);
  }
  EXPECT_EQ(j["sites"][0]["sectors"], 512);
  EXPECT_EQ(j["sites"][0]["requests"], 128);
  EXPECT_DOUBLE_EQ(j["sites"][0]["sectors_per_request"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(j["sites"][0]["efficiency"].get<double>(), 1.0);
  EXPECT_EQ(j["sites"][2]["wavefronts"], 4096);
  EXPECT_EQ(j["sites"][2]["ideal_wavefronts"], 128);
  EXPECT_EQ(j["sites"][2]["bank_conflicts"], 3968);
  EXPECT_DOUBLE_EQ(j["sites"][2]["wavefronts_per_instruction"].get<double>(), 32.0);
  EXPECT_DOUBLE_EQ(j["sites"][2]["efficiency"].get<double>(), 1.0 / 32);
  // First block's heatmap: block (0,0) has 32 tile-read instructions (8 warps x 4 steps); each puts its 32
  // distinct words in one bank, bank r for row r of the walk.
  const auto& rows = j["sites"][2]["first_block_bank_words"];
  ASSERT_EQ(rows.size(), 32u);
  for (const auto& row : rows) {
    ASSERT_EQ(row.size(), 32u);
    int64_t total = 0, hot = 0;
    for (const auto& v : row) {
      total += v.get<int64_t>();
      hot = std::max<int64_t>(hot, v.get<int64_t>());
    }
    EXPECT_EQ(total, 32);
    EXPECT_EQ(hot, 32);
  }
  EXPECT_TRUE(j["findings"].is_array());
  EXPECT_TRUE(j["findings"].empty());
}

// The shipped h100 profile's calibration block, read here from the file itself.
nlohmann::json h100_calibration() {
  std::ifstream in(device_dir() + "/h100.json");
  return nlohmann::json::parse(in).at("calibration");
}

// Where the numbers come from: the JSON's "device" block and the table's prediction name the profile and say
// whether it is calibrated (which run, from the profile's own calibration block) or a stand-in.
TEST(Cli, ReportsSayWhereTheConstantsComeFrom) {
  const nlohmann::json cal = h100_calibration();
  const Cli json = run_cli({"--matrix", "256x256", "--format", "json"});
  ASSERT_EQ(json.code, 0) << json.err;
  const nlohmann::json d = nlohmann::json::parse(json.out)["device"];
  EXPECT_EQ(keys_of(nlohmann::ordered_json::parse(json.out)["device"]),
            (std::vector<std::string>{"profile", "name", "compute_capability", "calibrated", "cost_basis", "provenance",
                                      "calibration", "attainable_bandwidth"}));
  EXPECT_EQ(d["profile"], "h100");
  EXPECT_EQ(d["calibrated"], true);
  EXPECT_EQ(d["cost_basis"], "calibrated");
  EXPECT_EQ(d["calibration"]["date"], cal["date"]);
  EXPECT_EQ(d["calibration"]["runs"], cal["runs"]);
  EXPECT_EQ(d["calibration"]["mape_pct"], cal["mape_pct"]);
  const std::string date = cal["date"].get<std::string>();
  EXPECT_NE(d["provenance"].get<std::string>().find(date), std::string::npos) << d["provenance"];

  const Cli table = run_cli({"--matrix", "256x256"});
  ASSERT_EQ(table.code, 0) << table.err;
  const size_t pred = table.out.find("Prediction on h100 (NVIDIA H100 SXM5 80GB HBM3, compute capability 9.0)\n"
                                     "  calibrated: cost constants fitted to " +
                                     std::to_string(cal["runs"].get<int>()) + " microbenchmark runs");
  EXPECT_NE(pred, std::string::npos) << table.out;
  EXPECT_NE(table.out.find(date, pred), std::string::npos) << table.out;

  for (const char* device : {"a100", "v100", "8800gtx"}) {
    const Cli t = run_cli({"--matrix", "256x256", "--device", device});
    ASSERT_EQ(t.code, 0) << t.err;
    EXPECT_NE(t.out.find("Prediction on " + std::string(device) + " ("), std::string::npos) << t.out;
    EXPECT_NE(t.out.find("  NOT CALIBRATED: data-sheet stand-ins ("), std::string::npos) << t.out;
    EXPECT_NE(t.out.find("no GPU has checked them\n  time "), std::string::npos) << t.out;
    const Cli j = run_cli({"--matrix", "256x256", "--device", device, "--format", "json"});
    const nlohmann::json dj = nlohmann::json::parse(j.out)["device"];
    EXPECT_EQ(dj["calibrated"], false) << device;
    EXPECT_EQ(dj["cost_basis"], "data_sheet") << device;
    EXPECT_TRUE(dj["calibration"].is_null()) << device;
  }
  const Cli gt = run_cli({"--matrix", "256x256", "--device", "gtx280", "--format", "json"});
  EXPECT_EQ(nlohmann::json::parse(gt.out)["device"]["cost_basis"], "published");
}

// Findings have no suite kernel that produces them on a legal launch: pin their JSON shape through
// replay_json with a hand-made result.
TEST(Cli, FindingJsonShape) {
  UserConfig u;
  u.kernel = "vec4";
  u.matrix = {64, 64};
  ReplayResult r;
  r.config = resolve_launch(u);
  r.sites.resize(r.config.kernel->num_sites);
  Finding f;
  f.kind = FindingKind::Misaligned;
  f.site = 0;
  f.count = 3;
  f.first = ThreadCoord{1, 2, 3, 4};
  f.first_offset = 57;
  f.width = 16;
  r.findings.push_back(f);
  const nlohmann::ordered_json j = replay_json(r);
  ASSERT_EQ(j["findings"].size(), 1u);
  const auto& g = j["findings"][0];
  EXPECT_EQ(keys_of(g), (std::vector<std::string>{"kind", "site", "site_name", "count", "width", "first_block",
                                                   "first_thread", "first_offset"}));
  EXPECT_EQ(g["kind"], "misaligned");
  EXPECT_EQ(g["site_name"], "ld in (vec4)");
  EXPECT_EQ(g["count"], 3);
  EXPECT_EQ(g["width"], 16);
  EXPECT_EQ(g["first_block"]["x"], 1);
  EXPECT_EQ(g["first_block"]["y"], 2);
  EXPECT_EQ(g["first_thread"]["x"], 3);
  EXPECT_EQ(g["first_thread"]["y"], 4);
  EXPECT_EQ(g["first_offset"], 57);
}

// The long CSV: header section,index,name,value, four fields a row (none of these values holds a comma), the
// per-site counts beside the configuration, the device and the prediction.
TEST(Cli, CsvIsOneLongTable) {
  const Cli r = run_cli({"--kernel", "coalesced", "--matrix", "64x64", "--format", "csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const std::vector<std::string> ls = lines(r.out);
  ASSERT_GT(ls.size(), 1u);
  EXPECT_EQ(ls[0], "section,index,name,value");
  std::map<std::string, std::string> v;  // "section/index/name" -> value
  for (size_t i = 1; i < ls.size(); ++i) {
    if (ls[i].find('"') != std::string::npos) continue;  // a quoted text (the provenance, an expression)
    const std::vector<std::string> f = split(ls[i], ',');
    ASSERT_EQ(f.size(), 4u) << ls[i];
    v[f[0] + "/" + f[1] + "/" + f[2]] = f[3];
  }
  EXPECT_EQ(v["config//kernel"], "coalesced");
  EXPECT_EQ(v["config//matrix.width"], "64");
  EXPECT_EQ(v["config//block.x"], "32");
  EXPECT_EQ(v["config//tile.y"], "32");
  EXPECT_EQ(v["device//profile"], "h100");
  EXPECT_EQ(v["device//calibrated"], "true");
  EXPECT_EQ(v["metrics//l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"], "512");
  for (int site = 0; site < 4; ++site) {
    const std::string at = "sites/" + std::to_string(site) + "/";
    EXPECT_EQ(v[at + "instructions"], "128") << site;
    EXPECT_EQ(v[at + "bytes"], "16384") << site;
  }
  EXPECT_EQ(v["sites/0/sectors"], "512");
  EXPECT_EQ(v["sites/2/name"], "ld tile");
  EXPECT_EQ(v["sites/2/wavefronts"], "4096");
  EXPECT_EQ(v["sites/2/bank_conflicts"], "3968");
  EXPECT_DOUBLE_EQ(std::stod(v["sites/2/efficiency"]), 1.0 / 32);
  for (const char* name : {"time_us", "effective_bandwidth_gbs", "fraction_of_copy", "bottleneck",
                           "terms_us.DRAM bandwidth", "terms_us.launch overhead"})
    EXPECT_FALSE(v["prediction//" + std::string(name)].empty()) << name;
}

// The report ends with what limits the kernel and the change that helps: the unpadded tile's column reads put
// all 32 lanes on one bank (rows of 32 floats are 128 bytes), 32 wavefronts an instruction where 1 would do.
TEST(Cli, ReportEndsWithTheAdvice) {
  const Cli r = run_cli({"--kernel", "coalesced", "--threads", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::vector<std::string> ls = lines(r.out);
  ASSERT_GE(ls.size(), 2u);
  EXPECT_EQ(ls[ls.size() - 2], "Advice");
  EXPECT_EQ(ls.back().rfind("  limited by shared-memory bank conflicts; 32-way bank conflicts on the shared loads at "
                            "'ld tile' (32 wavefronts per instruction, ideal 1): pad each tile row by 1 element or "
                            "swizzle",
                            0),
            0u)
      << ls.back();
  const Cli j = run_cli({"--kernel", "coalesced", "--threads", "1", "--format", "json"});
  ASSERT_EQ(j.code, 0) << j.err;
  const auto advice = nlohmann::ordered_json::parse(j.out)["advice"];
  EXPECT_EQ(keys_of(advice), (std::vector<std::string>{"rule", "limit", "evidence", "change", "text"}));
  EXPECT_EQ(advice["rule"], "bank-conflicts");
  EXPECT_EQ("  " + advice["text"].get<std::string>(), ls.back());
}

// Several kernels, one table: 64x64 f32, 32x8 blocks (tile 32x32). Worked out by hand: naive stores
// out[x * H + y] for 32 consecutive x, 64 x 4 = 256 bytes apart: 32 sectors per request, its loads a 128-byte
// row: 4. coalesced reads a column of the unpadded 32-float tile: all lanes on one bank, 32 wavefronts an
// instruction, its row writes 1; padded's 33-float rows make the column read 1 too.
struct ComparedRow {
  const char* kernel;
  double ld, st;
  double shared_ld, shared_st;  // < 0: no shared access (null)
  const char* rule;
};
const std::vector<ComparedRow> kCompared64 = {{"naive", 4, 32, -1, -1, "launch-overhead"},
                                              {"coalesced", 4, 4, 32, 1, "launch-overhead"},
                                              {"padded", 4, 4, 1, 1, "launch-overhead"}};

TEST(Cli, CompareKernelsJsonRows) {
  const Cli r = run_cli({"--kernel", "naive,coalesced,padded", "--matrix", "64x64", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(r.out);
  EXPECT_EQ(keys_of(j), (std::vector<std::string>{"config", "device", "copy", "kernels"}));
  EXPECT_EQ(j["config"]["matrix"]["width"], 64);
  EXPECT_EQ(j["config"]["dtype"], "f32");
  EXPECT_EQ(j["device"]["profile"], "h100");
  const double copy_us = j["copy"]["time_us"].get<double>();
  ASSERT_EQ(j["kernels"].size(), kCompared64.size());
  for (size_t i = 0; i < kCompared64.size(); ++i) {
    const ComparedRow& want = kCompared64[i];
    const auto& k = j["kernels"][i];
    EXPECT_EQ(keys_of(k), (std::vector<std::string>{
                              "kernel", "refused", "tile", "pad",
                              "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio",
                              "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio",
                              "shared_ld_wavefronts_per_instruction", "shared_st_wavefronts_per_instruction",
                              "time_us", "effective_bandwidth_gbs", "fraction_of_attainable", "fraction_of_copy",
                              "bottleneck", "bottleneck_share", "instructions", "instructions_basis", "advice",
                              "metrics"}));
    EXPECT_EQ(k["kernel"], want.kernel);
    EXPECT_TRUE(k["refused"].is_null());
    EXPECT_EQ(k["l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio"].get<double>(), want.ld);
    EXPECT_EQ(k["l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio"].get<double>(), want.st);
    for (const auto& [key, value] : {std::pair{"shared_ld_wavefronts_per_instruction", want.shared_ld},
                                     std::pair{"shared_st_wavefronts_per_instruction", want.shared_st}}) {
      if (value < 0) EXPECT_TRUE(k[key].is_null()) << want.kernel << " " << key;
      else EXPECT_EQ(k[key].get<double>(), value) << want.kernel << " " << key;
    }
    EXPECT_DOUBLE_EQ(k["fraction_of_copy"].get<double>(), copy_us / k["time_us"].get<double>());
    // 2 x 64 x 64 x 4 bytes over the time.
    EXPECT_DOUBLE_EQ(k["effective_bandwidth_gbs"].get<double>(),
                     2.0 * 64 * 64 * 4 / (k["time_us"].get<double>() * 1e3));
    EXPECT_EQ(k["advice"]["rule"], want.rule);  // 64x64 moves 32 KiB: the launch costs more than the work
    // The same figures as the kernel's own report.
    const Cli one = run_cli({"--kernel", want.kernel, "--matrix", "64x64", "--format", "json"});
    const auto single = nlohmann::ordered_json::parse(one.out);
    EXPECT_EQ(k["time_us"], single["prediction"]["time_us"]) << want.kernel;
    EXPECT_EQ(k["bottleneck_share"], single["prediction"]["bottleneck_share"]) << want.kernel;
    EXPECT_EQ(k["fraction_of_copy"], single["prediction"]["fraction_of_copy"]) << want.kernel;
    EXPECT_EQ(k["metrics"], single["metrics"]) << want.kernel;
    EXPECT_EQ(k["advice"], single["advice"]) << want.kernel;
  }
}

TEST(Cli, CompareKernelsTable) {
  const Cli r = run_cli({"--kernel", "naive,coalesced,padded", "--matrix", "64x64"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const Cli j = run_cli({"--kernel", "naive,coalesced,padded", "--matrix", "64x64", "--format", "json"});
  const auto rows = nlohmann::ordered_json::parse(j.out)["kernels"];
  const std::vector<std::string> ls = lines(r.out);
  EXPECT_EQ(ls[0], "memsim: 3 kernels  matrix 64x64 f32  block 32x8");
  // Each kernel's row: ld and st sectors per request, shared ld and st wavefronts per instruction, time, GB/s,
  // fractions of the attainable bandwidth and of the copy kernel, bottleneck; then its advice line.
  const std::map<std::string, std::vector<std::string>> cells = {{"naive", {"4.00", "32.0", "-", "-"}},
                                                                 {"coalesced", {"4.00", "4.00", "32.0", "1.00"}},
                                                                 {"padded", {"4.00", "4.00", "1.00", "1.00"}}};
  size_t advice_lines = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string name = rows[i]["kernel"];
    bool row = false, advice = false, in_table = true;
    for (const std::string& l : ls) {
      if (l == "Advice") in_table = false;
      std::istringstream is(l);
      std::vector<std::string> t;
      for (std::string w; is >> w;) t.push_back(w);
      if (in_table && t.size() > 8 && t[0] == name) {
        row = true;
        EXPECT_EQ(std::vector<std::string>(t.begin() + 1, t.begin() + 5), cells.at(name)) << l;
        EXPECT_EQ(t[7].back(), '%') << l;  // of the attainable bandwidth
        EXPECT_EQ(t[8].back(), '%') << l;  // of the suite's copy kernel
      }
      const std::string column = name + std::string(10 - name.size(), ' ');  // "coalesced" and a space
      if (!in_table && l == "  " + column + rows[i]["advice"]["text"].get<std::string>()) advice = true;
    }
    EXPECT_TRUE(row) << name << "\n" << r.out;
    EXPECT_TRUE(advice) << name << "\n" << r.out;
    advice_lines += advice;
  }
  EXPECT_EQ(advice_lines, 3u);
  EXPECT_NE(r.out.find("l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_{ld,st}.ratio"),
            std::string::npos);
}

// The long CSV layout of the single report: section, index (the row), name, value; null as an empty value.
TEST(Cli, CompareKernelsCsv) {
  const Cli r = run_cli({"--kernel", "naive,coalesced,padded", "--matrix", "64x64", "--format", "csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::vector<std::string> ls = lines(r.out);
  ASSERT_GT(ls.size(), 1u);
  EXPECT_EQ(ls[0], "section,index,name,value");
  std::map<std::string, std::string> v;
  for (size_t i = 1; i < ls.size(); ++i) {
    if (ls[i].find('"') != std::string::npos) continue;  // quoted texts: the provenance, the advice
    const std::vector<std::string> f = split(ls[i], ',');
    ASSERT_EQ(f.size(), 4u) << ls[i];
    v[f[0] + "/" + f[1] + "/" + f[2]] = f[3];
  }
  EXPECT_EQ(v["config//matrix.width"], "64");
  EXPECT_EQ(v["device//profile"], "h100");
  EXPECT_FALSE(v["copy//time_us"].empty());
  for (size_t i = 0; i < kCompared64.size(); ++i) {
    const std::string at = "kernels/" + std::to_string(i) + "/";
    EXPECT_EQ(v[at + "kernel"], kCompared64[i].kernel);
    EXPECT_EQ(v[at + "refused"], "");
    EXPECT_EQ(std::stod(v[at + "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio"]),
              kCompared64[i].st);
    EXPECT_EQ(v[at + "advice.rule"], kCompared64[i].rule);
    EXPECT_FALSE(v[at + "metrics.l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"].empty());
  }
  EXPECT_EQ(v["kernels/0/shared_ld_wavefronts_per_instruction"], "");  // naive has no shared access
  EXPECT_EQ(v["kernels/1/shared_ld_wavefronts_per_instruction"], "32.0");
}

// all: the suite in --list-kernels order; a kernel the configuration does not suit is a row saying why.
TEST(Cli, CompareAllKeepsRefusedKernelsAsRows) {
  const Cli r = run_cli({"--kernel", "all", "--matrix", "102x64", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto rows = nlohmann::ordered_json::parse(r.out)["kernels"];
  const Cli list = run_cli({"--list-kernels", "--format", "json"});
  const auto suite = nlohmann::ordered_json::parse(list.out);
  ASSERT_EQ(rows.size(), suite.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i]["kernel"], suite[i]["name"]);
    const std::string name = rows[i]["kernel"];
    // 102 is no multiple of 32 (coarse, fine: whole tiles only) nor of 4 (the vector kernels' rows).
    const bool refused = name == "coarse" || name == "fine" || name == "vec4" || name == "vec4_shared" ||
                         name == "reg4x4" || name == "best";
    EXPECT_EQ(!rows[i]["refused"].is_null(), refused) << name << ": " << rows[i].dump();
    if (refused) {
      EXPECT_EQ(keys_of(rows[i]), (std::vector<std::string>{"kernel", "refused"})) << name;
    }
  }
  const Cli table = run_cli({"--kernel", "all", "--matrix", "102x64"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("\ncoarse      refused: kernel coarse is defined only on matrices made of whole tiles"),
            std::string::npos)
      << table.out;
}

TEST(Cli, CompareNamesTheUnknownKernel) {
  const Cli r = run_cli({"--kernel", "naive,bogus,padded"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "memsim: unknown kernel 'bogus' in --kernel 'naive,bogus,padded' (see --list-kernels; 'all' for "
                   "every one)\n");
}

TEST(Cli, TableShowsMetricsWithGroupedCounts) {
  const Cli r = run_cli({"--kernel", "coalesced", "--matrix", "64x64"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  for (const std::string& m : kMetricNames) EXPECT_NE(r.out.find(m), std::string::npos) << m;
  EXPECT_NE(r.out.find("4,096"), std::string::npos);
  EXPECT_NE(r.out.find("3,968"), std::string::npos);
  EXPECT_NE(r.out.find("none"), std::string::npos);  // no findings
}

// naive f32 2048x2048 with 32x8 blocks on h100: a block writes 32 output lines in 4-byte pieces from all 8 of its
// warps; 4096 blocks, 8 resident on each of 132 SMs: 32 x 1056 = 33,792 lines partly written at once, and
// e = 0.1167 ln(33,792 / 11,457) = 12.6% of the partial stores' bytes are read back (the profile's constants).
// padded writes whole sectors: no such line.
TEST(Cli, TableShowsTheReadBack) {
  const Cli naive = run_cli({"--kernel", "naive", "--threads", "1"});
  ASSERT_EQ(naive.code, 0) << naive.err;
  // naive f32 32x8 (tile 32x32): each of a block's 32 output rows gets one line, 32 y written 8 a round over
  // its 4 rounds: 32 lines held open at once a block, 8 blocks on each of 132 SMs: 33,792; h100's held-open
  // read-back: 1 - exp(-(33792 / 86114)^1.26) = 1 - exp(-0.3077) = 26.5%.
  EXPECT_NE(naive.out.find("read-back: 33,792 lines held open over rounds at once; 26.5% of the partial stores' "
                           "bytes"),
            std::string::npos)
      << naive.out;
  // f16: a line holds 64 y, the block's tile 32 of them (2 of its 4 sectors), which it completes over its 4
  // rounds, the rest left to the block below: its part of the line is held open, 32 x 2/4 = 16 lines a block,
  // 16,896 at once; 1 - exp(-(16896 / 86114)^1.26) = 1 - exp(-0.1285) = 12.1%.
  const Cli half = run_cli({"--kernel", "naive", "--dtype", "f16", "--threads", "1"});
  ASSERT_EQ(half.code, 0) << half.err;
  EXPECT_NE(half.out.find("read-back: 16,896 lines held open over rounds at once; 12.1% of the partial stores' "),
            std::string::npos)
      << half.out;
  const Cli padded = run_cli({"--kernel", "padded", "--matrix", "1024x1024", "--threads", "1"});
  ASSERT_EQ(padded.code, 0) << padded.err;
  EXPECT_EQ(padded.out.find("read-back:"), std::string::npos);
}

TEST(Cli, DefaultsRunPaddedAndThreadCountDoesNotChangeOutput) {
  // The default is padded 2048x2048 f32 32x8; a smaller matrix keeps it quick. 32 x 32 tiles of 32x32 = 1024
  // blocks, enough for the replay to split over 2 and 3 workers.
  const std::vector<std::string> base = {"--matrix", "1024x1024", "--format", "json"};
  std::vector<std::string> a = base, b = base, c = base;
  a.insert(a.end(), {"--threads", "1"});
  b.insert(b.end(), {"--threads", "2"});
  c.insert(c.end(), {"--threads", "3"});
  const Cli ra = run_cli(a), rb = run_cli(b), rc = run_cli(c);
  ASSERT_EQ(ra.code, 0) << ra.err;
  EXPECT_EQ(ra.out, rb.out);
  EXPECT_EQ(ra.out, rc.out);
  const auto j = nlohmann::ordered_json::parse(ra.out);
  EXPECT_EQ(j["kernel"], "padded");
  EXPECT_EQ(j["config"]["pad"], 1);
  // 1024 x 1024 / 32 = 32,768 instructions per site, all ideal: no conflicts.
  EXPECT_EQ(j["metrics"]["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"], 32768);
  EXPECT_EQ(j["metrics"]["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"], 0);
}

// --instructions replaces the estimate in the issue term: on the h100 profile (132 SMs, 4 instructions per
// cycle at 1980 MHz) 1024 blocks put 8 of each 1024 on the busiest SM, so 1e8 instructions issue in
// 1e8 x 8 / 1024 / (4 x 1.98e9) s = 98.64 us.
TEST(Cli, InstructionsOptionSetsTheIssueTerm) {
  const Cli r = run_cli({"--matrix", "1024x1024", "--format", "json", "--instructions", "1e8"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::ordered_json::parse(r.out);
  ASSERT_EQ(j["config"]["blocks"], 1024);
  EXPECT_NEAR(j["prediction"]["terms_us"]["instruction issue"].get<double>(), 1e8 * 8 / 1024 / (4 * 1.98e9) * 1e6,
              1e-6);
}

// --dram-read-bytes stands for the modelled DRAM reads: naive f32 at 1024x1024 loads 4 MiB (4,194,304 bytes);
// given 5,242,880 bytes read, the 1,048,576 beyond the loads are the read-back, a quarter of the 4 MiB of
// partial stores (every store of naive's column writes is partial), and the DRAM term charges the bytes given.
TEST(Cli, DramReadBytesStandForTheModelledReads) {
  const Cli modelled = run_cli({"--kernel", "naive", "--matrix", "1024x1024", "--format", "json"});
  ASSERT_EQ(modelled.code, 0) << modelled.err;
  const auto m = nlohmann::ordered_json::parse(modelled.out)["prediction"];
  EXPECT_EQ(m["dram_bytes"]["read_basis"], "modelled: the loads' bytes and the read-back");
  EXPECT_EQ(m["dram_bytes"]["written"].get<double>(), 4194304.0);
  EXPECT_NEAR(m["dram_bytes"]["read"].get<double>() - m["dram_bytes"]["read_back"].get<double>(), 4194304.0, 1e-6);
  const Cli given =
      run_cli({"--kernel", "naive", "--matrix", "1024x1024", "--format", "json", "--dram-read-bytes", "5242880"});
  ASSERT_EQ(given.code, 0) << given.err;
  const auto g = nlohmann::ordered_json::parse(given.out)["prediction"];
  EXPECT_EQ(g["dram_bytes"]["read_basis"], "given (--dram-read-bytes)");
  EXPECT_EQ(g["dram_bytes"]["read"].get<double>(), 5242880.0);
  EXPECT_EQ(g["dram_bytes"]["read_back"].get<double>(), 1048576.0);
  EXPECT_NEAR(g["read_back_fraction"].get<double>(), 0.25, 1e-12);
  const Cli table = run_cli({"--kernel", "naive", "--matrix", "1024x1024", "--dram-read-bytes", "5242880"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("  DRAM read: 5,242,880 bytes given (--dram-read-bytes), 1,048,576 beyond the loads' "
                           "bytes, charged as the read-back of 25.0% of the partial stores' bytes: "),
            std::string::npos)
      << table.out;
  EXPECT_EQ(table.out.find("  read-back: "), std::string::npos) << table.out;
}

// --l2-write-sectors: naive f32 at 1024x1024 writes 4 MiB in 262,144 pieces of 16 bytes from its 8x32 block's
// warps (four rows of 8 lanes a warp: 16 bytes of a row's sector each, 131,072 whole sectors between them); given
// 196,608 L2 sector writes, (262,144 - 196,608) / (262,144 - 131,072) = 0.5 of the pieces reached the L2 merged.
// Given all 262,144, none did, and the time is the modelled one (memsim counts every piece as its own write).
TEST(Cli, L2WriteSectorsGivenChargeTheMergedPiecesAsWhole) {
  const std::vector<std::string> base{"--kernel", "naive", "--matrix", "1024x1024", "--block", "8x32", "--tile",
                                      "32x32", "--format", "json", "--no-compile"};
  const auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> args = base;
    args.insert(args.end(), more.begin(), more.end());
    const Cli r = run_cli(args);
    EXPECT_EQ(r.code, 0) << r.err;
    return nlohmann::ordered_json::parse(r.out);
  };
  const auto modelled = with({});
  EXPECT_EQ(modelled["sites"][1]["sectors"].get<double>(), 262144.0);
  EXPECT_FALSE(modelled["prediction"].contains("given_merged_piece_share"));
  const auto none = with({"--l2-write-sectors", "262144"});
  EXPECT_DOUBLE_EQ(none["prediction"]["given_merged_piece_share"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(none["prediction"]["time_us"].get<double>(), modelled["prediction"]["time_us"].get<double>());
  const auto half = with({"--l2-write-sectors", "196608"});
  EXPECT_DOUBLE_EQ(half["prediction"]["given_merged_piece_share"].get<double>(), 0.5);
  EXPECT_LT(half["prediction"]["time_us"].get<double>(), modelled["prediction"]["time_us"].get<double>());
  std::vector<std::string> table{base.begin(), base.end() - 3};
  table.insert(table.end(), {"--no-compile", "--l2-write-sectors", "196608"});
  const Cli t = run_cli(table);
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_NE(t.out.find("  L2 write sectors given (--l2-write-sectors): 50.0% of the partial stores' pieces reached the "
                       "L2 merged with another piece of their sector, charged as whole sectors"),
            std::string::npos)
      << t.out;
}

// `memsim --kernel padded --device gtx280` shows the store hotspots and `--kernel diagonal` shows them
// gone. GT200 maps 256-byte chunks to 8 partitions in turn and a 2048-float output row is 8192 bytes, a
// multiple of 8 x 256: every row of a transposed tile starts on the same partition, so each wave of padded
// blocks writes (nearly) all its stores to one partition (a bar like "90000000"), while its loads and all of
// diagonal's traffic spread evenly ("11111111").
TEST(Cli, Gt200TableShowsStoreHotspotsAndDiagonalRemovesThem) {
  auto store_bars = [](const std::string& table) {
    std::vector<std::string> bars;
    std::istringstream in(table);
    std::string line;
    bool in_windows = false;
    while (std::getline(in, line)) {
      if (line.find("blocks          loads     stores") != std::string::npos) {
        in_windows = true;
        continue;
      }
      if (!in_windows) continue;
      std::istringstream fields(line);
      std::string blocks, loads, stores;
      if (!(fields >> blocks >> loads >> stores) || stores.size() != 8) break;
      bars.push_back(stores);
    }
    return bars;
  };
  const Cli padded = run_cli({"--kernel", "padded", "--device", "gtx280"});
  ASSERT_EQ(padded.code, 0) << padded.err;
  EXPECT_NE(padded.out.find("DRAM partitions: 8 x 256 B, linear"), std::string::npos);
  const std::vector<std::string> hot = store_bars(padded.out);
  ASSERT_FALSE(hot.empty()) << padded.out;
  EXPECT_EQ(hot.front(), "90000000");  // the first wave's stores: all on partition 0
  const Cli diagonal = run_cli({"--kernel", "diagonal", "--device", "gtx280"});
  ASSERT_EQ(diagonal.code, 0) << diagonal.err;
  const std::vector<std::string> even = store_bars(diagonal.out);
  ASSERT_FALSE(even.empty()) << diagonal.out;
  for (const std::string& bar : even) EXPECT_EQ(bar, "11111111");
}

// --exact replays every block; the default replays one of each class: the same JSON but for config.replay,
// which says which ran. With --partitions every block is replayed, and the JSON says why.
TEST(Cli, ExactAndClassReplaysPrintTheSameReport) {
  const std::vector<std::string> base = {"--kernel", "vec4_shared", "--matrix", "1000x772", "--dtype", "f16",
                                         "--block", "16x16", "--format", "json"};
  std::vector<std::string> exact = base;
  exact.push_back("--exact");
  const Cli a = run_cli(base), b = run_cli(exact);
  ASSERT_EQ(a.code, 0) << a.err;
  ASSERT_EQ(b.code, 0) << b.err;
  nlohmann::ordered_json ja = nlohmann::ordered_json::parse(a.out), jb = nlohmann::ordered_json::parse(b.out);
  EXPECT_EQ(ja["config"]["replay"]["path"], "block_classes");
  EXPECT_EQ(jb["config"]["replay"]["path"], "full");
  EXPECT_EQ(jb["config"]["replay"]["why_full"], "the exact replay was asked for");
  ja["config"].erase("replay");
  jb["config"].erase("replay");
  EXPECT_EQ(ja, jb);
  std::vector<std::string> partitions = base;
  partitions.push_back("--partitions");
  const Cli c = run_cli(partitions);
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(nlohmann::ordered_json::parse(c.out)["config"]["replay"]["why_full"],
            "the partition counter needs every block's own addresses");
}

// Sweeps (docs/cli.md, "Sweeps"): a list in --block (or all), --tile, --dtype or --matrix. One value everywhere is
// the single report, and a kernel list with one of each the comparison, as before.
TEST(Cli, OneValueOnEachAxisIsNoSweep) {
  const Cli one = run_cli({"--kernel", "padded", "--block", "32x8", "--matrix", "64x64"});
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_EQ(one.out.rfind("memsim: padded  matrix 64x64 f32  block 32x8  tile 32x32", 0), 0u) << one.out;
  const Cli compare = run_cli({"--kernel", "naive,padded", "--block", "32x8", "--matrix", "64x64", "--dtype", "f32"});
  ASSERT_EQ(compare.code, 0) << compare.err;
  EXPECT_EQ(compare.out.rfind("memsim: 2 kernels  matrix 64x64 f32  block 32x8\n", 0), 0u) << compare.out;
}

// Every malformed list, every sweep too large, and what a sweep cannot print: exit 2, one line naming it.
TEST(Cli, SweepMistakesExitTwoWithOneLine) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"--block", "32x8,,16x16"}, "empty element in --block '32x8,,16x16' (values separated by commas)"},
      {{"--block", "32x8,"}, "empty element in --block '32x8,' (values separated by commas)"},
      {{"--block", "32x8,32x8"}, "32x8 named twice in --block '32x8,32x8'"},
      {{"--block", "32x8,32y8"},
       "invalid --block '32y8': no 'x' between the two sides (expected WxH with positive integers, e.g. 32x8) in "
       "--block '32x8,32y8'"},
      {{"--block", "all,32x8"}, "--block all stands alone (it names every usual shape); got 'all,32x8'"},
      {{"--dtype", "f32,f8"}, "invalid --dtype 'f8': expected f16, f32 or f64 in --dtype 'f32,f8'"},
      {{"--dtype", "f16,f16"}, "f16 named twice in --dtype 'f16,f16'"},
      {{"--matrix", "64x64,-1x4"},
       "invalid --matrix '-1x4': sizes must be positive (expected WxH with positive integers, e.g. 32x8) in --matrix "
       "'64x64,-1x4'"},
      {{"--tile", "32x32,abc"},
       "invalid --tile 'abc': no 'x' between the two sides (expected WxH with positive integers, e.g. 32x8) in --tile "
       "'32x32,abc'"},
      {{"--kernel", "naive,bogus", "--block", "all"},
       "unknown kernel 'bogus' in --kernel 'naive,bogus' (see --list-kernels; 'all' for every one)"},
      {{"--kernel", "all", "--block", "all", "--dtype", "f16,f32,f64", "--matrix", "64x64,128x128,256x256"},
       "a sweep of 2016 configurations (14 kernels x 3 dtypes x 3 matrices x 16 blocks x 1 tiles) is more than 2000; "
       "sweep fewer values at once"},
      {{"--block", "all", "--format", "ncu-csv"}, "--format ncu-csv holds one launch; sweep with table, json or csv"},
      {{"--block", "all", "--plot", "banks", "--plot-out", "banks.png"},
       "--plot draws one launch; a list in --block, --tile, --dtype or --matrix makes a sweep of 16"},
      {{"--block", "all", "--regs", "999"}, "--regs must be between 1 and 255 (h100's registers a thread)"},
  };
  for (const auto& [args, want] : bad) {
    const Cli r = run_cli(args);
    EXPECT_EQ(r.code, 2) << join(args) << "\nstderr: " << r.err;
    EXPECT_EQ(r.out, "") << join(args);
    EXPECT_EQ(r.err, "memsim: " + want + "\n") << join(args);
  }
}

const std::vector<std::string> kSweepArgs = {"--kernel", "naive,coalesced", "--block", "32x8,16x16,24x8",
                                             "--tile",   "32x32,64x64",     "--matrix", "256x256"};

std::string size_text(const nlohmann::ordered_json& s, const char* x, const char* y) {
  return std::to_string(s[x].get<int64_t>()) + "x" + std::to_string(s[y].get<int64_t>());
}

// One configuration of kSweepArgs in a single run: its JSON report.
nlohmann::ordered_json single_report(const std::string& kernel, const std::string& block, const std::string& tile) {
  const Cli r = run_cli({"--kernel", kernel, "--block", block, "--tile", tile, "--matrix", "256x256", "--format",
                         "json"});
  EXPECT_EQ(r.code, 0) << kernel << " " << block << " " << tile << ": " << r.err;
  return r.code == 0 ? nlohmann::ordered_json::parse(r.out) : nlohmann::ordered_json();
}

nlohmann::ordered_json sweep_json_of(std::vector<std::string> args) {
  args.insert(args.end(), {"--format", "json"});
  const Cli r = run_cli(args);
  EXPECT_EQ(r.code, 0) << r.err;
  return r.code == 0 ? nlohmann::ordered_json::parse(r.out) : nlohmann::ordered_json();
}

TEST(Cli, SweepJsonShape) {
  const auto j = sweep_json_of(kSweepArgs);
  EXPECT_EQ(keys_of(j), (std::vector<std::string>{"sweep", "rows", "refused", "best"}));
  const auto& s = j["sweep"];
  EXPECT_EQ(keys_of(s), (std::vector<std::string>{"kernels", "dtypes", "matrices", "blocks", "tiles", "pad", "device",
                                                  "configurations", "analysed", "refused", "ranking"}));
  EXPECT_EQ(s["kernels"], nlohmann::ordered_json({"naive", "coalesced"}));
  EXPECT_EQ(s["dtypes"], nlohmann::ordered_json({"f32"}));
  EXPECT_EQ(s["blocks"].size(), 3u);
  EXPECT_EQ(size_text(s["blocks"][2], "x", "y"), "24x8");
  EXPECT_EQ(size_text(s["tiles"][1], "x", "y"), "64x64");
  EXPECT_TRUE(s["pad"].is_null());
  EXPECT_EQ(s["device"]["profile"], "h100");
  EXPECT_EQ(s["configurations"], 12);
  // 24x8 blocks divide neither a 32- nor a 64-wide tile: 4 of the 12 are refused.
  EXPECT_EQ(s["analysed"], 8);
  EXPECT_EQ(s["refused"], 4);
  ASSERT_EQ(j["rows"].size(), 8u);
  ASSERT_EQ(j["refused"].size(), 4u);
  double last_bandwidth = 1e300;
  for (size_t i = 0; i < j["rows"].size(); ++i) {
    const auto& row = j["rows"][i];
    EXPECT_EQ(keys_of(row), (std::vector<std::string>{
                                "rank", "group_rank", "kernel", "dtype", "matrix", "block", "tile", "pad",
                                "shared_bytes_per_block", "time_us", "effective_bandwidth_gbs",
                                "fraction_of_attainable", "fraction_of_copy", "bottleneck", "bottleneck_share",
                                "occupancy", "instructions", "instructions_basis", "caveats"}));
    EXPECT_EQ(row["rank"], i + 1);
    EXPECT_LE(row["effective_bandwidth_gbs"].get<double>(), last_bandwidth);
    last_bandwidth = row["effective_bandwidth_gbs"].get<double>();
    EXPECT_EQ(keys_of(row["occupancy"]),
              (std::vector<std::string>{"blocks_per_sm", "warps_per_sm", "limiter", "registers_per_thread"}));
    // The row is the single run's prediction.
    const auto one = single_report(row["kernel"], size_text(row["block"], "x", "y"), size_text(row["tile"], "x", "y"));
    const auto& p = one["prediction"];
    EXPECT_EQ(row["time_us"], p["time_us"]) << row.dump();
    EXPECT_EQ(row["effective_bandwidth_gbs"], p["effective_bandwidth_gbs"]) << row.dump();
    EXPECT_EQ(row["fraction_of_copy"], p["fraction_of_copy"]) << row.dump();
    EXPECT_EQ(row["bottleneck"], p["bottleneck"]) << row.dump();
    EXPECT_EQ(row["bottleneck_share"], p["bottleneck_share"]) << row.dump();
    EXPECT_EQ(row["occupancy"]["blocks_per_sm"], p["occupancy"]["blocks_per_sm"]) << row.dump();
    EXPECT_EQ(row["occupancy"]["warps_per_sm"], p["occupancy"]["warps_per_sm"]) << row.dump();
    EXPECT_EQ(row["occupancy"]["registers_per_thread"], p["occupancy"]["registers_per_thread"]) << row.dump();
    EXPECT_EQ(row["instructions_basis"], p["instructions_basis"]) << row.dump();
    EXPECT_EQ(row["shared_bytes_per_block"], one["config"]["shared_bytes_per_block"]) << row.dump();
    EXPECT_EQ(row["pad"], one["config"]["pad"]) << row.dump();
  }
  for (const auto& x : j["refused"]) {
    EXPECT_EQ(keys_of(x), (std::vector<std::string>{"kernel", "dtype", "matrix", "block", "tile", "pad", "reason"}));
    EXPECT_EQ(size_text(x["block"], "x", "y"), "24x8");
    // The reason a single run gives.
    const Cli one = run_cli({"--kernel", x["kernel"].get<std::string>(), "--block", "24x8", "--tile",
                             size_text(x["tile"], "x", "y"), "--matrix", "256x256"});
    EXPECT_EQ(one.code, 2);
    EXPECT_EQ(one.err, "memsim: " + x["reason"].get<std::string>() + "\n");
  }
  // The best over all is the first row; the best of each (kernel, dtype, matrix) group, in the axes' order.
  EXPECT_EQ(keys_of(j["best"]), (std::vector<std::string>{"overall", "per_group", "near_fastest"}));
  EXPECT_EQ(j["best"]["overall"], j["rows"][0]);
  ASSERT_EQ(j["best"]["per_group"].size(), 2u);
  for (size_t g = 0; g < 2; ++g) {
    const auto& best = j["best"]["per_group"][g];
    EXPECT_EQ(best["kernel"], g == 0 ? "naive" : "coalesced");
    EXPECT_EQ(best["group_rank"], 1);
    for (const auto& row : j["rows"])
      if (row["kernel"] == best["kernel"]) {
        EXPECT_LE(best["time_us"].get<double>(), row["time_us"].get<double>());
      }
  }
}

TEST(Cli, SweepCsvHasARowAConfiguration) {
  std::vector<std::string> args = kSweepArgs;
  args.insert(args.end(), {"--format", "csv"});
  const Cli r = run_cli(args);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = sweep_json_of(kSweepArgs);
  const std::vector<std::string> ls = lines(r.out);
  ASSERT_EQ(ls.size(), 1u + 12u) << r.out;
  EXPECT_EQ(ls[0], "rank,group_rank,kernel,dtype,matrix,block,tile,pad,shared_bytes_per_block,time_us,"
                   "effective_bandwidth_gbs,fraction_of_attainable,fraction_of_copy,bottleneck,bottleneck_share,blocks_per_sm,warps_per_sm,"
                   "occupancy_limiter,registers_per_thread,instructions,instructions_basis,caveats,refused");
  for (size_t i = 1; i <= 8; ++i) {
    const std::vector<std::string> f = split(ls[i], ',');
    ASSERT_EQ(f.size(), 23u) << ls[i];
    const auto& row = j["rows"][i - 1];
    EXPECT_EQ(f[0], std::to_string(i));
    EXPECT_EQ(f[2], row["kernel"]);
    EXPECT_EQ(f[4], "256x256");
    EXPECT_EQ(f[5], size_text(row["block"], "x", "y"));
    EXPECT_EQ(f[9], row["time_us"].dump());
    EXPECT_EQ(f[11], row["fraction_of_attainable"].dump());
    EXPECT_EQ(f[18], row["occupancy"]["registers_per_thread"].dump());
    EXPECT_EQ(f[20], row["instructions_basis"]);
    EXPECT_EQ(f[21], std::to_string(row["caveats"].size()));
    EXPECT_EQ(f[22], "");
  }
  // The refused ones last: no rank, the reason in the last column.
  for (size_t i = 9; i <= 12; ++i) {
    EXPECT_EQ(ls[i].rfind(",,", 0), 0u) << ls[i];
    EXPECT_NE(ls[i].find(",24x8,"), std::string::npos) << ls[i];
    EXPECT_NE(ls[i].find(j["refused"][i - 9]["reason"].get<std::string>()), std::string::npos) << ls[i];
  }
}

TEST(Cli, SweepTableRanksAndNamesTheFastest) {
  const Cli r = run_cli(kSweepArgs);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const auto j = sweep_json_of(kSweepArgs);
  const std::vector<std::string> ls = lines(r.out);
  EXPECT_EQ(ls[0], "memsim: sweep of 12 configurations  kernel naive,coalesced  dtype f32  matrix 256x256  block "
                   "32x8,16x16,24x8  tile 32x32,64x64");
  size_t header = 0;
  while (header < ls.size() && ls[header].rfind("rank", 0) != 0) ++header;
  ASSERT_LT(header + 8, ls.size()) << r.out;
  std::istringstream h(ls[header]);
  std::vector<std::string> columns;
  for (std::string w; h >> w;) columns.push_back(w);
  EXPECT_EQ(columns, (std::vector<std::string>{"rank", "in", "group", "kernel", "dtype", "matrix", "block", "tile",
                                               "pad", "time", "us", "GB/s", "of", "attain", "of", "copy", "k",
                                               "blk/SM", "warps/SM", "regs",
                                               "shared", "B", "instr", "bottleneck"}));
  for (size_t i = 0; i < 8; ++i) {
    std::istringstream is(ls[header + 1 + i]);
    std::vector<std::string> t;
    for (std::string w; is >> w;) t.push_back(w);
    ASSERT_GT(t.size(), 14u) << ls[header + 1 + i];
    EXPECT_EQ(t[0], std::to_string(i + 1));
    EXPECT_EQ(t[1], j["rows"][i]["group_rank"].dump());
    EXPECT_EQ(t[2], j["rows"][i]["kernel"]);
    EXPECT_EQ(t[5], size_text(j["rows"][i]["block"], "x", "y"));
  }
  EXPECT_NE(r.out.find("\nRefused (4)\n  naive f32 256x256 block 24x8 tile 32x32: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nFastest in each group (kernel, dtype, matrix)\n  naive f32 256x256 block "),
            std::string::npos)
      << r.out;
  const auto& best = j["best"]["overall"];
  const std::string fastest = "fastest: " + best["kernel"].get<std::string>() + " f32 256x256 block " +
                              size_text(best["block"], "x", "y") + " tile " + size_text(best["tile"], "x", "y");
  EXPECT_NE(std::find_if(ls.begin(), ls.end(), [&](const std::string& l) { return l.rfind(fastest, 0) == 0; }), ls.end())
      << r.out;
}

// The rows predicted within the profile's held-out MAPE of the fastest (read from the profile file), of its dtype
// and matrix, worked out here from the rows' own times; and the memsim-validate commands that time exactly them:
// per kernel its near blocks, kernels with the same blocks in one command.
void expect_near_fastest(const std::vector<std::string>& args, const std::string& matrix) {
  const auto j = sweep_json_of(args);
  std::ifstream pf(std::string(MEMSIM_SOURCE_DIR) + "/model/devices/h100.json");
  const double band = nlohmann::json::parse(pf)["calibration"]["heldout"]["mape_pct"].get<double>();
  const auto& near = j["best"]["near_fastest"];
  ASSERT_TRUE(near.is_object()) << j["best"].dump();
  EXPECT_DOUBLE_EQ(near["band_pct"].get<double>(), band);
  const double limit = j["rows"][0]["time_us"].get<double>() * (1 + band / 100);
  std::vector<std::string> expected, kernels;
  std::map<std::string, std::vector<std::string>> blocks_of;
  for (const auto& row : j["rows"])
    if (row["time_us"].get<double>() <= limit) {
      const std::string k = row["kernel"], b = size_text(row["block"], "x", "y");
      expected.push_back(k + " f32 " + matrix + " block " + b + " tile " + size_text(row["tile"], "x", "y") + " pad " +
                         row["pad"].dump());
      if (!blocks_of.count(k)) kernels.push_back(k);
      blocks_of[k].push_back(b);
    }
  ASSERT_GE(expected.size(), 2u) << "the test wants a sweep with near ties";
  EXPECT_EQ(near["configurations"].get<std::vector<std::string>>(), expected);
  const auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& x : v) s += (s.empty() ? "" : ",") + x;
    return s;
  };
  std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> merged;  // blocks, kernels
  for (const std::string& k : kernels) {
    auto it = std::find_if(merged.begin(), merged.end(), [&](const auto& m) { return m.first == blocks_of[k]; });
    if (it == merged.end()) merged.push_back({blocks_of[k], {k}});
    else it->second.push_back(k);
  }
  std::vector<std::string> commands;
  for (const auto& [blocks, ks] : merged)
    commands.push_back("memsim-validate --kernels " + join(ks) + " --dtypes f32 --matrices " + matrix + " --blocks " +
                       join(blocks));
  EXPECT_EQ(near["memsim_validate"].get<std::vector<std::string>>(), commands);
  const Cli table = run_cli(args);
  ASSERT_EQ(table.code, 0) << table.err;
  for (const std::string& c : commands) EXPECT_NE(table.out.find(c + "\n"), std::string::npos) << table.out;
}

TEST(Cli, SweepNamesTheRowsTooCloseToOrderAndHowToTimeThem) {
  expect_near_fastest({"--kernel", "padded", "--block", "all", "--matrix", "2048x2048"}, "2048x2048");
  // Another profile: its own held-out figure, and memsim-validate told to predict with it.
  const auto h200 = sweep_json_of({"--kernel", "padded", "--block", "all", "--matrix", "2048x2048", "--device", "h200"});
  std::ifstream pf(std::string(MEMSIM_SOURCE_DIR) + "/model/devices/h200.json");
  EXPECT_DOUBLE_EQ(h200["best"]["near_fastest"]["band_pct"].get<double>(),
                   nlohmann::json::parse(pf)["calibration"]["heldout"]["mape_pct"].get<double>());
  for (const auto& c : h200["best"]["near_fastest"]["memsim_validate"])
    EXPECT_EQ(c.get<std::string>().substr(c.get<std::string>().size() - 15), " --profile h200") << c;
  expect_near_fastest({"--kernel", "padded,swizzle,copy_shared", "--block", "32x8,16x16,8x32,32x4", "--matrix",
                       "2048x2048"},
                      "2048x2048");
}

// --block all: the shapes docs/cli.md lists, in its order. One kernel, dtype and matrix: one group, no group
// column and no list of groups.
TEST(Cli, SweepBlockAllIsTheDocumentedList) {
  const auto j = sweep_json_of({"--block", "all", "--matrix", "256x256"});
  std::ifstream doc(std::string(MEMSIM_SOURCE_DIR) + "/docs/cli.md");
  std::string line, listed;
  while (std::getline(doc, line))
    if (line.find("`--block all` is these") != std::string::npos) listed = line;
  ASSERT_FALSE(listed.empty()) << "docs/cli.md has no line saying what `--block all` is";
  std::vector<std::string> documented, swept;
  for (const std::string& word : split(listed.substr(listed.find("these")), '`'))
    if (!word.empty() && std::isdigit(static_cast<unsigned char>(word[0])) && word.find('x') != std::string::npos &&
        word.find(' ') == std::string::npos)
      documented.push_back(word);
  for (const auto& b : j["sweep"]["blocks"]) swept.push_back(size_text(b, "x", "y"));
  EXPECT_EQ(swept, documented);
  EXPECT_EQ(swept.size(), 16u);
  EXPECT_EQ(j["rows"].size() + j["refused"].size(), 16u);
  const Cli table = run_cli({"--block", "all", "--matrix", "256x256"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_EQ(table.out.find("in group"), std::string::npos);
  EXPECT_EQ(table.out.find("Fastest in each group"), std::string::npos);
  EXPECT_NE(table.out.find("\nfastest: padded f32 256x256 block "), std::string::npos) << table.out;
}

}  // namespace
}  // namespace memsim


namespace memsim {
namespace {

TEST(Cli, VersionNamesTheRevision) {
  const Cli r = run_cli({"--version"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out.rfind("memsim 0.1.0 (git ", 0), 0u) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
}

TEST(Cli, ContradictoryRequestsAreRefused) {
  struct Case {
    std::vector<std::string> args;
    const char* says;
  };
  const Case cases[] = {
      {{"--kernel", "all", "--instructions", "1000000"}, "cannot stand for 14 kernels"},
      {{"--block", "32x8,16x16", "--instructions", "5"}, "the 2 launches of a sweep"},
      {{"--instructions", "1.5"}, "whole number of warp instructions, got 1.5"},
      {{"--kernel", "all", "--dram-read-bytes", "1000000"}, "cannot stand for 14 kernels"},
      {{"--block", "32x8,16x16", "--dram-read-bytes", "5"}, "the 2 launches of a sweep"},
      {{"--device", "h100,h200", "--dram-read-bytes", "5"}, "cannot stand for 2 devices"},
      {{"--dram-read-bytes", "1.5"}, "whole number of bytes from 0 to 1e15, got 1.5"},
      {{"--kernel", "all", "--l2-write-sectors", "1000000"}, "cannot stand for 14 kernels"},
      {{"--block", "32x8,16x16", "--l2-write-sectors", "5"}, "the 2 launches of a sweep"},
      {{"--l2-write-sectors", "1.5"}, "whole number of sectors from 0 to 1e15, got 1.5"},
      {{"--format", "json", "--plot", "banks", "--plot-out", "x.json"}, "--format shapes a report"},
      {{"--device", "no_such_profile.json"}, "no device profile file 'no_such_profile.json'"},
  };
  for (const Case& c : cases) {
    const Cli r = run_cli(c.args);
    EXPECT_EQ(r.code, 2) << join(c.args);
    EXPECT_NE(r.err.find(c.says), std::string::npos) << join(c.args) << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST(Cli, AProfileByItsPathReadsAsByItsName) {
  const Cli named = run_cli({"--kernel", "padded", "--format", "json"});
  const Cli by_path = run_cli({"--kernel", "padded", "--format", "json", "--device",
                               std::string(MEMSIM_SOURCE_DIR) + "/model/devices/h100.json"});
  ASSERT_EQ(by_path.code, 0) << by_path.err;
  const auto a = nlohmann::json::parse(named.out), b = nlohmann::json::parse(by_path.out);
  EXPECT_EQ(a["prediction"]["time_us"], b["prediction"]["time_us"]);
  EXPECT_EQ(b["device"]["profile"], "h100");
}

TEST(Cli, PartialWarpsAreNoted) {
  // 33x8 = 264 threads = 8 warps and 8 lanes: the ninth warp runs 8 lanes.
  const Cli r = run_cli({"--block", "33x8"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("note: block 33x8 is 264 threads, not a whole number of warps: each block's last warp runs 8 "
                       "of its 32 lanes"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(run_cli({"--block", "32x8"}).out.find("note: block"), std::string::npos);
}

}  // namespace
}  // namespace memsim

namespace memsim {
namespace {

TEST(Cli, DevicesComparedRowByRowAsSingleRuns) {
  const Cli both = run_cli({"--kernel", "padded", "--device", "h100,h200", "--format", "json"});
  ASSERT_EQ(both.code, 0) << both.err;
  const auto j = nlohmann::json::parse(both.out);
  ASSERT_EQ(j["devices"].size(), 2u);
  for (const auto& row : j["devices"]) {
    const Cli one = run_cli({"--kernel", "padded", "--device", row["profile"].get<std::string>(), "--format", "json"});
    ASSERT_EQ(one.code, 0) << one.err;
    const auto p = nlohmann::json::parse(one.out)["prediction"];
    EXPECT_EQ(row["time_us"], p["time_us"]) << row["profile"];
    EXPECT_EQ(row["bottleneck"], p["bottleneck"]);
    EXPECT_EQ(row["fraction_of_copy"], p["fraction_of_copy"]);
    EXPECT_EQ(row["instructions_basis"], p["instructions_basis"]);
  }
  const Cli table = run_cli({"--kernel", "padded", "--device", "h100,h200"});
  EXPECT_NE(table.out.find("memsim: padded on 2 devices"), std::string::npos) << table.out;
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--device", "h100,h100"}, {"--device", "h100,"}, {"--device", "h100,nosuch"},
        {"--kernel", "padded,naive", "--device", "h100,h200"}, {"--block", "32x8,16x16", "--device", "h100,h200"},
        {"--device", "h100,h200", "--format", "ncu-csv"}, {"--device", "h100,h200", "--instructions", "100"}}) {
    const Cli r = run_cli(bad);
    EXPECT_EQ(r.code, 2) << join(bad);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

}  // namespace
}  // namespace memsim

namespace memsim {
namespace {

TEST(Cli, OptionsThatWouldBeIgnoredAreRefused) {
  // --resident-blocks alone would switch on the H100's assumed partition mapping (15.8 -> 24.8 us, unasked).
  const Cli alone = run_cli({"--resident-blocks", "10"});
  EXPECT_EQ(alone.code, 2);
  EXPECT_NE(alone.err.find("--resident-blocks sizes the partition windows"), std::string::npos) << alone.err;
  EXPECT_EQ(run_cli({"--resident-blocks", "10", "--partitions"}).code, 0);
  EXPECT_EQ(run_cli({"--resident-blocks", "10", "--device", "gtx280"}).code, 0);  // its mapping is public
  const Cli list = run_cli({"--list-kernels", "--matrix", "0x0"});
  EXPECT_EQ(list.code, 2);
  EXPECT_NE(list.err.find("--list-kernels takes no other option than --format; --matrix was given"),
            std::string::npos)
      << list.err;
  EXPECT_EQ(run_cli({"--list-devices", "--format", "csv"}).code, 0);
}

// Issue 42: a profile whose fitted constants were edited by hand no longer says "calibrated"; its line says when
// the fit it no longer matches was made.
TEST(Cli, ProfileEditedAfterCalibrationSaysSo) {
  std::ifstream in(std::string(MEMSIM_SOURCE_DIR) + "/model/devices/h100.json");
  nlohmann::json j = nlohmann::json::parse(in);
  j["cost"]["latency_us"] = 0.6;
  const std::string path =
      (std::filesystem::temp_directory_path() / ("memsim_edited_" + std::to_string(::getpid()) + ".json")).string();
  std::ofstream(path) << j.dump(2);
  const Cli r = run_cli({"--matrix", "256x256", "--device", path});
  std::filesystem::remove(path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("  hand-edited after calibration (fit of " + j["calibration"]["date"].get<std::string>() +
                       " no longer applies)"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("  calibrated: "), std::string::npos) << r.out;
}

// Issue 42: the fraction a report quotes is of what the card reaches: the effective bandwidth (2 x matrix bytes /
// time) over cudaMemcpy's 3006 GB/s on the H100 profile, over the data-sheet 141.7 GB/s on the GTX 280's; the
// suite's copy kernel keeps its own field and words.
TEST(Cli, FractionIsOfTheAttainableBandwidth) {
  for (const auto& [device, gbs, words] :
       std::vector<std::tuple<std::string, double, std::string>>{
           {"h100", 3006.0, "of attainable DRAM bandwidth (3006 GB/s, cudaMemcpy-measured)"},
           {"gtx280", 141.7, "of the data-sheet DRAM peak (141.7 GB/s"}}) {
    const Cli j = run_cli({"--matrix", "256x256", "--device", device, "--format", "json"});
    ASSERT_EQ(j.code, 0) << j.err;
    const nlohmann::json p = nlohmann::json::parse(j.out)["prediction"];
    const double bandwidth = 2.0 * 256 * 256 * 4 / (p["time_us"].get<double>() * 1e-6) / 1e9;
    EXPECT_NEAR(p["fraction_of_attainable"].get<double>(), bandwidth / gbs, 1e-9) << device;
    const Cli t = run_cli({"--matrix", "256x256", "--device", device});
    EXPECT_NE(t.out.find(words), std::string::npos) << t.out;
    EXPECT_NE(t.out.find("% of the suite's copy kernel\n"), std::string::npos) << t.out;
  }
}

}  // namespace
}  // namespace memsim
