#pragma once
// Integer division by a value known only when the kernel runs (a grid dimension). No GPU instruction divides
// integers: nvcc emits a reciprocal estimate and its corrections, about 17 instructions for 32-bit operands
// and 25 for 64-bit ones whose values fit in 32 bits (read off sm_90 SASS: model/devices/h100.json), once per
// warp when the operands are uniform. Kernel bodies divide by launch values through divide_by_runtime, and the
// CPU replay counts the sequences here as it counts lane-wise operations (sim/lanes.hpp), so that the
// instruction estimate (core/kernel_counts.hpp) sees them; on the GPU this is a plain / and %.
#include <cstdint>
#include <type_traits>

#include "kernels/config.hpp"

namespace memsim {

#if !defined(__CUDA_ARCH__)
// Division sequences this thread's replay has executed, by operand width: [0] 32-bit, [1] 64-bit.
inline thread_local int64_t runtime_divisions[2] = {0, 0};
#endif

template <class I>
struct QuotientRemainder {
  I quotient, remainder;
};

// a / b and a % b, one division sequence (the compiler derives the remainder from the quotient).
template <class I>
MEMSIM_HD MEMSIM_INLINE QuotientRemainder<I> divide_by_runtime(I a, I b) {
  static_assert(std::is_integral_v<I> && (sizeof(I) == 4 || sizeof(I) == 8), "32- or 64-bit integers");
#if !defined(__CUDA_ARCH__)
  ++runtime_divisions[sizeof(I) == 8];
#endif
  return {I(a / b), I(a % b)};
}

}  // namespace memsim
