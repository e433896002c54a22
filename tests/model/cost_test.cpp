// The cost model on synthetic counts and a synthetic device, every expected time worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <utility>

#include "model/cost.hpp"

namespace memsim {
namespace {

// 100 SMs at 1 GHz, 2048 threads and 32 blocks per SM, 64K registers, plenty of shared memory.
DeviceProfile toy() {
  DeviceProfile p;
  p.name = "toy";
  p.sms = 100;
  p.sm_clock_mhz = 1000;
  p.max_threads_per_sm = 2048;
  p.max_warps_per_sm = 64;
  p.max_blocks_per_sm = 32;
  p.regs_per_sm = 65536;
  p.max_regs_per_thread = 255;
  p.max_regs_per_block = 65536;
  p.reg_alloc_unit = 256;
  p.warp_alloc_granularity = 4;
  p.shared_per_sm = 1 << 20;
  p.shared_per_block = p.shared_per_block_optin = 1 << 20;
  p.shared_alloc_granularity = 128;
  p.max_threads_per_block = 1024;
  CostConstants& c = p.cost;
  c.dram_gbs = 1000;  // 1 byte per ps
  c.l2_sector_ps = 2;
  c.partial_store_ps[0] = 10, c.partial_store_ps[1] = 20, c.partial_store_ps[2] = 40;
  c.l1_cycles_per_wavefront = 1;
  c.latency_us = 0.5;
  c.issue_per_cycle = 4;
  c.instructions_per_memory_op = 8;
  c.launch_us = 3;
  c.overlap_p = 1;  // terms add: each is visible in the total
  return p;
}

// The toy device with an sm_90 SM's split of L1 and shared memory: 256 KiB together, up to 228 KiB of shared
// memory (1 KiB reserved a block) in the carve-outs the runtime chooses from.
DeviceProfile toy_with_carveouts() {
  DeviceProfile d = toy();
  d.shared_per_sm = 228 * 1024;
  d.reserved_shared_per_block = 1024;
  d.l1_and_shared_per_sm = 256 * 1024;
  for (const int kb : {0, 8, 16, 32, 64, 100, 132, 164, 196, 228}) d.shared_carveouts.push_back(int64_t(kb) * 1024);
  return d;
}

// 200 blocks of 256 threads (2 per SM): 1600 warps.
KernelCounts base_counts() {
  KernelCounts k;
  k.blocks = 200;
  k.threads_per_block = 256;
  k.regs_per_thread = 32;
  return k;
}

// A caveat's own checks: the prediction carries one caveat, holding `words` and its evidence in brackets, and
// with the profile's threshold taken away (turn_off) the time is the same and nothing is said.
template <class TurnOff>
void expect_one_caveat_and_no_cost(const KernelCounts& k, DeviceProfile p, const std::string& words,
                                   const std::string& evidence, TurnOff turn_off) {
  const Prediction pr = predict(k, p);
  ASSERT_EQ(pr.caveats.size(), 1u);
  EXPECT_NE(pr.caveats[0].find(words), std::string::npos) << pr.caveats[0];
  EXPECT_NE(pr.caveats[0].find("(" + evidence + ")"), std::string::npos) << pr.caveats[0];
  turn_off(p);
  EXPECT_DOUBLE_EQ(predict(k, p).time_us, pr.time_us);  // a caveat, not a cost
  EXPECT_TRUE(predict(k, p).caveats.empty());           // none in a profile without it
}

TEST(Cost, DramTermAndPartitionImbalance) {
  KernelCounts k = base_counts();
  k.dram_read_bytes = 6e8, k.dram_write_bytes = 4e8;  // 1e9 bytes at 1e12 B/s = 1000 us
  k.useful_bytes = 1e9;
  const Prediction p = predict(k, toy());
  EXPECT_NEAR(p.term(kTermDram), 1000.0, 1e-9);
  EXPECT_NEAR(p.time_us, 1003.0, 1e-9);
  EXPECT_EQ(p.bottleneck, kTermDram);
  EXPECT_NEAR(p.bottleneck_us, 1000.0, 1e-9);
  EXPECT_NEAR(p.bottleneck_share(), 1000.0 / 1003.0, 1e-12);  // the launch overhead is the rest
  EXPECT_TRUE(p.bottleneck_with.empty());
  EXPECT_NEAR(p.effective_bandwidth_gbs, 1e9 / 1003e3, 1e-9);  // bytes / (us x 1e3) = GB/s
  PredictOptions o;
  o.partition_imbalance = 1.5;
  EXPECT_NEAR(predict(k, toy(), o).term(kTermDram), 1500.0, 1e-9);
}

// Bytes met out of order (sim/dram_order.hpp) add to the DRAM term: 6e8 read bytes, half out of order, at
// 0.2 ps a byte: 60 us; 4e8 written, all out of order, at 0.5 ps: 200 us. 1000 + 260 us.
TEST(Cost, BytesOutOfOrderAddToTheDramTerm) {
  KernelCounts k = base_counts();
  k.dram_read_bytes = 6e8, k.dram_write_bytes = 4e8;
  k.dram_scattered[0] = 0.5, k.dram_scattered[1] = 1.0;
  DeviceProfile p = toy();
  EXPECT_NEAR(predict(k, p).term(kTermDram), 1000.0, 1e-9);  // a profile without the costs charges nothing
  p.cost.scattered_read_ps_per_byte = 0.2, p.cost.scattered_write_ps_per_byte = 0.5;
  const Prediction pr = predict(k, p);
  EXPECT_NEAR(pr.term(kTermDram), 1260.0, 1e-9);
  EXPECT_NEAR(pr.dram_order_us, 260.0, 1e-9);
  const nlohmann::ordered_json j = to_json(pr);
  EXPECT_DOUBLE_EQ(j["dram_order"]["scattered_loads"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(j["dram_order"]["scattered_stores"].get<double>(), 1.0);
  EXPECT_NEAR(j["dram_order"]["time_us"].get<double>(), 260.0, 1e-9);
  EXPECT_FALSE(to_json(predict(k, toy())).contains("dram_order"));
}

TEST(Cost, L2AndPartialStoreTerms) {
  KernelCounts k = base_counts();
  k.l2_load_sectors = 1e6, k.l2_store_sectors = 1.5e6;  // 2.5e6 x 2 ps = 5 us
  k.partial_store_requests[kLanes4] = 1e6;                // 10 us
  k.partial_store_requests[kLanes8] = 1e6;                // 20 us
  k.partial_store_requests[kLanes16] = 1e6;               // 40 us
  const Prediction p = predict(k, toy());
  EXPECT_NEAR(p.term(kTermL2), 5.0, 1e-9);
  EXPECT_NEAR(p.term(kTermPartial), 70.0, 1e-9);
  EXPECT_EQ(p.bottleneck, kTermPartial);
  EXPECT_EQ(p.term(kTermWrites), 0.0);  // no crossbar cost in this profile
  // Sectors left for another block to complete: 2e6 at 12 ps, 24 us more of the partial-store term.
  k.split_sectors = 2e6;
  DeviceProfile split = toy();
  EXPECT_NEAR(predict(k, split).term(kTermPartial), 70.0, 1e-9);  // no such cost in the profile
  split.cost.split_sector_ps = 12;
  const Prediction q = predict(k, split);
  EXPECT_NEAR(q.term(kTermPartial), 94.0, 1e-9);
  EXPECT_EQ(to_json(q)["split_sectors"].get<double>(), 2e6);
  // Their writers 64 blocks apart (log2 = 6) at 0.05 a doubling: 12 ps x 1.3 = 15.6 ps, 31.2 us.
  k.split_log2_distance = 6;
  EXPECT_NEAR(predict(k, split).term(kTermPartial), 94.0, 1e-9);  // no growth in the profile
  split.cost.split_sector_per_log2_distance = 0.05;
  const Prediction far = predict(k, split);
  EXPECT_NEAR(far.term(kTermPartial), 101.2, 1e-9);
  EXPECT_NEAR(far.split_sectors_us, 31.2, 1e-9);
  EXPECT_DOUBLE_EQ(to_json(far)["split_blocks_apart"].get<double>(), 64.0);
  // Sectors written in pieces from two warps of a block or more: 3e6 at 14 ps, 42 us more.
  k.sectors_from_warps = 3e6;
  EXPECT_NEAR(predict(k, split).term(kTermPartial), 101.2, 1e-9);  // no such cost in the profile
  split.cost.sector_from_warps_ps = 14;
  const Prediction warps = predict(k, split);
  EXPECT_NEAR(warps.term(kTermPartial), 143.2, 1e-9);
  EXPECT_NEAR(warps.sectors_from_warps_us, 42.0, 1e-9);
  EXPECT_DOUBLE_EQ(to_json(warps)["sectors_from_warps"].get<double>(), 3e6);
  EXPECT_NEAR(to_json(warps)["sectors_from_warps_us"].get<double>(), 42.0, 1e-9);
  // A third of them of lines written whole in one round, at 4 ps: 2e6 x 14 + 1e6 x 4 ps = 32 us.
  k.sectors_from_warps_in_one_round = 1e6;
  split.cost.sector_from_warps_one_round_ps = 4;
  const Prediction one_round = predict(k, split);
  EXPECT_NEAR(one_round.sectors_from_warps_us, 32.0, 1e-9);
  EXPECT_NEAR(one_round.term(kTermPartial), 133.2, 1e-9);
  EXPECT_DOUBLE_EQ(to_json(one_round)["sectors_from_warps_in_one_round"].get<double>(), 1e6);
  // The lines holding the split sectors, 1.5e6 counted by each block, at 20 ps where the stores go out of order:
  // none in order (a copy's), 3/4 of them out of order 1.5e6 x 0.75 x 20 ps = 22.5 us more.
  k.split_lines = 1.5e6;
  split.cost.split_line_scattered_ps = 20;
  EXPECT_NEAR(predict(k, split).term(kTermPartial), 133.2, 1e-9);  // the stores in order
  k.dram_scattered[1] = 0.75;
  const Prediction scattered = predict(k, split);
  EXPECT_NEAR(scattered.split_lines_scattered_us, 22.5, 1e-9);
  EXPECT_NEAR(scattered.term(kTermPartial), 155.7, 1e-9);
  EXPECT_DOUBLE_EQ(to_json(scattered)["split_lines"].get<double>(), 1.5e6);
  split.cost.split_line_scattered_ps = 0;  // not charged
  EXPECT_NEAR(predict(k, split).term(kTermPartial), 133.2, 1e-9);
}

// The L1 left beside the shared-memory carve-out holds the loads in flight, line by line. 2 blocks an SM of 256
// threads with 96 KiB of shared memory each (+ 1 KiB reserve): 194 KiB, the 196 KiB carve-out of a 256 KiB SM,
// 60 KiB = 480 lines of L1. 4.8e6 line requests x 0.5 us / (100 SMs x 480 lines) = 50 us.
TEST(Cost, L1LinesBesideSharedMemoryBoundTheLoads) {
  DeviceProfile d = toy_with_carveouts();
  KernelCounts k = base_counts();
  k.shared_bytes_per_block = 96 * 1024;
  k.global_load_lines = 4.8e6;
  EXPECT_EQ(predict(k, d).term(kTermL1Lines), 0.0);  // no hold time in the profile: not charged
  d.cost.l1_line_hold_us = 0.5;
  const Prediction p = predict(k, d);
  EXPECT_EQ(p.occupancy.shared_carveout, 196 * 1024);
  EXPECT_EQ(p.occupancy.l1_bytes, 60 * 1024);
  EXPECT_NEAR(p.term(kTermL1Lines), 50.0, 1e-9);
  EXPECT_EQ(p.bottleneck, kTermL1Lines);
  EXPECT_NEAR(p.time_us, 53.0, 1e-9);  // the launch overhead on top
  const nlohmann::ordered_json j = to_json(p);
  EXPECT_EQ(j["occupancy"]["l1_bytes"].get<int64_t>(), 60 * 1024);
  EXPECT_EQ(j["occupancy"]["shared_carveout_bytes"].get<int64_t>(), 196 * 1024);
  // Half the shared memory in blocks of 1024 threads (2 an SM by warps): 2 x 49 KiB fits 100 KiB, leaving 156 KiB
  // of L1 = 1248 lines: 4.8e6 x 0.5 / (100 x 1248) = 19.23 us. (At 256 threads 4 such blocks fit, 196 KiB.)
  k.shared_bytes_per_block = 48 * 1024;
  EXPECT_NEAR(predict(k, d).term(kTermL1Lines), 50.0, 1e-9);
  k.threads_per_block = 1024;
  EXPECT_EQ(predict(k, d).occupancy.blocks_per_sm, 2);
  EXPECT_NEAR(predict(k, d).term(kTermL1Lines), 4.8e6 * 0.5 / (100 * 1248.0), 1e-9);
  // A profile that does not split its L1: no term, and no carve-out in the JSON.
  d.shared_carveouts.clear();
  EXPECT_EQ(predict(k, d).term(kTermL1Lines), 0.0);
  EXPECT_FALSE(to_json(predict(k, d))["occupancy"].contains("l1_bytes"));
}

// Blocks whose shared memory takes the largest carve-out leave little L1: the small-L1 caveat's case. 256
// threads with 56 KiB of shared memory each (+ 1 KiB reserve): 4 fit 228 KiB, leaving 28 KiB of a 256 KiB SM;
// 40 KiB blocks (5 of 41 KiB = 205 KiB) leave 28 KiB too; 23 KiB blocks (8 an SM by its warps, 8 x 24 = 192 KiB,
// the 196 KiB carve-out) leave 60 KiB.
TEST(Cost, SmallL1BesideSharedMemorySaysTheTimeIsLikelyLow) {
  DeviceProfile d = toy_with_carveouts();
  d.cost.small_l1_kib = 28;
  d.cost.small_l1_evidence = "toy probe";
  KernelCounts k = base_counts();
  k.global_load_instructions = 1e5;
  k.shared_bytes_per_block = 56 * 1024;
  const Prediction p = predict(k, d);
  EXPECT_EQ(p.occupancy.blocks_per_sm, 4);
  EXPECT_EQ(p.occupancy.l1_bytes, 28 * 1024);
  expect_one_caveat_and_no_cost(k, d, "leaves 28 KiB of L1 an SM (up to 28 KiB)", "toy probe",
                                [](DeviceProfile& q) { q.cost.small_l1_kib = 0; });
  k.shared_bytes_per_block = 40 * 1024;
  EXPECT_EQ(predict(k, d).occupancy.l1_bytes, 28 * 1024);
  EXPECT_EQ(predict(k, d).caveats.size(), 1u);
  k.shared_bytes_per_block = 23 * 1024;
  EXPECT_EQ(predict(k, d).occupancy.blocks_per_sm, 8);
  EXPECT_EQ(predict(k, d).occupancy.l1_bytes, 60 * 1024);
  EXPECT_TRUE(predict(k, d).caveats.empty());
  KernelCounts no_loads = base_counts();  // at 28 KiB, but nothing in flight to hold
  no_loads.shared_bytes_per_block = 56 * 1024;
  EXPECT_TRUE(predict(no_loads, d).caveats.empty());
  d.cost.l1_line_hold_us = 0.5;  // a profile that charges the L1's lines says nothing more
  k.shared_bytes_per_block = 56 * 1024;
  EXPECT_TRUE(predict(k, d).caveats.empty());
  d.cost.l1_line_hold_us = 0;
  d.shared_carveouts.clear();  // a profile that does not split its L1: no L1 figure, no caveat
  EXPECT_TRUE(predict(k, d).caveats.empty());
}

TEST(Cost, CrossbarIntoL2ChargesEveryStoreSlot) {
  DeviceProfile d = toy();
  d.cost.l2_write_slot_ps = 4;
  KernelCounts k = base_counts();
  k.l2_write_slots = 25e6;  // 25e6 slots x 4 ps = 100 us: the largest term, added in full (p = 1) + launch
  const Prediction p = predict(k, d);
  EXPECT_NEAR(p.term(kTermWrites), 100.0, 1e-9);
  EXPECT_NEAR(p.time_us, 103.0, 1e-9);
  EXPECT_EQ(p.bottleneck, kTermWrites);
}

TEST(Cost, L1TermGoesToTheBusiestSmAndNamesBankConflicts) {
  KernelCounts k = base_counts();
  k.blocks = 250;  // 2.5 blocks per SM: the busiest SM runs 3 of 250
  k.shared_wavefronts = 2.5e6, k.shared_conflict_wavefronts = 2e6;
  // 2.5e6 x 3/250 = 30000 wavefronts on the busiest SM, 1 cycle each at 1 GHz = 30 us.
  const Prediction p = predict(k, toy());
  EXPECT_NEAR(p.term(kTermL1), 30.0, 1e-9);
  EXPECT_EQ(p.bottleneck, "shared-memory bank conflicts");
  k.shared_conflict_wavefronts = 0;
  EXPECT_EQ(predict(k, toy()).bottleneck, "shared-memory wavefronts");
  k.l1_global_wavefronts = 1e7;
  EXPECT_EQ(predict(k, toy()).bottleneck, "uncoalesced accesses (L1 sectors per request)");
}

TEST(Cost, IssueTermEstimatesInstructionsWhenNotGiven) {
  KernelCounts k = base_counts();
  k.memory_instructions = 1e6;  // x 8 = 8e6 instructions, 2/100 of them on the busiest SM: 80000
  // 80000 / (4 per cycle x 1e9 per s) = 20 us.
  EXPECT_NEAR(predict(k, toy()).term(kTermIssue), 20.0, 1e-9);
  k.instructions = 4e6;  // a given count wins
  EXPECT_NEAR(predict(k, toy()).term(kTermIssue), 10.0, 1e-9);
  PredictOptions measured;
  measured.instructions = 2e6;  // and a count the caller measured wins over both: 20000 / 4e9 = 5 us
  EXPECT_NEAR(predict(k, toy(), measured).term(kTermIssue), 5.0, 1e-9);
  EXPECT_EQ(predict(k, toy(), measured).instructions_basis, kBasisGiven);
}

// With the profile's two constants, the replay's operations give the estimate: 1600 warps x 50 + 2.5 x 1e6
// operations = 2.58e6 instructions; the busiest SM runs 2 of the 200 blocks: 25800 / 4e9 s = 6.45 us.
TEST(Cost, IssueTermFromTheReplaysOperations) {
  KernelCounts k = base_counts();
  k.memory_instructions = 1e6;
  k.source_operations = 1e6;
  DeviceProfile p = toy();
  p.cost.instructions_per_warp = 50;
  p.cost.instructions_per_source_op = 2.5;
  const Prediction pr = predict(k, p);
  EXPECT_NEAR(pr.instructions, 2.58e6, 1e-6);
  EXPECT_NEAR(pr.term(kTermIssue), 6.45, 1e-9);
  EXPECT_EQ(pr.instructions_basis, kBasisOperations);
  // A profile without the constants keeps the memory-instruction ratio (8e6 as above).
  EXPECT_NEAR(predict(k, toy()).instructions, 8e6, 1e-6);
  EXPECT_EQ(predict(k, toy()).instructions_basis, kBasisMemoryRatio);
  // Division sequences add the profile's instructions each: 2.58e6 + 17 x 1000 + 25 x 2000 = 2.647e6.
  k.runtime_divisions[0] = 1000;
  k.runtime_divisions[1] = 2000;
  EXPECT_NEAR(predict(k, p).instructions, 2.58e6, 1e-6);  // the profile gives them no cost yet
  p.cost.instructions_per_division[0] = 17;
  p.cost.instructions_per_division[1] = 25;
  EXPECT_NEAR(predict(k, p).instructions, 2.647e6, 1e-6);
}

// Lines partly written at once: per block x the blocks resident at once. toy: 256 threads, 32 registers -> 8
// blocks an SM, 100 SMs: 800 at once. 200 blocks of 32 lines: all resident, 6400 lines; 2000 blocks: 25600.
// Read-back from 10000 lines at 0.1 per e-fold: e = 0.1 ln(2.56) = 0.094; at 6400 lines none. 1e8 bytes of
// 4-byte-lane partial stores at 5 ps a byte: 0.094 x 1e8 x 5 ps = 47.0 us on the partial-store term (1e6
// requests x 10 ps = 10 us before), and 0.094 x 1e8 bytes more DRAM reads (1e9 written: 1000 -> 1094 us).
TEST(Cost, ReadBackOfPartlyWrittenLines) {
  KernelCounts k = base_counts();
  k.partial_lines_per_block[2] = 32;  // sectors written in pieces by 2 warps: no factor
  k.partial_store_requests[kLanes4] = 1e6;
  k.partial_store_bytes[kLanes4] = 1e8;
  k.dram_write_bytes = 1e9;
  DeviceProfile p = toy();
  EXPECT_NEAR(predict(k, p).open_partial_lines, 6400.0, 1e-9);
  k.blocks = 2000;
  EXPECT_NEAR(predict(k, p).open_partial_lines, 25600.0, 1e-9);
  EXPECT_EQ(predict(k, p).read_back_fraction, 0.0);  // the profile has no read-back model
  p.cost.read_back_from_lines = 10000;
  p.cost.read_back_per_log_lines = 0.1;
  p.cost.read_back_ps_per_byte[kLanes4] = 5;
  const double e = 0.1 * std::log(2.56);
  Prediction pr = predict(k, p);
  EXPECT_NEAR(pr.read_back_fraction, e, 1e-12);
  EXPECT_NEAR(pr.read_back_us, e * 1e8 * 5e-6, 1e-9);
  EXPECT_NEAR(pr.term(kTermPartial), 10.0 + e * 1e8 * 5e-6, 1e-9);
  EXPECT_NEAR(pr.term(kTermDram), 1000.0 + e * 1e8 / 1e6, 1e-9);
  EXPECT_TRUE(pr.caveats.empty());
  // The same bytes in 8-byte lanes: no cost measured for them, so nothing charged and a caveat.
  std::swap(k.partial_store_requests[kLanes4], k.partial_store_requests[kLanes8]);
  std::swap(k.partial_store_bytes[kLanes4], k.partial_store_bytes[kLanes8]);
  pr = predict(k, p);
  EXPECT_EQ(pr.read_back_us, 0.0);
  ASSERT_EQ(pr.caveats.size(), 1u);
  EXPECT_NE(pr.caveats[0].find("25600 lines are partly written at once (32 a block)"), std::string::npos) << pr.caveats[0];
  EXPECT_EQ(to_json(pr)["caveats"].size(), 1u);
  // With a cost for 8-byte lanes (3 ps a byte) they are charged like the 4-byte ones: e x 1e8 x 3 ps.
  p.cost.read_back_ps_per_byte[kLanes8] = 3;
  pr = predict(k, p);
  EXPECT_NEAR(pr.read_back_us, e * 1e8 * 3e-6, 1e-9);
  EXPECT_TRUE(pr.caveats.empty());
  p.cost.read_back_ps_per_byte[kLanes8] = 0;
  k.blocks = 200;  // 6400 lines: below the model's start
  EXPECT_EQ(predict(k, p).read_back_fraction, 0.0);
  EXPECT_TRUE(predict(k, p).caveats.empty());
}

// A 4-byte lane's pieces of 16 bytes a sector (naive f32 in a block 8 wide) read back at the 16-byte class's cost:
// the same lines and fraction e = 0.1 ln(2.56) as above, 1e8 bytes of 4-byte-lane partial stores of which 4e7
// are such pieces: e x (6e7 x 5 ps + 4e7 x 8 ps) = e x 620 us. Their requests keep the 4-byte class's cost (1e6 x
// 10 ps), and the DRAM bytes read back are the same.
TEST(Cost, ReadBackOfHalfSectorPiecesOfNarrowLanesCostsAsSixteenBytePieces) {
  KernelCounts k = base_counts();
  k.blocks = 2000;
  k.partial_lines_per_block[2] = 32;
  k.partial_store_requests[kLanes4] = 1e6;
  k.partial_store_bytes[kLanes4] = 1e8;
  k.dram_write_bytes = 1e9;
  DeviceProfile p = toy();
  p.cost.read_back_from_lines = 10000;
  p.cost.read_back_per_log_lines = 0.1;
  p.cost.read_back_ps_per_byte[kLanes4] = 5;
  p.cost.read_back_ps_per_byte[kLanes16] = 8;
  const double e = 0.1 * std::log(2.56);
  const double before = predict(k, p).term(kTermDram);
  k.lane4_half_sector_bytes = 4e7;
  Prediction pr = predict(k, p);
  EXPECT_NEAR(pr.read_back_us, e * (6e7 * 5 + 4e7 * 8) * 1e-6, 1e-9);
  EXPECT_NEAR(pr.term(kTermPartial), 10.0 + e * (6e7 * 5 + 4e7 * 8) * 1e-6, 1e-9);
  EXPECT_NEAR(pr.term(kTermDram), before, 1e-9);
  // More such bytes than the class holds (a count from elsewhere): at most the class's bytes move.
  k.lane4_half_sector_bytes = 3e8;
  EXPECT_NEAR(predict(k, p).read_back_us, e * 1e8 * 8e-6, 1e-9);
  // Given the bytes read (5e7 beyond the loads' 0), they spread over the bytes the profile prices, each at its
  // class: 0.5 x (6e7 x 5 + 4e7 x 8) ps. Without a 16-byte cost those pieces are not priced, so the read-back
  // spreads over the other 6e7 bytes alone.
  k.lane4_half_sector_bytes = 4e7;
  PredictOptions given;
  given.dram_read_bytes = 5e7;
  pr = predict(k, p, given);
  EXPECT_NEAR(pr.read_back_fraction, 0.5, 1e-12);
  EXPECT_NEAR(pr.read_back_us, 0.5 * (6e7 * 5 + 4e7 * 8) * 1e-6, 1e-9);
  p.cost.read_back_ps_per_byte[kLanes16] = 0;
  pr = predict(k, p, given);
  EXPECT_NEAR(pr.read_back_fraction, 5e7 / 6e7, 1e-12);
  EXPECT_NEAR(pr.read_back_us, 5e7 * 5 * 1e-6, 1e-9);
}

// DRAM bytes read, given (e.g. Nsight Compute's dram__bytes_read.sum), replace the loads' bytes and the modelled
// read-back: the loads' 6e8 bytes and 6.5e8 given leave 5e7 beyond them, half the 1e8 partial bytes, charged at
// 5 ps a byte: 250 us on the partial-store term; the DRAM term charges 6.5e8 + 1e9 bytes at 1e12 B/s, 1650 us.
TEST(Cost, DramReadBytesGivenReplaceTheModelledReadBack) {
  KernelCounts k = base_counts();
  k.partial_lines_per_block[2] = 32;
  k.partial_store_requests[kLanes4] = 1e6;
  k.partial_store_bytes[kLanes4] = 1e8;
  k.dram_read_bytes = 6e8, k.dram_write_bytes = 1e9;
  k.blocks = 2000;
  DeviceProfile p = toy();
  p.cost.read_back_from_lines = 10000;
  p.cost.read_back_per_log_lines = 0.1;
  p.cost.read_back_ps_per_byte[kLanes4] = 5;
  const double e = 0.1 * std::log(2.56);
  Prediction pr = predict(k, p);  // modelled, as ReadBackOfPartlyWrittenLines works it out
  EXPECT_EQ(pr.dram_read_basis, kDramReadModelled);
  EXPECT_NEAR(pr.dram_read_back_bytes, e * 1e8, 1e-3);
  EXPECT_NEAR(pr.dram_read_bytes, 6e8 + e * 1e8, 1e-3);
  EXPECT_EQ(pr.dram_write_bytes, 1e9);
  PredictOptions o;
  o.dram_read_bytes = 6.5e8;
  pr = predict(k, p, o);
  EXPECT_EQ(pr.dram_read_basis, kDramReadGiven);
  EXPECT_NEAR(pr.read_back_fraction, 0.5, 1e-12);
  EXPECT_NEAR(pr.read_back_us, 250.0, 1e-9);
  EXPECT_NEAR(pr.term(kTermPartial), 10.0 + 250.0, 1e-9);
  EXPECT_NEAR(pr.term(kTermDram), 1650.0, 1e-9);
  const nlohmann::ordered_json j = to_json(pr)["dram_bytes"];
  EXPECT_EQ(j["read"].get<double>(), 6.5e8);
  EXPECT_EQ(j["read_back"].get<double>(), 5e7);
  EXPECT_EQ(j["written"].get<double>(), 1e9);
  EXPECT_EQ(j["read_basis"], kDramReadGiven);
  // Fewer bytes than the loads' (the input met in the L2): no read-back, and the DRAM term the bytes given.
  o.dram_read_bytes = 5e8;
  pr = predict(k, p, o);
  EXPECT_EQ(pr.read_back_fraction, 0.0);
  EXPECT_EQ(pr.read_back_us, 0.0);
  EXPECT_NEAR(pr.term(kTermDram), 1500.0, 1e-9);
  // Partial stores in lanes the profile has no read-back cost for: the bytes given stay on the DRAM term alone,
  // and a caveat says so.
  std::swap(k.partial_store_requests[kLanes4], k.partial_store_requests[kLanes8]);
  std::swap(k.partial_store_bytes[kLanes4], k.partial_store_bytes[kLanes8]);
  o.dram_read_bytes = 6.5e8;
  pr = predict(k, p, o);
  EXPECT_EQ(pr.read_back_us, 0.0);
  EXPECT_NEAR(pr.term(kTermDram), 1650.0, 1e-9);
  ASSERT_EQ(pr.caveats.size(), 1u);
  EXPECT_NE(pr.caveats[0].find("the time above charges them on the DRAM term alone"), std::string::npos)
      << pr.caveats[0];
  std::swap(k.partial_store_requests[kLanes4], k.partial_store_requests[kLanes8]);
  std::swap(k.partial_store_bytes[kLanes4], k.partial_store_bytes[kLanes8]);
  // No partial stores: what lies beyond the loads is DRAM time alone.
  k.partial_store_requests[kLanes4] = 0, k.partial_store_bytes[kLanes4] = 0;
  o.dram_read_bytes = 7e8;
  pr = predict(k, p, o);
  EXPECT_EQ(pr.read_back_us, 0.0);
  EXPECT_NEAR(pr.dram_read_back_bytes, 1e8, 1e-3);
  EXPECT_NEAR(pr.term(kTermDram), 1700.0, 1e-9);
}

// Lines closed each in its round, written over R rounds a block: D = min(R, 1 + spread (R - 1)^power) of the
// rounds' lines are open at once, by the warps writing their sectors (2, 4 and 8: spread 0.5, 0.25, 1; power 1,
// 2, 0.5). R = 5: 2 warps 1 + 0.5 x 4 = 3; 4 warps 1 + 0.25 x 16 = 5 (at the cap); 8 warps 1 + sqrt(4) = 3; 32
// warps as 8; 3 warps as 4. Unmeasured (the profile's -1): all R. One round: 1.
TEST(Cost, RoundsOfLinesClosedInTheirRoundOpenAtOnce) {
  DeviceProfile p = toy();
  EXPECT_EQ(rounds_open_at_once(p.cost, 5, 2), 5.0);
  EXPECT_EQ(rounds_open_at_once(p.cost, 1, 2), 1.0);
  const double spread[3] = {0.5, 0.25, 1}, power[3] = {1, 2, 0.5};
  for (int i = 0; i < 3; ++i) p.cost.read_back_steps_open_spread[i] = spread[i], p.cost.read_back_steps_open_power[i] = power[i];
  EXPECT_NEAR(rounds_open_at_once(p.cost, 5, 2), 3.0, 1e-12);
  EXPECT_NEAR(rounds_open_at_once(p.cost, 5, 1), 3.0, 1e-12);
  EXPECT_NEAR(rounds_open_at_once(p.cost, 5, 4), 5.0, 1e-12);
  EXPECT_NEAR(rounds_open_at_once(p.cost, 5, 3), 5.0, 1e-12);
  EXPECT_NEAR(rounds_open_at_once(p.cost, 10, 4), 10.0, 1e-12);  // 1 + 0.25 x 81 = 21.25, capped at 10
  EXPECT_NEAR(rounds_open_at_once(p.cost, 5, 8), 3.0, 1e-12);
  EXPECT_NEAR(rounds_open_at_once(p.cost, 5, 32), 3.0, 1e-12);
  EXPECT_EQ(rounds_open_at_once(p.cost, 1, 8), 1.0);
  // In a prediction: 32 lines a block summed over 5 rounds, 16 at 2 warps and 16 at 8, 200 blocks all resident
  // (toy): each class 16 x 3/5 a block, 19.2 in all, x 200 = 3840 at once (6400 before it was measured).
  KernelCounts k = base_counts();
  k.partial_lines_per_block[2] = 16;
  k.partial_lines_per_block[8] = 16;
  k.partial_line_rounds = 5;
  Prediction pr = predict(k, p);
  EXPECT_NEAR(pr.open_partial_lines, 3840.0, 1e-9);
  EXPECT_EQ(pr.closed_line_rounds, 5.0);
  EXPECT_NEAR(pr.closed_line_rounds_open, 3.0, 1e-12);
  EXPECT_NEAR(to_json(pr)["closed_line_rounds_open"].get<double>(), 3.0, 1e-12);
  p.cost.read_back_steps_open_spread[0] = p.cost.read_back_steps_open_spread[2] = -1;
  pr = predict(k, p);
  EXPECT_NEAR(pr.open_partial_lines, 6400.0, 1e-9);
  EXPECT_NEAR(pr.closed_line_rounds_open, 5.0, 1e-12);
}

// Lines closed in their round, read back by the steps too (cost.read_back.closed_steps): the lines-open law at one
// round's lines, and a share at risk per_log_steps x ln(1 + steps_scale (R - 1)) of which 1 - exp(-(X / stress)^
// stress_power) is evicted, X the warps an SM times (lines a warp writes a round)^lines_power, by the closed
// factors; either reads a sector back: 1 - (1 - by lines)(1 - by steps). Hand-worked: 24 lines a block over R = 4
// rounds, 16 from sectors of 2 warps and 8 of 8; 200 blocks of 8 warps on 100 SMs, all resident (16 warps an SM).
// By lines: factor (16 x 1 + 8 x 4) / 24 = 2, one round's lines 24 / 4 x 200 = 1200, 2 x 0.1 x ln(1200 / 200).
// By steps: factor (16 x 1 + 8 x 0.5) / 24 = 5/6; a line's writers min(8, 4 w): 8 for both, so a warp writes
// 24 x 8 / (8 warps x 4 rounds) = 6 lines a round; X = 16 x 6 = 96; at risk 0.5 ln(1 + 3), evicted 1 - e^-6.
TEST(Cost, ClosedLinesReadBackByStepsAndWarps) {
  DeviceProfile p = toy();
  CostConstants& c = p.cost;
  c.read_back_from_lines = 200, c.read_back_per_log_lines = 0.1;
  c.read_back_sector_warp_factors[0] = 2, c.read_back_sector_warp_factors[1] = 4;
  c.read_back_ps_per_byte[kLanes8] = 5;
  KernelCounts k = base_counts();
  k.partial_store_requests[kLanes8] = 1e6, k.partial_store_bytes[kLanes8] = 1e8;
  k.partial_lines_per_block[2] = 16, k.partial_lines_per_block[8] = 8;
  k.partial_line_rounds = 4;
  const Prediction before = predict(k, p);  // the lines-open law alone: all 4 rounds open (no steps_open)
  EXPECT_NEAR(before.read_back_fraction, 0.2 * std::log(24.0 * 200 / 200), 1e-12);
  c.read_back_closed_per_log_steps = 0.5, c.read_back_closed_steps_scale = 1;
  c.read_back_closed_stress = 16, c.read_back_closed_stress_power = 1, c.read_back_closed_lines_power = 1;
  c.read_back_closed_sector_warp_factors[0] = 1.5, c.read_back_closed_sector_warp_factors[1] = 0.5;
  Prediction pr = predict(k, p);
  const double by_lines = 0.2 * std::log(6.0), by_steps = 5.0 / 6 * 0.5 * std::log(4.0) * (1 - std::exp(-6.0));
  EXPECT_NEAR(pr.closed_by_lines, by_lines, 1e-12);
  EXPECT_NEAR(pr.closed_lines_a_warp, 6.0, 1e-12);
  EXPECT_NEAR(pr.closed_warps_per_sm, 16.0, 1e-12);
  EXPECT_NEAR(pr.closed_warp_factor, 5.0 / 6, 1e-12);
  EXPECT_NEAR(pr.open_partial_lines, 1200.0, 1e-9);
  EXPECT_NEAR(pr.read_back_fraction, 1 - (1 - by_lines) * (1 - by_steps), 1e-12);
  EXPECT_NEAR(pr.read_back_us, pr.read_back_fraction * 1e8 * 5 * 1e-6, 1e-9);
  EXPECT_NEAR(to_json(pr)["closed_at_risk"].get<double>(), 0.5 * std::log(4.0), 1e-12);
  EXPECT_TRUE(pr.caveats.empty());
  // lines_power 0: the warps an SM alone, 1 - e^-1 evicted.
  c.read_back_closed_lines_power = 0;
  EXPECT_NEAR(predict(k, p).closed_evicted, 1 - std::exp(-1.0), 1e-12);
  // One round: nothing at risk by the steps, the lines-open law at its lines (24 x 200).
  k.partial_line_rounds = 1;
  pr = predict(k, p);
  EXPECT_EQ(pr.closed_at_risk, 0.0);
  EXPECT_NEAR(pr.read_back_fraction, 0.2 * std::log(24.0), 1e-12);
  // Past the 16 rounds memsim-step-lines measured: said, not changed.
  k.partial_line_rounds = 20;
  pr = predict(k, p);
  EXPECT_NEAR(pr.closed_at_risk, 0.5 * std::log(20.0), 1e-12);
  ASSERT_EQ(pr.caveats.size(), 1u);
  EXPECT_NE(pr.caveats[0].find("over 20 rounds, past the 16"), std::string::npos) << pr.caveats[0];
}

// Counts whose partly written lines are all held open over rounds, `open` of them a block at once (pieces under
// 16 bytes, and 16 bytes or more): 1e6 partial store requests of 4-byte lanes, 1e8 bytes.
KernelCounts held_open_counts(std::array<double, 2> open) {
  KernelCounts k = base_counts();
  k.partial_store_requests[kLanes4] = 1e6;
  k.partial_store_bytes[kLanes4] = 1e8;
  k.lines_open_at_once_per_block = open;
  k.held_line_share = 1;
  return k;
}

// Lines held open over rounds read back 1 - exp(-(U / lines)^exponent) of their share of the partial bytes, U
// the lines open at once (a block's, times the blocks resident: toy() holds 200 blocks, all resident), half-
// sector lines counting for half_sector_factor of a line; the lines that close in their round keep the L model.
TEST(Cost, LinesHeldOpenOverRounds) {
  KernelCounts k = held_open_counts({300, 200});
  DeviceProfile p = toy();
  p.cost.read_back_ps_per_byte[kLanes4] = 5;
  // No held-open constants: nothing charged, and a caveat says so (with a read-back model in the profile).
  p.cost.read_back_from_lines = 10000;
  p.cost.read_back_per_log_lines = 0.1;
  Prediction pr = predict(k, p);
  EXPECT_EQ(pr.read_back_fraction, 0.0);
  ASSERT_EQ(pr.caveats.size(), 1u);
  EXPECT_NE(pr.caveats[0].find("no read-back for such lines"), std::string::npos) << pr.caveats[0];
  p.cost.read_back_held_open_lines = 100000;
  p.cost.read_back_held_open_exponent = 2;
  p.cost.read_back_held_open_half_sector_factor = 0.5;
  pr = predict(k, p);
  // U = (300 + 0.5 x 200) x 200 blocks = 80,000; e = 1 - exp(-0.8^2) = 1 - exp(-0.64).
  const double e = 1 - std::exp(-0.64);
  EXPECT_NEAR(pr.lines_open_at_once, 80000.0, 1e-9);
  EXPECT_NEAR(pr.held_open_read_back, e, 1e-12);
  EXPECT_NEAR(pr.read_back_fraction, e, 1e-12);
  EXPECT_NEAR(pr.read_back_us, e * 1e8 * 5e-6, 1e-9);
  EXPECT_TRUE(pr.caveats.empty());
  EXPECT_EQ(to_json(pr)["lines_open_at_once"], 80000.0);
  // A quarter of the lines close in their round: 32 a block x 200 = 6,400 open, under from_lines: 0 for them.
  k.partial_lines_per_block[2] = 32;
  k.held_line_share = 0.75;
  EXPECT_NEAR(predict(k, p).read_back_fraction, 0.75 * e, 1e-12);
  // Past the 300,000 lines the held-open runs were fitted up to: a caveat.
  k.lines_open_at_once_per_block = {2000, 0};
  pr = predict(k, p);
  ASSERT_EQ(pr.caveats.size(), 1u);
  EXPECT_NE(pr.caveats[0].find("4e+05 lines are held open over rounds at once"), std::string::npos) << pr.caveats[0];
}

// Past the L2's lines: with the L2 holding 500,000 lines (64 MB), half of them for lines held open
// (past_l2_share 0.5), and U = (1500 + 500) x 200 blocks = 400,000 open (counted whole, the half-sector factor
// aside), a piece finds its line evicted 1 - 250/400 = 0.375 of the time; 8 pieces a sector read back
// 7 x 0.375 = 2.625 more of the held lines' bytes than the fit's e, where U' = (1500 + 0.5 x 500) x 200 = 350,000
// gives e = 1 - exp(-3.5^2). At one piece a sector, or under the L2's
// lines, nothing more.
TEST(Cost, LinesHeldOpenPastTheL2) {
  KernelCounts k = held_open_counts({1500, 500});
  k.pieces_per_held_sector = 8;
  DeviceProfile p = toy();
  p.l2_bytes = 500000 * 128;
  p.line_bytes = 128;
  p.cost.read_back_held_open_past_l2_share = 0.5;
  p.cost.read_back_ps_per_byte[kLanes4] = 5;
  p.cost.read_back_held_open_lines = 100000;
  p.cost.read_back_held_open_exponent = 2;
  p.cost.read_back_held_open_half_sector_factor = 0.5;
  Prediction pr = predict(k, p);
  const double e = 1 - std::exp(-3.5 * 3.5);
  EXPECT_NEAR(pr.held_lines_open, 400000.0, 1e-6);
  EXPECT_NEAR(pr.l2_lines, 250000.0, 1e-9);
  EXPECT_NEAR(pr.past_l2_evicted, 0.375, 1e-12);
  EXPECT_NEAR(pr.past_l2_read_back, 2.625, 1e-12);
  EXPECT_NEAR(pr.held_open_read_back, e + 2.625, 1e-12);
  EXPECT_NEAR(pr.read_back_fraction, e + 2.625, 1e-12);
  EXPECT_NEAR(pr.read_back_us, (e + 2.625) * 1e8 * 5e-6, 1e-9);
  EXPECT_NEAR(pr.dram_read_back_bytes, (e + 2.625) * 1e8, 1e-3);
  ASSERT_EQ(pr.caveats.size(), 1u);
  EXPECT_NE(pr.caveats[0].find("more than the 2.5e+05 of the L2's"), std::string::npos) << pr.caveats[0];
  EXPECT_EQ(to_json(pr)["past_l2_evicted"], 0.375);
  k.pieces_per_held_sector = 1;
  pr = predict(k, p);
  EXPECT_EQ(pr.past_l2_read_back, 0.0);
  EXPECT_NEAR(pr.held_open_read_back, e, 1e-12);
  k.pieces_per_held_sector = 8;
  p.cost.read_back_held_open_past_l2_share = 0.8;  // 400,000 lines hold them: none past
  EXPECT_EQ(predict(k, p).past_l2_read_back, 0.0);
  p.cost.read_back_held_open_past_l2_share = 0;  // not priced
  EXPECT_EQ(predict(k, p).past_l2_read_back, 0.0);
}

// Lines of whole sectors held open over rounds (cost.whole_lines): e = 1 - exp(-(U / lines)^exponent) of the
// counted sectors' bytes cost ps_per_byte of DRAM time more. toy() resides all 200 blocks: lone U = 400 x 200 =
// 80,000 lines; with lines 100,000 and exponent 2, e = 1 - exp(-0.64); 1e6 lone sectors x 32 bytes x 2 ps =
// 64 µs x e. By every whole sector (U = 600 x 200 = 120,000, 3e6 sectors): e = 1 - exp(-1.44), 192 µs x e.
TEST(Cost, WholeLinesHeldOpenOverRounds) {
  KernelCounts k = base_counts();
  k.whole_lines_open_at_once_per_block = 600;
  k.lone_sector_lines_open_at_once_per_block = 400;
  k.whole_sectors_held_over_rounds = 3e6;
  k.lone_sectors_held_over_rounds = 1e6;
  DeviceProfile p = toy();
  const Prediction none = predict(k, p);  // no constants: counted, not charged
  EXPECT_NEAR(none.lone_sector_lines_open_at_once, 80000.0, 1e-9);
  EXPECT_NEAR(none.whole_lines_open_at_once, 120000.0, 1e-9);
  EXPECT_EQ(none.whole_lines_us, 0.0);
  p.cost.whole_lines_lines = 100000;
  p.cost.whole_lines_exponent = 2;
  p.cost.whole_lines_ps_per_byte = 2;
  Prediction pr = predict(k, p);
  const double e = 1 - std::exp(-0.64);
  EXPECT_NEAR(pr.whole_lines_evicted, e, 1e-12);
  EXPECT_NEAR(pr.whole_lines_us, 64 * e, 1e-9);
  const auto dram = [](const Prediction& q) {
    for (const auto& [name, us] : q.terms_us)
      if (name == kTermDram) return us;
    return -1.0;
  };
  EXPECT_NEAR(dram(pr) - dram(none), 64 * e, 1e-9);
  EXPECT_EQ(to_json(pr)["whole_lines_us"], pr.whole_lines_us);
  p.cost.whole_lines_lone_only = false;
  pr = predict(k, p);
  EXPECT_NEAR(pr.whole_lines_evicted, 1 - std::exp(-1.44), 1e-12);
  EXPECT_NEAR(pr.whole_lines_us, 192 * (1 - std::exp(-1.44)), 1e-9);
}

// The read-back grows with the warps writing a sector in pieces: 1 up to 2 warps, the profile's factors at 4
// and 8, geometric between (3 warps: 1.5^log2(1.5) with 1.5 at 4), 8's beyond. The lines of the test above
// (25600 at once, e = 0.1 ln 2.56 at factor 1): all at 8 warps, e x 2; half at 2 and half at 4 warps, the mean
// factor (1 + 1.5) / 2 = 1.25. Profiles without factors: 1 whatever the warps.
TEST(Cost, ReadBackGrowsWithTheWarpsWritingASector) {
  DeviceProfile p = toy();
  EXPECT_EQ(read_back_sector_warp_factor(p.cost, 8), 1.0);
  p.cost.read_back_sector_warp_factors[0] = 1.5;
  p.cost.read_back_sector_warp_factors[1] = 2;
  EXPECT_EQ(read_back_sector_warp_factor(p.cost, 1), 1.0);
  EXPECT_EQ(read_back_sector_warp_factor(p.cost, 2), 1.0);
  EXPECT_NEAR(read_back_sector_warp_factor(p.cost, 3), std::pow(1.5, std::log2(1.5)), 1e-12);
  EXPECT_NEAR(read_back_sector_warp_factor(p.cost, 4), 1.5, 1e-12);
  EXPECT_NEAR(read_back_sector_warp_factor(p.cost, 8), 2.0, 1e-12);
  EXPECT_NEAR(read_back_sector_warp_factor(p.cost, 32), 2.0, 1e-12);
  KernelCounts k = base_counts();
  k.blocks = 2000;
  k.partial_store_requests[kLanes4] = 1e6;
  k.partial_store_bytes[kLanes4] = 1e8;
  p.cost.read_back_from_lines = 10000;
  p.cost.read_back_per_log_lines = 0.1;
  p.cost.read_back_ps_per_byte[kLanes4] = 5;
  const double e = 0.1 * std::log(2.56);
  k.partial_lines_per_block[8] = 32;
  Prediction pr = predict(k, p);
  EXPECT_NEAR(pr.open_partial_lines, 25600.0, 1e-9);
  EXPECT_NEAR(pr.read_back_warp_factor, 2.0, 1e-12);
  EXPECT_NEAR(pr.read_back_fraction, 2 * e, 1e-12);
  EXPECT_NEAR(to_json(pr)["read_back_warp_factor"].get<double>(), 2.0, 1e-12);
  k.partial_lines_per_block = {};
  k.partial_lines_per_block[2] = 16;
  k.partial_lines_per_block[4] = 16;
  pr = predict(k, p);
  EXPECT_NEAR(pr.read_back_warp_factor, 1.25, 1e-12);
  EXPECT_NEAR(pr.read_back_fraction, 1.25 * e, 1e-12);
  // A sector its one warp completes itself reads back the profile's share of a 2-warp sector's: the same
  // 25600 lines all at 1 warp with a factor of 0.4, e x 0.4; 16 lines a block at 1 warp and 16 at 8, the
  // mean factor (0.4 + 2) / 2 = 1.2.
  p.cost.read_back_one_warp_factor = 0.4;
  EXPECT_NEAR(read_back_sector_warp_factor(p.cost, 1), 0.4, 1e-12);
  EXPECT_NEAR(read_back_sector_warp_factor(p.cost, 2), 1.0, 1e-12);
  k.partial_lines_per_block = {};
  k.partial_lines_per_block[1] = 32;
  pr = predict(k, p);
  EXPECT_NEAR(pr.open_partial_lines, 25600.0, 1e-9);
  EXPECT_NEAR(pr.read_back_fraction, 0.4 * e, 1e-12);
  // 0.4 e of the 1e8 partial bytes at 5 ps a byte: 200 e us.
  EXPECT_NEAR(pr.read_back_us, 0.4 * e * 1e8 * 5e-6, 1e-9);
  k.partial_lines_per_block[1] = 16;
  k.partial_lines_per_block[8] = 16;
  pr = predict(k, p);
  EXPECT_NEAR(pr.read_back_warp_factor, 1.2, 1e-12);
}

// 25600 blocks (32 rounds of 800) whose warps each wait out 4 loads one after another: latency 32 x 4 x 0.5 =
// 64 us on toy().
KernelCounts waiting_warps() {
  KernelCounts k = base_counts();
  k.blocks = 25600;
  k.global_load_instructions = 819200;
  k.loads_in_flight_per_warp = 1;
  return k;
}

TEST(Cost, LatencyIsLittlesLawInRounds) {
  KernelCounts k = waiting_warps();  // 204800 warps, 4 loads each, one in flight
  // 8 blocks x 8 warps = 64 warps per SM, 6400 at once: 32 rounds of a 4-load chain of 0.5 us = 64 us.
  EXPECT_NEAR(predict(k, toy()).term(kTermLatency), 64.0, 1e-9);
  k.loads_in_flight_per_warp = 4;  // the 4 loads overlap: one round trip per warp
  EXPECT_NEAR(predict(k, toy()).term(kTermLatency), 16.0, 1e-9);
  k.regs_per_thread = 64;  // 2048 registers per warp: 32 warps = 4 blocks per SM, 3200 at once
  EXPECT_NEAR(predict(k, toy()).term(kTermLatency), 32.0, 1e-9);
  PredictOptions o;
  o.regs_per_thread = 32;  // the option overrides the counts
  EXPECT_NEAR(predict(k, toy(), o).term(kTermLatency), 16.0, 1e-9);
}

// A load is back when its last L2 read request is: each request beyond one lengthens its round trip.
TEST(Cost, EachExtraL2RequestLengthensTheRoundTrip) {
  DeviceProfile p = toy();
  p.cost.l2_request_ns = 100;  // 0.1 us a request
  KernelCounts k = waiting_warps();  // 204800 warps, 32 rounds, 4 loads each, one in flight
  k.l2_read_requests = 819200;          // one a load: the round trip stays 0.5 us, 32 x 4 x 0.5 = 64 us
  EXPECT_NEAR(predict(k, p).term(kTermLatency), 64.0, 1e-9);
  k.l2_read_requests = 4 * 819200;  // four a load: 0.5 + 3 x 0.1 = 0.8 us, 32 x 4 x 0.8 = 102.4 us
  EXPECT_NEAR(predict(k, p).term(kTermLatency), 102.4, 1e-9);
  k.l2_read_requests = 409600;  // fewer requests than loads (a block's loads share sectors): no shorter trip
  EXPECT_NEAR(predict(k, p).term(kTermLatency), 64.0, 1e-9);
  p.cost.l2_request_ns = 0;  // a profile without the cost: requests change nothing
  k.l2_read_requests = 4 * 819200;
  EXPECT_NEAR(predict(k, p).term(kTermLatency), 64.0, 1e-9);
}

TEST(Cost, LoadsOverManyLinesWithOneInFlightSayTheTimeIsLikelyLow) {
  DeviceProfile p = toy();
  p.cost.long_wait_lines = 8;
  p.cost.long_wait_evidence = "toy evidence";
  KernelCounts k = waiting_warps();
  k.global_load_lines = 819200 * 16.0;  // 16 lines a request
  k.dram_read_bytes = 1e8;  // 100 us of DRAM: above the 64 us of latency, so not L1-bound
  Prediction pr = predict(k, p);
  ASSERT_EQ(pr.caveats.size(), 1u);
  EXPECT_NE(pr.caveats[0].find("spreads over 16 lines (from 8 on)"), std::string::npos) << pr.caveats[0];
  EXPECT_NE(pr.caveats[0].find("toy evidence"), std::string::npos) << pr.caveats[0];
  // The time itself is what it was: a caveat, not a cost.
  p.cost.long_wait_lines = 0;
  EXPECT_TRUE(predict(k, p).caveats.empty());
  EXPECT_DOUBLE_EQ(predict(k, p).time_us, pr.time_us);
  p.cost.long_wait_lines = 8;
  k.global_load_lines = 819200 * 7.0;  // below the threshold
  EXPECT_TRUE(predict(k, p).caveats.empty());
  k.global_load_lines = 819200 * 16.0;
  k.loads_in_flight_per_warp = 2;  // the waits overlap
  EXPECT_TRUE(predict(k, p).caveats.empty());
  k.loads_in_flight_per_warp = 1;
  k.l1_global_wavefronts = 25600.0 * 800;  // 256 blocks on the busiest SM x 800: 204.8 us of L1 at 1 GHz
  ASSERT_EQ(predict(k, p).bottleneck, "uncoalesced accesses (L1 sectors per request)");
  EXPECT_TRUE(predict(k, p).caveats.empty());  // L1-bound: it waits in L1's queue anyway
}

// Loads over 4 lines a request, one in flight a warp, beside stores whose bytes are all half-sector pieces that
// other warps complete: the half-sector-wait caveat's case. Loads of one line, two loads in flight, pieces under
// half a sector, or pieces no other warp completes, are not.
TEST(Cost, LoadsOverLinesBesideHalfSectorPiecesSayTheTimeIsLikelyLow) {
  DeviceProfile p = toy();
  p.cost.half_sector_wait_lines = 2;
  p.cost.half_sector_wait_evidence = "toy walks";
  KernelCounts k = waiting_warps();
  k.global_load_lines = 819200 * 4.0;
  k.partial_store_requests[kLanes4] = 819200 * 8.0;
  k.partial_store_bytes[kLanes4] = 819200 * 128.0;
  k.half_sector_piece_bytes = 819200 * 128.0;
  k.partial_lines_per_block[2] = 8;  // sectors two warps write in pieces
  Prediction pr = predict(k, p);
  ASSERT_EQ(pr.caveats.size(), 1u);
  EXPECT_NE(pr.caveats[0].find("spreads over 4 lines (from 2 on)"), std::string::npos) << pr.caveats[0];
  EXPECT_NE(pr.caveats[0].find("(toy walks)"), std::string::npos) << pr.caveats[0];
  EXPECT_DOUBLE_EQ(predict(k, toy()).time_us, pr.time_us);  // a caveat, not a cost
  KernelCounts one_line = k;
  one_line.global_load_lines = 819200;
  EXPECT_TRUE(predict(one_line, p).caveats.empty());
  KernelCounts two_in_flight = k;
  two_in_flight.loads_in_flight_per_warp = 2;
  EXPECT_TRUE(predict(two_in_flight, p).caveats.empty());
  KernelCounts small_pieces = k;
  small_pieces.half_sector_piece_bytes = 0.4 * k.partial_store_bytes[kLanes4];  // most pieces under 16 bytes
  EXPECT_TRUE(predict(small_pieces, p).caveats.empty());
  KernelCounts own_sectors = k;
  own_sectors.partial_lines_per_block = {};  // no sector that other warps of the block complete
  EXPECT_TRUE(predict(own_sectors, p).caveats.empty());
  own_sectors.lines_open_at_once_per_block[1] = 4;  // but lines held open over rounds are
  EXPECT_EQ(predict(own_sectors, p).caveats.size(), 1u);
}

// Sectors split between blocks in lines whose other sectors the block writes whole, from 4-byte lanes: the
// split-lines caveat's case (from a quarter of the sectors whole). Lines of split sectors alone (as the cost was
// fitted), 2-byte lanes (not measured) or no split sector at all, are not.
TEST(Cost, SplitSectorsBesideWholeOnesSayTheTimeIsLikelyLow) {
  DeviceProfile p = toy();
  p.cost.split_sector_ps = 12;
  p.cost.split_line_whole_share = 0.25;
  p.cost.split_line_whole_evidence = "toy pairs";
  KernelCounts k = base_counts();
  k.split_sectors = 2e6;
  k.split_line_whole_share = 0.75;
  k.split_lane_bytes = 4;
  expect_one_caveat_and_no_cost(k, p, "(75% of a block's sectors there, from 25% on)", "toy pairs",
                                [](DeviceProfile& q) { q.cost.split_line_whole_share = 0; });
  KernelCounts quarter = k;
  quarter.split_line_whole_share = 0.25;
  EXPECT_EQ(predict(quarter, p).caveats.size(), 1u);
  KernelCounts all_split = k;
  all_split.split_line_whole_share = 0;
  EXPECT_TRUE(predict(all_split, p).caveats.empty());
  KernelCounts narrow = k;
  narrow.split_lane_bytes = 2;
  EXPECT_TRUE(predict(narrow, p).caveats.empty());
  KernelCounts none = k;
  none.split_sectors = 0;
  EXPECT_TRUE(predict(none, p).caveats.empty());
}

// 200 blocks of 8 warps: 1600 warps. 12800 store instructions are 8 a warp; with lines a warp completes
// itself, that is the store-burst caveat's case; 7 a warp, or no such lines, is not.
TEST(Cost, WarpsCompletingTheirOwnSectorsInBurstsSayTheTimeIsLikelyLow) {
  DeviceProfile p = toy();
  p.cost.store_burst_stores = 8;
  p.cost.store_burst_evidence = "toy bursts";
  KernelCounts k = base_counts();
  k.dram_write_bytes = 1e6;
  k.global_store_instructions = 12800;
  k.lines_completed_by_one_warp_per_block = 256;
  Prediction pr = predict(k, p);
  ASSERT_EQ(pr.caveats.size(), 1u);
  EXPECT_NE(pr.caveats[0].find("in 8 store instructions (from 8 on)"), std::string::npos) << pr.caveats[0];
  EXPECT_NE(pr.caveats[0].find("(toy bursts)"), std::string::npos) << pr.caveats[0];
  EXPECT_DOUBLE_EQ(predict(k, toy()).time_us, pr.time_us);  // a caveat, not a cost
  k.global_store_instructions = 11200;                       // 7 a warp
  EXPECT_TRUE(predict(k, p).caveats.empty());
  k.global_store_instructions = 12800;
  k.lines_completed_by_one_warp_per_block = 0;  // the sectors are completed by other warps or not at all
  EXPECT_TRUE(predict(k, p).caveats.empty());
}

// Partial stores of 1e8 bytes (1e6 requests, the 4-byte class), 6e7 of them from 2-byte lanes writing 8 bytes a
// sector or more: 60%, over the 50% threshold, so the prediction says its time is likely high (a caveat, not a
// cost); 4e7 (40%) is under it, and a profile without the threshold says nothing.
TEST(Cost, NarrowLanePiecesSayTheTimeIsLikelyHigh) {
  DeviceProfile p = toy();
  p.cost.narrow_lane_piece_share = 0.5;
  p.cost.narrow_lane_piece_evidence = "toy pieces";
  KernelCounts k = base_counts();
  k.dram_write_bytes = 1e8;
  k.partial_store_requests[kLanes4] = 1e6;
  k.partial_store_bytes[kLanes4] = 1e8;
  k.narrow_lane_piece_bytes = 6e7;
  const Prediction pr = predict(k, p);
  ASSERT_EQ(pr.caveats.size(), 1u);
  EXPECT_NE(pr.caveats[0].find("60% of the partial stores' bytes"), std::string::npos) << pr.caveats[0];
  EXPECT_NE(pr.caveats[0].find("(from 50% on)"), std::string::npos) << pr.caveats[0];
  EXPECT_NE(pr.caveats[0].find("likely high (toy pieces)"), std::string::npos) << pr.caveats[0];
  EXPECT_DOUBLE_EQ(predict(k, toy()).time_us, pr.time_us);
  EXPECT_TRUE(predict(k, toy()).caveats.empty());
  k.narrow_lane_piece_bytes = 4e7;
  EXPECT_TRUE(predict(k, p).caveats.empty());
}

// 1e6 partial-store requests (4-byte lanes) writing 1.6e7 bytes as half sectors, 10 us at 10 ps; a quarter of
// those bytes are pairs a warp completes in its next store. In blocks of 2 warps storing twice a warp (800 store
// instructions, 400 warps), with the rule up to 2 warps and 2 stores, a quarter of the requests (2.5 us) leave
// the partial term, their 4e6 bytes join the whole sectors (125000 sectors x 2 ps = 0.25 us of L2 traffic), and
// the crossbar loses half of their slots: (2.5e5 requests + 4e6 / 16 half sectors) / 2 = 2.5e5 of 1e6 slots at
// 1 ps. Blocks of 4 warps, 3 stores a warp, or a profile without the rule: unchanged.
TEST(Cost, HalfSectorPairsMergeInSmallBlocks) {
  DeviceProfile p = toy();
  p.cost.l2_write_slot_ps = 1;
  p.cost.next_store_merge_warps = 2;
  p.cost.next_store_merge_stores = 2;
  p.cost.next_store_merge_evidence = "toy merges";
  KernelCounts k = base_counts();
  k.threads_per_block = 64;  // 2 warps
  k.partial_store_requests[kLanes4] = 1e6;
  k.partial_store_bytes[kLanes4] = 1.6e7;
  k.half_sector_piece_bytes = 1.6e7;
  k.l2_write_slots = 1e6;
  k.dram_write_bytes = 1.6e7;
  k.global_store_instructions = 800;
  k.next_store_pair_share = 0.25;
  const Prediction merged = predict(k, p);
  EXPECT_DOUBLE_EQ(merged.next_store_merged_share, 0.25);
  EXPECT_NEAR(merged.term(kTermPartial), 7.5, 1e-9);
  EXPECT_NEAR(merged.term(kTermL2), 0.25, 1e-9);
  EXPECT_NEAR(merged.term(kTermWrites), 0.75, 1e-9);
  const Prediction plain = predict(k, toy());
  EXPECT_DOUBLE_EQ(plain.next_store_merged_share, 0.0);
  EXPECT_NEAR(plain.term(kTermPartial), 10.0, 1e-9);
  k.global_store_instructions = 1200;  // 3 a warp: past what was measured to merge whole
  EXPECT_DOUBLE_EQ(predict(k, p).next_store_merged_share, 0.0);
  k.global_store_instructions = 800;
  k.threads_per_block = 128;  // 4 warps (200 blocks: 1 store a warp): the L1 merges about half, as fitted
  const Prediction larger = predict(k, p);
  EXPECT_DOUBLE_EQ(larger.next_store_merged_share, 0.0);
  EXPECT_NEAR(larger.term(kTermPartial), 10.0, 1e-9);
  EXPECT_NEAR(larger.term(kTermWrites), 1.0, 1e-9);
}

// The L2's sector writes given: 1e6 pieces of 16 bytes (the 1.6e7 bytes' whole sectors: 5e5) and 7.5e5 writes,
// so (1e6 - 7.5e5) / (1e6 - 5e5) = 0.5 of the pieces reached the L2 merged: half the partial-store requests stay
// (10 ps each in the toy profile: 10 -> 5 us), the merged half's 8e6 bytes join the whole sectors (2.5e5 at 2 ps:
// 0.5 us of L2 traffic), and each merged pair of pieces (2.5e5 pairs) frees a request and a sector slot in the
// crossbar: 2e6 -> 1.5e6 slots at 1 ps. The next-store rule, which would merge a quarter, gives way to the count.
// Given every piece as its own write (1e6): nothing merged; past the bounds: clamped to 0 and 1.
TEST(Cost, GivenL2WriteSectorsChargeTheMergedPiecesAsWhole) {
  DeviceProfile p = toy();
  p.cost.l2_write_slot_ps = 1;
  p.cost.next_store_merge_warps = 2;
  p.cost.next_store_merge_stores = 2;
  KernelCounts k = base_counts();
  k.threads_per_block = 64;
  k.partial_store_requests[kLanes4] = 1e6;
  k.partial_store_bytes[kLanes4] = 1.6e7;
  k.partial_store_sectors = 1e6;
  k.half_sector_piece_bytes = 1.6e7;
  k.l2_write_slots = 2e6;
  k.dram_write_bytes = 1.6e7;
  k.global_store_instructions = 800;
  k.next_store_pair_share = 0.25;
  PredictOptions o;
  o.l2_write_sectors = 7.5e5;
  const Prediction given = predict(k, p, o);
  EXPECT_DOUBLE_EQ(given.given_merged_piece_share, 0.5);
  EXPECT_DOUBLE_EQ(given.next_store_merged_share, 0.0);
  EXPECT_NEAR(given.term(kTermPartial), 5.0, 1e-9);
  EXPECT_NEAR(given.term(kTermL2), 0.5, 1e-9);
  EXPECT_NEAR(given.term(kTermWrites), 1.5, 1e-9);
  // The same count carried by the record (memsim-calibrate's runs) instead of the option.
  KernelCounts carried = k;
  carried.l2_write_sectors_given = 7.5e5;
  EXPECT_NEAR(predict(carried, p).term(kTermPartial), 5.0, 1e-9);
  o.l2_write_sectors = 1e6;
  EXPECT_DOUBLE_EQ(predict(k, p, o).given_merged_piece_share, 0.0);
  EXPECT_NEAR(predict(k, p, o).term(kTermPartial), 10.0, 1e-9);
  EXPECT_TRUE(predict(k, p, o).caveats.empty());
  const auto says = [](const Prediction& pr, const std::string& words) {
    for (const std::string& c : pr.caveats)
      if (c.find(words) != std::string::npos) return true;
    return false;
  };
  o.l2_write_sectors = 2e6;  // more writes than the 1e6 pieces sent: none merged, and said
  EXPECT_DOUBLE_EQ(predict(k, p, o).given_merged_piece_share, 0.0);
  EXPECT_TRUE(says(predict(k, p, o), "the L2 sector writes given (2000000) are more than the 1000000 sectors"));
  o.l2_write_sectors = 1e5;  // fewer than the 5e5 whole sectors the bytes fill: all merged, and said
  EXPECT_DOUBLE_EQ(predict(k, p, o).given_merged_piece_share, 1.0);
  EXPECT_NEAR(predict(k, p, o).term(kTermPartial), 0.0, 1e-9);
  EXPECT_TRUE(says(predict(k, p, o), "the L2 sector writes given (100000) are fewer than the 500000 sectors"));
  o.l2_write_sectors = 5e5;  // exactly the fewest: every piece merged, nothing said
  EXPECT_DOUBLE_EQ(predict(k, p, o).given_merged_piece_share, 1.0);
  EXPECT_FALSE(says(predict(k, p, o), "the L2 sector writes given"));
  // Not given: the next-store rule, a quarter.
  EXPECT_DOUBLE_EQ(predict(k, p).given_merged_piece_share, -1.0);
  EXPECT_DOUBLE_EQ(predict(k, p).next_store_merged_share, 0.25);
}

// The drain table (memsim-microbench --drain-merges) decides how many of a warp's next-store pairs merge, for lanes
// of 2 and 4 bytes. 2-byte lanes, staged, the table 0.5 everywhere: 0.8 of the pieces' bytes are such pairs, so
// 0.4 of the pieces merge (2e5 writes saved of 1e6), and the partial-store term falls from 10 to 6 us. 4-byte
// lanes, direct, a table of 0.1 per warps step + 0.01 per stores step: 7 warps a block (between 6 and 8, the 6th
// and 7th rows) and 4 stores a warp (log2 4 = 2, halfway between 2 and 8) give (0.505 + 0.605) / 2 = 0.555.
// Without the table (or for 8-byte lanes) the rule for small blocks alone, which does not apply here: nothing.
TEST(Cost, DrainTableMergesAWarpsNextStorePairs) {
  DeviceProfile p = toy();
  p.cost.has_drain_merges = true;
  for (double& v : p.cost.drain_merges[0][1]) v = 0.5;
  for (int w = 0; w < 10; ++w)
    for (int st = 0; st < 3; ++st) p.cost.drain_merges[1][0][3 * w + st] = 0.1 * w + 0.01 * st;
  KernelCounts k = base_counts();  // 200 blocks of 8 warps
  k.partial_store_requests[kLanes4] = 1e6;
  k.partial_store_bytes[kLanes4] = 1.6e7;
  k.partial_store_sectors = 1e6;
  k.narrow_lane_piece_bytes = 1.6e7;
  k.next_store_pair_share = 0.8;
  k.shared_bytes_per_block = 1024;
  k.global_store_instructions = 800;
  k.dram_write_bytes = 1.6e7;
  const Prediction staged = predict(k, p);
  EXPECT_NEAR(staged.next_store_merged_share, 0.4, 1e-12);
  EXPECT_NEAR(staged.term(kTermPartial), 6.0, 1e-9);
  EXPECT_DOUBLE_EQ(staged.given_merged_piece_share, -1.0);
  EXPECT_NEAR(predict(k, toy()).term(kTermPartial), 10.0, 1e-9);  // no table
  KernelCounts direct = k;
  direct.narrow_lane_piece_bytes = 0;  // 4-byte lanes
  direct.shared_bytes_per_block = 0;
  direct.next_store_pair_share = 1;
  direct.threads_per_block = 224;  // 7 warps
  direct.global_store_instructions = 4 * direct.warps();
  EXPECT_NEAR(predict(direct, p).next_store_merged_share, 0.555, 1e-9);
  KernelCounts wide = direct;  // lanes of 8 bytes: the table does not speak for them
  wide.partial_store_requests[kLanes4] = 0, wide.partial_store_bytes[kLanes4] = 0;
  wide.partial_store_requests[kLanes8] = 1e6, wide.partial_store_bytes[kLanes8] = 1.6e7;
  EXPECT_DOUBLE_EQ(predict(wide, p).next_store_merged_share, 0.0);
}

TEST(Cost, BlockSchedulingIsPerBlockOverheadInRounds) {
  DeviceProfile p = toy();
  p.cost.block_us = 0.2;
  KernelCounts k = base_counts();  // 200 blocks, 8 per SM fit (2048 threads / 256): 800 slots, one round
  EXPECT_NEAR(predict(k, p).term(kTermBlock), 0.2, 1e-12);
  k.blocks = 8000;  // 8000 / 800 = 10 rounds of 0.2 us
  Prediction pr = predict(k, p);
  EXPECT_NEAR(pr.term(kTermBlock), 2.0, 1e-12);
  EXPECT_NEAR(pr.time_us, 3.0 + 2.0, 1e-12);  // launch + block scheduling (nothing else)
  EXPECT_EQ(pr.bottleneck, kTermLaunch);        // 2 us < 3 us of launch
  k.blocks = 24000;                             // 30 rounds: 6 us, now the larger
  pr = predict(k, p);
  EXPECT_NEAR(pr.time_us, 3.0 + 6.0, 1e-12);
  EXPECT_EQ(pr.bottleneck, kTermBlock);
  // The same threads in 64-thread blocks: 32 blocks per SM (the block limit), 3200 slots, 32000 blocks:
  // 10 rounds again; in 1024-thread blocks (2 per SM, 200 slots, 2000 blocks) also 10.
  k.blocks = 32000, k.threads_per_block = 64;
  EXPECT_NEAR(predict(k, p).term(kTermBlock), 2.0, 1e-12);
  k.blocks = 2000, k.threads_per_block = 1024;
  EXPECT_NEAR(predict(k, p).term(kTermBlock), 2.0, 1e-12);
  // 128 threads per block: 16 per SM, 1600 slots; 32000 blocks = 20 rounds = 4 us.
  k.blocks = 32000, k.threads_per_block = 128;
  EXPECT_NEAR(predict(k, p).term(kTermBlock), 4.0, 1e-12);
  p.cost.block_us = 0;  // a profile without the term predicts as before
  EXPECT_EQ(predict(k, p).term(kTermBlock), 0.0);
}

TEST(Cost, EachBarrierLengthensTheBlockHold) {
  DeviceProfile p = toy();
  p.cost.block_us = 0.2;
  p.cost.barrier_us = 0.05;
  KernelCounts k = base_counts();
  k.blocks = 8000;  // 10 rounds of 800 slots
  EXPECT_NEAR(predict(k, p).term(kTermBlock), 10 * 0.2, 1e-12);  // no barrier: as before
  k.barriers_per_block = 1;
  EXPECT_NEAR(predict(k, p).term(kTermBlock), 10 * (0.2 + 0.05), 1e-12);
  k.barriers_per_block = 3;
  EXPECT_NEAR(predict(k, p).term(kTermBlock), 10 * (0.2 + 3 * 0.05), 1e-12);
  p.cost.block_us = 0;  // the barrier part alone still counts
  EXPECT_NEAR(predict(k, p).term(kTermBlock), 10 * 3 * 0.05, 1e-12);
}

// A block's slot waits for its slowest warp's loads: block_drain_rounds x latency_us a doubling of the warps
// a block, in every round of blocks; none for blocks that load nothing.
TEST(Cost, BigBlocksWaitForTheirLastWarp) {
  DeviceProfile p = toy();
  p.cost.block_drain_rounds = 0.1;  // x 0.5 us latency: 0.05 us a doubling
  KernelCounts k = base_counts();
  k.blocks = 8000;  // 256 threads, 8 warps: 8 per SM, 800 slots, 10 rounds
  EXPECT_EQ(predict(k, p).term(kTermBlock), 0.0);  // no loads, no drain
  k.global_load_instructions = 8000 * 8;            // one a warp
  EXPECT_NEAR(predict(k, p).term(kTermBlock), 10 * 3 * 0.05, 1e-12);  // log2 8 = 3
  // The same threads in 1024-thread blocks: 2 per SM, 200 slots, 2000 blocks, 10 rounds of log2 32 = 5.
  k.blocks = 2000, k.threads_per_block = 1024;
  EXPECT_NEAR(predict(k, p).term(kTermBlock), 10 * 5 * 0.05, 1e-12);
  // One warp a block waits for no other: 32 per SM (the block limit) of 32 threads, 3200 slots.
  k.blocks = 32000, k.threads_per_block = 32;
  EXPECT_EQ(predict(k, p).term(kTermBlock), 0.0);
  // A partial warp counts as a warp: 48 threads are 2 warps, log2 2 = 1; 32 per SM, 10 rounds.
  k.threads_per_block = 48;
  EXPECT_NEAR(predict(k, p).term(kTermBlock), 10 * 1 * 0.05, 1e-12);
}

// A block holds its slot while the shared-memory pipe serves its own wavefronts (1 cycle each on the toy's 1 GHz
// SMs: 1 ns): a round of blocks lasts that long besides block_us.
TEST(Cost, BlocksHoldTheirSlotForTheirOwnSharedWavefronts) {
  DeviceProfile p = toy();
  KernelCounts k = base_counts();
  k.blocks = 8000;  // 256 threads: 8 per SM, 800 slots, 10 rounds
  k.shared_wavefronts = 8000 * 300.0;  // 300 a block: 0.3 us a block
  EXPECT_NEAR(predict(k, p).term(kTermBlock), 10 * 0.3, 1e-12);
  p.cost.block_us = 0.2;
  EXPECT_NEAR(predict(k, p).term(kTermBlock), 10 * (0.2 + 0.3), 1e-12);
  // The same wavefronts in 1024-thread blocks: 2 per SM, 200 slots, 2000 blocks of 1200 wavefronts (1.2 us):
  // 10 rounds of 1.4 us. The SM's pipe alone (the L1 term) takes 8000 x 300 / 100 SMs = 24,000 ns either way.
  k.blocks = 2000, k.threads_per_block = 1024;
  const Prediction big = predict(k, p);
  EXPECT_NEAR(big.term(kTermBlock), 10 * (0.2 + 1.2), 1e-12);
  EXPECT_NEAR(big.term(kTermL1), 24.0, 1e-9);
  // Global wavefronts are not the block's own shared work: they leave the hold alone.
  k.shared_wavefronts = 0, k.l1_global_wavefronts = 2000 * 1200.0;
  EXPECT_NEAR(predict(k, p).term(kTermBlock), 10 * 0.2, 1e-12);
}

// The GPU starts blocks block_launch_ns apart: a floor under the overlapped terms, which run behind it.
TEST(Cost, BlockLaunchRateIsAFloor) {
  DeviceProfile p = toy();
  p.cost.block_launch_ns = 0.5;
  p.cost.overlap_p = 2;
  KernelCounts k = base_counts();
  k.blocks = 100000;         // 100000 x 0.5 ns = 50 us
  k.dram_read_bytes = 30e6;  // 30 us
  Prediction pr = predict(k, p);
  EXPECT_NEAR(pr.term(kTermBlockLaunch), 50.0, 1e-9);
  EXPECT_NEAR(pr.time_us, 3.0 + 50.0, 1e-9);  // not sqrt(50^2 + 30^2): the DRAM work hides behind it
  EXPECT_EQ(pr.bottleneck, kTermBlockLaunch);
  EXPECT_NEAR(pr.bottleneck_us, 50.0, 1e-9);  // the floor itself: 50 of 53 us
  k.dram_read_bytes = 40e6, k.dram_write_bytes = 20e6;  // 60 us of DRAM now: the floor is under it
  pr = predict(k, p);
  EXPECT_NEAR(pr.time_us, 3.0 + 60.0, 1e-9);
  EXPECT_EQ(pr.bottleneck, kTermDram);
  p.cost.block_launch_ns = 0;  // a profile without the rate: no such term
  EXPECT_EQ(predict(k, p).term(kTermBlockLaunch), 0.0);
}

TEST(Cost, BlockSchedulingAddsToLatencyBeforeTheOverlap) {
  DeviceProfile p = toy();
  p.cost.block_us = 0.25;
  p.cost.overlap_p = 2;
  KernelCounts k = waiting_warps();
  k.dram_read_bytes = 60e6;             // 60 us
  const Prediction pr = predict(k, p);
  EXPECT_NEAR(pr.term(kTermLatency), 64.0, 1e-9);
  EXPECT_NEAR(pr.term(kTermBlock), 8.0, 1e-9);  // 32 rounds x 0.25 us
  // Residency = 64 + 8 = 72 us, overlapping DRAM's 60: sqrt(72^2 + 60^2) = sqrt(8784), plus launch.
  EXPECT_NEAR(pr.time_us, 3.0 + std::sqrt(72.0 * 72.0 + 60.0 * 60.0), 1e-9);
  EXPECT_EQ(pr.bottleneck, kTermLatency);  // the larger part of the residency names it
  // Its time is the residency's, 72 us, with block scheduling named beside it: 72 / (3 + sqrt(8784)).
  EXPECT_NEAR(pr.bottleneck_us, 72.0, 1e-9);
  EXPECT_EQ(pr.bottleneck_with, kTermBlock);
  EXPECT_NEAR(pr.bottleneck_share(), 72.0 / (3.0 + std::sqrt(8784.0)), 1e-12);
  // Four times the blocks for the same loads (1 per warp): latency stays 64 us, block scheduling 4 x 8.
  k.blocks = 102400;
  const Prediction q = predict(k, p);
  EXPECT_NEAR(q.term(kTermLatency), 64.0, 1e-9);
  EXPECT_NEAR(q.term(kTermBlock), 32.0, 1e-9);
  EXPECT_NEAR(q.time_us, 3.0 + std::sqrt(96.0 * 96.0 + 60.0 * 60.0), 1e-9);
}

// The L2 finishes partly written sectors while the warps wait out their loads: the partial stores and the
// residency overlap fully, and only the larger of the two joins the p-norm with the other terms.
TEST(Cost, PartialStoresHideBehindWaitingWarps) {
  DeviceProfile p = toy();
  p.cost.overlap_p = 2;
  KernelCounts k = waiting_warps();
  k.dram_read_bytes = 60e6;                  // 60 us
  k.partial_store_requests[kLanes4] = 5e6;   // 50 us, under the residency's 64: hidden
  Prediction pr = predict(k, p);
  EXPECT_NEAR(pr.term(kTermPartial), 50.0, 1e-9);
  EXPECT_NEAR(pr.time_us, 3.0 + std::sqrt(64.0 * 64.0 + 60.0 * 60.0), 1e-9);  // as without the stores
  EXPECT_EQ(pr.bottleneck, kTermLatency);
  k.partial_store_requests[kLanes4] = 8e6;  // 80 us, over 64: the stores take the residency's place
  pr = predict(k, p);
  EXPECT_NEAR(pr.time_us, 3.0 + std::sqrt(80.0 * 80.0 + 60.0 * 60.0), 1e-9);  // 3 + 100
  EXPECT_EQ(pr.bottleneck, kTermPartial);
  EXPECT_NEAR(pr.bottleneck_us, 80.0, 1e-9);  // the stores alone: 80 of 103 us
  EXPECT_TRUE(pr.bottleneck_with.empty());
  k.global_load_instructions = 0;  // nothing to wait for: the stores overlap DRAM as every term does
  pr = predict(k, p);
  EXPECT_NEAR(pr.time_us, 3.0 + 100.0, 1e-9);
}

TEST(Cost, TermsCombineAsPNorm) {
  DeviceProfile p = toy();
  p.cost.overlap_p = 2;
  KernelCounts k = base_counts();
  k.dram_read_bytes = 3e6;            // 3 us
  k.l2_load_sectors = 2e6;            // 4 us
  const Prediction pr = predict(k, p);
  EXPECT_NEAR(pr.time_us, 3.0 + 5.0, 1e-9);  // launch + sqrt(3^2 + 4^2)
  EXPECT_EQ(pr.bottleneck, kTermL2);
}

// The p-norm stays finite where t^p alone would overflow a double: 1e6 us terms at p = 200 (1e1200).
TEST(Cost, LargeTermsAndLargePStayFinite) {
  DeviceProfile p = toy();
  p.cost.overlap_p = 200;
  KernelCounts k = base_counts();
  k.dram_read_bytes = 1e12;    // 1e6 us
  k.l2_load_sectors = 5e11;    // 1e6 us
  const Prediction pr = predict(k, p);
  ASSERT_TRUE(std::isfinite(pr.time_us));
  EXPECT_NEAR(pr.time_us, 3.0 + 1e6 * std::pow(2.0, 1.0 / 200), 1e-3);  // launch + 2^(1/p) x the term
}

TEST(Cost, LaunchOverheadNamedWhenItDominates) {
  KernelCounts k = base_counts();
  k.dram_read_bytes = 1e6;  // 1 us < 3 us launch
  const Prediction p = predict(k, toy());
  EXPECT_EQ(p.bottleneck, kTermLaunch);
  EXPECT_NEAR(p.time_us, 4.0, 1e-9);
  EXPECT_NEAR(p.bottleneck_us, 3.0, 1e-9);  // 3 of 4 us
  EXPECT_NEAR(p.bottleneck_share(), 0.75, 1e-12);
}

TEST(Cost, JsonHasTheReportKeys) {
  KernelCounts k = base_counts();
  k.dram_read_bytes = 1e9;
  k.useful_bytes = 1e9;
  Prediction p = predict(k, toy());
  p.fraction_of_copy = 0.5;
  const nlohmann::ordered_json j = to_json(p);
  for (const char* key : {"device", "time_us", "effective_bandwidth_gbs", "fraction_of_copy", "bottleneck",
                          "bottleneck_us", "bottleneck_share", "terms_us", "instructions", "instructions_basis"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["device"], "toy");
  EXPECT_NEAR(j["terms_us"][kTermDram].get<double>(), 1000.0, 1e-9);
  EXPECT_NEAR(j["bottleneck_share"].get<double>(), 1000.0 / 1003.0, 1e-12);
  EXPECT_FALSE(j.contains("bottleneck_with"));  // DRAM alone, no residency
}

TEST(Cost, JsonSaysAnAssumedPartitionMappingOnce) {
  DeviceProfile p = toy();
  p.partitions.assumed = true;
  const Prediction pr = predict(base_counts(), p);
  p.partitions.note = "assumed: no published hash";
  EXPECT_EQ(to_json(pr, &p)["partition_mapping"], "assumed: no published hash");
  p.partitions.note = "a stand-in hash";
  EXPECT_EQ(to_json(pr, &p)["partition_mapping"], "assumed: a stand-in hash");
  p.partitions.assumed = false;
  EXPECT_FALSE(to_json(pr, &p).contains("partition_mapping"));
}

}  // namespace
}  // namespace memsim
