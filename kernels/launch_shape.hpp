#pragma once
// Plain records that a kernel body reads: the resolved launch (sizes, block, tile, shared layout) and the
// coordinates of one thread. Both are copied by value to the device.
#include "kernels/config.hpp"

namespace memsim {

struct LaunchShape {
  int64_t width = 0;   // input columns (W); the transposed output has W rows
  int64_t height = 0;  // input rows (H)
  int block_x = 0, block_y = 0;
  int tile_x = 0, tile_y = 0;  // input elements one block covers: tile_x columns by tile_y rows
  int grid_x = 0, grid_y = 0;
  int pad = 0;       // extra elements per shared-tile row
  int smem_row = 0;  // shared tile row stride in elements (tile_x + pad for plain tiles)
};

// The coordinates of one thread (Lane = int: on the GPU and in the per-lane replay) or of a whole warp's
// lanes at once (Lane = Lanes<int>, sim/lanes.hpp: the warp replay). Block coordinates are the warp's own.
template <class Lane>
struct BasicThreadCoord {
  int block_x = 0, block_y = 0;
  Lane thread_x{}, thread_y{};
};
using ThreadCoord = BasicThreadCoord<int>;

// Visits the (row, col) positions of a rows x cols tile that thread (tx, ty) of a bx x by block owns, the
// block striding over the tile. Every thread makes the same number of steps (positions past the tile come
// with in_tile = false) so a step is one warp-wide instruction, as on the GPU, and the replay can match
// lanes by occurrence. tx, ty are ints or a warp's Lanes<int>; the loop bounds are uniform.
template <class Lane, class F>
MEMSIM_HD MEMSIM_INLINE void for_each_tile_step(int rows, int cols, int bx, int by, const Lane& tx, const Lane& ty,
                                                F&& f) {
  const int row_steps = (rows + by - 1) / by;
  const int col_steps = (cols + bx - 1) / bx;
  for (int i = 0; i < row_steps; ++i) {
    for (int j = 0; j < col_steps; ++j) {
      const auto r = ty + i * by;
      const auto c = tx + j * bx;
      f(r, c, r < rows && c < cols);
    }
  }
}

}  // namespace memsim
