#pragma once
// Building blocks the tiled kernels share: where a block's tile lies, the whitepaper's diagonal block
// reordering, staging a tile through shared memory and draining it transposed. Pure functions of
// (block, thread, step, sizes), like every other piece of index math in kernels/.
#include "kernels/access.hpp"
#include "kernels/launch_shape.hpp"
#include "kernels/runtime_division.hpp"

namespace memsim {

// Index is the shape's index type: int64_t for run-time shapes, int where a static shape's matrix fits 32 bits.
template <class Index>
struct BasicTileOrigin {
  Index col0;  // first input column of the tile
  Index row0;  // first input row of the tile
};
using TileOrigin = BasicTileOrigin<int64_t>;

template <class Shape>
MEMSIM_HD MEMSIM_INLINE BasicTileOrigin<typename Shape::Index> tile_origin(const Shape& s, int bx, int by) {
  using I = typename Shape::Index;
  return {I(bx) * s.tile_x, I(by) * s.tile_y};
}

// The whitepaper's diagonal interpretation of blockIdx: the launch order walks diagonals of the tile grid
// so that concurrently resident blocks touch different DRAM partitions on both the read and the write side.
// The general form is a bijection for any grid shape (for each row of tiles, the quotient walks every column).
template <class Shape>
MEMSIM_HD MEMSIM_INLINE BasicTileOrigin<typename Shape::Index> diagonal_tile_origin(const Shape& s, int bx, int by) {
  using I = typename Shape::Index;
  int tile_col = 0, tile_row = 0;
  if (s.grid_x == s.grid_y) {
    tile_row = bx;
    tile_col = divide_by_runtime(bx + by, s.grid_x).remainder;
  } else {
    const I bid = bx + I(s.grid_x) * by;
    const QuotientRemainder<I> d = divide_by_runtime(bid, I(s.grid_y));
    tile_row = int(d.remainder);
    tile_col = int(divide_by_runtime(d.quotient + tile_row, I(s.grid_x)).remainder);
  }
  return tile_origin(s, tile_col, tile_row);
}

// Bounds tests of the matrix's elements: (col, row) is inside when col < cols and row < rows.
template <class Index>
struct Bounds {
  Index cols, rows;
  template <class Col, class Row>
  MEMSIM_HD MEMSIM_INLINE auto operator()(const Col& col, const Row& row) const {
    return col < cols && row < rows;
  }
};
// ... and none, for a tile known to lie wholly inside the matrix.
struct NoBounds {
  template <class Col, class Row>
  MEMSIM_HD MEMSIM_INLINE constexpr bool operator()(const Col&, const Row&) const {
    return true;
  }
};

// Runs body(bounds) for a block whose tile spans columns [col0, col0 + tile_cols) and rows [row0, row0 +
// tile_rows) of a cols x rows matrix, with the bounds test its accesses need. A static shape gives a tile
// wholly inside the matrix no test at all: the branch is uniform across the block (it depends on the block's
// origin alone), so every thread takes the same side and reaches the same barriers; hand-written kernels go
// without the tests by requiring whole tiles, which the suite does not. A run-time shape tests every access,
// as it always did: the replay's addresses and predicates are the same either way (inside a whole tile
// every test passes), and its instruction estimate (core/kernel_counts.hpp) is of the tested form.
template <class Shape, class Index, class Body>
MEMSIM_HD MEMSIM_INLINE void with_bounds(const Shape&, Index col0, Index row0, int tile_cols, int tile_rows, Index cols,
                                         Index rows, Body&& body) {
  if constexpr (Shape::kSplitEdgeTiles) {
    if (col0 + tile_cols <= cols && row0 + tile_rows <= rows) {
      body(NoBounds{});
      return;
    }
  }
  body(Bounds<Index>{cols, rows});
}
// The common case: the tile of origin o over the input matrix.
template <class Shape, class Index, class Body>
MEMSIM_HD MEMSIM_INLINE void with_input_bounds(const Shape& s, BasicTileOrigin<Index> o, Body&& body) {
  with_bounds(s, o.col0, o.row0, s.tile_x, s.tile_y, Index(s.width), Index(s.height), body);
}

// Column of element (row, col) in the shared tile: plain, or XOR-swizzled within a power-of-two row. kLinear:
// whether the element's offset, row * smem_row + column, is linear in (row, col), so that a walk step's offset
// is the thread's first one plus the offset of the step's distance (drain_tile_transposed).
struct PlainColumns {
  static constexpr bool kLinear = true;
  template <class Row, class Col>
  MEMSIM_HD Col operator()(const Row&, const Col& col) const { return col; }
};
struct XorColumns {
  static constexpr bool kLinear = false;
  int tile_x;  // a power of two
  template <class Row, class Col>
  MEMSIM_HD auto operator()(const Row& row, const Col& col) const { return col ^ (row & (tile_x - 1)); }
};

// Reads the tile row by row (coalesced) and keeps it in shared memory, element (r, c) at
// r * smem_row + columns(r, c).
template <class Mem, class Shape, class Index, class Thread, class Inside, class Columns>
MEMSIM_HD MEMSIM_INLINE void stage_tile(Mem& m, const Shape& s, BasicTileOrigin<Index> o, const Thread& t,
                                        const Inside& inside, int site_load, int site_store_shared, Columns columns) {
  using T = typename Mem::Elem;
  for_each_tile_step(tile_walk(s), s.block_x, s.block_y, t.thread_x, t.thread_y,
                     [&](const auto& r, const auto& c, const auto& in_tile) {
                       const auto ok = in_tile && inside(o.col0 + c, o.row0 + r);
                       const T v = load_global<T>(m, site_load, ok, (o.row0 + r) * s.width + o.col0 + c);
                       store_shared<T>(m, site_store_shared, ok, r * s.smem_row + columns(r, c), v);
                     });
}

// Writes the staged tile to its transposed place: output row (col0 + r) is input column col0 + r, so a warp
// walks a tile column in shared memory (where bank conflicts live) and a row of the output (coalesced).
template <class Mem, class Shape, class Index, class Thread, class Inside, class Columns>
MEMSIM_HD MEMSIM_INLINE void drain_tile_transposed(Mem& m, const Shape& s, BasicTileOrigin<Index> o,
                                                   const Thread& t, const Inside& inside, int site_load_shared,
                                                   int site_store, Columns columns) {
  using T = typename Mem::Elem;
  // Shared offset of tile element (row, col).
  const auto at = [&](const auto& row, const auto& col) { return row * s.smem_row + columns(row, col); };
  // Where that offset is linear, a step's is the thread's first one plus the step's own, a constant that nvcc
  // folds into the load's immediate. Written as at(c, r), nvcc 13.0 recomputed the whole offset on every step
  // of the tall tiles' drain, whose lanes past the tile predicate every step (vec4_shared f32 32x8: 192 warp
  // instructions a warp, 143 this way). The first offset counts as varying per column (launch_shape.hpp): the
  // replay's estimate then charges every column step the one add a run-time shape's drain makes.
  const auto first = [&] {
    if constexpr (Columns::kLinear) return at(column_varying(t.thread_x), t.thread_y);
    else return 0;
  }();
  for_each_tile_offset_step(transposed_tile_walk(s), s.block_x, s.block_y, t.thread_x, t.thread_y,
                            [&](const auto& r, const auto& c, const auto& in_tile, StepOffset step) {
                              const auto ok = in_tile && inside(o.col0 + r, o.row0 + c);
                              const auto shared_offset = [&] {
                                if constexpr (Columns::kLinear) return first + at(step.cols, step.rows);
                                else return at(c, r);
                              }();
                              const T v = load_shared<T>(m, site_load_shared, ok, shared_offset);
                              store_global<T>(m, site_store, ok, (o.col0 + r) * s.height + o.row0 + c, v);
                            });
}

// The shared-tile transpose every padded, swizzled and reordered variant shares: stage the tile of origin o,
// wait for the block, drain it transposed.
template <class Sites, class Mem, class Shape, class Index, class Thread, class Columns>
MEMSIM_HD MEMSIM_INLINE void transpose_through_tile(Mem& m, const Shape& s, BasicTileOrigin<Index> o,
                                                    const Thread& t, Columns columns) {
  with_input_bounds(s, o, [&](const auto& inside) {
    stage_tile(m, s, o, t, inside, Sites::kLoadIn, Sites::kStoreTile, columns);
    sync_block(m);
    drain_tile_transposed(m, s, o, t, inside, Sites::kLoadTile, Sites::kStoreOut, columns);
  });
}

}  // namespace memsim
