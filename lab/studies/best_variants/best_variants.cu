// memsim-best-variants: the design study behind the suite's `best` kernel (docs/best.md, "variants"). It
// times variants of one design against cudaMemcpy, a 16-byte copy kernel and cuBLAS geam in the same run:
// each thread loads an E x E block (E = 16 / element bytes) as E 16-byte rows, transposes it in registers,
// stores 16-byte columns into a transposed shared tile whose 16-byte chunks are XOR-swizzled, then the block
// writes whole output rows. The variants: tile size and threads (bytes in flight), the order of the blocks
// (rows of tiles, the grid over the output, bands of G tile rows), streaming cache hints, launch bounds.
// And Hopper's bulk tensor copy (TMA): the same design with each tile loaded into shared memory by one
// thread's cp.async.bulk.tensor, then read by the threads as the others read global memory ("tma" lines).
// Every output is checked against the input ("bad" counts wrong elements). This is a standalone exploration
// with its own index math, like the hand-written references: the suite's `best` (kernels/suite/best.hpp) is
// the one the replay counts; the variant "TX=TY=16E, NT256, grid over the output" is the same design.
//
//   memsim-best-variants > OUT.txt      (16384x16384 and 8192x8192, f64, f32, f16; about 10 s on an H100)
//   memsim-best-variants --walks        (skewed column walks against the plain one, f64/f32/f16, both sizes)
//   memsim-best-variants --placement    (f64 and f32: the same kernels on a second set of buffers, beside a copy
//                                        that touches every 2 MiB page each wave; bands of tile rows)
#include <cstdio>
#include <cstdint>
#include <string>
#include <vector>
#include <algorithm>
#include <cublas_v2.h>
#include <cuda.h>          // CUtensorMap, for the TMA variant
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled

#include "validate/cuda_check.hpp"  // every CUDA and cuBLAS call checked, as in the validation program

using memsim::validate::cublas_check;

template <int B> struct Raw;
template <> struct Raw<2> { using t = uint16_t; };
template <> struct Raw<4> { using t = uint32_t; };
template <> struct Raw<8> { using t = uint64_t; };

// Cache hints of the global accesses (HINT): 0 none; 1 streaming (__ldcs, __stcs); 10 loads asking the L2 to
// fetch 256 bytes (ld.global.L2::256B); 11 those loads bypassing L1 and both sides marked first to evict from
// the L2 (an evict_first cache policy); 12 256-byte loads with streaming stores; 13 256-byte loads through the
// read-only path, bypassing L1. 2 to 8: no hint, at most that many blocks an SM's registers
// (__launch_bounds__).
__device__ __forceinline__ uint64_t evict_first_policy() {
  uint64_t pol;
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
  return pol;
}

template <int HINT>
__device__ __forceinline__ uint4 load16(const uint4* p) {
  uint4 v;
  if constexpr (HINT == 1) {
    v = __ldcs(p);
  } else if constexpr (HINT == 10 || HINT == 12) {
    asm("ld.global.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  } else if constexpr (HINT == 11) {
    asm("ld.global.L1::no_allocate.L2::cache_hint.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4], %5;"
        : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p), "l"(evict_first_policy()));
  } else if constexpr (HINT == 13) {
    asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
        : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  } else {
    v = *p;
  }
  return v;
}

template <int HINT>
__device__ __forceinline__ void store16(uint4* p, const uint4& w) {
  if constexpr (HINT == 1 || HINT == 12) {
    __stcs(p, w);
  } else if constexpr (HINT == 11) {
    asm volatile("st.global.L1::no_allocate.L2::cache_hint.v4.u32 [%0], {%1,%2,%3,%4}, %5;"
                 :: "l"(p), "r"(w.x), "r"(w.y), "r"(w.z), "r"(w.w), "l"(evict_first_policy()) : "memory");
  } else {
    *p = w;
  }
}

