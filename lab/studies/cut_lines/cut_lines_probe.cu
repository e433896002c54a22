// cut_lines_probe: does the L1 make set g/h's slow f64 tiles slow? (lab/heldout/README.md, sets g and h)
// A copy through a shared tile, as the suite's copy_shared stages it (each thread loads TILE/BX column pieces
// of TILE/BY rows, barrier, stores them back), at compile-time shapes on an 8160x8160 f64 matrix, which every
// tile here divides (no edge blocks, no guards), each shape in the five ways Mode names. A probe: timed and
// checked only, not replayed by memsim.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <vector>

#include "validate/cuda_check.hpp"

constexpr int kN = 8160;

// How a block moves its tile (Mode): kAsWritten loads and stores each element where the loops put it, as the
// suite does (nvcc issues the loads in batches); kLoadsFirst loads all of a thread's elements into registers
// before its first shared store (one batch); kWideStores stores the tile as whole rows (thread i of the block
// takes element i, i + threads, ... of the tile in row-major order) after loading it as written; kWideLoads
// loads it so and stores it as written; kL2Only is kAsWritten with ld.global.cg.
// kRowHalves and kPieceHalves load in two batches, the second waiting for the first's data (its addresses
// depend on them): the first half of the thread's rows, then the rest (each row's column pieces in one batch),
// or every row's first column piece, then its second (the two pieces of a cut line a round trip apart).
enum Mode { kAsWritten, kL2Only, kLoadsFirst, kWideStores, kWideLoads, kRowHalves, kPieceHalves };

// The as-written stores every kernel here shares: thread (x, y) stores rows y, y + BY, ... and columns x, x + BX,
// ... of the tile, as the suite's copy_shared does. (The loads stay written out in each kernel: the f64 kernels
// step a pointer and the narrow ones index, which compile differently, and each is the code its runs came from.)
template <int BX, int BY, int TILE, class T>
__device__ __forceinline__ void store_tile_as_written(const T (&tile)[TILE][TILE], T* out, int row0, int col0) {
#pragma unroll
  for (int i = 0; i < TILE / BY; ++i)
#pragma unroll
    for (int j = 0; j < TILE / BX; ++j) {
      const int r = threadIdx.y + i * BY, c = threadIdx.x + j * BX;
      out[(row0 + r) * kN + col0 + c] = tile[r][c];
    }
}

