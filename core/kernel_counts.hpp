#pragma once
// What the cost model reads about one launch: traffic at each level of the memory system, instruction
// counts and the launch's shape. The replay fills it (sim/launch_counts.hpp), the compiled code adds its
// instructions (report/launch_prediction.hpp); a microbenchmark's record is written by hand
// (lab/calibration/microbench.cu emits the same fields). A plain record: the model (model/cost.hpp) reads it
// without the kernels or the replay.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "core/warp.hpp"

namespace memsim {

// Where a launch's compiled-code instructions come from (codegen/compiled_code.hpp).
enum class CodeBasis {
  Compiled,   // compiled now or earlier (the disk cache) by the toolkit named in `source`
  Shipped,    // the SASS table shipped with memsim (codegen/launch_instructions.hpp), where no toolkit compiles
  Estimated,  // the linear rule over the replay's accesses
};

// Lines partly written, as parts of lines, by how many warps write each sector in pieces (index 1..32;
// sim/partial_lines.hpp).
using PartialSectorLines = std::array<double, kWarpSize + 1>;
inline double total_lines(const PartialSectorLines& s) {
  double sum = 0;
  for (double v : s) sum += v;
  return sum;
}

// Partially written sectors are costed per L2 write request (one per line a store instruction writes, its
// sectors masked in: measured, a request writing 1, 2 or 4 half sectors of a line costs about the same), by
// class (model/cost.hpp): lanes of at most 4 bytes cost the same whatever they write into a sector; with
// wider lanes the cost grows with the bytes a request writes into each sector (8 or 16; measured: 8-byte
// lanes two to a sector cost what one 16-byte lane does).
enum LaneWidthClass { kLanes4 = 0, kLanes8 = 1, kLanes16 = 2 };
inline int partial_store_class(double bytes_per_lane, double bytes_per_sector) {
  if (bytes_per_lane <= 4.5) return kLanes4;
  return std::max(bytes_per_lane, bytes_per_sector) > 8.5 ? kLanes16 : kLanes8;
}

struct KernelCounts {
  int64_t blocks = 0;
  int threads_per_block = 0;
  int64_t shared_bytes_per_block = 0;
  int regs_per_thread = 0;  // 0: not known (the cost model then assumes 32)
  double useful_bytes = 0;  // read once + written once: the effective-bandwidth numerator
  double dram_read_bytes = 0, dram_write_bytes = 0;
  double l2_load_sectors = 0;                    // sectors loads fetch from L2 (L1 hits removed)
  double l2_read_requests = 0;                   // the requests that fetch them (sim/l2_requests.hpp)
  // The share of global loads whose sectors the L2 holds from the same warp's earlier requests: their round
  // trip is the L2's (sim/l2_requests.hpp).
  double l2_hit_load_share = 0;
  double l2_store_sectors = 0;                   // stored sectors written whole by their request
  double partial_store_requests[3] = {0, 0, 0};  // L2 write requests (lines) of partly written sectors, by class
  double partial_store_bytes[3] = {0, 0, 0};     // the bytes those requests write
  // The sectors those requests write, each piece counted (L1 store sectors of the partial stores).
  double partial_store_sectors = 0;
  // >= 0: the sector writes the L2 receives from the stores, measured (Nsight Compute's
  // lts__t_sectors_srcunit_tex_op_write.sum; memsim --l2-write-sectors), fewer than the pieces where the L1 merges
  // a sector's pieces from several warps into one write; the cost model then charges the merged share of the
  // pieces as whole sectors (model/cost.cpp). < 0: not given, every piece its own write.
  double l2_write_sectors_given = -1;
  // Of those bytes, the ones a request writes as half sectors or more (16 to 31 bytes a sector it touches):
  // a narrow block's column pieces, the caveat's test in model/profile.hpp (half_sector_wait_lines).
  double half_sector_piece_bytes = 0;
  // Of those bytes, the ones written by lanes of 2 bytes or less, 8 bytes a sector or more (a narrow f16 block's
  // rows): the 4-byte class's cost is known high for them (model/profile.hpp, narrow_lane_pieces).
  double narrow_lane_piece_bytes = 0;
  // Of the 4-byte class's bytes (lanes of 4 bytes or less), the ones written 16 bytes a sector or more (naive
  // f32 in blocks 8 wide, f16 4 wide): their read-back costs what 16-byte pieces of 8-byte lanes cost, the
  // 16-byte class's ps_per_byte (model/cost.cpp), while their requests keep the 4-byte class's cost.
  double lane4_half_sector_bytes = 0;
  // What the stores send through the crossbar into L2: each L2 write request (one per line a store
  // instruction writes) and each sector it touches, whole or in part, takes a slot.
  double l2_write_slots = 0;
  double l1_global_wavefronts = 0;               // L1 data-stage passes of global requests
  // The share of the loads' and the stores' DRAM bytes the resident blocks meet out of order, spread over the
  // buffer rather than in a band (sim/dram_order.hpp); 0 where not counted.
  double dram_scattered[2] = {0, 0};
  double shared_wavefronts = 0, shared_conflict_wavefronts = 0;
  double global_load_instructions = 0, memory_instructions = 0;  // warp instructions
  double global_load_lines = 0;  // distinct lines per load request, summed (0: not known)
  double instructions = 0;            // all warp instructions, when known (else estimated: model/cost.hpp)
  // The launch's warp instructions along its compiled code's paths (codegen/compiled_code.hpp: compiled, the
  // shipped table, or estimated), where the launch is predicted with its compile-time shape; else 0.
  double sass_instructions = 0;
  CodeBasis code_basis = CodeBasis::Estimated;
  std::string code_source;  // what the count was read off, for the report
  double source_operations = 0;       // the replay's lane-wise operations incl. memory calls (sim/lanes.hpp)
  double runtime_divisions[2] = {0, 0};  // warp-uniform integer divisions by launch values, 32- and 64-bit
  double loads_in_flight_per_warp = 1;  // independent global loads a warp issues before it waits
  double barriers_per_block = 0;        // __syncthreads() the block's threads pass
  // Lines a block writes in partial pieces from 2+ warps, by their partly written sectors, weighted by the
  // share of its warps writing each line, at the number of warps writing the sector (sim/partial_lines.hpp).
  PartialSectorLines partial_lines_per_block{};
  // The rounds those lines open in, each closing in its own (sim/partial_lines.hpp): one for a staged tile, a
  // step of its tile each for naive's. The cost model holds some of them open at once (cost.read_back.steps_open).
  double partial_line_rounds = 1;
  double lines_completed_by_one_warp_per_block = 0;  // lines a warp alone writes in partial pieces, whole
  // The share of the partial pieces' bytes that a warp completes into whole sectors with its next store
  // instruction (sim/partial_lines.hpp): the L1 merges such pairs into whole sectors, all of them in small
  // blocks (the profile's next_store_merge), else by the drain table (model/cost.hpp).
  double next_store_pair_share = 0;
  // The rounds (a warp's loads, then its stores) the block's partly written lines stay open, on average.
  double partial_line_open_rounds = 0;
  // Lines a block holds open over rounds, as many as are open at once (sim/partial_lines.hpp), and the share
  // of the block's partly written lines they are (the rest close in the round they open: partial_lines_per_block).
  std::array<double, 2> lines_open_at_once_per_block{};  // lines with a piece under 16 bytes; all 16 or more
  double held_line_share = 0;
  // The requests writing part of a sector of those lines, per such sector (PartialPieces::pieces_per_held_sector).
  double pieces_per_held_sector = 0;
  // Lines a block writes in whole sectors alone over two rounds or more, as many as are open at once
  // (sim/partial_lines.hpp, PartialPieces::whole_lines_open_at_once).
  double whole_lines_open_at_once_per_block = 0;
  // Of those, counting the sectors written without their 64-byte partner in the same round alone.
  double lone_sector_lines_open_at_once_per_block = 0;
  // The sectors of those lines, each once, summed over the blocks (the middle block's, times the blocks).
  double whole_sectors_held_over_rounds = 0, lone_sectors_held_over_rounds = 0;
  double whole_line_rounds_apart = 0;  // the most rounds between a line's pieces (sim/partial_lines.hpp)
  double global_store_instructions = 0;               // warp instructions
  // Sectors a block writes part of and leaves for another block to complete, summed over the blocks (a sector
  // split between two blocks counts twice: the middle block's, times the blocks; sim/partial_lines.hpp).
  double split_sectors = 0;
  // The lines holding those sectors, each block's by the share of the line's bytes it writes: a line split between
  // any number of blocks counts once (the middle block's share, times the blocks).
  double split_lines = 0;
  // Sectors a block writes in pieces from two of its warps or more, summed over the blocks (the middle block's,
  // times the blocks; sim/partial_lines.hpp).
  double sectors_from_warps = 0;
  double sectors_from_warps_in_one_round = 0;  // of those, the sectors of lines a block writes whole in one round
  // Of the middle block's sectors in the lines holding them, the share it writes whole, and the narrowest lane
  // of their pieces (bytes; 0: none): sim/partial_lines.hpp.
  double split_line_whole_share = 0;
  int split_lane_bytes = 0;
  // How far apart in launch order each such sector's two writers are: the mean of log2(blocks apart).
  double split_log2_distance = 0;
  int warps_per_block() const { return (threads_per_block + 31) / 32; }  // a partial warp counts as one
  double partial_bytes() const { return partial_store_bytes[0] + partial_store_bytes[1] + partial_store_bytes[2]; }
  double warps() const { return double(blocks) * warps_per_block(); }
};

}  // namespace memsim
