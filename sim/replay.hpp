#pragma once
// Exact replay: every lane of every warp of every block runs the kernel's own body with the recording memory
// policy; the warp accesses go to the counters. No sampling.
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/kernel_counts.hpp"
#include "kernels/resolve.hpp"
#include "sim/busiest_warp.hpp"
#include "sim/partial_lines.hpp"
#include "sim/recorder.hpp"
#include "sim/replay_kernel.hpp"
#include "sim/tally.hpp"

struct memsim_plugin_table_v1;  // sim/plugin_abi.hpp

namespace memsim {

struct ReplayOptions {
  int threads = 0;  // 0: one per hardware thread
  MemoryRules rules;
  const SectorSink* sector_sink_prototype = nullptr;  // cloned per worker when partition traffic is wanted
  // Replay every block even where the blocks fall into classes of identical counts (sim/block_classes.hpp).
  bool exact = false;
  // Whether the device's global accesses go through an L2 of sectors (compute capability 2.0 and later): the
  // launch's counts (ReplayResult::counts) then charge loads and stores to L2 and DRAM as sim/launch_counts.hpp
  // says; without one, every transaction the replay counts goes to DRAM.
  bool cached = true;
  // R, the blocks resident at once, where the DRAM order is wanted (sim/dram_order.hpp, over windows of R
  // blocks: KernelCounts::dram_scattered); 0: not counted. The caller knows R from the occupancy.
  int64_t dram_order_resident = 0;
  // Keep the first block's shared-memory warp accesses (ReplayResult::first_block_shared): the bank map memsim
  // --plot banks draws.
  bool keep_first_block_shared = false;
  // Called now and then during a replay of every block with the blocks replayed so far and the launch's
  // blocks, from the worker threads (at once: it must be thread-safe). Not called by the class replay.
  std::function<void(int64_t done, int64_t total)> progress;
};

// Which replay produced a result: every block, or one block of each class of identical counts.
struct ReplayPath {
  bool by_classes = false;
  std::string why_full;        // when every block was replayed: why (the exact replay asked for, no proof, ...)
  int64_t classes = 0;         // by classes: how many
  int64_t blocks_replayed = 0;  // blocks whose warps ran through the kernel's body (checks included)
};

// What the compiled-code count reads of the launch's first block (codegen/code_estimate.hpp,
// codegen/launch_instructions.hpp): the accesses of its busiest warp (the most accesses: a full warp of an inner
// tile) and the warps that leave early.
struct FirstBlockWarps : BusiestWarp {
  int early_exit_warps = 0;  // warps with no active access at the kernel's last site (its final store)
};

struct ReplayResult {
  LaunchConfig config;
  BufferLayout layout;
  ReplayPath path;
  std::vector<SiteCounts> sites;  // indexed like config.kernel->sites
  std::vector<Finding> findings;
  std::unique_ptr<SectorSink> sectors;  // merged sink, when one was asked for
  int64_t warps = 0;
  // Warp instructions of the body's index math and memory calls as the warp replay executed them
  // (sim/lanes.hpp); 0 when the kernel's body is replayed lane by lane.
  int64_t lane_operations = 0;
  // Integer division sequences by launch values (kernels/runtime_division.hpp), 32- and 64-bit, as the warp
  // replay executed them; 0 like lane_operations.
  int64_t runtime_divisions[2] = {0, 0};
  int barriers_per_thread = 0;  // __syncthreads() each thread passes
  // Lines the middle block writes in partial-sector pieces from two or more warps, by their partly written
  // sectors, each weighted by the warps that write its line as a share of 8 (at most 1), at the number of warps
  // writing the sector in pieces (sim/partial_lines.hpp).
  PartialSectorLines partial_lines_per_block{};
  // Lines the middle block writes in partial pieces from one warp alone, which completes their sectors itself.
  int64_t lines_completed_by_one_warp_per_block = 0;
  // The rounds those lines stay open, on average (sim/partial_lines.hpp, PartialPieces::mean_open_rounds).
  double partial_line_open_rounds = 0;
  // Lines the middle block holds open over rounds, as many as are open at once (PartialPieces::
  // lines_open_at_once), and the count of such lines against those closed in the round they open.
  std::array<double, 2> lines_open_at_once_per_block{};  // pieces under 16 bytes, and 16 bytes or more
  double pieces_per_held_sector = 0;  // PartialPieces::pieces_per_held_sector
  int64_t lines_held_over_rounds = 0, lines_closed_in_round = 0;
  // Lines the middle block writes in whole sectors over two rounds or more, as many as are open at once
  // (PartialPieces::whole_lines_open_at_once).
  double whole_lines_open_at_once_per_block = 0;
  double lone_sector_lines_open_at_once_per_block = 0;  // PartialPieces::lone_sector_lines_open_at_once
  int64_t whole_sectors_held_over_rounds_per_block = 0, lone_sectors_held_over_rounds_per_block = 0;
  double whole_line_rounds_apart = 0;  // PartialPieces::whole_line_rounds_apart
  int closed_line_rounds = 0;  // the rounds those closed in their round open in (PartialLines::closed_line_rounds)
  // The share of the middle block's partial pieces (bytes) that their warp completes into whole sectors with
  // its next store instruction (PartialPieces::next_store_pair_share).
  double next_store_pair_share = 0;
  // The sectors the middle block leaves partly written, for another block to complete, and the lines holding them,
  // each by the share of its bytes the block writes (PartialPieces::split_line_sectors).
  int64_t split_sectors_per_block = 0;
  double split_line_share_per_block = 0;
  // The sectors the middle block writes in pieces from two of its warps or more (PartialPieces::sectors_from_warps).
  int64_t sectors_from_warps_per_block = 0;
  int64_t sectors_from_warps_in_one_round_per_block = 0;  // of those, of lines it writes whole in one round
  // The share of the block's sectors in the lines holding them that it writes whole
  // (PartialPieces::split_line_whole_sectors), and the narrowest lane of the pieces there (bytes; 0: none).
  double split_line_whole_share = 0;
  int split_lane_bytes = 0;
  // How far apart in launch order their two writers are: the mean of log2(blocks apart) (sim/partial_lines.hpp).
  double split_log2_distance = 0;
  // The L2 read requests the middle block's loads send (sim/l2_requests.hpp).
  double l2_read_requests_per_block = 0;
  // Of the block's global loads, the share whose requests all find their sectors in the L2 from the same warp's
  // earlier requests (sim/l2_requests.hpp); 0 where it has no loads.
  double l2_hit_load_share = 0;
  FirstBlockWarps first_block;
  // The first block's shared-memory warp accesses with an active lane, in launch order, with their warp number,
  // where ReplayOptions::keep_first_block_shared asked for them.
  std::vector<std::pair<int, WarpAccess>> first_block_shared;
  // As the replay was told (ReplayOptions): whether the counts charge an L2, and R of the DRAM order (0: none).
  bool cached = true;
  int64_t dram_order_resident = 0;
  // The share of the loads' and the stores' DRAM bytes the resident blocks meet out of order (sim/dram_order.hpp),
  // over windows of dram_order_resident blocks; 0 where not counted.
  double dram_scattered[2] = {0, 0};
  // Everything above as the cost model reads it (sim/launch_counts.hpp), but for the compiled code's
  // instructions, which the caller adds (report/launch_prediction.hpp).
  KernelCounts counts;
};

BufferLayout default_layout(const LaunchConfig& cfg);
ReplayResult replay(const LaunchConfig& cfg, const ReplayOptions& options = {});

// Replays blocks [first, last) in launch order into `tally`, for tests and benchmarks that drive the
// replay of one kernel directly.
void replay_range(const LaunchConfig& cfg, const BufferLayout& layout, int64_t first, int64_t last,
                  const MemoryRules& rules, Tally& tally);

// Every warp access of blocks [first, last), in launch order, as the counting replay sees it: `visit(block,
// warp, access)` per access of a warp, a warp's accesses together. `Recorders::Counting` is what replay()
// uses (the body run once per warp on Lanes, the grouping Recorder for warps with findings and for bodies
// that are not generic over their coordinates); `Recorders::Grouping` uses the
// grouping Recorder, which defines the (site, occurrence) rule, for every warp. Findings go to `findings`.
using WarpVisitor = std::function<void(int64_t block, int warp, const WarpAccess& access)>;
void for_each_warp_access(const LaunchConfig& cfg, int64_t first, int64_t last, Recorders recorders,
                          const WarpVisitor& visit, Tally& findings);

// The first block's warps as replay() reports them (ReplayResult::first_block), for tests and the lab's tools
// that need them without a replay of the launch.
// `shared`, when given, receives the block's shared-memory accesses as ReplayResult::first_block_shared holds them.
FirstBlockWarps first_block_warps(const LaunchConfig& cfg,
                                  std::vector<std::pair<int, WarpAccess>>* shared = nullptr);

// Replays kernel `info` (a register_kernel copy, kernels/registry.hpp) through a plugin's table: what
// memsim --kernel-file does after loading a user's kernel (codegen/kernel_file.hpp). Before any replay.
void register_plugin_replay(const KernelInfo* info, const memsim_plugin_table_v1* table);

// Totals under Nsight Compute's metric names (docs/hardware.md, "Conventions"), in a fixed order.
struct Metric {
  std::string name;
  int64_t value;
};
std::vector<Metric> ncu_metrics(const ReplayResult& r);
int64_t metric_value(const std::vector<Metric>& metrics, const std::string& name);

}  // namespace memsim
