#include "codegen/launch_instructions.hpp"

#include <cstring>
#include <vector>

#include "kernels/static_shape.hpp"

namespace memsim {
namespace {

struct TableRow {
  const char* kernel;
  Dtype dtype;
  int block_x, block_y;
  SassPaths paths;
};

constexpr TableRow kTable[] = {
#include "codegen/sass_table.inc"
};

// Whether cfg is an instantiation the table holds: the kernel's default tile and pad (the table's rows are
// found by block below), with 32-bit indices.
bool in_table_shape(const LaunchConfig& cfg) {
  const KernelInfo& k = *cfg.kernel;
  const LaunchShape& s = cfg.shape;
  const Size2 tile = default_tile(k, {s.block_x, s.block_y}, cfg.dtype);
  const int smem_row = k.uses_shared_tile ? int(tile.x) + k.default_pad : 0;
  return s.tile_x == tile.x && s.tile_y == tile.y && s.smem_row == smem_row &&
         fits_32bit_index(s.width, s.height, s.tile_x, s.tile_y);
}

}  // namespace

const char* const kSassTableToolkit = "nvcc 13.0.88 for sm_90";

const SassPaths* shipped_sass_paths(const LaunchConfig& cfg) {
  if (!cfg.kernel || !in_table_shape(cfg)) return nullptr;
  for (const TableRow& row : kTable)
    if (std::strcmp(row.kernel, cfg.kernel->name) == 0 && row.dtype == cfg.dtype &&
        row.block_x == cfg.shape.block_x && row.block_y == cfg.shape.block_y)
      return &row.paths;
  return nullptr;
}

LaunchInstructions launch_instructions(const LaunchConfig& cfg, const SassPaths& p, int early_exit_warps) {
  const LaunchShape& s = cfg.shape;
  // The tile lies over the output for naive_read: its columns are the input's rows (kernels/suite/naive_read.hpp).
  const int64_t cols = cfg.kernel->tile_over_output ? s.height : s.width;
  const int64_t rows = cfg.kernel->tile_over_output ? s.width : s.height;
  LaunchInstructions e;
  // Diagonal's reordering is a bijection of tiles: as many lie inside as in launch order.
  e.inner_blocks = (cols / s.tile_x) * (rows / s.tile_y);
  e.edge_blocks = cfg.blocks() - e.inner_blocks;
  const int warps = cfg.warps_per_block();
  // Block 0's tile is the matrix's first (every kernel's order, diagonal's too), inside when any tile is.
  if (e.inner_blocks > 0 && p.inner_exit < p.inner) e.early_exit_warps_per_block = early_exit_warps;
  const bool square = s.grid_x == s.grid_y;
  const double inner = square ? p.square : p.inner, exit = square ? p.square_exit : p.inner_exit;
  const double edge = square ? p.edge_square : p.edge;
  e.instructions = double(e.inner_blocks) * (warps * inner - e.early_exit_warps_per_block * (inner - exit)) +
                   double(e.edge_blocks) * warps * edge;
  return e;
}

}  // namespace memsim
