#pragma once
// Device profiles as data: one JSON file per device in model/devices/ (MEMSIM_DEVICE_DIR overrides the
// directory). A profile holds what the data sheet and cudaGetDeviceProperties give (limits, memory
// geometry, clocks, DRAM partitions) and the cost model's constants, which microbenchmarks calibrate where
// the profile has a "calibration" block (memsim-calibrate writes it) and are stand-ins otherwise.
#include <cstdint>
#include <map>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/device_rules.hpp"
#include "core/dtype.hpp"
#include "core/partition_spec.hpp"

namespace memsim {

// One line that says which device or file and what is wrong; the CLI prints it as is.
struct ProfileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The cost model's constants (model/cost.hpp says how each one enters a prediction).
// The grid of CostConstants::drain_merges: warps a block, stores a warp (memsim-microbench --drain-merges).
inline constexpr int kDrainMergeWarps[10] = {1, 2, 3, 4, 5, 6, 8, 10, 14, 16};
inline constexpr int kDrainMergeStores[3] = {2, 8, 32};
inline constexpr int kDrainMergeCells = int(std::size(kDrainMergeWarps) * std::size(kDrainMergeStores));

struct CostConstants {
  double dram_gbs = 0;                 // achievable DRAM bandwidth, read + write, GB/s (1e9 B/s)
  double l2_request_ns = 0;            // a round trip longer for each L2 read request a load sends beyond one
  double l2_sector_ps = 0;             // chip-wide L2 time per full sector (loads after L1, whole-sector stores)
  double partial_store_ps[3] = {0, 0, 0};  // per L2 write request of partly written sectors, by class (core/kernel_counts.hpp)
  double l1_cycles_per_wavefront = 1;  // per SM: global wavefronts and shared wavefronts share L1's data stage
  double l2_write_slot_ps = 0;         // crossbar into L2, per store slot (core/kernel_counts.hpp); 0: no such term
  // DRAM bytes met out of order by the resident blocks (sim/dram_order.hpp): the time each such byte costs
  // beyond its share of dram_gbs, chip-wide, read and written. 0: no such term (and the order is not counted).
  double scattered_read_ps_per_byte = 0, scattered_write_ps_per_byte = 0;
  // Per sector a block leaves partly written for another block to complete (core/kernel_counts.hpp); 0: no such term.
  double split_sector_ps = 0;
  // Such a sector costs more the further apart its two writers are in launch order (measured 1.4 times from 1
  // to 512 blocks apart): split_sector_ps x (1 + this x log2(blocks apart)). 0: the same at any distance.
  double split_sector_per_log2_distance = 0;
  // Per line holding a sector a block leaves partly written (each block's by the share of the line's bytes it
  // writes: a line counts once), where the resident blocks meet their stores out of order (times the stores'
  // scattered share, sim/dram_order.hpp): a transpose's split sectors, whose other writer is a grid row later and
  // a tile row away in memory, cost more than a copy's, whose other writer is the next block along the row
  // (lab/studies/split_lines: scattered +130-150 us over the control where linear adds +63-99, H100). 0: not charged.
  double split_line_scattered_ps = 0;
  // Per sector a block writes in pieces from two of its warps or more (core/kernel_counts.hpp), on top of what
  // its pieces cost: the sector waits in the L2 for its last piece from another warp (memsim-held-open's runs,
  // lab/calibration/fit_held_open_time.py). 0: no such term.
  double sector_from_warps_ps = 0;
  // The same for such a sector of a line its block writes whole in one round (the warps' same step;
  // memsim-step-lines' runs, the same script): the L2 has every piece of the line within a few requests of the
  // first. Absent from a profile: sector_from_warps_ps.
  double sector_from_warps_one_round_ps = 0;
  double latency_us = 0;               // a global load's round trip under load (Little's law)
  // The round trip of a load whose sectors the L2 holds from the warp's earlier requests (the L2 fetches 64
  // bytes a miss; sim/l2_requests.hpp), under load (0: such loads take latency_us; memsim-step-lines' runs at
  // 1 and 2 blocks an SM, lab/calibration/fit_l2_hit_latency.py).
  double l2_hit_latency_us = 0;
  // How long a load request holds each L1 line it allocates: the L1 left beside shared memory (the carve-out,
  // model/occupancy.hpp) holds the loads in flight, line by line (0: not charged; lab/studies/cut_lines).
  double l1_line_hold_us = 0;
  // Not a cost: where latency_us is known to fall short. With one load in flight a warp, a request's wait grows
  // with the lines it spreads over (measured: memsim-microbench --chain-loads); from this many lines a request
  // on, a prediction that is not L1-bound says its time is likely low. 0: no such caveat.
  double long_wait_lines = 0;
  std::string long_wait_evidence;      // what the threshold rests on, quoted in the caveat
  // Not a cost either: partial-sector stores whose sectors the same warp completes in its next stores may be
  // merged by L1 into whole ones, and the partial-store costs were fitted on benchmarks where up to 42% were
  // (memsim-microbench --half-sector-bursts); with this many global store instructions a warp or more, the L1
  // queue is full and merges almost none, so such a prediction says its time is likely low. 0: no such caveat.
  double store_burst_stores = 0;
  std::string store_burst_evidence;   // what the threshold rests on, quoted in the caveat
  // Not a cost either: where latency_us and the partial-store costs are known to fall short together. With one
  // load in flight a warp, loads spread over this many lines a request or more, beside stores that write their
  // sectors in half-sector pieces from two or more warps (a narrow block's columns), run longer than predicted
  // (memsim-loaded-latency, lab/studies/loaded_latency); such a prediction says its time is likely low. 0: no
  // such caveat.
  double half_sector_wait_lines = 0;
  std::string half_sector_wait_evidence;  // what the threshold rests on, quoted in the caveat
  // Not a cost either: the split-sector cost (split_sector_ps) was fitted with every sector of every line split;
  // a line holding fewer beside whole ones costs about as much (memsim-split-lines, lab/studies/split_lines: 1,
  // 2 or 4 split sectors a line, 4-byte lanes), so where at least this share of a block's sectors in the lines
  // holding its split sectors are written whole, by lanes of 4 bytes or more, such a prediction says its time is
  // likely low. 0: no such caveat.
  double split_line_whole_share = 0;
  std::string split_line_whole_evidence;
  // Not a cost either: partial stores by lanes of 2 bytes writing 8 bytes of a sector or more are priced at the
  // class of lanes up to 4 bytes (partial_store_ps[0]), fitted mostly on 4-byte lanes; measured, such pieces cost
  // far less (memsim-microbench's strided_store with 2-byte elements, 4 and 8 rows a request). Where they are this
  // share of the partial-store bytes or more, a prediction says its time is likely high. 0: no such caveat.
  double narrow_lane_piece_share = 0;
  std::string narrow_lane_piece_evidence;
  // Not a cost either: the L1 left beside shared memory holds the loads in flight (l1_line_hold_us charges it
  // where a profile fits it; none ships with it). Where a launch that stages through shared memory leaves at
  // most this many KiB of L1 (28 on sm_90: the largest carve-out, 228 KiB, of 256), staged copies ran longer than
  // predicted (memsim-cut-lines-probe, lab/studies/cut_lines), so such a prediction says its time is likely low.
  // 0: no such caveat.
  double small_l1_kib = 0;
  std::string small_l1_evidence;
  // A cost rule, with its evidence: in blocks of up to next_store_merge_warps warps, each storing at most
  // next_store_merge_stores times, the L1 merges every partial piece whose sector the same warp completes in
  // its next store instruction, so such pairs reach the L2 as whole sectors (KernelCounts::
  // next_store_pair_share; measured on half sectors: memsim-store-merge, lab/studies/store_merge, 99-100% with 1
  // or 2 warps a block and 2 stores a warp at every occupancy). Beyond, the share depends on the SM's store
  // traffic (runs of pairs: 7-30% at full occupancy, 89-100% at 1-2 blocks an SM; larger blocks 0-54%), which no
  // count gives: the partial-store costs keep the share they were fitted with. 0: no merging.
  double next_store_merge_warps = 0;
  double next_store_merge_stores = 0;
  std::string next_store_merge_evidence;
  // The share of a warp's next-store pairs the L1 merges, measured on half sectors by memsim-microbench --drain-merges
  // at as many blocks an SM as fit, on the grid kDrainMergeWarps x kDrainMergeStores (row-major), for lanes of 2 and
  // 4 bytes, after a barrier (a kernel staged through shared memory) and without: drain_merges[lanes 2 / 4][staged].
  // Where present it decides those pairs' merges for lanes of at most 4 bytes (model/cost.cpp), the rule above
  // the rest. has_drain_merges false: not charged.
  bool has_drain_merges = false;
  double drain_merges[2][2][kDrainMergeCells] = {};
  std::string drain_merges_evidence;
  double barrier_us = 0;               // what each barrier adds to a block's residency (see model/cost.hpp)
  double block_us = 0;                 // what a block holds its SM slot for besides its loads (launch,
                                       // prologue index math, barrier, retirement)
  // A block's slot frees when its slowest warp's loads are back: the wait grows with the warps a block, by
  // this share of a round trip (latency_us) a doubling (0: not charged; memsim-microbench --block-shapes).
  double block_drain_rounds = 0;
  // The GPU starts blocks one after another at a fixed rate, whatever their size: this many ns apart (0: not
  // charged; memsim-microbench --block-shapes, empty launches of many blocks).
  double block_launch_ns = 0;
  double issue_per_cycle = 4;          // warp instructions an SM issues per cycle (4 schedulers)
  double instructions_per_memory_op = 32;  // all instructions per memory instruction, when nothing better is known
  // The instruction estimate from the replay's lane-wise operations (sim/lanes.hpp), used when
  // instructions_per_source_op > 0 for launches without a SASS count (codegen/launch_instructions.hpp: run-time shapes,
  // and static ones on a device of another compute capability than the table's):
  // instructions = instructions_per_warp x warps + instructions_per_source_op x operations. The first is
  // what every warp executes besides its index math (prologue, loop control, exit), the second how many SASS
  // instructions one source-level operation becomes.
  double instructions_per_warp = 0;
  double instructions_per_source_op = 0;
  // Plus, per warp-uniform integer division by a launch value (kernels/runtime_division.hpp), the
  // instructions of nvcc's division sequence for 32- and 64-bit operands.
  double instructions_per_division[2] = {0, 0};
  // Read-back of partly written lines (model/cost.hpp): with L lines partly written at once, the L2 reads a
  // fraction e = read_back_per_log_lines x ln(L / read_back_from_lines) (0 to 1) of the partial stores' bytes
  // back from DRAM, each byte costing read_back_ps_per_byte[lane-width class] (0: not measured for that class,
  // the prediction then says so). read_back_from_lines 0: no read-back model.
  double read_back_from_lines = 0;
  double read_back_per_log_lines = 0;
  double read_back_ps_per_byte[3] = {0, 0, 0};
  // e grows with the warps that write a sector in pieces: x read_back_sector_warp_factor(w) (model/cost.hpp),
  // 1 for up to 2 warps, these at 4 and 8 warps (1, 1: the same for all).
  double read_back_sector_warp_factors[2] = {1, 1};
  // A sector one warp writes in pieces and completes itself (reg4x4 f64's two 16-byte halves from one thread)
  // is partly written only between that warp's stores, not until another warp's piece arrives: the L2 reads
  // back this share of what it reads back for a sector from 2 warps (1: the same; absent: 1).
  double read_back_one_warp_factor = 1;
  // Lines held open over rounds (a warp's loads, then its stores: sim/partial_lines.hpp): with U of them open at
  // once, the L2 reads back e = 1 - exp(-(U / read_back_held_open_lines)^read_back_held_open_exponent) of their
  // partial stores' bytes, each at read_back_ps_per_byte (lab/calibration/fit_held_open.py on
  // memsim-held-open). 0: not measured (such lines then get a caveat and the model above).
  // Lines written in pieces of 16 bytes or more (half sectors) count for this share of a line in U.
  double read_back_held_open_lines = 0;
  double read_back_held_open_exponent = 1;
  double read_back_held_open_half_sector_factor = 1;
  // The share of the L2's lines that hold lines open: past it, a piece after a sector's first finds its line
  // evicted with the chance 1 - share x L2 lines / lines open, and the L2 reads the sector back once more
  // (model/cost.cpp). 0: not priced (profiles without memsim-held-open's runs past the L2).
  double read_back_held_open_past_l2_share = 0;
  // Lines written in whole sectors alone over two rounds or more (sim/partial_lines.hpp): with U of them open at
  // once, counted by every whole sector they hold or (whole_lines_lone_only) by the sectors written without
  // their 64-byte partner in the same round, e = 1 - exp(-(U / whole_lines_lines)^whole_lines_exponent) of the
  // counted sectors' bytes cost whole_lines_ps_per_byte of DRAM time more (lab/calibration/fit_whole_lines.py
  // on memsim-held-open's whole-sector runs). 0: not measured, nothing charged.
  bool whole_lines_lone_only = true;
  double whole_lines_lines = 0;
  double whole_lines_exponent = 1;
  double whole_lines_ps_per_byte = 0;
  // Lines closed in the round that opens them, written over R rounds a block (naive: a step of its tile each,
  // a fresh set of lines a step): the block's warps drift apart, so D = min(R, 1 + spread x (R - 1)^power) of
  // its rounds' lines are open at once (lab/calibration/fit_step_lines.py on memsim-step-lines), apart for the
  // sectors written in pieces by up to 2, 3 to 5, and 6 or more warps (16-, 8- and 4-byte pieces grow apart).
  // spread < 0: not measured, all R rounds' lines count as open at once (as before it was).
  double read_back_steps_open_spread[3] = {-1, -1, -1};
  double read_back_steps_open_power[3] = {1, 1, 1};
  // Those lines read back by the steps and the warps an SM too (cost.read_back.closed_steps, where the profile
  // has it: lab/calibration/fit_closed_steps.py on memsim-step-lines): over R rounds a block's warps drift apart
  // and a sector's last piece comes later, so a share per_log_steps x ln(1 + steps_scale x (R - 1)) of the
  // partial stores' bytes is at risk, of which the L2 evicts 1 - exp(-(X / stress)^stress_power), X the warps
  // resident an SM times (the lines a warp writes in a round)^lines_power, each sector weighed by the warps
  // writing it (1 at 2, read_back_closed_sector_warp_factors at 4 and 8, read_back_one_warp_factor at 1). The
  // lines-open law is then taken at one round's lines (steps_open unused), and a sector either reads back counts
  // once: e = 1 - (1 - by lines)(1 - by steps). per_log_steps 0: the lines-open law alone, D rounds open.
  double read_back_closed_per_log_steps = 0;
  double read_back_closed_steps_scale = 1;
  double read_back_closed_stress = 1;
  double read_back_closed_stress_power = 1;
  double read_back_closed_lines_power = 0;
  double read_back_closed_sector_warp_factors[2] = {1, 1};
  double launch_us = 0;                // launch and drain of one kernel, as events around it see
  double overlap_p = 2;                // terms combine as (sum t^p)^(1/p): 1 = no overlap, large = max
};

struct DeviceProfile {
  std::string name;          // file stem, e.g. "h100"
  std::string display_name;  // e.g. "NVIDIA H100 SXM5 80GB HBM3"
  std::string compute_capability;
  std::string source;        // where the figures come from

