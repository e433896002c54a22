// resolve_launch and its parsers (kernels/resolve.hpp): the defaults of docs/hardware.md ("Conventions") and a
// ConfigError for every bad input, with a positive control beside each limit so the limits are where they should be.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/registry.hpp"
#include "kernels/resolve.hpp"

namespace memsim {
namespace {

UserConfig cfg(const std::string& kernel, Size2 matrix = {2048, 2048}, Size2 block = {32, 8}) {
  UserConfig u;
  u.kernel = kernel;
  u.matrix = matrix;
  u.block = block;
  return u;
}

Size2 tile_of(const UserConfig& u) {
  const LaunchConfig c = resolve_launch(u);
  return {c.shape.tile_x, c.shape.tile_y};
}

TEST(ParseSize2, Accepts) {
  EXPECT_EQ(parse_size2("32x8", "--block"), (Size2{32, 8}));
  EXPECT_EQ(parse_size2("1x1", "--block"), (Size2{1, 1}));
  EXPECT_EQ(parse_size2("4096x65536", "--matrix"), (Size2{4096, 65536}));
  EXPECT_EQ(parse_size2("007x08", "--matrix"), (Size2{7, 8}));
  EXPECT_EQ(format_size2({1000, 3000}), "1000x3000");
}

TEST(ParseSize2, RejectsEveryMalformedSize) {
  for (const char* bad : {"32x", "0x8", "8x0", "-4x8", "8x-4", "abc", "x8", "x", "", "32x8x2", "32X8", "32*8",
                          "99999999999999999999x2", "2x99999999999999999999", "+4x8", " 4x8", "4x8 ", "4.5x8",
                          "0x0"}) {
    EXPECT_THROW(parse_size2(bad, "--block"), ConfigError) << "'" << bad << "'";
  }
  // The message names the option and the text.
  try {
    parse_size2("32x", "--tile");
    FAIL();
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("--tile"), std::string::npos) << msg;
    EXPECT_NE(msg.find("32x"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
  }
}

TEST(ParseDtype, AcceptsThreeRejectsRest) {
  EXPECT_EQ(parse_dtype("f16"), Dtype::F16);
  EXPECT_EQ(parse_dtype("f32"), Dtype::F32);
  EXPECT_EQ(parse_dtype("f64"), Dtype::F64);
  EXPECT_EQ(dtype_bytes(Dtype::F16), 2);
  EXPECT_EQ(dtype_bytes(Dtype::F64), 8);
  for (const char* bad : {"", "F32", "float", "f8", "f128", "bf16"}) EXPECT_THROW(parse_dtype(bad), ConfigError) << bad;
}

// docs/hardware.md, "Conventions": scalar kernels cover one element per thread, except that BX a multiple of BY loops
// down to a BX x BX tile; vec4 covers 4 along x; reg4x4 covers 4x4.
TEST(Resolve, DefaultTiles) {
  EXPECT_EQ(tile_of(cfg("naive", {2048, 2048}, {8, 32})), (Size2{8, 32}));
  EXPECT_EQ(tile_of(cfg("vec4", {2048, 2048}, {8, 32})), (Size2{32, 32}));
  EXPECT_EQ(tile_of(cfg("reg4x4", {2048, 2048}, {32, 8})), (Size2{128, 32}));
  EXPECT_EQ(tile_of(cfg("reg4x4", {2048, 2048}, {16, 16})), (Size2{64, 64}));
  EXPECT_EQ(tile_of(cfg("naive", {2048, 2048}, {32, 8})), (Size2{32, 32}));
  EXPECT_EQ(tile_of(cfg("padded", {2048, 2048}, {32, 8})), (Size2{32, 32}));
  EXPECT_EQ(tile_of(cfg("padded", {2048, 2048}, {16, 16})), (Size2{16, 16}));
  EXPECT_EQ(tile_of(cfg("copy", {2048, 2048}, {64, 16})), (Size2{64, 64}));
  EXPECT_EQ(tile_of(cfg("naive", {2048, 2048}, {12, 5})), (Size2{12, 5}));
  EXPECT_EQ(tile_of(cfg("vec4_shared", {2048, 2048}, {32, 8})), (Size2{128, 8}));
  EXPECT_TRUE(resolve_launch(cfg("naive")).tile_defaulted);
  UserConfig u = cfg("naive");
  u.tile = Size2{64, 16};
  const LaunchConfig c = resolve_launch(u);
  EXPECT_FALSE(c.tile_defaulted);
  EXPECT_EQ(c.shape.tile_x, 64);
  EXPECT_EQ(c.shape.tile_y, 16);
}

TEST(Resolve, DerivedShape) {
  // padded f32 2048^2, block 32x8: tile 32x32, grid 64x64, row 33, 32 x 33 x 4 = 4224 shared bytes.
  LaunchConfig c = resolve_launch(cfg("padded"));
  EXPECT_EQ(c.shape.grid_x, 64);
  EXPECT_EQ(c.shape.grid_y, 64);
  EXPECT_EQ(c.shape.pad, 1);
  EXPECT_EQ(c.shape.smem_row, 33);
  EXPECT_EQ(c.shared_bytes, 4224);
  EXPECT_EQ(c.warps_per_block(), 8);
  EXPECT_EQ(c.blocks(), 4096);
  // coalesced: no pad; f64 doubles the bytes.
  UserConfig u = cfg("coalesced");
  u.dtype = Dtype::F64;
  c = resolve_launch(u);
  EXPECT_EQ(c.shape.smem_row, 32);
  EXPECT_EQ(c.shared_bytes, 32 * 32 * 8);
  // Partial tiles round the grid up: 1000 x 3000 -> 32 x 94. naive_read lays its tile over the output
  // (3000 columns by 1000 rows) -> 94 x 32.
  c = resolve_launch(cfg("naive", {1000, 3000}));
  EXPECT_EQ(c.shape.grid_x, 32);
  EXPECT_EQ(c.shape.grid_y, 94);
  c = resolve_launch(cfg("naive_read", {1000, 3000}));
  EXPECT_EQ(c.shape.grid_x, 94);
  EXPECT_EQ(c.shape.grid_y, 32);
  // A 12x5 block has 60 threads: 2 warps.
  EXPECT_EQ(resolve_launch(cfg("naive", {64, 64}, {12, 5})).warps_per_block(), 2);
  // No shared tile -> no shared bytes, no row.
  c = resolve_launch(cfg("naive"));
  EXPECT_EQ(c.shared_bytes, 0);
  EXPECT_EQ(c.shape.smem_row, 0);
  // An explicit pad.
  u = cfg("padded");
  u.pad = 4;
  c = resolve_launch(u);
  EXPECT_EQ(c.shape.smem_row, 36);
  EXPECT_EQ(c.shared_bytes, 32 * 36 * 4);
}

void expect_bad(const UserConfig& u, const std::string& why) {
  EXPECT_THROW(resolve_launch(u), ConfigError) << why;
  try {
    resolve_launch(u);
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_FALSE(msg.empty()) << why;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << why << ": one line, got " << msg;
  }
}

TEST(Resolve, RejectsBadLaunches) {
  UserConfig u;

  // More than 1024 threads, or a side over 1024; 32x32 = 1024 is fine.
  expect_bad(cfg("naive", {2048, 2048}, {64, 32}), "2048 threads");
  expect_bad(cfg("naive", {2048, 2048}, {2048, 1}), "block x 2048");
  expect_bad(cfg("naive", {2048, 2048}, {1, 1025}), "block y 1025");
  EXPECT_NO_THROW(resolve_launch(cfg("naive", {2048, 2048}, {32, 32})));
  expect_bad(cfg("naive", {2048, 2048}, {0, 8}), "zero block");
  expect_bad(cfg("naive", {0, 2048}, {32, 8}), "zero matrix");

  // Tile not a multiple of what the block covers in a step.
  u = cfg("naive");
  u.tile = Size2{48, 32};
  expect_bad(u, "tile 48x32 for block 32x8");
  u.tile = Size2{32, 12};
  expect_bad(u, "tile 32x12 for block 32x8");
  u = cfg("vec4");
  u.tile = Size2{64, 8};  // a 32-wide block covers 128 columns with float4
  expect_bad(u, "vec4 tile 64x8");
  u = cfg("reg4x4");
  u.tile = Size2{128, 16};  // 8 rows of threads cover 32 rows
  expect_bad(u, "reg4x4 tile 128x16");
  u.tile = Size2{256, 64};
  EXPECT_NO_THROW(resolve_launch(u));
  u = cfg("naive");
  u.tile = Size2{0, 8};
  expect_bad(u, "zero tile");
  u.tile = Size2{32 * 4096, 8};
  expect_bad(u, "tile wider than 65536");

  // Shared tile too large for 48 KiB: 128 x 128 f32 = 64 KiB; as f16 it is 32 KiB and fits.
  u = cfg("coalesced");
  u.tile = Size2{128, 128};
  expect_bad(u, "128x128 f32 shared tile");
  u.dtype = Dtype::F16;
  EXPECT_NO_THROW(resolve_launch(u));
  u = cfg("padded");
  u.dtype = Dtype::F64;
  u.tile = Size2{96, 96};  // 96 x 97 x 8 = 74,496 B
  expect_bad(u, "96x96 f64 padded tile");
  u.tile = Size2{64, 64};  // 64 x 65 x 8 = 33,280 B
  EXPECT_NO_THROW(resolve_launch(u));
  u.tile = Size2{64, 64};
  u.pad = 64;  // 64 x 128 x 8 = 65,536 B
  expect_bad(u, "pad pushes the tile over the limit");

  // Vector kernels need aligned rows (and columns for reg4x4).
  expect_bad(cfg("vec4", {1001, 1000}), "vec4 width 1001");
  EXPECT_NO_THROW(resolve_launch(cfg("vec4", {1000, 1001})));
  expect_bad(cfg("vec4_shared", {1002, 64}), "vec4_shared width 1002");
  expect_bad(cfg("reg4x4", {1000, 1001}), "reg4x4 height 1001");
  expect_bad(cfg("reg4x4", {1001, 1000}), "reg4x4 width 1001");
  EXPECT_NO_THROW(resolve_launch(cfg("reg4x4", {1000, 1004})));

  // Element counts must fit 32 bits: 65536^2 = 2^32 is one too many; 65535 x 65537 = 2^32 - 1 fits.
  expect_bad(cfg("naive", {65536, 65536}), "2^32 elements");
  expect_bad(cfg("naive", {int64_t(1) << 32, 1}), "width 2^32");
  expect_bad(cfg("naive", {int64_t(1) << 40, int64_t(1) << 40}), "2^80 elements (must not overflow int64)");
  EXPECT_NO_THROW(resolve_launch(cfg("naive", {65535, 65537})));
  // The tiles' area bounds the replay's work: a 32x32 tile over 4294967295 x 1 covers 2^32 x 32 = 2^37
  // elements (refused, over 2^34); the same matrix with 256x1 blocks and 256x1 tiles covers 2^32 (accepted;
  // a 256x1 block alone would default to a 256x256 tile, 2^40).
  expect_bad(cfg("naive", {4294967295LL, 1}), "tiles cover 2^37 elements");
  expect_bad(cfg("naive", {4294967295LL, 1}, {256, 1}), "default 256x256 tiles cover 2^40 elements");
  UserConfig wide = cfg("naive", {4294967295LL, 1}, {256, 1});
  wide.tile = Size2{256, 1};
  EXPECT_NO_THROW(resolve_launch(wide));

  // Grid y over 65535 blocks: 8 x 1,000,000 with 8x8 tiles is 125,000 rows of blocks.
  expect_bad(cfg("naive", {8, 1000000}, {8, 8}), "grid y 125000");
}

std::string message_of(const UserConfig& u) {
  try {
    resolve_launch(u);
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for " << u.kernel;
  return {};
}

TEST(Resolve, SaysWhatToChange) {
  // 2^32 - 1 by 2^32 - 2^16: each side fits, the product (about 1.8e19) overflows int64 if multiplied first.
  EXPECT_NE(message_of(cfg("copy", {4294967295LL, 4294901760LL})).find("more than 2^32-1 elements"), std::string::npos);
  // 2^63 - 1 threads a side: the count is said, not wrapped to a small number.
  const std::string big = message_of(cfg("copy", {64, 64}, {INT64_MAX, INT64_MAX}));
  EXPECT_NE(big.find("e+37 threads"), std::string::npos) << big;
  // A grid too wide needs a wider tile (its x follows the tile's width), too tall a taller one.
  EXPECT_NE(message_of(cfg("copy", {4294967295LL, 1}, {1, 1})).find("wider tile"), std::string::npos);
  EXPECT_NE(message_of(cfg("naive", {8, 1000000}, {8, 8})).find("taller tile"), std::string::npos);
  // A tile the user did not give is said to be the block's default.
  const std::string coarse = message_of(cfg("coarse", {2048, 2048}, {8, 32}));
  EXPECT_NE(coarse.find("the default for block 8x32"), std::string::npos) << coarse;
  UserConfig given = cfg("coarse");
  given.tile = Size2{32, 64};
  EXPECT_EQ(message_of(given).find("default"), std::string::npos);
}

TEST(Resolve, BoundsTheReplaysWork) {
  // One-thread blocks: one lane a warp, so 65537 x 65535 (2^32 - 1 elements) is 2^32 warp steps, over 2^29.
  const std::string msg = message_of(cfg("copy", {65537, 65535}, {1, 1}));
  EXPECT_NE(msg.find("warp steps"), std::string::npos) << msg;
  // 8192^2 with one-thread blocks is 2^26 warp steps: replayed.
  EXPECT_NO_THROW(resolve_launch(cfg("copy", {8192, 8192}, {1, 1})));
  // The same elements in 32x8 blocks: 2^32 / 32 = 2^27 warp steps: replayed.
  EXPECT_NO_THROW(resolve_launch(cfg("copy", {65537, 65535}, {32, 8})));
  // A 65536^2 tile over a 1x1 matrix covers 2^32 elements, 2^32 times the matrix: refused. A 32x32 default
  // tile over it (1024 times, but 1024 elements) is fine, as are ragged edges of ordinary sizes.
  UserConfig huge = cfg("naive", {1, 1}, {32, 32});
  huge.tile = Size2{65536, 65536};
  EXPECT_NE(message_of(huge).find("times the matrix"), std::string::npos);
  EXPECT_NO_THROW(resolve_launch(cfg("naive", {1, 1}, {32, 32})));
  EXPECT_NO_THROW(resolve_launch(cfg("naive", {1001, 777}, {32, 8})));
}

TEST(Resolve, RejectsBadKernelTiles) {
  UserConfig u;
  // swizzle: tile width must be a power of two.
  expect_bad(cfg("swizzle", {2048, 2048}, {24, 8}), "swizzle 24x24");
  u = cfg("swizzle");
  u.tile = Size2{96, 32};
  expect_bad(u, "swizzle tile 96 wide");
  u.tile = Size2{64, 32};
  EXPECT_NO_THROW(resolve_launch(u));

  // coarse / fine: square tiles, whole tiles.
  u = cfg("coarse");
  u.tile = Size2{32, 64};
  expect_bad(u, "coarse non-square tile");
  expect_bad(cfg("coarse", {100, 64}), "coarse 100 wide, partial tiles");
  expect_bad(cfg("fine", {64, 100}), "fine 100 high, partial tiles");
  expect_bad(cfg("fine", {2048, 2048}, {8, 32}), "fine default tile 8x32 is not square");
  EXPECT_NO_THROW(resolve_launch(cfg("coarse", {64, 96})));

  // --pad only with a shared tile, and in [0, 64].
  for (const char* k : {"naive", "copy", "naive_read", "vec4", "reg4x4"}) {
    u = cfg(k);
    u.pad = 1;
    expect_bad(u, std::string("--pad on ") + k);
  }
  u = cfg("padded");
  u.pad = 65;
  expect_bad(u, "pad 65");
  u.pad = -1;
  expect_bad(u, "pad -1");
  u.pad = 0;
  EXPECT_NO_THROW(resolve_launch(u));

  expect_bad(cfg("transpose"), "unknown kernel");
  expect_bad(cfg(""), "empty kernel name");
  expect_bad(cfg("Padded"), "kernel names are case-sensitive");
}

TEST(Resolve, EveryKernelResolvesWithDefaults) {
  // The seed articles' kernels and any added since, each legal at the CLI defaults (2048x2048 f32, block 32x8)
  // on the default device, whose blocks may opt in to 227 KiB of shared memory (best's default 128x128 f32
  // tile there takes 64 KiB).
  std::vector<std::string> names = {"copy", "copy_shared", "naive",  "naive_read", "coalesced",
                                    "padded", "diagonal",  "coarse", "fine",       "swizzle",
                                    "vec4", "vec4_shared", "reg4x4", "best"};
  for (const KernelInfo& k : kernel_suite())
    if (std::find(names.begin(), names.end(), k.name) == names.end()) names.push_back(k.name);
  ASSERT_EQ(kernel_suite().size(), names.size());
  LaunchLimits h100;
  h100.max_shared_per_block = 232448;
  for (const std::string& n : names) {
    ASSERT_NE(find_kernel(n), nullptr) << n;
    EXPECT_NO_THROW(resolve_launch(cfg(n), h100)) << n;
  }
  // Under the 48 KiB every device gives without opting in, best's default tile is refused with the reason.
  try {
    resolve_launch(cfg("best"));
    ADD_FAILURE() << "best's 64 KiB tile accepted under a 48 KiB limit";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("65536 bytes per block"), std::string::npos) << e.what();
  }
  EXPECT_EQ(find_kernel("nope"), nullptr);
}

}  // namespace
}  // namespace memsim
