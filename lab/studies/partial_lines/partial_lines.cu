// memsim-partial-lines: what makes a partial-sector store pattern slow on a modern GPU? (a diagnostic)
//
// The suite's vec4 kernel with an 8x32 block takes 1.6x as long as naive with the same block on the H100,
// although every store request of both writes 16 bytes of each of 8 lines (validate/results/
// l2_partial_lines.md). What differs: a vec4 warp issues 4 stores back to back, its block keeps 32 output
// lines partly written (naive: 8), and the 8 lines of one request lie 4 output rows apart (naive: 1). This
// program separates those with stores alone, the store pattern of both kernels generalised:
//
//   a block of 8x32 threads, given row group R and column group C, writes 8K lines of an n x n matrix of
//   4-byte words, W neighbouring lines in each of 8K / W rows: thread (tx, ty) makes K stores, store k to line
//   j = (interleaved ? K tx + k : tx + 8k) of the block, that is row 8K/W R + j / W, column 32 (W C + j mod W) + ty.
//
// So each store instruction of a warp (8 tx x 4 ty) writes 16 bytes of 8 lines, K per thread; the block opens
// 8K lines and completes each (32 words) within itself; "interleaved" puts a request's 8 lines K rows apart
// (vec4: K = 4, W = 1), "blocked" 1 row apart. K = 1 is naive's pattern. W = K ("K lines a row") puts a
// thread's K stores in one row, so that the block's lines lie in 8 rows only (memsim-microbench's
// strided_store with 8 rows a request: the same lines open at once in 4x fewer rows). The launch order
// (store_only) takes g neighbouring column groups of the same rows before moving down the row groups: g = 1 is
// the suite's order, g = 256 walks whole rows first ("blocks across"). "Rows padded" moves each output row 32,
// 256, 1024 or 2080 words (128 B, 1 KiB, 4 KiB, 8.125 KiB) past the power-of-two pitch, so that the rows' lines
// no longer all share the address bits a 32 KiB row stride leaves alike. Two more runs replay the kernels'
// loads as well (naive: one word; vec4: one 16-byte load of 4 words), with the output the transpose of the
// input; "each line by G warps" has store_only's K = 8 lines written by 1, 2, 4 or 8 warps each
// (store_only_warp_lines), alone and after loads from rows (row_loads_warp_lines);
// six store K = 4 words loaded first in one of two patterns (loads_then_stores), with W = 1 or 4, the
// row loads also with a barrier between loads and stores.
//
// Each configuration runs with as many blocks resident per SM as fit (8), then with 4, 2 and 1, held back by
// dynamic shared memory the kernels do not use: the lines partly written at once are resident blocks x 8K.
//
// Timing (docs/validation.md): CUDA events around each launch, outputs rotated over 4 buffers of n x n words (1 GiB,
// 20x the H100's L2), 2 warm-up launches, median of 15 with min and max. Checks: the first launch's output is
// compared word for word with the host's expectation. --once launches each configuration once, untimed, for
// Nsight Compute; --only TEXT runs the configurations whose name contains TEXT. Output: one JSON document on
// stdout.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <string>
#include <vector>

#include "validate/cuda_check.hpp"

namespace {

constexpr int kN = 8192;  // words a side: 256 MiB a matrix
constexpr int kMaxPad = 2080;  // words, the most a run pads an output row by
constexpr int kOutputs = 4, kWarmup = 2, kReps = 15;

__host__ __device__ inline uint32_t input_word(uint64_t i) { return uint32_t(i * 2654435761u) ^ 0x5bd1e995u; }

// Line of store k of thread column tx among its block's 8K lines.
template <int K, bool kInterleaved>
__host__ __device__ inline int line_in_block(int tx, int k) {
  return kInterleaved ? K * tx + k : tx + 8 * k;
}

struct Position {
  size_t row, col;
};

// Launch order: block b of the 1D grid takes row group (b / g) mod R and column group (b / (g R)) g + b mod g
// (R row groups): g consecutive blocks write neighbouring column groups, i.e. neighbouring lines of the same
// rows, before the walk moves down the row groups. g = 1 is the suite's order (consecutive blocks take
// consecutive row groups); g = n / (32 W) walks a whole row of column groups first ("blocks across").
struct BlockGroups {
  unsigned row_group, col_group;
};
__host__ __device__ inline BlockGroups block_groups(unsigned b, int g, unsigned row_groups) {
  return {(b / g) % row_groups, b / (g * row_groups) * g + b % g};
}

template <int K, bool kInterleaved, int W>
__host__ __device__ inline Position store_position(int n, int g, unsigned b, int tx, int ty, int k) {
  static_assert(W >= 1 && K % W == 0, "a thread's K stores fill whole rows of W lines");
  const BlockGroups bg = block_groups(b, g, unsigned(n / (8 * K / W)));
  const int j = line_in_block<K, kInterleaved>(tx, k);
  return {size_t(bg.row_group) * (8 * K / W) + j / W, (size_t(bg.col_group) * W + j % W) * 32 + ty};
}

template <int K, bool kInterleaved, int W>
__global__ void store_only(uint32_t* __restrict__ out, int n, int pitch, int g) {
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const Position p = store_position<K, kInterleaved, W>(n, g, blockIdx.x, threadIdx.x, threadIdx.y, k);
    out[p.row * pitch + p.col] = uint32_t(p.row * n + p.col);
  }
}

