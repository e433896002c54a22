#pragma once
// How many warp instructions each access site issues when warps whose lanes are all predicated off are
// counted too. memsim counts an instruction only when a lane is active, which is what the hardware's global
// requests count; smsp__inst_executed counts what the warp issues, and where the compiler predicates an access
// instead of branching around it, an all-off instruction is issued as well (block 8x32 over an 8x32 tile:
// three warps of four take no part in draining the tile, yet issue its shared loads). memsim's count and this
// one bracket the hardware's.
#include <cstdint>
#include <vector>

#include "kernels/resolve.hpp"

namespace memsim::validate {

// Per site of cfg.kernel: warp instructions reached by at least one lane, active or not.
std::vector<int64_t> warp_instructions_reached(const LaunchConfig& cfg);

}  // namespace memsim::validate