template <int BX, int BY, int TILE, Mode kMode>
__global__ void __launch_bounds__(BX* BY) staged_copy(const double* in, double* out) {
  __shared__ double tile[TILE][TILE];
  constexpr int kThreads = BX * BY, kSteps = TILE * TILE / kThreads;
  const int col0 = blockIdx.x * TILE, row0 = blockIdx.y * TILE;
  const int t = threadIdx.y * BX + threadIdx.x;
  if constexpr (kMode == kWideLoads) {
#pragma unroll
    for (int k = 0; k < kSteps; ++k) {
      const int e = t + k * kThreads, r = e / TILE, c = e % TILE;
      tile[r][c] = in[(row0 + r) * kN + col0 + c];
    }
  } else if constexpr (kMode == kLoadsFirst) {
    double v[TILE / BY][TILE / BX];
#pragma unroll
    for (int i = 0; i < TILE / BY; ++i)
#pragma unroll
      for (int j = 0; j < TILE / BX; ++j)
        v[i][j] = in[(row0 + threadIdx.y + i * BY) * kN + col0 + threadIdx.x + j * BX];
    // Every store waits for every load: nvcc (ptxas) otherwise interleaves them in batches as written. The
    // data hold no NaN or infinity, so adding 0 x each loaded value changes nothing stored.
    double all_loaded = 0.0;
#pragma unroll
    for (int i = 0; i < TILE / BY; ++i)
#pragma unroll
      for (int j = 0; j < TILE / BX; ++j) all_loaded += 0.0 * v[i][j];
#pragma unroll
    for (int i = 0; i < TILE / BY; ++i)
#pragma unroll
      for (int j = 0; j < TILE / BX; ++j)
        tile[threadIdx.y + i * BY][threadIdx.x + j * BX] = v[i][j] + all_loaded;
  } else if constexpr (kMode == kRowHalves || kMode == kPieceHalves) {
    constexpr int kRows = TILE / BY, kPieces = TILE / BX;
    static_assert(kPieces == 2 && kRows % 2 == 0, "two batches of whole rows or of single pieces");
    // Element k of batch b: (row, piece) in the order the mode gives.
    const auto at = [](int b, int k, int& i, int& j) {
      if constexpr (kMode == kRowHalves) {
        i = b * kRows / 2 + k / 2, j = k % 2;
      } else {
        i = k, j = b;
      }
    };
    double v[kRows];
    double first_batch = 0.0;
#pragma unroll
    for (int b = 0; b < 2; ++b) {
      // 0 in fact (the data hold no NaN or infinity), but ptxas cannot issue batch 1 before batch 0 is back.
      const int wait = b == 0 ? 0 : int(first_batch);
#pragma unroll
      for (int k = 0; k < kRows; ++k) {
        int i, j;
        at(b, k, i, j);
        v[k] = in[(row0 + threadIdx.y + i * BY) * kN + col0 + threadIdx.x + j * BX + wait];
      }
      double batch = 0.0;
#pragma unroll
      for (int k = 0; k < kRows; ++k) batch += 0.0 * v[k];
#pragma unroll
      for (int k = 0; k < kRows; ++k) {
        int i, j;
        at(b, k, i, j);
        tile[threadIdx.y + i * BY][threadIdx.x + j * BX] = v[k] + batch;
      }
      first_batch = batch;
    }
  } else {
#pragma unroll
    for (int i = 0; i < TILE / BY; ++i)
#pragma unroll
      for (int j = 0; j < TILE / BX; ++j) {
        const int r = threadIdx.y + i * BY, c = threadIdx.x + j * BX;
        const double* p = in + (row0 + r) * kN + col0 + c;
        tile[r][c] = kMode == kL2Only ? __ldcg(p) : *p;
      }
  }
  __syncthreads();
  if constexpr (kMode == kWideStores) {
#pragma unroll
    for (int k = 0; k < kSteps; ++k) {
      const int e = t + k * kThreads, r = e / TILE, c = e % TILE;
      out[(row0 + r) * kN + col0 + c] = tile[r][c];
    }
  } else {
    store_tile_as_written<BX, BY, TILE>(tile, out, row0, col0);
  }
}

// The as-written copy for 4- and 2-byte elements (a transpose moves bits: uint32_t and uint16_t stand in for f32
// and f16), for the carve-out runs in narrower types.
template <class T, int BX, int BY, int TILE>
__global__ void __launch_bounds__(BX* BY) staged_copy_narrow(const T* in, T* out) {
  __shared__ T tile[TILE][TILE];
  const int col0 = blockIdx.x * TILE, row0 = blockIdx.y * TILE;
#pragma unroll
  for (int i = 0; i < TILE / BY; ++i)
#pragma unroll
    for (int j = 0; j < TILE / BX; ++j) {
      const int r = threadIdx.y + i * BY, c = threadIdx.x + j * BX;
      tile[r][c] = in[(row0 + r) * kN + col0 + c];
    }
  __syncthreads();
  store_tile_as_written<BX, BY, TILE>(tile, out, row0, col0);
}

template <class T>
__global__ void count_mismatches(const T* a, const T* b, size_t n, unsigned long long* bad) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    if (a[i] != b[i]) atomicAdd(bad, 1ull);
}

template <class Launch>
double median_us(Launch launch) {
  cudaEvent_t a, b;
  MEMSIM_CUDA_CHECK(cudaEventCreate(&a));
  MEMSIM_CUDA_CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) launch();
  std::vector<float> ms;
  for (int i = 0; i < 30; ++i) {
    MEMSIM_CUDA_CHECK(cudaEventRecord(a));
    launch();
    MEMSIM_CUDA_CHECK(cudaEventRecord(b));
    MEMSIM_CUDA_CHECK(cudaEventSynchronize(b));
    float t = 0;
    MEMSIM_CUDA_CHECK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  return 1000.0 * ms[ms.size() / 2];
}