// The lines of store_only<8, *, 1>'s block (64 rows, one line each), each line written by G warps of the 8
// (G = 1, 2, 4, 8) instead of always 8: the warps form groups of G (q = w / G, member r = w mod G), a group
// owns 8G of the rows, and store k of member r writes 16 bytes (words 4p .. 4p + 3, p = r 8/G + k / G) of
// row 8 (k mod G) + tx of its group's rows. A line's 8 pieces then come from G warps, 8 / G from each
// (G = 1: one warp back to back; G = 8: one piece from every warp at the same k, as store_only).
template <int G>
__host__ __device__ inline Position warp_lines_position(int n, unsigned b, int tx, int ty, int k) {
  static_assert(G == 1 || G == 2 || G == 4 || G == 8, "8 warps in groups of G");
  constexpr int K = 8;
  const BlockGroups bg = block_groups(b, 1, unsigned(n / (8 * K)));
  const int w = ty / 4, q = w / G, r = w % G, piece = r * (K / G) + k / G;
  return {size_t(bg.row_group) * (8 * K) + q * 8 * G + 8 * (k % G) + tx, size_t(bg.col_group) * 32 + 4 * piece + ty % 4};
}
template <int G>
__global__ void store_only_warp_lines(uint32_t* __restrict__ out, int n) {
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    const Position p = warp_lines_position<G>(n, blockIdx.x, threadIdx.x, threadIdx.y, k);
    out[p.row * n + p.col] = uint32_t(p.row * n + p.col);
  }
}

// The same lines and stores with each group of G warps a block of its own (blocks of G warps, 8 / G times as
// many): block b' runs group b' mod (8 / G) of store_only_warp_lines<G>'s block b' / (8 / G). Every warp stores
// exactly as there, and as many warps fit an SM; only the block a line's writers share is smaller. Does the
// read-back follow the warps that write a line (G), or their share of their block's warps (G / 8 there, 1 here)?
template <int G>
__global__ void store_only_warp_lines_small(uint32_t* __restrict__ out, int n) {
  const unsigned b = blockIdx.x / (8 / G);
  const int ty = threadIdx.y + 4 * G * int(blockIdx.x % (8 / G));
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    const Position p = warp_lines_position<G>(n, b, threadIdx.x, ty, k);
    out[p.row * n + p.col] = uint32_t(p.row * n + p.col);
  }
}

// Wider lanes, the same 16-byte pieces: words of B = 8 or 16 bytes (4 is store_only's), a piece = 16 / B
// lanes, a request = 32 B / 16 lines, a line = 8 pieces, one from each warp at the same store k (as above).
// The matrix keeps 8192 rows of 32 KiB: 4096 words of 8 bytes or 2048 of 16 a row. Lane l of warp w (w =
// threadIdx.y / 4, l = threadIdx.x + 8 (threadIdx.y mod 4)), store k: line j = K (l / P) + k of the block's
// 32 B K / 16 (rows), word w P + l mod P of the line (P = 16 / B lanes a piece). g as store_only's.
constexpr int kWideRows = 8192;
template <class Word>
__host__ __device__ constexpr int wide_cols() { return int(32768 / sizeof(Word)); }
template <class Word>
__host__ __device__ inline Word word_at(size_t row, size_t col) {
  if constexpr (sizeof(Word) == 8) {
    return Word(row * 1000003u + col);
  } else {
    return Word{uint32_t(row), uint32_t(col), ~uint32_t(row), ~uint32_t(col)};
  }
}
template <class Word, int K>
__host__ __device__ inline Position wide_position(int g, unsigned b, int tx, int ty, int k) {
  constexpr int P = 16 / int(sizeof(Word)), lines_per_block = 32 / P * K, words_per_line = 128 / int(sizeof(Word));
  const BlockGroups bg = block_groups(b, g, unsigned(kWideRows / lines_per_block));
  const int w = ty / 4, l = tx + 8 * (ty % 4);
  return {size_t(bg.row_group) * lines_per_block + K * (l / P) + k,
          size_t(bg.col_group) * words_per_line + w * P + l % P};
}
template <class Word, int K>
__global__ void store_only_wide(Word* __restrict__ out, int g) {
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const Position p = wide_position<Word, K>(g, blockIdx.x, threadIdx.x, threadIdx.y, k);
    out[p.row * wide_cols<Word>() + p.col] = word_at<Word>(p.row, p.col);
  }
}