// The design's second half, shared by its variants: each thread's E x E blocks (v, E 16-byte rows each) are
// transposed in registers and stored as 16-byte columns into the transposed shared tile, whose chunks are
// XOR-swizzled; after the barrier the block writes whole output rows (store16: with the stores of HINT).
template <int TS, int TX, int TY, int NT, int HINT>
__device__ __forceinline__ void transpose_and_store(const uint4 (&v)[TX / (16 / TS) * (TY / (16 / TS)) / NT][16 / TS],
                                                    typename Raw<TS>::t* tile, typename Raw<TS>::t* out, int col0,
                                                    int row0, int H) {
  using T = typename Raw<TS>::t;
  constexpr int E = 16 / TS;
  constexpr int BCX = TX / E, BCY = TY / E;
  constexpr int PER_LD = BCX * BCY / NT;
  constexpr int PER_ST = TX * BCY / NT;
  static_assert(BCX * BCY % NT == 0 && TX * BCY % NT == 0, "shape");
  const int tid = threadIdx.x;
#pragma unroll
  for (int p = 0; p < PER_LD; ++p) {
    const int q = tid + p * NT;
    const int bj = q % BCX, bi = q / BCX;
    const T* e = reinterpret_cast<const T*>(v[p]);  // e[k * E + m]
#pragma unroll
    for (int m = 0; m < E; ++m) {
      T col[E];
#pragma unroll
      for (int k = 0; k < E; ++k) col[k] = e[k * E + m];
      const int orow = bj * E + m;
      const int swz = (orow / E) % BCY;
      *reinterpret_cast<uint4*>(&tile[orow * TY + ((bi ^ swz) * E)]) = *reinterpret_cast<uint4*>(col);
    }
  }
  __syncthreads();
#pragma unroll
  for (int p = 0; p < PER_ST; ++p) {
    const int q = tid + p * NT;
    const int oc = q % BCY, orow = q / BCY;
    const int swz = (orow / E) % BCY;
    const uint4 w = *reinterpret_cast<const uint4*>(&tile[orow * TY + ((oc ^ swz) * E)]);
    uint4* dst = reinterpret_cast<uint4*>(out + (col0 + orow) * H + row0 + oc * E);
    store16<HINT>(dst, w);
  }
}

template <int TS, int TX, int TY, int NT, int G, int HINT, int SK = 0>
__global__ void __launch_bounds__(NT, HINT >= 2 && HINT <= 8 ? HINT : 1) best(void* outv, const void* inv, int W, int H, int GX, int GY) {
  using T = typename Raw<TS>::t;
  constexpr int E = 16 / TS;
  constexpr int BCX = TX / E;
  constexpr int PER_LD = BCX * (TY / E) / NT;  // the shape is checked in transpose_and_store
  __shared__ alignas(16) T tile[TX * TY];
  const T* in = static_cast<const T*>(inv);
  T* out = static_cast<T*>(outv);
  // grouped rasterization: G tile rows per band, walked column by column
  const int b = blockIdx.x;
  int tx, ty;
  {
    const int g = G > GY ? GY : G;
    const int band = b / (g * GX);
    const int rows_in_band = min(g, GY - band * g);
    const int idx = b - band * g * GX;
    ty = band * g + idx % rows_in_band;
    tx = idx / rows_in_band;
    // skewed walk: every SK tile rows the column moves on by one, so that blocks resident together read tiles
    // of several columns (different low address bits) while SK of them still write neighbouring output pieces
    if constexpr (SK > 0) tx = (tx + ty / SK) % GX;
  }
  const int col0 = tx * TX, row0 = ty * TY;
  const int tid = threadIdx.x;
  uint4 v[PER_LD][E];
#pragma unroll
  for (int p = 0; p < PER_LD; ++p) {
    const int q = tid + p * NT;
    const int bj = q % BCX, bi = q / BCX;
#pragma unroll
    for (int k = 0; k < E; ++k) {
      const uint4* src = reinterpret_cast<const uint4*>(in + (row0 + bi * E + k) * W + col0 + bj * E);
      v[p][k] = load16<HINT>(src);
    }
  }
  transpose_and_store<TS, TX, TY, NT, HINT>(v, tile, out, col0, row0, H);
}


