// memsim-step-lines: lines closed in the step that opens them, a fresh set each step (a calibration benchmark).
//
// The read-back's curve for lines closed in their round was fitted on memsim-partial-lines, whose blocks write
// all their lines in one round. A block that writes a fresh set of lines each step, each line's pieces from
// several of its warps at the same step, holds more than one step's lines open at once when its warps drift
// apart (nothing holds them together: a line is open from the first of its warps to reach the step to the last),
// and fewer than all its steps' lines. This program measures how many, with stores alone in charge of the
// pattern (no suite kernel, no suite launch shape):
//
//   a block of W warps (32 W threads) walks S steps; in step s, warp w, lane l loads one element of the input
//   (a coalesced piece of an input row) and stores it at output row S R blockrow + R s + l / K, column
//   W K blockcol + K w + l mod K: each store request writes K consecutive elements of R = 32 / K rows. A line
//   (E = 128 / element bytes elements of a row) then takes its pieces from G = E / K warps of one step, and
//   closes in it; the block writes W K / E lines of each of R rows a step, new rows each step.
//   Consecutive blocks walk down the output rows, as consecutive blocks of a transpose do. The index math is
//   step_lines_map.hpp's, the one definition the memsim kernel file step_lines_kernel.hpp replays too.
//
// The kernel keeps no __restrict__: each step's load waits for the step before to have issued its store, as nvcc
// compiles a direct transpose's body (one load in flight a warp between stores).
//
// Every configuration runs with as many blocks an SM as fit, then 4, 2 and 1 (where fewer than fit), held back by
// dynamic shared memory the kernel does not use.
//
// Timing, the check and the options as memsim-held-open's (transpose_bench.cuh): CUDA events around each launch,
// outputs rotated over 4 buffers, 2 warm-up launches, median of 15 with min and max; the first launch's output
// checked against the transpose of the input, element for element; --once launches each configuration once,
// untimed, for Nsight Compute. Output: one JSON document on stdout.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "lab/calibration/step_lines_map.hpp"
#include "lab/calibration/transpose_bench.cuh"
#include "validate/cuda_check.hpp"

