#pragma once
// The __global__ templates that run a kernel body on the GPU: the one definition the suite's launches
// (validate/suite_launch.cu, validate/address_capture.cu) and a kernel file's GPU plugin
// (validate/gpu_plugin_entry.cuh, compiled at run time) instantiate, so a user's kernel runs, and is named in
// ncu, exactly as a suite kernel. Only nvcc compiles this header.
#include <cstdint>
#include <type_traits>

#include "kernels/device_memory.cuh"
#include "kernels/launch_shape.hpp"
#include "validate/device_capture.cuh"

namespace memsim::validate {

// The kernel the GPU runs: the thread's coordinates from the hardware, the body shared with the replay. Shape
// is a compile-time StaticShape for the shapes people launch (kernels/static_dispatch.hpp), else the run-time
// LaunchShape.
template <class K, class T, class Shape>
__device__ __forceinline__ void run_body(const DeviceMemory<T>& mem, const Shape& s) {
  const ThreadCoord t{int(blockIdx.x), int(blockIdx.y), int(threadIdx.x), int(threadIdx.y)};
  K::body(mem, s, t);
}

// The run-time scalar bodies are held to 32 registers a thread: that keeps 2048 threads (64 warps) resident on
// an SM of 65536 registers, the occupancy they need to keep their loads in flight. Left alone, nvcc gave
// copy_shared and fine 34 for f32 and f16 (their tile walks read from the launch's parameters), which cost a
// quarter of the resident blocks (6 of 8 per SM; 8-19% slower on the H100). Static shapes and the vector
// bodies (any footprint but Footprint::Scalar: a 4x4 block, four 16-byte rows in flight) take what nvcc gives
// them, as hand-written kernels do.
template <class K, class T, class Shape>
__global__ void __maxnreg__(32) suite_kernel_scalar(DeviceMemory<T> mem, Shape s) {
  run_body<K>(mem, s);
}
template <class K, class T, class Shape>
__global__ void suite_kernel_any(DeviceMemory<T> mem, Shape s) {
  run_body<K>(mem, s);
}
template <class K, class T, class Shape>
constexpr auto kernel_for() {  // instantiates only the one it returns
  if constexpr (K::info().footprint == Footprint::Scalar && std::is_same_v<Shape, LaunchShape>)
    return &suite_kernel_scalar<K, T, Shape>;
  else return &suite_kernel_any<K, T, Shape>;
}
template <class K, class T, class Shape>
constexpr void (*suite_kernel)(DeviceMemory<T>, Shape) = kernel_for<K, T, Shape>();

// The same body as the real kernel, with the capturing policy (validate/device_capture.cuh). Blocks outside
// the range return as a whole, so no barrier waits for them. Shape is the one the real kernel runs with, so a
// static instantiation's addresses are the ones checked.
template <class K, class T, class Shape>
__global__ void capture_kernel(DeviceCapture<T> cap, Shape s, int64_t first_block, int64_t last_block) {
  const int64_t block = int64_t(blockIdx.x) + int64_t(gridDim.x) * blockIdx.y;
  if (block < first_block || block >= last_block) return;
  const int tid = int(threadIdx.x + blockDim.x * threadIdx.y);
  cap.thread = (block - first_block) * int64_t(blockDim.x * blockDim.y) + tid;
  cap.start();
  const ThreadCoord t{int(blockIdx.x), int(blockIdx.y), int(threadIdx.x), int(threadIdx.y)};
  K::body(cap, s, t);
  cap.finish();
}

// Launches the capture of blocks [first, last) of the launch `s`, its body run with `shape`: `capacity`
// occurrences kept per (thread, site) in `slots` (null: only `counts`, each thread's occurrences per site).
template <class K, class T, class Shape>
void launch_capture(const LaunchShape& s, const Shape& shape, int num_sites, int capacity, int64_t first,
                    int64_t last, int64_t* slots, int* counts) {
  DeviceCapture<T> cap{};
  cap.slots = slots;
  cap.counts = counts;
  cap.num_sites = num_sites;
  cap.capacity = capacity;
  const dim3 grid(unsigned(s.grid_x), unsigned(s.grid_y)), block(unsigned(s.block_x), unsigned(s.block_y));
  capture_kernel<K, T, Shape><<<grid, block>>>(cap, shape, first, last);
}

}  // namespace memsim::validate
