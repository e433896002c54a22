// The GPU runs the shapes people launch with compile-time extents (kernels/static_shape.hpp), the replay with
// run-time ones: both must make every access at the same address, with the same predicate and width, in the
// same order. Here every kernel body runs on the CPU, thread by thread, once with each kind of shape, under a
// policy that logs each call; the two logs must be identical, for every kernel, dtype and static block, at
// sizes made of whole tiles (static shapes then skip the bounds tests) and ragged ones (edge tiles keep them).
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernels/registry.hpp"
#include "kernels/static_dispatch.hpp"
#include "kernels/suite.hpp"

namespace memsim {
namespace {

struct Call {
  int site;
  bool pred;
  int64_t offset;  // elements; only compared where pred holds (an off lane's offset is never used)
  int bytes;
  bool operator==(const Call& o) const {
    return site == o.site && pred == o.pred && bytes == o.bytes && (!pred || offset == o.offset);
  }
};

template <class T>
struct LoggingMemory {
  using Elem = T;
  std::vector<Call>* log;
  template <class V>
  V load_global(int site, bool pred, int64_t off) {
    log->push_back({site, pred, off, int(sizeof(V))});
    return V{};
  }
  template <class V>
  void store_global(int site, bool pred, int64_t off, const V&) {
    log->push_back({site, pred, off, int(sizeof(V))});
  }
  template <class V>
  V load_shared(int site, bool pred, int64_t off) {
    log->push_back({site + 1000, pred, off, int(sizeof(V))});
    return V{};
  }
  template <class V>
  void store_shared(int site, bool pred, int64_t off, const V&) {
    log->push_back({site + 1000, pred, off, int(sizeof(V))});
  }
  void sync() { log->push_back({-1, true, 0, 0}); }
};

// Every thread of every block, in launch order.
template <class K, class T, class Shape>
std::vector<Call> run_all_threads(const LaunchConfig& cfg, const Shape& shape) {
  std::vector<Call> log;
  LoggingMemory<T> mem{&log};
  for (int by = 0; by < cfg.shape.grid_y; ++by)
    for (int bx = 0; bx < cfg.shape.grid_x; ++bx)
      for (int ty = 0; ty < cfg.shape.block_y; ++ty)
        for (int tx = 0; tx < cfg.shape.block_x; ++tx) K::body(mem, shape, ThreadCoord{bx, by, tx, ty});
  return log;
}

template <class K, class T>
int compare_shapes(const LaunchConfig& cfg, const std::string& label) {
  int compared = 0;
  const bool ran = with_static_shape<K, T>(cfg, [&](const auto& shape) {
    const std::vector<Call> dynamic = run_all_threads<K, T>(cfg, cfg.shape);
    const std::vector<Call> fixed = run_all_threads<K, T>(cfg, shape);
    ASSERT_EQ(dynamic.size(), fixed.size()) << label;
    for (size_t i = 0; i < dynamic.size(); ++i)
      ASSERT_TRUE(dynamic[i] == fixed[i]) << label << ": call " << i << " site " << dynamic[i].site << " offset "
                                          << dynamic[i].offset << " against " << fixed[i].offset;
    compared = 1;
  });
  EXPECT_EQ(ran, compared == 1) << label;
  return compared;
}

template <class K>
int compare_kernel(const std::vector<Size2>& matrices) {
  int compared = 0;
  for (const Size2 m : matrices)
    for (const Size2 b : {Size2{32, 8}, Size2{16, 16}, Size2{8, 32}, Size2{32, 32}})
      for (Dtype d : {Dtype::F16, Dtype::F32, Dtype::F64}) {
        UserConfig u;
        u.kernel = K::info().name;
        u.matrix = m;
        u.block = b;
        u.dtype = d;
        const std::optional<LaunchConfig> launch = try_resolve_launch(u);
        if (!launch) continue;  // the kernel does not run this configuration (coarse on a ragged matrix, say)
        const LaunchConfig& cfg = *launch;
        const std::string label = std::string(K::info().name) + " " + dtype_name(d) + " " + format_size2(m) +
                                  " block " + format_size2(b);
        // Every default configuration of a static block must find its static shape.
        bool matched = false;
        switch (d) {
          case Dtype::F16: matched = compare_shapes<K, uint16_t>(cfg, label) == 1; break;
          case Dtype::F32: matched = compare_shapes<K, float>(cfg, label) == 1; break;
          case Dtype::F64: matched = compare_shapes<K, double>(cfg, label) == 1; break;
        }
        EXPECT_TRUE(matched) << label << " ran with no static shape";
        compared += matched;
      }
  return compared;
}

// 128x128: whole tiles for every default tile up to 128x128, a square grid (the diagonal kernel's first
// branch); 160x96 a non-square grid; 200x136 ragged for every tile wider than 8.
const std::vector<Size2> kMatrices{{128, 128}, {160, 96}, {200, 136}};

#define MEMSIM_STATIC_SHAPE_TEST(K)                         \
  TEST(StaticShape, K##AddressesAsTheRunTimeShape) {        \
    EXPECT_GT(compare_kernel<suite::K>(kMatrices), 0);      \
  }
MEMSIM_KERNEL_SUITE(MEMSIM_STATIC_SHAPE_TEST)
#undef MEMSIM_STATIC_SHAPE_TEST

TEST(StaticShape, OtherTilesAndPadsRunTheRunTimeShape) {
  UserConfig u;
  u.kernel = "padded";
  u.matrix = {256, 256};
  u.block = {32, 8};
  u.pad = 2;  // not the default pad
  EXPECT_STREQ(shape_kind<suite::Padded>(resolve_launch(u)), "dynamic");
  u.pad.reset();
  u.tile = Size2{64, 64};  // not the default tile
  EXPECT_STREQ(shape_kind<suite::Padded>(resolve_launch(u)), "dynamic");
  u.tile.reset();
  u.block = {64, 4};  // no static instantiation
  EXPECT_STREQ(shape_kind<suite::Padded>(resolve_launch(u)), "dynamic");
  u.block = {32, 8};
  EXPECT_STREQ(shape_kind<suite::Padded>(resolve_launch(u)), "static");
}

TEST(StaticShape, MatricesPastThirtyTwoBitIndicesRunTheRunTimeShape) {
  // 2^31 elements need 64-bit indices; one tile's reach less than that still fits.
  EXPECT_FALSE(fits_32bit_index(65536, 32768, 32, 32));
  EXPECT_TRUE(fits_32bit_index(46000, 46000, 32, 32));   // (46064)^2 = 2.12e9 < 2^31 = 2.147e9
  EXPECT_FALSE(fits_32bit_index(46300, 46300, 32, 32));  // (46364)^2 = 2.1496e9 > 2^31
  EXPECT_FALSE(fits_32bit_index(int64_t(1) << 31, 1, 32, 32));
}

}  // namespace
}  // namespace memsim
