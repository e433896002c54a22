#pragma once
// Where an installed memsim finds its data: profiles and the plotting script live under the install prefix's
// data directory (share/memsim by GNUInstallDirs), found relative to the running executable, so an installed
// tree works wherever it is copied and without the source tree.
#include <optional>
#include <string>

namespace memsim {

// <directory of the running executable>/<MEMSIM_INSTALL_DATA_RELATIVE>/<sub> when that path exists (it does in
// an installed tree, not in a build tree), else nothing.
std::optional<std::string> installed_data_path(const std::string& sub);

}  // namespace memsim