// Smaller pieces: what naive f32 32x8 does to each sector. A block (8 warps) writes 32 M lines, one a row
// (rows 32 M R .. 32 M R + 32 M - 1, words 32 C .. 32 C + 31), sector by sector: store k of every warp writes
// sector s = k / M of the lines of set t = k mod M (32 lines each), so that every line stays partly written
// until the block's last stores, as in naive's tile loop. A piece is P words (P = 1, 2, 4: 4, 8 or 16 bytes),
// a sector takes 8 / P pieces from 8 / P warps (member r = w mod 8 / P of group h = w / (8 / P)), a store
// instruction writes 32 / P lines: those of line group (h + s) mod P, so that the groups rotate over the
// sectors and every line is written by all 8 warps whatever P. P = 1, M = 1 is naive f32 32x8's store
// pattern (32 lines a request, 4 bytes each, every sector from all 8 warps); P = 4, the 16-byte pieces of
// store_only, 2 warps a sector. The lines open at once stay 32 M x resident blocks x SMs for every P: only
// how many pieces (and warps) complete a sector changes.
template <int P, int M>
__host__ __device__ inline Position pieces_position(unsigned b, int tx, int ty, int k) {
  static_assert(P == 1 || P == 2 || P == 4, "4-, 8- or 16-byte pieces");
  constexpr int kWarpsPerSector = 8 / P;
  const BlockGroups bg = block_groups(b, 1, unsigned(kN / (32 * M)));
  const int w = ty / 4, lane = tx + 8 * (ty % 4), h = w / kWarpsPerSector, r = w % kWarpsPerSector;
  const int s = k / M, t = k % M, group = (h + s) % P;
  const int line = t * 32 + group * (32 / P) + lane / P;
  return {size_t(bg.row_group) * (32 * M) + line, size_t(bg.col_group) * 32 + 8 * s + r * P + lane % P};
}
// The same stores with each sector moved to its own line (M = 1): the block's sector s of line j goes to
// sector c mod 4 of line c / 4 of row 4 j + s of its 128 rows (c: the block's column group of 8 words), so a
// block writes one sector of each of 128 lines, the same pieces from the same warps in the same order, and 4
// blocks 64 apart in launch order complete each line (as vec4 f32 32x8 writes its output). Are the lines
// open at once what the L2 reads back, or the partly written sectors?
__host__ __device__ inline Position spread_position(Position p, unsigned b) {
  const BlockGroups bg = block_groups(b, 1, unsigned(kN / 128));
  const size_t line = p.row % 32, word = p.col % 32;
  return {size_t(bg.row_group) * 128 + 4 * line + word / 8, size_t(bg.col_group / 4) * 32 + 8 * (bg.col_group % 4) + word % 8};
}
template <int P, int M, bool kSpread = false>
__global__ void store_pieces(uint32_t* __restrict__ out, int n) {
  static_assert(!kSpread || M == 1, "spread: one set of 32 lines");
#pragma unroll
  for (int k = 0; k < 4 * M; ++k) {
    Position p = pieces_position<P, M>(blockIdx.x, threadIdx.x, threadIdx.y, k);
    if constexpr (kSpread) p = spread_position(p, blockIdx.x);
    out[p.row * n + p.col] = uint32_t(p.row * n + p.col);
  }
}

// The store pattern K = 4 (interleaved, g = 1) with values loaded first, 4 words a thread, in one of two
// patterns: 4 KiB of contiguous input a block, 4 coalesced loads a thread (kContiguous: as memsim-microbench's
// strided_store reads), or one 16-byte load a thread, 128 bytes of each of 32 input rows a block, consecutive
// blocks along the rows (vec4's loads). Which decides the read-modify-writes: the loads or the stores' shape?
template <bool kContiguous>
__host__ __device__ inline size_t load_position(int n, unsigned b, int tx, int ty, int k) {
  if (kContiguous) return size_t(b) * 1024 + k * 256 + ty * 8 + tx;
  const unsigned chunks = unsigned(n / 32);
  return (size_t(b / chunks) * 32 + ty) * n + size_t(b % chunks) * 32 + 4 * tx + k;
}

// kBarrier: the block's warps wait for one another between their loads and their stores (as a tile staged
// through shared memory does), so that the pieces of a line leave together whatever the loads did.
template <int W, bool kContiguous, bool kBarrier = false>
__global__ void loads_then_stores(const uint32_t* __restrict__ in, uint32_t* __restrict__ out, int n) {
  constexpr int K = 4;
  const unsigned b = blockIdx.x;
  uint32_t v[K];
  if constexpr (kContiguous) {
#pragma unroll
    for (int k = 0; k < K; ++k) v[k] = in[load_position<true>(n, b, threadIdx.x, threadIdx.y, k)];
  } else {
    const uint4 q = *reinterpret_cast<const uint4*>(in + load_position<false>(n, b, threadIdx.x, threadIdx.y, 0));
    v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
  }
  if constexpr (kBarrier) __syncthreads();
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const Position p = store_position<K, true, W>(n, 1, b, threadIdx.x, threadIdx.y, k);
    out[p.row * n + p.col] = v[k];
  }
}

