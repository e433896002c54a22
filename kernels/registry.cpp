#include "kernels/registry.hpp"

#include "kernels/suite.hpp"

namespace memsim {

const std::vector<KernelInfo>& kernel_suite() {
#define MEMSIM_INFO(K) suite::K::info(),
  static const std::vector<KernelInfo> all{MEMSIM_KERNEL_SUITE(MEMSIM_INFO)};
#undef MEMSIM_INFO
  return all;
}

const KernelInfo* find_kernel(std::string_view name) {
  for (const KernelInfo& k : kernel_suite())
    if (name == k.name) return &k;
  return nullptr;
}

}  // namespace memsim
