// Address-to-partition policies and the block schedule, checked on addresses and launches worked out by hand.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "sim/partitions.hpp"

namespace memsim {
namespace {

// ---------------------------------------------------------------------------------------------------------
// Linear interleave

TEST(LinearPartitions, Gt200EightChunksOf256Bytes) {
  const PartitionSpec s = gt200_partitions();
  EXPECT_EQ(s.count, 8);
  EXPECT_EQ(s.granularity_bytes, 256);
  EXPECT_FALSE(s.assumed);
  EXPECT_EQ(partition_of(s, 0), 0);
  EXPECT_EQ(partition_of(s, 255), 0);   // last byte of chunk 0
  EXPECT_EQ(partition_of(s, 256), 1);   // chunk 1
  EXPECT_EQ(partition_of(s, 1791), 6);  // 1791 / 256 = 6
  EXPECT_EQ(partition_of(s, 1792), 7);  // chunk 7
  EXPECT_EQ(partition_of(s, 2048), 0);  // chunk 8 wraps: every 2048 B (512 floats) the same partition
  // Whitepaper: in a 2048-float row (8192 B), a column of the matrix stays on one partition.
  EXPECT_EQ(partition_of(s, 5 * 8192 + 300), partition_of(s, 300));  // 300 / 256 = 1
  EXPECT_EQ(partition_of(s, 300), 1);
  // 2^32 + 16 MiB (where the replay puts the output) is a multiple of 2048: partition 0.
  EXPECT_EQ(partition_of(s, (uint64_t(1) << 32) + (uint64_t(16) << 20)), 0);
}

TEST(LinearPartitions, G80SixChunksOf256Bytes) {
  const PartitionSpec s = g80_partitions();
  EXPECT_EQ(s.count, 6);
  EXPECT_EQ(partition_of(s, 1535), 5);  // chunk 5
  EXPECT_EQ(partition_of(s, 1536), 0);  // chunk 6 wraps
  EXPECT_EQ(partition_of(s, 2048), 2);  // chunk 8 = 6 + 2
  // An 8192-byte row is 32 chunks = 5 x 6 + 2: the next row's column moves on by 2 partitions.
  EXPECT_EQ(partition_of(s, 8192), 2);
  EXPECT_EQ(partition_of(s, 2 * 8192), 4);
  EXPECT_EQ(partition_of(s, 3 * 8192), 0);
}

TEST(LinearPartitions, OtherGranularity) {
  const PartitionSpec s = linear_partitions(4, 1024, "test");
  EXPECT_EQ(partition_of(s, 1023), 0);
  EXPECT_EQ(partition_of(s, 1024), 1);
  EXPECT_EQ(partition_of(s, 4096 + 3 * 1024 + 5), 3);
  EXPECT_EQ(partition_of(s, 4 * 4096), 0);
}

// ---------------------------------------------------------------------------------------------------------
// XOR hash

TEST(XorPartitions, FoldsChosenBitsIntoTheIndex) {
  PartitionSpec s;
  s.policy = PartitionSpec::Policy::XorHash;
  s.count = 8;
  s.granularity_bytes = 256;
  s.xor_bits = {11, 12, 13};  // bit 11 -> index bit 0, 12 -> 1, 13 -> 2
  // 0x800 = 2048: chunk 8, 8 mod 8 = 0; bit 11 set -> fold 1 -> partition 1 (linear would say 0).
  EXPECT_EQ(partition_of(s, 0x800), 1);
  // 6400 = 4096 + 2048 + 256: chunk 25 (25 mod 8 = 1); bits 12 and 11 set -> fold 0b011 -> 1 ^ 3 = 2.
  EXPECT_EQ(partition_of(s, 6400), 2);
  // 8192 = bit 13: chunk 32 (mod 8 = 0); fold 0b100 -> 4.
  EXPECT_EQ(partition_of(s, 8192), 4);
  // Below bit 11 the hash is the linear interleave.
  EXPECT_EQ(partition_of(s, 3 * 256 + 17), 3);
}

TEST(XorPartitions, MoreBitsThanIndexBitsFoldCyclically) {
  PartitionSpec s;
  s.policy = PartitionSpec::Policy::XorHash;
  s.count = 4;  // 2 index bits
  s.granularity_bytes = 256;
  s.xor_bits = {10, 11, 12};  // 10 -> bit 0, 11 -> bit 1, 12 -> bit 0 again
  // 4096 = bit 12: chunk 16 (mod 4 = 0); fold = 1 (bit 12 -> bit 0) -> partition 1.
  EXPECT_EQ(partition_of(s, 4096), 1);
  // 4096 + 1024 = bits 12 and 10: both fold to bit 0 and cancel; chunk 20 mod 4 = 0 -> 0.
  EXPECT_EQ(partition_of(s, 5120), 0);
  // 2048 = bit 11: chunk 8 (mod 4 = 0), fold 0b10 -> 2.
  EXPECT_EQ(partition_of(s, 2048), 2);
}

TEST(XorPartitions, NonPowerOfTwoCountFoldsThenTakesTheModulus) {
  PartitionSpec s;
  s.policy = PartitionSpec::Policy::XorHash;
  s.count = 6;  // 3 index bits
  s.granularity_bytes = 256;
  s.xor_bits = {16};
  // 65536 = bit 16: chunk 256; fold 1 -> 257 mod 6 = 5 (linear: 256 mod 6 = 4).
  EXPECT_EQ(partition_of(s, 65536), 5);
  EXPECT_EQ(partition_of(linear_partitions(6, 256, ""), 65536), 4);
}

TEST(AssumedPartitions, MarkedAssumedAndSpreadsCampingStrides) {
  const PartitionSpec s = assumed_hashed_partitions(8, 256);
  EXPECT_TRUE(s.assumed);
  EXPECT_NE(s.note.find("assumed"), std::string::npos);
  EXPECT_EQ(s.policy, PartitionSpec::Policy::XorHash);
  // Bits above the interleave: 256 B = bit 8, 3 index bits -> bits 11..33.
  ASSERT_FALSE(s.xor_bits.empty());
  EXPECT_EQ(s.xor_bits.front(), 11);
  EXPECT_EQ(s.xor_bits.back(), 33);
  // The stride that camps on GT200 (2048 B): addresses k * 2048 for k = 0..7 have bits 11..13 = k, so they
  // land on partitions 0..7, one each.
  std::set<int> seen;
  for (uint64_t k = 0; k < 8; ++k) seen.insert(partition_of(s, k * 2048));
  EXPECT_EQ(seen.size(), 8u);
  // A column of a 2048-float matrix (stride 8192 = bit 13 steps): k * 8192 for k = 0..7 has bits 13..15 = k;
  // bit 13 -> index bit 2, 14 -> 0, 15 -> 1: all 8 distinct again.
  seen.clear();
  for (uint64_t k = 0; k < 8; ++k) seen.insert(partition_of(s, k * 8192));
  EXPECT_EQ(seen.size(), 8u);
}

TEST(PartitionSpecCheck, RejectsUnusableSpecs) {
  EXPECT_EQ(check_partition_spec(gt200_partitions()), "");
  PartitionSpec s = gt200_partitions();
  s.count = 0;
  EXPECT_NE(check_partition_spec(s), "");
  s = gt200_partitions();
  s.granularity_bytes = 0;
  EXPECT_NE(check_partition_spec(s), "");
  s = gt200_partitions();
  s.xor_bits = {64};
  EXPECT_NE(check_partition_spec(s), "");
  EXPECT_THROW(PartitionTrafficSink(s, block_schedule(10, 4)), std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------------------
// Block schedule

TEST(BlockSchedule, ResidentBlocksIsSmsTimesOccupancyCappedByTheLaunch) {
  EXPECT_EQ(resident_blocks(30, 4, 4096), 120);  // GT200, 256-thread blocks: 4 per SM by threads
  EXPECT_EQ(resident_blocks(30, 3, 4096), 90);
  EXPECT_EQ(resident_blocks(30, 4, 50), 50);  // small launch: all blocks at once
  EXPECT_EQ(resident_blocks(0, 0, 10), 1);
}

TEST(BlockSchedule, WavesWhenStepIsR) {
  // 10 blocks, 4 resident, step 0 -> 4: windows [0,4) [4,8) [8,10).
  const BlockSchedule s = block_schedule(10, 4);
  EXPECT_EQ(s.step, 4);
  ASSERT_EQ(window_count(s), 3);
  EXPECT_EQ(window_blocks(s, 0).first, 0);
  EXPECT_EQ(window_blocks(s, 0).last, 4);
  EXPECT_EQ(window_blocks(s, 1).first, 4);
  EXPECT_EQ(window_blocks(s, 2).first, 8);
  EXPECT_EQ(window_blocks(s, 2).last, 10);
  // GT200 whitepaper launch: 4096 blocks, 120 resident: ceil(4096 / 120) = 35 waves, the last of 16 blocks.
  const BlockSchedule g = block_schedule(4096, 120);
  EXPECT_EQ(window_count(g), 35);
  EXPECT_EQ(window_blocks(g, 34).first, 4080);
  EXPECT_EQ(window_blocks(g, 34).size(), 16);
}

TEST(BlockSchedule, SlidingWindows) {
  // Step 1: a window after each retirement, until the last block has started: [0,4) .. [6,10) = 7 windows.
  const BlockSchedule s = block_schedule(10, 4, 1);
  ASSERT_EQ(window_count(s), 7);
  EXPECT_EQ(window_blocks(s, 6).first, 6);
  EXPECT_EQ(window_blocks(s, 6).last, 10);
  // Step 3: 1 + ceil(6 / 3) = 3 windows: [0,4) [3,7) [6,10).
  const BlockSchedule t = block_schedule(10, 4, 3);
  ASSERT_EQ(window_count(t), 3);
  EXPECT_EQ(window_blocks(t, 1).first, 3);
  EXPECT_EQ(window_blocks(t, 1).last, 7);
  EXPECT_EQ(window_blocks(t, 2).last, 10);
  // Step 4 with 11 blocks: 1 + ceil(7 / 4) = 3: [0,4) [4,8) [8,11) (the drain shrinks nothing here).
  EXPECT_EQ(window_count(block_schedule(11, 4, 4)), 3);
  // Step above R is capped to R; R above the launch to the launch.
  EXPECT_EQ(block_schedule(10, 4, 9).step, 4);
  const BlockSchedule small = block_schedule(3, 120);
  EXPECT_EQ(small.resident, 3);
  EXPECT_EQ(window_count(small), 1);
  EXPECT_EQ(window_count(block_schedule(0, 4)), 0);
}

}  // namespace
}  // namespace memsim
