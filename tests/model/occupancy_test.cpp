// Occupancy worked by hand from the CUDA occupancy calculator's rules (limits per compute capability).
#include <gtest/gtest.h>

#include <string>

#include "model/occupancy.hpp"

namespace memsim {
namespace {

TEST(Occupancy, H100ThreadLimit) {
  // 256 threads = 8 warps: 64 / 8 = 8 blocks. Registers: 32 x 32 = 1024 per warp, 65536 / 1024 = 64 warps
  // = 8 blocks (a tie). Shared: 4224 (a multiple of 128) + 1024 reserved = 5248; 233472 / 5248 = 44.
  const DeviceProfile h100 = load_profile("h100");
  const Occupancy o = occupancy(h100, {256, 4224, 32});
  EXPECT_EQ(o.blocks_per_sm, 8);
  EXPECT_EQ(o.by_warps, 8);
  EXPECT_EQ(o.by_registers, 8);
  EXPECT_EQ(o.by_shared, 44);
  EXPECT_EQ(o.by_blocks, 32);
  EXPECT_EQ(o.limiter, "threads");
  EXPECT_EQ(o.resident_warps(), 64);
}

TEST(Occupancy, H100SharedLimit) {
  // 48 KiB + 1 KiB reserved = 50176 per block; 233472 / 50176 = 4.65 -> 4.
  const Occupancy o = occupancy(load_profile("h100"), {256, 49152, 32});
  EXPECT_EQ(o.blocks_per_sm, 4);
  EXPECT_EQ(o.limiter, "shared memory");
  // 4225 bytes round up to 4352 (34 x 128): + 1024 = 5376; 233472 / 5376 = 43.4 -> 43.
  EXPECT_EQ(occupancy(load_profile("h100"), {256, 4225, 32}).by_shared, 43);
}

TEST(Occupancy, H100RegisterLimit) {
  const DeviceProfile h100 = load_profile("h100");
  // 48 registers: 1536 per warp; 65536 / 1536 = 42.7 -> 42 warps, in groups of 4 -> 40; 40 / 8 = 5 blocks.
  const Occupancy o48 = occupancy(h100, {256, 0, 48});
  EXPECT_EQ(o48.blocks_per_sm, 5);
  EXPECT_EQ(o48.limiter, "registers");
  // 38 registers: 1216 rounds up to 1280 per warp; 65536 / 1280 = 51.2 -> 51 -> 48 warps; 6 blocks.
  EXPECT_EQ(occupancy(h100, {256, 0, 38}).blocks_per_sm, 6);
  // 255 registers: 8160 -> 8192 per warp, 8 warps per SM: a 1024-thread block (32 warps) does not fit.
  EXPECT_EQ(occupancy(h100, {1024, 0, 255}).blocks_per_sm, 0);
}

// The runtime's carve-out: the smallest of sm_90's (0, 8, 16, 32, 64, 100, 132, 164, 196, 228 KiB) that holds the
// resident blocks' shared memory and reserve; the L1 is the rest of the SM's 256 KiB. The first two are the
// cut_lines probe's 24x4 and 24x8 blocks on a 48x48 f64 tile (18 KiB), whose carve-outs Nsight Compute's
// occupancy limits confirm (12 and 10 blocks).
TEST(Occupancy, H200CarveoutAndTheL1BesideIt) {
  const DeviceProfile h200 = load_profile("h200");
  struct Case {
    BlockResources block;
    int blocks, carveout_kb, l1_kb;
  };
  const Case cases[] = {
      // 96 threads, 18432 + 1024 = 19456 bytes a block: 233472 / 19456 = 12 blocks, exactly the 228 KiB carve-out.
      {{96, 18432, 32}, 12, 228, 28},
      // 192 threads: 10 blocks by warps, 194560 bytes: the 196 KiB carve-out (200704), 60 KiB of L1.
      {{192, 18432, 32}, 10, 196, 60},
      // No shared memory: 8 blocks of 256 threads still take their reserve, 8 KiB: the 8 KiB carve-out.
      {{256, 0, 32}, 8, 8, 248},
      // 224 threads: 9 blocks by warps, of 11264 + 1024 = 12288 bytes: 108 KiB, past 100: the 132 KiB carve-out.
      {{224, 11264, 32}, 9, 132, 124},
  };
  for (const Case& c : cases) {
    const Occupancy o = occupancy(h200, c.block);
    const std::string what = std::to_string(c.block.threads) + " threads, " + std::to_string(c.block.shared_bytes) + " B";
    EXPECT_EQ(o.blocks_per_sm, c.blocks) << what;
    EXPECT_EQ(o.shared_carveout, c.carveout_kb * 1024) << what;
    EXPECT_EQ(o.l1_bytes, c.l1_kb * 1024) << what;
  }
  // A profile that does not say how its L1 and shared memory split: neither is worked out.
  const Occupancy gtx = occupancy(load_profile("gtx280"), {256, 4224, 16});
  EXPECT_EQ(gtx.shared_carveout, 0);
  EXPECT_EQ(gtx.l1_bytes, 0);
}

TEST(Occupancy, H100BlockSlotLimit) {
  // One warp per block: 64 warps allow 64 blocks, the SM holds at most 32.
  const Occupancy o = occupancy(load_profile("h100"), {32, 0, 16});
  EXPECT_EQ(o.blocks_per_sm, 32);
  EXPECT_EQ(o.limiter, "blocks");
}

TEST(Occupancy, Gtx280PerBlockRegistersAndSharedGranularity) {
  // CC 1.3: 256 threads = 8 warps (a multiple of 2); registers 16 x 32 x 8 = 4096 per block (a multiple of
  // 512): 16384 / 4096 = 4. Threads: 1024 / 256 = 4. Shared: 4224 rounds up to 4608 (9 x 512):
  // 16384 / 4608 = 3.6 -> 3 blocks, limited by shared memory.
  const Occupancy o = occupancy(load_profile("gtx280"), {256, 4224, 16});
  EXPECT_EQ(o.by_warps, 4);
  EXPECT_EQ(o.by_registers, 4);
  EXPECT_EQ(o.by_shared, 3);
  EXPECT_EQ(o.blocks_per_sm, 3);
  EXPECT_EQ(o.limiter, "shared memory");
  // 96 threads = 3 warps, allocated as 4 for registers: 22 x 32 x 4 = 2816 -> 3072 (6 x 512): 16384 / 3072 = 5.
  EXPECT_EQ(occupancy(load_profile("gtx280"), {96, 0, 22}).by_registers, 5);
}

TEST(Occupancy, BlockTooLargeForDevice) {
  EXPECT_EQ(occupancy(load_profile("8800gtx"), {1024, 0, 16}).blocks_per_sm, 0);
  // Each per-block limit alone leaves none resident and is named: 1024 threads over G80's 512, 255 registers
  // over the H100's 255 (256), 232449 bytes over its 232448 opt-in.
  EXPECT_EQ(occupancy(load_profile("8800gtx"), {1024, 0, 16}).limiter, "threads");
  const DeviceProfile h100 = load_profile("h100");
  const Occupancy regs = occupancy(h100, {32, 0, 256});
  EXPECT_EQ(regs.blocks_per_sm, 0);
  EXPECT_EQ(regs.limiter, "registers");
  const Occupancy shared = occupancy(h100, {32, 232449, 32});
  EXPECT_EQ(shared.blocks_per_sm, 0);
  EXPECT_EQ(shared.limiter, "shared memory");
  // 1024 threads x 255 registers: within each per-thread limit, but 261,120 registers > 65,536 a block.
  const Occupancy many = occupancy(h100, {1024, 0, 255});
  EXPECT_EQ(many.blocks_per_sm, 0);
  EXPECT_EQ(many.limiter, "registers");
}

TEST(Occupancy, Waves) {
  const DeviceProfile h100 = load_profile("h100");
  const Occupancy o = occupancy(h100, {256, 4224, 32});
  // 132 SMs x 8 blocks = 1056 blocks a wave; 16384 blocks (4096^2 f32, 32x32 tiles) = 15.52 waves.
  EXPECT_NEAR(waves(h100, o, 16384), 16384.0 / 1056.0, 1e-12);
}

}  // namespace
}  // namespace memsim