  int sms = 0;
  int max_threads_per_sm = 0, max_warps_per_sm = 0, max_blocks_per_sm = 0;
  int64_t shared_per_sm = 0;               // the largest carve-out
  int64_t shared_per_block = 0;            // without opt-in
  int64_t shared_per_block_optin = 0;      // with cudaFuncSetAttribute (= shared_per_block where none)
  int64_t reserved_shared_per_block = 0;   // taken by the system per resident block (cc 8.0+: 1 KiB)
  // The SM's L1 and shared memory together, and the shared-memory sizes (carve-outs) it can be split at, in
  // bytes, ascending: the runtime takes the smallest that holds the resident blocks, and the rest is L1
  // (empty / 0: not known, and no L1 capacity is worked out).
  int64_t l1_and_shared_per_sm = 0;
  std::vector<int64_t> shared_carveouts;
  int shared_alloc_granularity = 0;        // bytes
  int regs_per_sm = 0, max_regs_per_thread = 0, max_regs_per_block = 0;
  int reg_alloc_unit = 0;                  // registers per allocation
  bool reg_alloc_per_block = false;        // cc 1.x: a block's registers rounded as a whole, not per warp
  int warp_alloc_granularity = 0;          // warps
  int max_threads_per_block = 0, max_block_x = 0, max_block_y = 0;
  int64_t max_grid_x = 0, max_grid_y = 0;

