#include "core/install_paths.hpp"

#include <filesystem>
#include <system_error>

#ifndef MEMSIM_INSTALL_DATA_RELATIVE
#define MEMSIM_INSTALL_DATA_RELATIVE "../share/memsim"
#endif

namespace memsim {

std::optional<std::string> installed_data_path(const std::string& sub) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);  // Linux: the running executable
  if (ec || exe.empty()) return std::nullopt;
  const fs::path candidate = exe.parent_path() / MEMSIM_INSTALL_DATA_RELATIVE / sub;
  if (!fs::exists(candidate, ec)) return std::nullopt;
  return fs::weakly_canonical(candidate, ec).string();
}

}  // namespace memsim
