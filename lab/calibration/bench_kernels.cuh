#pragma once
// The calibration microbenchmarks: each isolates one cost the data sheets do not give, and each comes with
// the counts memsim's cost model reads (worked out here in closed form from the kernel's index math), so
// memsim-calibrate fits the model's constants through the model's own formula.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "lab/calibration/tile_stores_map.hpp"
#include "sim/l2_requests.hpp"

namespace mb {

// What the cost model needs to know about one launch (model/cost.hpp KernelCounts, field for field).
struct Counts {
  int64_t blocks = 0;
  int threads_per_block = 0;
  int64_t shared_bytes_per_block = 0;
  int regs_per_thread = 0;
  double useful_bytes = 0;  // bytes the launch moves on purpose (read + written)
  double dram_read_bytes = 0, dram_write_bytes = 0;
  double l1_sectors_ld = 0, l1_sectors_st = 0;  // l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}
  // L1 data-stage passes of the global requests, as the replay counts them (sim/global_sectors.hpp): one per
  // distinct 128-byte line of each group of 128 / lane-width lanes (rows_wavefronts below).
  double l1_wavefronts_ld = 0, l1_wavefronts_st = 0;
  double l2_sectors_ld = 0, l2_sectors_st = 0;  // after L1 hits (loads) / as sent (stores)
  // L2 write requests, one per line a store instruction writes (lts__t_requests_srcunit_tex_op_write): given
  // where the stores write sectors in part, the only case the cost model reads it; 0 elsewhere.
  double l2_requests_st = 0;
  // L2 read requests of the loads (sim/l2_requests.hpp); < 0: one a line a load instruction touches, as where
  // each warp's loads fetch whole sectors no other warp asks for (the L1 wavefronts, at most the sectors).
  double l2_requests_ld = -1;
  double shared_wavefronts = 0, shared_instructions = 0;
  double global_ld_instructions = 0, global_st_instructions = 0;
  double loads_in_flight_per_warp = 1;  // independent loads a warp issues before it waits
  // All warp instructions, where the kernel is issue-bound by design: 0 here, filled from Nsight Compute's
  // smsp__inst_executed.sum by lab/calibration/add_instructions.py (SASS is not countable from source).
  double instructions = 0;
  int barriers = 0;  // __syncthreads() a block's threads pass
  // Lines a block writes in partial-sector pieces from two or more of its warps, the count the replay makes
  // for the suite (sim/partial_lines.hpp): times the blocks resident at once, the lines partly written at once.
  // Every partial sector of these benchmarks is written whole by the block, all of a line's sectors alike.
  double partial_lines_per_block = 0;
  // How many warps write each of those sectors in pieces (the same for all of a benchmark's sectors): the more,
  // the more the L2 reads back (memsim-partial-lines' 4-, 8- and 16-byte pieces).
  int partial_sector_warps = 0;
  // The share of the loaded and the stored DRAM bytes the resident blocks meet out of order
  // (sim/dram_order.hpp); not written (and 0 for the model) for the benchmarks that stream in order.
  bool dram_order_counted = false;
  double dram_scattered[2] = {0, 0};  // loads, stores
  // Sectors a block leaves partly written for another block to complete, summed over the blocks (the
  // split-sector study's split runs: each sector twice).
  double split_sectors = 0;
};

// The L1 wavefronts of a request whose lanes form `rows` row pieces of 32 / rows consecutive lanes, each piece
// aligned to its size: the lanes go through L1 in groups of 128 / lane_bytes (at most 32), one pass per line
// a group touches. A group holds whole pieces when pieces are at most 128 bytes (one line each: `rows`
// passes in all), else 128-byte parts of one piece (one line each: 32 x lane_bytes / 128 passes).
inline double rows_wavefronts(int rows, int lane_bytes) {
  return std::max(double(rows), std::max(1.0, 32.0 * lane_bytes / 128));
}

__global__ void empty_kernel() {}

// Each thread copies E elements of V at a stride of the block, all loads before any store (the pointers
// are __restrict__, so the compiler may batch them): E loads in flight per warp. The dynamic shared memory
// is never touched; it only caps how many blocks fit on an SM.
template <class V, int E>
__global__ void copy_ilp(const V* __restrict__ in, V* __restrict__ out) {
  extern __shared__ unsigned char unused[];
  const size_t base = blockIdx.x * size_t(256 * E) + threadIdx.x;
  V v[E];
#pragma unroll
  for (int e = 0; e < E; ++e) v[e] = in[base + e * 256];
#pragma unroll
  for (int e = 0; e < E; ++e) out[base + e * 256] = v[e];
}

template <class V, int E>
Counts copy_ilp_counts(size_t n_vec, int64_t dyn_smem) {
  Counts c;
  const double bytes = double(n_vec) * sizeof(V);
  c.blocks = int64_t(n_vec / (256 * E));
  c.threads_per_block = 256;
  c.shared_bytes_per_block = dyn_smem;
  c.useful_bytes = 2 * bytes;
  c.dram_read_bytes = c.dram_write_bytes = bytes;
  c.l1_sectors_ld = c.l1_sectors_st = c.l2_sectors_ld = c.l2_sectors_st = bytes / 32;
  c.global_ld_instructions = c.global_st_instructions = double(n_vec) / 32;
  c.l1_wavefronts_ld = c.l1_wavefronts_st = c.global_ld_instructions * rows_wavefronts(1, int(sizeof(V)));
  c.loads_in_flight_per_warp = E;
  return c;
}

// The same copy with plain pointers: each load may alias the store before it, so the compiler keeps them in
// order and a warp waits out one load's latency per element (the suite's copy-like bodies compile so).
template <int E>
__global__ void copy_chain(const float* in, float* out) {
  extern __shared__ unsigned char unused[];
  const size_t base = blockIdx.x * size_t(256 * E) + threadIdx.x;
#pragma unroll
  for (int e = 0; e < E; ++e) out[base + e * 256] = in[base + e * 256];
}

template <int E>
Counts copy_chain_counts(size_t n, int64_t dyn_smem) {
  Counts c = copy_ilp_counts<float, E>(n, dyn_smem);
  c.loads_in_flight_per_warp = 1;
  return c;
}

// Strided access with K sectors' worth of rows per warp instruction: lane l of warp w, step i touches row
// l / (32/K), column (8i + w)(32/K) + l mod (32/K) of a K x 32(32/K) tile of a P-wide matrix; the other side
// is linear. K = 32 is the naive transpose's pattern (one element per row per instruction, the 8 warps of a
// block completing each sector between them), K = 1 a coalesced row. Consecutive blocks walk down the
// rows, as consecutive blocks of the naive transpose walk down its output.
// kRowFast numbers the lanes the other way round, row fastest (lane l in row l mod K, column piece l / K): the
// same addresses a warp, each sector's lanes K apart, as naive's stores in a block BX = K wide have them.
// kAcross lays the blocks' tiles the other way: consecutive blocks side by side along the same K rows (as a
// copy's, or copy_shared's, blocks meet their output) instead of down the rows (as a transpose's meet its
// output); each block's own addresses are the same (--store-order, a study).
template <class T, int K, bool kRowFast = false, bool kAcross = false>
__host__ __device__ inline size_t strided_index(int P, int block, int warp, int lane, int step) {
  constexpr int m = 32 / K;
  const int tiles_down = P / K, tiles_across = P / (32 * m);
  const int in_row = kRowFast ? lane % K : lane / m, in_piece = kRowFast ? lane / K : lane % m;
  const int tile_row = kAcross ? block / tiles_across : block % tiles_down;
  const int tile_col = kAcross ? block % tiles_across : block / tiles_down;
  const size_t row = size_t(tile_row) * K + in_row;
  const size_t col = size_t(tile_col) * 32 * m + (step * 8 + warp) * m + in_piece;
  return row * P + col;
}

// The other side: lane l of warp w, step i of a block of 8 warps takes element 1024 block + 32 w + l + 256 i,
// linear_base + i x kLinearStep.
constexpr int kLinearStep = 256;
__host__ __device__ inline size_t linear_base(unsigned block, int warp, int lane) {
  return block * size_t(1024) + warp * 32 + lane;
}

template <class T, int K, bool kStridedStore, bool kRowFast = false, bool kAcross = false>
__global__ void strided(const T* __restrict__ in, T* __restrict__ out, int P) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const size_t lin0 = linear_base(blockIdx.x, warp, lane);
  T v[4];
  if (kStridedStore) {
#pragma unroll
    for (int i = 0; i < 4; ++i) v[i] = in[lin0 + i * kLinearStep];
#pragma unroll
    for (int i = 0; i < 4; ++i) out[strided_index<T, K, kRowFast, kAcross>(P, blockIdx.x, warp, lane, i)] = v[i];
  } else {
#pragma unroll
    for (int i = 0; i < 4; ++i) v[i] = in[strided_index<T, K, kRowFast, kAcross>(P, blockIdx.x, warp, lane, i)];
#pragma unroll
    for (int i = 0; i < 4; ++i) out[lin0 + i * kLinearStep] = v[i];
  }
}