// store_only_warp_lines' stores after loads from rows, the suite's partial-store kernels' regime: 8 words a
// thread as two 16-byte loads, 256 bytes of each of 32 input rows a block, consecutive blocks along the rows.
__host__ __device__ inline size_t row_load_position8(int n, unsigned b, int tx, int ty, int k) {
  const unsigned chunks = unsigned(n / 64);
  return (size_t(b / chunks) * 32 + ty) * n + size_t(b % chunks) * 64 + 8 * tx + k;
}
template <int G>
__global__ void row_loads_warp_lines(const uint32_t* __restrict__ in, uint32_t* __restrict__ out, int n) {
  const uint4* src = reinterpret_cast<const uint4*>(in + row_load_position8(n, blockIdx.x, threadIdx.x, threadIdx.y, 0));
  const uint4 lo = src[0], hi = src[1];
  const uint32_t v[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    const Position p = warp_lines_position<G>(n, blockIdx.x, threadIdx.x, threadIdx.y, k);
    out[p.row * n + p.col] = v[k];
  }
}

// naive (K = 1) and vec4 (K = 4, interleaved) with their loads: input row = output column, input column =
// output row, so out is the transpose of in.
template <int K>
__global__ void load_and_store(const uint32_t* __restrict__ in, uint32_t* __restrict__ out, int n) {
  static_assert(K == 1 || K == 4, "the two kernels of the suite");
  const size_t col = size_t(blockIdx.y) * 32 + threadIdx.y, row0 = size_t(blockIdx.x) * 8 * K + K * threadIdx.x;
  uint32_t v[K];
  if constexpr (K == 4) {
    const uint4 q = *reinterpret_cast<const uint4*>(in + col * n + row0);
    v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
  } else {
    v[0] = in[col * n + row0];
  }
#pragma unroll
  for (int k = 0; k < K; ++k) out[(row0 + k) * n + col] = v[k];
}

// What a run stores: its positions' own indices (stores alone), the transpose of the input (the replicas),
// or the words loaded in one of loads_then_stores' patterns.
enum class Source { Positions, Transpose, ContiguousLoads, RowLoads, RowLoadsWarpLines };

struct Config {
  const char* name;
  int k, lines_a_row;  // K; W (1 for the replicas)
  bool interleaved;
  Source source;
  void (*launch)(const uint32_t* in, uint32_t* out, int smem, int pitch, int group);
  const void* kernel;
  int group = 1;  // g of the launch order (store-only runs)
  int pad = 0;    // words between the end of an output row and the start of the next (store-only runs)
  int word_bytes = 4;  // 8 or 16: store_only_wide
  int warps_per_line = 0;  // G of store_only_warp_lines and row_loads_warp_lines; 0 for the others
  int piece_words = 4;     // words a store writes into each line it touches (P of store_pieces; 4 elsewhere)
  int warps_per_block = 8;  // G for store_only_warp_lines_small; 8 elsewhere
  // 8K for 4-byte words; store_pieces: 32 M lines (k = 4 M stores a thread).
  int lines_per_block() const { return (piece_words == 4 ? 2 * word_bytes * k : 8 * k) * warps_per_block / 8; }
};

// smem: dynamic shared memory the kernel does not use, to hold fewer blocks on an SM at once.
template <int K, bool kInterleaved, int W>
void launch_store(const uint32_t*, uint32_t* out, int smem, int pitch, int group) {
  store_only<K, kInterleaved, W><<<(kN / (8 * K)) * (kN / 32), dim3(8, 32), smem>>>(out, kN, pitch, group);
}
template <int K>
void launch_load(const uint32_t* in, uint32_t* out, int smem, int /*pitch: n*/, int /*group: 1*/) {
  load_and_store<K><<<dim3(kN / (8 * K), kN / 32), dim3(8, 32), smem>>>(in, out, kN);
}
template <class Word, int K>
void launch_wide(const uint32_t*, uint32_t* out, int smem, int /*pitch*/, int group) {
  constexpr int lines_per_block = 2 * int(sizeof(Word)) * K;
  const unsigned blocks = unsigned(kWideRows / lines_per_block) * unsigned(wide_cols<Word>() / (128 / int(sizeof(Word))));
  store_only_wide<Word, K><<<blocks, dim3(8, 32), smem>>>(reinterpret_cast<Word*>(out), group);
}
template <int G>
void launch_warp_lines(const uint32_t*, uint32_t* out, int smem, int /*pitch: n*/, int /*group: 1*/) {
  store_only_warp_lines<G><<<(kN / 64) * (kN / 32), dim3(8, 32), smem>>>(out, kN);
}
template <int G>
void launch_warp_lines_small(const uint32_t*, uint32_t* out, int smem, int /*pitch: n*/, int /*group: 1*/) {
  store_only_warp_lines_small<G><<<(kN / 64) * (kN / 32) * (8 / G), dim3(8, 4 * G), smem>>>(out, kN);
}
template <int G>
void launch_row_loads_warp_lines(const uint32_t* in, uint32_t* out, int smem, int /*pitch: n*/, int /*group: G*/) {
  row_loads_warp_lines<G><<<(kN / 64) * (kN / 32), dim3(8, 32), smem>>>(in, out, kN);
}
template <int P, int M, bool kSpread = false>
void launch_pieces(const uint32_t*, uint32_t* out, int smem, int /*pitch: n*/, int /*group: 1*/) {
  store_pieces<P, M, kSpread><<<(kN / (32 * M)) * (kN / 32), dim3(8, 32), smem>>>(out, kN);
}
template <int W, bool kContiguous, bool kBarrier = false>
void launch_loads_then_stores(const uint32_t* in, uint32_t* out, int smem, int /*pitch: n*/, int /*group: 1*/) {
  loads_then_stores<W, kContiguous, kBarrier><<<(kN / 32) * (kN / 32), dim3(8, 32), smem>>>(in, out, kN);
}

