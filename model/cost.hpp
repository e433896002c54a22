#pragma once
// The cost model: a launch's counts and a device profile -> predicted time, effective bandwidth and the
// bottleneck. Each resource the launch uses gives a time (its work over its rate):
//   DRAM bandwidth            (read + written bytes) / dram_gbs, scaled by the partition-imbalance factor
//   L2 sector traffic         whole sectors x l2_sector_ps
//   L2 partial-sector stores  L2 write requests (lines) with partly written sectors x partial_store_ps[class]
//                             (less the half-sector pairs the L1 merges in small blocks: next_store_merge_warps),
//                             plus the read-back of partly written lines: with many partly written at once
//                             the L2 reads a fraction of their bytes back from DRAM before writing them
//                             (its growth fitted on memsim-partial-lines, its cost per byte there for 4-byte
//                             lanes and by memsim-calibrate for wider ones; the bytes also count on DRAM)
//   crossbar into L2          the stores' write requests + the sectors they touch (core/kernel_counts.hpp) x
//                             l2_write_slot_ps: half-sector stores keep it busier than whole-sector ones
//                             (validate/results/store_path_f64.ncu.csv; the constant fitted on microbenchmarks)
//   L1/shared wavefronts      (global + shared wavefronts) per SM x l1_cycles_per_wavefront / SM clock
//   L1 lines for loads        the L1 left beside the shared-memory carve-out (model/occupancy.hpp) holds the
//                             loads in flight, each request every line it touches for l1_line_hold_us: the
//                             lines the loads' requests touch x l1_line_hold_us / (SMs x free L1 lines)
//   instruction issue         warp instructions per SM / (issue_per_cycle x SM clock); the instructions are
//                             given, or for a static shape on a device of the SASS table's compute capability
//                             counted along the compiled kernel's paths (codegen/launch_instructions.hpp), or estimated
//                             from the replay's lane-wise operations (profile constants instructions_per_warp,
//                             instructions_per_source_op: the run-time shapes), or else as memory
//                             instructions x instructions_per_memory_op
//   latency                   Little's law: each warp waits out (global loads / loads in flight) round trips
//                             of latency_us, and SMs x resident warps wait at once; a round trip is longer
//                             by l2_request_ns for each L2 read request a load sends beyond one
//                             (sim/l2_requests.hpp: a block whose warps each ask for a piece of a sector
//                             fetches it alone, one request a sector)
//   block scheduling          each block also holds its SM slot for block_us besides its loads (launch and
//                             retirement, the prologue's index math), and barrier_us for each barrier it
//                             passes (a barrier keeps every warp until the block's slowest load is back,
//                             and its stores cannot start before); SMs x resident blocks pay
//                             it at once: blocks / (SMs x resident blocks), at least 1, times that hold. It
//                             lengthens the same residency as the latency term, so the two add before they
//                             combine with the others: the bytes in flight shrink when blocks are short.
//                             A block's slot frees when its slowest warp's loads are back: the hold grows
//                             by block_drain_rounds x latency_us for each doubling of the warps a block,
//                             and by the time the shared-memory pipe takes for the block's own wavefronts
//                             (its shared wavefronts x l1_cycles_per_wavefront / SM clock).
//   block launch rate         the GPU starts blocks one after another, block_launch_ns apart whatever their
//                             size: blocks x block_launch_ns. The blocks' work runs behind the launches, so
//                             this term is a floor under the others (max), not one more p-norm term.
// Memory resources work in parallel but not perfectly so: their terms combine as a p-norm (p = overlap_p; a
// large p is the max, the roofline), latency and block scheduling entering as their sum, instruction issue as
// one more term; the block launch rate is a floor under that; the launch overhead adds on top.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/kernel_counts.hpp"
#include "model/occupancy.hpp"
#include "model/profile.hpp"