// A staged copy's stores without the staging (--store-order, a study): block b loads a TW x TW tile packed in a
// contiguous chunk of the input (chunk b), then stores it as a tile of the output, a tiles x tiles grid of them
// (P = tiles x TW a side), each thread at (ty + BY i, tx + BX j) as the suite's tile walks go (tile_stores_map.hpp,
// which memsim's tile_stores_kernel.hpp replays). kDown places consecutive blocks down the output's tile rows (a
// transpose's order: padded's stores), else along them (copy_shared's); the loads are the same both ways. Tile
// rows of TW elements that end mid-sector leave each boundary sector to the neighbouring tile's block: the next
// block along, or `tiles` blocks later down.
template <class T, int TW, int BX, int BY, bool kDown>
__global__ void tile_stores(const T* __restrict__ in, T* __restrict__ out, int tiles) {
  constexpr int kRows = TW / BY, kCols = TW / BX;
  static_assert(TW % BY == 0 && TW % BX == 0, "the tile is whole steps of the block");
  const int b = blockIdx.x;
  const int tx = threadIdx.x % BX, ty = threadIdx.x / BX;
  T v[kRows][kCols];
#pragma unroll
  for (int i = 0; i < kRows; ++i)
#pragma unroll
    for (int j = 0; j < kCols; ++j) v[i][j] = in[tile_stores_map::in_index(TW, BX, BY, b, tx, ty, i, j)];
#pragma unroll
  for (int i = 0; i < kRows; ++i)
#pragma unroll
    for (int j = 0; j < kCols; ++j)
      out[tile_stores_map::out_index<kDown>(TW, BX, BY, b, tiles, tx, ty, i, j)] = v[i][j];
}

// strided's stores with the odd warps held back kDelayCycles SM cycles (a spin on clock64) after their loads: a
// sector's two pieces come from warps 2j and 2j + 1 (at 8 rows of 4-byte lanes, 4 of 2-byte ones), so the delay
// sets how far apart in time they reach the L1. A study of when the L1 merges them (--merge-window).
template <class T, int K, int kDelayCycles>
__global__ void strided_store_delayed(const T* __restrict__ in, T* __restrict__ out, int P) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const size_t lin0 = linear_base(blockIdx.x, warp, lane);
  T v[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) v[i] = in[lin0 + i * kLinearStep];
  if (kDelayCycles > 0 && (warp & 1)) {
    // The wait starts when the loads' values are in registers: the clock is read under a test of all four (a
    // value no input word has in practice), so the warp waits for them first (an arithmetic 0 made of them is
    // folded away by ptxas, and the clock then read at issue).
    unsigned dep = 0;
#pragma unroll
    for (int i = 0; i < 4; ++i) dep |= unsigned(v[i]);
    const long long start = dep != 0x9e3779b9u ? clock64() : 0;
    while (clock64() - start < kDelayCycles) {
    }
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) out[strided_index<T, K>(P, blockIdx.x, warp, lane, i)] = v[i];
}

