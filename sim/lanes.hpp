#pragma once
// A value per lane of a warp, for running a kernel body once per warp instead of once per lane.
//
// Kernel bodies are templates over their thread coordinates (kernels/launch_shape.hpp): on the GPU, and in
// the per-lane replay, thread_x/thread_y are ints; in the warp replay they are Lanes<int> holding the 32
// lanes' coordinates, and the body's index math, written once with `auto`, runs lane-wise through the
// operators below (found by argument-dependent lookup). A body's control flow may depend on block and launch
// values only (uniform across the warp), as SIMT hardware without divergence executes it; lane-dependent
// choices go through the predicates of the access interface. A body that branches on a lane value does not
// compile with Lanes, and the replay then runs it lane by lane (sim/replay.cpp picks).
//
// Host-only: the GPU never sees this type. The fixed 32-lane loops are what the compiler vectorizes.
#include <cstdint>
#include <type_traits>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sim/warp_access.hpp"

namespace memsim {

template <class T>
struct Lanes {
  static_assert(std::is_arithmetic_v<T>, "lanes hold integers, booleans or floating-point values");
  static_assert(sizeof(bool) == 1, "lane_mask reads bools as bytes");
  T v[kWarpSize];
  // Whether the value changes from one column step of a tile walk to the next (kernels/launch_shape.hpp):
  // derived from the column coordinate. What does not is loop-invariant in the column walk, which nvcc
  // computes once per row step.
  bool per_column = false;
};

// Lane-wise operations this thread's replay has executed, each one warp instruction of the body's index
// math (two for 64-bit results, which the GPU computes in 32-bit halves), plus one per memory access call
// (sim/warp_recorder.hpp), issued even when every lane is predicated off; in a tile walk's later column
// steps only the operations whose result varies per column (in_later_column_step below). What the
// instruction estimate (core/kernel_counts.hpp) starts from; sim/replay.cpp reads the difference around each walk.
inline thread_local int64_t lane_operations = 0;

// Set while the warp replay runs a tile walk's second and later column steps (kernels/launch_shape.hpp): an
// operation there counts only if its result changes with the column; the rest the GPU hoisted out of the
// column walk and computed in its first step.
inline thread_local bool in_later_column_step = false;

template <class T>
inline __attribute__((always_inline)) bool varies_per_column(const Lanes<T>& x) {
  return x.per_column;
}
template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
inline __attribute__((always_inline)) bool varies_per_column(const T&) {
  return false;
}

// Counts an operation of `cost` warp instructions whose result varies per column or not.
inline __attribute__((always_inline)) void count_operation(int cost, bool per_column) {
  if (per_column || !in_later_column_step) lane_operations += cost;
}

template <class X>
struct is_lanes : std::false_type {};
template <class T>
struct is_lanes<Lanes<T>> : std::true_type {};

// Lane i of a per-lane value, or the value itself for a uniform (scalar) one.
template <class T>
inline __attribute__((always_inline)) const T& lane_of(const Lanes<T>& x, int i) {
  return x.v[i];
}
template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
inline __attribute__((always_inline)) const T& lane_of(const T& x, int) {
  return x;
}

// An operator takes part when one operand is Lanes and the other is Lanes or a plain arithmetic value.
template <class A, class B>
inline constexpr bool kLaneOperands = (is_lanes<A>::value || is_lanes<B>::value) &&
                                      (is_lanes<A>::value || std::is_arithmetic_v<A>) &&
                                      (is_lanes<B>::value || std::is_arithmetic_v<B>);

// Lane-wise binary operators with the scalar operator's result type (int + int64_t -> Lanes<int64_t>,
// comparisons -> Lanes<bool>), so a body's types promote exactly as they do on the GPU.
#define MEMSIM_LANE_BINARY(OP)                                                                           \
  template <class A, class B, std::enable_if_t<kLaneOperands<A, B>, int> = 0>                           \
  inline __attribute__((always_inline)) auto operator OP(const A& a, const B& b) {                      \
    using R = decltype(lane_of(a, 0) OP lane_of(b, 0));                                                  \
    Lanes<R> r;                                                                                          \
    r.per_column = varies_per_column(a) || varies_per_column(b);                                         \
    count_operation(sizeof(R) > 4 ? 2 : 1, r.per_column);                                               \
    for (int i = 0; i < kWarpSize; ++i) r.v[i] = lane_of(a, i) OP lane_of(b, i);                        \
    return r;                                                                                            \
  }
MEMSIM_LANE_BINARY(+)
MEMSIM_LANE_BINARY(-)
MEMSIM_LANE_BINARY(*)
MEMSIM_LANE_BINARY(/)
MEMSIM_LANE_BINARY(%)
MEMSIM_LANE_BINARY(^)
MEMSIM_LANE_BINARY(&)
MEMSIM_LANE_BINARY(|)
MEMSIM_LANE_BINARY(<<)
MEMSIM_LANE_BINARY(>>)
MEMSIM_LANE_BINARY(<)
MEMSIM_LANE_BINARY(<=)
MEMSIM_LANE_BINARY(>)
MEMSIM_LANE_BINARY(>=)
MEMSIM_LANE_BINARY(==)
MEMSIM_LANE_BINARY(!=)
#undef MEMSIM_LANE_BINARY

// Logical and/or evaluate both sides (there is nothing to short-circuit: operands have no side effects),
// lane by lane, without branches (bitwise on 0/1 ints: clang warns of `&` on bools as of a mistaken `&&`).
#define MEMSIM_LANE_LOGICAL(OP, BITWISE)                                                                 \
  template <class A, class B, std::enable_if_t<kLaneOperands<A, B>, int> = 0>                           \
  inline __attribute__((always_inline)) Lanes<bool> operator OP(const A& a, const B& b) {               \
    Lanes<bool> r;                                                                                       \
    r.per_column = varies_per_column(a) || varies_per_column(b);                                         \
    count_operation(1, r.per_column);                                                                    \
    for (int i = 0; i < kWarpSize; ++i) r.v[i] = int(bool(lane_of(a, i))) BITWISE int(bool(lane_of(b, i))); \
    return r;                                                                                            \
  }
MEMSIM_LANE_LOGICAL(&&, &)
MEMSIM_LANE_LOGICAL(||, |)
#undef MEMSIM_LANE_LOGICAL

template <class T>
inline __attribute__((always_inline)) Lanes<bool> operator!(const Lanes<T>& a) {
  Lanes<bool> r;
  r.per_column = a.per_column;
  count_operation(1, r.per_column);
  for (int i = 0; i < kWarpSize; ++i) r.v[i] = !a.v[i];
  return r;
}
template <class T>
inline __attribute__((always_inline)) auto operator-(const Lanes<T>& a) {
  Lanes<decltype(-a.v[0])> r;
  r.per_column = a.per_column;
  count_operation(sizeof(T) > 4 ? 2 : 1, r.per_column);
  for (int i = 0; i < kWarpSize; ++i) r.v[i] = -a.v[i];
  return r;
}

// The active lanes of a predicate as a warp mask (bit i = lane i), for a uniform predicate all or none.
inline __attribute__((always_inline)) uint32_t lane_mask(const Lanes<bool>& p) {
#if defined(__SSE2__)
  // bools are bytes 0/1: negate to 0x00/0xff and gather the top bits, 16 lanes per instruction.
  const __m128i zero = _mm_setzero_si128();
  const __m128i lo = _mm_sub_epi8(zero, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p.v)));
  const __m128i hi = _mm_sub_epi8(zero, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p.v + 16)));
  return uint32_t(_mm_movemask_epi8(lo)) | (uint32_t(_mm_movemask_epi8(hi)) << 16);
#else
  uint32_t m = 0;
  for (int i = 0; i < kWarpSize; ++i) m |= uint32_t(p.v[i]) << i;
  return m;
#endif
}
inline __attribute__((always_inline)) uint32_t lane_mask(bool p) { return p ? ~0u : 0u; }

// The hooks of kernels/launch_shape.hpp's tile walk for a warp: the column coordinate varies per column
// step, and a step after the first of its row counts only what varies per column.
inline __attribute__((always_inline)) Lanes<int> column_varying(Lanes<int> tx) {
  tx.per_column = true;
  return tx;
}
inline __attribute__((always_inline)) void begin_column_step(const Lanes<int>&, int j) { in_later_column_step = j > 0; }
inline __attribute__((always_inline)) void end_column_walk(const Lanes<int>&) { in_later_column_step = false; }

}  // namespace memsim
