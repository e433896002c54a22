#include "validate/suite_launch.hpp"

#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "kernels/static_dispatch.hpp"
#include "kernels/suite.hpp"
#include "validate/cuda_check.hpp"
#include "validate/gpu_kernels.cuh"
#include "validate/kernel_file_launch.hpp"

namespace memsim::validate {

__global__ void warmup_kernel() {}

namespace {

constexpr int64_t kDefaultDynamicShared = 48 * 1024;

// memsim-validate --runtime-shape: every suite configuration runs the run-time-shaped body (LaunchShape).
bool g_runtime_shapes = false;

// Calls f with the shape cfg runs with here: the run-time LaunchShape under --runtime-shape, else the built-in
// static shape where there is one (kernels/static_dispatch.hpp), else the LaunchShape. memsim-validate compiles a
// suite plugin for a configuration without a built-in one (validate/kernel_file_launch.hpp), which then runs
// there; only a caller that loads no plugin (a test, a microbenchmark) reaches the LaunchShape so.
template <class K, class T, class F>
void with_shape(const LaunchConfig& cfg, F&& f) {
  if (g_runtime_shapes) f(cfg.shape);
  else with_launch_shape<K, T>(cfg, f);
}

using PrepareFn = void (*)(const LaunchConfig& cfg);
using LaunchFn = void (*)(const LaunchConfig& cfg, const void* in, void* out, cudaStream_t st);
using FunctionFn = const void* (*)(const LaunchConfig& cfg);

template <class K, class T>
const void* function_of(const LaunchConfig& cfg) {
  const void* f = nullptr;
  with_shape<K, T>(cfg, [&](const auto& s) {
    f = reinterpret_cast<const void*>(suite_kernel<K, T, std::decay_t<decltype(s)>>);
  });
  return f;
}

template <class K, class T>
void prepare(const LaunchConfig& cfg) {
  if (cfg.shared_bytes > kDefaultDynamicShared)
    MEMSIM_CUDA_CHECK(cudaFuncSetAttribute(function_of<K, T>(cfg), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           int(cfg.shared_bytes)));
}

template <class K, class T>
void launch(const LaunchConfig& cfg, const void* in, void* out, cudaStream_t st) {
  const DeviceMemory<T> mem{static_cast<const T*>(in), static_cast<T*>(out)};
  const dim3 grid(unsigned(cfg.shape.grid_x), unsigned(cfg.shape.grid_y));
  const dim3 block(unsigned(cfg.shape.block_x), unsigned(cfg.shape.block_y));
  with_shape<K, T>(cfg, [&](const auto& s) {
    suite_kernel<K, T, std::decay_t<decltype(s)>><<<grid, block, size_t(cfg.shared_bytes), st>>>(mem, s);
  });
  MEMSIM_CHECK_LAUNCH("suite_kernel launch");
}

struct Entry {
  const char* name;    // KernelInfo::name
  const char* symbol;  // the struct's name, as in the demangled kernel name
  PrepareFn prepare[3];  // by Dtype: f16, f32, f64
  LaunchFn launch[3];
  FunctionFn function[3];  // the __global__ instantiation, for cudaFuncGetAttributes and occupancy queries
  const char* (*shape_kind)(const LaunchConfig&);
};

// Storage types stand in for the dtypes, as in the replay (sim/replay.cpp): a transpose moves bits.
#define MEMSIM_LAUNCH_ENTRY(K)                                                                             \
  {suite::K::info().name,                                                                                  \
   #K,                                                                                                     \
   {&prepare<suite::K, uint16_t>, &prepare<suite::K, float>, &prepare<suite::K, double>},                  \
   {&launch<suite::K, uint16_t>, &launch<suite::K, float>, &launch<suite::K, double>},                     \
   {&function_of<suite::K, uint16_t>, &function_of<suite::K, float>, &function_of<suite::K, double>},      \
   &shape_kind<suite::K>},

const std::vector<Entry>& entries() {
  static const std::vector<Entry> all{MEMSIM_KERNEL_SUITE(MEMSIM_LAUNCH_ENTRY)};
  return all;
}
#undef MEMSIM_LAUNCH_ENTRY

// The suite's entry of cfg's kernel; nullptr for a kernel file's.
const Entry* suite_entry(const LaunchConfig& cfg) {
  for (const Entry& e : entries())
    if (std::strcmp(e.name, cfg.kernel->name) == 0) return &e;
  return nullptr;
}

// The entry that runs cfg from this binary; nullptr where a GPU plugin runs it (a kernel file's, or a suite
// kernel's compiled now for a static shape the build holds none of: validate/kernel_file_launch.hpp).
const Entry* built_in_entry(const LaunchConfig& cfg) {
  if (!g_runtime_shapes && runs_in_gpu_plugin(cfg)) return nullptr;
  return suite_entry(cfg);
}

const char* storage_type_name(Dtype d) {
  return d == Dtype::F16 ? "unsigned short" : d == Dtype::F32 ? "float" : "double";
}

}  // namespace

void prepare_suite_kernel(const LaunchConfig& cfg) {
  if (const Entry* e = built_in_entry(cfg)) e->prepare[int(cfg.dtype)](cfg);
  else prepare_kernel_file(cfg);
}

void launch_suite_kernel(const LaunchConfig& cfg, const void* in, void* out, cudaStream_t stream) {
  if (const Entry* e = built_in_entry(cfg)) e->launch[int(cfg.dtype)](cfg, in, out, stream);
  else launch_kernel_file(cfg, in, out, stream);
}

const void* suite_kernel_function(const LaunchConfig& cfg) {
  const Entry* e = built_in_entry(cfg);
  return e ? e->function[int(cfg.dtype)](cfg) : kernel_file_function(cfg);
}

SuiteOccupancy suite_kernel_occupancy(const LaunchConfig& cfg) {
  SuiteOccupancy o;
  const void* f = suite_kernel_function(cfg);
  if (!f) return o;
  cudaFuncAttributes a;
  MEMSIM_CUDA_CHECK(cudaFuncGetAttributes(&a, f));
  o.registers_per_thread = a.numRegs;
  MEMSIM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &o.blocks_per_sm, f, int(cfg.shape.block_x * cfg.shape.block_y), size_t(cfg.shared_bytes)));
  return o;
}

