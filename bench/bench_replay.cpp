// Replay throughput, both paths (sim/replay.hpp): every block (exact), and one block of each class of
// identical counts (sim/block_classes.hpp, the default). The targets, on a 2-core machine: padded
// 8192x8192 f32 well under 50 ms, 65536x65536 under 1 s, the suite's 13 kernels x 3 blocks x 3 dtypes at
// 8192x8192 under 10 s in one process. Reported as warps/s (state.counters), with wall-clock time since the
// full replay runs its own worker threads. docs/performance.md has the figures.
#include <benchmark/benchmark.h>

#include <optional>
#include <string>

#include "kernels/registry.hpp"
#include "kernels/resolve.hpp"
#include "sim/dram_order.hpp"
#include "sim/global_sectors.hpp"
#include "sim/launch_size.hpp"
#include "sim/partial_lines.hpp"
#include "sim/replay.hpp"
#include "sim/shared_banks.hpp"

namespace {

using namespace memsim;

void replay_bench(benchmark::State& state, const char* kernel, int64_t w, int64_t h, bool exact) {
  UserConfig u;
  u.kernel = kernel;
  u.matrix = {w, h};
  u.block = {32, 8};
  const LaunchConfig cfg = resolve_launch_any_size(u, LaunchLimits{}, MemoryRules{}, exact);
  ReplayOptions opt;
  opt.threads = int(state.range(0));
  opt.exact = exact;
  int64_t warps = 0;
  for (auto _ : state) {
    ReplayResult r = replay(cfg, opt);
    benchmark::DoNotOptimize(r.sites.data());
    warps += r.warps;
  }
  state.counters["warps/s"] = benchmark::Counter(double(warps), benchmark::Counter::kIsRate);
  state.counters["warps"] = double(cfg.blocks() * cfg.warps_per_block());
  state.counters["threads"] = double(opt.threads);
  state.SetLabel(std::string(kernel) + " " + format_size2(u.matrix) + " f32 block 32x8" +
                 (exact ? " exact" : " by classes"));
}

void BM_ReplayPadded8192Exact(benchmark::State& s) { replay_bench(s, "padded", 8192, 8192, true); }
void BM_ReplayNaive4096Exact(benchmark::State& s) { replay_bench(s, "naive", 4096, 4096, true); }
void BM_ReplayCoalesced4096Exact(benchmark::State& s) { replay_bench(s, "coalesced", 4096, 4096, true); }
void BM_ReplayPadded8192Classes(benchmark::State& s) { replay_bench(s, "padded", 8192, 8192, false); }
void BM_ReplayPadded65536Classes(benchmark::State& s) { replay_bench(s, "padded", 65536, 65536, false); }
void BM_ReplayCopy2To40Classes(benchmark::State& s) { replay_bench(s, "copy", 1 << 20, 1 << 20, false); }

BENCHMARK(BM_ReplayPadded8192Exact)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_ReplayNaive4096Exact)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_ReplayCoalesced4096Exact)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_ReplayPadded8192Classes)->Arg(1)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_ReplayPadded65536Classes)->Arg(1)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_ReplayCopy2To40Classes)->Arg(1)->Unit(benchmark::kMicrosecond)->UseRealTime();

// The DRAM order count (sim/dram_order.hpp) a prediction on a profile that charges it adds: 2 windows of the
// H100's resident blocks (132 SMs x 8 blocks of 256 threads).
void BM_WindowOrderPadded8192(benchmark::State& state) {
  UserConfig u;
  u.kernel = "padded";
  u.matrix = {8192, 8192};
  const LaunchConfig cfg = resolve_launch(u);
  for (auto _ : state) {
    const WindowOrder o = window_order(cfg, 132 * 8);
    benchmark::DoNotOptimize(o.bytes[1]);
  }
  state.SetLabel("padded 8192x8192 f32 block 32x8, 2 windows of 1056 blocks");
}
BENCHMARK(BM_WindowOrderPadded8192)->Unit(benchmark::kMillisecond)->UseRealTime();

// Column stores with many steps a block: naive f16 32x2 on a 128x128 tile at 16384x16384, whose window of
// 4224 resident blocks (132 SMs x 32) touches 69 million store lines, 1.1 million of them distinct.
void BM_WindowOrderNaiveF16Tile128(benchmark::State& state) {
  UserConfig u;
  u.kernel = "naive";
  u.matrix = {16384, 16384};
  u.dtype = Dtype::F16;
  u.block = {32, 2};
  u.tile = Size2{128, 128};
  const LaunchConfig cfg = resolve_launch(u);
  for (auto _ : state) {
    const WindowOrder o = window_order(cfg, 132 * 32, 1);
    benchmark::DoNotOptimize(o.bytes[1]);
  }
  state.SetLabel("naive 16384x16384 f16 block 32x2 tile 128x128, 1 window of 4224 blocks");
}
BENCHMARK(BM_WindowOrderNaiveF16Tile128)->Unit(benchmark::kMillisecond)->UseRealTime();