namespace {

using memsim::transpose_bench::kOutputBytes;
using memsim::transpose_bench::kRows;

template <class T>
__host__ __device__ constexpr int cols_of() { return int(kOutputBytes / sizeof(T) / kRows); }

// W warps, S steps, K consecutive elements a row per request (R = 32 / K rows). Next: where a block writes part
// of each line (W K < E), the blocks that write the other parts of its lines come next in launch order (a group
// of E / (W K) consecutive blocks takes one block-column's worth of whole lines, then the next rows), not a grid
// row on; where it writes whole lines, the same launch either way. Staged: the same addresses, but every step's
// load first, then a barrier, then every step's store, as a staged kernel writes its tile: the block's warps
// reach each line's pieces together, in one round, instead of drifting apart over the steps.
template <class T, int W, int S, int K, bool Next = false, bool Staged = false>
__global__ void step_lines(const T* in, T* out) {
  constexpr int cols = cols_of<T>();
  const step_lines::BlockOrigin o = step_lines::block_origin(int(sizeof(T)), W, S, K, Next, kRows, blockIdx.x);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const size_t col = step_lines::column(o, warp, lane, K);
  if constexpr (Staged) {
    T v[S];
#pragma unroll
    for (int s = 0; s < S; ++s) v[s] = in[col * kRows + step_lines::row_in_step(o, lane, K, s)];
    __syncthreads();
#pragma unroll
    for (int s = 0; s < S; ++s) out[step_lines::row_in_step(o, lane, K, s) * cols + col] = v[s];
  } else {
#pragma unroll 1
    for (int s = 0; s < S; ++s) {
      const size_t row = step_lines::row_in_step(o, lane, K, s);
      out[row * cols + col] = in[col * kRows + row];  // input: cols x rows
    }
  }
}

struct Config {
  const char* name;
  int element_bytes, warps, steps, elements_a_request_row;  // sizeof(T), W, S, K
  bool rest_from_next;  // Next: the rest of a block's lines from the blocks next in launch order
  bool staged;          // Staged: every load, a barrier, every store
  const void* kernel;
  void (*launch)(const void* in, void* out, int smem);
  int64_t (*count_wrong)(const std::vector<unsigned char>& out);
};

template <class T, int W, int S, int K, bool Next = false, bool Staged = false>
void launch(const void* in, void* out, int smem) {
  constexpr unsigned blocks = unsigned(kRows / (S * (32 / K))) * unsigned(cols_of<T>() / (W * K));
  step_lines<T, W, S, K, Next, Staged><<<blocks, 32 * W, smem>>>(static_cast<const T*>(in), static_cast<T*>(out));
}

// The output against the transpose of the input.
template <class T>
int64_t count_wrong(const std::vector<unsigned char>& bytes) {
  return memsim::transpose_bench::count_wrong<T>(bytes, kRows, size_t(cols_of<T>()));
}

#define MEMSIM_STEP_LINES(T, W, S, K)                                                                           \
  Config {                                                                                                      \
    #T " W=" #W " S=" #S " K=" #K, int(sizeof(T)), W, S, K, false, false, (const void*)&step_lines<T, W, S, K>, \
        &launch<T, W, S, K>, &count_wrong<T>                                                                    \
  }
#define MEMSIM_STEP_LINES_S(T, W, K)                                                                     \
  MEMSIM_STEP_LINES(T, W, 1, K), MEMSIM_STEP_LINES(T, W, 2, K), MEMSIM_STEP_LINES(T, W, 4, K),          \
      MEMSIM_STEP_LINES(T, W, 8, K), MEMSIM_STEP_LINES(T, W, 16, K)
#define MEMSIM_STEP_LINES_NEXT(T, W, S, K)                                                                      \
  Config {                                                                                                      \
    #T " W=" #W " S=" #S " K=" #K " next", int(sizeof(T)), W, S, K, true, false,                                \
        (const void*)&step_lines<T, W, S, K, true>, &launch<T, W, S, K, true>, &count_wrong<T>                  \
  }
#define MEMSIM_STEP_LINES_STAGED(T, W, S, K)                                                                    \
  Config {                                                                                                      \
    #T " W=" #W " S=" #S " K=" #K " staged", int(sizeof(T)), W, S, K, false, true,                              \
        (const void*)&step_lines<T, W, S, K, false, true>, &launch<T, W, S, K, false, true>, &count_wrong<T>    \
  }
#define MEMSIM_STEP_LINES_STAGED_S(T, W, K)                                                              \
  MEMSIM_STEP_LINES_STAGED(T, W, 1, K), MEMSIM_STEP_LINES_STAGED(T, W, 2, K),                           \
      MEMSIM_STEP_LINES_STAGED(T, W, 4, K), MEMSIM_STEP_LINES_STAGED(T, W, 8, K),                       \
      MEMSIM_STEP_LINES_STAGED(T, W, 16, K)
#define MEMSIM_STEP_LINES_NEXT_S(T, W, K)                                                                \
  MEMSIM_STEP_LINES_NEXT(T, W, 1, K), MEMSIM_STEP_LINES_NEXT(T, W, 2, K),                               \
      MEMSIM_STEP_LINES_NEXT(T, W, 4, K), MEMSIM_STEP_LINES_NEXT(T, W, 8, K),                           \
      MEMSIM_STEP_LINES_NEXT(T, W, 16, K)

// Every (element, K) whose lines take 8 to 32 warps, at every W from those warps to 32: pieces of 4 bytes (u32,
// K 1), 8 (u32 K 2, u64 K 1) and 16 (u32 K 4, u64 K 2).
const Config kConfigs[] = {
    MEMSIM_STEP_LINES_S(uint32_t, 32, 1),
    MEMSIM_STEP_LINES_S(uint32_t, 16, 2), MEMSIM_STEP_LINES_S(uint32_t, 32, 2),
    MEMSIM_STEP_LINES_S(uint32_t, 8, 4),  MEMSIM_STEP_LINES_S(uint32_t, 16, 4), MEMSIM_STEP_LINES_S(uint32_t, 32, 4),
    MEMSIM_STEP_LINES_S(uint64_t, 16, 1), MEMSIM_STEP_LINES_S(uint64_t, 32, 1),
    MEMSIM_STEP_LINES_S(uint64_t, 8, 2),  MEMSIM_STEP_LINES_S(uint64_t, 16, 2), MEMSIM_STEP_LINES_S(uint64_t, 32, 2),
    // Half lines (since 2026-12-06): W K = E / 2, so a block writes half of each of its lines, and the block a grid
    // row on (row_blocks later, as in a transpose whose block is half a line wide) the other half. memsim counts
    // such a line by the warps that write it (G = W, as a share of 8) times the share of its sectors the block
    // writes (1/2): a quarter of a line at 4 warps, where naive f32 8x16 reads back as if each counted whole.
    // These runs weigh the half line apart from the steps (the whole-line runs above fit those): 16-byte pieces
    // from 4 warps (naive f32 8x16's stores) and 2 (W K = E / 4, a quarter line: 8x8's), 8-byte pieces from 8
    // and 4, 4-byte pieces from 16 and 8.
    MEMSIM_STEP_LINES_S(uint32_t, 4, 4),  MEMSIM_STEP_LINES_S(uint32_t, 2, 4),  MEMSIM_STEP_LINES_S(uint32_t, 8, 2),
    MEMSIM_STEP_LINES_S(uint32_t, 16, 1), MEMSIM_STEP_LINES_S(uint64_t, 4, 2),  MEMSIM_STEP_LINES_S(uint64_t, 8, 1),
    // The same part lines with the rest of each from the blocks next in launch order (" next", since 2026-12-06):
    // the half-line runs above read back as if a half line counted 0.6 to 1 of a line, but counting part lines
    // so predicts the held-out sets' tiles whose rows end mid-line (the rest from the next block) far too slow.
    MEMSIM_STEP_LINES_NEXT_S(uint32_t, 4, 4), MEMSIM_STEP_LINES_NEXT_S(uint32_t, 2, 4),
    MEMSIM_STEP_LINES_NEXT_S(uint32_t, 8, 2), MEMSIM_STEP_LINES_NEXT_S(uint32_t, 16, 1),
    MEMSIM_STEP_LINES_NEXT_S(uint64_t, 4, 2), MEMSIM_STEP_LINES_NEXT_S(uint64_t, 8, 1),
    // Staged (since 2026-12-06): the half lines' runs above and three whole-line ones with every load before a
    // barrier and every store after it. The held-out sets' staged kernels read back nothing measurable where
    // their tiles' rows end mid-line, while these runs' part lines read back up to 0.4 of the output: is it the
    // warps drifting apart over the steps, or the part lines themselves?
    MEMSIM_STEP_LINES_STAGED_S(uint32_t, 4, 4), MEMSIM_STEP_LINES_STAGED_S(uint32_t, 2, 4),
    MEMSIM_STEP_LINES_STAGED_S(uint32_t, 8, 2), MEMSIM_STEP_LINES_STAGED_S(uint32_t, 16, 1),
    MEMSIM_STEP_LINES_STAGED_S(uint64_t, 4, 2), MEMSIM_STEP_LINES_STAGED_S(uint64_t, 8, 1),
    MEMSIM_STEP_LINES_STAGED_S(uint32_t, 8, 4), MEMSIM_STEP_LINES_STAGED_S(uint32_t, 32, 1),
    MEMSIM_STEP_LINES_STAGED_S(uint64_t, 8, 2),
    // Past 16 steps (since 2026-12-07): the read-back by the steps (cost.read_back.closed_steps) was fitted on 1 to
    // 16, and the suite's narrow blocks walk tiles of 96 and 128 rows in 24 to 64 steps. Whole lines, pieces of 4,
    // 8 and 16 bytes, at 32 and 64 steps.
    MEMSIM_STEP_LINES(uint32_t, 8, 32, 4), MEMSIM_STEP_LINES(uint32_t, 8, 64, 4),
    MEMSIM_STEP_LINES(uint32_t, 16, 32, 4), MEMSIM_STEP_LINES(uint32_t, 16, 64, 4),
    MEMSIM_STEP_LINES(uint32_t, 16, 32, 2), MEMSIM_STEP_LINES(uint32_t, 16, 64, 2),
    MEMSIM_STEP_LINES(uint32_t, 32, 32, 1), MEMSIM_STEP_LINES(uint32_t, 32, 64, 1),
    MEMSIM_STEP_LINES(uint64_t, 8, 32, 2), MEMSIM_STEP_LINES(uint64_t, 8, 64, 2),
    MEMSIM_STEP_LINES(uint64_t, 16, 32, 1), MEMSIM_STEP_LINES(uint64_t, 16, 64, 1),
};

}  // namespace

