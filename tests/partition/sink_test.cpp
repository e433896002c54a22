// The partition-traffic counter: hand-fed sectors, the window sums and imbalance figures worked out by hand,
// and exact merging however blocks are split among workers.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "kernels/resolve.hpp"
#include "sim/partitions.hpp"
#include "sim/replay.hpp"

namespace memsim {
namespace {

// GT200 mapping, 32-byte sectors: sector s lies in chunk s / 8, partition (s / 8) mod 8. Sector 8 * p is the
// first sector of partition p's first chunk.
uint64_t sector_on(int partition, int chunk_round = 0) { return uint64_t(8 * (partition + 8 * chunk_round)); }

TEST(PartitionSink, CountsBytesPerPartitionAndDirection) {
  PartitionTrafficSink sink(gt200_partitions(), block_schedule(4, 4));
  const uint64_t ld[] = {sector_on(0), sector_on(0) + 1, sector_on(3)};  // 2 sectors on p0, 1 on p3
  const uint64_t st[] = {sector_on(5, 7)};                              // a later round of chunks, p5
  sink.add(0, Op::Load, ld, 3);
  sink.add(2, Op::Store, st, 1);
  ASSERT_EQ(sink.group_blocks(), 4);  // gcd(4, 4)
  EXPECT_EQ(sink.bytes(0, Op::Load, 0), 64);
  EXPECT_EQ(sink.bytes(0, Op::Load, 3), 32);
  EXPECT_EQ(sink.bytes(0, Op::Store, 5), 32);
  EXPECT_EQ(sink.bytes(0, Op::Store, 0), 0);
  EXPECT_EQ(sink.bytes(7, Op::Load, 0), 0);  // a group never seen

  const PartitionTraffic t = summarize_partition_traffic(sink);
  ASSERT_EQ(t.windows, 1);
  // Loads: 96 B over 8 partitions, mean 12, max 64 -> 64 / 12 = 5.333...; stores all on one: 8.
  EXPECT_DOUBLE_EQ(t.loads.imbalance, 64.0 / 12.0);
  EXPECT_DOUBLE_EQ(t.stores.imbalance, 8.0);
  // Both: p0 64, p3 32, p5 32 = 128 B, mean 16, max 64 -> 4.
  EXPECT_DOUBLE_EQ(t.combined.imbalance, 4.0);
  // Paced: max(5.333, 8) = 8 for the window.
  EXPECT_DOUBLE_EQ(t.paced.imbalance, 8.0);
  EXPECT_EQ(t.loads.bytes, 96);
  EXPECT_EQ(t.stores.bytes, 32);
  EXPECT_EQ(t.loads.partition_bytes[0], 64);
}

TEST(PartitionSink, WindowImbalanceIsMaxOverMeanOfAllPartitions) {
  EXPECT_DOUBLE_EQ(window_imbalance({10, 10, 10, 10}), 1.0);
  EXPECT_DOUBLE_EQ(window_imbalance({40, 0, 0, 0}), 4.0);
  EXPECT_DOUBLE_EQ(window_imbalance({30, 10, 0, 0}), 3.0);  // mean 10
  EXPECT_DOUBLE_EQ(window_imbalance({0, 0, 0}), 1.0);       // no traffic: nothing camps
}

TEST(PartitionSink, OverallImbalanceIsTrafficWeighted) {
  // 4 blocks, 2 resident, waves: window 0 = blocks 0-1, window 1 = blocks 2-3.
  PartitionTrafficSink sink(linear_partitions(2, 256, ""), block_schedule(4, 2));
  // Window 0: 3 sectors on p0, 1 on p1 (block 0 and 1) -> 96 vs 32, mean 64, I = 1.5, T = 128.
  const uint64_t a[] = {0, 1, 2};  // sectors 0..2 = bytes 0..95: partition 0
  const uint64_t b[] = {8};        // bytes 256..287: partition 1
  sink.add(0, Op::Load, a, 3);
  sink.add(1, Op::Load, b, 1);
  // Window 1 (block 3): sectors 8..11 = bytes 256..383 (chunk 1) and 24..27 = bytes 768..895 (chunk 3), all
  // on p1: 256 B on one of 2 partitions -> I = 2, T = 256.
  const uint64_t c[] = {8, 9, 10, 11, 24, 25, 26, 27};
  sink.add(3, Op::Load, c, 8);
  const PartitionTraffic t = summarize_partition_traffic(sink);
  ASSERT_EQ(t.windows, 2);
  // (128 * 1.5 + 256 * 2) / 384 = (192 + 512) / 384 = 1.8333...
  EXPECT_DOUBLE_EQ(t.loads.imbalance, (128 * 1.5 + 256 * 2.0) / 384.0);
  EXPECT_DOUBLE_EQ(t.loads.worst_window, 2.0);
  EXPECT_EQ(t.kept.size(), 2u);
  EXPECT_EQ(t.kept[1].load_bytes[1], 256);
  // No stores at all: imbalance 1, bytes 0.
  EXPECT_DOUBLE_EQ(t.stores.imbalance, 1.0);
  EXPECT_EQ(t.stores.bytes, 0);
}

TEST(PartitionSink, OverlappingWindowsUseBlockGroups) {
  // 6 blocks, R = 4, step 2: G = gcd(4, 2) = 2; windows [0,4) [2,6).
  PartitionTrafficSink sink(linear_partitions(2, 256, ""), block_schedule(6, 4, 2));
  EXPECT_EQ(sink.group_blocks(), 2);
  const uint64_t p0[] = {0}, p1[] = {8};
  for (int b = 0; b < 6; ++b) sink.add(b, Op::Store, b < 2 ? p0 : p1, 1);  // blocks 0,1 on p0; 2..5 on p1
  const PartitionTraffic t = summarize_partition_traffic(sink);
  ASSERT_EQ(t.windows, 2);
  // Window 0: p0 64, p1 64 -> 1; window 1: p1 128 -> 2. Weighted: (128 * 1 + 128 * 2) / 256 = 1.5.
  EXPECT_DOUBLE_EQ(t.stores.imbalance, 1.5);
  EXPECT_EQ(t.stores.bytes, 192);  // launch bytes, not the sum over overlapping windows
  EXPECT_EQ(t.kept[0].store_bytes[0], 64);
  EXPECT_EQ(t.kept[1].store_bytes[1], 128);
}

TEST(PartitionSink, SectorsSplitWhenPartitionsAreNarrowerThanSectors) {
  // 16-byte interleave over 4 partitions: a 32-byte sector covers two partitions, 16 bytes each.
  PartitionTrafficSink sink(linear_partitions(4, 16, ""), block_schedule(1, 1));
  const uint64_t s[] = {1};  // bytes 32..63: chunks 2 and 3
  sink.add(0, Op::Load, s, 1);
  EXPECT_EQ(sink.bytes(0, Op::Load, 2), 16);
  EXPECT_EQ(sink.bytes(0, Op::Load, 3), 16);
  EXPECT_EQ(sink.bytes(0, Op::Load, 0), 0);
}

TEST(PartitionSink, DownsamplesWindowsForBigLaunches) {
  // 35 waves, at most 10 shown: every ceil(35 / 10) = 4th: windows 0, 4, ..., 32 = 9 windows.
  PartitionTrafficSink sink(gt200_partitions(), block_schedule(4096, 120));
  const PartitionTraffic t = summarize_partition_traffic(sink, 10);
  EXPECT_EQ(t.windows, 35);
  EXPECT_EQ(t.window_every, 4);
  ASSERT_EQ(t.kept.size(), 9u);
  EXPECT_EQ(t.kept.back().index, 32);
  EXPECT_EQ(t.kept.back().blocks.first, 32 * 120);
}

TEST(PartitionSink, StrayBlocksAreReportedNotCounted) {
  PartitionTrafficSink sink(gt200_partitions(), block_schedule(4, 4));
  const uint64_t s[] = {0};
  sink.add(4, Op::Load, s, 1);  // block 4 of a 4-block schedule
  EXPECT_EQ(sink.stray_sectors(), 1);
  EXPECT_THROW(summarize_partition_traffic(sink), std::logic_error);
}

// A random stream of (block, op, sectors), fed to one sink whole and to several sinks split at random block
// boundaries (and in random order): merging must give the same counts exactly.
TEST(PartitionSink, MergeIsExactForAnySplit) {
  const PartitionSpec spec = g80_partitions();
  const BlockSchedule sched = block_schedule(500, 36, 12);  // G = 12
  std::mt19937_64 rng(7);
  struct Item {
    int64_t block;
    Op op;
    std::vector<uint64_t> sectors;
  };
  std::vector<Item> items;
  for (int64_t b = 0; b < 500; ++b)
    for (int k = 0; k < 3; ++k) {
      Item it{b, (rng() & 1) ? Op::Load : Op::Store, {}};
      const int n = 1 + int(rng() % 8);
      for (int i = 0; i < n; ++i) it.sectors.push_back(rng() % 100000);
      items.push_back(it);
    }
  PartitionTrafficSink whole(spec, sched);
  for (const Item& it : items) whole.add(it.block, it.op, it.sectors.data(), int(it.sectors.size()));

  for (int trial = 0; trial < 5; ++trial) {
    // Cut points anywhere (not only at group boundaries), then merge the parts in shuffled order.
    std::vector<int64_t> cuts{0, 500};
    for (int i = 0; i < 4; ++i) cuts.push_back(int64_t(rng() % 500));
    std::sort(cuts.begin(), cuts.end());
    std::vector<std::unique_ptr<SectorSink>> parts;
    for (size_t c = 0; c + 1 < cuts.size(); ++c) {
      parts.push_back(whole.clone_empty());
      for (const Item& it : items)
        if (it.block >= cuts[c] && it.block < cuts[c + 1])
          parts.back()->add(it.block, it.op, it.sectors.data(), int(it.sectors.size()));
    }
    std::shuffle(parts.begin(), parts.end(), rng);
    auto merged = whole.clone_empty();
    for (const auto& p : parts) merged->merge_from(*p);
    const auto& m = static_cast<const PartitionTrafficSink&>(*merged);
    for (int64_t g = 0; g < 500 / 12 + 1; ++g)
      for (int p = 0; p < spec.count; ++p) {
        ASSERT_EQ(m.bytes(g, Op::Load, p), whole.bytes(g, Op::Load, p)) << "group " << g;
        ASSERT_EQ(m.bytes(g, Op::Store, p), whole.bytes(g, Op::Store, p)) << "group " << g;
      }
  }
}

// Through the replay: one worker, several workers, and hand-split ranges merged in launch order agree.
TEST(PartitionSink, ReplayWorkersMergeExactly) {
  UserConfig user;
  user.kernel = "padded";
  user.matrix = {1024, 768};
  const LaunchConfig cfg = resolve_launch(user);  // 32 x 24 = 768 blocks of 32x32
  const PartitionTrafficSink proto(gt200_partitions(), block_schedule(cfg.blocks(), 120, 40));
  ReplayOptions one;
  one.threads = 1;
  one.sector_sink_prototype = &proto;
  ReplayOptions many = one;
  many.threads = 3;  // 768 / 256 = 3 workers
  const ReplayResult a = replay(cfg, one), b = replay(cfg, many);

  // Uneven hand split: [0, 1) [1, 333) [333, 768).
  const BufferLayout layout = default_layout(cfg);
  std::vector<Tally> parts;
  for (int i = 0; i < 3; ++i) {
    parts.emplace_back(cfg.kernel->num_sites);
    parts.back().sectors_sink = proto.clone_empty();
  }
  replay_range(cfg, layout, 0, 1, {}, parts[0]);
  replay_range(cfg, layout, 1, 333, {}, parts[1]);
  replay_range(cfg, layout, 333, 768, {}, parts[2]);
  parts[0].merge(parts[1]);
  parts[0].merge(parts[2]);

  const auto& sa = static_cast<const PartitionTrafficSink&>(*a.sectors);
  const auto& sb = static_cast<const PartitionTrafficSink&>(*b.sectors);
  const auto& sc = static_cast<const PartitionTrafficSink&>(*parts[0].sectors_sink);
  int64_t total = 0;
  for (int64_t g = 0; g < 768 / 40 + 1; ++g)
    for (Op op : {Op::Load, Op::Store})
      for (int p = 0; p < 8; ++p) {
        ASSERT_EQ(sb.bytes(g, op, p), sa.bytes(g, op, p));
        ASSERT_EQ(sc.bytes(g, op, p), sa.bytes(g, op, p));
        total += sa.bytes(g, op, p);
      }
  // Every element read once and written once: 2 x 1024 x 768 x 4 bytes.
  EXPECT_EQ(total, 2 * 1024 * 768 * 4);
}

}  // namespace
}  // namespace memsim
