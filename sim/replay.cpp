#include "sim/replay.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <deque>
#include <set>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <utility>

#include "core/threads.hpp"
#include "kernels/runtime_division.hpp"
#include "kernels/suite.hpp"
#include "sim/block_classes.hpp"
#include "sim/clones.hpp"
#include "sim/dram_order.hpp"
#include "sim/l2_requests.hpp"
#include "sim/launch_counts.hpp"
#include "sim/partial_lines.hpp"
#include "sim/plugin_abi.hpp"
#include "sim/replay_kernel.hpp"
#include "sim/warp_recorder.hpp"

namespace memsim {
namespace {

using replay_detail::barriers_per_thread;
using replay_detail::walk_blocks;

using RangeFn = void (*)(const LaunchShape&, const BufferLayout&, int64_t, int64_t, const MemoryRules&, Tally&);
using WalkFn = void (*)(const LaunchShape&, const BufferLayout&, int64_t, int64_t, Recorders, const WarpVisitor&,
                        Tally&);

template <class K, class T>
void replay_blocks(const LaunchShape& s, const BufferLayout& layout, int64_t first, int64_t last,
                   const MemoryRules& rules, Tally& tally) {
  if (first == 0 && last > 0) tally.barriers_per_thread = barriers_per_thread<K, T>(s, layout);
  const int64_t operations_before = lane_operations;  // this worker's counters
  const int64_t divisions_before[2] = {runtime_divisions[0], runtime_divisions[1]};
  walk_blocks<K, T>(s, layout, first, last, Recorders::Counting, tally,
                    [&](int64_t b, int, const WarpAccess& a) { tally.add(a, b, rules); });
  tally.lane_operations += lane_operations - operations_before;
  for (int i = 0; i < 2; ++i) tally.runtime_divisions[i] += runtime_divisions[i] - divisions_before[i];
}

template <class K, class T>
void walk_for_visitor(const LaunchShape& s, const BufferLayout& layout, int64_t first, int64_t last,
                      Recorders recorders, const WarpVisitor& visit, Tally& findings) {
  walk_blocks<K, T>(s, layout, first, last, recorders, findings, visit);
}

struct Entry {
  const char* name;
  RangeFn by_dtype[3];  // f16, f32, f64
  WalkFn walk[3];
  const memsim_plugin_table_v1* plugin = nullptr;  // a kernel from a user's file: its table instead
};

// Storage types stand in for the dtypes: a transpose moves bits, so f16 travels as a 2-byte integer.
#define MEMSIM_REPLAY_ENTRY(K) \
  {suite::K::info().name,      \
   {&replay_blocks<suite::K, uint16_t>, &replay_blocks<suite::K, float>, &replay_blocks<suite::K, double>}, \
   {&walk_for_visitor<suite::K, uint16_t>, &walk_for_visitor<suite::K, float>, &walk_for_visitor<suite::K, double>}},

const std::vector<Entry>& entries() {
  static const std::vector<Entry> all{MEMSIM_KERNEL_SUITE(MEMSIM_REPLAY_ENTRY)};
  return all;
}
#undef MEMSIM_REPLAY_ENTRY

std::deque<Entry>& plugin_entries() {
  static std::deque<Entry> all;
  return all;
}

const Entry& entry_for(const LaunchConfig& cfg) {
  for (const Entry& e : entries())
    if (std::strcmp(e.name, cfg.kernel->name) == 0) return e;
  for (const Entry& e : plugin_entries())
    if (std::strcmp(e.name, cfg.kernel->name) == 0) return e;
  throw std::logic_error(std::string("kernel without a replay entry: ") + cfg.kernel->name);
}

// A plugin's findings, one per (kind, site), join the tally's as Tally::merge joins a later range's.
void add_plugin_finding(void* tally, int kind, int site, const ThreadCoord* first, int64_t first_offset, int width,
                        int64_t count) {
  Tally& t = *static_cast<Tally*>(tally);
  for (Finding& f : t.findings)
    if (int(f.kind) == kind && f.site == site) {
      f.count += count;
      return;
    }
  t.findings.push_back({FindingKind(kind), site, count, *first, first_offset, width});
}

// A plugin's walk through the sink of sim/plugin_abi.hpp: what replay_blocks and walk_for_visitor do for the
// suite, with the tally's sector counting on this side of the boundary.
void plugin_range(const memsim_plugin_table_v1& p, int d, const LaunchShape& s, const BufferLayout& layout,
                  int64_t first, int64_t last, const MemoryRules& rules, Tally& tally) {
  if (first == 0 && last > 0) tally.barriers_per_thread = p.barriers_per_thread[d](&s, &layout);
  struct Context {
    Tally& tally;
    const MemoryRules& rules;
  } context{tally, rules};
  memsim_access_sink_v1 sink{&context,
                             [](void* c, int64_t block, int, const WarpAccess* a) {
                               Context& x = *static_cast<Context*>(c);
                               x.tally.add(*a, block, x.rules);
                             },
                             [](void* c, int kind, int site, const ThreadCoord* t, int64_t offset, int width,
                                int64_t count) {
                               add_plugin_finding(&static_cast<Context*>(c)->tally, kind, site, t, offset, width,
                                                  count);
                             }};
  int64_t counters[3] = {0, 0, 0};
  p.walk[d](&s, &layout, first, last, 0, &sink, counters);
  tally.lane_operations += counters[0];
  tally.runtime_divisions[0] += counters[1];
  tally.runtime_divisions[1] += counters[2];
}

void plugin_walk(const memsim_plugin_table_v1& p, int d, const LaunchShape& s, const BufferLayout& layout,
                 int64_t first, int64_t last, Recorders recorders, const WarpVisitor& visit, Tally& findings) {
  struct Context {
    const WarpVisitor& visit;
    Tally& findings;
  } context{visit, findings};
  memsim_access_sink_v1 sink{&context,
                             [](void* c, int64_t block, int warp, const WarpAccess* a) {
                               static_cast<Context*>(c)->visit(block, warp, *a);
                             },
                             [](void* c, int kind, int site, const ThreadCoord* t, int64_t offset, int width,
                                int64_t count) {
                               add_plugin_finding(&static_cast<Context*>(c)->findings, kind, site, t, offset, width,
                                                  count);
                             }};
  int64_t counters[3] = {0, 0, 0};
  p.walk[d](&s, &layout, first, last, recorders == Recorders::Grouping, &sink, counters);
}

// Replays blocks [first, last) of cfg's kernel into `tally`, a suite kernel or a plugin's.
void run_range(const Entry& e, const LaunchConfig& cfg, const BufferLayout& layout, int64_t first, int64_t last,
               const MemoryRules& rules, Tally& tally) {
  if (e.plugin) plugin_range(*e.plugin, int(cfg.dtype), cfg.shape, layout, first, last, rules, tally);
  else e.by_dtype[int(cfg.dtype)](cfg.shape, layout, first, last, rules, tally);
}

}  // namespace

BufferLayout default_layout(const LaunchConfig& cfg) {
  BufferLayout l;
  l.elem_bytes = dtype_bytes(cfg.dtype);
  l.in_elems = cfg.elements();
  l.out_elems = cfg.elements();
  l.shared_elems = cfg.kernel->uses_shared_tile ? int64_t(cfg.shape.tile_y) * cfg.shape.smem_row : 0;
  constexpr uint64_t kAlign = uint64_t(1) << 21;  // large cudaMalloc allocations start on 2 MiB pages
  l.in_base = uint64_t(1) << 32;
  const uint64_t in_bytes = uint64_t(l.in_elems) * l.elem_bytes;
  l.out_base = l.in_base + (in_bytes + kAlign - 1) / kAlign * kAlign;
  return l;
}

void replay_range(const LaunchConfig& cfg, const BufferLayout& layout, int64_t first, int64_t last,
                  const MemoryRules& rules, Tally& tally) {
  run_range(entry_for(cfg), cfg, layout, first, last, rules, tally);
}

void for_each_warp_access(const LaunchConfig& cfg, int64_t first, int64_t last, Recorders recorders,
                          const WarpVisitor& visit, Tally& findings) {
  const Entry& e = entry_for(cfg);
  if (e.plugin)
    plugin_walk(*e.plugin, int(cfg.dtype), cfg.shape, default_layout(cfg), first, last, recorders, visit, findings);
  else
    e.walk[int(cfg.dtype)](cfg.shape, default_layout(cfg), first, last, recorders, visit, findings);
}

void register_plugin_replay(const KernelInfo* info, const memsim_plugin_table_v1* table) {
  Entry e{info->name, {}, {}, table};
  plugin_entries().push_back(e);
}

namespace {

// Every block, split among worker threads; their tallies merged in launch order.
Tally replay_every_block(const LaunchConfig& cfg, const BufferLayout& layout, const ReplayOptions& options) {
  const Entry& entry = entry_for(cfg);
  const int64_t blocks = cfg.blocks();
  int workers = threads_to_use(options.threads);
  // A worker per few hundred blocks at least: small launches are not worth a thread.
  workers = int(std::max<int64_t>(1, std::min<int64_t>(workers, blocks / 256)));

  const int num_sites = cfg.kernel->num_sites;
  std::vector<Tally> tallies;
  tallies.reserve(workers);
  for (int i = 0; i < workers; ++i) {
    tallies.emplace_back(num_sites);
    if (options.sector_sink_prototype) tallies.back().sectors_sink = options.sector_sink_prototype->clone_empty();
  }
  // With a progress callback, each worker replays its range in chunks (the same blocks in the same order into
  // the same tally: the counts do not change) and reports the blocks done after each.
  std::atomic<int64_t> done{0};
  auto run = [&](int i) {
    const int64_t first = blocks * i / workers, last = blocks * (i + 1) / workers;
    const int64_t chunk = options.progress ? std::max<int64_t>(1024, (last - first) / 256) : last - first;
    for (int64_t b = first; b < last; b += chunk) {
      const int64_t end = std::min(last, b + chunk);
      run_range(entry, cfg, layout, b, end, options.rules, tallies[i]);
      if (options.progress) options.progress(done += end - b, blocks);
    }
  };
  if (workers == 1) {
    run(0);
  } else {
    std::vector<std::thread> pool;
    for (int i = 1; i < workers; ++i) pool.emplace_back(run, i);
    run(0);
    for (std::thread& t : pool) t.join();
  }
  for (int i = 1; i < workers; ++i) tallies[0].merge(tallies[i]);
  return std::move(tallies[0]);
}

// By classes when the launch has them and its checks pass (sim/block_classes.hpp), else every block.
Tally replay_tally(const LaunchConfig& cfg, const BufferLayout& layout, const ReplayOptions& options,
                   ReplayPath& path) {
  if (options.exact)
    path.why_full = "the exact replay was asked for";
  else if (options.sector_sink_prototype)
    path.why_full = "the partition counter needs every block's own addresses";
  if (path.why_full.empty()) {
    const ClassPlan plan = plan_block_classes(cfg, options.rules);
    path.why_full = plan.why_not;
    if (path.why_full.empty()) {
      Tally by_classes(cfg.kernel->num_sites);
      path.why_full = replay_by_classes(cfg, layout, plan, options.rules, by_classes);
      if (path.why_full.empty()) {
        path.by_classes = true;
        path.classes = int64_t(plan.classes.size());
        path.blocks_replayed = plan.blocks_to_replay();
        return by_classes;
      }
    }
  }
  path.blocks_replayed = cfg.blocks();
  return replay_every_block(cfg, layout, options);
}

}  // namespace

ReplayResult replay(const LaunchConfig& cfg, const ReplayOptions& options) {
  entry_for(cfg);  // a kernel without a replay entry fails here, before any work
  ReplayResult result;
  result.config = cfg;
  result.layout = default_layout(cfg);
  const int64_t blocks = cfg.blocks();
  Tally tally = replay_tally(cfg, result.layout, options, result.path);
  result.sites = std::move(tally.sites);
  result.findings = std::move(tally.findings);
  result.sectors = std::move(tally.sectors_sink);
  result.warps = blocks * cfg.warps_per_block();
  result.lane_operations = tally.lane_operations;
  for (int i = 0; i < 2; ++i) result.runtime_divisions[i] = tally.runtime_divisions[i];
  result.barriers_per_thread = tally.barriers_per_thread;
  // One block in the middle of the grid stands for all: the suite's blocks differ only at ragged edges. One walk
  // of it gives its partly written lines and its loads' L2 requests.
  const int64_t middle = blocks / 2;
  PartialPieces pieces(options.rules);
  BlockLoads loads(cfg.warps_per_block());
  {
    Tally findings(cfg.kernel->num_sites);
    for_each_warp_access(cfg, middle, middle + 1, Recorders::Counting,
                         [&](int64_t, int warp, const WarpAccess& a) {
                           pieces.add(a, warp);
                           loads.add(a, warp);
                         },
                         findings);
  }
  const PartialLines partial = partial_lines_of(pieces);
  result.partial_lines_per_block = partial.from_warps;
  result.lines_completed_by_one_warp_per_block = partial.completed_by_one_warp;
  result.partial_line_open_rounds = partial.mean_open_rounds;
  result.lines_open_at_once_per_block = partial.lines_open_at_once;
  result.pieces_per_held_sector = partial.pieces_per_held_sector;
  result.lines_held_over_rounds = partial.lines_held_over_rounds;
  result.whole_lines_open_at_once_per_block = partial.whole_lines_open_at_once;
  result.lone_sector_lines_open_at_once_per_block = partial.lone_sector_lines_open_at_once;
  result.whole_sectors_held_over_rounds_per_block = partial.whole_sectors_held_over_rounds;
  result.lone_sectors_held_over_rounds_per_block = partial.lone_sectors_held_over_rounds;
  result.whole_line_rounds_apart = partial.whole_line_rounds_apart;
  result.lines_closed_in_round = partial.lines_closed_in_round;
  result.closed_line_rounds = partial.closed_line_rounds;
  result.next_store_pair_share = partial.next_store_pair_share;
  result.split_sectors_per_block = int64_t(partial.sectors_left_partial.size());
  result.split_line_share_per_block = partial.split_line_share;
  result.sectors_from_warps_per_block = partial.sectors_from_warps;
  result.sectors_from_warps_in_one_round_per_block = partial.sectors_from_warps_in_one_round;
  if (!partial.sectors_left_partial.empty()) {
    // Where a block's piece of a row starts within a line changes from block to block where a tile is not a
    // whole number of sectors wide (f32 tiles of 44: 8 offsets), so the share is pooled over the middle block
    // and the 7 after it in launch order and in its grid column (a transpose's offsets go by the grid row).
    std::array<int64_t, 2> pooled = partial.split_line_whole_sectors;
    const int64_t grid_x = cfg.shape.grid_x;
    const auto pool = [&](int64_t b) {
      if (b >= blocks) return;
      const std::array<int64_t, 2> more = partial_lines_of_block(cfg, b, options.rules).split_line_whole_sectors;
      pooled[0] += more[0], pooled[1] += more[1];
    };
    for (int64_t k = 1; k < 8; ++k) {
      pool(middle + k);
      if (grid_x > 1) pool(middle + k * grid_x);  // a one-column grid's column is its launch order
    }
    result.split_line_whole_share = pooled[1] ? double(pooled[0]) / double(pooled[1]) : 0.0;
  }
  result.split_lane_bytes = partial.split_lane_bytes;
  if (!partial.sectors_left_partial.empty())
    result.split_log2_distance = split_log2_distance_from(cfg, middle, partial.sectors_left_partial, options.rules);
  const L2Reads reads = loads.l2_reads(options.rules);
  result.l2_read_requests_per_block = reads.requests;
  result.l2_hit_load_share = reads.loads > 0 ? double(reads.l2_hit_loads) / double(reads.loads) : 0.0;
  result.first_block =
      first_block_warps(cfg, options.keep_first_block_shared ? &result.first_block_shared : nullptr);
  result.cached = options.cached;
  result.dram_order_resident = options.dram_order_resident;
  if (options.dram_order_resident > 0) {
    const WindowOrder order = window_order(cfg, options.dram_order_resident);
    result.dram_scattered[0] = order.scattered(0);
    result.dram_scattered[1] = order.scattered(1);
  }
  result.counts = launch_counts(result, options.cached);
  return result;
}

FirstBlockWarps first_block_warps(const LaunchConfig& cfg, std::vector<std::pair<int, WarpAccess>>* shared) {
  const int warps = cfg.warps_per_block(), last_site = cfg.kernel->num_sites - 1;
  struct PerWarp {
    double gld = 0, gst = 0, sld = 0, sst = 0, before_store = 0;
    bool stored = false, reaches_last = false;
    std::set<uint64_t> load_rows, store_rows;
    int load_bytes = 0;
    std::vector<double> at_site;
    // Per site, the lanes on at its first access, and whether a later access had other lanes on.
    std::vector<uint32_t> first_mask;
    std::vector<bool> mask_changes;
    std::vector<bool> split_lanes;  // whether some access of the site had some of the warp's lanes on, not all
  };
  std::vector<PerWarp> per(size_t(std::max(1, warps)));
  const size_t sites = size_t(std::max(1, cfg.kernel->num_sites));
  for (PerWarp& w : per) {
    w.at_site.assign(sites, 0);
    w.first_mask.assign(sites, 0);
    w.mask_changes.assign(sites, false);
    w.split_lanes.assign(sites, false);
  }
  // The sites where some lane of the block is off: in a tile inside the matrix, the walks the block does not
  // divide, whose every step tests its position.
  std::vector<bool> guarded(sites, false);
  const int threads = cfg.threads_per_block();
  Tally findings(cfg.kernel->num_sites);
  // Row pitches in bytes: the input's W elements; the output's H where the output is laid out transposed.
  const BufferLayout layout = default_layout(cfg);
  const OutputKind out = cfg.kernel->output;
  const uint64_t in_pitch = uint64_t(std::max<int64_t>(1, cfg.shape.width)) * uint64_t(layout.elem_bytes);
  const uint64_t out_pitch =
      uint64_t(std::max<int64_t>(1, out == OutputKind::Transpose || out == OutputKind::TilesMoved ? cfg.shape.height
                                                                                                  : cfg.shape.width)) *
      uint64_t(layout.elem_bytes);
  for_each_warp_access(cfg, 0, 1, Recorders::Counting,
                       [&](int64_t, int warp, const WarpAccess& a) {
                         PerWarp& w = per[size_t(warp)];
                         const bool global = a.space == Space::Global;
                         const int lanes = std::min(32, threads - 32 * warp);
                         const uint32_t all = lanes >= 32 ? ~0u : (1u << lanes) - 1;
                         const size_t site = size_t(a.site);
                         const uint32_t on = a.mask & all;
                         if (w.at_site[site] == 0) w.first_mask[site] = on;
                         else if (on != w.first_mask[site]) w.mask_changes[site] = true;
                         w.at_site[site] += 1;
                         if (on != all) guarded[site] = true;
                         if (on != all && on != 0) w.split_lanes[site] = true;
                         if (a.op == Op::Load) {
                           (global ? w.gld : w.sld) += 1;
                           if (global && !w.stored) w.before_store += 1;
                         } else {
                           (global ? w.gst : w.sst) += 1;
                           w.stored = w.stored || global;
                         }
                         if (global && a.mask) {
                           const uint64_t first = a.addr[__builtin_ctz(a.mask)];
                           if (a.op == Op::Load) {
                             w.load_rows.insert((first - layout.in_base) / in_pitch);
                             w.load_bytes = std::max(w.load_bytes, int(a.width));
                           } else {
                             w.store_rows.insert((first - layout.out_base) / out_pitch);
                           }
                         }
                         if (a.site == last_site && a.mask) w.reaches_last = true;
                         if (shared && a.space == Space::Shared && a.mask) shared->emplace_back(warp, a);
                       },
                       findings);
  const auto busiest = std::max_element(per.begin(), per.end(), [](const PerWarp& a, const PerWarp& b) {
    return a.gld + a.gst + a.sld + a.sst < b.gld + b.gst + b.sld + b.sst;
  });
  FirstBlockWarps f;
  f.global_loads = busiest->gld;
  f.global_stores = busiest->gst;
  f.shared_loads = busiest->sld;
  f.shared_stores = busiest->sst;
  f.loads_before_store = busiest->before_store;
  f.load_rows = double(busiest->load_rows.size());
  f.store_rows = double(busiest->store_rows.size());
  f.load_bytes = busiest->load_bytes;
  const bool one_row = busiest->load_rows.size() <= 1 && busiest->store_rows.size() <= 1;
  for (size_t site = 0; site < guarded.size(); ++site) {
    // ... or where some warp makes fewer accesses than another (the replay may skip a warp's access with no
    // lane on).
    for (const PerWarp& w : per) guarded[site] = guarded[site] || w.at_site[site] != busiest->at_site[site];
    if (!guarded[site]) continue;
    f.guarded_accesses += busiest->at_site[site];
    // The guard varies from step to step where a warp's lanes change between the site's accesses, or where a
    // warp makes some of the site's accesses but not all (the replay skips an access with no lane on).
    bool varies = false, whole_warps = true;
    for (const PerWarp& w : per) {
      varies = varies || w.mask_changes[site] || (w.at_site[site] > 0 && w.at_site[site] < busiest->at_site[site]);
      whole_warps = whole_warps && !w.split_lanes[site];
    }
    if (varies) f.varying_guard_accesses += busiest->at_site[site];
    if (whole_warps) f.whole_warp_guard_accesses += busiest->at_site[site];
    // One test for all of a site's accesses where its guard never changes and every address comes off the
    // prologue's pointers (the warp's loads and its stores each in one row); one an access otherwise.
    if (!varies && one_row) f.guard_tests += busiest->at_site[site] > 0 ? 1 : 0;
    else f.guard_tests += busiest->at_site[site];
  }
  for (int w = 0; w < warps; ++w) f.early_exit_warps += per[size_t(w)].reaches_last ? 0 : 1;
  return f;
}

std::vector<Metric> ncu_metrics(const ReplayResult& r) {
  int64_t g_req[2] = {0, 0}, g_sec[2] = {0, 0}, s_inst[2] = {0, 0}, s_wave[2] = {0, 0}, s_conf[2] = {0, 0};
  int64_t g_wave = 0;
  for (int i = 0; i < r.config.kernel->num_sites; ++i) {
    const SiteInfo& info = r.config.kernel->sites[i];
    const SiteCounts& c = r.sites[i];
    const int op = info.op == Op::Load ? 0 : 1;
    if (info.space == Space::Global) {
      g_req[op] += c.instructions;
      g_sec[op] += c.sectors;
      g_wave += c.l1_wavefronts;
    } else {
      s_inst[op] += c.instructions;
      s_wave[op] += c.wavefronts;
      s_conf[op] += c.bank_conflicts();
    }
  }
  return {
      {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", g_req[0]},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", g_req[1]},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", g_sec[0]},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", g_sec[1]},
      // L1 data-stage wavefronts of local/global requests (the kernels have no local memory), loads and stores.
      {"l1tex__data_pipe_lsu_wavefronts_mem_lgds.sum", g_wave},
      {"smsp__inst_executed_op_shared_ld.sum", s_inst[0]},
      {"smsp__inst_executed_op_shared_st.sum", s_inst[1]},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", s_wave[0]},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", s_wave[1]},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", s_conf[0]},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", s_conf[1]},
  };
}

int64_t metric_value(const std::vector<Metric>& metrics, const std::string& name) {
  for (const Metric& m : metrics)
    if (m.name == name) return m.value;
  throw std::out_of_range("no metric " + name);
}

}  // namespace memsim
