// memsim-split-lines as a memsim kernel file: the replay of each of its runs, with split_lines_map.hpp's index
// math (the CUDA program's own). The program's launch is an 8192 x 8192 f32 matrix, 32768 blocks of 256 threads
// in launch order, so:
//   memsim --kernel-file lab/studies/split_lines/split_lines_kernel.hpp --define SL_PATTERN=2 \
//          --define SL_SCATTERED=1 --define SL_DISTANCE=256 --matrix 8192x8192 --dtype f32 --block 256x1 \
//          --tile 2048x1 --device h100
// SL_PATTERN: the index of the pattern in split_lines_map.hpp's kPatterns; SL_SCATTERED 0 or 1: the layout;
// SL_DISTANCE: D, the blocks between a pair's two.
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

namespace study {
using namespace memsim;

struct SplitLines {
  enum Site { kLoadIn, kStoreOut };
  static constexpr SiteInfo kSites[] = {
      {"ld in", Space::Global, Op::Load, "in[b * 2048 + s * 256 + t]"},
      {"st out", Space::Global, Op::Store, "out[pattern's word]"},
  };
  static constexpr KernelInfo info() {
    return {"split_lines", "memsim-split-lines: a copy whose stores split sectors between two blocks (study)",
            "lab/studies/split_lines/split_lines.cu", Footprint::Scalar, OutputKind::Copy, kSites,
            num_sites_of<SplitLines>()};
  }
  // For one thread (memsim replays it lane by lane): nth_set_bit branches on the lane's bits.
  template <class Mem, class Shape>
  MEMSIM_HD static void body(Mem& m, const Shape& s, const ThreadCoord& t) {
    using T = typename Mem::Elem;
    const uint32_t b = uint32_t(t.block_y * s.grid_x + t.block_x);
    const int thread = t.thread_x;
    T v[split_lines::kSteps];
    for (int step = 0; step < split_lines::kSteps; ++step)
      v[step] = load_global<T>(m, kLoadIn, true, split_lines::load_word(b, thread, step));
    for (int step = 0; step < split_lines::kSteps; ++step)
      store_global<T>(m, kStoreOut, true,
                      split_lines::store_word(split_lines::kPatterns[SL_PATTERN].first_halves, SL_SCATTERED != 0,
                                              SL_DISTANCE, b, thread, step),
                      v[step]);
  }
};

}  // namespace study

MEMSIM_KERNEL(study::SplitLines)