// The TMA variant: one thread loads the whole TY x TX tile into a row-major shared tile `a` with a bulk tensor
// copy, the block waits on an mbarrier for its bytes, then each thread reads its E x E block from `a` (16-byte
// reads whose lanes run along the row: 8 distinct bank groups a phase) and the rest is the design's: transposed
// into the XOR-swizzled `tile`, written out as whole output rows. Grid over the output. Both tiles are
// dynamic shared memory (2 x 32 KiB in f16).
__device__ __forceinline__ uint32_t smem_addr(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

template <int TS, int TX, int TY, int NT>
__global__ void __launch_bounds__(NT) best_tma(void* outv, const __grid_constant__ CUtensorMap tmap, int H, int GY) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using T = typename Raw<TS>::t;
  constexpr int E = 16 / TS;
  constexpr int BCX = TX / E;
  constexpr int PER_LD = BCX * (TY / E) / NT;  // the shape is checked in transpose_and_store
  extern __shared__ __align__(128) unsigned char smem[];
  T* a = reinterpret_cast<T*>(smem);
  T* tile = a + TX * TY;
  __shared__ alignas(8) uint64_t bar;
  T* out = static_cast<T*>(outv);
  const int tx = blockIdx.x / GY, ty = blockIdx.x % GY;
  const int col0 = tx * TX, row0 = ty * TY;
  const int tid = threadIdx.x;
  const uint32_t bar_a = smem_addr(&bar);
  if (tid == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_a) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  if (tid == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar_a), "r"(TX * TY * TS) : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
        ::"r"(smem_addr(a)), "l"(reinterpret_cast<uint64_t>(&tmap)), "r"(col0), "r"(row0), "r"(bar_a)
        : "memory");
  }
  for (uint32_t done = 0; !done;)
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n selp.u32 %0, 1, 0, p;\n}"
                 : "=r"(done)
                 : "r"(bar_a)
                 : "memory");
  uint4 v[PER_LD][E];
#pragma unroll
  for (int p = 0; p < PER_LD; ++p) {
    const int q = tid + p * NT;
    const int bj = q % BCX, bi = q / BCX;
#pragma unroll
    for (int k = 0; k < E; ++k) v[p][k] = *reinterpret_cast<const uint4*>(a + (bi * E + k) * TX + bj * E);
  }
  transpose_and_store<TS, TX, TY, NT, 0>(v, tile, out, col0, row0, H);
#endif
}

template <int TS>
__global__ void fill(void* p, size_t n, uint32_t seed) {
  using T = typename Raw<TS>::t;
  T* a = static_cast<T*>(p);
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    uint64_t x = i * 0x9E3779B97F4A7C15ull + seed; x ^= x >> 29; x *= 0xBF58476D1CE4E5B9ull; x ^= x >> 32;
    a[i] = T(x);
  }
}
template <int TS>
__global__ void check(const void* outv, const void* inv, int W, int H, unsigned long long* bad) {
  using T = typename Raw<TS>::t;
  const T* in = static_cast<const T*>(inv); const T* out = static_cast<const T*>(outv);
  size_t n = size_t(W) * H; unsigned long long local = 0;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    size_t r = i / W, c = i % W;
    if (out[c * H + r] != in[i]) ++local;
  }
  if (local) atomicAdd(bad, local);
}
__global__ void copy16(uint4* o, const uint4* i, size_t n) {
  size_t k = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (k < n) o[k] = i[k];
}

struct Bufs { void* in[2]; void* out[2]; size_t bytes; };
template <class F> float time_med(F f, int reps = 20) {
  cudaEvent_t a, b; MEMSIM_CUDA_CHECK(cudaEventCreate(&a)); MEMSIM_CUDA_CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) f(i);
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) { MEMSIM_CUDA_CHECK(cudaEventRecord(a)); f(i); MEMSIM_CUDA_CHECK(cudaEventRecord(b)); MEMSIM_CUDA_CHECK(cudaEventSynchronize(b)); float ms; MEMSIM_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms); }
  MEMSIM_CUDA_CHECK(cudaGetLastError());
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
static double gbs(size_t bytes, float ms) { return 2.0 * bytes / (ms * 1e6); }
double g_memcpy, g_copy;
bool g_tma = false;  // compute capability 9.0 or later: bulk tensor copies