int main(int argc, char** argv) {
  namespace bench = memsim::transpose_bench;
  bench::Options opt;
  if (!bench::parse_options(argc, argv, "memsim-step-lines", opt)) return 2;
  try {
    bench::Buffers buf = bench::make_buffers();
    cudaDeviceProp p{};
    MEMSIM_CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
    bench::print_header("memsim-step-lines", p);
    bool all_ok = true, first = true;
    for (const Config& c : kConfigs) {
      if (!bench::name_matches(c.name, opt.match)) continue;
      const void* input = buf.input(c.element_bytes);
      const int threads = 32 * c.warps;
      int most = 0;
      MEMSIM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&most, c.kernel, threads, 0));
      // 1 block an SM (since 2026-12-05): 4-byte lanes at 8 to 32 warps an SM in 4- and 8-byte pieces too, beside
      // the 16-byte pieces' runs there (at 16 warps memsim predicts those 43-48% slow, on both cards).
      for (int limit : {0, 4, 2, 1}) {
        if (limit && limit >= most) continue;  // that many fit without holding any back: run already
        const int smem = limit ? int(p.sharedMemPerMultiprocessor / limit - p.reservedSharedMemPerBlock) : 0;
        MEMSIM_CUDA_CHECK(cudaFuncSetAttribute(c.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        int resident = 0;
        MEMSIM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, c.kernel, threads, smem));
        const auto launch = [&](void* out) { c.launch(input, out, smem); };
        bench::launch_first(buf, launch, opt.once);
        if (opt.once) continue;
        const int64_t wrong = c.count_wrong(buf.host);
        all_ok = all_ok && wrong == 0;
        const std::vector<float> ms = bench::time_launches(buf, launch);
        std::printf("%s    {\"name\": \"%s\", \"element_bytes\": %d, \"warps\": %d, \"steps\": %d, "
                    "\"elements_a_request_row\": %d, \"rest_from_next\": %s, \"staged\": %s, \"blocks_per_sm\": %d, \"unused_shared_bytes\": %d, "
                    "\"median_us\": %.2f, \"min_us\": %.2f, \"max_us\": %.2f, \"wrong_elements\": %lld}",
                    first ? "" : ",\n", c.name, c.element_bytes, c.warps, c.steps, c.elements_a_request_row,
                    c.rest_from_next ? "true" : "false", c.staged ? "true" : "false",
                    resident, smem, 1e3 * ms[ms.size() / 2], 1e3 * ms.front(), 1e3 * ms.back(),
                    static_cast<long long>(wrong));
        first = false;
      }
    }
    bench::print_footer(opt.once, all_ok);
    return all_ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "memsim-step-lines: %s\n", e.what());
    return 1;
  }
}
