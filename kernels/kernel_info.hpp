#pragma once
// What the rest of memsim may know about a kernel besides its body: its name, the sites of its accesses, and
// the constraints its launch must meet. Addresses stay in the body.
#include <cstddef>

#include "kernels/site.hpp"

namespace memsim {

// How a thread's natural footprint sets the default tile (docs/hardware.md, "Conventions").
enum class Footprint {
  Scalar,  // one element; scalar kernels whose BX is a multiple of BY loop down to a BX x BX tile
  Vec4X,   // four consecutive elements along x
  Reg4x4,  // a 4x4 sub-block
  Chunk16,  // an E x E sub-block of E = 16 / element bytes (16-byte rows): 4x4 f32, 2x2 f64, 8x8 f16
  Elements,  // any: KernelInfo::footprint_x x footprint_y elements (with_footprint below)
};

// Elements in one 16-byte chunk of a row: the side of a Chunk16 footprint.
constexpr int chunk16_elems(int elem_bytes) { return 16 / elem_bytes; }

// What the output holds, for the reference check and the output's shape.
enum class OutputKind {
  Copy,       // out = in, W columns by H rows
  Transpose,  // out = in^T, H columns by W rows
  TilesMoved,       // coarse: each tile copied unchanged to its transposed position (H columns by W rows)
  TilesTransposed,  // fine: each tile transposed in place (W columns by H rows)
};

// The default tile of a block: one footprint a thread, except that scalar kernels whose BX is a
// multiple of BY loop down the rows to a BX x BX tile, as the whitepaper's 32x8 block covers 32x32, and
// Chunk16 kernels, whose shared tile is square, cover E x max(BX, BY) a side.
struct TileExtent {
  int x = 0, y = 0;
};
// The elements one thread covers in one step: columns x rows of its footprint.
constexpr TileExtent footprint_extent(Footprint f, int elem_bytes) {
  switch (f) {
    case Footprint::Vec4X: return {4, 1};
    case Footprint::Reg4x4: return {4, 4};
    case Footprint::Chunk16: return {chunk16_elems(elem_bytes), chunk16_elems(elem_bytes)};
    case Footprint::Scalar:
    case Footprint::Elements: break;  // its extent is the KernelInfo's (below)
  }
  return {1, 1};
}
constexpr TileExtent default_tile_extent(Footprint f, int bx, int by, int elem_bytes) {
  const TileExtent step = footprint_extent(f, elem_bytes);
  if (f == Footprint::Chunk16) {
    const int side = step.x * (bx > by ? bx : by);
    return {side, side};
  }
  if (f == Footprint::Scalar && bx % by == 0) return {bx, bx};
  return {step.x * bx, step.y * by};
}

struct KernelInfo;
constexpr TileExtent footprint_extent(const KernelInfo& k, int elem_bytes);
constexpr TileExtent default_tile_extent(const KernelInfo& k, int bx, int by, int elem_bytes);

struct KernelInfo {
  const char* name;
  const char* summary;  // one line for --list-kernels
  const char* seed;     // where the kernel comes from
  Footprint footprint;
  OutputKind output;
  const SiteInfo* sites;
  int num_sites;
  bool uses_shared_tile = false;  // a tile_y x (tile_x + pad) shared array
  int default_pad = 0;
  bool tile_over_output = false;    // the grid is laid over the output (naive_read, best): blockIdx.x walks output columns
  bool square_tile_only = false;    // coarse and fine: only square tiles on matrices that are whole tiles
  bool square_tile = false;         // the shared tile is kept transposed in a square (any matrix)
  bool pow2_tile_x = false;         // swizzle: the XOR must stay inside the tile row
  int width_multiple = 1;           // vector accesses along x need W to be a multiple of this
  int height_multiple = 1;          // ... and along y (reg4x4 stores columns as vectors)
  bool diagonal_blocks = false;     // block indices reinterpreted diagonally (for reports only)
  // Footprint::Elements: the elements one thread covers in one step, columns x rows, and whether the block
  // loops down the rows to a square tile of footprint_x * BX a side (where footprint_y * BY divides it), as
  // the scalar kernels do; without, the default tile is footprint_x * BX by footprint_y * BY.
  int footprint_x = 1, footprint_y = 1;
  bool loops_to_square_tile = false;
  // A kernel file's claim that every address has the form sim/block_classes.hpp's proof needs (global offsets
  // A * col0 + B * row0 + g(thread, step) from tile_origin, shared ones g'(thread, step)): its launches are
  // then replayed by block classes, each class checked on two of its blocks. The suite's are listed there.
  bool blocks_translate = false;
};

// A kernel's footprint for any vector width: `k` with Footprint::Elements of x by y elements a thread, e.g. a
// float2 kernel's with_footprint(k, 2, 1, true) (docs/kernel_interface.md).
constexpr KernelInfo with_footprint(KernelInfo k, int x, int y, bool loops_to_square_tile = false) {
  k.footprint = Footprint::Elements;
  k.footprint_x = x;
  k.footprint_y = y;
  k.loops_to_square_tile = loops_to_square_tile;
  return k;
}

constexpr TileExtent footprint_extent(const KernelInfo& k, int elem_bytes) {
  if (k.footprint == Footprint::Elements) return {k.footprint_x, k.footprint_y};
  return footprint_extent(k.footprint, elem_bytes);
}
constexpr TileExtent default_tile_extent(const KernelInfo& k, int bx, int by, int elem_bytes) {
  if (k.footprint != Footprint::Elements) return default_tile_extent(k.footprint, bx, by, elem_bytes);
  const int side = k.footprint_x * bx;
  if (k.loops_to_square_tile && side % (k.footprint_y * by) == 0) return {side, side};
  return {k.footprint_x * bx, k.footprint_y * by};
}

template <class K>
constexpr int num_sites_of() {
  return int(sizeof(K::kSites) / sizeof(K::kSites[0]));
}

}  // namespace memsim
