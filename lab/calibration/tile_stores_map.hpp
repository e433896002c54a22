// memsim-microbench --store-order's tile_stores index math, one definition for the CUDA kernel
// (bench_kernels.cuh) and the memsim kernel file that replays it (tile_stores_kernel.hpp): block b loads a TW x TW
// tile packed in chunk b of the input and stores it as a tile of the output, a tiles x tiles grid of them (P =
// tiles x TW elements a side), thread (tx, ty) at (ty + BY i, tx + BX j) as the suite's tile walks go.
#pragma once
#include <cstddef>

#if defined(__CUDACC__)
#define TILE_STORES_HD __host__ __device__
#else
#define TILE_STORES_HD
#endif

namespace tile_stores_map {

// Block b's tile of the output: kDown places consecutive blocks down the output's tile rows (a transpose's order,
// padded's stores), else along them (copy_shared's).
template <bool kDown>
TILE_STORES_HD inline int tile_row(int b, int tiles) { return kDown ? b % tiles : b / tiles; }
template <bool kDown>
TILE_STORES_HD inline int tile_col(int b, int tiles) { return kDown ? b / tiles : b % tiles; }

// The input element thread (tx, ty) of block b (blocks of bx x by threads, tiles of tw a side) loads at step
// (i, j): the same both ways. Plain ints: the CUDA kernel passes its template constants, which nvcc folds.
TILE_STORES_HD inline size_t in_index(int tw, int bx, int by, int b, int tx, int ty, int i, int j) {
  return size_t(b) * tw * tw + size_t(ty + by * i) * tw + tx + bx * j;
}

// The output element it stores there.
template <bool kDown>
TILE_STORES_HD inline size_t out_index(int tw, int bx, int by, int b, int tiles, int tx, int ty, int i, int j) {
  const size_t P = size_t(tiles) * tw;
  return (size_t(tile_row<kDown>(b, tiles)) * tw + ty + by * i) * P + size_t(tile_col<kDown>(b, tiles)) * tw + tx +
         bx * j;
}

}  // namespace tile_stores_map
