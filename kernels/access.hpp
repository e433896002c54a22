#pragma once
// The access interface every kernel body uses for its loads and stores. A body is a template over a memory
// policy `Mem`: on the GPU (kernels/device_memory.cuh) the calls do the real memory operations; in the replay
// (sim/recorder.hpp) they record byte addresses. A body never touches memory any other way.
//
// Every access is predicated (`pred`) instead of being skipped by control flow, the way SIMT hardware masks
// lanes: a lane whose predicate is false still takes part in the instruction's occurrence count, so the
// replay groups lanes into warp instructions the way the GPU issues them. Predicates and offsets are bool and
// integers for one thread, or per-lane values (sim/lanes.hpp) when the replay runs a whole warp at once.
#include "kernels/config.hpp"

namespace memsim {

// Global loads read the kernel's input matrix, global stores write its output; offsets count elements of
// Mem::Elem from the start of that matrix. V is Mem::Elem or a Vec<Mem::Elem, N> of at most 16 bytes.
template <class V, class Mem, class Pred, class Off>
MEMSIM_HD MEMSIM_INLINE V load_global(Mem& m, int site, const Pred& pred, const Off& elem_offset) {
  return m.template load_global<V>(site, pred, elem_offset);
}
template <class V, class Mem, class Pred, class Off>
MEMSIM_HD MEMSIM_INLINE void store_global(Mem& m, int site, const Pred& pred, const Off& elem_offset, const V& v) {
  m.template store_global<V>(site, pred, elem_offset, v);
}
// Shared accesses address the block's shared tile; offsets count elements of Mem::Elem.
template <class V, class Mem, class Pred, class Off>
MEMSIM_HD MEMSIM_INLINE V load_shared(Mem& m, int site, const Pred& pred, const Off& elem_offset) {
  return m.template load_shared<V>(site, pred, elem_offset);
}
template <class V, class Mem, class Pred, class Off>
MEMSIM_HD MEMSIM_INLINE void store_shared(Mem& m, int site, const Pred& pred, const Off& elem_offset, const V& v) {
  m.template store_shared<V>(site, pred, elem_offset, v);
}
template <class Mem>
MEMSIM_HD MEMSIM_INLINE void sync_block(Mem& m) {
  m.sync();
}

// N consecutive elements of a row, loaded with as few naturally aligned instructions as the 16-byte limit
// allows (f64 x 4 = two 16-byte loads); every piece is one occurrence of `site`.
template <int N, class Mem, class Pred, class Off, class T = typename Mem::Elem>
MEMSIM_HD MEMSIM_INLINE void load_row_vector(Mem& m, int site, const Pred& pred, const Off& elem_offset, T (&dst)[N]) {
  constexpr int kChunk = chunk_elems<T>(N);
#if defined(__CUDACC__)
#pragma unroll
#endif
  for (int k = 0; k < N; k += kChunk) {
    const Vec<T, kChunk> piece = load_global<Vec<T, kChunk>>(m, site, pred, elem_offset + k);
    for (int q = 0; q < kChunk; ++q) dst[k + q] = piece.v[q];
  }
}
template <int N, class Mem, class Pred, class Off, class T = typename Mem::Elem>
MEMSIM_HD MEMSIM_INLINE void store_row_vector(Mem& m, int site, const Pred& pred, const Off& elem_offset,
                                              const T (&src)[N]) {
  constexpr int kChunk = chunk_elems<T>(N);
#if defined(__CUDACC__)
#pragma unroll
#endif
  for (int k = 0; k < N; k += kChunk) {
    Vec<T, kChunk> piece;
    for (int q = 0; q < kChunk; ++q) piece.v[q] = src[k + q];
    store_global<Vec<T, kChunk>>(m, site, pred, elem_offset + k, piece);
  }
}

}  // namespace memsim
