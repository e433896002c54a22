#pragma once
// How the GPU's address capture stores one lane's access, shared by the capturing policy (device code,
// validate/device_capture.cuh) and the host that compares it with the replay.
#include <cstdint>

#include "kernels/config.hpp"

namespace memsim::validate {

constexpr int kMaxCaptureSites = 8;
constexpr int64_t kCaptureUnreached = -1;  // the slot was never written (buffers start as all-ones bytes)
constexpr int64_t kCaptureInactive = -2;   // the lane reached the access with its predicate false

// Byte offset and width in one value, so both are compared: offsets stay below 2^40 for any matrix memsim
// accepts (2^32 elements of at most 8 bytes), far from overflowing.
MEMSIM_HD MEMSIM_INLINE int64_t pack_capture(int64_t byte_offset, int width) { return byte_offset * 256 + width; }

}  // namespace memsim::validate
