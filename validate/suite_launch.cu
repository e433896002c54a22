#include "validate/suite_launch.hpp"

#include <cstring>
#include <stdexcept>
#include <vector>

#include "kernels/device_memory.cuh"
#include "kernels/suite.hpp"
#include "validate/cuda_check.hpp"

namespace memsim::validate {

// The kernel the GPU runs: the thread's coordinates from the hardware, the body shared with the replay.
template <class K, class T>
__device__ __forceinline__ void run_body(const DeviceMemory<T>& mem, const LaunchShape& s) {
  const ThreadCoord t{int(blockIdx.x), int(blockIdx.y), int(threadIdx.x), int(threadIdx.y)};
  K::body(mem, s, t);
}

// The scalar bodies are held to 32 registers a thread: that keeps 2048 threads (64 warps) resident on an SM
// of 65536 registers, the occupancy they need to keep their loads in flight. Left alone, nvcc gave
// copy_shared and fine 34 for f32 and f16 (their tile walks read from the launch's parameters), which cost a
// quarter of the resident blocks (6 of 8 per SM; 8-19% slower on the H100). The vector bodies (any footprint
// but Footprint::Scalar: a 4x4 block, four 16-byte rows in flight) take what nvcc gives them: any register cap, even 255, changes its
// choices for them (vec4 32 -> 40, reg4x4 f32 56 -> 64).
template <class K, class T>
__global__ void __maxnreg__(32) suite_kernel_scalar(DeviceMemory<T> mem, LaunchShape s) {
  run_body<K>(mem, s);
}
template <class K, class T>
__global__ void suite_kernel_vector(DeviceMemory<T> mem, LaunchShape s) {
  run_body<K>(mem, s);
}
template <class K, class T>
constexpr auto kernel_for() {  // instantiates only the one it returns
  if constexpr (K::info().footprint != Footprint::Scalar) return &suite_kernel_vector<K, T>;
  else return &suite_kernel_scalar<K, T>;
}
template <class K, class T>
constexpr void (*suite_kernel)(DeviceMemory<T>, LaunchShape) = kernel_for<K, T>();

__global__ void warmup_kernel() {}

namespace {

constexpr int64_t kDefaultDynamicShared = 48 * 1024;

using PrepareFn = void (*)(int64_t shared_bytes);
using LaunchFn = void (*)(const LaunchShape& s, int64_t shared_bytes, const void* in, void* out, cudaStream_t st);

template <class K, class T>
void prepare(int64_t shared_bytes) {
  if (shared_bytes > kDefaultDynamicShared)
    MEMSIM_CUDA_CHECK(cudaFuncSetAttribute(suite_kernel<K, T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           int(shared_bytes)));
}

template <class K, class T>
void launch(const LaunchShape& s, int64_t shared_bytes, const void* in, void* out, cudaStream_t st) {
  const DeviceMemory<T> mem{static_cast<const T*>(in), static_cast<T*>(out)};
  suite_kernel<K, T><<<dim3(unsigned(s.grid_x), unsigned(s.grid_y)), dim3(unsigned(s.block_x), unsigned(s.block_y)),
                       size_t(shared_bytes), st>>>(mem, s);
  MEMSIM_CHECK_LAUNCH("suite_kernel launch");
}

struct Entry {
  const char* name;    // KernelInfo::name
  const char* symbol;  // the struct's name, as in the demangled kernel name
  PrepareFn prepare[3];  // by Dtype: f16, f32, f64
  LaunchFn launch[3];
  const void* function[3];  // the __global__ instantiation, for cudaFuncGetAttributes and occupancy queries
};

// Storage types stand in for the dtypes, as in the replay (sim/replay.cpp): a transpose moves bits.
#define MEMSIM_LAUNCH_ENTRY(K)                                                                             \
  {suite::K::info().name,                                                                                  \
   #K,                                                                                                     \
   {&prepare<suite::K, uint16_t>, &prepare<suite::K, float>, &prepare<suite::K, double>},                  \
   {&launch<suite::K, uint16_t>, &launch<suite::K, float>, &launch<suite::K, double>},                     \
   {reinterpret_cast<const void*>(suite_kernel<suite::K, uint16_t>),                                       \
    reinterpret_cast<const void*>(suite_kernel<suite::K, float>),                                          \
    reinterpret_cast<const void*>(suite_kernel<suite::K, double>)}},

const std::vector<Entry>& entries() {
  static const std::vector<Entry> all{MEMSIM_KERNEL_SUITE(MEMSIM_LAUNCH_ENTRY)};
  return all;
}
#undef MEMSIM_LAUNCH_ENTRY

const Entry& entry_for(const LaunchConfig& cfg) {
  for (const Entry& e : entries())
    if (std::strcmp(e.name, cfg.kernel->name) == 0) return e;
  throw std::logic_error(std::string("kernel without a GPU entry: ") + cfg.kernel->name);
}

const char* storage_type_name(Dtype d) {
  return d == Dtype::F16 ? "unsigned short" : d == Dtype::F32 ? "float" : "double";
}

}  // namespace

void prepare_suite_kernel(const LaunchConfig& cfg) { entry_for(cfg).prepare[int(cfg.dtype)](cfg.shared_bytes); }

void launch_suite_kernel(const LaunchConfig& cfg, const void* in, void* out, cudaStream_t stream) {
  entry_for(cfg).launch[int(cfg.dtype)](cfg.shape, cfg.shared_bytes, in, out, stream);
}

const void* suite_kernel_function(const LaunchConfig& cfg) { return entry_for(cfg).function[int(cfg.dtype)]; }

void launch_warmup_kernel(cudaStream_t stream) {
  warmup_kernel<<<1, 32, 0, stream>>>();
  MEMSIM_CHECK_LAUNCH("warmup_kernel launch");
}

std::string suite_kernel_signature(const LaunchConfig& cfg) {
  return std::string(entry_for(cfg).symbol) + ", " + storage_type_name(cfg.dtype) + ">";
}

bool kernel_name_matches(const std::string& demangled, const LaunchConfig& cfg) {
  const std::string sig = suite_kernel_signature(cfg);
  return demangled.find(kSuiteKernelName) != std::string::npos &&
         (demangled.find("<" + sig) != std::string::npos || demangled.find("::" + sig) != std::string::npos);
}

}  // namespace memsim::validate
