#pragma once
#include "kernels/kernel_info.hpp"
#include "kernels/tiles.hpp"

namespace memsim::suite {

// Shared-memory tile without padding: both global sides coalesced, but a warp reads a tile column, and with a
// 32-element row every lane of it lands in the same bank (32-way conflict for f32).
struct Coalesced {
  enum Site { kLoadIn, kStoreTile, kLoadTile, kStoreOut };
  static constexpr SiteInfo kSites[] = {
      {"ld in", Space::Global, Op::Load, "in[(row0 + r) * W + col0 + c]"},
      {"st tile", Space::Shared, Op::Store, "tile[r][c]"},
      {"ld tile", Space::Shared, Op::Load, "tile[c][r]"},
      {"st out", Space::Global, Op::Store, "out[(col0 + r) * H + row0 + c]"},
  };
  static constexpr KernelInfo info() {
    KernelInfo k{"coalesced", "shared tile, no padding: coalesced both ways, bank-conflicting column reads",
                 "whitepaper; seeds 002 step 2, 000", Footprint::Scalar, OutputKind::Transpose, kSites,
                 num_sites_of<Coalesced>()};
    k.uses_shared_tile = true;
    return k;
  }
  template <class Mem, class Shape, class Thread>
  MEMSIM_HD static void body(Mem& m, const Shape& s, const Thread& t) {
    const auto o = tile_origin(s, t.block_x, t.block_y);
    transpose_through_tile<Coalesced>(m, s, o, t, PlainColumns{});
  }
};

// The same kernel with each tile row padded (default one element): a column walk now steps across banks.
struct Padded : Coalesced {
  static constexpr KernelInfo info() {
    KernelInfo k{"padded", "shared tile + 1 column: coalesced both ways, no bank conflicts (f32; f16 keeps 2-way)",
                 "whitepaper; seeds 002 step 3, 000, 004", Footprint::Scalar, OutputKind::Transpose, kSites,
                 num_sites_of<Coalesced>()};
    k.uses_shared_tile = true;
    k.default_pad = 1;
    return k;
  }
};

// Padded, with the whitepaper's diagonal block reordering against partition camping.
struct Diagonal : Coalesced {
  static constexpr KernelInfo info() {
    KernelInfo k{"diagonal", "padded tile, blocks reordered along diagonals (against partition camping)",
                 "whitepaper", Footprint::Scalar, OutputKind::Transpose, kSites,
                 num_sites_of<Coalesced>()};
    k.uses_shared_tile = true;
    k.default_pad = 1;
    k.diagonal_blocks = true;
    return k;
  }
  template <class Mem, class Shape, class Thread>
  MEMSIM_HD static void body(Mem& m, const Shape& s, const Thread& t) {
    const auto o = diagonal_tile_origin(s, t.block_x, t.block_y);
    transpose_through_tile<Coalesced>(m, s, o, t, PlainColumns{});
  }
};

// XOR swizzle instead of padding: element (r, c) lives at column c ^ (r mod tile_x), so neither a row nor a
// column walk repeats a bank, and the tile keeps its power-of-two row.
struct Swizzle : Coalesced {
  static constexpr KernelInfo info() {
    KernelInfo k{"swizzle", "XOR-swizzled shared tile, no padding, no bank conflicts (f32)",
                 "beyond the seeds (CuTe-style swizzle)", Footprint::Scalar, OutputKind::Transpose, kSites,
                 num_sites_of<Coalesced>()};
    k.uses_shared_tile = true;
    k.pow2_tile_x = true;
    return k;
  }
  template <class Mem, class Shape, class Thread>
  MEMSIM_HD static void body(Mem& m, const Shape& s, const Thread& t) {
    const auto o = tile_origin(s, t.block_x, t.block_y);
    const XorColumns columns{s.tile_x};
    transpose_through_tile<Coalesced>(m, s, o, t, columns);
  }
};

}  // namespace memsim::suite
