// A copy with 16-byte accesses: each thread moves four consecutive elements of a row (a float4 in f32) with
// one load and one store, so a warp moves 512 contiguous bytes an instruction. No square tile: under a 32x8
// block the default tile is 128x8, four elements a thread across.
//   memsim --kernel-file examples/copy_vec4.hpp --block 32x8
// reports 16 sectors per request both ways (32 lanes x 16 bytes) for f32; in f64 four elements are 32 bytes,
// which no instruction moves: load_row_vector splits them into two 16-byte accesses, as the GPU must.
#pragma once
#include "kernels/plugin.hpp"

namespace example {
using namespace memsim;

struct CopyVec4 {
  enum Site { kLoadIn, kStoreOut };
  static constexpr SiteInfo kSites[] = {
      {"ld in", Space::Global, Op::Load, "in[y * W + x .. x + 3]"},
      {"st out", Space::Global, Op::Store, "out[y * W + x .. x + 3]"},
  };
  static constexpr KernelInfo info() {
    KernelInfo k{"copy_vec4", "copy, four elements a thread in one 16-byte access (example)", "examples/copy_vec4.hpp",
                 Footprint::Elements, OutputKind::Copy, kSites, num_sites_of<CopyVec4>()};
    k = with_footprint(k, 4, 1);
    k.width_multiple = 4;
    k.blocks_translate = true;  // offsets from tile_origin's col0/row0 and the thread: blocks of a class count alike
    return k;
  }
  template <class Mem, class Shape, class Thread>
  MEMSIM_HD static void body(Mem& m, const Shape& s, const Thread& t) {
    using T = typename Mem::Elem;
    const auto o = tile_origin(s, t.block_x, t.block_y);
    for (int k = 0; k < s.tile_y / s.block_y; ++k) {
      for (int j = 0; j < s.tile_x / (4 * s.block_x); ++j) {
        const auto x = o.col0 + 4 * (t.thread_x + j * s.block_x);
        const auto y = o.row0 + t.thread_y + k * s.block_y;
        const auto ok = x < s.width && y < s.height;
        T v[4];
        load_row_vector<4>(m, kLoadIn, ok, y * s.width + x, v);
        store_row_vector<4>(m, kStoreOut, ok, y * s.width + x, v);
      }
    }
  }
};

}  // namespace example

MEMSIM_KERNEL(example::CopyVec4)