// A staged drain's pieces (--drain-merges, a study of when the L1 merges a warp's own pieces): each warp loads
// 32 x kStores elements (coalesced), then writes them as 16-byte pieces into 32 / L rows of kStores / 2 sectors,
// L = 16 / sizeof(T) lanes a row (lane l: row l / L, element l mod L of the piece); store s writes piece s of each
// row, so a sector's two pieces are stores s and s + 1 of one warp. kShared: through shared memory and a barrier
// first, each store's value read back from it (a staged kernel's drain); else straight from registers.
// The shared memory is dynamic, so the same launch caps occupancy (cap_dynamic_shared).
template <class T, int kStores, bool kShared>
__global__ void drain_pieces(const T* __restrict__ in, T* __restrict__ out) {
  extern __shared__ unsigned char drain_smem[];
  T* tile = reinterpret_cast<T*>(drain_smem);
  constexpr int L = 16 / int(sizeof(T)), kRowElems = kStores * L;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const size_t gw = size_t(blockIdx.x) * (blockDim.x >> 5) + warp;
  T v[kStores];
#pragma unroll
  for (int s = 0; s < kStores; ++s) v[s] = in[(gw * kStores + s) * 32 + lane];
  if (kShared) {
#pragma unroll
    for (int s = 0; s < kStores; ++s) tile[(warp * kStores + s) * 32 + lane] = v[s];
    __syncthreads();
  }
  const size_t row = gw * (32 / L) + lane / L;
#pragma unroll
  for (int s = 0; s < kStores; ++s)
    out[row * kRowElems + s * L + lane % L] = kShared ? tile[(warp * kStores + s) * 32 + lane] : v[s];
}

// strided's loads, each followed by its store and without __restrict__ (a load may not pass a store that may
// alias it): one load in flight a warp, as the suite's naive_read has.
template <class T, int K>
__global__ void strided_load_chain(const T* in, T* out, int P) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const size_t lin0 = linear_base(blockIdx.x, warp, lane);
#pragma unroll
  for (int i = 0; i < 4; ++i) out[lin0 + i * kLinearStep] = in[strided_index<T, K>(P, blockIdx.x, warp, lane, i)];
}

// strided's stores, each after its load and without __restrict__ (the next load may not pass a store that may
// alias it): one load in flight a warp while the stores write rows in pieces, as the suite's direct bodies
// (copy, naive) and its kernels in blocks 8 wide do (a latency-bound residency beside partial-sector stores).
template <class T, int K>
__global__ void strided_store_chain(const T* in, T* out, int P) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const size_t lin0 = linear_base(blockIdx.x, warp, lane);
#pragma unroll
  for (int i = 0; i < 4; ++i) out[strided_index<T, K>(P, blockIdx.x, warp, lane, i)] = in[lin0 + i * kLinearStep];
}

// The L2 read requests of strided's (and strided_load_chain's) loads, memsim's count on one block (all blocks
// alike) times the blocks: each warp's loads_a_turn loads go together (4 where they are independent, 1 in the
// chain), the warps taking turns.
template <class T, int K, bool kStridedStore>
double strided_read_requests(int P, int loads_a_turn) {
  memsim::L2RequestCounter counter(memsim::MemoryRules{});
  const int blocks = int(int64_t(P) * P / 1024), block = std::min(blocks - 1, (P / K) * 3 + 5);
  for (int first = 0; first < 4; first += loads_a_turn)
    for (int warp = 0; warp < 8; ++warp)
      for (int step = first; step < first + loads_a_turn; ++step) {
        memsim::WarpAccess a;
        a.mask = ~0u, a.width = uint8_t(sizeof(T)), a.space = memsim::Space::Global, a.op = memsim::Op::Load;
        for (int lane = 0; lane < 32; ++lane) {
          const size_t i = kStridedStore ? linear_base(unsigned(block), warp, lane) + step * kLinearStep
                                         : strided_index<T, K>(P, block, warp, lane, step);
          a.addr[lane] = uint64_t(i) * sizeof(T);
        }
        counter.add(a);
      }
  return counter.requests() * blocks;
}