  int banks = 32, bank_bytes = 4, bank_phase_lanes = 32;  // phase_lanes 16: half-warp banks (cc 1.x)
  int sector_bytes = 32, line_bytes = 128;
  std::string coalescing;  // "sectors32" (Volta+), "cc12_segments" (GT200, cc 1.3), "cc10_strict" (G80)
  int64_t l2_bytes = 0;
  double dram_peak_gbs = 0;
  int64_t dram_bytes = 0;  // the device memory (dram.bytes), 0 where the profile does not say
  // cudaMemcpy device to device as measured on the card (dram.memcpy: gbs and where it was measured), 0 and ""
  // where the profile holds no measurement: the bandwidth a user can reach (attainable_bandwidth).
  double memcpy_gbs = 0;
  std::string memcpy_measured;
  double sm_clock_mhz = 0, mem_clock_mhz = 0;
  PartitionSpec partitions;

  CostConstants cost;
  // Registers per thread of the suite's kernels as the calibration run's compiler built them for this
  // device ("kernel/dtype" -> registers, from cudaFuncGetAttributes): the occupancy's given registers.
  std::map<std::string, int> kernel_registers;
  bool calibrated = false;  // cost constants fitted to microbenchmarks (else stand-ins from the data sheet)
  // A calibration block whose constants_hash the cost block no longer matches: constants edited after the fit,
  // which then describes other numbers (calibrated false, cost_basis "hand_edited").
  bool hand_edited = false;
  nlohmann::json calibration;  // the "calibration" block as written by memsim-calibrate (null when none)
  // Where the cost constants come from: "calibrated" (the calibration block above), else the optional
  // "cost_basis" block's kind: "published" (solved from published measurements of the device) or
  // "data_sheet" (stand-ins from the data sheet, the default); its summary says what they are in one phrase.
  std::string cost_basis = "data_sheet";
  std::string cost_basis_summary;
};

// The bandwidth a report quotes a kernel's as a fraction of: cudaMemcpy's as measured on the card where the
// profile holds it, else the profile's DRAM peak (data sheet). `basis` names which, for the reader:
// "cudaMemcpy-measured" or "data-sheet DRAM peak".
struct AttainableBandwidth {
  double gbs = 0;
  std::string basis;
};
AttainableBandwidth attainable_bandwidth(const DeviceProfile& p);

// The fingerprint memsim-calibrate writes as calibration.constants_hash: FNV-1a (64 bits, 16 hex digits) of
// every number of the "cost" block as "path=%.17g" lines in path order (texts left out). A loaded profile whose
// cost block no longer gives its hash was edited after the fit (DeviceProfile::hand_edited).
std::string cost_constants_hash(const nlohmann::json& cost);

// Where a profile's numbers come from, as every report says it. cost_basis_text: "calibrated: cost constants
// fitted to N microbenchmark runs on DEVICE (DATE); fit error ..." or "NOT CALIBRATED: ...; no GPU has checked
// them"; provenance_line: the same after "NAME (DISPLAY NAME, compute capability X.Y): ". provenance_json: the
// profile's names, "calibrated", "cost_basis", the text as "provenance", the calibration's run and error, and
// "attainable_bandwidth": {"gbs", "basis"[, "measured"]} (attainable_bandwidth above).
std::string cost_basis_text(const DeviceProfile& p);
std::string provenance_line(const DeviceProfile& p);
nlohmann::ordered_json provenance_json(const DeviceProfile& p);

// The directory profiles are read from: $MEMSIM_DEVICE_DIR, else an installed tree's share/memsim/devices
// (beside the running executable), else the source tree's model/devices.
std::string device_dir();
// Profile stems found there, sorted.
std::vector<std::string> list_profiles();
// Loads <device_dir>/<name>.json, or the file `name` names where it holds a '/' or ends in .json (a profile
// of the user's own). Throws ProfileError for an unknown name (listing the known ones), a missing file or a
// malformed one (naming the file and the field).
DeviceProfile load_profile(const std::string& name);
DeviceProfile load_profile_file(const std::string& path);
// A profile's text, as load_profile_file reads it (the fuzz target's way in); `where` names it in errors.
DeviceProfile parse_profile(const std::string& text, const std::string& name, const std::string& where);
DeviceProfile profile_from_json(const nlohmann::json& j, const std::string& name, const std::string& where);

// Empty when the device runs kernels on `dtype`; else one line saying why not: f64 needs compute capability
// 1.3 (docs/hardware.md, "Element types a device can run"). f16 and f32 only move 2- and 4-byte words.
std::string dtype_refusal(const DeviceProfile& p, Dtype dtype);

// Registers of `kernel` at `dtype` from the profile's table, 0 when it has none.
int kernel_registers(const DeviceProfile& p, const std::string& kernel, Dtype dtype);

LaunchLimits launch_limits(const DeviceProfile& p);
MemoryRules memory_rules(const DeviceProfile& p);

}  // namespace memsim
