// The whitepaper's partition-camping results (docs/sources.md; its sections "Partition Camping" and "Diagonal block
// reordering") reproduced with the GT200 profile: GTX 280, 2048 x 2048 f32, 32x8 blocks on 32x32 tiles (4096 blocks),
// 30 SMs x 4 resident 256-thread blocks = 120 resident blocks, 8 partitions of 256 B, CC 1.3 coalescing.
//
// The per-window traffic is first checked against a brute force written from the whitepaper's kernel code
// (tile rows of 128 B; the output tile at the input tile's place or at its transposed place), then the
// whitepaper's relations are pinned on the imbalance figures.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "kernels/resolve.hpp"
#include "sim/partitions.hpp"
#include "sim/replay.hpp"

namespace memsim {
namespace {

constexpr int64_t kN = 2048;      // matrix side (elements)
constexpr int64_t kTile = 32;     // tile side
constexpr int64_t kGrid = kN / kTile;
constexpr int64_t kGt200Resident = 30 * 4;

MemoryRules gt200_rules() {
  MemoryRules r;
  r.banks = {16, 4, 16};
  r.coalescing = GlobalCoalescing::Cc12Segments;
  return r;
}

LaunchConfig whitepaper_launch(const std::string& kernel) {
  UserConfig user;
  user.kernel = kernel;
  user.matrix = {kN, kN};
  user.block = {32, 8};
  return resolve_launch(user);
}

PartitionTraffic camping(const std::string& kernel, const PartitionSpec& spec, int64_t resident = kGt200Resident,
                         int64_t step = 0, MemoryRules rules = gt200_rules()) {
  const LaunchConfig cfg = whitepaper_launch(kernel);
  const PartitionTrafficSink proto(spec, block_schedule(cfg.blocks(), resident, step), rules.sector_bytes);
  ReplayOptions o;
  o.rules = rules;
  o.sector_sink_prototype = &proto;
  const ReplayResult r = replay(cfg, o);
  return summarize_partition_traffic(static_cast<const PartitionTrafficSink&>(*r.sectors), 1 << 20);
}

// ---------------------------------------------------------------------------------------------------------
// Brute force from the whitepaper's code. Block b (linear id, bx = b mod 64, by = b / 64) works on the tile at
// (tile_col, tile_row) = (bx, by), or, diagonally reordered, (tile_col, tile_row) = ((bx + by) mod 64, bx).
// It reads the tile's 32 rows, 128 contiguous bytes each: idata + ((tile_row*32 + r) * 2048 + tile_col*32) * 4.
// It writes 32 rows of 128 bytes either at the same place in odata (copy, shared-memory copy, fine-grained)
// or at the transposed place: odata + ((tile_col*32 + r) * 2048 + tile_row*32) * 4 (coalesced, padded,
// coarse-grained, diagonal). A 128-byte row aligned to 128 lies inside one 256-byte chunk, so each row goes
// to partition ((address) / 256) mod N whole.
enum class StorePlace { Same, Transposed };

struct Expected {
  std::vector<std::vector<int64_t>> ld, st;  // [window][partition]
};

Expected brute_force(const LaunchConfig& cfg, bool diagonal, StorePlace place, int partitions,
                     const BlockSchedule& sched) {
  const BufferLayout layout = default_layout(cfg);
  auto part = [&](uint64_t addr) { return int((addr / 256) % uint64_t(partitions)); };
  std::vector<std::vector<int64_t>> block_ld(size_t(cfg.blocks()), std::vector<int64_t>(size_t(partitions))),
      block_st = block_ld;
  for (int64_t b = 0; b < cfg.blocks(); ++b) {
    const int64_t bx = b % kGrid, by = b / kGrid;
    const int64_t tile_col = diagonal ? (bx + by) % kGrid : bx;
    const int64_t tile_row = diagonal ? bx : by;
    for (int64_t r = 0; r < kTile; ++r) {
      const uint64_t in = layout.in_base + uint64_t(((tile_row * kTile + r) * kN + tile_col * kTile) * 4);
      const uint64_t out = place == StorePlace::Same
                               ? layout.out_base + uint64_t(((tile_row * kTile + r) * kN + tile_col * kTile) * 4)
                               : layout.out_base + uint64_t(((tile_col * kTile + r) * kN + tile_row * kTile) * 4);
      block_ld[size_t(b)][size_t(part(in))] += 128;
      block_st[size_t(b)][size_t(part(out))] += 128;
    }
  }
  Expected e;
  for (int64_t k = 0; k < window_count(sched); ++k) {
    const BlockRange w = window_blocks(sched, k);
    std::vector<int64_t> ld(static_cast<size_t>(partitions)), st(static_cast<size_t>(partitions));
    for (int64_t b = w.first; b < w.last; ++b)
      for (int p = 0; p < partitions; ++p) {
        ld[size_t(p)] += block_ld[size_t(b)][size_t(p)];
        st[size_t(p)] += block_st[size_t(b)][size_t(p)];
      }
    e.ld.push_back(ld);
    e.st.push_back(st);
  }
  return e;
}

// Traffic-weighted max/mean, computed here from the brute-force windows.
double weighted_imbalance(const std::vector<std::vector<int64_t>>& windows) {
  double num = 0, den = 0;
  for (const auto& w : windows) {
    int64_t total = 0, most = 0;
    for (int64_t b : w) {
      total += b;
      most = std::max(most, b);
    }
    if (total == 0) continue;
    num += double(most) * double(w.size());  // T_w * (max / (T_w / N))
    den += double(total);
  }
  return num / den;
}

void expect_matches_brute_force(const std::string& kernel, bool diagonal, StorePlace place,
                                const PartitionSpec& spec) {
  SCOPED_TRACE(kernel + " on " + std::to_string(spec.count) + " partitions");
  const PartitionTraffic t = camping(kernel, spec);
  const Expected e = brute_force(whitepaper_launch(kernel), diagonal, place, spec.count, t.schedule);
  ASSERT_EQ(t.kept.size(), e.ld.size());
  for (size_t k = 0; k < e.ld.size(); ++k) {
    ASSERT_EQ(t.kept[k].load_bytes, e.ld[k]) << "window " << k;
    ASSERT_EQ(t.kept[k].store_bytes, e.st[k]) << "window " << k;
  }
  EXPECT_NEAR(t.loads.imbalance, weighted_imbalance(e.ld), 1e-12);
  EXPECT_NEAR(t.stores.imbalance, weighted_imbalance(e.st), 1e-12);
}

TEST(Gt200Camping, WindowsMatchTheWhitepapersAddressMath) {
  for (const PartitionSpec& spec : {gt200_partitions(), g80_partitions()}) {
    expect_matches_brute_force("copy_shared", false, StorePlace::Same, spec);
    expect_matches_brute_force("fine", false, StorePlace::Same, spec);
    expect_matches_brute_force("padded", false, StorePlace::Transposed, spec);
    expect_matches_brute_force("coarse", false, StorePlace::Transposed, spec);
    expect_matches_brute_force("diagonal", true, StorePlace::Transposed, spec);
  }
}

TEST(Gt200Camping, FirstWavesOfThePaddedTransposeByHand) {
  // GT200, output at a multiple of 2048 B: a transposed store row of block (bx, by) starts at
  // ((bx*32 + r) * 2048 + by*32) * 4 = 8192 (bx*32 + r) + 128 by, chunk 32 (bx*32 + r) + by/2, so partition
  // (by / 2) mod 8 for the whole block: two block rows (128 blocks) store to one partition.
  const PartitionTraffic t = camping("padded", gt200_partitions());
  // Wave 0 = blocks 0..119: by = 0 and 1, all on partition 0 -> 8 (every byte on one of 8).
  EXPECT_DOUBLE_EQ(window_imbalance(t.kept[0].store_bytes), 8.0);
  EXPECT_EQ(t.kept[0].store_bytes[0], 120 * 4096);
  // Wave 1 = blocks 120..239: 8 blocks of by = 1 (partition 0), 112 of by = 2, 3 (partition 1):
  // max/mean = 112 / (120 / 8) = 7.4667.
  EXPECT_DOUBLE_EQ(window_imbalance(t.kept[1].store_bytes), 112.0 * 8 / 120);
  // Loads: block (bx, by) reads its rows at chunk 32 (by*32 + r) + bx/2: partition (bx/2) mod 8. Wave 0 has
  // bx = 0..63 (8 blocks per partition) and bx = 0..55 (bx/2 = 0..27: partitions 0-3 get 4 pairs, 4-7 get
  // 3): 16 blocks on partitions 0-3, 14 on 4-7 -> 16 / 15.
  EXPECT_DOUBLE_EQ(window_imbalance(t.kept[0].load_bytes), 16.0 / 15.0);
}

// The whitepaper's ordering (GTX 280): naive << coalesced ~ bank-conflict-free ~ coarse-grained << fine-grained
// ~ shared-memory copy ~ diagonal. In partition terms: the transposes that write tiles to transposed places
// in launch order camp on stores; those that write in place, or reorder blocks diagonally, do not.
TEST(Gt200Camping, WhitepaperRelations) {
  const PartitionSpec gt200 = gt200_partitions();
  const PartitionTraffic copy = camping("copy", gt200), copy_shared = camping("copy_shared", gt200),
                         naive = camping("naive", gt200), coalesced = camping("coalesced", gt200),
                         padded = camping("padded", gt200), coarse = camping("coarse", gt200),
                         fine = camping("fine", gt200), diagonal = camping("diagonal", gt200);

  // Reads spread everywhere: every kernel reads its tile rows in launch order.
  for (const PartitionTraffic* t : {&copy, &copy_shared, &naive, &coalesced, &padded, &coarse, &fine, &diagonal})
    EXPECT_LT(t->loads.imbalance, 1.1);

  // Coalesced and padded (bank-conflict free) camp on stores: more than half of a wave's stores on one of 8.
  EXPECT_GT(coalesced.stores.imbalance, 4.0);
  EXPECT_GT(padded.stores.imbalance, 4.0);
  EXPECT_GT(naive.stores.imbalance, 4.0);
  // Padding changes shared memory only: the global traffic is identical.
  EXPECT_EQ(padded.stores.imbalance, coalesced.stores.imbalance);

  // Diagonal reordering spreads the stores (and keeps the loads spread).
  EXPECT_LT(diagonal.stores.imbalance, 1.1);
  EXPECT_LT(diagonal.paced.imbalance, 1.1);

  // Coarse-grained writes exactly where the coalesced transpose writes; fine-grained exactly where the
  // shared-memory copy writes: equal window by window, not just close.
  ASSERT_EQ(coarse.kept.size(), coalesced.kept.size());
  for (size_t k = 0; k < coarse.kept.size(); ++k) {
    EXPECT_EQ(coarse.kept[k].store_bytes, coalesced.kept[k].store_bytes);
    EXPECT_EQ(fine.kept[k].store_bytes, copy_shared.kept[k].store_bytes);
    EXPECT_EQ(fine.kept[k].load_bytes, copy_shared.kept[k].load_bytes);
  }
  EXPECT_LT(fine.paced.imbalance, 1.1);
  EXPECT_LT(copy_shared.paced.imbalance, 1.1);
  EXPECT_LT(copy.paced.imbalance, 1.1);
}

// The imbalance side of "the diagonal transpose is more than four times faster": the time ratio itself is
// pinned through the cost model in whitepaper_model_test.cpp. The `combined` figure (partitions serving
// loads and stores independently) cannot reach 4x here: with loads spread (1/8 of a window's loads on every
// partition) and all stores on one partition it is (1/8 + 1) / (2/8) = 4.5 at most, and waves that straddle
// two block-row pairs split their stores over two partitions, which pulls it to about 3.6; the `paced`
// figure the model uses stays above 4 for every schedule.
TEST(Gt200Camping, PacedImbalanceOfPaddedOverDiagonalExceedsFour) {
  const PartitionTraffic padded = camping("padded", gt200_partitions());
  const PartitionTraffic diagonal = camping("diagonal", gt200_partitions());
  EXPECT_GT(padded.paced.imbalance, 4.0 * diagonal.paced.imbalance);
  EXPECT_LE(padded.combined.imbalance, 4.5);
  // The conclusion does not hang on the schedule's parameters: shared memory limits the padded tile
  // (32 x 33 x 4 = 4224 B) to 3 blocks per SM in 16 KB, so R = 90; and a window after every retirement.
  const std::pair<int64_t, int64_t> schedules[] = {{90, 0}, {90, 1}, {kGt200Resident, 1}};
  for (const auto& [resident, step] : schedules) {
    SCOPED_TRACE("R = " + std::to_string(resident) + ", step = " + std::to_string(step));
    const double p = camping("padded", gt200_partitions(), resident, step).paced.imbalance;
    const double d = camping("diagonal", gt200_partitions(), resident, step).paced.imbalance;
    EXPECT_GT(p, 4.0 * d);
  }
}

// Whitepaper: "partition camping ... results in much less of a performance degradation on G80-based cards
// due to the different number of partitions". With 6 partitions an 8192-byte row is 32 chunks = 2 mod 6, so
// the 32 rows of one transposed tile cycle through 3 partitions (11, 11 and 10 rows): at most 11/32 of any
// wave's stores fall on one partition, an imbalance of at most 6 x 11/32 = 2.06.
TEST(Gt200Camping, G80CampsMuchLess) {
  MemoryRules g80 = gt200_rules();
  g80.coalescing = GlobalCoalescing::Cc10Strict;
  const double gt200 = camping("padded", gt200_partitions()).stores.imbalance;
  const double six = camping("padded", g80_partitions(), kGt200Resident, 0, g80).stores.imbalance;
  EXPECT_LE(six, 6.0 * 11 / 32);
  EXPECT_LT(six, gt200 / 2);
}

TEST(Gt200Camping, ModernSectorsGiveTheSameTrafficForCoalescedKernels) {
  // Every half-warp of the padded transpose moves one aligned 64-byte segment = 2 sectors: the CC 1.3 rules
  // and the 32-byte sector rule hand the counter the same bytes.
  const PartitionTraffic a = camping("padded", gt200_partitions());
  const PartitionTraffic b = camping("padded", gt200_partitions(), kGt200Resident, 0, MemoryRules{});
  ASSERT_EQ(a.kept.size(), b.kept.size());
  for (size_t k = 0; k < a.kept.size(); ++k) {
    EXPECT_EQ(a.kept[k].load_bytes, b.kept[k].load_bytes);
    EXPECT_EQ(a.kept[k].store_bytes, b.kept[k].store_bytes);
  }
}

}  // namespace
}  // namespace memsim
