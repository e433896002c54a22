#include "kernels/resolve.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

#include "kernels/registry.hpp"

namespace memsim {
namespace {

std::string fail_size(std::string_view text, std::string_view what, const char* why) {
  std::ostringstream os;
  os << "invalid " << what << " '" << text << "': " << why << " (expected WxH with positive integers, e.g. 32x8)";
  return os.str();
}

int64_t parse_positive(std::string_view part, std::string_view text, std::string_view what) {
  if (part.empty()) throw ConfigError(fail_size(text, what, "a side is missing"));
  if (part.front() == '-') throw ConfigError(fail_size(text, what, "sizes must be positive"));
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
  if (ec == std::errc::result_out_of_range) throw ConfigError(fail_size(text, what, "a side is too large"));
  if (ec != std::errc() || end != part.data() + part.size())
    throw ConfigError(fail_size(text, what, "not a number"));
  if (v <= 0) throw ConfigError(fail_size(text, what, "sizes must be positive"));
  return v;
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

[[noreturn]] void fail(const std::string& msg) { throw ConfigError(msg); }

}  // namespace

const char* storage_type(Dtype d) { return d == Dtype::F16 ? "uint16_t" : d == Dtype::F32 ? "float" : "double"; }
Dtype parse_dtype(std::string_view text) {
  if (text == "f16") return Dtype::F16;
  if (text == "f32") return Dtype::F32;
  if (text == "f64") return Dtype::F64;
  fail("invalid --dtype '" + std::string(text) + "': expected f16, f32 or f64");
}

Size2 parse_size2(std::string_view text, std::string_view what) {
  const size_t x = text.find('x');
  if (x == std::string_view::npos) throw ConfigError(fail_size(text, what, "no 'x' between the two sides"));
  return {parse_positive(text.substr(0, x), text, what), parse_positive(text.substr(x + 1), text, what)};
}

std::string format_size2(Size2 s) { return std::to_string(s.x) + "x" + std::to_string(s.y); }

Size2 default_tile(const KernelInfo& k, Size2 block, Dtype dtype) {
  // Blocks past an int's range are refused later (they exceed every device's threads a block).
  if (block.x > 65536 || block.y > 65536) return block;
  const TileExtent t = default_tile_extent(k, int(block.x), int(block.y), dtype_bytes(dtype));
  return {t.x, t.y};
}

LaunchConfig resolve_launch(const UserConfig& user, const LaunchLimits& limits) {
  const KernelInfo* k = find_kernel(user.kernel);
  if (!k) fail("unknown kernel '" + user.kernel + "' (memsim --list-kernels lists the suite)");
  const Size2 m = user.matrix, b = user.block;
  for (const Size2* s : {&m, &b})
    if (s->x <= 0 || s->y <= 0) fail("sizes must be positive, got " + format_size2(*s));

  constexpr int64_t kMaxElements = 4294967295LL;  // 2^32 - 1: element counts must fit 32 bits unsigned
  // Each side first, then the product by division: W x H of two 32-bit sides can overflow 64 bits.
  if (m.x > kMaxElements || m.y > kMaxElements || m.x > kMaxElements / m.y) {
    std::ostringstream os;
    os << "matrix " << format_size2(m) << " has more than 2^32-1 elements (" << double(m.x) * double(m.y)
       << "), the largest memsim supports";
    fail(os.str());
  }
  if (b.x > limits.max_block_x || b.y > limits.max_block_y || b.x > limits.max_threads_per_block / b.y) {
    std::ostringstream os;
    os << "block " << format_size2(b) << " has " << double(b.x) * double(b.y) << " threads; at most "
       << limits.max_threads_per_block << " per block (" << limits.max_block_x << " along x, "
       << limits.max_block_y << " along y)";
    fail(os.str());
  }

  LaunchConfig cfg;
  cfg.kernel = k;
  cfg.dtype = user.dtype;
  cfg.tile_defaulted = !user.tile.has_value();
  const Size2 t = user.tile ? *user.tile : default_tile(*k, b, user.dtype);
  // Errors about the tile say where it came from: a user who gave no --tile gets the block's default.
  const std::string tile_text =
      "tile " + format_size2(t) + (user.tile ? std::string() : " (the default for block " + format_size2(b) + "; --tile sets another)");
  if (t.x <= 0 || t.y <= 0) fail("tile sizes must be positive, got " + format_size2(t));
  if (t.x > 65536 || t.y > 65536) fail("tile " + format_size2(t) + " is too large (at most 65536 a side)");

  // Each thread of the block covers the same number of footprints of the tile.
  const TileExtent step = footprint_extent(*k, dtype_bytes(user.dtype));
  if (t.x % (step.x * b.x) != 0 || t.y % (step.y * b.y) != 0) {
    std::ostringstream os;
    os << tile_text << " is not a multiple of what block " << format_size2(b) << " covers in one step ("
       << step.x * b.x << "x" << step.y * b.y << ") for kernel " << k->name;
    fail(os.str());
  }
  if (k->square_tile_only) {
    if (t.x != t.y) fail(std::string("kernel ") + k->name + " needs a square tile, got " + tile_text);
    if (m.x % t.x != 0 || m.y % t.y != 0)
      fail(std::string("kernel ") + k->name + " is defined only on matrices made of whole tiles: " +
           format_size2(m) + " is not a multiple of " + tile_text);
  }
  if (k->square_tile && t.x != t.y)
    fail(std::string("kernel ") + k->name + " keeps its tile transposed in a square shared array, so the tile must be square, got " +
         tile_text);
  if (k->pow2_tile_x && !is_pow2(t.x))
    fail(std::string("kernel ") + k->name + " swizzles within a tile row, so tile width must be a power of two, got " +
         tile_text);
  // Chunk16 kernels read rows and write columns in 16-byte pieces, their footprint's side: both sides a
  // multiple of a piece.
  const bool chunked = k->footprint == Footprint::Chunk16;
  const int width_multiple = chunked ? step.x : k->width_multiple;
  const int height_multiple = chunked ? step.y : k->height_multiple;
  if (m.x % width_multiple != 0 || m.y % height_multiple != 0) {
    std::ostringstream os;
    os << "kernel " << k->name << " makes " << width_multiple * dtype_bytes(user.dtype)
       << "-byte vector accesses along rows";
    if (height_multiple > 1) os << " and columns";
    os << ", which stay aligned only if the matrix width";
    if (height_multiple > 1) os << " and height";
    os << " are multiples of " << width_multiple << "; got " << format_size2(m);
    fail(os.str());
  }

  int pad = 0;
  if (user.pad) {
    if (!k->uses_shared_tile) fail(std::string("--pad applies only to shared-tile kernels; ") + k->name + " has none");
    if (*user.pad < 0 || *user.pad > 64) fail("--pad must be between 0 and 64, got " + std::to_string(*user.pad));
    pad = *user.pad;
    if (chunked && pad % step.x != 0)
      fail(std::string("kernel ") + k->name + " accesses its shared tile in 16-byte pieces, so --pad must be a multiple of " +
           std::to_string(step.x) + " " + dtype_name(user.dtype) + " elements (16 bytes), got " + std::to_string(pad));
  } else if (k->uses_shared_tile) {
    pad = k->default_pad;
  }

  LaunchShape& s = cfg.shape;
  s.width = m.x;
  s.height = m.y;
  s.block_x = int(b.x);
  s.block_y = int(b.y);
  s.tile_x = int(t.x);
  s.tile_y = int(t.y);
  s.pad = pad;
  s.smem_row = k->uses_shared_tile ? int(t.x) + pad : 0;
  fill_tile_walks(s);
  // naive_read lays its tiles over the output, whose columns are the input's rows.
  const int64_t gx = k->tile_over_output ? ceil_div(m.y, t.x) : ceil_div(m.x, t.x);
  const int64_t gy = k->tile_over_output ? ceil_div(m.x, t.y) : ceil_div(m.y, t.y);
  if (gx > limits.max_grid_x || gy > limits.max_grid_y) {
    // The grid's x follows the tile's width, its y the tile's height (for naive_read too, over the output).
    const bool x_over = gx > limits.max_grid_x, y_over = gy > limits.max_grid_y;
    const char* side = x_over && y_over ? "larger" : x_over ? "wider" : "taller";
    std::ostringstream os;
    os << "grid " << gx << "x" << gy << " exceeds the device's " << limits.max_grid_x << "x" << limits.max_grid_y
       << " blocks; use a " << side << " tile (--tile)";
    fail(os.str());
  }
  s.grid_x = int(gx);
  s.grid_y = int(gy);
  // The replay visits every warp of every step of every block, so its work is the area the tiles cover, not
  // the matrix's, in warps: a tile far from the matrix's shape (a 32x32 tile over a 4294967295x1 matrix covers
  // 32 times the matrix), or blocks of a few threads (one lane a warp: 32 times the warps), would replay for
  // hours: refuse it with the reason instead. 2^29 warp steps take a few minutes; the suite's largest
  // (65536 x 65535 f32 with 32x8 blocks) is 2^27.
  constexpr double kMaxWarpSteps = double(int64_t(1) << 29);
  const double covered = double(gx) * double(gy) * double(t.x) * double(t.y);
  const double threads = double(b.x) * double(b.y);
  const double warp_steps = covered / threads * std::ceil(threads / 32.0);
  if (warp_steps > kMaxWarpSteps) {
    std::ostringstream os;
    os << "this launch replays " << warp_steps << " warp steps (its tiles cover " << covered << " elements, "
       << covered / double(m.x * m.y) << " times the matrix, in warps of " << std::min(threads, 32.0)
       << (threads == 1 ? " thread" : " threads") << "), more than memsim replays (2^29); choose a larger block, or a tile closer to the matrix's shape";
    fail(os.str());
  }
  // Tiles far larger than a matrix of some size mostly replay lanes outside it: refuse those too (a 65536x65536
  // tile over a 1x1 matrix would take half a minute to say nothing).
  constexpr double kMaxOvercover = 64, kSmallCover = double(int64_t(1) << 24);
  if (covered > kSmallCover && covered > kMaxOvercover * double(m.x * m.y)) {
    std::ostringstream os;
    os << "the tiles of this launch cover " << covered << " elements, " << covered / double(m.x * m.y)
       << " times the matrix; choose a tile closer to the matrix's shape";
    fail(os.str());
  }

  if (k->uses_shared_tile) {
    cfg.shared_bytes = int64_t(s.tile_y) * s.smem_row * dtype_bytes(user.dtype);
    if (cfg.shared_bytes > limits.max_shared_per_block) {
      std::ostringstream os;
      os << "the shared copy of " << tile_text << " with " << pad << " padding element" << (pad == 1 ? "" : "s")
         << " a row (" << s.tile_y << " rows of " << s.smem_row << " " << dtype_name(user.dtype) << ") needs "
         << cfg.shared_bytes << " bytes per block; the device allows " << limits.max_shared_per_block;
      fail(os.str());
    }
  }
  return cfg;
}

std::optional<LaunchConfig> try_resolve_launch(const UserConfig& user, const LaunchLimits& limits) {
  try {
    return resolve_launch(user, limits);
  } catch (const ConfigError&) {
    return std::nullopt;
  }
}

}  // namespace memsim
