#pragma once
// A kernel from a user's own file (memsim --kernel-file, docs/kernel_interface.md): compiled at run time with
// the host C++ compiler into a plugin (sim/plugin_abi.hpp), loaded, and registered beside the suite, so that
// every option, report, sweep and comparison takes it by its name. Plugins are cached on disk by the file's
// content and every header it includes, the defines, the compiler and memsim's headers.
#include <string>
#include <vector>

#include "kernels/kernel_info.hpp"
#include "kernels/resolve.hpp"

namespace memsim {

// A kernel file memsim cannot use. what(): one line. detail: the compiler's first error as it printed it
// (a few lines), printed before the line; empty for the other mistakes.
struct KernelFileError : ConfigError {
  KernelFileError(const std::string& line, std::string compiler_detail = {})
      : ConfigError(line), detail(std::move(compiler_detail)) {}
  std::string detail;
};

// Compiles (or finds in the cache), loads, checks and registers the kernel of `path`, compiled with
// `defines` ("NAME" or "NAME=VALUE", as -D takes them). Returns its KernelInfo, which find_kernel now finds.
// Throws KernelFileError.
const KernelInfo* load_kernel_file(const std::string& path, const std::vector<std::string>& defines = {});

// Where a kernel loaded by load_kernel_file came from: what nvcc needs to compile the same kernel for its
// code (codegen/compiled_code.cpp). nullptr for the suite's kernels.
struct KernelFileSource {
  std::string path;                  // the file, absolute
  std::vector<std::string> defines;  // as given
  std::string hash;                  // of the file, what it includes and the defines
};
const KernelFileSource* kernel_file_source(const KernelInfo& k);

// The lines of a generated source that include the user's `file` and then `entry_header`, and name the file's
// kernel `memsim_file_kernel` (found by the overload MEMSIM_KERNEL declares): the CPU plugin's source and the
// GPU plugin's (codegen/gpu_plugin.cpp) begin with them.
std::string kernel_file_prelude(const std::string& file, const std::string& entry_header);

// A compiler's first error in `log`, with the lines that show where (source line and caret), at most 6
// lines; *errors: how many errors the log holds.
std::string first_compiler_error(const std::string& log, int* errors);

// How the plugins are built, for the cache's key and for a user who wants to know: the compiler's path and
// its first line of --version, the flags.
struct PluginCompiler {
  std::string path, version;
  std::vector<std::string> flags;
};
// Throws KernelFileError when no compiler is found.
const PluginCompiler& plugin_compiler();

}  // namespace memsim
