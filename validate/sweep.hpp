#pragma once
// The configurations one run covers: the cross product of comma lists (kernels x blocks x matrices x dtypes),
// each resolved exactly as memsim resolves its single configuration (kernels/resolve.hpp).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/resolve.hpp"

namespace memsim::validate {

struct SweepSpec {
  std::vector<std::string> kernels;  // suite names; "all" expanded
  std::vector<Size2> blocks;
  std::vector<Size2> matrices;
  std::vector<Dtype> dtypes;
  std::optional<Size2> tile;  // applies to every configuration
  std::optional<int> pad;
};

// "a,b,,c" -> {"a", "b", "c"}; blanks around items are dropped.
std::vector<std::string> split_list(std::string_view text);

// Throws ConfigError (one line) on an unknown kernel, a malformed size or dtype, an empty list, or a value
// listed twice ("all,naive" names naive twice): it would run the same configurations twice.
SweepSpec parse_sweep(std::string_view kernels, std::string_view blocks, std::string_view matrices,
                      std::string_view dtypes, const std::optional<std::string>& tile,
                      const std::optional<int>& pad);

// Matrix-major, then dtype, kernel, block: configurations sharing a matrix and dtype come together, so that
// their buffers, input and baselines are made once.
std::vector<UserConfig> expand_sweep(const SweepSpec& spec);

struct Skipped {
  UserConfig user;
  std::string reason;  // the ConfigError's message
};
struct ResolvedSweep {
  std::vector<LaunchConfig> configs;
  std::vector<Skipped> skipped;
};
// A configuration the kernel does not support (coarse on 1000x3000, say) is skipped with its reason when the
// sweep has several; a sweep of one configuration rethrows, as memsim would.
ResolvedSweep resolve_sweep(const std::vector<UserConfig>& users, const LaunchLimits& limits);

std::string config_label(const LaunchConfig& cfg);  // "padded f32 2048x2048 block 32x8 tile 32x32"
std::string user_label(const UserConfig& user);

}  // namespace memsim::validate
