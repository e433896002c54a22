#pragma once
// The kernels as data for the host side: every kernel's KernelInfo, looked up by name. The suite is fixed at
// build time; kernels from users' files (memsim --kernel-file, codegen/kernel_file.hpp) join it at run time.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/kernel_info.hpp"

namespace memsim {

const std::vector<KernelInfo>& kernel_suite();
// The suite, then the kernels registered since, in their order.
std::vector<const KernelInfo*> all_kernels();
// nullptr when no kernel has that name.
const KernelInfo* find_kernel(std::string_view name);
// Adds a kernel beside the suite and returns its lasting copy; its strings and sites must outlive the
// program. Call before any replay starts (the list is not guarded against concurrent readers).
const KernelInfo* register_kernel(const KernelInfo& info);
// The first key of a profile's kernel_registers table ("kernel/dtype" -> registers) whose kernel is none of
// these, or "" when each names one: a misspelt key would leave that kernel's registers assumed, silently.
std::string unknown_kernel_register_key(const std::map<std::string, int>& kernel_registers);

}  // namespace memsim