// The search for the blocks that complete a block's split sectors (sim/partial_lines.hpp), which replay()
// adds for a launch that has them: vec4 f16 32x8 at 16384x16384, whose other halves are a grid row (128
// blocks) away, so 256 blocks are replayed.
void BM_SplitDistanceVec4F16_16384(benchmark::State& state) {
  UserConfig u;
  u.kernel = "vec4";
  u.matrix = {16384, 16384};
  u.dtype = Dtype::F16;
  const LaunchConfig cfg = resolve_launch(u);
  double d = 0;
  for (auto _ : state) {
    d = split_log2_distance(cfg, cfg.blocks() / 2);
    benchmark::DoNotOptimize(d);
  }
  state.SetLabel("vec4 16384x16384 f16 block 32x8, log2 distance " + std::to_string(d));
}
BENCHMARK(BM_SplitDistanceVec4F16_16384)->Unit(benchmark::kMillisecond)->UseRealTime();

// The suite at 8192x8192: every kernel x block (32x8, 16x16, 8x32) x dtype that resolves (coarse and fine
// take square tiles only, so not 8x32's 8x32 tile), one replay each, in this one process.
void BM_SuiteSweep8192Classes(benchmark::State& state) {
  int64_t launches = 0;
  for (auto _ : state) {
    launches = 0;
    for (const KernelInfo& k : kernel_suite())
      for (Size2 b : {Size2{32, 8}, Size2{16, 16}, Size2{8, 32}})
        for (Dtype d : {Dtype::F16, Dtype::F32, Dtype::F64}) {
          UserConfig u;
          u.kernel = k.name;
          u.matrix = {8192, 8192};
          u.block = b;
          u.dtype = d;
          const std::optional<LaunchConfig> launch = try_resolve_launch(u);
          if (!launch) continue;
          const LaunchConfig& cfg = *launch;
          ReplayResult r = replay(cfg);
          benchmark::DoNotOptimize(r.sites.data());
          ++launches;
        }
  }
  state.counters["launches"] = double(launches);
}
BENCHMARK(BM_SuiteSweep8192Classes)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

// The counters alone, on the warps a transpose typically makes (f32, 32 lanes).
WarpAccess warp(Space space, uint64_t base, uint64_t stride) {
  WarpAccess w{};
  for (int i = 0; i < kWarpSize; ++i) w.addr[i] = base + uint64_t(i) * stride;
  w.mask = ~0u;
  w.width = 4;
  w.space = space;
  return w;
}

void counter_rate(benchmark::State& state) {
  state.counters["warps/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_GlobalSectorsCoalesced(benchmark::State& state) {
  const WarpAccess w = warp(Space::Global, uint64_t(1) << 32, 4);  // 4 sectors
  for (auto _ : state) benchmark::DoNotOptimize(count_global_sectors(w));
  counter_rate(state);
}
void BM_GlobalSectorsStrided(benchmark::State& state) {
  const WarpAccess w = warp(Space::Global, uint64_t(1) << 32, 8192);  // naive store: 32 sectors
  for (auto _ : state) benchmark::DoNotOptimize(count_global_sectors(w));
  counter_rate(state);
}
void BM_SharedWavefrontsPadded(benchmark::State& state) {
  const WarpAccess w = warp(Space::Shared, 4 * 5, 4 * 33);  // padded column read: 1 wavefront
  for (auto _ : state) benchmark::DoNotOptimize(count_shared_wavefronts(w));
  counter_rate(state);
}
void BM_SharedWavefrontsConflicted(benchmark::State& state) {
  const WarpAccess w = warp(Space::Shared, 4 * 5, 4 * 32);  // unpadded column read: 32 wavefronts
  for (auto _ : state) benchmark::DoNotOptimize(count_shared_wavefronts(w));
  counter_rate(state);
}
BENCHMARK(BM_GlobalSectorsCoalesced);
BENCHMARK(BM_GlobalSectorsStrided);
BENCHMARK(BM_SharedWavefrontsPadded);
BENCHMARK(BM_SharedWavefrontsConflicted);

}  // namespace
