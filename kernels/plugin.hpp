#pragma once
// The kernel interface for a kernel in a file of its own (memsim --kernel-file, docs/kernel_interface.md):
// include this, write the struct as the suite's are (kSites, info(), a templated body), and name it once
// with MEMSIM_KERNEL(YourStruct) at global scope. memsim compiles the file at run time into a plugin; nvcc
// compiles the same file for the kernel's code and the GPU. Version 1 of the interface.
#include "kernels/access.hpp"
#include "kernels/kernel_info.hpp"
#include "kernels/launch_shape.hpp"
#include "kernels/tiles.hpp"

#include <cstddef>
#include <cstdint>
#include <type_traits>

// The kernel interface's version, and that of the plugin table memsim loads (sim/plugin_abi.hpp): bumped
// whenever what a body may call, what it is given, or the table changes.
#define MEMSIM_KERNEL_INTERFACE_VERSION 1

namespace memsim {

// The tag MEMSIM_KERNEL's function takes: memsim finds the file's kernel by the overload it declares.
struct KernelFileTag {};

// The sizes and offsets of the records a plugin's table exchanges, folded into one number (FNV-1a over the
// values): the CPU plugin's (sim/plugin_abi.hpp) and the GPU plugin's (validate/gpu_plugin_abi.hpp) layouts.
template <size_t N>
constexpr uint64_t fold_layout(const uint64_t (&parts)[N]) {
  uint64_t h = 1469598103934665603ull;
  for (const uint64_t p : parts) h = (h ^ p) * 1099511628211ull;
  return h;
}

// What a kernel file must hold, checked where MEMSIM_KERNEL names the struct, each with one message.
template <class K, class = void>
struct declares_interface_version : std::false_type {};
template <class K>
struct declares_interface_version<K, std::void_t<decltype(K::kInterfaceVersion)>> : std::true_type {};
template <class K>
constexpr bool interface_version_matches() {
  if constexpr (declares_interface_version<K>::value) return K::kInterfaceVersion == MEMSIM_KERNEL_INTERFACE_VERSION;
  else return true;
}

}  // namespace memsim

// Names the file's kernel. One per file, at global scope, after the struct. A struct may declare
// `static constexpr int kInterfaceVersion = 1;`: a memsim with another interface then refuses the file.
#define MEMSIM_KERNEL(K)                                                                                       \
  static_assert(::memsim::interface_version_matches<K>(),                                                     \
                "memsim-kernel-file: the kernel declares another kInterfaceVersion than this memsim's "         \
                "kernel interface (MEMSIM_KERNEL_INTERFACE_VERSION)");                                          \
  static_assert(sizeof(K::kSites) > 0 && K::info().num_sites == ::memsim::num_sites_of<K>(),                   \
                "memsim-kernel-file: info()'s num_sites must be num_sites_of<" #K ">()");                      \
  struct memsim_kernel_file_defines_one_kernel_only {};                                                        \
  inline K* memsim_kernel_of_file(::memsim::KernelFileTag) { return nullptr; }
