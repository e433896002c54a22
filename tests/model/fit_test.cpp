// The calibration fit recovers known constants from synthetic measurements made with closed-form times.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "model/cost.hpp"
#include "lab/calibration/fit.hpp"

namespace memsim {
namespace {

DeviceProfile prior() {
  DeviceProfile p = load_profile("h100");
  p.cost.dram_gbs = 1500;  // far from the truth below
  p.cost.launch_us = 1;
  p.cost.l1_cycles_per_wavefront = 3;
  p.cost.block_us = 0;  // no per-block cost in these syntheses: the fit starts it at 1 and drives it to ~0
  p.cost.block_launch_ns = p.cost.block_drain_rounds = 0;  // nor a launch rate or a drain
  return p;
}

// Pure-DRAM launches (no load instructions, so no latency; no instructions, no L1 traffic):
// time = launch + bytes / bandwidth. Truth: 2500 GB/s, 4 us.
Measurement dram_only(double bytes) {
  Measurement m;
  m.bench = "synthetic";
  m.counts.blocks = 1056;
  m.counts.threads_per_block = 256;
  m.counts.dram_read_bytes = m.counts.dram_write_bytes = bytes / 2;
  m.time_us = 4.0 + bytes / 2500e3;
  return m;
}

// Shared-memory-only launches on 132 SMs at 1980 MHz, 8 blocks per SM, one wave: the SM's pipe takes
// s = wavefronts per SM x 1.25 cycles / 1.98 GHz, and each block holds its slot while the pipe serves its own
// wavefronts, s / 8 (the residency, which overlaps the pipe as the model's p-norm with the prior's p):
// time = launch + (s^p + (s/8)^p)^(1/p).
double shared_pipe_us(double wavefronts) { return wavefronts / 132 * 1.25 / 1980.0; }

Measurement shared_only(double wavefronts) {
  Measurement m;
  m.bench = "synthetic";
  m.counts.blocks = 1056;
  m.counts.threads_per_block = 256;
  m.counts.shared_wavefronts = wavefronts;
  const double p = prior().cost.overlap_p, s = shared_pipe_us(wavefronts);
  m.time_us = 4.0 + std::pow(std::pow(s, p) + std::pow(s / 8, p), 1.0 / p);
  return m;
}

// Both at once, overlapping as the model's p-norm with the prior's p: time = launch + (d^p + s^p + (s/8)^p)^(1/p).
// Without such launches every time has one term besides the launch, any p fits, and the fit is free to run p up
// to a max-norm, under which a per-block cost no longer shows.
Measurement dram_and_shared(double bytes, double wavefronts) {
  Measurement m = dram_only(bytes);
  m.counts.shared_wavefronts = wavefronts;
  const double p = prior().cost.overlap_p, d = bytes / 2500e3, s = shared_pipe_us(wavefronts);
  m.time_us = 4.0 + std::pow(std::pow(d, p) + std::pow(s, p) + std::pow(s / 8, p), 1.0 / p);
  return m;
}

TEST(Fit, RecoversBandwidthLaunchAndWavefrontCost) {
  std::vector<Measurement> data;
  for (double mb : {1.0, 8.0, 64.0, 256.0, 1024.0}) data.push_back(dram_only(mb * 1e6));
  for (double w : {1e6, 1e7, 1e8}) data.push_back(shared_only(w));
  for (double mb : {64.0, 256.0}) data.push_back(dram_and_shared(mb * 1e6, mb * 1e6 / 2500e3 * 1980.0 / 1.25 * 132));
  const FitResult f = fit_constants(prior(), data);
  EXPECT_NEAR(f.constants.dram_gbs, 2500, 2500 * 1e-3);
  EXPECT_NEAR(f.constants.launch_us, 4.0, 4e-3);
  EXPECT_NEAR(f.constants.l1_cycles_per_wavefront, 1.25, 1.25e-3);
  EXPECT_LT(f.rms_log_error, 1e-4);
  ASSERT_EQ(f.predicted_us.size(), data.size());
  // Nothing here moves the latency, the partial-store costs or p: they are held at the prior.
  for (const char* held : {"latency_us", "partial_store_ps[4B]", "partial_store_ps[16B]"})
    EXPECT_NE(std::find(f.held.begin(), f.held.end(), held), f.held.end()) << held;
  EXPECT_EQ(f.constants.latency_us, prior().cost.latency_us);
  EXPECT_NEAR(f.constants.overlap_p, prior().cost.overlap_p, 1e-2);
  EXPECT_LT(f.constants.block_us, 1e-2);
  // Held on request: the launch cost stays at the prior's 1 us where the runs say 4, the others still fit.
  const FitResult h = fit_constants(prior(), data, 200, {"launch_us"});
  EXPECT_EQ(h.constants.launch_us, prior().cost.launch_us);
  EXPECT_NE(std::find(h.held.begin(), h.held.end(), "launch_us"), h.held.end());
  EXPECT_EQ(std::find(h.fitted.begin(), h.fitted.end(), "launch_us"), h.fitted.end());
  EXPECT_NE(std::find(h.fitted.begin(), h.fitted.end(), "dram_gbs"), h.fitted.end());
}

// 16-byte-lane partial stores with more and more lines partly written at once (lines per block x 1056 resident
// blocks), made by the model itself at known constants: 20 ps a request, 5 ps a read-back byte, no per-block
// cost and DRAM too fast to matter, so that the partial-store term is the time. From a prior that charges no
// read-back (0) and a wrong request cost, the fit finds both; a zero prior that nothing moves (the 8-byte
// lanes' read-back: no such stores here) stays 0.
TEST(Fit, RecoversReadBackCostFromAZeroPrior) {
  DeviceProfile truth = load_profile("h100");
  truth.cost.partial_store_ps[2] = 20;
  truth.cost.read_back_ps_per_byte[2] = 5;
  truth.cost.block_us = truth.cost.barrier_us = 0;
  truth.cost.dram_gbs = 1e9;
  std::vector<Measurement> data;
  for (double lines : {4.0, 16.0, 32.0, 64.0, 128.0, 256.0}) {
    Measurement m;
    m.bench = "synthetic";
    m.counts.blocks = 65536;
    m.counts.threads_per_block = 256;
    m.counts.regs_per_thread = 32;
    m.counts.partial_store_requests[2] = 33.5e6;
    m.counts.partial_store_bytes[2] = 536.9e6;
    m.counts.partial_lines_per_block[2] = lines;
    m.time_us = predict(m.counts, truth).time_us;
    data.push_back(m);
  }
  DeviceProfile start = truth;
  start.cost.partial_store_ps[2] = 40;
  start.cost.read_back_ps_per_byte[1] = start.cost.read_back_ps_per_byte[2] = 0;
  const FitResult f = fit_constants(start, data);
  // Within 1%: the per-block cost, started at 1 us from its zero prior, is driven toward 0 alongside.
  EXPECT_NEAR(f.constants.partial_store_ps[2], 20, 20 * 1e-2);
  EXPECT_NEAR(f.constants.read_back_ps_per_byte[2], 5, 5 * 1e-2);
  EXPECT_EQ(f.constants.read_back_ps_per_byte[1], 0);
  EXPECT_NE(std::find(f.held.begin(), f.held.end(), "read_back_ps_per_byte[8B]"), f.held.end());
}

// Launches that only schedule blocks (no memory traffic): time = launch + (block_us + barrier_us x barriers)
// x rounds, a round being 132 SMs x 8 resident blocks of 256 threads. Truth: 4 us launch, 0.08 us a block,
// 0.03 us a barrier.
Measurement blocks_only(int64_t blocks, int barriers = 0) {
  Measurement m;
  m.bench = "synthetic";
  m.counts.blocks = blocks;
  m.counts.threads_per_block = 256;
  m.counts.regs_per_thread = 32;
  m.counts.barriers_per_block = barriers;
  m.time_us = 4.0 + (0.08 + 0.03 * barriers) * std::max(1.0, double(blocks) / 1056.0);
  return m;
}

// These syntheses have no launch rate and no drain. Started from their zero priors at 1, the launch rate
// would be a floor of 1 ns a block over every run, under which the other terms have no slope: held.
const std::vector<std::string> kNoLaunchRateOrDrain{"block_launch_ns", "block_drain_rounds"};

TEST(Fit, RecoversPerBlockCost) {
  std::vector<Measurement> data;
  for (int64_t b : {1056, 10560, 105600, 1056000}) data.push_back(blocks_only(b));
  DeviceProfile start = prior();
  start.cost.block_us = 0.5;
  const FitResult f = fit_constants(start, data, 200, kNoLaunchRateOrDrain);
  EXPECT_NEAR(f.constants.block_us, 0.08, 0.08e-3);
  EXPECT_NEAR(f.constants.launch_us, 4.0, 4e-3);
  EXPECT_LT(f.rms_log_error, 1e-4);
}

// The same block launches with and without one barrier each: barrier_us is told apart from block_us.
TEST(Fit, RecoversBarrierCost) {
  std::vector<Measurement> data;
  for (int64_t b : {1056, 10560, 105600, 1056000}) {
    data.push_back(blocks_only(b));
    data.push_back(blocks_only(b, 1));
  }
  DeviceProfile start = prior();
  start.cost.block_us = 0.5;
  start.cost.barrier_us = 0.1;
  const FitResult f = fit_constants(start, data, 200, kNoLaunchRateOrDrain);
  EXPECT_NEAR(f.constants.block_us, 0.08, 0.08e-3);
  EXPECT_NEAR(f.constants.barrier_us, 0.03, 0.03e-3);
  EXPECT_LT(f.rms_log_error, 1e-4);
}

// One run cannot tell bandwidth from launch cost (and whatever else it moves): every split of its time fits
// it exactly, and the fit would write whichever it stopped at. Refused, naming the constants.
TEST(Fit, RefusesFewerRunsThanConstants) {
  try {
    fit_constants(prior(), {dram_only(64e6)});
    FAIL() << "a fit of one run was accepted";
  } catch (const FitError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("1 usable run"), std::string::npos) << msg;
    EXPECT_NE(msg.find("dram_gbs"), std::string::npos) << msg;
    EXPECT_NE(msg.find("launch_us"), std::string::npos) << msg;
  }
  // Two runs still leave dram_gbs, launch_us and block_us (which the blocks move) underdetermined.
  EXPECT_THROW(fit_constants(prior(), {dram_only(1e6), dram_only(64e6)}), FitError);
}

// The same syntheses as RecoversBandwidthLaunchAndWavefrontCost, from a prior a million times too low in
// bandwidth: the fit finds thousands of GB/s, over a million times the prior, past kMaxFactorFromPrior. No data
// sheet is that far off, so the fit says so (this is what an undetermined constant looks like: one run fitted
// l1_cycles_per_wavefront = 1.9e-11); the constants themselves are the least-squares answer.
TEST(Fit, WarnsOfAConstantFarFromItsPrior) {
  std::vector<Measurement> data;
  for (double mb : {1.0, 8.0, 64.0, 256.0, 1024.0}) data.push_back(dram_only(mb * 1e6));
  for (double w : {1e6, 1e7, 1e8}) data.push_back(shared_only(w));
  for (double mb : {64.0, 256.0}) data.push_back(dram_and_shared(mb * 1e6, mb * 1e6 / 2500e3 * 1980.0 / 1.25 * 132));
  DeviceProfile start = prior();
  start.cost.dram_gbs = 1e-3;
  const FitResult far = fit_constants(start, data);
  // From so far off the fit also stops short elsewhere (with the blocks' own shared-memory time in the model it
  // ends at launch_us 0 and 2,100 GB/s), and says that as well, after the far constant.
  ASSERT_EQ(far.warnings.size(), 2u);
  EXPECT_NE(far.warnings[0].find("dram_gbs"), std::string::npos) << far.warnings[0];
  EXPECT_NE(far.warnings[0].find("above"), std::string::npos) << far.warnings[0];
  EXPECT_NE(far.warnings[1].find("launch_us"), std::string::npos) << far.warnings[1];
  EXPECT_GT(far.constants.dram_gbs, 1e3);
  // The usual prior: no warning.
  EXPECT_TRUE(fit_constants(prior(), data).warnings.empty());
}

// A measured time the fit cannot take the log of: refused, naming the run, not a NaN residual.
TEST(Fit, RefusesANonPositiveOrNonFiniteTime) {
  std::vector<Measurement> data;
  for (double mb : {1.0, 8.0, 64.0, 256.0, 1024.0}) data.push_back(dram_only(mb * 1e6));
  for (double bad : {0.0, -1.0, std::nan(""), HUGE_VAL}) {
    data[2].time_us = bad;
    data[2].where = "run.json: runs[2] (copy)";
    try {
      fit_constants(prior(), data);
      FAIL() << "time " << bad << " accepted";
    } catch (const FitError& e) {
      EXPECT_NE(std::string(e.what()).find("runs[2]"), std::string::npos) << e.what();
    }
  }
}

TEST(Fit, NoDataKeepsTheProfile) {
  const FitResult f = fit_constants(prior(), {});
  EXPECT_EQ(f.constants.dram_gbs, 1500);
}

}  // namespace
}  // namespace memsim
