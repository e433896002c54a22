#pragma once
// The plugin side of validate/gpu_plugin_abi.hpp: the entries of kernel K, instantiated from the suite's own
// __global__ templates (validate/gpu_kernels.cuh). memsim-validate compiles this into the source it generates
// for a kernel file (validate/kernel_file_launch.cpp); nothing else includes it.
#include <cxxabi.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <typeinfo>

#include "kernels/static_shape.hpp"
#include "validate/gpu_kernels.cuh"
#include "validate/gpu_plugin_abi.hpp"

namespace memsim::validate::gpu_plugin_detail {

constexpr int64_t kDefaultDynamicShared = 48 * 1024;

template <class K, class T, class S>
int prepare(int64_t shared_bytes) {
  if (shared_bytes <= kDefaultDynamicShared) return int(cudaSuccess);
  return int(cudaFuncSetAttribute(suite_kernel<K, T, S>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  int(shared_bytes)));
}

template <class K, class T, class S>
int launch(const LaunchShape* s, int64_t shared_bytes, const void* in, void* out, void* stream) {
  const DeviceMemory<T> mem{static_cast<const T*>(in), static_cast<T*>(out)};
  const dim3 grid(unsigned(s->grid_x), unsigned(s->grid_y)), block(unsigned(s->block_x), unsigned(s->block_y));
  suite_kernel<K, T, S><<<grid, block, size_t(shared_bytes), static_cast<cudaStream_t>(stream)>>>(
      mem, make_static_shape<S>(*s));
  return int(cudaGetLastError());
}

template <class K, class T, class S>
const void* function() {
  return reinterpret_cast<const void*>(suite_kernel<K, T, S>);
}

template <class K, class T, class S>
int capture(const LaunchShape* s, int num_sites, int capacity, int64_t first, int64_t last, int64_t* slots,
            int* counts) {
  launch_capture<K, T>(*s, make_static_shape<S>(*s), num_sites, capacity, first, last, slots, counts);
  const cudaError_t e = cudaGetLastError();
  return int(e != cudaSuccess ? e : cudaDeviceSynchronize());
}

template <class T>
constexpr int dtype_of() {
  return sizeof(T) == 2 ? 0 : sizeof(T) == 4 ? 1 : 2;
}

// The entry of K for storage type T and static shape S.
template <class K, class T, class S>
memsim_gpu_entry_v1 entry() {
  return {dtype_of<T>(), S::block_x, S::block_y, S::tile_x, S::tile_y, S::smem_row,
          int(sizeof(typename S::Index)), &prepare<K, T, S>, &launch<K, T, S>, &function<K, T, S>,
          &capture<K, T, S>};
}

// K's name as a demangled kernel name prints it, without its namespaces ("example::Float2Padded" ->
// "Float2Padded"): what memsim-validate looks for in ncu's rows, as it does for the suite's structs.
template <class K>
const char* symbol() {
  static const std::string name = [] {
    int status = 0;
    char* d = abi::__cxa_demangle(typeid(K).name(), nullptr, nullptr, &status);
    std::string n = status == 0 && d ? d : typeid(K).name();
    std::free(d);
    const size_t colon = n.rfind("::");
    return colon == std::string::npos ? n : n.substr(colon + 2);
  }();
  return name.c_str();
}

template <class K, size_t N>
const memsim_gpu_table_v1* table(const memsim_gpu_entry_v1 (&entries)[N]) {
  static constexpr KernelInfo kInfo = K::info();
  static const memsim_gpu_table_v1 t{MEMSIM_GPU_PLUGIN_VERSION, gpu_plugin_abi_fingerprint(), kInfo.name, symbol<K>(),
                                     int(N), entries};
  return &t;
}

}  // namespace memsim::validate::gpu_plugin_detail

// The entry point memsim-validate looks up with dlsym: the table of kernel K over ENTRIES (an array of
// gpu_plugin_detail::entry<K, T, S>()).
#define MEMSIM_GPU_PLUGIN_DEFINE_ENTRY(K, ENTRIES)                                                        \
  extern "C" __attribute__((visibility("default"))) const memsim_gpu_table_v1* memsim_gpu_plugin_v1() { \
    return ::memsim::validate::gpu_plugin_detail::table<K>(ENTRIES);                                      \
  }
