// memsim-held-open's index math, the one definition that the CUDA program (held_open.cu) runs and the memsim
// kernel file (held_open_kernel.hpp) replays. held_open.cu says what the benchmark does.
//
// A block of 8 warps in groups of P (group q = warp / P, member m = warp mod P) owns R x 8/P output rows by Q lines
// of E = 128 / element bytes elements (rows apart: Q times the rows by one line); consecutive blocks walk down the
// output rows (row block = block mod rows / the block's rows). Each store request writes K = 32 / R consecutive
// elements of R rows: lane l at row R q + l / K and column l mod K of its group's part. A line's elements come from
// the group's P warps in E / (P K) rounds; line j's piece in round r is at column j E + (r P + m) K (side by side
// in the thread's row), or at that row plus j R 8/P and column (r P + m) K (rows apart).
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define HELD_OPEN_HD __host__ __device__
#else
#define HELD_OPEN_HD
#endif

namespace held_open {

struct BlockOrigin {
  uint64_t row, col;  // the block's first output row and column
};

// The rounds a line takes: its E = 128 / element bytes elements from P warps, K = 32 / R of them a request.
HELD_OPEN_HD constexpr int rounds_of(int element_bytes, int p, int r) { return 128 / element_bytes / (p * (32 / r)); }

// Block `block` (launch order, as blockIdx.x) of a launch with `rows` output rows.
HELD_OPEN_HD inline BlockOrigin block_origin(int element_bytes, int p, int q, int r, bool apart, uint32_t rows,
                                             uint32_t block) {
  const int block_rows = (apart ? q : 1) * r * (8 / p), block_cols = (apart ? 1 : q) * (128 / element_bytes);
  const uint32_t row_blocks = rows / uint32_t(block_rows);
  return {uint64_t(block % row_blocks) * uint64_t(block_rows), uint64_t(block / row_blocks) * uint64_t(block_cols)};
}

// The thread's row (of its first line) and first column. The GPU passes ints (threadIdx.x / 32 and % 32), memsim's
// warp replay its per-lane values (Lanes<int>, whose operators run these lane by lane): hence templates and
// operators only.
template <class Warp, class Lane>
HELD_OPEN_HD inline auto thread_row(const BlockOrigin& o, const Warp& warp, const Lane& lane, int p, int r) {
  return o.row + r * (warp / p) + lane / (32 / r);
}
template <class Lane>
HELD_OPEN_HD inline auto thread_col(const BlockOrigin& o, const Lane& lane, int r) {
  return o.col + lane % (32 / r);
}

// Line j's row: the thread's own, or j R 8/P rows on where the lines lie rows apart (+ 0 gives both branches the
// same type, Lanes<uint64_t> in the warp replay).
template <class Row>
HELD_OPEN_HD inline auto line_row(const Row& row, int j, bool apart, int p, int r) {
  return apart ? row + uint64_t(j) * uint64_t(r * (8 / p)) : row + uint64_t(0);
}
// Line j's column in round `round`, for member m of its group (at once, each line's piece a round).
template <class Col, class Member>
HELD_OPEN_HD inline auto line_col(const Col& col0, int round, int j, const Member& m, bool apart, int element_bytes,
                                  int p, int r) {
  return col0 + (apart ? 0 : j * (128 / element_bytes)) + (round * p + m) * (32 / r);
}
// The sequential variant: a row's Q lines one after another, line round / rounds in round `round`.
template <class Col, class Member>
HELD_OPEN_HD inline auto sequential_col(const Col& col0, int round, const Member& m, int element_bytes, int p,
                                        int r) {
  // rounds_of's rounds, spelled out: called here, nvcc compiles the sequential runs' loops into other (equivalent)
  // code than the one their committed times were measured with.
  const int e = 128 / element_bytes, k = 32 / r, rounds = e / (p * k);
  return col0 + (round / rounds) * e + (round % rounds) * p * k + m * k;
}

}  // namespace held_open
