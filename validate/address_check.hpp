#pragma once
// The address check: the GPU's captured offsets (validate/address_capture.hpp) against the replay's recorders
// (sim/warp_recorder.hpp, sim/recorder.hpp), warp access by warp access. Equal streams mean the counts memsim reports are counts of
// what the GPU kernel addresses: the two cannot drift apart.
#include <cstdint>
#include <string>

#include "kernels/resolve.hpp"
#include "validate/address_capture.hpp"

namespace memsim::validate {

struct AddressCheck {
  int64_t blocks = 0;
  // Warp accesses (>= 1 active lane) and their active lanes compared, summed over the replay's recorders
  // (the warp recorder's fast path where no access needs a finding, and the grouping Recorder always).
  int64_t warp_accesses = 0;
  int64_t lane_accesses = 0;
  int64_t mismatches = 0;     // warp accesses that differ in mask, width or any address
  std::string first_mismatch;
  bool passed() const { return warp_accesses > 0 && mismatches == 0; }
  void add(const AddressCheck& o);
};

// Compares blocks [gpu.first_block, gpu.last_block) of cfg with the replay of the same blocks.
AddressCheck compare_with_replay(const LaunchConfig& cfg, const AddressCapture& gpu);

// Captures and compares every block of cfg, in chunks that keep the capture under `max_slots` values.
AddressCheck check_addresses(const LaunchConfig& cfg, int64_t max_slots = int64_t(1) << 26);

}  // namespace memsim::validate
