// memsim-smem-traffic-probe: does Nsight Compute count shared-load bank conflicts where the access pattern has
// none? Held-out set l's copy_shared and padded at block 16x10 on an 80-wide tile (lab/heldout/README.md, set l)
// took 28-31% more shared-load wavefronts than the replay's conflict-free count. This program drains such a
// tile (a block BX x BY reads tile[r][c], r = ty + BY j, c = tx + BX i, rows PITCH elements apart) with and
// without global loads and stores beside it, and controls whose patterns do conflict. Run it under
//   ncu --metrics smsp__inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,\
//   l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum memsim-smem-traffic-probe
// (README.md: what it found). It prints each launch it makes; its figures are Nsight Compute's.
#include <cstdio>

#include <cuda_runtime.h>

#include "validate/cuda_check.hpp"

namespace {

// Fills the tile (from global memory, or from the indices), then drains it: with GLOBAL each value read back is
// stored to global memory as copy_shared does, else summed (one store a thread, never taken).
template <class T, int BX, int BY, int TS, int PITCH, bool GLOBAL>
__global__ void drain(const T* in, T* out, size_t n) {
  extern __shared__ unsigned char raw[];
  T* tile = reinterpret_cast<T*>(raw);
  const int tx = threadIdx.x % BX, ty = threadIdx.x / BX;
  const size_t base = size_t(blockIdx.x) * TS * TS;
  for (int r = ty; r < TS; r += BY)
    for (int c = tx; c < TS; c += BX) tile[r * PITCH + c] = GLOBAL ? in[(base + r * TS + c) % n] : T(r * 7 + c);
  __syncthreads();
  T acc = 0;
  for (int r = ty; r < TS; r += BY)
    for (int c = tx; c < TS; c += BX) {
      const T v = tile[r * PITCH + c];
      if (GLOBAL)
        out[(base + r * TS + c) % n] = v;
      else
        acc += v;
    }
  if (!GLOBAL && acc == T(-1)) out[threadIdx.x] = acc;
}

template <class T, int BX, int BY, int TS, int PITCH, bool GLOBAL>
void run(const T* in, T* out, size_t n, int blocks, const char* what) {
  const int smem = TS * PITCH * int(sizeof(T));
  auto k = drain<T, BX, BY, TS, PITCH, GLOBAL>;
  MEMSIM_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  k<<<blocks, BX * BY, smem>>>(in, out, n);
  MEMSIM_CUDA_CHECK(cudaGetLastError());
  MEMSIM_CUDA_CHECK(cudaDeviceSynchronize());
  std::printf("%-58s %d blocks of %d threads, %d B of shared memory\n", what, blocks, BX * BY, smem);
}

}  // namespace

int main() {
  try {
    const size_t n = size_t(1) << 26;
    float *fi, *fo;
    double *di, *dout;
    MEMSIM_CUDA_CHECK(cudaMalloc(&fi, n * 4));
    MEMSIM_CUDA_CHECK(cudaMalloc(&fo, n * 4));
    MEMSIM_CUDA_CHECK(cudaMalloc(&di, n * 8));
    MEMSIM_CUDA_CHECK(cudaMalloc(&dout, n * 8));
    MEMSIM_CUDA_CHECK(cudaMemset(fi, 0, n * 4));
    MEMSIM_CUDA_CHECK(cudaMemset(di, 0, n * 8));
    const int blocks = 102 * 102;  // an 8192x8192 matrix's whole 80x80 tiles
    run<float, 16, 10, 80, 80, false>(fi, fo, n, blocks, "0 f32 16x10 on 80, pitch 80, shared only");
    run<float, 16, 10, 80, 80, true>(fi, fo, n, blocks, "1 f32 16x10 on 80, pitch 80, beside global loads/stores");
    run<float, 16, 10, 80, 80, false>(fi, fo, n, 132, "2 f32 16x10 on 80, pitch 80, shared only, one wave");
    run<float, 16, 8, 80, 80, false>(fi, fo, n, blocks, "3 f32 16x8 on 80, pitch 80, shared only");
    run<float, 32, 5, 80, 80, false>(fi, fo, n, blocks, "4 f32 32x5 on 80, pitch 80, shared only");
    run<float, 16, 10, 80, 96, false>(fi, fo, n, blocks, "5 f32 16x10 on 80, pitch 96 (2-way), shared only");
    run<float, 16, 10, 48, 48, false>(fi, fo, n, blocks, "6 f32 16x10 on 48, pitch 48, shared only");
    run<double, 16, 10, 80, 80, false>(di, dout, n, blocks, "7 f64 16x10 on 80, pitch 80, shared only");
    run<double, 16, 10, 80, 80, true>(di, dout, n, blocks, "8 f64 16x10 on 80, pitch 80, beside global loads/stores");
    run<double, 16, 8, 80, 80, false>(di, dout, n, blocks, "9 f64 16x8 on 80, pitch 80, shared only");
    return 0;
  } catch (const memsim::validate::CudaError& e) {
    std::fprintf(stderr, "memsim-smem-traffic-probe: %s\n", e.what());
    return 1;
  }
}