double* g_in;
double* g_out;
unsigned long long* g_bad;
int g_failed_checks = 0;  // runs whose output did not match: the probe then exits with status 1

// The elements of out that differ from in (a copy's check); a run with any counts as failed.
template <class T>
unsigned long long mismatches(const T* in, const T* out, size_t n) {
  MEMSIM_CUDA_CHECK(cudaMemset(g_bad, 0, sizeof(*g_bad)));
  count_mismatches<T><<<1024, 256>>>(in, out, n, g_bad);
  unsigned long long bad = 0;
  MEMSIM_CUDA_CHECK(cudaMemcpy(&bad, g_bad, sizeof(bad), cudaMemcpyDeviceToHost));
  g_failed_checks += bad != 0;
  return bad;
}

// A kernel's median time and the blocks an SM holds, under a shared-memory carve-out of carveout_kb
// (cudaFuncAttributePreferredSharedMemoryCarveout, as a percentage of sm_90's largest, 228 KB, rounded up; 0: the
// runtime's choice), which is set back to the runtime's choice after.
struct Timed {
  double us = 0;
  int blocks_per_sm = 0;
};
template <class... Args>
Timed time_under_carveout(void (*kernel)(Args...), dim3 grid, dim3 block, int carveout_kb, Args... args) {
  const int percent = carveout_kb > 0 ? (carveout_kb * 100 + 227) / 228 : -1;
  MEMSIM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, percent));
  Timed t;
  MEMSIM_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&t.blocks_per_sm, kernel, int(block.x * block.y), 0));
  t.us = median_us([&] { kernel<<<grid, block>>>(args...); });
  MEMSIM_CUDA_CHECK(cudaGetLastError());
  MEMSIM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, -1));
  return t;
}

// One shape and mode, timed and checked. carveout_kb > 0 asks for that much of the SM's 256 KB of L1 and
// shared memory as shared memory (cudaFuncAttributePreferredSharedMemoryCarveout: the rest is L1), which also
// bounds the blocks an SM holds; 0 leaves the choice to the runtime. The line says how many blocks an SM holds.
template <int BX, int BY, int TILE, Mode kMode>
void run(double memcpy_us, int carveout_kb = 0) {
  static_assert(kN % TILE == 0, "a tile that divides the matrix: every element copied, none left unwritten");
  const size_t n = size_t(kN) * kN;
  MEMSIM_CUDA_CHECK(cudaMemset(g_out, 0, n * sizeof(double)));
  const Timed t = time_under_carveout(staged_copy<BX, BY, TILE, kMode>, dim3(kN / TILE, kN / TILE), dim3(BX, BY),
                                      carveout_kb, static_cast<const double*>(g_in), g_out);
  const unsigned long long bad = mismatches<double>(g_in, g_out, n);
  static const char* const kNames[] = {"as written", "ld.cg",       "loads first",  "wide stores",
                                       "wide loads", "row halves", "piece halves"};
  char carveout[32] = "runtime's";
  if (carveout_kb > 0) std::snprintf(carveout, sizeof carveout, "%d KB", carveout_kb);
  std::printf("%dx%d tile %d %-12s elements/thread %3d  shared carveout %-9s blocks/SM %2d  %8.1f us  %.3f of "
              "cudaMemcpy  mismatches %llu\n",
              BX, BY, TILE, kNames[kMode], TILE * TILE / (BX * BY), carveout, t.blocks_per_sm, t.us, memcpy_us / t.us,
              bad);
}

// A shape as written and with its loads first under each shared-memory carveout sm_90 offers from 100 KB up:
// the larger the carveout, the less L1 is left to hold the loads in flight.
template <int BX, int BY, int TILE>
void run_carveouts(double memcpy_us) {
  for (const int kb : {100, 132, 164, 196, 228}) {
    run<BX, BY, TILE, kAsWritten>(memcpy_us, kb);
    run<BX, BY, TILE, kLoadsFirst>(memcpy_us, kb);
  }
}

