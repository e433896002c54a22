#pragma once
// A kernel file's GPU plugin (memsim-validate --kernel-file, docs/kernel_interface.md "On a GPU"): the user's
// kernel compiled by nvcc at run time, for the configurations a run asks, from the same __global__ templates
// the suite's launches instantiate (validate/gpu_kernels.cuh), into a shared library whose C table
// (validate/gpu_plugin_abi.hpp) memsim-validate reads. One nvcc call for all of a file's configurations; the
// library is cached beside the CPU plugins (<cache>/plugins). This half runs no CUDA: it writes, compiles and
// loads; validate/kernel_file_launch.hpp launches.
#include <string>
#include <vector>

#include "kernels/resolve.hpp"
#include "validate/gpu_plugin_abi.hpp"

namespace memsim {

// The storage type and compile-time shape one configuration runs with on the GPU: "float",
// "memsim::StaticShape<32, 8, 64, 64, 65, int32_t>" (int64_t indices where the matrix needs them).
struct GpuInstantiation {
  std::string storage, shape;
  bool operator==(const GpuInstantiation& o) const { return storage == o.storage && shape == o.shape; }
};
GpuInstantiation gpu_instantiation(const LaunchConfig& cfg);

// The source compiled for `file`: its kernel's entries for each distinct instantiation of `configs`.
std::string gpu_plugin_source(const std::string& file, const std::vector<GpuInstantiation>& instantiations);

// The nvcc command line that compiles `source` into the shared library `out` for sm_<arch> ("90").
std::vector<std::string> gpu_plugin_command(const std::string& nvcc, const std::string& arch,
                                            const std::vector<std::string>& defines, const std::string& source,
                                            const std::string& out);

struct GpuPlugin {
  std::string so;              // the cached library
  std::string nvcc_version;    // "13.0.88"
  std::string arch;            // "sm_90"
  bool cached = false;         // found in the cache, not compiled now
  double compile_seconds = 0;  // nvcc's time when compiled now
  const memsim_gpu_table_v1* table = nullptr;
};

// Compiles (or finds in the cache) and loads the GPU plugin of kernel-file kernel `kernel` (loaded by
// load_kernel_file) for `configs` (all of that kernel) on sm_<arch>. Throws KernelFileError
// (codegen/kernel_file.hpp): no nvcc, nvcc's first error and a line, a plugin that does not load or whose
// table is not this memsim's.
GpuPlugin load_gpu_plugin(const KernelInfo& kernel, const std::vector<LaunchConfig>& configs, const std::string& arch);

// A suite kernel at static shapes the GPU build holds no instantiation of (memsim-validate compiles these, so
// that every configuration runs the code a hand-written kernel of that shape gets, never the run-time-shaped
// body): the source for suite struct `kernel_struct` ("Padded") and its entries, from the same __global__
// templates as the built-in ones.
// `headers`: the suite's, relative to memsim's source tree (suite_headers).
std::string suite_gpu_plugin_source(const std::string& kernel_struct, const std::vector<GpuInstantiation>& instantiations,
                                    const std::vector<std::string>& headers);
// kernels/suite/*.hpp under `root` (memsim's source tree), by name: "kernels/suite/best.hpp", ...
std::vector<std::string> suite_headers(const std::string& root);

// Compiles (or finds in the cache) and loads that plugin for `configs` (all of suite kernel `kernel`, struct
// `kernel_struct`) on sm_<arch>. Throws KernelFileError as load_gpu_plugin does.
GpuPlugin load_suite_gpu_plugin(const KernelInfo& kernel, const std::string& kernel_struct,
                                const std::vector<LaunchConfig>& configs, const std::string& arch);

}  // namespace memsim
