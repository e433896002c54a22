#pragma once
// Plain records that a kernel body reads: the resolved launch (sizes, block, tile, shared layout) and the
// coordinates of one thread. Both are copied by value to the device.
#include "kernels/config.hpp"

namespace memsim {

// A block's walk over a rows x cols tile (for_each_tile_step): ceil(rows / block_y) steps down, ceil(cols /
// block_x) across. The step counts are worked out once on the host (fill_tile_walks): an integer division by
// a runtime value compiles to about 20 instructions a thread (CUDA C++ Programming Guide, arithmetic
// instructions), and a kernel whose two walks differ in shape (stage, then drain transposed) paid four.
struct TileWalk {
  int rows = 0, cols = 0;
  int row_steps = 0, col_steps = 0;
  // Whether position (r, c) of a step lies in the tile: the last steps of a walk whose tile is no multiple
  // of the block reach past it.
  template <class Row, class Col>
  MEMSIM_HD MEMSIM_INLINE auto in_tile(const Row& r, const Col& c) const {
    return r < rows && c < cols;
  }
};

// The same walk with compile-time extents (a StaticShape's, kernels/static_shape.hpp): nvcc sees constant trip
// counts and unrolls, and where the block divides the tile every position is in it, so the test folds away.
template <int Rows, int Cols, int BlockX, int BlockY>
struct StaticTileWalk {
  static constexpr int rows = Rows, cols = Cols;
  static constexpr int row_steps = (Rows + BlockY - 1) / BlockY, col_steps = (Cols + BlockX - 1) / BlockX;
  // A thread's row is ty + k * BlockY with ty < BlockY (its column likewise), so where the block divides an
  // extent every position lies inside it along that extent and only the other one needs a test: nvcc cannot
  // know ty < BlockY, and would test both on every step.
  static constexpr bool kRowsExact = Rows % BlockY == 0, kColsExact = Cols % BlockX == 0;
  static constexpr bool kExact = kRowsExact && kColsExact;
  template <class Row, class Col>
  MEMSIM_HD MEMSIM_INLINE bool in_tile(const Row& r, const Col& c) const {
    if constexpr (kExact) return true;
    else if constexpr (kRowsExact) return c < Cols;
    else if constexpr (kColsExact) return r < Rows;
    else return r < Rows && c < Cols;
  }
};
MEMSIM_HD inline TileWalk make_tile_walk(int rows, int cols, int bx, int by) {
  return {rows, cols, (rows + by - 1) / by, (cols + bx - 1) / bx};
}

// The launch as run-time values: what the replay runs every kernel with, and the GPU's fallback for shapes
// it has no compile-time instantiation of (kernels/static_shape.hpp has the other kind). Index arithmetic is
// 64-bit, for any matrix.
struct LaunchShape {
  using Index = int64_t;
  // Edge tiles are not told apart from inner ones: every access is bounds-tested (kernels/tiles.hpp).
  static constexpr bool kSplitEdgeTiles = false;
  int64_t width = 0;   // input columns (W); the transposed output has W rows
  int64_t height = 0;  // input rows (H)
  int block_x = 0, block_y = 0;
  int tile_x = 0, tile_y = 0;  // input elements one block covers: tile_x columns by tile_y rows
  int grid_x = 0, grid_y = 0;
  int pad = 0;       // extra elements per shared-tile row
  int smem_row = 0;  // shared tile row stride in elements (tile_x + pad for plain tiles)
  // The walks the kernels make, filled by fill_tile_walks from the fields above.
  TileWalk walk_tile;             // tile_y rows x tile_x columns: every kernel's load side
  TileWalk walk_tile_transposed;  // tile_x rows x tile_y columns: a staged tile drained transposed
  TileWalk walk_row_quads;        // tile_y rows x tile_x / 4 quads: 16-byte row loads (vec4)
  TileWalk walk_quads;            // tile_y / 4 x tile_x / 4 blocks of 4 x 4 (reg4x4)
};

// Fills the shape's walks from its block and tile (resolve_launch does; so must a hand-made shape that runs
// a body).
MEMSIM_HD inline void fill_tile_walks(LaunchShape& s) {
  s.walk_tile = make_tile_walk(s.tile_y, s.tile_x, s.block_x, s.block_y);
  s.walk_tile_transposed = make_tile_walk(s.tile_x, s.tile_y, s.block_x, s.block_y);
  s.walk_row_quads = make_tile_walk(s.tile_y, s.tile_x / 4, s.block_x, s.block_y);
  s.walk_quads = make_tile_walk(s.tile_y / 4, s.tile_x / 4, s.block_x, s.block_y);
}

// The walks a body makes, by kind, for either kind of shape: these read the ones fill_tile_walks stored;
// StaticShape's overloads compute them at compile time.
MEMSIM_HD MEMSIM_INLINE const TileWalk& tile_walk(const LaunchShape& s) { return s.walk_tile; }
MEMSIM_HD MEMSIM_INLINE const TileWalk& transposed_tile_walk(const LaunchShape& s) { return s.walk_tile_transposed; }
MEMSIM_HD MEMSIM_INLINE const TileWalk& row_quad_walk(const LaunchShape& s) { return s.walk_row_quads; }
MEMSIM_HD MEMSIM_INLINE const TileWalk& quad_walk(const LaunchShape& s) { return s.walk_quads; }

// A Chunk16 kernel's walks (E elements a chunk, E a power of two): over the tile's E x E blocks, and over the
// transposed tile's rows of E-element chunks. Worked out where they are used: only these kernels walk them.
template <int E>
MEMSIM_HD MEMSIM_INLINE TileWalk chunk_block_walk(const LaunchShape& s) {
  return make_tile_walk(s.tile_y / E, s.tile_x / E, s.block_x, s.block_y);
}
template <int E>
MEMSIM_HD MEMSIM_INLINE TileWalk chunk_row_walk(const LaunchShape& s) {
  return make_tile_walk(s.tile_x, s.tile_y / E, s.block_x, s.block_y);
}

// The coordinates of one thread (Lane = int: on the GPU and in the per-lane replay) or of a whole warp's
// lanes at once (Lane = Lanes<int>, sim/lanes.hpp: the warp replay). Block coordinates are the warp's own.
template <class Lane>
struct BasicThreadCoord {
  int block_x = 0, block_y = 0;
  Lane thread_x{}, thread_y{};
};
using ThreadCoord = BasicThreadCoord<int>;

// Hooks for the warp replay's instruction count (the Lanes overloads in sim/lanes.hpp): what varies per
// column step, and where a column step begins. For a thread (GPU, per-lane replay) they do nothing.
MEMSIM_HD MEMSIM_INLINE int column_varying(int tx) { return tx; }
MEMSIM_HD MEMSIM_INLINE void begin_column_step(int, int) {}
MEMSIM_HD MEMSIM_INLINE void end_column_walk(int) {}

// A step's distance from the thread's first position in a tile walk, (ty, tx): uniform, and a compile-time
// constant once nvcc unrolls the walk.
struct StepOffset {
  int rows = 0, cols = 0;
};

// Visits the (row, col) positions of walk w's tile that thread (tx, ty) of a bx x by block owns, the block
// striding over the tile: f(r, c, in_tile, step), where (r, c) = (ty + step.rows, tx + step.cols). Every
// thread makes the same number of steps (positions past the tile come with in_tile = false) so a step is one
// warp-wide instruction, as on the GPU, and the replay can match lanes by occurrence. tx, ty are ints or a
// warp's Lanes<int>; the loop bounds are uniform. The column walk is the inner loop: what depends on the row
// alone is loop-invariant there, and nvcc computes it once per row.
template <class Walk, class Lane, class F>
MEMSIM_HD MEMSIM_INLINE void for_each_tile_offset_step(const Walk& w, int bx, int by, const Lane& tx, const Lane& ty,
                                                       F&& f) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int i = 0; i < w.row_steps; ++i) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int j = 0; j < w.col_steps; ++j) {
      begin_column_step(tx, j);
      const StepOffset step{i * by, j * bx};
      const auto r = ty + step.rows;
      const auto c = column_varying(tx) + step.cols;
      f(r, c, w.in_tile(r, c), step);
    }
  }
  end_column_walk(tx);
}
// The same walk for a body that needs the position alone: f(r, c, in_tile).
template <class Walk, class Lane, class F>
MEMSIM_HD MEMSIM_INLINE void for_each_tile_step(const Walk& w, int bx, int by, const Lane& tx, const Lane& ty,
                                                F&& f) {
  for_each_tile_offset_step(w, bx, by, tx, ty,
                            [&](const auto& r, const auto& c, const auto& in_tile, StepOffset) { f(r, c, in_tile); });
}

}  // namespace memsim