// A narrow type's as-written copy under a carve-out (as run() does for f64), against cudaMemcpy of its own bytes.
template <class T, int BX, int BY, int TILE>
void run_narrow(int carveout_kb) {
  static_assert(kN % TILE == 0, "a tile that divides the matrix: every element copied, none left unwritten");
  const size_t n = size_t(kN) * kN;
  const T* in = reinterpret_cast<const T*>(g_in);
  T* out = reinterpret_cast<T*>(g_out);
  const double memcpy_us =
      median_us([&] { MEMSIM_CUDA_CHECK(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice)); });
  MEMSIM_CUDA_CHECK(cudaMemset(out, 0, n * sizeof(T)));
  const Timed t = time_under_carveout(staged_copy_narrow<T, BX, BY, TILE>, dim3(kN / TILE, kN / TILE), dim3(BX, BY),
                                      carveout_kb, in, out);
  const unsigned long long bad = mismatches(in, out, n);
  std::printf("%dx%d tile %d %d-byte as written  shared carveout %3d KB  blocks/SM %2d  %8.1f us  %.3f of "
              "cudaMemcpy (%.1f us)  mismatches %llu\n",
              BX, BY, TILE, int(sizeof(T)), carveout_kb, t.blocks_per_sm, t.us, memcpy_us / t.us, memcpy_us, bad);
}

template <class T, int BX, int BY, int TILE>
void run_narrow_carveouts() {
  for (const int kb : {100, 132, 164, 228}) run_narrow<T, BX, BY, TILE>(kb);
}

