// memsim-store-merge: how many partial-sector pieces does the L1 merge before they reach the L2? (a study)
//
// Held-out sets b and c show the L1 completing 2-92% of a staged kernel's partial sectors before they leave the
// SM (lab/studies/store_merge/README.md). This program isolates what that share depends on, with stores alone.
// An 8192 x 8192 matrix of 4-byte words; a sector is 8 words of a row. A "set" is S sectors, one in each of S
// neighbouring rows, in the same column of sectors (a transpose's output pieces: one per line). Each sector is
// written in P pieces of 8/P words; a piece is 8/P lanes of one store instruction, so one instruction writes
// one piece into each of the S = 4P sectors of a set (P = 1: whole sectors, the control).
//
//   self:  a warp writes all P pieces of its sets. Its D sets are interleaved: piece k of set 0, piece k of
//          set 1, ..., piece k of set D-1, then piece k+1 of each: the pieces of a sector lie D store
//          instructions apart in the warp's stream.
//   cross: the P warps of a group in one block write one piece each of the same sets, at the same instruction
//          index (D sets each): the pieces of a sector come from P different warps.
//
// The stores are inline PTX `st.global.b32` marked volatile with a memory clobber, so that nvcc keeps them in
// the order written (it reorders plain stores to different addresses: the suite's 4x128 drain). Blocks of W
// warps; each configuration also runs held to 1 and 2 resident blocks an SM by dynamic shared memory the
// kernel does not use (fewer other warps' stores between a warp's pieces). Added later: runs of pairs (a
// warp's sets one after another, each set's halves back to back: 4 to 16 stores a warp).
//
// Timing: CUDA events around each launch, 2 warm-up launches, median of 15 with min and max, over 2 output
// buffers of 256 MiB (5x the H100's L2). Check: the first launch's output word for word (every word holds its
// own index; the buffer is filled with 0xff first, so an unwritten word shows). --once launches each
// configuration once, untimed, for Nsight Compute; --only TEXT runs the configurations whose name contains
// TEXT. Output: one JSON document on stdout.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <vector>

#include "validate/cuda_check.hpp"