#define PL_STORES_W(NAME, K, W, INTERLEAVED, ...)                                                          \
  {NAME, K, W, INTERLEAVED, Source::Positions, launch_store<K, INTERLEAVED, W>, (const void*)&store_only<K, INTERLEAVED, W>, \
   __VA_ARGS__}
#define PL_STORES(NAME, K, INTERLEAVED, ...) PL_STORES_W(NAME, K, 1, INTERLEAVED, __VA_ARGS__)
// K = 8 rows a block, each line's 8 pieces from G of its warps (store_only_warp_lines, or after row loads).
#define PL_WARP_LINES(NAME, SOURCE, LAUNCH, KERNEL, G) \
  {NAME, 8, 1, true, Source::SOURCE, LAUNCH<G>, (const void*)&KERNEL<G>, 1, 0, 4, G}
// The same with blocks of G warps (store_only_warp_lines_small).
#define PL_WARP_LINES_SMALL(NAME, G) \
  {NAME, 8, 1, true, Source::Positions, launch_warp_lines_small<G>, (const void*)&store_only_warp_lines_small<G>, \
   1, 0, 4, G, 4, G}
#define PL_WIDE(NAME, WORD, K, G) \
  {NAME, K, 1, true, Source::Positions, launch_wide<WORD, K>, (const void*)&store_only_wide<WORD, K>, G, 0, int(sizeof(WORD))}
// store_pieces: P words a piece, 32 M lines a block, K = 4 M stores a thread.
#define PL_PIECES(NAME, P, M) \
  {NAME, 4 * M, 1, true, Source::Positions, launch_pieces<P, M>, (const void*)&store_pieces<P, M>, 1, 0, 4, 8, P}
// The same with one sector of each of 128 lines a block (store_pieces' kSpread): lines_open_per_block says 32.
#define PL_PIECES_SPREAD(NAME, P) \
  {NAME, 4, 1, true, Source::Positions, launch_pieces<P, 1, true>, (const void*)&store_pieces<P, 1, true>, 1, 0, 4, 8, P}