int run_probe() {
  const size_t n = size_t(kN) * kN;
  MEMSIM_CUDA_CHECK(cudaMalloc(&g_in, n * sizeof(double)));
  MEMSIM_CUDA_CHECK(cudaMalloc(&g_out, n * sizeof(double)));
  MEMSIM_CUDA_CHECK(cudaMalloc(&g_bad, sizeof(*g_bad)));
  std::vector<double> host(n);
  for (size_t i = 0; i < n; ++i) host[i] = double(i % 1000003) + 0.5;
  MEMSIM_CUDA_CHECK(cudaMemcpy(g_in, host.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  cudaDeviceProp prop;
  MEMSIM_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0;
  MEMSIM_CUDA_CHECK(cudaDriverGetVersion(&driver));
  std::printf("%s, driver API %d, f64 %dx%d\n", prop.name, driver, kN, kN);
  for (int round = 0; round < 2; ++round) {
    const double memcpy_us = median_us(
        [&] { MEMSIM_CUDA_CHECK(cudaMemcpyAsync(g_out, g_in, n * sizeof(double), cudaMemcpyDeviceToDevice)); });
    std::printf("round %d: cudaMemcpy %.1f us\n", round + 1, memcpy_us);
    run<20, 5, 40, kAsWritten>(memcpy_us);
    run<20, 5, 40, kLoadsFirst>(memcpy_us);
    run<20, 5, 40, kRowHalves>(memcpy_us);
    run<20, 5, 40, kPieceHalves>(memcpy_us);
    run<24, 6, 48, kAsWritten>(memcpy_us);
    run<24, 6, 48, kLoadsFirst>(memcpy_us);
    run<24, 6, 48, kRowHalves>(memcpy_us);
    run<24, 6, 48, kPieceHalves>(memcpy_us);
    run<20, 4, 40, kAsWritten>(memcpy_us);
    run<20, 4, 40, kLoadsFirst>(memcpy_us);
    run<20, 4, 40, kRowHalves>(memcpy_us);
    run<20, 4, 40, kPieceHalves>(memcpy_us);
    run<16, 4, 32, kAsWritten>(memcpy_us);
    run<16, 4, 32, kLoadsFirst>(memcpy_us);
    run<16, 4, 32, kRowHalves>(memcpy_us);
    run<16, 4, 32, kPieceHalves>(memcpy_us);
    run<20, 10, 40, kAsWritten>(memcpy_us);
    run<20, 10, 40, kLoadsFirst>(memcpy_us);
    // Two batches as written but fast in the held-out sets (12 elements), and the 2-row blocks (32, 40).
    run<24, 8, 48, kAsWritten>(memcpy_us);
    run<24, 8, 48, kLoadsFirst>(memcpy_us);
    run<24, 8, 48, kRowHalves>(memcpy_us);
    run<24, 8, 48, kPieceHalves>(memcpy_us);
    run<12, 16, 48, kAsWritten>(memcpy_us);
    run<12, 16, 48, kLoadsFirst>(memcpy_us);
    run<16, 2, 32, kAsWritten>(memcpy_us);
    run<16, 2, 32, kLoadsFirst>(memcpy_us);
    run<16, 2, 32, kRowHalves>(memcpy_us);
    run<16, 2, 32, kPieceHalves>(memcpy_us);
    run<20, 2, 40, kAsWritten>(memcpy_us);
    run<20, 2, 40, kLoadsFirst>(memcpy_us);
    run<20, 2, 40, kRowHalves>(memcpy_us);
    run<20, 2, 40, kPieceHalves>(memcpy_us);
    // One tile (48x48), blocks 16, 24 and 48 wide, with and without a partly filled last warp.
    run<24, 4, 48, kAsWritten>(memcpy_us);
    run<24, 4, 48, kLoadsFirst>(memcpy_us);
    run<24, 12, 48, kAsWritten>(memcpy_us);
    run<24, 12, 48, kLoadsFirst>(memcpy_us);
    run<16, 3, 48, kAsWritten>(memcpy_us);
    run<16, 3, 48, kLoadsFirst>(memcpy_us);
    run<16, 6, 48, kAsWritten>(memcpy_us);
    run<16, 6, 48, kLoadsFirst>(memcpy_us);
    run<16, 12, 48, kAsWritten>(memcpy_us);
    run<16, 12, 48, kLoadsFirst>(memcpy_us);
    run<48, 1, 48, kAsWritten>(memcpy_us);
    run<48, 1, 48, kLoadsFirst>(memcpy_us);
    run<48, 2, 48, kAsWritten>(memcpy_us);
    run<48, 2, 48, kLoadsFirst>(memcpy_us);
    run<48, 3, 48, kAsWritten>(memcpy_us);
    run<48, 3, 48, kLoadsFirst>(memcpy_us);
    run<48, 4, 48, kAsWritten>(memcpy_us);
    run<48, 4, 48, kLoadsFirst>(memcpy_us);
    // The same shapes under carveouts from 100 to 228 KB: is it the L1 left beside shared memory?
    run_carveouts<24, 4, 48>(memcpy_us);
    run_carveouts<24, 8, 48>(memcpy_us);
    run_carveouts<16, 6, 48>(memcpy_us);
    run_carveouts<48, 4, 48>(memcpy_us);
    run_carveouts<20, 4, 40>(memcpy_us);
    run_carveouts<20, 10, 40>(memcpy_us);
    run_carveouts<16, 4, 32>(memcpy_us);
    // The same question in 4- and 2-byte elements (f32, f16), tiles that divide 8160: pieces of 96, 64, 64 and
    // 128 bytes in f32; 48, 32, 32 and 64 in f16.
    run_narrow_carveouts<uint32_t, 24, 4, 48>();
    run_narrow_carveouts<uint32_t, 16, 6, 48>();
    run_narrow_carveouts<uint32_t, 16, 4, 32>();
    run_narrow_carveouts<uint32_t, 32, 4, 32>();
    run_narrow_carveouts<uint16_t, 24, 4, 48>();
    run_narrow_carveouts<uint16_t, 16, 6, 48>();
    run_narrow_carveouts<uint16_t, 16, 4, 32>();
    run_narrow_carveouts<uint16_t, 32, 4, 32>();
  }
  if (g_failed_checks > 0) std::fprintf(stderr, "memsim-cut-lines-probe: %d runs copied wrongly\n", g_failed_checks);
  return g_failed_checks > 0 ? 1 : 0;
}

int main() {
  try {
    return run_probe();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "memsim-cut-lines-probe: %s\n", e.what());
    return 1;
  }
}
