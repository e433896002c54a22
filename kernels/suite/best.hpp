#pragma once
#include "kernels/kernel_info.hpp"
#include "kernels/tiles.hpp"

namespace memsim::suite {

// The fastest design memsim found (docs/best.md): every global access 16 bytes wide on both sides. Each thread
// loads an E x E block of the input (E = 16 / element bytes: 4x4 f32, 2x2 f64, 8x8 f16) as E 16-byte row
// pieces, transposes it in registers and stores its E columns as 16-byte pieces of the transposed tile in
// shared memory; after the barrier the block reads the transposed tile row by row, 16 bytes a thread, and
// writes whole output rows. The shared tile is square and held transposed; with no pad its 16-byte chunks are
// XOR-swizzled (chunk c of transposed row r at c ^ (r / E mod chunks a row)), which the replay shows
// conflict-free for both the column stores and the row loads at every dtype (a pad of one chunk is not:
// memsim --kernel best --pad 4 shows the stores' conflicts). The grid walks the output: blockIdx.x runs down
// the input's tile rows, so blocks launched together write neighbouring pieces of the same output rows (and
// read one tile column). On the H200 that order moved the kernel from 0.95 to 0.98 of cudaMemcpy, which
// nothing memsim counts predicts (docs/best.md).
struct Best {
  enum Site { kLoadIn, kStoreTile, kLoadTile, kStoreOut };
  static constexpr SiteInfo kSites[] = {
      {"ld in (16 B)", Space::Global, Op::Load, "vec in[(row0 + E i + k) * W + col0 + E j .. +E-1]"},
      {"st tile (16 B)", Space::Shared, Op::Store, "vec tileT[E j + m][swz(E i .. +E-1)]"},
      {"ld tile (16 B)", Space::Shared, Op::Load, "vec tileT[r][swz(E c .. +E-1)]"},
      {"st out (16 B)", Space::Global, Op::Store, "vec out[(col0 + r) * H + row0 + E c .. +E-1]"},
  };
  static constexpr KernelInfo info() {
    KernelInfo k{"best", "E x E register blocks, 16-byte accesses both ways through a swizzled transposed tile",
                 "memsim (docs/best.md)", Footprint::Chunk16, OutputKind::Transpose, kSites, num_sites_of<Best>()};
    k.uses_shared_tile = true;
    k.square_tile = true;
    k.tile_over_output = true;
    k.pow2_tile_x = true;
    return k;
  }

  // Where chunk c of transposed row r lives in its row: XOR-swizzled by the row within the row's tile_y / E
  // chunks when the tile has no pad, as is (a zero mask) when padded.
  template <int E, class Shape, class Row, class Chunk>
  MEMSIM_HD MEMSIM_INLINE static auto chunk_column(const Shape& s, const Row& r, const Chunk& c) {
    const int swizzle_mask = s.smem_row == s.tile_x ? s.tile_y / E - 1 : 0;
    return c ^ ((r / E) & swizzle_mask);
  }

  template <class Mem, class Shape, class Thread>
  MEMSIM_HD static void body(Mem& m, const Shape& s, const Thread& t) {
    using T = typename Mem::Elem;
    constexpr int E = chunk16_elems(int(sizeof(T)));
    using Chunk = Vec<T, E>;
    // The grid lies over the output (KernelInfo::tile_over_output): blockIdx.x counts the input's tile rows.
    const auto o = tile_origin(s, t.block_y, t.block_x);
    with_input_bounds(s, o, [&](const auto& inside) {
      for_each_tile_step(chunk_block_walk<E>(s), s.block_x, s.block_y, t.thread_x, t.thread_y,
                         [&](const auto& bi, const auto& bj, const auto& in_tile) {
                           const auto x = o.col0 + E * bj;
                           const auto y = o.row0 + E * bi;
                           // Width and height are multiples of E: a block is wholly inside or wholly out.
                           const auto ok = in_tile && inside(x, y);
                           Chunk rows[E];
                           for (int k = 0; k < E; ++k) rows[k] = load_global<Chunk>(m, kLoadIn, ok, (y + k) * s.width + x);
                           for (int c = 0; c < E; ++c) {
                             Chunk column;
                             for (int k = 0; k < E; ++k) column.v[k] = rows[k].v[c];
                             const auto r = E * bj + c;  // the transposed tile's row: input column col0 + r
                             store_shared<Chunk>(m, kStoreTile, ok, r * s.smem_row + E * chunk_column<E>(s, r, bi), column);
                           }
                         });
      sync_block(m);
      for_each_tile_step(chunk_row_walk<E>(s), s.block_x, s.block_y, t.thread_x, t.thread_y,
                         [&](const auto& r, const auto& c, const auto& in_tile) {
                           const auto ok = in_tile && inside(o.col0 + r, o.row0 + E * c);
                           const Chunk v = load_shared<Chunk>(m, kLoadTile, ok, r * s.smem_row + E * chunk_column<E>(s, r, c));
                           store_global<Chunk>(m, kStoreOut, ok, (o.col0 + r) * s.height + o.row0 + E * c, v);
                         });
    });
  }
};

}  // namespace memsim::suite
