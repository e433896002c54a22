#pragma once
#include "kernels/kernel_info.hpp"
#include "kernels/tiles.hpp"

namespace memsim::suite {

// Seed 001's float4 kernel: four consecutive elements of a row in one 16-byte load (two for f64), then four
// scalar stores down four output rows.
struct Vec4 {
  enum Site { kLoadIn, kStoreOut };
  static constexpr SiteInfo kSites[] = {
      {"ld in (vec4)", Space::Global, Op::Load, "vec4 in[y * W + x .. x + 3]"},
      {"st out", Space::Global, Op::Store, "out[(x + k) * H + y]"},
  };
  static constexpr KernelInfo info() {
    KernelInfo k{"vec4", "16-byte loads of 4 row elements, 4 scalar strided stores", "seed 001",
                 Footprint::Vec4X, OutputKind::Transpose, kSites, num_sites_of<Vec4>()};
    k.width_multiple = 4;
    return k;
  }
  template <class Mem, class Shape, class Thread>
  MEMSIM_HD static void body(Mem& m, const Shape& s, const Thread& t) {
    using T = typename Mem::Elem;
    const auto o = tile_origin(s, t.block_x, t.block_y);
    with_input_bounds(s, o, [&](const auto& inside) {
      for_each_tile_step(row_quad_walk(s), s.block_x, s.block_y, t.thread_x, t.thread_y,
                         [&](const auto& r, const auto& c4, const auto& in_tile) {
                           const auto x = o.col0 + 4 * c4;
                           const auto y = o.row0 + r;
                           const auto ok = in_tile && inside(x, y);
                           T v[4];
                           load_row_vector<4>(m, kLoadIn, ok, y * s.width + x, v);
                           for (int k = 0; k < 4; ++k) store_global<T>(m, kStoreOut, ok, (x + k) * s.height + y, v[k]);
                         });
    });
  }
};

// Seed 001's float4 + shared-memory kernel, padded: 16-byte global loads, the four elements stored one by
// one into the padded tile (a vector store would be misaligned in a row of tile_x + 1), then the tile drained
// transposed with scalar shared loads and coalesced scalar stores.
struct Vec4Shared {
  enum Site { kLoadIn, kStoreTile, kLoadTile, kStoreOut };
  static constexpr SiteInfo kSites[] = {
      {"ld in (vec4)", Space::Global, Op::Load, "vec4 in[(row0 + r) * W + col0 + 4c .. +3]"},
      {"st tile", Space::Shared, Op::Store, "tile[r][4c + k]"},
      {"ld tile", Space::Shared, Op::Load, "tile[c][r]"},
      {"st out", Space::Global, Op::Store, "out[(col0 + r) * H + row0 + c]"},
  };
  static constexpr KernelInfo info() {
    KernelInfo k{"vec4_shared", "16-byte loads into a padded shared tile, scalar coalesced stores", "seed 001",
                 Footprint::Vec4X, OutputKind::Transpose, kSites, num_sites_of<Vec4Shared>()};
    k.uses_shared_tile = true;
    k.default_pad = 1;
    k.width_multiple = 4;
    return k;
  }
  template <class Mem, class Shape, class Thread>
  MEMSIM_HD static void body(Mem& m, const Shape& s, const Thread& t) {
    using T = typename Mem::Elem;
    const auto o = tile_origin(s, t.block_x, t.block_y);
    with_input_bounds(s, o, [&](const auto& inside) {
      for_each_tile_step(row_quad_walk(s), s.block_x, s.block_y, t.thread_x, t.thread_y,
                         [&](const auto& r, const auto& c4, const auto& in_tile) {
                           const auto x = o.col0 + 4 * c4;
                           const auto y = o.row0 + r;
                           const auto ok = in_tile && inside(x, y);
                           T v[4];
                           load_row_vector<4>(m, kLoadIn, ok, y * s.width + x, v);
                           for (int k = 0; k < 4; ++k) store_shared<T>(m, kStoreTile, ok, r * s.smem_row + 4 * c4 + k, v[k]);
                         });
      sync_block(m);
      drain_tile_transposed(m, s, o, t, inside, kLoadTile, kStoreOut, PlainColumns{});
    });
  }
};

// Seed 000's register transpose: each thread loads a 4x4 sub-block as four 16-byte row loads, transposes it in
// registers and stores four 16-byte rows of the output.
struct Reg4x4 {
  enum Site { kLoadIn, kStoreOut };
  static constexpr SiteInfo kSites[] = {
      {"ld in (vec4)", Space::Global, Op::Load, "vec4 in[(y + i) * W + x .. x + 3]"},
      {"st out (vec4)", Space::Global, Op::Store, "vec4 out[(x + j) * H + y .. y + 3]"},
  };
  static constexpr KernelInfo info() {
    KernelInfo k{"reg4x4", "4x4 register transpose: 16-byte loads and 16-byte stores", "seed 000",
                 Footprint::Reg4x4, OutputKind::Transpose, kSites, num_sites_of<Reg4x4>()};
    k.width_multiple = 4;
    k.height_multiple = 4;
    return k;
  }
  template <class Mem, class Shape, class Thread>
  MEMSIM_HD static void body(Mem& m, const Shape& s, const Thread& t) {
    using T = typename Mem::Elem;
    const auto o = tile_origin(s, t.block_x, t.block_y);
    with_input_bounds(s, o, [&](const auto& inside) {
      for_each_tile_step(quad_walk(s), s.block_x, s.block_y, t.thread_x, t.thread_y,
                         [&](const auto& r4, const auto& c4, const auto& in_tile) {
                           const auto x = o.col0 + 4 * c4;
                           const auto y = o.row0 + 4 * r4;
                           const auto ok = in_tile && inside(x, y);
                           T src[4][4];
                           for (int i = 0; i < 4; ++i) load_row_vector<4>(m, kLoadIn, ok, (y + i) * s.width + x, src[i]);
                           for (int j = 0; j < 4; ++j) {
                             const T col[4] = {src[0][j], src[1][j], src[2][j], src[3][j]};
                             store_row_vector<4>(m, kStoreOut, ok, (x + j) * s.height + y, col);
                           }
                         });
    });
  }
};

}  // namespace memsim::suite
