#pragma once
// The boundary between memsim-validate and a kernel file's GPU plugin: the user's kernel compiled by nvcc at
// run time (validate/kernel_file_launch.hpp) for the configurations a run asks, as the CPU plugin
// (sim/plugin_abi.hpp) is for the replay. One extern "C" entry point returns a table of plain function
// pointers, one entry per (dtype, static shape); what crosses is the LaunchShape record, device pointers and a
// stream. CUDA errors come back as cudaError_t values (ints). The plugin and memsim-validate share the CUDA
// runtime (the plugin links libcudart.so, as memsim-validate does), so streams and pointers mean the same on
// both sides. No CUDA type appears here: memsim-validate's host code includes it without nvcc.
#include <cstddef>
#include <cstdint>

#include "kernels/launch_shape.hpp"
#include "kernels/plugin.hpp"

#define MEMSIM_GPU_PLUGIN_ENTRY_NAME "memsim_gpu_plugin_v1"
#define MEMSIM_GPU_PLUGIN_VERSION 1

namespace memsim {

// The records that cross, folded into one number both sides compute from the headers they were compiled with.
constexpr uint64_t gpu_plugin_abi_fingerprint() {
  const uint64_t parts[] = {MEMSIM_GPU_PLUGIN_VERSION, sizeof(LaunchShape), offsetof(LaunchShape, walk_tile),
                            offsetof(LaunchShape, grid_x), sizeof(ThreadCoord)};
  return fold_layout(parts);
}

}  // namespace memsim

extern "C" {

// One instantiation: the kernel body for one storage type and one compile-time shape (kernels/static_shape.hpp)
// that runs every matrix whose launch has that block, tile and shared row.
struct memsim_gpu_entry_v1 {
  int dtype;        // memsim::Dtype: 0 f16 (uint16_t), 1 f32 (float), 2 f64 (double)
  int block_x, block_y, tile_x, tile_y, smem_row;
  int index_bytes;  // 4: int32_t indices (the matrix fits them), 8: int64_t
  // Raises the dynamic shared-memory limit when shared_bytes needs it; a cudaError_t.
  int (*prepare)(int64_t shared_bytes);
  // Launches once on `stream` (a cudaStream_t); the launch's own cudaError_t (faults surface at the next sync).
  int (*launch)(const memsim::LaunchShape* shape, int64_t shared_bytes, const void* in, void* out, void* stream);
  // The __global__ function (its host stub), for cudaFuncGetAttributes and the occupancy API.
  const void* (*function)();
  // The address capture (validate/address_capture.hpp) over blocks [first, last): launches and synchronizes;
  // a cudaError_t.
  int (*capture)(const memsim::LaunchShape* shape, int num_sites, int capacity, int64_t first, int64_t last,
                 int64_t* slots, int* counts);
};

struct memsim_gpu_table_v1 {
  int version;               // MEMSIM_GPU_PLUGIN_VERSION
  uint64_t abi_fingerprint;  // memsim::gpu_plugin_abi_fingerprint()
  const char* kernel_name;   // KernelInfo::name of the file's kernel
  const char* symbol;        // the kernel struct's name as demangled names print it, namespaces dropped
  int num_entries;
  const memsim_gpu_entry_v1* entries;
};

typedef const memsim_gpu_table_v1* (*memsim_gpu_plugin_entry_v1)();

}  // extern "C"
