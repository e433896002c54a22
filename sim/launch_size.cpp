#include "sim/launch_size.hpp"

#include <cmath>
#include <numeric>
#include <sstream>
#include <string>

#include "kernels/registry.hpp"
#include "sim/block_classes.hpp"

namespace memsim {
namespace {

constexpr int64_t kResolveMaxElements = 4294967295LL;  // resolve_launch's own limit
constexpr double kMaxWarpSteps = double(int64_t(1) << 29);  // resolve_launch's bound on a replay's work
// A block's own work past 2^32-1 elements: the stand-in matrix (at most 12 x 12 tiles) then stays within
// resolve_launch's bound too.
constexpr double kMaxBlockWarpSteps = double(int64_t(1) << 21);

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// Warp steps one block replays: its tile's elements over its threads, in warps (resolve_launch's measure).
double block_warp_steps(Size2 tile, Size2 block) {
  const double threads = double(block.x) * double(block.y);
  return double(tile.x) * double(tile.y) / threads * std::ceil(threads / 32.0);
}

// The matrix side the stand-in has: the same remainder modulo `period`, between 2 and 3 periods.
int64_t stand_in_side(int64_t side, int64_t period) { return side < 3 * period ? side : side % period + 2 * period; }

[[noreturn]] void refuse_block_work(double steps) {
  std::ostringstream os;
  os << "a block of this launch replays " << steps << " warp steps; past 2^32-1 elements memsim replays blocks of "
     << "at most 2^21; choose a smaller tile or a larger block";
  throw ConfigError(os.str());
}

// resolve_launch's other bound: tiles covering more than 64 times the matrix (and 2^24 elements).
void check_cover(Size2 m, Size2 t, int64_t gx, int64_t gy, bool always) {
  const double covered = double(gx) * double(gy) * double(t.x) * double(t.y);
  const double elements = double(m.x) * double(m.y);
  if (!always && !(covered > double(int64_t(1) << 24) && covered > 64 * elements)) return;
  std::ostringstream os;
  os << "the tiles of this launch cover " << covered << " elements, " << covered / elements
     << " times the matrix; choose a tile closer to the matrix's shape";
  throw ConfigError(os.str());
}

}  // namespace

LaunchConfig resolve_launch_any_size(const UserConfig& user, const LaunchLimits& limits, const MemoryRules& rules,
                                     bool full_replay, const std::string& full_replay_reason) {
  const Size2 m = user.matrix;
  const KernelInfo* k = find_kernel(user.kernel);
  const bool resolvable = m.x <= kResolveMaxElements && m.y <= kResolveMaxElements && m.x <= kResolveMaxElements / m.y;
  // Errors that come before the size's in resolve_launch, and every matrix it takes, are its own.
  if (!k || m.x <= 0 || m.y <= 0 || user.block.x <= 0 || user.block.y <= 0 || (resolvable && full_replay))
    return resolve_launch(user, limits);
  std::string full_work;  // resolve_launch's refusal of a full replay's work, which classes may not need
  if (resolvable) {
    try {
      return resolve_launch(user, limits);
    } catch (const ConfigError& e) {
      // resolve_launch bounds the full replay; the replay by classes is bounded below, as past 2^32-1 (a
      // 4294967295x1 matrix was refused where 4294967296x1 ran in 0.01 s).
      if (std::string(e.what()).rfind("this launch replays", 0) != 0) throw;
      full_work = e.what();
    }
  } else if (m.x > kMaxReplayElements || m.y > kMaxReplayElements || m.x > kMaxReplayElements / m.y) {
    std::ostringstream os;
    os << "matrix " << format_size2(m) << " has more than 2^40 elements (" << double(m.x) * double(m.y)
       << "), the largest memsim supports";
    throw ConfigError(os.str());
  }

  const Size2 t = user.tile ? *user.tile : default_tile(*k, user.block, user.dtype);
  const bool tile_ok = t.x > 0 && t.y > 0 && t.x <= 65536 && t.y <= 65536;  // else resolve_launch says why
  UserConfig stand_in = user;
  if (tile_ok)
    stand_in.matrix = {stand_in_side(m.x, std::lcm(t.x, int64_t(k->width_multiple))),
                       stand_in_side(m.y, std::lcm(t.y, int64_t(k->height_multiple)))};
  else
    stand_in.matrix = {1, 1};
  const int64_t gx = !tile_ok ? 0 : k->tile_over_output ? ceil_div(m.y, t.x) : ceil_div(m.x, t.x);
  const int64_t gy = !tile_ok ? 0 : k->tile_over_output ? ceil_div(m.x, t.y) : ceil_div(m.y, t.y);
  LaunchConfig cfg;
  try {
    cfg = resolve_launch(stand_in, limits);
  } catch (const ConfigError& e) {
    if (resolvable) throw ConfigError(full_work);
    const std::string why = e.what();
    // Its work bounds measured the stand-in: say the real launch's (a block too large for the stand-in).
    if (why.rfind("this launch replays", 0) == 0) refuse_block_work(block_warp_steps(t, user.block));
    if (why.rfind("the tiles of this launch cover", 0) == 0) check_cover(m, t, gx, gy, true);
    throw ConfigError(replace_all(why, format_size2(stand_in.matrix), format_size2(m)));
  }
  const double per_block = block_warp_steps(t, user.block);
  if (per_block > kMaxBlockWarpSteps) {
    if (resolvable) throw ConfigError(full_work);
    refuse_block_work(per_block);
  }

  LaunchShape& s = cfg.shape;
  s.width = m.x;
  s.height = m.y;
  if (gx > limits.max_grid_x || gy > limits.max_grid_y) {
    std::ostringstream os;
    os << "matrix " << format_size2(m) << " needs a grid of " << gx << "x" << gy << " blocks of tile "
       << format_size2(t) << "; the device launches at most " << limits.max_grid_x << "x" << limits.max_grid_y
       << " (--tile sets a larger tile)";
    throw ConfigError(os.str());
  }
  s.grid_x = int(gx);
  s.grid_y = int(gy);
  check_cover(m, t, gx, gy, false);
  const ClassPlan plan = plan_block_classes(cfg, rules);
  const bool by_classes = !full_replay && plan.why_not.empty();
  const double steps = per_block * double(by_classes ? plan.blocks_to_replay() : cfg.blocks());
  if (steps > kMaxWarpSteps) {
    if (resolvable && !by_classes) throw ConfigError(full_work);
    std::ostringstream os;
    os << "this launch replays " << steps << " warp steps"
       << (by_classes ? " by block classes" : " (every block: " + (full_replay ? full_replay_reason
                                                                              : plan.why_not) + ")")
       << ", more than memsim replays (2^29); choose a larger block or tile";
    throw ConfigError(os.str());
  }
  return cfg;
}

}  // namespace memsim
