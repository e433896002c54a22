#pragma once
// The suite's own kernel bodies (kernels/suite.hpp, the headers the replay runs) on the GPU, for the
// microbenchmark run's hold-out check: their times are recorded beside the calibration data but never
// fitted. The memory policy mirrors kernels/device_memory.cuh (plain pointers, no __restrict__, every access
// a predicated load or store), so the compiler schedules the loads as it does for validate/.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/resolve.hpp"
#include "kernels/suite.hpp"

namespace mb {

template <class T>
struct DeviceMem {
  using Elem = T;
  const T* in;
  T* out;
  T* tile;
  template <class V>
  __device__ __forceinline__ V load_global(int, bool pred, int64_t off) {
    V v{};
    if (pred) v = *reinterpret_cast<const V*>(in + off);
    return v;
  }
  template <class V>
  __device__ __forceinline__ void store_global(int, bool pred, int64_t off, const V& v) {
    if (pred) *reinterpret_cast<V*>(out + off) = v;
  }
  template <class V>
  __device__ __forceinline__ V load_shared(int, bool pred, int off) {
    V v{};
    if (pred) v = *reinterpret_cast<const V*>(tile + off);
    return v;
  }
  template <class V>
  __device__ __forceinline__ void store_shared(int, bool pred, int off, const V& v) {
    if (pred) *reinterpret_cast<V*>(tile + off) = v;
  }
  __device__ __forceinline__ void sync() { __syncthreads(); }
};

template <class K, class T>
__global__ void suite_kernel(memsim::LaunchShape s, const T* in, T* out) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  DeviceMem<T> m{in, out, reinterpret_cast<T*>(smem_raw)};
  const memsim::ThreadCoord t{int(blockIdx.x), int(blockIdx.y), int(threadIdx.x), int(threadIdx.y)};
  K::body(m, s, t);
}

struct SuiteLaunch {
  const void* fn = nullptr;  // the kernel, for cudaFuncGetAttributes
  void (*launch)(const memsim::LaunchConfig&, const void*, void*) = nullptr;
};

template <class K, class T>
void launch_suite(const memsim::LaunchConfig& cfg, const void* in, void* out) {
  const memsim::LaunchShape& s = cfg.shape;
  suite_kernel<K, T><<<dim3(s.grid_x, s.grid_y), dim3(s.block_x, s.block_y), size_t(cfg.shared_bytes)>>>(
      s, static_cast<const T*>(in), static_cast<T*>(out));
}

#define MB_SUITE_ENTRY(K)                                                                              \
  if (name == memsim::suite::K::info().name) {                                                          \
    if (d == memsim::Dtype::F16)                                                                        \
      return {(const void*)&suite_kernel<memsim::suite::K, uint16_t>, &launch_suite<memsim::suite::K, uint16_t>}; \
    if (d == memsim::Dtype::F32)                                                                        \
      return {(const void*)&suite_kernel<memsim::suite::K, float>, &launch_suite<memsim::suite::K, float>};       \
    return {(const void*)&suite_kernel<memsim::suite::K, double>, &launch_suite<memsim::suite::K, double>};       \
  }

inline SuiteLaunch find_suite_launch(const std::string& name, memsim::Dtype d) {
  MEMSIM_KERNEL_SUITE(MB_SUITE_ENTRY)
  return {};
}
#undef MB_SUITE_ENTRY

// Compares a kernel's output with what its OutputKind says, element by element (bit patterns).
template <class T>
int64_t count_wrong(const memsim::LaunchConfig& cfg, const std::vector<T>& in, const std::vector<T>& out) {
  const int64_t W = cfg.shape.width, H = cfg.shape.height, t = cfg.shape.tile_x;
  int64_t wrong = 0;
  for (int64_t y = 0; y < H; ++y) {
    for (int64_t x = 0; x < W; ++x) {
      const T v = in[y * W + x];
      int64_t o = 0;
      switch (cfg.kernel->output) {
        case memsim::OutputKind::Copy: o = y * W + x; break;
        case memsim::OutputKind::Transpose: o = x * H + y; break;
        case memsim::OutputKind::TilesMoved: {  // element (r, c) of tile (col0, row0) lands at (col0 + r, row0 + c)
          const int64_t col0 = x / t * t, row0 = y / t * t;
          o = (col0 + (y - row0)) * H + row0 + (x - col0);
          break;
        }
        case memsim::OutputKind::TilesTransposed: {  // transposed inside its own tile
          const int64_t col0 = x / t * t, row0 = y / t * t;
          o = (row0 + (x - col0)) * W + col0 + (y - row0);
          break;
        }
      }
      if (std::memcmp(&out[o], &v, sizeof(T)) != 0) ++wrong;
    }
  }
  return wrong;
}

}  // namespace mb
