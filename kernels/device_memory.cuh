#pragma once
// The GPU's memory policy for the kernel bodies (kernels/access.hpp): the same calls the replay records
// (sim/recorder.hpp) here do the real loads and stores, so the kernel that runs is built from the very body
// whose addresses memsim counts. Only nvcc compiles this header.
#include <cstdint>

#include "kernels/config.hpp"

namespace memsim {

// The block's shared tile. It is dynamic so that one kernel template serves every tile shape, and declared
// once as bytes because extern __shared__ arrays of different element types may not share a name. 16-byte
// alignment keeps every vector access a body may make naturally aligned.
__device__ __forceinline__ unsigned char* dynamic_shared_bytes() {
  extern __shared__ __align__(16) unsigned char memsim_dynamic_shared[];
  return memsim_dynamic_shared;
}

template <class T>
struct DeviceMemory {
  using Elem = T;
  const T* in;  // the input matrix, W columns by H rows
  T* out;       // the output matrix (shape per OutputKind)

  // A predicated-off lane does not touch memory, exactly as the replay leaves it out of the warp access.
  // Its value is zeroed: left unset, nvcc 13.0 emits fewer instructions for some kernels and more for others
  // (scripts/sass_instruction_counts.py: vec4_shared f32 32x8 127 warp instructions a warp against
  // 143, but swizzle 8x32 59 against 50, best f16 32x8 803 against 750).
  template <class V>
  __device__ __forceinline__ V load_global(int /*site*/, bool pred, int64_t off) const {
    V v{};
    if (pred) v = *reinterpret_cast<const V*>(in + off);
    return v;
  }
  template <class V>
  __device__ __forceinline__ void store_global(int /*site*/, bool pred, int64_t off, const V& v) const {
    if (pred) *reinterpret_cast<V*>(out + off) = v;
  }
  template <class V>
  __device__ __forceinline__ V load_shared(int /*site*/, bool pred, int off) const {
    V v{};
    if (pred) v = *reinterpret_cast<const V*>(tile() + off);
    return v;
  }
  template <class V>
  __device__ __forceinline__ void store_shared(int /*site*/, bool pred, int off, const V& v) const {
    if (pred) *reinterpret_cast<V*>(tile() + off) = v;
  }
  __device__ __forceinline__ void sync() const { __syncthreads(); }

 private:
  __device__ __forceinline__ static T* tile() { return reinterpret_cast<T*>(dynamic_shared_bytes()); }
};

}  // namespace memsim
