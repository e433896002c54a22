#pragma once
// The suite as data for the host side: every kernel's KernelInfo, looked up by name.
#include <string_view>
#include <vector>

#include "kernels/kernel_info.hpp"

namespace memsim {

const std::vector<KernelInfo>& kernel_suite();
// nullptr when no kernel has that name.
const KernelInfo* find_kernel(std::string_view name);

}  // namespace memsim