namespace {

constexpr int kN = 8192;  // words a side: 256 MiB a matrix
constexpr int kOutputs = 2, kWarmup = 2, kReps = 15;

__device__ __forceinline__ void store_in_order(uint32_t* p, uint32_t v) {
  asm volatile("st.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// Word of piece k of sector si of set q, for lane l (its place within the piece: l mod 8/P).
template <int P>
__device__ __forceinline__ uint32_t piece_word(uint32_t q, int si, int k, int l) {
  constexpr int L = 8 / P, S = 32 / L;
  constexpr uint32_t row_groups = kN / S;
  const uint32_t row = (q % row_groups) * S + uint32_t(si), sector_col = q / row_groups;
  return row * kN + sector_col * 8 + uint32_t(k * L + l % L);
}

// Sets a launch has: one per row group and column of sectors.
template <int P>
__host__ __device__ constexpr uint32_t set_count() { return uint32_t(kN / (4 * P)) * uint32_t(kN / 8); }

// kScatter: warp g's sets are g's scattered over the matrix (times an odd number, modulo the set count: a
// bijection), so that the warps resident on an SM write rows far apart instead of neighbouring row groups.
template <int P, int D, bool kScatter = false>
__global__ void self_pieces(uint32_t* __restrict__ out) {
  constexpr int L = 8 / P;
  const uint32_t g = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int l = threadIdx.x % 32, si = l / L;
#pragma unroll
  for (int k = 0; k < P; ++k) {
#pragma unroll
    for (int s = 0; s < D; ++s) {
      const uint32_t q = g * D + s;
      const uint32_t w = piece_word<P>(kScatter ? uint32_t(uint64_t(q) * 40503u % set_count<P>()) : q, si, k, l);
      store_in_order(out + w, w);
    }
  }
}

// Runs of pairs: a warp writes its D sets one after another, each set's two halves in consecutive stores
// (2D stores a warp, every pair 1 apart): does a longer run of stores still merge?
template <int D>
__global__ void pair_runs(uint32_t* __restrict__ out) {
  const uint32_t g = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int l = threadIdx.x % 32, si = l / 4;
#pragma unroll
  for (int s = 0; s < D; ++s) {
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      const uint32_t w = piece_word<2>(g * D + s, si, k, l);
      store_in_order(out + w, w);
    }
  }
}

template <int P, int D>
__global__ void cross_pieces(uint32_t* __restrict__ out) {
  constexpr int L = 8 / P;
  const int warp = threadIdx.x / 32, warps = blockDim.x / 32;
  const uint32_t group = blockIdx.x * uint32_t(warps / P) + uint32_t(warp / P);
  const int k = warp % P, l = threadIdx.x % 32, si = l / L;
#pragma unroll
  for (int s = 0; s < D; ++s) {
    const uint32_t w = piece_word<P>(group * D + s, si, k, l);
    store_in_order(out + w, w);
  }
}

struct Config {
  const char* name;
  int pieces, distance;  // P, D
  bool cross;
  int warps_per_block;   // W
  const void* kernel;
  bool scatter = false;  // self_pieces' kScatter
  bool runs = false;     // pair_runs: D sets one after another, each as its two halves back to back
  unsigned blocks() const {
    const unsigned sets = unsigned(kN) / (4 * pieces) * unsigned(kN / 8);
    const unsigned warps = cross ? sets / distance * pieces : sets / distance;
    return warps / warps_per_block;
  }
};

#define SM_SELF(NAME, P, D, W) {NAME, P, D, false, W, (const void*)&self_pieces<P, D>}
#define SM_CROSS(NAME, P, D, W) {NAME, P, D, true, W, (const void*)&cross_pieces<P, D>}
#define SM_SCATTER(NAME, P, W) {NAME, P, 1, false, W, (const void*)&self_pieces<P, 1, true>, true}
#define SM_RUNS(NAME, D, W) {NAME, 2, D, false, W, (const void*)&pair_runs<D>, false, true}
const Config kConfigs[] = {
    SM_SELF("whole sectors, 1 set a warp, 8 warps a block", 1, 1, 8),
    SM_SELF("whole sectors, 4 sets a warp, 8 warps a block", 1, 4, 8),
    SM_SELF("self 2 pieces, 1 apart, 8 warps a block", 2, 1, 8),
    SM_SELF("self 2 pieces, 2 apart, 8 warps a block", 2, 2, 8),
    SM_SELF("self 2 pieces, 4 apart, 8 warps a block", 2, 4, 8),
    SM_SELF("self 2 pieces, 8 apart, 8 warps a block", 2, 8, 8),
    SM_SELF("self 4 pieces, 1 apart, 8 warps a block", 4, 1, 8),
    SM_SELF("self 4 pieces, 2 apart, 8 warps a block", 4, 2, 8),
    SM_SELF("self 4 pieces, 4 apart, 8 warps a block", 4, 4, 8),
    SM_SELF("self 4 pieces, 8 apart, 8 warps a block", 4, 8, 8),
    SM_SELF("self 2 pieces, 1 apart, 2 warps a block", 2, 1, 2),
    SM_SELF("self 2 pieces, 4 apart, 2 warps a block", 2, 4, 2),
    SM_SELF("self 4 pieces, 1 apart, 2 warps a block", 4, 1, 2),
    SM_CROSS("cross 2 pieces, 1 set a warp, 8 warps a block", 2, 1, 8),
    SM_CROSS("cross 2 pieces, 4 sets a warp, 8 warps a block", 2, 4, 8),
    SM_CROSS("cross 4 pieces, 1 set a warp, 8 warps a block", 4, 1, 8),
    SM_CROSS("cross 4 pieces, 4 sets a warp, 8 warps a block", 4, 4, 8),
    SM_CROSS("cross 2 pieces, 1 set a warp, 2 warps a block", 2, 1, 2),
    // Added after the first run (2026-11-28 04:17 UTC): the block's size at distance 1, and the rows apart.
    SM_SELF("self 2 pieces, 1 apart, 1 warp a block", 2, 1, 1),
    SM_SELF("self 2 pieces, 1 apart, 4 warps a block", 2, 1, 4),
    SM_SELF("self 2 pieces, 1 apart, 16 warps a block", 2, 1, 16),
    SM_SELF("self 4 pieces, 1 apart, 1 warp a block", 4, 1, 1),
    SM_SCATTER("self 2 pieces, 1 apart, 8 warps a block, sets scattered", 2, 8),
    SM_SCATTER("self 2 pieces, 1 apart, 2 warps a block, sets scattered", 2, 2),
    SM_SCATTER("self 4 pieces, 1 apart, 8 warps a block, sets scattered", 4, 8),
    SM_CROSS("cross 2 pieces, 1 set a warp, 4 warps a block", 2, 1, 4),
    SM_CROSS("cross 2 pieces, 1 set a warp, 16 warps a block", 2, 1, 16),
    SM_CROSS("cross 4 pieces, 1 set a warp, 4 warps a block", 4, 1, 4),
    SM_CROSS("cross 4 pieces, 1 set a warp, 16 warps a block", 4, 1, 16),
    // Added after the second run (2026-11-28 04:50 UTC): runs of pairs, 4 to 16 stores a warp.
    SM_RUNS("runs of pairs, 2 sets a warp, 2 warps a block", 2, 2),
    SM_RUNS("runs of pairs, 4 sets a warp, 2 warps a block", 4, 2),
    SM_RUNS("runs of pairs, 8 sets a warp, 2 warps a block", 8, 2),
    SM_RUNS("runs of pairs, 4 sets a warp, 1 warp a block", 4, 1),
    SM_RUNS("runs of pairs, 2 sets a warp, 8 warps a block", 2, 8),
    SM_RUNS("runs of pairs, 8 sets a warp, 8 warps a block", 8, 8),
};

// Every kernel takes the output alone; the configuration names the instantiation it launches.
void launch(const Config& c, int smem, uint32_t* out) {
  void* args[] = {&out};
  MEMSIM_CUDA_CHECK(cudaLaunchKernel(c.kernel, dim3(c.blocks()), dim3(32 * c.warps_per_block), args, size_t(smem)));
}

}  // namespace

int main(int argc, char** argv) {
  bool once = false;
  const char* only = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--once") == 0 && !once) {
      once = true;
    } else if (std::strcmp(argv[i], "--only") == 0 && !only && i + 1 < argc && argv[i + 1][0] != '\0') {
      only = argv[++i];
    } else {
      std::fprintf(stderr, "usage: memsim-store-merge [--once] [--only TEXT]\n");
      return 2;
    }
  }
  if (only) {
    bool any = false;
    for (const Config& c : kConfigs) any = any || std::strstr(c.name, only) != nullptr;
    if (!any) {
      std::fprintf(stderr, "memsim-store-merge: no configuration's name contains '%s'\n", only);
      return 2;
    }
  }
  try {
    const size_t words = size_t(kN) * kN, bytes = words * 4;
    std::vector<uint32_t> host(words);
    std::vector<uint32_t*> outs(kOutputs);
    for (auto& o : outs) MEMSIM_CUDA_CHECK(cudaMalloc(&o, bytes));
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
    std::printf("{\n  \"program\": \"memsim-store-merge\",\n  \"date\": \"%s\",\n  \"device\": \"%s\",\n"
                "  \"sms\": %d,\n  \"l2_bytes\": %d,\n  \"driver_version\": %d,\n  \"matrix_words\": %d,\n"
                "  \"runs\": [\n",
                date, p.name, p.multiProcessorCount, p.l2CacheSize, driver, kN);
    bool all_ok = true, first = true;
    const int limits[] = {0, 2, 1};  // resident blocks an SM: as many as fit, then 2 and 1
    for (int limit : limits) {
      const int smem = limit ? int(p.sharedMemPerMultiprocessor / limit - p.reservedSharedMemPerBlock) : 0;
      for (const Config& c : kConfigs) {
        if (only && !std::strstr(c.name, only)) continue;
        MEMSIM_CUDA_CHECK(cudaFuncSetAttribute(c.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        int resident = 0;
        MEMSIM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, c.kernel, 32 * c.warps_per_block, smem));
        MEMSIM_CUDA_CHECK(cudaMemset(outs[0], 0xff, bytes));
        launch(c, smem, outs[0]);
        MEMSIM_CUDA_CHECK(cudaGetLastError());
        MEMSIM_CUDA_CHECK(cudaDeviceSynchronize());
        if (once) continue;
        MEMSIM_CUDA_CHECK(cudaMemcpy(host.data(), outs[0], bytes, cudaMemcpyDeviceToHost));
        long long wrong = 0;
        for (size_t i = 0; i < words; ++i) wrong += host[i] != uint32_t(i);
        all_ok = all_ok && wrong == 0;
        std::vector<float> ms;
        for (int r = 0; r < kWarmup + kReps; ++r) {
          MEMSIM_CUDA_CHECK(cudaEventRecord(a));
          launch(c, smem, outs[r % kOutputs]);
          MEMSIM_CUDA_CHECK(cudaEventRecord(b));
          MEMSIM_CUDA_CHECK(cudaEventSynchronize(b));
          MEMSIM_CUDA_CHECK(cudaGetLastError());
          float t = 0;
          MEMSIM_CUDA_CHECK(cudaEventElapsedTime(&t, a, b));
          if (r >= kWarmup) ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        std::printf("%s    {\"name\": \"%s\", \"pieces\": %d, \"distance\": %d, \"cross\": %s, \"scattered\": %s, \"runs\": %s, \"warps_per_block\": %d, "
                    "\"blocks\": %u, \"blocks_per_sm\": %d, \"unused_shared_bytes\": %d, \"median_us\": %.2f, "
                    "\"min_us\": %.2f, \"max_us\": %.2f, \"wrong_words\": %lld}",
                    first ? "" : ",\n", c.name, c.pieces, c.distance, c.cross ? "true" : "false", c.scatter ? "true" : "false", c.runs ? "true" : "false", c.warps_per_block,
                    c.blocks(), resident, smem, 1e3 * ms[ms.size() / 2], 1e3 * ms.front(), 1e3 * ms.back(), wrong);
        first = false;
      }
    }
    std::printf("\n  ],\n  \"all_checks_passed\": %s\n}\n", once ? "null" : all_ok ? "true" : "false");
    return all_ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "memsim-store-merge: %s\n", e.what());
    return 1;
  }
}
