#pragma once
// Launches past resolve_launch's 2^32-1 elements (kernels/resolve.hpp), up to 2^40: an H200 holds a 65536 x
// 65536 f32 matrix and its transpose. The replay by block classes (sim/block_classes.hpp) answers them in
// milliseconds, and every count is 64-bit. Matrices up to 2^32-1 elements go to resolve_launch unchanged.
//
// Past 2^32-1, resolve_launch checks everything that does not depend on the matrix's size (kernel, block,
// tile, pad, shared memory) on a stand-in matrix with the same remainders modulo the tile and the vector
// widths (so whole-tile and vector-width checks agree, and its errors name the real matrix); the grid
// limits and the replay's work are then checked on the real launch: the full replay (asked for, or when the
// launch has no classes) replays at most 2^29 warp steps, as resolve_launch allows, and the replay by
// classes at most 2^29 in the blocks it replays.
#include <cstdint>
#include <string>

#include "kernels/resolve.hpp"
#include "sim/tally.hpp"

namespace memsim {

constexpr int64_t kMaxReplayElements = int64_t(1) << 40;

// Throws ConfigError (one line) as resolve_launch does. `full_replay`: every block will be replayed
// (--exact, a partition counter).
// `full_replay_reason` says why, in the message refusing a full replay's work.
LaunchConfig resolve_launch_any_size(const UserConfig& user, const LaunchLimits& limits, const MemoryRules& rules,
                                     bool full_replay,
                                     const std::string& full_replay_reason = "the full replay was asked for");

}  // namespace memsim