template <class T, int K, bool kStridedStore>
Counts strided_counts(int P, int64_t dyn_smem = 0) {
  Counts c;
  const double n = double(P) * P, bytes = n * sizeof(T);
  const double inst = n / 32;  // warp instructions on each side
  constexpr int m = 32 / K;
  // A row piece of m elements is aligned to its size: one sector when it is under 32 bytes.
  const double strided_sectors = K * (m * sizeof(T) < 32 ? 1.0 : m * sizeof(T) / 32.0);
  const double linear_sectors = 32.0 * sizeof(T) / 32;
  c.blocks = int64_t(n / 1024);
  c.threads_per_block = 256;
  c.shared_bytes_per_block = dyn_smem;
  c.useful_bytes = 2 * bytes;
  c.dram_read_bytes = c.dram_write_bytes = bytes;
  c.global_ld_instructions = c.global_st_instructions = inst;
  c.loads_in_flight_per_warp = 4;
  c.l2_requests_ld = strided_read_requests<T, K, kStridedStore>(P, 4);
  const double strided_wavefronts = inst * rows_wavefronts(K, int(sizeof(T)));
  const double linear_wavefronts = inst * rows_wavefronts(1, int(sizeof(T)));
  c.l1_wavefronts_ld = kStridedStore ? linear_wavefronts : strided_wavefronts;
  c.l1_wavefronts_st = kStridedStore ? strided_wavefronts : linear_wavefronts;
  if (kStridedStore) {
    c.l1_sectors_ld = c.l2_sectors_ld = inst * linear_sectors;
    c.l1_sectors_st = c.l2_sectors_st = inst * strided_sectors;
    // A block's K rows each hold 32m elements in pieces of m from 32 (step, warp) pairs, consecutive warps
    // side by side: with pieces under a sector every line of them is written in parts by all 8 warps.
    const double row_bytes = 32.0 * m * sizeof(T);
    if (m * sizeof(T) < 32) {
      c.partial_lines_per_block = K * std::ceil(row_bytes / 128);
      // A sector's pieces (m elements each) come from consecutive warps of one step, from all 8 when a
      // sector holds 8 pieces or more (then from two steps or more).
      c.partial_sector_warps = std::min(8, int(32 / (m * sizeof(T))));
    }
  } else {
    // Each block reads whole sectors between its warps, so L1 serves the neighbours' loads.
    c.l1_sectors_ld = inst * strided_sectors;
    c.l2_sectors_ld = bytes / 32;
    c.l1_sectors_st = c.l2_sectors_st = inst * linear_sectors;
  }
  return c;
}

// Shared memory alone: every lane reads a word in a row of 64 words, K lanes share each bank with distinct
// words, so every LDS takes K wavefronts. Volatile keeps every read; 2 instructions per LDS.
template <int K>
__global__ void shared_conflict(float* out, int reps) {
  __shared__ float s[32 * 64];
  for (int i = threadIdx.x; i < 32 * 64; i += blockDim.x) s[i] = float(i);
  __syncthreads();
  constexpr int g = 32 / K;
  const int lane = threadIdx.x & 31;
  volatile float* p = s + (lane / g) * 64 + lane % g;
  float acc = 0;
  for (int r = 0; r < reps; ++r) {
#pragma unroll
    for (int it = 0; it < 32; ++it) acc += p[it];
  }
  out[blockIdx.x * size_t(blockDim.x) + threadIdx.x] = acc;
}

template <int K>
Counts shared_conflict_counts(int64_t blocks, int reps) {
  Counts c;
  const double warps = double(blocks) * 8;
  c.blocks = blocks;
  c.threads_per_block = 256;
  c.shared_bytes_per_block = 32 * 64 * 4;
  // The fill: 8 conflict-free stores of 32 consecutive words per warp.
  c.shared_instructions = warps * (8 + double(reps) * 32);
  c.shared_wavefronts = warps * (8 + double(reps) * 32 * K);
  c.global_st_instructions = warps;
  c.l1_sectors_st = c.l2_sectors_st = warps * 4;
  c.l1_wavefronts_st = warps;  // a row of 32 floats: one line
  c.dram_write_bytes = c.useful_bytes = warps * 128;
  c.barriers = 1;  // the row is filled, then read
  return c;
}

// The whitepaper's shared-memory copy with a K-way conflicting tile read: a 32x8 block stages a 32x32 tile
// row by row, then warp-step q = 8i + ty reads 32 words spread over K tile rows and 32/K columns (K lanes per
// bank), and writes them as output row q of the tile: global traffic of a copy, K wavefronts per shared read.
__host__ __device__ inline void conflict_rc(int K, int q, int lane, int& r, int& c) {
  const int g = 32 / K;
  r = lane / g + K * (q % g);
  c = lane % g + g * (q / g);
}

template <int K>
__global__ void shared_copy_conflict(const float* __restrict__ in, float* __restrict__ out, int W) {
  __shared__ float tile[32][32];
  const int col0 = blockIdx.x * 32, row0 = blockIdx.y * 32, tx = threadIdx.x, ty = threadIdx.y;
#pragma unroll
  for (int i = 0; i < 4; ++i) tile[ty + 8 * i][tx] = in[size_t(row0 + ty + 8 * i) * W + col0 + tx];
  __syncthreads();
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    int r, c;
    conflict_rc(K, 8 * i + ty, tx, r, c);
    out[size_t(row0 + 8 * i + ty) * W + col0 + tx] = tile[r][c];
  }
}

template <int K>
Counts shared_copy_conflict_counts(int P) {
  Counts c;
  const double n = double(P) * P, bytes = n * 4, warps = n / 128;
  c.blocks = int64_t(n / 1024);
  c.threads_per_block = 256;
  c.shared_bytes_per_block = 4096;
  c.useful_bytes = 2 * bytes;
  c.dram_read_bytes = c.dram_write_bytes = bytes;
  c.global_ld_instructions = c.global_st_instructions = warps * 4;
  c.l1_sectors_ld = c.l1_sectors_st = c.l2_sectors_ld = c.l2_sectors_st = bytes / 32;
  c.l1_wavefronts_ld = c.l1_wavefronts_st = warps * 4;  // a row of 32 floats a request: one line
  c.shared_instructions = warps * 8;
  c.shared_wavefronts = warps * (4 + 4.0 * K);
  c.loads_in_flight_per_warp = 4;
  c.barriers = 1;
  return c;
}

