#pragma once
// Shared-memory bank rule (docs/hardware.md, "Shared memory: banks, phases and wavefronts"): a warp access is split
// into phases (all 32 lanes for accesses up to 4 bytes, 16 lanes for 8 bytes, 8 lanes for 16 bytes); a phase needs as
// many wavefronts as the most distinct words any one bank must deliver (lanes reading one word share it by broadcast).
// Compute capability 1.x has 16 banks served per half-warp: set phase_lanes = 16, banks = 16.
#include <cstdint>

#include "core/device_rules.hpp"
#include "sim/warp_access.hpp"

namespace memsim {

struct SharedCost {
  int wavefronts = 0;
  int ideal_wavefronts = 0;  // one per phase with an active lane (ceil(bytes / (banks x bank_bytes)) for a full warp)
  int conflicts() const { return wavefronts > ideal_wavefronts ? wavefronts - ideal_wavefronts : 0; }
};

// When `bank_words` is given (rules.banks entries), adds to each bank the distinct words it delivers to this
// instruction, all phases together: one row of a bank-usage heatmap.
SharedCost count_shared_wavefronts(const WarpAccess& w, const BankRules& rules = {}, int64_t* bank_words = nullptr);

}  // namespace memsim
