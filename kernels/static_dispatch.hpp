#pragma once
// Which compile-time shape (kernels/static_shape.hpp), if any, runs a resolved launch on the GPU. The GPU
// launcher (validate/suite_launch.cu), the GPU's address capture and the host test that proves static and
// run-time shapes address alike all dispatch through here, so they agree on which instantiation a
// configuration gets.
#include <cstdint>
#include <type_traits>

#include "kernels/resolve.hpp"
#include "kernels/static_shape.hpp"
#include "kernels/suite.hpp"
// MEMSIM_EXTRA_STATIC_SHAPES(X): further static instantiations the GPU build makes, each
// X(kernel struct, element bytes, BX, BY, TX, TY, shared row): empty unless the build is configured with
// -DMEMSIM_EXTRA_STATIC_SHAPES=FILE (a held-out sweep's shapes, lab/heldout/).
#include "memsim/extra_static_shapes.inc"

namespace memsim {

// The blocks every kernel and dtype has static instantiations of, with their default tiles and pads: the
// whitepaper's 32x8, the square 16x16 and 32x32, and the tall 8x32 of seed 000 (docs/sources.md).
#define MEMSIM_STATIC_BLOCKS(X) X(32, 8) X(16, 16) X(8, 32) X(32, 32)

// Calls f(shape) with the static shape of kernel K that matches cfg (its block, tile and pad, a matrix with
// 32-bit indices) and returns true; returns false, calling nothing, when none does: the caller then runs the
// run-time LaunchShape. T is the element type the caller instantiates (its size picks the default tiles of
// kernels whose footprint depends on it).
template <class K, class T, class F>
bool with_static_shape(const LaunchConfig& cfg, F&& f) {
  constexpr int kBytes = int(sizeof(T));
  bool ran = false;
#define MEMSIM_TRY_STATIC_BLOCK(BX, BY)                                          \
  if constexpr (default_tile_allowed<K, BX, BY, kBytes>()) {                     \
    using S = typename DefaultStaticShape<K, BX, BY, int32_t, kBytes>::type;     \
    if (!ran && static_shape_matches<S>(cfg.shape)) {                            \
      f(make_static_shape<S>(cfg.shape));                                        \
      ran = true;                                                                \
    }                                                                            \
  }
  MEMSIM_STATIC_BLOCKS(MEMSIM_TRY_STATIC_BLOCK)
#undef MEMSIM_TRY_STATIC_BLOCK
#define MEMSIM_TRY_EXTRA_SHAPE(KS, BYTES, BX, BY, TX, TY, SR)                  \
  if constexpr (std::is_same_v<K, suite::KS> && kBytes == BYTES) {              \
    using S = StaticShape<BX, BY, TX, TY, SR, int32_t>;                         \
    if (!ran && static_shape_matches<S>(cfg.shape)) {                           \
      f(make_static_shape<S>(cfg.shape));                                       \
      ran = true;                                                               \
    }                                                                           \
  }
  MEMSIM_EXTRA_STATIC_SHAPES(MEMSIM_TRY_EXTRA_SHAPE)
#undef MEMSIM_TRY_EXTRA_SHAPE
  return ran;
}

// Calls f with the shape the GPU runs cfg with: the matching static shape, else the run-time LaunchShape.
template <class K, class T, class F>
void with_launch_shape(const LaunchConfig& cfg, F&& f) {
  if (!with_static_shape<K, T>(cfg, f)) f(cfg.shape);
}

// "static" or "dynamic": which kind of shape the GPU runs cfg with, as validation records say.
template <class K>
const char* shape_kind(const LaunchConfig& cfg) {
  const auto none = [](const auto&) {};
  const bool fixed = cfg.dtype == Dtype::F16   ? with_static_shape<K, uint16_t>(cfg, none)
                     : cfg.dtype == Dtype::F32 ? with_static_shape<K, float>(cfg, none)
                                               : with_static_shape<K, double>(cfg, none);
  return fixed ? "static" : "dynamic";
}

}  // namespace memsim
