#pragma once
// One macro makes every kernel header compile for both the CUDA kernel (nvcc) and the CPU replay (g++),
// so the addresses the replay counts come from the very code the GPU runs.
#include <cstdint>

#if defined(__CUDACC__)
#define MEMSIM_HD __host__ __device__
#define MEMSIM_INLINE __forceinline__
#else
#define MEMSIM_HD
// The replay runs a body once per warp of every block: its small helpers must disappear into it.
#define MEMSIM_INLINE inline __attribute__((always_inline))
#endif

namespace memsim {

// A naturally aligned short vector: the only way a kernel body asks for a wide (8- or 16-byte) access.
// Wider than 16 bytes does not exist as one instruction on any target we model, so bodies split larger
// footprints into 16-byte pieces themselves and the replay sees exactly the instructions the GPU issues.
template <class T, int N>
struct alignas(sizeof(T) * N) Vec {
  static_assert(sizeof(T) * N <= 16, "a vector access is at most 16 bytes");
  T v[N];
};

MEMSIM_HD constexpr bool is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// Elements per access for a vector of up to `want` elements of T that fits one 16-byte instruction.
template <class T>
MEMSIM_HD constexpr int chunk_elems(int want) {
  return (int(sizeof(T)) * want <= 16) ? want : 16 / int(sizeof(T));
}

}  // namespace memsim