// One variant's line: its output checked against the input once (bad: wrong elements), then timed against
// the run's cudaMemcpy and 16-byte copy, with the registers and blocks an SM the kernel gets.
template <int TS, class Launch>
void measure(Bufs& B, int W, int H, const void* kernel, int threads, size_t smem, Launch launch, const char* label) {
  MEMSIM_CUDA_CHECK(cudaMemset(B.out[0], 0xA5, B.bytes)); launch(0); MEMSIM_CUDA_CHECK(cudaGetLastError()); MEMSIM_CUDA_CHECK(cudaDeviceSynchronize());
  unsigned long long* bad; MEMSIM_CUDA_CHECK(cudaMallocManaged(&bad, 8)); *bad = 0;
  check<TS><<<1024, 256>>>(B.out[0], B.in[0], W, H, bad); MEMSIM_CUDA_CHECK(cudaDeviceSynchronize());
  float ms = time_med(launch);
  double g = gbs(B.bytes, ms);
  cudaFuncAttributes fa; MEMSIM_CUDA_CHECK(cudaFuncGetAttributes(&fa, kernel)); int occ; MEMSIM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, threads, smem));
  printf("regs %d occ %d | ", fa.numRegs, occ);
  printf("%s: %.0f GB/s  memcpy %.3f copy16 %.3f  bad %llu\n", label, g, g / g_memcpy, g / g_copy, *bad);
  MEMSIM_CUDA_CHECK(cudaFree(bad));
}

template <int TS, int TX, int TY, int NT, int G, int HINT, int SK = 0>
void run_best(Bufs& B, int W, int H, const char* dt) {
 if constexpr (TX * TY * TS <= 48 * 1024) {
  const int GX = W / TX, GY = H / TY;
  auto k = best<TS, TX, TY, NT, G, HINT, SK>;
  auto launch = [&](int i) { k<<<GX * GY, NT>>>(B.out[i & 1], B.in[i & 1], W, H, GX, GY); };
  char label[96];
  std::snprintf(label, sizeof label, "%s %dx%d best TX%d TY%d NT%d G%d H%d%s", dt, W, H, TX, TY, NT, G, HINT,
                SK > 0 ? (" S" + std::to_string(SK)).c_str() : "");
  measure<TS>(B, W, H, (const void*)k, NT, 0, launch, label);
 }
}

// The TMA variant's launch: the tensor map describes the input (W x H elements of TS bytes, rows W * TS bytes
// apart) and its TX x TY box; cuTensorMapEncodeTiled comes from the driver through the runtime's entry point.
template <int TS, int TX, int TY, int NT>
void run_tma(Bufs& B, int W, int H, const char* dt) {
  static PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  if (!encode) {
    cudaDriverEntryPointQueryResult found;
    MEMSIM_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", reinterpret_cast<void**>(&encode), 12000,
                                                       cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || !encode) { printf("%s %dx%d tma: no cuTensorMapEncodeTiled\n", dt, W, H); return; }
  }
  const CUtensorMapDataType type = TS == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16
                                   : TS == 4 ? CU_TENSOR_MAP_DATA_TYPE_UINT32 : CU_TENSOR_MAP_DATA_TYPE_INT64;
  CUtensorMap maps[2];
  for (int i = 0; i < 2; ++i) {
    const cuuint64_t dims[2] = {cuuint64_t(W), cuuint64_t(H)}, strides[1] = {cuuint64_t(W) * TS};
    const cuuint32_t box[2] = {TX, TY}, elem[2] = {1, 1};
    const CUresult r = encode(&maps[i], type, 2, B.in[i], dims, strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
                              CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) { printf("%s %dx%d tma: cuTensorMapEncodeTiled failed (%d)\n", dt, W, H, int(r)); return; }
  }
  const int GX = W / TX, GY = H / TY;
  const size_t smem = size_t(2) * TX * TY * TS;
  auto k = best_tma<TS, TX, TY, NT>;
  MEMSIM_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  auto launch = [&](int i) { k<<<GX * GY, NT, smem>>>(B.out[i & 1], maps[i & 1], H, GY); };
  char label[96];
  std::snprintf(label, sizeof label, "%s %dx%d tma TX%d TY%d NT%d", dt, W, H, TX, TY, NT);
  measure<TS>(B, W, H, (const void*)k, NT, smem, launch, label);
}