// Per-block cost: a 2-D copy written the way people write it (and the suite's static shapes run): block and
// tile are compile-time constants, indices 32-bit, the loop unrolled, no bounds tests (the grid covers the
// matrix exactly). A BX x BY block covers a BX x (BY * E) tile, E rows a thread. Plain pointers, as the suite's
// copy: each load may alias the store before it, so a warp keeps one load in flight. At one matrix, E = 1, 2,
// 4, 8 launch 8x, 4x, 2x, 1x the blocks for the same bytes: what grows with E's inverse is what each block
// costs besides its loads (launch and retirement, the prologue's index math).
template <int BX, int BY, int E>
__global__ void tiled_copy(const float* in, float* out, int W) {
  const int x = blockIdx.x * BX + threadIdx.x;
  const int y0 = blockIdx.y * (BY * E) + threadIdx.y;
#pragma unroll
  for (int i = 0; i < E; ++i) {
    const int o = (y0 + i * BY) * W + x;
    out[o] = in[o];
  }
}

inline Counts tiled_copy_counts(int W, int H, int bx, int by, int e) {
  Counts c;
  const double n = double(W) * H, bytes = n * 4;
  c.blocks = int64_t(W / bx) * (H / (by * e));
  c.threads_per_block = bx * by;
  c.useful_bytes = 2 * bytes;
  c.dram_read_bytes = c.dram_write_bytes = bytes;
  // A warp covers 32 / bx rows of bx floats: whole sectors (bx >= 8), 32 * 4 / 32 = 4 sectors a request.
  c.l1_sectors_ld = c.l1_sectors_st = c.l2_sectors_ld = c.l2_sectors_st = bytes / 32;
  c.global_ld_instructions = c.global_st_instructions = n / 32;
  // ... in 32 / bx lines (bx <= 32), one wavefront each.
  c.l1_wavefronts_ld = c.l1_wavefronts_st = c.global_ld_instructions * rows_wavefronts(std::max(1, 32 / bx), 4);
  c.loads_in_flight_per_warp = 1;
  return c;
}

// The same tile staged through shared memory with a barrier between the two halves (no transpose: each
// thread writes back what it read, so every shared access is a conflict-free row of 32 words). At E = 1 a
// block is one barrier around one load and one store per thread. Static shapes as tiled_copy.
template <int BX, int BY, int E>
__global__ void tiled_copy_shared(const float* __restrict__ in, float* __restrict__ out, int W) {
  __shared__ float tile[BY * E][BX];
  const int x = blockIdx.x * BX + threadIdx.x;
  const int y0 = blockIdx.y * (BY * E);
#pragma unroll
  for (int i = 0; i < E; ++i) {
    const int r = threadIdx.y + i * BY;
    tile[r][threadIdx.x] = in[(y0 + r) * W + x];
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < E; ++i) {
    const int r = threadIdx.y + i * BY;
    out[(y0 + r) * W + x] = tile[r][threadIdx.x];
  }
}

inline Counts tiled_copy_shared_counts(int W, int H, int bx, int by, int e) {
  Counts c = tiled_copy_counts(W, H, bx, by, e);
  c.shared_bytes_per_block = int64_t(bx) * by * e * 4;
  c.shared_instructions = c.shared_wavefronts = 2 * double(W) * H / 32;
  // As the suite's staged bodies: the loads of one unrolled step (up to 4) are in flight together.
  c.loads_in_flight_per_warp = e < 4 ? e : 4;
  c.barriers = 1;
  return c;
}

// Instruction issue: a copy (4 elements a thread, or a 32x32 tile staged through shared memory behind a
// barrier, as the suite's tiled bodies) in which every element also drives R rounds of integer index-style
// arithmetic: one multiply-add (the FMA pipe) and one three-input add (the ALU pipe) a round, the mix nvcc
// balances address arithmetic to. Four elements a thread give four independent chains. R = 0 is the plain
// copy (memory-bound); a large R is issue-bound, so the sweep measures the rate at which SMs issue such code
// while their memory traffic is in flight. The rounds' result is added to each element masked with `zero`,
// a launch argument the compiler cannot see is 0: every round is kept, and the output is still a copy.
template <int R>
__device__ __forceinline__ unsigned index_rounds(unsigned a, unsigned m) {
  unsigned b = a ^ 0x9e3779b9u;
#pragma unroll
  for (int k = 0; k < R; ++k) {
    a = a * m + b;
    b = b + a + unsigned(k);
  }
  return a ^ b;
}

template <int R>
__global__ void issue_copy(const unsigned* __restrict__ in, unsigned* __restrict__ out, unsigned m, unsigned zero) {
  const size_t base = blockIdx.x * size_t(1024) + threadIdx.x;
  unsigned v[4];
#pragma unroll
  for (int e = 0; e < 4; ++e) v[e] = in[base + e * 256];
#pragma unroll
  for (int e = 0; e < 4; ++e) out[base + e * 256] = v[e] + (index_rounds<R>(unsigned(base) + e * 256u, m) & zero);
}

// The 32x8-thread, 32x32-element tile of the suite's staged bodies (no transpose: rows of 32 words, no
// bank conflicts), the rounds between the loads and the barrier.
template <int R>
__global__ void issue_tile(const unsigned* __restrict__ in, unsigned* __restrict__ out, int W, unsigned m, unsigned zero) {
  __shared__ unsigned tile[32 * 32];
  const int x = blockIdx.x * 32 + threadIdx.x, y0 = blockIdx.y * 32;
  unsigned h[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) tile[(threadIdx.y + 8 * i) * 32 + threadIdx.x] = in[size_t(y0 + threadIdx.y + 8 * i) * W + x];
#pragma unroll
  for (int i = 0; i < 4; ++i) h[i] = index_rounds<R>(unsigned(x) * 7u + unsigned(y0 + threadIdx.y + 8 * i), m) & zero;
  __syncthreads();
#pragma unroll
  for (int i = 0; i < 4; ++i)
    out[size_t(y0 + threadIdx.y + 8 * i) * W + x] = tile[(threadIdx.y + 8 * i) * 32 + threadIdx.x] + h[i];
}

