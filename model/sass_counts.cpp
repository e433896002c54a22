#include "model/sass_counts.hpp"

#include <cstring>
#include <vector>

#include "kernels/static_dispatch.hpp"
#include "kernels/suite.hpp"
#include "sim/replay.hpp"
#include "sim/tally.hpp"

namespace memsim {
namespace {

constexpr SassPathCounts kTable[] = {
#include "model/sass_counts.inc"
};

// Whether the GPU runs cfg with a static shape: the same dispatch the GPU launcher makes.
bool runs_static(const LaunchConfig& cfg) {
#define MEMSIM_STATIC_KIND(K)                                  \
  if (std::strcmp(cfg.kernel->name, suite::K::info().name) == 0) \
    return std::strcmp(shape_kind<suite::K>(cfg), "static") == 0;
  MEMSIM_KERNEL_SUITE(MEMSIM_STATIC_KIND)
#undef MEMSIM_STATIC_KIND
  return false;
}

}  // namespace

const SassPathCounts* sass_path_counts(const LaunchConfig& cfg) {
  if (!cfg.kernel || !runs_static(cfg)) return nullptr;
  for (const SassPathCounts& row : kTable)
    if (std::strcmp(row.kernel, cfg.kernel->name) == 0 && row.dtype == cfg.dtype &&
        row.block_x == cfg.shape.block_x && row.block_y == cfg.shape.block_y)
      return &row;
  return nullptr;
}

std::optional<SassEstimate> sass_instruction_estimate(const LaunchConfig& cfg) {
  const SassPathCounts* row = sass_path_counts(cfg);
  if (!row) return std::nullopt;
  const LaunchShape& s = cfg.shape;
  // The tile lies over the output for naive_read: its columns are the input's rows (kernels/suite/naive_read.hpp).
  const int64_t cols = cfg.kernel->tile_over_output ? s.height : s.width;
  const int64_t rows = cfg.kernel->tile_over_output ? s.width : s.height;
  SassEstimate e;
  // Diagonal's reordering is a bijection of tiles: as many lie inside as in launch order.
  e.inner_blocks = (cols / s.tile_x) * (rows / s.tile_y);
  e.edge_blocks = cfg.blocks() - e.inner_blocks;
  const int warps = cfg.warps_per_block();
  if (e.inner_blocks > 0 && row->inner_exit < row->inner) {
    // Block 0's tile is the matrix's first (every kernel's order, diagonal's too), inside when any tile is.
    const int last_site = cfg.kernel->num_sites - 1;
    std::vector<bool> reaches_last(size_t(warps), false);
    Tally findings(cfg.kernel->num_sites);
    for_each_warp_access(cfg, 0, 1, Recorders::Counting,
                         [&](int64_t, int warp, const WarpAccess& a) {
                           if (a.site == last_site && a.mask) reaches_last[size_t(warp)] = true;
                         },
                         findings);
    for (bool r : reaches_last) e.early_exit_warps_per_block += r ? 0 : 1;
  }
  const bool square = s.grid_x == s.grid_y;
  const double inner = square ? row->square : row->inner, exit = square ? row->square_exit : row->inner_exit;
  const double edge = square ? row->edge_square : row->edge;
  e.instructions = double(e.inner_blocks) * (warps * inner - e.early_exit_warps_per_block * (inner - exit)) +
                   double(e.edge_blocks) * warps * edge;
  return e;
}

}  // namespace memsim
