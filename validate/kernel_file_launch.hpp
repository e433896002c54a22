#pragma once
// A kernel file's kernel on the GPU (memsim-validate --kernel-file): its GPU plugin (codegen/gpu_plugin.hpp)
// compiled for the run's configurations and loaded, then launched, captured and named through the same calls
// as a suite kernel (validate/suite_launch.hpp, validate/address_capture.hpp fall back to these).
#include <cuda_runtime.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernels/resolve.hpp"

namespace memsim::validate {

// Compiles (or finds in the cache) and loads the GPU plugins of every kernel-file kernel among `configs`, one
// nvcc call per kernel file, for the device's architecture (sm_<cc_major><cc_minor>). Returns what was built,
// for the run's record. Throws KernelFileError (codegen/kernel_file.hpp): a usage error.
nlohmann::ordered_json load_kernel_file_plugins(const std::vector<LaunchConfig>& configs, int cc_major, int cc_minor);

// The suite's configurations among `configs` that this binary holds no compile-time instantiation of
// (has_built_in_static_shape, validate/suite_launch.hpp): compiles (or finds in the cache) and loads a GPU
// plugin for each such kernel, one nvcc call a kernel, so that they run the code a hand-written kernel of that
// shape gets rather than the run-time-shaped body. Returns what was built, for the run's record. Throws
// KernelFileError (codegen/kernel_file.hpp) where nvcc is missing or fails: a usage error.
nlohmann::ordered_json load_suite_plugins(const std::vector<LaunchConfig>& configs, int cc_major, int cc_minor);
// How many of `configs` load_suite_plugins would compile (0: nothing to do).
int suite_configs_to_compile(const std::vector<LaunchConfig>& configs);

// Whether cfg's kernel is a kernel file's (its GPU entries are then these).
bool is_kernel_file_config(const LaunchConfig& cfg);

// Whether a loaded GPU plugin (a kernel file's, or a suite kernel's from load_suite_plugins) holds cfg's
// instantiation: the launches below then run it.
bool runs_in_gpu_plugin(const LaunchConfig& cfg);

// As prepare_suite_kernel, launch_suite_kernel and suite_kernel_function, for a configuration a GPU plugin runs
// (runs_in_gpu_plugin). Throws std::logic_error for one no plugin was compiled for.
void prepare_kernel_file(const LaunchConfig& cfg);
void launch_kernel_file(const LaunchConfig& cfg, const void* in, void* out, cudaStream_t stream);
const void* kernel_file_function(const LaunchConfig& cfg);
// The kernel struct's name as the demangled kernel name prints it ("Float2Padded").
const char* kernel_file_symbol(const LaunchConfig& cfg);

// As address_capture.cu's capture (validate/address_capture.hpp): the capturing body over blocks [first, last).
void capture_kernel_file(const LaunchConfig& cfg, int num_sites, int capacity, int64_t first, int64_t last,
                         int64_t* slots, int* counts);

// validate/reached.hpp's warp instructions reached per site, for a kernel file's configuration: counted on the
// GPU by the capture's counting pass (each thread's occurrences per site; a warp issues as often as its
// busiest lane), since memsim-validate holds no host instantiation of a kernel compiled at run time.
std::vector<int64_t> kernel_file_reached(const LaunchConfig& cfg);

}  // namespace memsim::validate