// The placement study's control (--placement): a 16-byte copy of 4 KiB a block whose consecutive blocks land on
// different 2 MiB pages, every page touched each wave (the offset within the page scrambled, so that the low
// address bits vary as in a plain copy). If a transpose of 2 GiB matrices lost its speed to the TLB's reach,
// this copy would lose more at 2 GiB than at 256 MiB.
__global__ void copy16_pages(uint4* out, const uint4* in, size_t pages) {
  const size_t b = blockIdx.x, page = b % pages, j = b / pages;
  const size_t chunk = page * 512 + (j + page * 37) % 512;
  const size_t i = chunk * 256 + threadIdx.x;
  out[i] = in[i];
}

enum class Mode { Variants, Placement, Walks };

template <int TS> void suite(int W, int H, cublasHandle_t hb, Mode mode) {
  const char* dt = TS == 2 ? "f16" : TS == 4 ? "f32" : "f64";
  Bufs B; B.bytes = size_t(W) * H * TS;
  for (int i = 0; i < 2; ++i) { MEMSIM_CUDA_CHECK(cudaMalloc(&B.in[i], B.bytes)); MEMSIM_CUDA_CHECK(cudaMalloc(&B.out[i], B.bytes)); fill<TS><<<1024, 256>>>(B.in[i], size_t(W) * H, 7 + i); }
  MEMSIM_CUDA_CHECK(cudaDeviceSynchronize());
  float ms = time_med([&](int i) { MEMSIM_CUDA_CHECK(cudaMemcpyAsync(B.out[i & 1], B.in[i & 1], B.bytes, cudaMemcpyDeviceToDevice)); });
  g_memcpy = gbs(B.bytes, ms);
  size_t n16 = B.bytes / 16;
  ms = time_med([&](int i) { copy16<<<(n16 + 255) / 256, 256>>>((uint4*)B.out[i & 1], (const uint4*)B.in[i & 1], n16); });
  g_copy = gbs(B.bytes, ms);
  printf("%s %dx%d memcpy %.0f GB/s copy16 %.0f GB/s\n", dt, W, H, g_memcpy, g_copy);
  if (TS != 2) {
    ms = time_med([&](int i) {
      if (TS == 4) { float a = 1, b0 = 0; cublas_check(cublasSgeam(hb, CUBLAS_OP_T, CUBLAS_OP_N, H, W, &a, (const float*)B.in[i & 1], W, &b0, (const float*)B.out[i & 1], H, (float*)B.out[i & 1], H), "cublasSgeam"); }
      else { double a = 1, b0 = 0; cublas_check(cublasDgeam(hb, CUBLAS_OP_T, CUBLAS_OP_N, H, W, &a, (const double*)B.in[i & 1], W, &b0, (const double*)B.out[i & 1], H, (double*)B.out[i & 1], H), "cublasDgeam"); }
    });
    printf("%s %dx%d cublas geam %.0f GB/s memcpy %.3f copy16 %.3f\n", dt, W, H, gbs(B.bytes, ms), gbs(B.bytes, ms) / g_memcpy, gbs(B.bytes, ms) / g_copy);
  }
  constexpr int E = 16 / TS;
  constexpr int O = 1048576;  // grid over the output
  if (mode == Mode::Walks) {
    // Skewed column walks (every SK tile rows the column moves on by one) against the suite's plain column walk,
    // which opens and closes the list.
    run_best<TS, 16 * E, 16 * E, 256, O, 0>(B, W, H, dt);
    run_best<TS, 16 * E, 16 * E, 256, O, 0, 1>(B, W, H, dt);
    run_best<TS, 16 * E, 16 * E, 256, O, 0, 2>(B, W, H, dt);
    run_best<TS, 16 * E, 16 * E, 256, O, 0, 4>(B, W, H, dt);
    run_best<TS, 16 * E, 16 * E, 256, O, 0, 8>(B, W, H, dt);
    run_best<TS, 16 * E, 16 * E, 256, O, 0, 16>(B, W, H, dt);
    run_best<TS, 16 * E, 16 * E, 256, O, 0, 32>(B, W, H, dt);
    run_best<TS, 16 * E, 16 * E, 256, O, 0, 64>(B, W, H, dt);
    run_best<TS, 16 * E, 16 * E, 256, O, 0, 128>(B, W, H, dt);
    run_best<TS, 16 * E, 16 * E, 256, O, 0, 256>(B, W, H, dt);
    run_best<TS, 32 * E, 32 * E, 512, O, 0>(B, W, H, dt);
    run_best<TS, 32 * E, 32 * E, 512, O, 0, 4>(B, W, H, dt);
    run_best<TS, 32 * E, 32 * E, 512, O, 0, 16>(B, W, H, dt);
    run_best<TS, 16 * E, 16 * E, 256, O, 0>(B, W, H, dt);
  }
  if (mode == Mode::Placement) {
    // Where the buffers land in physical memory: the same kernels on this process's buffers, beside a copy
    // that touches every page each wave; bands of G tile rows against whole columns.
    const size_t pages = B.bytes / (size_t(2) << 20);
    ms = time_med([&](int i) { copy16_pages<<<pages * 512, 256>>>((uint4*)B.out[i & 1], (const uint4*)B.in[i & 1], pages); });
    printf("%s %dx%d copy16 page-scattered %.0f GB/s  memcpy %.3f copy16 %.3f (pages %zu)\n", dt, W, H, gbs(B.bytes, ms),
           gbs(B.bytes, ms) / g_memcpy, gbs(B.bytes, ms) / g_copy, pages);
    run_best<TS, 16 * E, 16 * E, 256, O, 0>(B, W, H, dt);
    run_best<TS, 16 * E, 16 * E, 256, 256, 0>(B, W, H, dt);
    run_best<TS, 16 * E, 16 * E, 256, 128, 0>(B, W, H, dt);
    run_best<TS, 16 * E, 16 * E, 256, 64, 0>(B, W, H, dt);
    run_best<TS, 16 * E, 16 * E, 256, O, 0>(B, W, H, dt);
    run_best<TS, 32 * E, 32 * E, 512, O, 0>(B, W, H, dt);
    run_best<TS, 32 * E, 32 * E, 512, 128, 0>(B, W, H, dt);
    run_best<TS, 16 * E, 16 * E, 256, O, 0>(B, W, H, dt);
  }
  if (mode == Mode::Variants) {
    // the suite's best: 16E x 16E tile, 256 threads, grid over output; twice for the spread
    run_best<TS, 16 * E, 16 * E, 256, O, 0>(B, W, H, dt);
    run_best<TS, 16 * E, 16 * E, 256, O, 0>(B, W, H, dt);
    run_best<TS, 16 * E, 16 * E, 256, 1, 0>(B, W, H, dt);
    // bands of G tile rows
    run_best<TS, 16 * E, 16 * E, 256, 8, 0>(B, W, H, dt);
    run_best<TS, 16 * E, 16 * E, 256, 32, 0>(B, W, H, dt);
    run_best<TS, 16 * E, 16 * E, 256, 128, 0>(B, W, H, dt);
    // more bytes in flight a thread: two or four E x E blocks a thread
    run_best<TS, 16 * E, 16 * E, 128, O, 0>(B, W, H, dt);
    run_best<TS, 32 * E, 16 * E, 256, O, 0>(B, W, H, dt);
    run_best<TS, 16 * E, 32 * E, 256, O, 0>(B, W, H, dt);
    run_best<TS, 32 * E, 32 * E, 256, O, 0>(B, W, H, dt);
    run_best<TS, 32 * E, 32 * E, 512, O, 0>(B, W, H, dt);
    // streaming hints, launch bounds
    run_best<TS, 16 * E, 16 * E, 256, O, 1>(B, W, H, dt);
    run_best<TS, 16 * E, 16 * E, 256, O, 8>(B, W, H, dt);
    run_best<TS, 16 * E, 16 * E, 256, O, 0>(B, W, H, dt);
    // cache hints: 256-byte L2 fetches, evict-first, the read-only path
    run_best<TS, 16 * E, 16 * E, 256, O, 10>(B, W, H, dt);
    run_best<TS, 16 * E, 16 * E, 256, O, 11>(B, W, H, dt);
    run_best<TS, 16 * E, 16 * E, 256, O, 12>(B, W, H, dt);
    run_best<TS, 16 * E, 16 * E, 256, O, 13>(B, W, H, dt);
    run_best<TS, 16 * E, 16 * E, 256, O, 0>(B, W, H, dt);
    // half the tile (twice the blocks, shorter-lived: a smaller last wave), and register caps (more blocks an SM)
    run_best<TS, 16 * E, 8 * E, 128, O, 0>(B, W, H, dt);
    run_best<TS, 8 * E, 16 * E, 128, O, 0>(B, W, H, dt);
    run_best<TS, 8 * E, 8 * E, 64, O, 0>(B, W, H, dt);
    run_best<TS, 16 * E, 16 * E, 256, O, 3>(B, W, H, dt);
    run_best<TS, 16 * E, 16 * E, 256, O, 4>(B, W, H, dt);
    run_best<TS, 16 * E, 16 * E, 256, O, 0>(B, W, H, dt);
    // the tile's loads by TMA (Hopper's bulk tensor copy), twice, and with 128 threads (two E x E blocks each)
    if (g_tma) {
      run_tma<TS, 16 * E, 16 * E, 256>(B, W, H, dt);
      run_tma<TS, 16 * E, 16 * E, 256>(B, W, H, dt);
      run_tma<TS, 16 * E, 16 * E, 128>(B, W, H, dt);
      run_best<TS, 16 * E, 16 * E, 256, O, 0>(B, W, H, dt);
    }
  }
  for (int i = 0; i < 2; ++i) { MEMSIM_CUDA_CHECK(cudaFree(B.in[i])); MEMSIM_CUDA_CHECK(cudaFree(B.out[i])); }
}