inline Counts issue_counts(size_t n, bool tile) {
  Counts c = copy_ilp_counts<float, 4>(n, 0);
  if (tile) {
    c.barriers = 1;
    c.shared_bytes_per_block = 32 * 32 * 4;
    c.shared_instructions = c.shared_wavefronts = 2 * double(n) / 32;
  }
  return c;
}

// Half-sector stores: every thread writes one 32-byte sector as two 16-byte stores, the two halves one after
// the other (as a 4 x f64 row vector is stored). A warp's request holds K rows of m = 32/K lanes; the lanes
// of a row write m neighbouring sectors of one 128-byte line, so each request writes m half sectors in each
// of K lines (m = 1, 2, 4). Block b, warp w: rows (b mod R/K) K .. + K - 1, sectors (b div R/K) 8m + w m
// .. + m - 1 of rows of S sectors (R x S sectors in all): every sector is written whole by the two stores.
// The loads (two 16-byte pieces a thread, block-linear) are coalesced.
template <int K>
__host__ __device__ inline size_t half_sector_index(int rows, int sectors_per_row, int block, int warp, int lane) {
  constexpr int m = 32 / K;
  const int tiles_down = rows / K;
  const size_t row = size_t(block % tiles_down) * K + lane / m;
  const size_t sector = size_t(block / tiles_down) * 8 * m + warp * m + lane % m;
  return row * sectors_per_row + sector;
}

// J > 1: each thread does the work of J such blocks (virtual blocks b J .. b J + J - 1), all 2J loads before
// its 2J stores, as the suite's reg4x4 stores a thread's four 4 x f64 output rows one after another.
template <int K, int J = 1>
__global__ void half_sector_store(const uint4* __restrict__ in, uint4* __restrict__ out, int rows, int sectors_per_row) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  uint4 lo[J], hi[J];
#pragma unroll
  for (int q = 0; q < J; ++q) {
    const size_t lin = (blockIdx.x * size_t(J) + q) * 256 + threadIdx.x;  // this thread's q-th sector of the input
    lo[q] = in[2 * lin];
    hi[q] = in[2 * lin + 1];
  }
#pragma unroll
  for (int q = 0; q < J; ++q) {
    const size_t s = half_sector_index<K>(rows, sectors_per_row, int(blockIdx.x) * J + q, warp, lane);
    out[2 * s] = lo[q];
    out[2 * s + 1] = hi[q];
  }
}

template <int K, int J = 1>
Counts half_sector_counts(int rows, int sectors_per_row) {
  Counts c;
  const double sectors = double(rows) * sectors_per_row, bytes = sectors * 32;
  c.blocks = int64_t(sectors / (256 * J));
  c.threads_per_block = 256;
  c.useful_bytes = 2 * bytes;
  c.dram_read_bytes = c.dram_write_bytes = bytes;
  c.global_ld_instructions = c.global_st_instructions = 2 * sectors / 32;
  // Loads: a warp's 16-byte pieces at a 32-byte stride, 32 sectors a request, each read whole by the pair.
  c.l1_sectors_ld = 2 * sectors;
  c.l2_sectors_ld = sectors;
  // Stores: each request writes half of 32 sectors, m of them in each of K lines.
  c.l1_sectors_st = c.l2_sectors_st = 2 * sectors;
  c.l2_requests_st = c.global_st_instructions * K;
  // 16-byte lanes go through L1 8 at a time: a load's 8 lanes span 256 bytes (2 lines), 8 passes a request;
  // a store's 8 lanes hold 8 / m rows of one line each, 32 / m = K passes a request.
  c.l1_wavefronts_ld = c.global_ld_instructions * 8;
  c.l1_wavefronts_st = c.global_st_instructions * K;
  c.loads_in_flight_per_warp = 2 * J;
  // A virtual block's 256 sectors lie in 64 lines; a warp writes m neighbouring sectors of a row, so a line's
  // 4 sectors come from 4 / m of the 8 warps (one warp alone for K = 8: not counted), each line weighted by
  // that share as the replay weighs the suite's (sim/partial_lines.hpp); J virtual blocks a block.
  constexpr int m = 32 / K;
  c.partial_lines_per_block = m < 4 ? J * 64.0 * (4 / m) / 8 : 0;
  c.partial_sector_warps = m < 4 ? 1 : 0;  // a sector's two halves from one thread
  return c;
}


// Split sectors (a study, not calibrated on): every 32-byte sector of the output is written as two 16-byte
// halves by two blocks D apart in launch order, as vec4_shared's drain (f16, block 32x8) writes each output
// sector's halves from the blocks of tile rows 2y and 2y + 1, a grid row (64 blocks at 8192 wide) apart. The
// output is `pairs` pairs of `slots` sectors; blocks b and b + D (b mod 2D < D) make pair
// (b div 2D) D + b mod D, the first writing the first half of all its slots, the second the second halves.
// kSame (D = 0) writes the same bytes with both halves of a sector from one warp (narrow) or one thread
// (dense), back to back, half_sector_store's way: blocks 2p and 2p + 1 write both halves of half pair p's
// slots each. kWhole is the control: the same blocks and bytes, one whole sector per store.
//   Narrow (vec4_shared's store): 128 slots a pair; each block stages 2 KiB of input in shared memory (8 bytes
// a thread, coalesced), then each warp stores 16 times with 8 active lanes of 2 bytes, 16 bytes in one sector
// (kWhole: 8 stores of 16 lanes, 32 bytes).
//   Dense: 512 slots a pair; each thread loads two 16-byte chunks (coalesced) and stores each to a half
// sector, so a warp's store writes 32 half sectors (8 lines, 4 of each); kWhole pairs lanes into sectors.
// Layout: columns = 0 puts pair p's slots at sectors p slots .. + slots - 1 (a line's sectors from one
// warp); columns = C lays the output out as vec4_shared's does, a matrix of C slots rows of pairs / C sectors:
// slot j of pair p at row (p mod C) slots + j, column p div C; narrow split blocks then take their slots in
// vec4_shared's order (warp w, store i: slot 8i + w). At C = D = 64, narrow, it is vec4_shared's drain at
// 8192 x 8192 f16, block 32x8, store for store.
enum SplitMode : int { kSplit = 0, kSame = 1, kWhole = 2 };

