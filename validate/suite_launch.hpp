#pragma once
// The suite's real kernels: one __global__ template (validate/suite_launch.cu) instantiated for every kernel of
// MEMSIM_KERNEL_SUITE and every storage type, reached from host code through a resolved LaunchConfig.
#include <cuda_runtime.h>

#include <string>

#include "kernels/resolve.hpp"

namespace memsim::validate {

// Raises the kernel's dynamic shared-memory limit when its tile needs more than the default 48 KB. Call once
// per configuration before its first launch (it is a driver call, kept out of the timed loop).
void prepare_suite_kernel(const LaunchConfig& cfg);

// Launches cfg's kernel once on `stream`: `in` holds the W x H input, `out` receives the output. Checks the
// launch (configuration errors); faults surface at the next synchronisation.
void launch_suite_kernel(const LaunchConfig& cfg, const void* in, void* out, cudaStream_t stream);

// cfg's __global__ function, for cudaFuncGetAttributes and the occupancy API.
const void* suite_kernel_function(const LaunchConfig& cfg);

// The registers a thread of cfg's kernel takes and the blocks an SM holds at its block size and dynamic
// shared memory, as the runtime reports them (after prepare_suite_kernel).
struct SuiteOccupancy {
  int registers_per_thread = 0, blocks_per_sm = 0;
};
SuiteOccupancy suite_kernel_occupancy(const LaunchConfig& cfg);

// "static" when the GPU runs cfg with a compile-time shape (built in, kernels/static_dispatch.hpp, or from a
// GPU plugin compiled for it), else "dynamic" (the run-time LaunchShape).
const char* suite_kernel_shape_kind(const LaunchConfig& cfg);

// Whether this binary holds a compile-time instantiation of cfg (a suite kernel at one of the built-in shapes,
// or one the build was configured with, -DMEMSIM_EXTRA_STATIC_SHAPES): false for the rest, which
// memsim-validate compiles now (load_suite_plugins, validate/kernel_file_launch.hpp).
bool has_built_in_static_shape(const LaunchConfig& cfg);

// The suite struct of cfg's kernel as its C++ name ("Padded"); nullptr for a kernel file's kernel.
const char* suite_kernel_struct(const LaunchConfig& cfg);

// memsim-validate --runtime-shape: every suite configuration runs the run-time-shaped body (LaunchShape), as
// memsim --runtime-shape predicts it; off, each runs a compile-time shape. Set before the first launch.
void set_runtime_shapes(bool on);

// A kernel that does nothing, to load the module and wake the GPU before anything measured.
void launch_warmup_kernel(cudaStream_t stream);

// What identifies cfg's instantiation inside its demangled name: "Padded, float, " and its shape,
// "StaticShape<32, 8, 32, 32, 33," or "LaunchShape". ncu prints "suite_kernel_any<Padded, float,
// StaticShape<...>>(...)" (namespaces dropped), c++filt "...suite_kernel_any<memsim::suite::Padded, float,
// memsim::StaticShape<...>>(...)"; either way the struct name follows '<' or "::".
bool kernel_name_matches(const std::string& demangled, const LaunchConfig& cfg);
std::string suite_kernel_signature(const LaunchConfig& cfg);        // "Padded, float, "
std::string suite_kernel_shape_signature(const LaunchConfig& cfg);  // "StaticShape<32, 8, 32, 32, 33," or "LaunchShape"

// The base name every suite kernel shares (ncu --kernel-name regex).
constexpr const char* kSuiteKernelName = "suite_kernel";

}  // namespace memsim::validate
