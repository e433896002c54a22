#include "sim/launch_counts.hpp"

#include <algorithm>

namespace memsim {

KernelCounts launch_counts(const ReplayResult& r, bool cached) {
  const LaunchConfig& cfg = r.config;
  const KernelInfo& k = *cfg.kernel;
  KernelCounts c;
  c.blocks = cfg.blocks();
  c.threads_per_block = cfg.threads_per_block();
  c.shared_bytes_per_block = cfg.shared_bytes;
  c.useful_bytes = 2.0 * double(cfg.elements()) * dtype_bytes(cfg.dtype);
  c.source_operations = double(r.lane_operations);
  for (int i = 0; i < 2; ++i) c.runtime_divisions[i] = double(r.runtime_divisions[i]);
  c.barriers_per_block = double(r.barriers_per_thread);
  c.partial_lines_per_block = r.partial_lines_per_block;
  c.partial_line_rounds = std::max(1, r.closed_line_rounds);
  c.lines_completed_by_one_warp_per_block = double(r.lines_completed_by_one_warp_per_block);
  c.next_store_pair_share = r.next_store_pair_share;
  c.partial_line_open_rounds = r.partial_line_open_rounds;
  c.lines_open_at_once_per_block = r.lines_open_at_once_per_block;
  c.pieces_per_held_sector = r.pieces_per_held_sector;
  c.whole_lines_open_at_once_per_block = r.whole_lines_open_at_once_per_block;
  c.lone_sector_lines_open_at_once_per_block = r.lone_sector_lines_open_at_once_per_block;
  c.whole_sectors_held_over_rounds = double(r.whole_sectors_held_over_rounds_per_block) * double(r.config.blocks());
  c.lone_sectors_held_over_rounds = double(r.lone_sectors_held_over_rounds_per_block) * double(r.config.blocks());
  c.whole_line_rounds_apart = r.whole_line_rounds_apart;
  const double lines = double(r.lines_held_over_rounds + r.lines_closed_in_round);
  c.held_line_share = lines > 0 ? double(r.lines_held_over_rounds) / lines : 0.0;
  c.split_sectors = double(r.split_sectors_per_block) * double(r.config.blocks());
  c.split_lines = r.split_line_share_per_block * double(r.config.blocks());
  c.sectors_from_warps = double(r.sectors_from_warps_per_block) * double(r.config.blocks());
  c.sectors_from_warps_in_one_round = double(r.sectors_from_warps_in_one_round_per_block) * double(r.config.blocks());
  c.split_log2_distance = r.split_log2_distance;
  c.split_line_whole_share = r.split_line_whole_share;
  c.split_lane_bytes = r.split_lane_bytes;
  if (cached) c.l2_read_requests = r.l2_read_requests_per_block * double(r.config.blocks());
  c.l2_hit_load_share = r.l2_hit_load_share;
  c.dram_scattered[0] = r.dram_scattered[0];
  c.dram_scattered[1] = r.dram_scattered[1];
  constexpr double kSector = 32;
  for (int i = 0; i < k.num_sites; ++i) {
    const SiteInfo& site = k.sites[i];
    const SiteCounts& s = r.sites[i];
    c.memory_instructions += double(s.instructions);
    if (site.space == Space::Shared) {
      c.shared_wavefronts += double(s.wavefronts);
      c.shared_conflict_wavefronts += double(s.bank_conflicts());
      continue;
    }
    if (!cached) {
      (site.op == Op::Load ? c.dram_read_bytes : c.dram_write_bytes) += double(s.sectors) * kSector;
      if (site.op == Op::Load) c.global_load_instructions += double(s.instructions);
      continue;
    }
    // A store request writes a sector in part when its lanes carry fewer of the sector's bytes than it holds; it
    // writes its other sectors whole, and those cost what a whole sector's write costs wherever they lie (a warp
    // across two rows of a tile 34 wide writes 8 sectors of the row whole and one in part). Under the CC 1.x
    // rules (no per-sector count) a site is partial when its sectors carry fewer bytes than they hold. The
    // microbenchmark records read the same way: their partial stores write every sector in part
    // (lab/calibration/microbench_records.cpp).
    c.l1_global_wavefronts += double(s.l1_wavefronts);
    if (site.op == Op::Load) {
      c.global_load_instructions += double(s.instructions);
      c.global_load_lines += double(s.lines);
      c.l2_load_sectors += double(s.ideal_sectors);
      c.dram_read_bytes += double(s.ideal_sectors) * kSector;
    } else {
      const bool cc1x = s.transactions > 0;
      const bool scattered = s.sectors > s.ideal_sectors || double(s.bytes) < double(s.sectors) * kSector;
      const double partial_sectors = cc1x ? (scattered ? double(s.sectors) : 0.0) : double(s.partial_sectors);
      const double whole_sectors = double(s.sectors) - partial_sectors;
      if (partial_sectors > 0) {
        const double bytes = double(s.bytes) - whole_sectors * kSector;
        const double requests = cc1x ? double(s.lines) : double(s.partial_lines);
        const double lane_bytes = s.lane_accesses ? double(s.bytes) / double(s.lane_accesses) : 4.0;
        const int cls = partial_store_class(lane_bytes, bytes / partial_sectors);
        c.partial_store_requests[cls] += requests;
        c.partial_store_bytes[cls] += bytes;
        c.partial_store_sectors += partial_sectors;
        const bool half_sectors = bytes >= 16.0 * partial_sectors;
        if (half_sectors) c.half_sector_piece_bytes += bytes;
        if (lane_bytes <= 2.5 && bytes >= 8.0 * partial_sectors) c.narrow_lane_piece_bytes += bytes;
        if (half_sectors && cls == kLanes4) c.lane4_half_sector_bytes += bytes;
      }
      c.l2_store_sectors += whole_sectors;
      // DRAM writes each sector once, whoever completes it: the bytes stored (every output byte is stored once).
      // Counting each request's fewest sectors instead charged a sector twice when two requests write its halves
      // (vec4_shared f16 32x8: 268 MB for a 134 MB matrix; ncu dram__bytes_write.sum: 130 MB).
      c.dram_write_bytes += double(s.bytes);
      c.l2_write_slots += double(s.lines) + double(s.sectors);
      c.global_store_instructions += double(s.instructions);
    }
  }
  const double warps = c.warps();
  const double loads_per_warp = warps > 0 ? c.global_load_instructions / warps : 0;
  double in_flight = 1;
  if (k.uses_shared_tile) {
    // A run-time shape. A staging step loads and stores its values to shared memory. The walks' step counts
    // are launch values, so nvcc unrolls only the inner (column) walk, by 4, and batches loads across steps
    // only there (cuobjdump -sass of the suite, sm_90, CUDA 13.0: 2 to 4 steps' loads before the first
    // shared store);
    // with fewer than 4 column steps (the default tiles: a 32x32 tile under 32x8 walks 4 rows of 1 column)
    // each step's shared stores wait for its loads before the next step's loads issue. A vec4 row of f64 is
    // two 16-byte loads, both issued before the stores.
    const TileWalk& stage = k.footprint == Footprint::Vec4X ? cfg.shape.walk_row_quads : cfg.shape.walk_tile;
    const double per_step = k.footprint == Footprint::Vec4X ? std::max(1, 4 * dtype_bytes(cfg.dtype) / 16) : 1;
    in_flight = std::min(loads_per_warp, stage.col_steps >= 4 ? 2 * per_step : per_step);
  } else if (k.footprint == Footprint::Reg4x4) {
    // 4 rows of 4 elements, each row in 16-byte pieces: all of one step's pieces before the first store.
    const int pieces_per_row = std::max(1, 4 * dtype_bytes(cfg.dtype) / 16);
    in_flight = std::min(loads_per_warp, 4.0 * pieces_per_row);
  }
  c.loads_in_flight_per_warp = std::max(1.0, in_flight);
  return c;
}

}  // namespace memsim