// A plugin's configurations always run a compile-time shape: it is compiled for them.
const char* suite_kernel_shape_kind(const LaunchConfig& cfg) {
  if (g_runtime_shapes && suite_entry(cfg)) return "dynamic";
  if (const Entry* e = built_in_entry(cfg)) return e->shape_kind(cfg);
  if (!runs_in_gpu_plugin(cfg)) throw std::logic_error(std::string("kernel without a GPU entry: ") + cfg.kernel->name);
  return "static";
}

bool has_built_in_static_shape(const LaunchConfig& cfg) {
  const Entry* e = suite_entry(cfg);
  return e && std::strcmp(e->shape_kind(cfg), "static") == 0;
}

const char* suite_kernel_struct(const LaunchConfig& cfg) {
  const Entry* e = suite_entry(cfg);
  return e ? e->symbol : nullptr;
}

void set_runtime_shapes(bool on) { g_runtime_shapes = on; }

void launch_warmup_kernel(cudaStream_t stream) {
  warmup_kernel<<<1, 32, 0, stream>>>();
  MEMSIM_CHECK_LAUNCH("warmup_kernel launch");
}

std::string suite_kernel_signature(const LaunchConfig& cfg) {
  const Entry* e = built_in_entry(cfg);
  return std::string(e ? e->symbol : kernel_file_symbol(cfg)) + ", " + storage_type_name(cfg.dtype) + ", ";
}

std::string suite_kernel_shape_signature(const LaunchConfig& cfg) {
  if (std::strcmp(suite_kernel_shape_kind(cfg), "static") != 0) return "LaunchShape";
  const LaunchShape& s = cfg.shape;
  return "StaticShape<" + std::to_string(s.block_x) + ", " + std::to_string(s.block_y) + ", " +
         std::to_string(s.tile_x) + ", " + std::to_string(s.tile_y) + ", " + std::to_string(s.smem_row) + ",";
}

bool kernel_name_matches(const std::string& demangled, const LaunchConfig& cfg) {
  const std::string sig = suite_kernel_signature(cfg);
  return demangled.find(kSuiteKernelName) != std::string::npos &&
         (demangled.find("<" + sig) != std::string::npos || demangled.find("::" + sig) != std::string::npos) &&
         demangled.find(suite_kernel_shape_signature(cfg)) != std::string::npos;
}

}  // namespace memsim::validate