namespace memsim {

struct PredictOptions {
  double partition_imbalance = 1.0;  // >= 1: busiest partition's share over the mean (partition counter)
  int regs_per_thread = 0;           // overrides KernelCounts::regs_per_thread when > 0
  // > 0: the warp instructions the launch executes (e.g. Nsight Compute's smsp__inst_executed.sum, or a
  // count read off the SASS), replacing KernelCounts::instructions and the estimate from memory instructions.
  double instructions = 0;
  // >= 0: the bytes the launch reads from DRAM (e.g. Nsight Compute's dram__bytes_read.sum), replacing the
  // loads' bytes and the modelled read-back in the DRAM term; what lies beyond the loads' bytes is charged as
  // the read-back of the partial stores (--dram-read-bytes). The read-back is the model's least certain count.
  double dram_read_bytes = -1;
  // >= 0: the sector writes the L2 receives from the launch's stores (Nsight Compute's
  // lts__t_sectors_srcunit_tex_op_write.sum; --l2-write-sectors): the partial stores' pieces beyond them reached the
  // L2 merged and are charged as whole sectors (KernelCounts::l2_write_sectors_given, which a count record may
  // carry instead).
  double l2_write_sectors = -1;
  // The kernel keeps run-time shapes (its block, tile and pad are launch values): its instructions are
  // estimated from the replay's operations, not read off compiled code (--runtime-shape).
  bool runtime_shape = false;
  bool compile = true;  // false: never run the toolkit for the compiled code (--no-compile; codegen/compiled_code.hpp)
  // The launch's occupancy on the profile's device, where the caller has worked it out (the pipeline does once,
  // report/analysis.cpp); else predict() works it out from the counts' block and the registers above.
  std::optional<Occupancy> occupancy;
};

// The SASS architecture of a compute capability ("9.0" -> "90"), or "" where memsim reads no compiled code
// (before compute capability 7.0: no L2 of today's kind, and no toolkit that still compiles for it).
std::string sass_arch(const std::string& compute_capability);

// A caveat's words with its figures, printf's way, in at most 399 characters.
[[gnu::format(printf, 1, 2)]] std::string caveat_words(const char* format, ...);
// A caveat's words, then the evidence for its threshold: text of any length, appended rather than formatted into
// the caveat's fixed buffer.
std::string with_evidence(const std::string& words, const std::string& evidence);

// Term names, as printed: plain words for what limits the kernel.
inline constexpr const char* kTermDram = "DRAM bandwidth";
inline constexpr const char* kTermL2 = "L2 sector traffic";
inline constexpr const char* kTermPartial = "L2 partial-sector stores";
inline constexpr const char* kTermL1 = "L1/shared wavefronts";
inline constexpr const char* kTermWrites = "crossbar into L2 (stores)";
inline constexpr const char* kTermL1Lines = "L1 lines for loads in flight";
inline constexpr const char* kTermIssue = "instruction issue";
inline constexpr const char* kTermLatency = "latency (too few bytes in flight)";
inline constexpr const char* kTermBlock = "block scheduling (per-block overhead)";
inline constexpr const char* kTermBlockLaunch = "block launch rate (too many blocks)";
inline constexpr const char* kTermLaunch = "launch overhead";

// Where Prediction::instructions comes from.
inline constexpr const char* kBasisGiven = "given (--instructions)";
inline constexpr const char* kBasisCounted = "counted";
inline constexpr const char* kBasisSass = "counted along the compiled SASS paths";
inline constexpr const char* kBasisCodeEstimate = "the compiled code estimated from the replay's accesses";
inline constexpr const char* kBasisOperations = "estimated from the replay's operations";
inline constexpr const char* kBasisMemoryRatio = "estimated as memory instructions x the profile's ratio";

// Where Prediction::dram_read_bytes comes from.
inline constexpr const char* kDramReadModelled = "modelled: the loads' bytes and the read-back";
inline constexpr const char* kDramReadGiven = "given (--dram-read-bytes)";

struct Prediction {
  std::string device;
  double time_us = 0;
  double effective_bandwidth_gbs = 0;
  std::optional<double> fraction_of_copy;  // filled by a caller that predicts the copy kernel too
  std::string bottleneck;                  // the largest term, named for a user (may refine the term's name)
  // The bottleneck's time as it entered the combination (latency or block scheduling: the two together, the
  // residency, and bottleneck_with names the other of the two where it is not 0; block launch rate: the floor;
  // launch overhead: launch_us) and what share of time_us that is.
  double bottleneck_us = 0;
  std::string bottleneck_with;
  double bottleneck_share() const { return time_us > 0 ? bottleneck_us / time_us : 0.0; }
  std::vector<std::pair<std::string, double>> terms_us;  // every term, in the order above
  Occupancy occupancy;
  double waves = 0;
  double instructions = 0;         // warp instructions the issue term charges
  std::string instructions_basis;  // one of the kBasis* above
  // Lines partly written at once: lines a block writes in partial pieces from two or more warps (each by the
  // share of the block's warps writing it) x the blocks resident at once; the fraction of the partial stores'
  // bytes the L2 reads back for them, and its time (part of the partial-store term). Caveats: what the time
  // leaves out, or where it is known to run low.
  double open_partial_lines = 0;
  double read_back_warp_factor = 1;  // mean of read_back_sector_warp_factor over the partly written sectors
  double read_back_fraction = 0;
  double read_back_us = 0;
  double open_rounds = 0;  // KernelCounts::partial_line_open_rounds
  // The rounds a block writes its lines closed each in its round over, and of them the rounds open at once
  // (rounds_open_at_once, mean over the lines by the warps writing their sectors).
  double closed_line_rounds = 1, closed_line_rounds_open = 1;
  // Where the profile reads such lines back by their steps too (cost.read_back.closed_steps): the lines a warp
  // writes in a round, the warps resident an SM, the share of the bytes at risk over the rounds, of it the share
  // the L2 evicts, the sectors' warp factor for it, and what the lines-open law reads back at one round's lines
  // (the two combine as either evicting a sector); 0 where the lines-open law prices them alone.
  double closed_lines_a_warp = 0, closed_warps_per_sm = 0, closed_at_risk = 0, closed_evicted = 0;
  double closed_warp_factor = 0, closed_by_lines = 0;
  // Lines held open over rounds: how many are open at once (all blocks), their share of the partly written
  // lines, and the fraction read back for them (read_back_fraction mixes it in by that share).
  double lines_open_at_once = 0, held_line_share = 0, held_open_read_back = 0;
  // Past the L2's lines (model/cost.cpp): the lines held open at once, counted whole whatever their pieces, the
  // L2's lines, the chance a piece finds its line evicted, and the read-back that adds (in held_open_read_back).
  double held_lines_open = 0, l2_lines = 0, past_l2_evicted = 0, past_l2_read_back = 0;
  double pieces_per_held_sector = 0;  // KernelCounts
  // Lines written in whole sectors alone over two rounds or more, as many as are open at once (all blocks).
  double whole_lines_open_at_once = 0;
  double lone_sector_lines_open_at_once = 0;  // of those, by their sectors written without their 64-byte partner
  double whole_sectors_held_over_rounds = 0, lone_sectors_held_over_rounds = 0;  // KernelCounts
  double whole_line_rounds_apart = 0;                                            // KernelCounts
  // Where the profile prices such lines (cost.whole_lines): the share of the counted sectors evicted before their
  // line is whole, and its DRAM time (part of the DRAM term).
  double whole_lines_evicted = 0, whole_lines_us = 0;
  // The DRAM bytes the DRAM term charges, as Nsight Compute names them: dram__bytes_read.sum (the loads' bytes
  // and the read-back, or the bytes given), the read-back's part of it, and dram__bytes_write.sum.
  double dram_read_bytes = 0, dram_read_back_bytes = 0, dram_write_bytes = 0;
  std::string dram_read_basis;  // kDramReadModelled or kDramReadGiven
  // DRAM order (sim/dram_order.hpp), where the profile charges it: the share of the loads' and the stores'
  // DRAM bytes the resident blocks meet out of order, and their time (part of the DRAM term).
  double split_sectors = 0;  // sectors left for another block to complete, per block summed (core/kernel_counts.hpp)
  double split_line_whole_share = 0;  // of a block's sectors in the lines holding them, the share written whole
  double split_sectors_us = 0;  // their time, part of the partial-store term
  double split_lines = 0;       // the lines holding them, per block summed (core/kernel_counts.hpp)
  double split_lines_scattered_us = 0;  // what those lines add where the stores go out of order (partial-store term)
  double sectors_from_warps = 0;     // sectors written in pieces from two warps of a block or more, summed
  double sectors_from_warps_in_one_round = 0;  // of those, the sectors of lines a block writes whole in one round
  double sectors_from_warps_us = 0;  // their time beyond their pieces', part of the partial-store term
  double split_log2_distance = 0;  // their writers' mean log2(blocks apart in launch order)
  // The share of the partial pieces' bytes charged as whole sectors: half-sector pairs a warp completes in its
  // next store, in blocks small enough that the L1 merges them all (model/profile.hpp, next_store_merge_warps).
  double next_store_merged_share = 0;
  // The launch's partial pieces as counted, each its own write (KernelCounts::partial_store_sectors), and the
  // share of their bytes that a warp completes into whole sectors with its next store (next_store_pair_share):
  // what a study of the L1's merges reads (lab/studies/l1_merges).
  double partial_store_sectors = 0, next_store_pair_share = 0;
  // Where the L2's sector writes were given: the share of the partial pieces that reached it merged, charged as
  // whole sectors (-1: not given).
  double given_merged_piece_share = -1;
  // The L2 read requests the loads send (sim/l2_requests.hpp) and the sectors they fetch.
  double l2_read_requests = 0, l2_load_sectors = 0;
  double l2_hit_load_share = 0;  // loads that find their sectors in the L2 from the warp's earlier requests
  bool dram_order_counted = false;
  double dram_scattered[2] = {0, 0};
  double dram_order_us = 0;
  std::vector<std::string> caveats;
  // Of the caveats, how many say the time is likely high; the others say it is likely low or leaves a cost out.
  int caveats_time_high = 0;
  double term(const std::string& name) const;  // 0 when absent
};

// How much more a sector written in pieces by `warps` warps reads back than one by 2 (memsim-partial-lines:
// 4- and 8-byte pieces from 8 and 4 warps against 16-byte ones from 2, in the same lines): 1 at 2 warps,
// the profile's factors at 4 and 8, geometric between them, 8's beyond (not measured past 8); at 1 warp (a
// sector its warp completes itself) the profile's read_back_one_warp_factor.
double read_back_sector_warp_factor(const CostConstants& k, int warps);
// The same for the read-back of lines closed in their round priced by their steps (cost.read_back.closed_steps):
// 1 at 2 warps, its own factors at 4 and 8, read_back_one_warp_factor at 1.
double closed_steps_sector_warp_factor(const CostConstants& k, int warps);
// Of a block's R rounds of lines closed each in its own, how many are open at once (cost.read_back.steps_open),
// for sectors written in pieces by `warps` warps: min(R, 1 + spread x (R - 1)^power), or R where the profile
// has not measured it.
double rounds_open_at_once(const CostConstants& k, double rounds, int warps);

// The DRAM order (sim/dram_order.hpp) is counted, a replay of windows of blocks, and charged only where the
// profile has its costs.
bool charges_dram_order(const CostConstants& k);

Prediction predict(const KernelCounts& c, const DeviceProfile& p, const PredictOptions& o = {});

// {"device", "time_us", "effective_bandwidth_gbs", ["fraction_of_copy"], "bottleneck", "bottleneck_us",
//  "bottleneck_share", ["bottleneck_with": the residency's other term], "terms_us": {...},
//  "occupancy": {...}, "waves", "calibrated"} - the keys report/report.cpp prints.
nlohmann::ordered_json to_json(const Prediction& p, const DeviceProfile* profile = nullptr);

}  // namespace memsim
