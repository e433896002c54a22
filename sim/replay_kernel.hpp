#pragma once
// The replay of one kernel, as templates over its struct: every warp of a range of blocks through the body
// (walk_blocks) and the barriers a thread passes. Header-only so that a kernel compiled outside memsim's build
// (memsim --kernel-file, sim/plugin_entry.hpp) runs exactly the replay the suite runs (sim/replay.cpp).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/runtime_division.hpp"
#include "sim/clones.hpp"
#include "sim/recorder.hpp"
#include "sim/warp_recorder.hpp"

namespace memsim {

// Which recorders a walk uses (sim/replay.hpp, for_each_warp_access).
enum class Recorders { Counting, Grouping };

namespace replay_detail {

// Restores this thread's division counters when it goes out of scope.
struct RuntimeDivisionsSaved {
  int64_t saved[2] = {runtime_divisions[0], runtime_divisions[1]};
  ~RuntimeDivisionsSaved() { runtime_divisions[0] = saved[0], runtime_divisions[1] = saved[1]; }
};

// Runs every warp of blocks [first, last) through the kernel's body and hands each warp's accesses to
// visit(block, warp, access). The counting path runs the body once per warp (WarpRecorder); a warp with an
// access that needs a finding, every warp under Recorders::Grouping, and every warp of a kernel whose body
// is not generic over its coordinates are run lane by lane with the grouping Recorder.
// flatten: the body, its lambdas, the lane operators and the recorders' calls all inline into this loop;
// without it GCC leaves the per-step lambdas as calls.
template <class K, class T, class Visit>
__attribute__((flatten)) MEMSIM_AVX2_CLONES void walk_blocks(const LaunchShape& s, const BufferLayout& layout, int64_t first,
                                          int64_t last, Recorders recorders, Tally& findings, Visit&& visit) {
  constexpr bool kPerWarp = runs_per_warp<K, T>;
  WarpRecorder<T> fast(layout);
  Recorder<T> grouping(layout, num_sites_of<K>(), findings);
  const int threads = s.block_x * s.block_y;
  const int warps = (threads + kWarpSize - 1) / kWarpSize;
  // Thread coordinates of every warp's lanes, worked out once per launch, and the lanes each warp has.
  std::vector<WarpCoord> warp_coords(warps);
  std::vector<uint32_t> active(warps);
  for (int w = 0; w < warps; ++w) {
    for (int i = 0; i < kWarpSize; ++i) {
      const int tid = w * kWarpSize + i;  // past the block's threads in a partial warp: inactive lanes
      warp_coords[w].thread_x.v[i] = tid % s.block_x;
      warp_coords[w].thread_y.v[i] = tid / s.block_x;
    }
    const int lanes = std::min(kWarpSize, threads - w * kWarpSize);
    active[w] = lanes == kWarpSize ? ~0u : (1u << lanes) - 1;
  }
  for (int64_t b = first; b < last; ++b) {
    const int block_x = int(b % s.grid_x);  // the hardware dispatches blocks by linear id, x fastest
    const int block_y = int(b / s.grid_x);
    for (int w = 0; w < warps; ++w) {
      auto hand_over = [&](const WarpAccess& a) { visit(b, w, a); };
      if constexpr (kPerWarp) {
        if (recorders == Recorders::Counting) {
          WarpCoord& t = warp_coords[w];
          t.block_x = block_x;
          t.block_y = block_y;
          fast.start_warp(active[w]);
          K::body(fast, s, t);
          if (fast.flush(hand_over)) continue;
        }
      }
      // Lane by lane, grouped by (site, occurrence): the definition, and the path that reports findings. Its
      // uniform divisions would count once per lane: the instruction estimate reads the warp replay's only.
      const RuntimeDivisionsSaved keep_divisions;
      const WarpCoord& coords = warp_coords[w];
      const int lanes = __builtin_popcount(active[w]);
      ThreadCoord t;
      t.block_x = block_x;
      t.block_y = block_y;
      for (int lane = 0; lane < lanes; ++lane) {
        t.thread_x = coords.thread_x.v[lane];
        t.thread_y = coords.thread_y.v[lane];
        grouping.start_lane(lane, t);
        K::body(grouping, s, t);
      }
      grouping.flush(hand_over);
    }
  }
}

// The barriers thread 0 of block 0 passes: every thread of a block passes the same ones (CUDA requires it).
template <class K, class T>
inline int barriers_per_thread(const LaunchShape& s, const BufferLayout& layout) {
  Tally scratch(num_sites_of<K>());
  Recorder<T> probe(layout, num_sites_of<K>(), scratch);
  const ThreadCoord t{};
  probe.start_lane(0, t);
  K::body(probe, s, t);
  return int(probe.barriers());
}

}  // namespace replay_detail
}  // namespace memsim
