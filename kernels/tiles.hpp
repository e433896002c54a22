#pragma once
// Building blocks the tiled kernels share: where a block's tile lies, the whitepaper's diagonal block
// reordering, staging a tile through shared memory and draining it transposed. Pure functions of
// (block, thread, step, sizes), like every other piece of index math in kernels/.
#include "kernels/access.hpp"
#include "kernels/launch_shape.hpp"
#include "kernels/runtime_division.hpp"

namespace memsim {

struct TileOrigin {
  int64_t col0;  // first input column of the tile
  int64_t row0;  // first input row of the tile
};

MEMSIM_HD MEMSIM_INLINE TileOrigin tile_origin(const LaunchShape& s, int bx, int by) {
  return {int64_t(bx) * s.tile_x, int64_t(by) * s.tile_y};
}

// The whitepaper's diagonal interpretation of blockIdx: the launch order walks diagonals of the tile grid
// so that concurrently resident blocks touch different DRAM partitions on both the read and the write side.
// The general form is a bijection for any grid shape (for each row of tiles, the quotient walks every column).
MEMSIM_HD MEMSIM_INLINE TileOrigin diagonal_tile_origin(const LaunchShape& s, int bx, int by) {
  int tile_col = 0, tile_row = 0;
  if (s.grid_x == s.grid_y) {
    tile_row = bx;
    tile_col = divide_by_runtime(bx + by, s.grid_x).remainder;
  } else {
    const int64_t bid = bx + int64_t(s.grid_x) * by;
    const QuotientRemainder<int64_t> d = divide_by_runtime(bid, int64_t(s.grid_y));
    tile_row = int(d.remainder);
    tile_col = int(divide_by_runtime(d.quotient + tile_row, int64_t(s.grid_x)).remainder);
  }
  return tile_origin(s, tile_col, tile_row);
}

// Column of element (row, col) in the shared tile: plain, or XOR-swizzled within a power-of-two row.
struct PlainColumns {
  template <class Row, class Col>
  MEMSIM_HD Col operator()(const Row&, const Col& col) const { return col; }
};
struct XorColumns {
  int tile_x;  // a power of two
  template <class Row, class Col>
  MEMSIM_HD auto operator()(const Row& row, const Col& col) const { return col ^ (row & (tile_x - 1)); }
};

// Reads the tile row by row (coalesced) and keeps it in shared memory, element (r, c) at
// r * smem_row + columns(r, c).
template <class Mem, class Thread, class Columns>
MEMSIM_HD MEMSIM_INLINE void stage_tile(Mem& m, const LaunchShape& s, TileOrigin o, const Thread& t,
                                        int site_load, int site_store_shared, Columns columns) {
  using T = typename Mem::Elem;
  for_each_tile_step(s.walk_tile, s.block_x, s.block_y, t.thread_x, t.thread_y,
                     [&](const auto& r, const auto& c, const auto& in_tile) {
                       const auto ok = in_tile && o.col0 + c < s.width && o.row0 + r < s.height;
                       const T v = load_global<T>(m, site_load, ok, (o.row0 + r) * s.width + o.col0 + c);
                       store_shared<T>(m, site_store_shared, ok, r * s.smem_row + columns(r, c), v);
                     });
}

// Writes the staged tile to its transposed place: output row (col0 + r) is input column col0 + r, so a warp
// walks a tile column in shared memory (where bank conflicts live) and a row of the output (coalesced).
template <class Mem, class Thread, class Columns>
MEMSIM_HD MEMSIM_INLINE void drain_tile_transposed(Mem& m, const LaunchShape& s, TileOrigin o,
                                                   const Thread& t, int site_load_shared, int site_store,
                                                   Columns columns) {
  using T = typename Mem::Elem;
  for_each_tile_step(s.walk_tile_transposed, s.block_x, s.block_y, t.thread_x, t.thread_y,
                     [&](const auto& r, const auto& c, const auto& in_tile) {
                       const auto ok = in_tile && o.col0 + r < s.width && o.row0 + c < s.height;
                       const T v = load_shared<T>(m, site_load_shared, ok, c * s.smem_row + columns(c, r));
                       store_global<T>(m, site_store, ok, (o.col0 + r) * s.height + o.row0 + c, v);
                     });
}

}  // namespace memsim