int main(int argc, char** argv) {
  const std::string arg = argc == 2 ? argv[1] : "";
  const Mode mode = arg == "--placement" ? Mode::Placement : arg == "--walks" ? Mode::Walks : Mode::Variants;
  if (argc > 2 || (argc == 2 && mode == Mode::Variants)) {
    fprintf(stderr, "usage: memsim-best-variants [--placement | --walks]\n");
    return 2;
  }
  try {
    cudaDeviceProp p; MEMSIM_CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
    int driver = 0, runtime = 0; MEMSIM_CUDA_CHECK(cudaDriverGetVersion(&driver)); MEMSIM_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    printf("device %s SMs %d L2 %d driver API %d runtime %d\n", p.name, p.multiProcessorCount, p.l2CacheSize, driver, runtime);
    g_tma = p.major >= 9;
    cublasHandle_t hb; cublas_check(cublasCreate(&hb), "cublasCreate");
    // f64, f32 and f16 (no f16 for the placement) at both sizes; for the placement and the walks then f64
    // 16384x16384 again, on buffers allocated after the others were freed.
    for (int n : {16384, 8192}) {
      suite<8>(n, n, hb, mode); suite<4>(n, n, hb, mode);
      if (mode != Mode::Placement) suite<2>(n, n, hb, mode);
    }
    if (mode != Mode::Variants) suite<8>(16384, 16384, hb, mode);
    return 0;
  } catch (const memsim::validate::CudaError& e) {
    fprintf(stderr, "memsim-best-variants: %s\n", e.what());
    return 1;
  }
}
