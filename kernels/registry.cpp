#include "kernels/registry.hpp"

#include <deque>

#include "kernels/suite.hpp"

namespace memsim {
namespace {

std::deque<KernelInfo>& registered() {  // a deque: the KernelInfo pointers handed out stay valid
  static std::deque<KernelInfo> all;
  return all;
}

}  // namespace

const std::vector<KernelInfo>& kernel_suite() {
#define MEMSIM_INFO(K) suite::K::info(),
  static const std::vector<KernelInfo> all{MEMSIM_KERNEL_SUITE(MEMSIM_INFO)};
#undef MEMSIM_INFO
  return all;
}

std::vector<const KernelInfo*> all_kernels() {
  std::vector<const KernelInfo*> out;
  for (const KernelInfo& k : kernel_suite()) out.push_back(&k);
  for (const KernelInfo& k : registered()) out.push_back(&k);
  return out;
}

const KernelInfo* find_kernel(std::string_view name) {
  for (const KernelInfo& k : kernel_suite())
    if (name == k.name) return &k;
  for (const KernelInfo& k : registered())
    if (name == k.name) return &k;
  return nullptr;
}

std::string unknown_kernel_register_key(const std::map<std::string, int>& kernel_registers) {
  for (const auto& [key, registers] : kernel_registers)
    if (!find_kernel(std::string_view(key).substr(0, key.find('/')))) return key;
  return {};
}

const KernelInfo* register_kernel(const KernelInfo& info) {
  registered().push_back(info);
  return &registered().back();
}

}  // namespace memsim