struct SplitGeometry {
  int mode = kSplit;
  int distance = 1;  // D: blocks between a sector's two writers (kSplit)
  bool dense = false;
  int columns = 0;  // 0: linear layout; else vec4_shared's transposed one, `columns` pairs a row group
  int64_t pairs = 0;
  __host__ __device__ int slots() const { return dense ? 512 : 128; }
  int64_t blocks() const { return 2 * pairs; }
};

// Where block b's stores go: slot j of its pair lies at sector first + j stride (block-invariant, worked out
// once a thread in 32-bit arithmetic: a launch has under 2^31 blocks and pairs).
struct SplitBlock {
  int64_t first = 0, stride = 1;
  int half = 0;  // kSplit: the half every store of the block writes
  int base = 0;  // kSame, kWhole: the block's first slot of its pair
};

__host__ __device__ inline SplitBlock split_block_of(const SplitGeometry& g, unsigned b) {
  const unsigned slots = unsigned(g.slots());
  SplitBlock sb;
  unsigned p;
  if (g.mode == kSplit) {
    const unsigned d = unsigned(g.distance), q = b / d;
    p = q / 2 * d + (b - q * d);
    sb.half = int(q % 2);
  } else {
    p = b / 2;
    sb.base = int(b % 2 * (slots / 2));
  }
  if (g.columns == 0) {
    sb.first = int64_t(p) * slots;
  } else {
    const unsigned c = unsigned(g.columns), row_group = p % c;
    sb.stride = unsigned(g.pairs) / c;
    sb.first = int64_t(row_group) * slots * sb.stride + p / c;
  }
  return sb;
}

// The sector the k-th 16-byte chunk of the block's input goes to, and which half of it (half = 0 or 1).
// Narrow: chunk k = 16w + i is warp w's i-th store (kWhole: store i / 2, lanes 8 (i mod 2) ..).
// Dense: chunk k = 256q + t is thread t's q-th load and store.
__host__ __device__ inline int64_t split_sector_in(const SplitGeometry& g, const SplitBlock& sb, int k, int& half) {
  int j;
  if (g.mode == kSplit) {
    half = sb.half;
    j = (!g.dense && g.columns) ? 8 * (k % 16) + k / 16 : k;
  } else if (!g.dense) {  // warp w: slots 8w .. 8w + 7 of its block's share, first half then second
    j = sb.base + k / 2;
    half = k % 2;
  } else if (g.mode == kSame) {  // thread t: slot t, first half (store 0) then second (store 1)
    j = sb.base + k % 256;
    half = k / 256;
  } else {  // store q, lane l of warp w: half l mod 2 of slot 128q + 16w + l / 2
    const int q = k / 256, t = k % 256;
    j = sb.base + 128 * q + 16 * (t / 32) + (t % 32) / 2;
    half = t % 2;
  }
  return sb.first + j * sb.stride;
}

__global__ void split_sector_store(const uint2* __restrict__ in, uint16_t* __restrict__ out, SplitGeometry g) {
  __shared__ uint2 tile[256];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int64_t b = blockIdx.x;
  tile[threadIdx.x] = in[b * 256 + threadIdx.x];
  __syncthreads();
  const uint16_t* t16 = reinterpret_cast<const uint16_t*>(tile);
  const SplitBlock sb = split_block_of(g, blockIdx.x);
  int half = 0;
  if (g.mode == kWhole) {
    if (lane < 16) {
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        const int k = 16 * warp + 2 * i + lane / 8;
        const int64_t s = split_sector_in(g, sb, k, half);
        out[s * 16 + half * 8 + lane % 8] = t16[k * 8 + lane % 8];
      }
    }
  } else if (lane < 8) {
#pragma unroll
    for (int i = 0; i < 16; ++i) {
      const int k = 16 * warp + i;
      const int64_t s = split_sector_in(g, sb, k, half);
      out[s * 16 + half * 8 + lane] = t16[k * 8 + lane];
    }
  }
}

__global__ void split_sector_store_dense(const uint4* __restrict__ in, uint4* __restrict__ out, SplitGeometry g) {
  const int64_t b = blockIdx.x;
  const int t = threadIdx.x;
  const uint4 v0 = in[b * 512 + t], v1 = in[b * 512 + 256 + t];
  const SplitBlock sb = split_block_of(g, blockIdx.x);
  int half = 0;
  int64_t s = split_sector_in(g, sb, t, half);
  out[2 * s + half] = v0;
  s = split_sector_in(g, sb, 256 + t, half);
  out[2 * s + half] = v1;
}

