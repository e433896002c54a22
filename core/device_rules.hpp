#pragma once
// What a device imposes on a launch and on its memory accesses, as plain numbers: a device profile
// (model/profile.hpp) fills them, the launch's resolution (kernels/resolve.hpp) and the replay (sim/) obey them.
#include <cstdint>

namespace memsim {

// What the device allows a launch.
struct LaunchLimits {
  int max_threads_per_block = 1024;
  int max_block_x = 1024, max_block_y = 1024;
  int64_t max_shared_per_block = 48 * 1024;  // bytes a block may use (with opt-in where the device has it)
  int64_t max_grid_x = 2147483647, max_grid_y = 65535;
};

// Shared-memory banks (sim/shared_banks.hpp).
struct BankRules {
  int banks = 32;
  int bank_bytes = 4;
  int phase_lanes = 32;  // lanes of a 4-byte access served together
};

// How a warp's global access becomes memory traffic: 32-byte sectors per warp (Volta and later, docs/hardware.md),
// or the compute capability 1.x half-warp transactions of sim/coalescing_cc1x.hpp (1.2/1.3: GT200; 1.0/1.1:
// G80).
enum class GlobalCoalescing { Sectors32, Cc12Segments, Cc10Strict };

struct MemoryRules {
  int sector_bytes = 32;
  int line_bytes = 128;
  BankRules banks;
  GlobalCoalescing coalescing = GlobalCoalescing::Sectors32;
};

}  // namespace memsim
