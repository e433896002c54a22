// memsim-split-lines as a memsim kernel file: the replay of each of its runs, with split_lines_map.hpp's index
// math (the CUDA program's own). The program's launch is an 8192 x 8192 f32 matrix, 32768 blocks of 256 threads
// in launch order, so:
//   memsim --kernel-file lab/studies/split_lines/split_lines_kernel.hpp --define SL_PATTERN=2 \
//          --define SL_SCATTERED=1 --define SL_DISTANCE=256 --matrix 8192x8192 --dtype f32 --block 256x1 \
//          --tile 2048x1 --device h100
// SL_PATTERN: the index of the pattern in split_lines_map.hpp's kPatterns; SL_SCATTERED 0 or 1: the layout;
// SL_DISTANCE: D, the blocks between a pair's two.
//
// SL_LANE_BYTES=2 replays the variant with 2-byte lanes (split_lines::lanes2, SL_PATTERN then the index in
// lanes2::kPatterns): its launch is a 16384 x 8192 f16 matrix (256 MiB), 65536 blocks of 256 threads, so
//   memsim --kernel-file lab/studies/split_lines/split_lines_kernel.hpp --define SL_LANE_BYTES=2 \
//          --define SL_PATTERN=2 --define SL_SCATTERED=0 --define SL_DISTANCE=1 --matrix 16384x8192 \
//          --dtype f16 --block 256x1 --tile 2048x1 --device h100
// SL_LANE_BYTES (4 without it) must be the --dtype's bytes: with another dtype no access is replayed (every
// one predicated off, so the report shows no requests at all).
#pragma once
#include "kernels/plugin.hpp"
#include "split_lines_map.hpp"

#ifndef SL_PATTERN
#define SL_PATTERN 2
#endif
#ifndef SL_SCATTERED
#define SL_SCATTERED 0
#endif
#ifndef SL_DISTANCE
#define SL_DISTANCE 1
#endif
#ifndef SL_LANE_BYTES
#define SL_LANE_BYTES 4
#endif
static_assert(SL_LANE_BYTES == 4 || SL_LANE_BYTES == 2, "split_lines_kernel.hpp: SL_LANE_BYTES is 4 or 2");
static_assert(SL_PATTERN >= 0 && SL_PATTERN < (SL_LANE_BYTES == 2 ? split_lines::lanes2::kPatternCount
                                                                  : split_lines::kPatternCount),
              "split_lines_kernel.hpp: SL_PATTERN is no pattern's index for SL_LANE_BYTES");

namespace study {
using namespace memsim;

struct SplitLines {
  enum Site { kLoadIn, kStoreOut };
  static constexpr SiteInfo kSites[] = {
      {"ld in", Space::Global, Op::Load, "in[b * 2048 + s * 256 + t]"},  // both lane widths
      {"st out", Space::Global, Op::Store, "out[pattern's word]"},
  };
  static constexpr KernelInfo info() {
    return {"split_lines", "memsim-split-lines: a copy whose stores split sectors between two blocks (study)",
            "lab/studies/split_lines/split_lines.cu", Footprint::Scalar, OutputKind::Copy, kSites,
            num_sites_of<SplitLines>()};
  }
  // For one thread (memsim replays it lane by lane): nth_set_bit branches on the lane's bits.
  // memsim compiles the body for f16, f32 and f64 alike: only the dtype of SL_LANE_BYTES replays anything.
  template <class Mem, class Shape>
  MEMSIM_HD static void body(Mem& m, const Shape& s, const ThreadCoord& t) {
    using T = typename Mem::Elem;
    constexpr bool kReplayed = sizeof(T) == SL_LANE_BYTES;
    const uint32_t b = uint32_t(t.block_y * s.grid_x + t.block_x);
    const int thread = t.thread_x;
    T v[split_lines::kSteps];
#if SL_LANE_BYTES == 2
    namespace sl = split_lines::lanes2;
    for (int step = 0; step < split_lines::kSteps; ++step)
      v[step] = load_global<T>(m, kLoadIn, kReplayed, sl::load_elem(b, thread, step));
    for (int step = 0; step < split_lines::kSteps; ++step)
      store_global<T>(m, kStoreOut, kReplayed,
                      sl::store_elem(sl::kPatterns[SL_PATTERN].first_quarters, SL_SCATTERED != 0, SL_DISTANCE, b,
                                     thread, step),
                      v[step]);
#else
    for (int step = 0; step < split_lines::kSteps; ++step)
      v[step] = load_global<T>(m, kLoadIn, kReplayed, split_lines::load_word(b, thread, step));
    for (int step = 0; step < split_lines::kSteps; ++step)
      store_global<T>(m, kStoreOut, kReplayed,
                      split_lines::store_word(split_lines::kPatterns[SL_PATTERN].first_halves, SL_SCATTERED != 0,
                                              SL_DISTANCE, b, thread, step),
                      v[step]);
#endif
  }
};

}  // namespace study

MEMSIM_KERNEL(study::SplitLines)