// The counts, for the record (the cost model has no count for a sector completed by another block).
inline Counts split_sector_counts(const SplitGeometry& g) {
  Counts c;
  const double sectors = double(g.pairs) * g.slots(), bytes = sectors * 32;
  const bool whole = g.mode == kWhole;
  c.blocks = g.blocks();
  c.threads_per_block = 256;
  c.useful_bytes = 2 * bytes;
  c.dram_read_bytes = c.dram_write_bytes = bytes;
  c.l1_sectors_ld = c.l2_sectors_ld = sectors;
  c.l2_sectors_st = c.l1_sectors_st = whole ? sectors : 2 * sectors;
  if (!g.dense) {
    // Loads: 8 bytes a lane, 256 bytes a request (2 passes). Stores: one sector a request, one pass.
    c.global_ld_instructions = bytes / 256;
    c.l1_wavefronts_ld = 2 * c.global_ld_instructions;
    c.global_st_instructions = c.l2_requests_st = c.l1_wavefronts_st = c.l2_sectors_st;
    c.shared_bytes_per_block = 2048;
    c.barriers = 1;
    // Per block: 8 shared stores of 256 bytes (2 wavefronts each), then the drain's loads (one wavefront each).
    const double drain = whole ? 64 : 128;
    c.shared_instructions = double(c.blocks) * (8 + drain);
    c.shared_wavefronts = double(c.blocks) * (16 + drain);
  } else {
    // Loads: 16 bytes a lane, 512 bytes a request (4 passes). Stores: 32 half sectors a request in 8 lines
    // (kWhole: 16 sectors in 4 lines), 8 lanes a pass, a pass per line.
    c.global_ld_instructions = c.global_st_instructions = bytes / 512;
    c.l1_wavefronts_ld = 4 * c.global_ld_instructions;
    const double lines = g.columns && g.mode == kSplit ? 32 : (whole ? 4 : 8);
    c.l2_requests_st = c.global_st_instructions * lines;
    c.l1_wavefronts_st = c.global_st_instructions * (g.columns && g.mode == kSplit ? 32 : 8);
    c.loads_in_flight_per_warp = 2;
  }
  return c;
}

// ---- DRAM order: a copy of 128-byte chunks, one side in transposed chunk order ----------------------------
// The buffer is a rows x cols grid of 128-byte chunks. Each block of 256 threads moves 32 consecutive chunks
// of the linear side (8 lanes of 16 bytes a chunk: whole lines, 16 sectors a request on both sides); chunk
// (r, c) of the linear side is chunk (c, r) of the cols x rows grid on the other. kScatter: reads linear,
// writes transposed (the write side of a transpose launched along its input's rows); else the reverse. Blocks
// resident together cover R x 32 consecutive linear chunks, which the transposed side meets as runs of
// R x 32 / cols chunks in each of its rows, spread over the whole buffer: from 66 KB a run (cols = 64) down
// to one chunk (cols = 65536). cols = 1 is a plain copy (the transposed order is the linear one). With lanes
// of V narrower than 16 bytes (8 or 4) a chunk takes 16 or 32 lanes, a warp moves 2 or 1 chunks and a block
// 16 or 8: the same bytes in the same order by twice or four times the warps, each with fewer bytes in flight.
// Chunks of 64 or 32 bytes (kChunk) split each line of the transposed side between blocks, as a transpose's
// 4- and 2-byte tiles of 16 columns do.
constexpr int kChunkBytes = 128;
template <class V, int kChunk = kChunkBytes>
constexpr int lanes_per_chunk() { return kChunk / int(sizeof(V)); }
template <class V, int kChunk = kChunkBytes>
constexpr int chunks_per_block() { return 256 / lanes_per_chunk<V, kChunk>(); }

struct ChunkGrid {
  unsigned rows = 0, cols = 0;
  // The transposed side's chunk for linear chunk i.
  __host__ __device__ unsigned transposed(unsigned i) const { return (i % cols) * rows + i / cols; }
};

// sleep_ns > 0: each thread then sleeps that long before its block retires, so that of the blocks resident at
// once only some have loads in flight (the study's question: which of them make a window).
template <class V, int kChunk, bool kScatter>
__global__ void order_chunks(const V* __restrict__ in, V* __restrict__ out, ChunkGrid g, unsigned sleep_ns) {
  extern __shared__ unsigned char unused[];  // only caps the blocks an SM holds
  constexpr unsigned kLanes = lanes_per_chunk<V, kChunk>();
  const unsigned linear = blockIdx.x * chunks_per_block<V, kChunk>() + threadIdx.x / kLanes, part = threadIdx.x % kLanes;
  const unsigned other = g.transposed(linear);
  const unsigned from = kScatter ? linear : other, to = kScatter ? other : linear;
  out[to * kLanes + part] = in[from * kLanes + part];
  if (sleep_ns > 0) __nanosleep(sleep_ns);
}

// The counts; the DRAM order is the caller's (it depends on the blocks resident at once).
template <class V, int kChunk>
inline Counts chunk_counts(const ChunkGrid& g, bool scatter) {
  Counts c;
  constexpr int kChunksPerWarp = 32 / lanes_per_chunk<V, kChunk>();
  const double chunks = double(g.rows) * g.cols, bytes = chunks * kChunk, warps = chunks / kChunksPerWarp;
  c.blocks = int64_t(chunks) / chunks_per_block<V, kChunk>();
  c.threads_per_block = 256;
  c.useful_bytes = 2 * bytes;
  c.dram_read_bytes = c.dram_write_bytes = bytes;
  c.l1_sectors_ld = c.l1_sectors_st = c.l2_sectors_ld = c.l2_sectors_st = bytes / 32;
  // A warp's request: its chunks, consecutive on the linear side (one pass per line of each lane group); on
  // the transposed side one row each (a line each) unless cols = 1 makes it linear too.
  const double linear = rows_wavefronts(std::max(1, kChunksPerWarp * kChunk / kChunkBytes), int(sizeof(V)));
  const double transposed = g.cols > 1 ? rows_wavefronts(kChunksPerWarp, int(sizeof(V))) : linear;
  c.l1_wavefronts_ld = warps * (scatter ? linear : transposed);
  c.l1_wavefronts_st = warps * (scatter ? transposed : linear);
  c.global_ld_instructions = c.global_st_instructions = warps;
  return c;
}

}  // namespace mb
