#include "validate/sweep.hpp"

#include <algorithm>

#include "kernels/registry.hpp"

namespace memsim::validate {

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view item = text.substr(start, end - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) items.emplace_back(item);
    start = end + 1;
  }
  return items;
}

namespace {

std::vector<std::string> non_empty(std::string_view text, const char* option) {
  std::vector<std::string> items = split_list(text);
  if (items.empty()) throw ConfigError(std::string("empty ") + option + " list");
  return items;
}

// A value given twice would run (and report) the same configurations twice.
template <class T, class Name>
void add_once(std::vector<T>& items, const T& item, const char* option, Name name, const char* hint = "") {
  for (const T& seen : items)
    if (seen == item) throw ConfigError(std::string(option) + " lists " + name(item) + " more than once" + hint);
  items.push_back(item);
}

}  // namespace

SweepSpec parse_sweep(std::string_view kernels, std::string_view blocks, std::string_view matrices,
                      std::string_view dtypes, const std::optional<std::string>& tile,
                      const std::optional<int>& pad) {
  SweepSpec spec;
  const auto same = [](const std::string& k) { return k; };
  const std::vector<std::string> kernel_items = non_empty(kernels, "--kernels");
  const bool has_all = std::count(kernel_items.begin(), kernel_items.end(), "all") > 0;
  const char* hint = has_all ? " (all is every kernel of the suite)" : "";
  for (const std::string& k : kernel_items) {
    if (k == "all") {
      for (const KernelInfo& info : kernel_suite()) add_once(spec.kernels, std::string(info.name), "--kernels", same, hint);
    } else if (!find_kernel(k)) {
      throw ConfigError("unknown kernel '" + k + "' (memsim --list-kernels lists the suite)");
    } else {
      add_once(spec.kernels, k, "--kernels", same, hint);
    }
  }
  const auto size = [](const Size2& v) { return format_size2(v); };
  for (const std::string& b : non_empty(blocks, "--blocks")) add_once(spec.blocks, parse_size2(b, "--block"), "--blocks", size);
  for (const std::string& m : non_empty(matrices, "--matrices"))
    add_once(spec.matrices, parse_size2(m, "--matrix"), "--matrices", size);
  for (const std::string& d : non_empty(dtypes, "--dtypes"))
    add_once(spec.dtypes, parse_dtype(d), "--dtypes", [](Dtype t) { return std::string(dtype_name(t)); });
  if (tile) spec.tile = parse_size2(*tile, "--tile");
  spec.pad = pad;
  return spec;
}

std::vector<UserConfig> expand_sweep(const SweepSpec& spec) {
  std::vector<UserConfig> users;
  for (const Size2& m : spec.matrices)
    for (Dtype d : spec.dtypes)
      for (const std::string& k : spec.kernels)
        for (const Size2& b : spec.blocks) {
          UserConfig u;
          u.kernel = k;
          u.matrix = m;
          u.block = b;
          u.dtype = d;
          u.tile = spec.tile;
          u.pad = spec.pad;
          users.push_back(u);
        }
  return users;
}

ResolvedSweep resolve_sweep(const std::vector<UserConfig>& users, const LaunchLimits& limits) {
  ResolvedSweep out;
  for (const UserConfig& u : users) {
    try {
      out.configs.push_back(resolve_launch(u, limits));
    } catch (const ConfigError& e) {
      if (users.size() == 1) throw;
      out.skipped.push_back({u, e.what()});
    }
  }
  return out;
}

std::string config_label(const LaunchConfig& cfg) {
  const LaunchShape& s = cfg.shape;
  return std::string(cfg.kernel->name) + " " + dtype_name(cfg.dtype) + " " + format_size2({s.width, s.height}) +
         " block " + format_size2({s.block_x, s.block_y}) + " tile " + format_size2({s.tile_x, s.tile_y});
}

std::string user_label(const UserConfig& u) {
  return u.kernel + " " + dtype_name(u.dtype) + " " + format_size2(u.matrix) + " block " + format_size2(u.block);
}

}  // namespace memsim::validate
