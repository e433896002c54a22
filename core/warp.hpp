#pragma once
namespace memsim {

// Lanes a warp; also the most warps a block has (1024 threads).
constexpr int kWarpSize = 32;

}  // namespace memsim
