// memsim-held-open: partly written lines held open over rounds (a calibration benchmark).
//
// The read-back of partly written lines was fitted on stores that follow their loads back to back, so that
// every line closes in the round it opens. A direct transpose in a narrow block does not: it loads, then
// stores, a step, and one load may not pass a store that may alias it, so a line collects its pieces one round
// trip apart. This program holds lines open over a chosen number of rounds, with stores alone in charge of the
// pattern (no suite kernel, no suite launch shape):
//
//   a block of 256 threads = 8 warps in groups of P (group q = warp / P, member m = warp mod P) writes the
//   transpose of a C x R matrix: group q owns 32 output rows (lane l: row 32 (8/P) blockrow + 32 q + l) and Q
//   lines of each (the block's Q x E columns, E = 128 / element bytes elements a line); in round r it loads
//   Q elements (one a line, each a coalesced row of the input) and then stores them, at column
//   Q E blockcol + j E + r P + m (j = 0..Q-1). A line's E elements come from its group's P warps in E / P
//   rounds: it stays open E / P - 1 rounds after the one it opens in. Consecutive blocks walk down the output
//   rows, as consecutive blocks of a transpose do. The index math is held_open_map.hpp's, the one definition the
//   memsim kernel file held_open_kernel.hpp replays too.
//
// A third, "R rows a request", has each store write K = 32 / R consecutive elements of R rows (16 or 8), as a
// warp 16 or 8 threads wide writes a transpose's columns: a line then takes E / (P K) rounds.
//
// Two variants: "sequential" writes a row's Q lines one after another (each still E / P rounds), as a transpose
// whose tile is Q lines tall, so that a block holds one line of a row open at a time but Q in its life; "wide"
// lays the output in 4096 rows of 64 KiB instead of 8192 of 32 KiB, the row pitch of an 8192-wide f64 matrix.
//
// A fourth, "rows apart" (2026-11-29), puts a group's Q lines in Q different output rows, R x 8/P rows apart,
// instead of side by side in one row: as a transpose's narrow block writes its columns, each column step
// going to other rows (naive f32 at 8x16 on a 32x32 tile: half a line a step, then three steps to other rows
// before the other half). The lines open at once are the same as at once's; only where they lie differs.
// "A step a line" also takes naive's order: one load and its store a step, the Q lines' pieces in Q steps
// (a round of Q steps), so a line's next piece comes Q steps after its last, not in the next round.
//
// The kernel keeps no __restrict__: each round's loads wait for the round before to have issued its stores,
// as nvcc compiles the suite's direct bodies (one load in flight a warp between stores).
//
// Every configuration runs with as many blocks an SM as fit (8), then 4 and 2, held back by dynamic shared
// memory the kernel does not use: the lines open at once scale with the resident blocks. --blocks-per-sm 6,5,3
// takes other counts (0: as many as fit), to place the lines open at once between those (the L2's lines: past
// them the read-back passes the output).
//
// Timing (docs/validation.md): CUDA events around each launch, outputs rotated over 4 buffers, 2 warm-up
// launches, median of 15 with min and max. The first launch's output is checked against the transpose of the
// input, element for element. --once launches each configuration once, untimed, for Nsight Compute. Output: one
// JSON document on stdout.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "lab/calibration/held_open_map.hpp"
#include "lab/calibration/transpose_bench.cuh"
#include "validate/cuda_check.hpp"

