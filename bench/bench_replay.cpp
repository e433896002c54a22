// Replay throughput. The target (the issue): a full replay of padded 8192x8192 f32, block 32x8, well under a
// second on a 2-core machine. Reported as warps/s (state.counters), with wall-clock time since the replay
// runs its own worker threads.
#include <benchmark/benchmark.h>

#include <string>

#include "kernels/resolve.hpp"
#include "sim/global_sectors.hpp"
#include "sim/replay.hpp"
#include "sim/shared_banks.hpp"

namespace {

using namespace memsim;

void replay_bench(benchmark::State& state, const char* kernel, int64_t w, int64_t h) {
  UserConfig u;
  u.kernel = kernel;
  u.matrix = {w, h};
  u.block = {32, 8};
  const LaunchConfig cfg = resolve_launch(u);
  ReplayOptions opt;
  opt.threads = int(state.range(0));
  int64_t warps = 0;
  for (auto _ : state) {
    ReplayResult r = replay(cfg, opt);
    benchmark::DoNotOptimize(r.sites.data());
    warps += r.warps;
  }
  state.counters["warps/s"] = benchmark::Counter(double(warps), benchmark::Counter::kIsRate);
  state.counters["warps"] = double(cfg.blocks() * cfg.warps_per_block());
  state.counters["threads"] = double(opt.threads);
  state.SetLabel(std::string(kernel) + " " + format_size2(u.matrix) + " f32 block 32x8");
}

void BM_ReplayPadded8192(benchmark::State& s) { replay_bench(s, "padded", 8192, 8192); }
void BM_ReplayNaive4096(benchmark::State& s) { replay_bench(s, "naive", 4096, 4096); }
void BM_ReplayCoalesced4096(benchmark::State& s) { replay_bench(s, "coalesced", 4096, 4096); }

BENCHMARK(BM_ReplayPadded8192)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_ReplayNaive4096)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_ReplayCoalesced4096)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

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
