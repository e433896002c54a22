#pragma once
// A launch shape whose block, tile and shared-row extents are compile-time constants, the way people write a
// transpose (`#define TILE_DIM 32`, `#define BLOCK_ROWS 8`): the same kernel bodies as the run-time LaunchShape
// (kernels/launch_shape.hpp), read through the same member names, but nvcc folds every tile walk, stride and
// pad into the instructions, unrolls the row loops, and indexes in 32 bits where the matrix allows it. Only
// the matrix's sides and the grid stay run-time values, as they are in hand-written kernels. The GPU runs these
// for the shapes people launch (validate/suite_launch.cu); the replay keeps every extent dynamic and computes
// the same addresses (tests/core/static_shape_test.cpp checks access by access).
#include <cstdint>

#include "kernels/kernel_info.hpp"
#include "kernels/launch_shape.hpp"

namespace memsim {

template <int BlockX, int BlockY, int TileX, int TileY, int SmemRow, class IndexT>
struct StaticShape {
  using Index = IndexT;
  // A block whose tile lies wholly inside the matrix skips the per-element bounds tests (kernels/tiles.hpp,
  // with_bounds); edge tiles keep them.
  static constexpr bool kSplitEdgeTiles = true;
  static constexpr int block_x = BlockX, block_y = BlockY;
  static constexpr int tile_x = TileX, tile_y = TileY;
  static constexpr int smem_row = SmemRow;
  Index width = 0, height = 0;
  int grid_x = 0, grid_y = 0;
};

template <int BX, int BY, int TX, int TY, int SR, class I>
MEMSIM_HD MEMSIM_INLINE constexpr StaticTileWalk<TY, TX, BX, BY> tile_walk(const StaticShape<BX, BY, TX, TY, SR, I>&) {
  return {};
}
template <int BX, int BY, int TX, int TY, int SR, class I>
MEMSIM_HD MEMSIM_INLINE constexpr StaticTileWalk<TX, TY, BX, BY> transposed_tile_walk(
    const StaticShape<BX, BY, TX, TY, SR, I>&) {
  return {};
}
template <int BX, int BY, int TX, int TY, int SR, class I>
MEMSIM_HD MEMSIM_INLINE constexpr StaticTileWalk<TY, TX / 4, BX, BY> row_quad_walk(
    const StaticShape<BX, BY, TX, TY, SR, I>&) {
  return {};
}
template <int BX, int BY, int TX, int TY, int SR, class I>
MEMSIM_HD MEMSIM_INLINE constexpr StaticTileWalk<TY / 4, TX / 4, BX, BY> quad_walk(
    const StaticShape<BX, BY, TX, TY, SR, I>&) {
  return {};
}

// A Chunk16 kernel's walks (E elements a chunk): over the tile's E x E blocks, and over the transposed tile's
// rows of E-element chunks.
template <int E, int BX, int BY, int TX, int TY, int SR, class I>
MEMSIM_HD MEMSIM_INLINE constexpr StaticTileWalk<TY / E, TX / E, BX, BY> chunk_block_walk(
    const StaticShape<BX, BY, TX, TY, SR, I>&) {
  return {};
}
template <int E, int BX, int BY, int TX, int TY, int SR, class I>
MEMSIM_HD MEMSIM_INLINE constexpr StaticTileWalk<TX, TY / E, BX, BY> chunk_row_walk(
    const StaticShape<BX, BY, TX, TY, SR, I>&) {
  return {};
}

// The static shape of kernel K with block BX x BY and its default tile and pad (kernels/resolve.hpp) for
// elements of ElemBytes bytes: what a user gets without --tile and --pad.
template <class K, int BX, int BY, class Index, int ElemBytes>
struct DefaultStaticShape {
  static constexpr TileExtent kTile = default_tile_extent(K::info(), BX, BY, ElemBytes);
  static constexpr int kSmemRow = K::info().uses_shared_tile ? kTile.x + K::info().default_pad : 0;
  using type = StaticShape<BX, BY, kTile.x, kTile.y, kSmemRow, Index>;
};

// Whether resolve_launch accepts kernel K with block BX x BY and its default tile (as far as the kernel alone
// decides: the matrix may still rule it out): no instantiation is built for a shape that can never run.
template <class K, int BX, int BY, int ElemBytes>
constexpr bool default_tile_allowed() {
  constexpr KernelInfo k = K::info();
  constexpr TileExtent t = default_tile_extent(k, BX, BY, ElemBytes);
  if ((k.square_tile_only || k.square_tile) && t.x != t.y) return false;
  if (k.pow2_tile_x && !is_pow2(t.x)) return false;
  return true;
}

// Whether a matrix's every index, and every position an edge tile reaches past it, fits a 32-bit int.
MEMSIM_HD constexpr bool fits_32bit_index(int64_t width, int64_t height, int tile_x, int tile_y) {
  constexpr int64_t kLimit = int64_t(1) << 31;
  return width > 0 && height > 0 && width < kLimit && height < kLimit &&
         (width + tile_x + tile_y) * (height + tile_x + tile_y) < kLimit;
}

// The static shape S with the launch's matrix and grid (the suite's dispatch, kernels/static_dispatch.hpp, and a
// kernel file's GPU plugin, validate/gpu_plugin_entry.cuh, make them).
template <class S>
S make_static_shape(const LaunchShape& s) {
  S out;
  out.width = typename S::Index(s.width);
  out.height = typename S::Index(s.height);
  out.grid_x = s.grid_x;
  out.grid_y = s.grid_y;
  return out;
}

template <class S>
bool static_shape_matches(const LaunchShape& s) {
  return s.block_x == S::block_x && s.block_y == S::block_y && s.tile_x == S::tile_x && s.tile_y == S::tile_y &&
         s.smem_row == S::smem_row && fits_32bit_index(s.width, s.height, S::tile_x, S::tile_y);
}

}  // namespace memsim