namespace {

using memsim::transpose_bench::kOutputBytes;
using memsim::transpose_bench::kRows;

template <class T>
__host__ __device__ constexpr int line_elems() { return 128 / int(sizeof(T)); }
// Output rows: 8192 of 32 KiB, or 4096 of 64 KiB ("wide rows", the pitch of an 8192-wide f64 matrix).
template <bool kWide>
__host__ __device__ constexpr int rows_of() { return kWide ? kRows / 2 : kRows; }
template <class T, bool kWide>
__host__ __device__ constexpr int cols_of() { return int(kOutputBytes / sizeof(T) / rows_of<kWide>()); }

// Block b: row block b mod (rows / (R x 8/P)), column block b / that (consecutive blocks walk down the rows).
// kSequential: the Q lines of a row one after another (line j in rounds j E/P .. (j + 1) E/P - 1, one load and
// store a round, as a transpose whose tile is Q lines tall), instead of all Q at once.
// R: rows a store request writes (32: one element of each of 32 rows; 16 or 8: K = 32 / R consecutive elements
// of each, lane l at row l / K, element l mod K, as a warp 16 or 8 threads wide writes a transpose's columns): a
// group owns R rows, and a line takes E / (P K) rounds.
template <class T, int P, int Q, bool kSequential, bool kWide, int R = 32, bool kApart = false, bool kSteps = false>
__global__ void held_open(const T* in, T* out) {
  constexpr int rounds = held_open::rounds_of(int(sizeof(T)), P, R);
  static_assert(!kSequential || R == 32, "the sequential runs write one element a row");
  static_assert(!(kSequential && (kApart || kSteps)), "rows apart and a step a line are variants of at once");
  constexpr int rows = rows_of<kWide>(), cols = cols_of<T, kWide>();
  constexpr int bytes = int(sizeof(T));
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, m = warp % P;
  const held_open::BlockOrigin o = held_open::block_origin(bytes, P, Q, R, kApart, rows, blockIdx.x);
  const size_t row = held_open::thread_row(o, warp, lane, P, R);
  const size_t col0 = held_open::thread_col(o, lane, R);
  if constexpr (kSequential) {
#pragma unroll 1
    for (int r = 0; r < Q * rounds; ++r) {
      const size_t col = held_open::sequential_col(col0, r, m, bytes, P, R);
      out[row * cols + col] = in[col * rows + row];
    }
  } else {
    // Line j's piece in round r: side by side in the thread's row, or rows apart in the same columns.
    const auto row_of = [&](int j) { return held_open::line_row(row, j, kApart, P, R); };
    const auto col_of = [&](int r, int j) { return held_open::line_col(col0, r, j, m, kApart, bytes, P, R); };
#pragma unroll 1
    for (int r = 0; r < rounds; ++r) {
      if constexpr (kSteps) {
#pragma unroll
        for (int j = 0; j < Q; ++j) out[row_of(j) * cols + col_of(r, j)] = in[col_of(r, j) * rows + row_of(j)];
      } else {
        T v[Q];
#pragma unroll
        for (int j = 0; j < Q; ++j) v[j] = in[col_of(r, j) * rows + row_of(j)];  // input: cols x rows
#pragma unroll
        for (int j = 0; j < Q; ++j) out[row_of(j) * cols + col_of(r, j)] = v[j];
      }
    }
  }
}

struct Config {
  const char* name;
  int element_bytes, warps_a_line, lines_a_row;  // sizeof(T), P, Q
  bool sequential, wide;
  int rows_per_request;  // R
  bool apart;            // a group's Q lines in Q rows, not side by side in one
  const void* kernel;
  void (*launch)(const void* in, void* out, int smem);
  int64_t (*count_wrong)(const std::vector<unsigned char>& out);
};

template <class T, int P, int Q, bool kSequential, bool kWide, int R, bool kApart = false, bool kSteps = false>
void launch(const void* in, void* out, int smem) {
  // The same blocks either way: rows apart, a block covers Q times the rows and a Q-th of the columns.
  constexpr unsigned blocks =
      unsigned(rows_of<kWide>() / (R * (8 / P))) * unsigned(cols_of<T, kWide>() / (Q * line_elems<T>()));
  held_open<T, P, Q, kSequential, kWide, R, kApart, kSteps>
      <<<blocks, 256, smem>>>(static_cast<const T*>(in), static_cast<T*>(out));
}

// The output against the transpose of the input.
template <class T, bool kWide>
int64_t count_wrong(const std::vector<unsigned char>& bytes) {
  return memsim::transpose_bench::count_wrong<T>(bytes, rows_of<kWide>(), size_t(cols_of<T, kWide>()));
}

// A: a group's lines rows apart; ST: a step a line (both only at once, 32 KiB rows).
#define MEMSIM_HELD_OPEN_X(T, P, Q, S, W, R, A, ST, NAME)                                            \
  Config {                                                                                          \
    NAME, int(sizeof(T)), P, Q, S, W, R, A, (const void*)&held_open<T, P, Q, S, W, R, A, ST>,       \
        &launch<T, P, Q, S, W, R, A, ST>, &count_wrong<T, W>                                        \
  }
#define MEMSIM_HELD_OPEN_R(T, P, Q, S, W, R, NAME) MEMSIM_HELD_OPEN_X(T, P, Q, S, W, R, false, false, NAME)
// A group's Q lines Q rows apart, at once, 32 KiB rows; then the same a step a line (naive's order).
#define MEMSIM_HELD_OPEN_APART(T, P, Q, R)                 \
  MEMSIM_HELD_OPEN_X(T, P, Q, false, false, R, true, false, \
                     #T " P=" #P " Q=" #Q " rows apart narrow " #R " rows a request")
#define MEMSIM_HELD_OPEN_STEPS(T, P, Q, R)                \
  MEMSIM_HELD_OPEN_X(T, P, Q, false, false, R, true, true, \
                     #T " P=" #P " Q=" #Q " rows apart, a step a line, narrow " #R " rows a request")
#define MEMSIM_HELD_OPEN(T, P, Q, S, W) MEMSIM_HELD_OPEN_R(T, P, Q, S, W, 32, #T " P=" #P " Q=" #Q " " #S " " #W)
// R rows a request, at once, 32 KiB rows: the P whose lines take 2 rounds or more.
#define MEMSIM_HELD_OPEN_ROWS(T, P, Q, R) \
  MEMSIM_HELD_OPEN_R(T, P, Q, false, false, R, #T " P=" #P " Q=" #Q " at_once narrow " #R " rows a request")
#define MEMSIM_HELD_OPEN_PQ(T, S, W)                                                                     \
  MEMSIM_HELD_OPEN(T, 2, 1, S, W), MEMSIM_HELD_OPEN(T, 4, 1, S, W), MEMSIM_HELD_OPEN(T, 8, 1, S, W),     \
      MEMSIM_HELD_OPEN(T, 2, 2, S, W), MEMSIM_HELD_OPEN(T, 4, 2, S, W), MEMSIM_HELD_OPEN(T, 8, 2, S, W), \
      MEMSIM_HELD_OPEN(T, 2, 4, S, W), MEMSIM_HELD_OPEN(T, 4, 4, S, W), MEMSIM_HELD_OPEN(T, 8, 4, S, W)
constexpr bool at_once = false, sequential = true, narrow = false, wide = true;

const Config kConfigs[] = {
    MEMSIM_HELD_OPEN_PQ(uint32_t, at_once, narrow),    MEMSIM_HELD_OPEN_PQ(uint64_t, at_once, narrow),
    MEMSIM_HELD_OPEN_PQ(uint32_t, sequential, narrow), MEMSIM_HELD_OPEN_PQ(uint64_t, sequential, narrow),
    MEMSIM_HELD_OPEN_PQ(uint32_t, at_once, wide),      MEMSIM_HELD_OPEN_PQ(uint64_t, at_once, wide),
    MEMSIM_HELD_OPEN_ROWS(uint32_t, 2, 1, 16), MEMSIM_HELD_OPEN_ROWS(uint32_t, 4, 1, 16),
    MEMSIM_HELD_OPEN_ROWS(uint32_t, 8, 1, 16), MEMSIM_HELD_OPEN_ROWS(uint32_t, 2, 2, 16),
    MEMSIM_HELD_OPEN_ROWS(uint32_t, 4, 2, 16), MEMSIM_HELD_OPEN_ROWS(uint32_t, 2, 4, 16),
    MEMSIM_HELD_OPEN_ROWS(uint64_t, 2, 1, 16), MEMSIM_HELD_OPEN_ROWS(uint64_t, 4, 1, 16),
    MEMSIM_HELD_OPEN_ROWS(uint64_t, 2, 2, 16), MEMSIM_HELD_OPEN_ROWS(uint64_t, 4, 2, 16),
    MEMSIM_HELD_OPEN_ROWS(uint64_t, 2, 4, 16), MEMSIM_HELD_OPEN_ROWS(uint64_t, 4, 4, 16),
    MEMSIM_HELD_OPEN_ROWS(uint32_t, 2, 1, 8),  MEMSIM_HELD_OPEN_ROWS(uint32_t, 4, 1, 8),
    MEMSIM_HELD_OPEN_ROWS(uint32_t, 2, 2, 8),  MEMSIM_HELD_OPEN_ROWS(uint32_t, 4, 2, 8),
    MEMSIM_HELD_OPEN_ROWS(uint32_t, 2, 4, 8),  MEMSIM_HELD_OPEN_ROWS(uint32_t, 4, 4, 8),
    MEMSIM_HELD_OPEN_ROWS(uint64_t, 2, 1, 8),  MEMSIM_HELD_OPEN_ROWS(uint64_t, 2, 2, 8),
    MEMSIM_HELD_OPEN_ROWS(uint64_t, 2, 4, 8),
    // Rows apart (2026-11-29): at-once runs above with 16-byte pieces (8 and 16 rows a request) and with
    // 4-byte ones (32 rows), their lines in Q rows.
    MEMSIM_HELD_OPEN_APART(uint32_t, 2, 2, 8),  MEMSIM_HELD_OPEN_APART(uint32_t, 2, 4, 8),
    MEMSIM_HELD_OPEN_APART(uint32_t, 4, 2, 8),  MEMSIM_HELD_OPEN_APART(uint32_t, 4, 4, 8),
    MEMSIM_HELD_OPEN_APART(uint64_t, 2, 2, 16), MEMSIM_HELD_OPEN_APART(uint64_t, 2, 4, 16),
    MEMSIM_HELD_OPEN_APART(uint64_t, 4, 2, 16), MEMSIM_HELD_OPEN_APART(uint64_t, 4, 4, 16),
    MEMSIM_HELD_OPEN_APART(uint32_t, 4, 2, 32), MEMSIM_HELD_OPEN_APART(uint32_t, 4, 4, 32),
    MEMSIM_HELD_OPEN_APART(uint32_t, 8, 2, 32), MEMSIM_HELD_OPEN_APART(uint32_t, 8, 4, 32),
    // A step a line, as naive walks its column steps: 16-byte pieces, then 4-byte ones.
    MEMSIM_HELD_OPEN_STEPS(uint32_t, 2, 2, 8),  MEMSIM_HELD_OPEN_STEPS(uint32_t, 2, 4, 8),
    MEMSIM_HELD_OPEN_STEPS(uint32_t, 4, 2, 8),  MEMSIM_HELD_OPEN_STEPS(uint32_t, 4, 4, 8),
    MEMSIM_HELD_OPEN_STEPS(uint64_t, 2, 2, 16), MEMSIM_HELD_OPEN_STEPS(uint64_t, 4, 4, 16),
    MEMSIM_HELD_OPEN_STEPS(uint32_t, 8, 2, 32), MEMSIM_HELD_OPEN_STEPS(uint32_t, 8, 4, 32),
    // Whole sectors held open (2026-12-06): one warp a line (P = 1), each store a whole sector of each of its
    // rows, so that a line's four sectors come one a round over 4 rounds (8 rows a request at u64, 4 at u32: a
    // 32-byte sector a row, as naive f64 at 8-wide blocks and f32 at 4-wide ones write them); then the same
    // lines in 64-byte pieces (two sectors) over 2 rounds (4 rows a request at u64, 2 at u32). Nothing is partly
    // written in either: what differs is whether a line's 64-byte halves are whole when its round ends.
    MEMSIM_HELD_OPEN_ROWS(uint64_t, 1, 1, 8), MEMSIM_HELD_OPEN_ROWS(uint64_t, 1, 2, 8),
    MEMSIM_HELD_OPEN_ROWS(uint64_t, 1, 4, 8), MEMSIM_HELD_OPEN_ROWS(uint32_t, 1, 1, 4),
    MEMSIM_HELD_OPEN_ROWS(uint32_t, 1, 2, 4), MEMSIM_HELD_OPEN_ROWS(uint32_t, 1, 4, 4),
    MEMSIM_HELD_OPEN_ROWS(uint64_t, 1, 1, 4), MEMSIM_HELD_OPEN_ROWS(uint64_t, 1, 2, 4),
    MEMSIM_HELD_OPEN_ROWS(uint64_t, 1, 4, 4), MEMSIM_HELD_OPEN_ROWS(uint32_t, 1, 1, 2),
    MEMSIM_HELD_OPEN_ROWS(uint32_t, 1, 2, 2), MEMSIM_HELD_OPEN_ROWS(uint32_t, 1, 4, 2),
    // The same u64 lines a step a line, Q rows apart (naive's order: a line's next sector Q steps after its
    // last), in 32-byte sectors one a round and in 64-byte pieces.
    MEMSIM_HELD_OPEN_STEPS(uint64_t, 1, 2, 8), MEMSIM_HELD_OPEN_STEPS(uint64_t, 1, 4, 8),
    MEMSIM_HELD_OPEN_STEPS(uint64_t, 1, 8, 8), MEMSIM_HELD_OPEN_STEPS(uint64_t, 1, 2, 4),
    MEMSIM_HELD_OPEN_STEPS(uint64_t, 1, 4, 4), MEMSIM_HELD_OPEN_STEPS(uint64_t, 1, 8, 4),
    // 16 steps apart (2026-12-07): the H100's runs above grew with the steps a line waits beyond what the lines
    // open at once give (-18% and -23% after the fit at 4 and 8); naive f64 8x4 and 8x8 on 128 wait 16.
    MEMSIM_HELD_OPEN_STEPS(uint64_t, 1, 16, 8), MEMSIM_HELD_OPEN_STEPS(uint64_t, 1, 16, 4),
    // Lines held open 32 to 64 steps (2026-12-07, b): naive at 128 rows a block (32x2 on 128: 128 lines a block
    // of two warps, 32 blocks an SM) holds 4,096 lines an SM open, each collecting a warp's 4-byte piece every
    // 4 steps over 64 (f32) or 32 (f64) steps: set z read back 1.7 times the output there, memsim 0.72. These
    // hold as many lines an SM (4 groups of 32 rows x Q lines, 8 blocks), a piece of each every Q steps.
    MEMSIM_HELD_OPEN_STEPS(uint32_t, 2, 2, 32), MEMSIM_HELD_OPEN_STEPS(uint32_t, 2, 4, 32),
    MEMSIM_HELD_OPEN_STEPS(uint64_t, 2, 2, 32), MEMSIM_HELD_OPEN_STEPS(uint64_t, 2, 4, 32),
    MEMSIM_HELD_OPEN_STEPS(uint32_t, 4, 4, 32),
    // The same lines rows apart in the at-once order (2026-12-07, c): past the L2's lines the step-a-line runs
    // above read back more than the at-once ones side by side at the same lines open (H100: 2.33 against 1.58 at
    // about 400,000); these tell whether the order (a step a line) or the place (rows apart) does it.
    MEMSIM_HELD_OPEN_APART(uint32_t, 2, 2, 32), MEMSIM_HELD_OPEN_APART(uint32_t, 2, 4, 32),
    MEMSIM_HELD_OPEN_APART(uint64_t, 2, 2, 32), MEMSIM_HELD_OPEN_APART(uint64_t, 2, 4, 32),
};

}  // namespace

int main(int argc, char** argv) {
  namespace bench = memsim::transpose_bench;
  bench::Options opt;
  if (!bench::parse_options(argc, argv, "memsim-held-open", opt)) return 2;
  try {
    bench::Buffers buf = bench::make_buffers();
    cudaDeviceProp p{};
    MEMSIM_CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
    bench::print_header("memsim-held-open", p);
    bool all_ok = true, first = true;
    const std::vector<int> limits = opt.blocks_per_sm.empty() ? std::vector<int>{0, 4, 2} : opt.blocks_per_sm;
    for (int limit : limits) {
      const int smem = limit ? int(p.sharedMemPerMultiprocessor / limit - p.reservedSharedMemPerBlock) : 0;
      for (const Config& c : kConfigs) {
        if (!bench::name_matches(c.name, opt.match)) continue;
        const void* input = buf.input(c.element_bytes);
        MEMSIM_CUDA_CHECK(cudaFuncSetAttribute(c.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        int resident = 0;
        MEMSIM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, c.kernel, 256, smem));
        const auto launch = [&](void* out) { c.launch(input, out, smem); };
        bench::launch_first(buf, launch, opt.once);
        if (opt.once) continue;
        const int64_t wrong = c.count_wrong(buf.host);
        all_ok = all_ok && wrong == 0;
        const std::vector<float> ms = bench::time_launches(buf, launch);
        const int line = 128 / c.element_bytes, rounds = line / (c.warps_a_line * (32 / c.rows_per_request));
        std::printf("%s    {\"name\": \"%s\", \"element_bytes\": %d, \"warps_a_line\": %d, \"lines_a_row\": %d, "
                    "\"sequential\": %s, \"rows_apart\": %s, \"row_bytes\": %d, \"rows_per_request\": %d, \"rounds\": %d, \"rounds_open\": %d, \"blocks_per_sm\": %d, \"unused_shared_bytes\": %d, "
                    "\"median_us\": %.2f, \"min_us\": %.2f, \"max_us\": %.2f, \"wrong_elements\": %lld}",
                    first ? "" : ",\n", c.name, c.element_bytes, c.warps_a_line, c.lines_a_row,
                    c.sequential ? "true" : "false", c.apart ? "true" : "false", c.wide ? 65536 : 32768, c.rows_per_request, c.sequential ? rounds * c.lines_a_row : rounds, rounds - 1,
                    resident, smem, 1e3 * ms[ms.size() / 2], 1e3 * ms.front(), 1e3 * ms.back(),
                    static_cast<long long>(wrong));
        first = false;
      }
    }
    bench::print_footer(opt.once, all_ok);
    return all_ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "memsim-held-open: %s\n", e.what());
    return 1;
  }
}