const Config kConfigs[] = {
    PL_STORES("stores K=1", 1, true, 1),
    PL_STORES("stores K=2 interleaved", 2, true, 1),
    PL_STORES("stores K=2 blocked", 2, false, 1),
    PL_STORES("stores K=4 interleaved", 4, true, 1),
    PL_STORES("stores K=4 blocked", 4, false, 1),
    PL_STORES("stores K=8 interleaved", 8, true, 1),
    PL_STORES("stores K=8 blocked", 8, false, 1),
    PL_STORES("stores K=2 interleaved, blocks across", 2, true, kN / 32),
    PL_STORES("stores K=4 interleaved, blocks across", 4, true, kN / 32),
    PL_STORES("stores K=8 interleaved, blocks across", 8, true, kN / 32),
    PL_STORES("stores K=4 interleaved, 2 blocks across", 4, true, 2),
    PL_STORES("stores K=4 interleaved, 4 blocks across", 4, true, 4),
    PL_STORES("stores K=4 interleaved, 8 blocks across", 4, true, 8),
    PL_STORES("stores K=4 interleaved, 16 blocks across", 4, true, 16),
    PL_STORES("stores K=4 interleaved, 64 blocks across", 4, true, 64),
    PL_STORES("stores K=8 interleaved, 4 blocks across", 8, true, 4),
    PL_STORES("stores K=8 interleaved, 16 blocks across", 8, true, 16),
    PL_STORES("stores K=4 interleaved, rows padded 32 words", 4, true, 1, 32),
    PL_STORES("stores K=8 interleaved, rows padded 32 words", 8, true, 1, 32),
    PL_STORES("stores K=4 interleaved, rows padded 256 words", 4, true, 1, 256),
    PL_STORES("stores K=4 interleaved, rows padded 1024 words", 4, true, 1, 1024),
    PL_STORES("stores K=4 interleaved, rows padded 2080 words", 4, true, 1, 2080),
    PL_WARP_LINES("stores K=8, each line by one warp", Positions, launch_warp_lines, store_only_warp_lines, 1),
    PL_WARP_LINES("stores K=8, each line by 2 warps", Positions, launch_warp_lines, store_only_warp_lines, 2),
    PL_WARP_LINES("stores K=8, each line by 4 warps", Positions, launch_warp_lines, store_only_warp_lines, 4),
    PL_WARP_LINES("stores K=8, each line by 8 warps", Positions, launch_warp_lines, store_only_warp_lines, 8),
    PL_WARP_LINES_SMALL("stores K=8, each line by 2 warps, blocks of 2 warps", 2),
    PL_WARP_LINES_SMALL("stores K=8, each line by 4 warps, blocks of 4 warps", 4),
    PL_WARP_LINES("row loads + K=8, each line by one warp", RowLoadsWarpLines, launch_row_loads_warp_lines,
                  row_loads_warp_lines, 1),
    PL_WARP_LINES("row loads + K=8, each line by 2 warps", RowLoadsWarpLines, launch_row_loads_warp_lines,
                  row_loads_warp_lines, 2),
    PL_WARP_LINES("row loads + K=8, each line by 4 warps", RowLoadsWarpLines, launch_row_loads_warp_lines,
                  row_loads_warp_lines, 4),
    PL_WARP_LINES("row loads + K=8, each line by 8 warps", RowLoadsWarpLines, launch_row_loads_warp_lines,
                  row_loads_warp_lines, 8),
    // 8- and 16-byte lanes, the same 16-byte pieces (store_only_wide): K = 2 and 1 keep 32 lines a block, as
    // store_only's K = 4; K = 4 and 2, 64.
    PL_WIDE("stores 8-byte lanes K=2", uint64_t, 2, 1), PL_WIDE("stores 8-byte lanes K=4", uint64_t, 4, 1),
    PL_WIDE("stores 8-byte lanes K=2, blocks across", uint64_t, 2, 4096 / 16),
    PL_WIDE("stores 8-byte lanes K=4, blocks across", uint64_t, 4, 4096 / 16),
    PL_WIDE("stores 16-byte lanes K=1", uint4, 1, 1), PL_WIDE("stores 16-byte lanes K=2", uint4, 2, 1),
    PL_WIDE("stores 16-byte lanes K=1, blocks across", uint4, 1, 2048 / 8),
    PL_WIDE("stores 16-byte lanes K=2, blocks across", uint4, 2, 2048 / 8),
    // The open lines in fewer rows: W neighbouring lines a row, 8K / W rows a block.
    PL_STORES_W("stores K=4 interleaved, 2 lines a row", 4, 2, true, 1),
    PL_STORES_W("stores K=4 interleaved, 4 lines a row", 4, 4, true, 1),
    PL_STORES_W("stores K=8 interleaved, 2 lines a row", 8, 2, true, 1),
    PL_STORES_W("stores K=8 interleaved, 4 lines a row", 8, 4, true, 1),
    PL_STORES_W("stores K=8 interleaved, 8 lines a row", 8, 8, true, 1),
    PL_STORES("stores K=16 interleaved", 16, true, 1),
    PL_STORES_W("stores K=16 interleaved, 4 lines a row", 16, 4, true, 1),
    PL_STORES_W("stores K=16 interleaved, 16 lines a row", 16, 16, true, 1),
    // 4-, 8- and 16-byte pieces into the same lines, each line from all 8 warps, sector by sector.
    PL_PIECES("pieces 4 B, 32 lines a block", 1, 1), PL_PIECES("pieces 8 B, 32 lines a block", 2, 1),
    PL_PIECES("pieces 16 B, 32 lines a block", 4, 1), PL_PIECES("pieces 4 B, 64 lines a block", 1, 2),
    PL_PIECES("pieces 8 B, 64 lines a block", 2, 2), PL_PIECES("pieces 16 B, 64 lines a block", 4, 2),
    PL_PIECES_SPREAD("pieces 4 B, one sector of 128 lines a block", 1),
    PL_PIECES_SPREAD("pieces 8 B, one sector of 128 lines a block", 2),
    PL_PIECES_SPREAD("pieces 16 B, one sector of 128 lines a block", 4),
    {"naive 8x32 (load + K=1)", 1, 1, true, Source::Transpose, launch_load<1>, (const void*)&load_and_store<1>},
    {"vec4 8x32 (16-byte load + K=4 interleaved)", 4, 1, true, Source::Transpose, launch_load<4>,
     (const void*)&load_and_store<4>},
    // The same stores after loads of either pattern.
    {"contiguous loads + K=4 interleaved", 4, 1, true, Source::ContiguousLoads, launch_loads_then_stores<1, true>,
     (const void*)&loads_then_stores<1, true>},
    {"contiguous loads + K=4 interleaved, 4 lines a row", 4, 4, true, Source::ContiguousLoads,
     launch_loads_then_stores<4, true>, (const void*)&loads_then_stores<4, true>},
    {"row loads + K=4 interleaved", 4, 1, true, Source::RowLoads, launch_loads_then_stores<1, false>,
     (const void*)&loads_then_stores<1, false>},
    {"row loads + K=4 interleaved, 4 lines a row", 4, 4, true, Source::RowLoads, launch_loads_then_stores<4, false>,
     (const void*)&loads_then_stores<4, false>},
    {"row loads, barrier + K=4 interleaved", 4, 1, true, Source::RowLoads, launch_loads_then_stores<1, false, true>,
     (const void*)&loads_then_stores<1, false, true>},
    {"row loads, barrier + K=4 interleaved, 4 lines a row", 4, 4, true, Source::RowLoads,
     launch_loads_then_stores<4, false, true>, (const void*)&loads_then_stores<4, false, true>},
};
#undef PL_STORES
#undef PL_STORES_W
#undef PL_WIDE
#undef PL_WARP_LINES
#undef PL_WARP_LINES_SMALL
#undef PL_PIECES
#undef PL_PIECES_SPREAD

// loads_then_stores' output, word by word: each store position holds the word its thread loaded for it.
template <int W, bool kContiguous>
int64_t count_wrong_loaded(const std::vector<uint32_t>& out) {
  int64_t wrong = 0;
  const unsigned blocks = unsigned(kN / 32) * unsigned(kN / 32);
  for (unsigned b = 0; b < blocks; ++b)
    for (int ty = 0; ty < 32; ++ty)
      for (int tx = 0; tx < 8; ++tx)
        for (int k = 0; k < 4; ++k) {
          const Position p = store_position<4, true, W>(kN, 1, b, tx, ty, k);
          wrong += out[p.row * kN + p.col] != input_word(load_position<kContiguous>(kN, b, tx, ty, k));
        }
  return wrong;
}

// row_loads_warp_lines' output, word by word.
template <int G>
int64_t count_wrong_row_loads_warp_lines(const std::vector<uint32_t>& out) {
  int64_t wrong = 0;
  const unsigned blocks = unsigned(kN / 64) * unsigned(kN / 32);
  for (unsigned b = 0; b < blocks; ++b)
    for (int ty = 0; ty < 32; ++ty)
      for (int tx = 0; tx < 8; ++tx)
        for (int k = 0; k < 8; ++k) {
          const Position p = warp_lines_position<G>(kN, b, tx, ty, k);
          wrong += out[p.row * kN + p.col] != input_word(row_load_position8(kN, b, tx, ty, k));
        }
  return wrong;
}

// store_only_wide's output, word by word.
template <class Word>
int64_t count_wrong_wide(const std::vector<uint32_t>& out) {
  const Word* words = reinterpret_cast<const Word*>(out.data());
  int64_t wrong = 0;
  for (size_t row = 0; row < size_t(kWideRows); ++row)
    for (size_t col = 0; col < size_t(wide_cols<Word>()); ++col) {
      const Word want = word_at<Word>(row, col), got = words[row * wide_cols<Word>() + col];
      wrong += std::memcmp(&want, &got, sizeof(Word)) != 0;
    }
  return wrong;
}

int64_t count_wrong(const Config& c, const std::vector<uint32_t>& out) {
  if (c.word_bytes == 8) return count_wrong_wide<uint64_t>(out);
  if (c.word_bytes == 16) return count_wrong_wide<uint4>(out);
  if (c.source == Source::ContiguousLoads)
    return c.lines_a_row == 1 ? count_wrong_loaded<1, true>(out) : count_wrong_loaded<4, true>(out);
  if (c.source == Source::RowLoads)
    return c.lines_a_row == 1 ? count_wrong_loaded<1, false>(out) : count_wrong_loaded<4, false>(out);
  if (c.source == Source::RowLoadsWarpLines) {
    switch (c.warps_per_line) {
      case 1: return count_wrong_row_loads_warp_lines<1>(out);
      case 2: return count_wrong_row_loads_warp_lines<2>(out);
      case 4: return count_wrong_row_loads_warp_lines<4>(out);
      default: return count_wrong_row_loads_warp_lines<8>(out);
    }
  }
  int64_t wrong = 0;
  const uint64_t pitch = uint64_t(kN) + c.pad;
  for (uint64_t row = 0; row < uint64_t(kN); ++row)
    for (uint64_t col = 0; col < uint64_t(kN); ++col) {
      const uint32_t want = c.source == Source::Transpose ? input_word(col * kN + row) : uint32_t(row * kN + col);
      wrong += out[row * pitch + col] != want;
    }
  return wrong;
}

}  // namespace

int main(int argc, char** argv) {
  bool once = false;
  const char* only = nullptr;  // --only TEXT: the configurations whose name contains TEXT
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--once") == 0 && !once) {
      once = true;
    } else if (std::strcmp(argv[i], "--only") == 0 && !only && i + 1 < argc && argv[i + 1][0] != '\0') {
      only = argv[++i];
    } else {
      std::fprintf(stderr, "usage: memsim-partial-lines [--once] [--only TEXT]\n");
      return 2;
    }
  }
  if (only) {
    bool any = false;
    for (const Config& c : kConfigs) any = any || std::strstr(c.name, only) != nullptr;
    if (!any) {
      std::fprintf(stderr, "memsim-partial-lines: no configuration's name contains '%s'\n", only);
      return 2;
    }
  }
  try {
    const size_t words = size_t(kN) * kN, bytes = words * 4;
    const size_t out_bytes = size_t(kN) * (kN + kMaxPad) * 4;  // room for padded rows
    std::vector<uint32_t> host(out_bytes / 4);
    for (size_t i = 0; i < words; ++i) host[i] = input_word(i);
    uint32_t* in = nullptr;
    MEMSIM_CUDA_CHECK(cudaMalloc(&in, bytes));
    MEMSIM_CUDA_CHECK(cudaMemcpy(in, host.data(), bytes, cudaMemcpyHostToDevice));
    std::vector<uint32_t*> outs(kOutputs);
    for (auto& o : outs) MEMSIM_CUDA_CHECK(cudaMalloc(&o, out_bytes));
    cudaEvent_t a, b;
    MEMSIM_CUDA_CHECK(cudaEventCreate(&a));
    MEMSIM_CUDA_CHECK(cudaEventCreate(&b));
    cudaDeviceProp p{};
    MEMSIM_CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
    int driver = 0;
    MEMSIM_CUDA_CHECK(cudaDriverGetVersion(&driver));
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    std::printf("{\n  \"program\": \"memsim-partial-lines\",\n  \"date\": \"%s\",\n  \"device\": \"%s\",\n"
                "  \"sms\": %d,\n  \"l2_bytes\": %d,\n  \"driver_version\": %d,\n  \"matrix_words\": %d,\n"
                "  \"runs\": [\n",
                date, p.name, p.multiProcessorCount, p.l2CacheSize, driver, kN);
    bool all_ok = true;
    const int n_configs = int(sizeof kConfigs / sizeof kConfigs[0]);
    // Resident blocks of 8 warps per SM: as many as fit (8: 2048 threads), then fewer, held back by unused shared
    // memory; blocks of fewer warps, as many warps (8 / their warps times the blocks).
    const int limits[] = {0, 4, 2, 1};
    bool first = true;
    for (int limit : limits) {
      for (int ci = 0; ci < n_configs; ++ci) {
        const Config& c = kConfigs[ci];
        if (only && !std::strstr(c.name, only)) continue;
        const int blocks_wanted = limit * 8 / c.warps_per_block;
        const int smem = limit ? int(p.sharedMemPerMultiprocessor / blocks_wanted - p.reservedSharedMemPerBlock) : 0;
        MEMSIM_CUDA_CHECK(cudaFuncSetAttribute(c.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        int resident = 0;
        MEMSIM_CUDA_CHECK(
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, c.kernel, 32 * c.warps_per_block, smem));
        MEMSIM_CUDA_CHECK(cudaMemset(outs[0], 0xff, out_bytes));
        c.launch(in, outs[0], smem, kN + c.pad, c.group);
        MEMSIM_CUDA_CHECK(cudaGetLastError());
        MEMSIM_CUDA_CHECK(cudaDeviceSynchronize());
        if (once) continue;
        MEMSIM_CUDA_CHECK(cudaMemcpy(host.data(), outs[0], out_bytes, cudaMemcpyDeviceToHost));
        const int64_t wrong = count_wrong(c, host);
        all_ok = all_ok && wrong == 0;
        std::vector<float> ms;
        for (int r = 0; r < kWarmup + kReps; ++r) {
          MEMSIM_CUDA_CHECK(cudaEventRecord(a));
          c.launch(in, outs[r % kOutputs], smem, kN + c.pad, c.group);
          MEMSIM_CUDA_CHECK(cudaEventRecord(b));
          MEMSIM_CUDA_CHECK(cudaEventSynchronize(b));
          MEMSIM_CUDA_CHECK(cudaGetLastError());
          float t = 0;
          MEMSIM_CUDA_CHECK(cudaEventElapsedTime(&t, a, b));
          if (r >= kWarmup) ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        // Every store instruction writes one piece into each line it touches: 16 bytes (4 words) but in
        // store_pieces' smaller ones; 256 MiB / the piece.
        const double line_requests = double(words) / c.piece_words;
        std::printf("%s    {\"name\": \"%s\", \"word_bytes\": %d, \"stores_per_thread\": %d, \"interleaved\": %s, "
                    "\"loads\": %s, "
                    "\"lines_a_row\": %d, \"blocks_across\": %d, \"row_pad_words\": %d, \"blocks_per_sm\": %d, "
                    "\"unused_shared_bytes\": %d, \"lines_open_per_block\": %d, \"rows_per_block\": %d, "
                    "\"lines_open_at_once\": %d, \"line_requests\": %.0f, \"median_us\": %.2f, \"min_us\": %.2f, "
                    "\"max_us\": %.2f, \"ps_per_line_request\": %.2f, \"warps_per_line\": %d, \"piece_bytes\": %d, "
                    "\"warps_per_block\": %d, \"wrong_words\": %lld}",
                    first ? "" : ",\n", c.name, c.word_bytes, c.k, c.interleaved ? "true" : "false",
                    c.source == Source::Positions ? "false" : "true",
                    c.lines_a_row, c.group, c.pad, resident, smem, c.lines_per_block(), c.lines_per_block() / c.lines_a_row,
                    c.lines_per_block() * resident * p.multiProcessorCount, line_requests,
                    1e3 * ms[ms.size() / 2], 1e3 * ms.front(), 1e3 * ms.back(),
                    1e9 * ms[ms.size() / 2] / line_requests, c.warps_per_line, 4 * c.piece_words,
                    c.warps_per_block, static_cast<long long>(wrong));
        first = false;
      }
    }
    std::printf("\n");
    std::printf("  ],\n  \"all_checks_passed\": %s\n}\n", once ? "null" : all_ok ? "true" : "false");
    return all_ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "memsim-partial-lines: %s\n", e.what());
    return 1;
  }
}
