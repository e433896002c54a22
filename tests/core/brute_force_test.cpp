// An independent, deliberately plain replayer checked against memsim::replay(): every thread of every block
// runs the kernel's own body with a logging memory policy; the log is grouped with std::map into warp
// instructions by (warp, site, occurrence of the site in that thread); sectors are counted with a std::set of
// byte / 32 over every byte a lane touches, wavefronts with a std::map<bank, std::set<word>> per phase. None
// of sim/ (recorder, tally, counters, replay threading) is used on this side, so a disagreement in any
// per-site total points at that machinery.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/registry.hpp"
#include "kernels/resolve.hpp"
#include "kernels/suite.hpp"
#include "sim/replay.hpp"

namespace memsim {
namespace {

struct LaneAccess {
  int lane;
  uint64_t addr;  // bytes
  int width;
  Space space;
  Op op;
};

struct BruteSite {
  int64_t instructions = 0, lane_accesses = 0, bytes = 0;
  int64_t sectors = 0, ideal_sectors = 0, lines = 0, wavefronts = 0, ideal_wavefronts = 0;
  int64_t l1_wavefronts = 0;  // global: per group of 128 / width lanes, max(most words a bank, lines / 4), summed
  std::vector<std::vector<int64_t>> first_block_bank_words;
};

struct BruteFinding {
  int64_t count = 0;
  ThreadCoord first{};
  int64_t first_offset = 0;
  int width = 0;
};

// Per warp (launch order) and site: occurrences every thread made, and 1 + the last occurrence with an
// active lane (0 if none). Only for the guard against bug B1 below.
struct WarpOccurrences {
  std::vector<int> made, last_active;
};

struct BruteResult {
  std::vector<WarpOccurrences> warp_occurrences;
  std::vector<BruteSite> sites;
  std::map<std::pair<int, int>, BruteFinding> findings;  // (kind: 0 misaligned / 1 out of bounds, site)
  int64_t warps = 0;
};

// Instruction key inside one block: (warp, site, occurrence).
using Key = std::tuple<int, int, int>;

template <class T>
struct LogMem {
  using Elem = T;
  std::map<Key, std::vector<LaneAccess>>* groups = nullptr;
  BruteResult* result = nullptr;
  std::map<int, int> occurrence;  // per site, for the current thread
  ThreadCoord thread{};
  int warp = 0, lane = 0;
  uint64_t in_base = 0, out_base = 0;
  int64_t in_elems = 0, out_elems = 0, shared_elems = 0;

  void log(int site, bool pred, int64_t off, int width, Space space, Op op, uint64_t base, int64_t elems) {
    const int occ = occurrence[site]++;
    if (!pred) return;
    const uint64_t addr = base + uint64_t(off * int64_t(sizeof(T)));
    (*groups)[Key{warp, site, occ}].push_back({lane, addr, width, space, op});
    const bool misaligned = (off * int64_t(sizeof(T))) % width != 0;
    const bool oob = off < 0 || off * int64_t(sizeof(T)) + width > elems * int64_t(sizeof(T));
    for (int kind = 0; kind < 2; ++kind) {
      if (!(kind == 0 ? misaligned : oob)) continue;
      BruteFinding& f = result->findings[{kind, site}];
      if (f.count++ == 0) {
        f.first = thread;
        f.first_offset = off;
        f.width = width;
      }
    }
  }
  template <class V>
  V load_global(int site, bool pred, int64_t off) {
    log(site, pred, off, sizeof(V), Space::Global, Op::Load, in_base, in_elems);
    return V{};
  }
  template <class V>
  void store_global(int site, bool pred, int64_t off, const V&) {
    log(site, pred, off, sizeof(V), Space::Global, Op::Store, out_base, out_elems);
  }
  template <class V>
  V load_shared(int site, bool pred, int off) {
    log(site, pred, off, sizeof(V), Space::Shared, Op::Load, 0, shared_elems);
    return V{};
  }
  template <class V>
  void store_shared(int site, bool pred, int off, const V&) {
    log(site, pred, off, sizeof(V), Space::Shared, Op::Store, 0, shared_elems);
  }
  void sync() {}
};

void count_block(const std::map<Key, std::vector<LaneAccess>>& groups, const KernelInfo& k, bool first_block,
                 BruteResult& r) {
  for (const auto& [key, lanes] : groups) {
    const int site = std::get<1>(key);
    BruteSite& s = r.sites[site];
    const int width = lanes.front().width;
    for (const LaneAccess& a : lanes) {
      // Every lane of one instruction agrees on what the instruction is.
      EXPECT_EQ(a.width, width);
      EXPECT_EQ(a.space, k.sites[site].space) << k.name << " site " << site;
      EXPECT_EQ(a.op, k.sites[site].op) << k.name << " site " << site;
    }
    std::set<int> lane_ids;
    for (const LaneAccess& a : lanes) lane_ids.insert(a.lane);
    EXPECT_EQ(lane_ids.size(), lanes.size()) << "a lane reached one (site, occurrence) twice";
    const int64_t bytes = int64_t(lanes.size()) * width;
    s.instructions += 1;
    s.lane_accesses += int64_t(lanes.size());
    s.bytes += bytes;
    if (k.sites[site].space == Space::Global) {
      std::set<uint64_t> sectors, lines;
      for (const LaneAccess& a : lanes)
        for (uint64_t b = a.addr; b < a.addr + uint64_t(a.width); ++b) sectors.insert(b / 32), lines.insert(b / 128);
      s.sectors += int64_t(sectors.size());
      s.lines += int64_t(lines.size());
      s.ideal_sectors += (bytes + 31) / 32;
      const int group = std::max(1, std::min(32, 128 / width));
      // Each group's distinct 4-byte words by bank (word mod 32) and its lines: max(fullest bank, lines / 4).
      std::map<int, std::set<uint64_t>> group_words, group_lines;
      for (const LaneAccess& a : lanes)
        for (uint64_t b = a.addr; b < a.addr + uint64_t(a.width); ++b)
          group_words[a.lane / group].insert(b / 4), group_lines[a.lane / group].insert(b / 128);
      for (const auto& [g, ws] : group_words) {
        std::map<uint64_t, int64_t> per_bank;
        int64_t fullest = 0;
        for (uint64_t word : ws) fullest = std::max(fullest, ++per_bank[word % 32]);
        s.l1_wavefronts += std::max(fullest, int64_t((group_lines[g].size() + 3) / 4));
      }
    } else {
      const int phase_lanes = width <= 4 ? 32 : width == 8 ? 16 : 8;
      std::vector<int64_t> bank_words(32, 0);
      for (int phase = 0; phase < 32 / phase_lanes; ++phase) {
        std::map<int, std::set<uint64_t>> banks;
        for (const LaneAccess& a : lanes) {
          if (a.lane / phase_lanes != phase) continue;
          for (uint64_t b = a.addr; b < a.addr + uint64_t(a.width); ++b) banks[int((b / 4) % 32)].insert(b / 4);
        }
        size_t worst = 0;
        for (const auto& [bank, words] : banks) {
          worst = std::max(worst, words.size());
          bank_words[bank] += int64_t(words.size());
        }
        s.wavefronts += int64_t(worst);
      }
      // One wavefront for each phase with an active lane (a full warp: bytes / 128).
      std::set<int> active_phases;
      for (const LaneAccess& a : lanes) active_phases.insert(a.lane / phase_lanes);
      s.ideal_wavefronts += int64_t(active_phases.size());
      if (first_block) s.first_block_bank_words.push_back(bank_words);
    }
  }
}

template <class K, class T>
BruteResult brute(const LaunchConfig& cfg) {
  const LaunchShape& s = cfg.shape;
  const KernelInfo& k = *cfg.kernel;
  BruteResult r;
  r.sites.resize(k.num_sites);
  LogMem<T> mem;
  mem.result = &r;
  mem.in_base = uint64_t(1) << 40;  // any sector-aligned bases give the same counts
  mem.out_base = uint64_t(3) << 40;
  mem.in_elems = mem.out_elems = s.width * s.height;
  mem.shared_elems = k.uses_shared_tile ? int64_t(s.tile_y) * (s.tile_x + s.pad) : 0;
  const int threads = s.block_x * s.block_y;
  const int warps = (threads + 31) / 32;
  for (int by = 0; by < s.grid_y; ++by) {
    for (int bx = 0; bx < s.grid_x; ++bx) {
      std::map<Key, std::vector<LaneAccess>> groups;
      mem.groups = &groups;
      const size_t first_warp = r.warp_occurrences.size();
      for (int w = 0; w < warps; ++w)
        r.warp_occurrences.push_back({std::vector<int>(k.num_sites, 0), std::vector<int>(k.num_sites, 0)});
      for (int tid = 0; tid < threads; ++tid) {
        ThreadCoord t;
        t.block_x = bx;
        t.block_y = by;
        t.thread_x = tid % s.block_x;
        t.thread_y = tid / s.block_x;
        mem.thread = t;
        mem.warp = tid / 32;
        mem.lane = tid % 32;
        mem.occurrence.clear();
        K::body(mem, s, t);
        for (const auto& [site, n] : mem.occurrence) {
          int& made = r.warp_occurrences[first_warp + mem.warp].made[site];
          made = std::max(made, n);
        }
      }
      for (const auto& [key, lanes] : groups) {
        int& last = r.warp_occurrences[first_warp + std::get<0>(key)].last_active[std::get<1>(key)];
        last = std::max(last, std::get<2>(key) + 1);
      }
      count_block(groups, k, bx == 0 && by == 0, r);
      r.warps += (threads + 31) / 32;
    }
  }
  return r;
}

using BruteFn = BruteResult (*)(const LaunchConfig&);
struct BruteEntry {
  const char* name;
  BruteFn by_dtype[3];
};
#define MEMSIM_TEST_BRUTE_ENTRY(K) \
  {suite::K::info().name, {&brute<suite::K, uint16_t>, &brute<suite::K, float>, &brute<suite::K, double>}},
const std::vector<BruteEntry>& brute_entries() {
  static const std::vector<BruteEntry> all{MEMSIM_KERNEL_SUITE(MEMSIM_TEST_BRUTE_ENTRY)};
  return all;
}
#undef MEMSIM_TEST_BRUTE_ENTRY

BruteResult run_brute(const LaunchConfig& cfg) {
  for (const BruteEntry& e : brute_entries())
    if (std::string(e.name) == cfg.kernel->name) return e.by_dtype[int(cfg.dtype)](cfg);
  ADD_FAILURE() << "no brute-force entry for " << cfg.kernel->name;
  return {};
}

struct Case {
  Size2 matrix, block;
  std::optional<Size2> tile;
  std::optional<int> pad;
  int threads;
};

std::string describe(const UserConfig& u, int threads) {
  std::string d = u.kernel + " " + format_size2(u.matrix) + " block " + format_size2(u.block) + " " +
                  dtype_name(u.dtype);
  if (u.tile) d += " tile " + format_size2(*u.tile);
  if (u.pad) d += " pad " + std::to_string(*u.pad);
  return d + " threads " + std::to_string(threads);
}

void compare(const ReplayResult& got, const BruteResult& want, const std::string& what) {
  const KernelInfo& k = *got.config.kernel;
  ASSERT_EQ(int(got.sites.size()), k.num_sites) << what;
  EXPECT_EQ(got.warps, want.warps) << what;
  for (int i = 0; i < k.num_sites; ++i) {
    const SiteCounts& g = got.sites[i];
    const BruteSite& w = want.sites[i];
    const std::string where = what + " site " + std::to_string(i) + " (" + k.sites[i].name + ")";
    EXPECT_EQ(g.instructions, w.instructions) << where;
    EXPECT_EQ(g.lane_accesses, w.lane_accesses) << where;
    EXPECT_EQ(g.bytes, w.bytes) << where;
    EXPECT_EQ(g.sectors, w.sectors) << where;
    EXPECT_EQ(g.ideal_sectors, w.ideal_sectors) << where;
    EXPECT_EQ(g.lines, w.lines) << where;
    EXPECT_EQ(g.l1_wavefronts, w.l1_wavefronts) << where;
    EXPECT_EQ(g.wavefronts, w.wavefronts) << where;
    EXPECT_EQ(g.ideal_wavefronts, w.ideal_wavefronts) << where;
    EXPECT_EQ(g.first_block_bank_words, w.first_block_bank_words) << where;
  }
  // Findings: same (kind, site) set, counts and first offenders.
  EXPECT_EQ(got.findings.size(), want.findings.size()) << what;
  for (const Finding& f : got.findings) {
    auto it = want.findings.find({f.kind == FindingKind::Misaligned ? 0 : 1, f.site});
    if (it == want.findings.end()) {
      ADD_FAILURE() << what << ": unexpected finding " << finding_kind_name(f.kind) << " at site " << f.site;
      continue;
    }
    EXPECT_EQ(f.count, it->second.count) << what;
    EXPECT_EQ(f.first_offset, it->second.first_offset) << what;
    EXPECT_EQ(f.width, it->second.width) << what;
    EXPECT_EQ(f.first.block_x, it->second.first.block_x) << what;
    EXPECT_EQ(f.first.block_y, it->second.first.block_y) << what;
    EXPECT_EQ(f.first.thread_x, it->second.first.thread_x) << what;
    EXPECT_EQ(f.first.thread_y, it->second.first.thread_y) << what;
  }
}

// Bug B1 (fixed; sim/recorder.hpp, Recorder::flush): the record table holds `capacity_` occurrences per site (8 at
// first) and grows only when an *active* lane reaches an occurrence past it; flush then walks
// max(used_, occurrence_) occurrences, so a warp whose occurrences past the capacity are all predicated off
// reads (and zeroes) the next site's records, and past the end of the table for the last site (heap
// overflow: e.g. `memsim --kernel naive --matrix 64x8 --block 32x2` reports its stores under the load site;
// `--kernel vec4_shared --matrix 64x64` aborts in malloc). This replays the recorder's capacity per worker to
// tell whether a launch exercises that path, which the tests below pin.
bool hits_bug_b1(const BruteResult& b, const LaunchConfig& cfg, int threads) {
  const int64_t blocks = cfg.blocks();
  const int64_t workers = std::max<int64_t>(1, std::min<int64_t>(threads, blocks / 256));
  const int warps = cfg.warps_per_block();
  for (int64_t i = 0; i < workers; ++i) {
    int capacity = 8;
    for (int64_t blk = blocks * i / workers; blk < blocks * (i + 1) / workers; ++blk) {
      for (int w = 0; w < warps; ++w) {
        const WarpOccurrences& o = b.warp_occurrences[size_t(blk * warps + w)];
        for (int last : o.last_active)
          while (capacity < last) capacity *= 2;
        for (int made : o.made)
          if (made > capacity) return true;
      }
    }
  }
  return false;
}

class BruteForce : public ::testing::TestWithParam<const char*> {};

TEST_P(BruteForce, EveryDtypeAndShapeMatchesReplay) {
  const std::string kernel = GetParam();
  // Shapes: whole tiles, partial tiles (100x37, odd sizes), warps split over block rows (8x32, 16x16),
  // blocks that are not a multiple of the warp (12x5: a 28-lane second warp; 4x4: 16-lane warps, and with
  // 1024 blocks the replay runs 2 workers), a non-default tile and non-default pads.
  const std::vector<Case> cases = {
      {{64, 64}, {32, 8}, {}, {}, 1},
      {{64, 64}, {32, 32}, {}, {}, 1},
      {{96, 64}, {8, 32}, {}, {}, 1},
      {{96, 64}, {16, 16}, {}, {}, 1},
      {{100, 37}, {32, 8}, {}, {}, 1},
      {{100, 37}, {12, 5}, {}, {}, 1},
      {{37, 100}, {16, 8}, {}, {}, 1},
      {{128, 128}, {4, 4}, {}, {}, 2},
      {{128, 96}, {32, 8}, Size2{64, 32}, {}, 1},
      {{64, 64}, {32, 8}, {}, 2, 1},
      {{64, 64}, {32, 8}, {}, 0, 1},
      // Sides and a pad in whole 16-byte pieces of every dtype (best reads and writes 16-byte pieces both ways).
      {{120, 40}, {16, 16}, {}, {}, 1},
      {{64, 64}, {16, 16}, {}, 8, 1},
  };
  int ran = 0, past_capacity = 0;
  for (const Case& c : cases) {
    for (Dtype d : {Dtype::F16, Dtype::F32, Dtype::F64}) {
      UserConfig u;
      u.kernel = kernel;
      u.matrix = c.matrix;
      u.block = c.block;
      u.tile = c.tile;
      u.pad = c.pad;
      u.dtype = d;
      const std::optional<LaunchConfig> launch = try_resolve_launch(u);
      if (!launch) continue;  // e.g. reg4x4 on 37 rows, coarse on partial tiles, --pad on a kernel without a tile
      const LaunchConfig& cfg = *launch;
      const std::string what = describe(u, c.threads);
      const BruteResult want = run_brute(cfg);
      if (hits_bug_b1(want, cfg, c.threads)) ++past_capacity;  // bug B1's launches, fixed: compared like the rest
      ReplayOptions opt;
      opt.threads = c.threads;
      const ReplayResult got = replay(cfg, opt);
      compare(got, want, what);
      // The suite's kernels, on legal launches, make no misaligned or out-of-bounds access.
      EXPECT_TRUE(want.findings.empty()) << what;
      ++ran;
      if (HasFailure()) return;  // one config's diagnostics are enough
    }
  }
  // Every kernel runs on most of these shapes; the two half-transposes need whole square tiles.
  EXPECT_GE(ran, 3 * 4) << kernel;
  RecordProperty("launches_past_recorder_capacity", past_capacity);
}

// The smallest launches that hit bug B1, checked against the brute force once it is fixed. naive 64x8 with a
// 32x2 block: tile 32x32, 16 steps per thread of which only the first 4 have rows < 8; expected per site 16
// instructions, ld 4 sectors each (64), st 32 each (512).
TEST(BruteForceBugB1, TrailingInactiveOccurrencesPastCapacity) {
  for (const char* k : {"naive", "copy", "padded", "vec4_shared"}) {
    UserConfig u;
    u.kernel = k;
    u.matrix = std::string(k) == "vec4_shared" ? Size2{64, 64} : Size2{64, 8};
    u.block = std::string(k) == "vec4_shared" ? Size2{32, 8} : Size2{32, 2};
    const LaunchConfig cfg = resolve_launch(u);
    const BruteResult want = run_brute(cfg);
    if (std::string(k) == "naive" || std::string(k) == "vec4_shared") {
      EXPECT_TRUE(hits_bug_b1(want, cfg, 1)) << k;
    }
    ReplayOptions opt;
    opt.threads = 1;
    compare(replay(cfg, opt), want, std::string(k) + " " + format_size2(u.matrix));
    if (std::string(k) == "naive") {
      EXPECT_EQ(want.sites[0].instructions, 16);
      EXPECT_EQ(want.sites[0].sectors, 64);
      EXPECT_EQ(want.sites[1].sectors, 512);
    }
  }
}

std::vector<const char*> all_kernel_names() {
  std::vector<const char*> names;
  for (const KernelInfo& k : kernel_suite()) names.push_back(k.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Suite, BruteForce, ::testing::ValuesIn(all_kernel_names()),
                         [](const ::testing::TestParamInfo<const char*>& p) { return std::string(p.param); });

// The split over worker threads must not change anything: totals, first-block heatmap rows, findings.
TEST(ReplayThreads, OneTwoAndThreeWorkersAgree) {
  for (const KernelInfo& k : kernel_suite()) {
    for (Dtype d : {Dtype::F16, Dtype::F32, Dtype::F64}) {
      UserConfig u;
      u.kernel = k.name;
      u.matrix = {256, 512};
      // 256x512 with 4x8 blocks: scalar tiles 4x8 (4096 blocks), vec4 16x8 (1024); reg4x4 gets 4x2 blocks
      // (tile 16x8, 1024 blocks); coarse/fine need a square tile and get 8x8 blocks (2048 blocks).
      // best covers E x E elements a thread in a square tile: 1x1 blocks (tiles of 8x8 f16 to 2x2 f64).
      u.block = k.square_tile_only                    ? Size2{8, 8}
                : k.footprint == Footprint::Reg4x4    ? Size2{4, 2}
                : k.footprint == Footprint::Chunk16   ? Size2{1, 1}
                                                      : Size2{4, 8};
      u.dtype = d;
      const LaunchConfig cfg = resolve_launch(u);
      ASSERT_GE(cfg.blocks(), 3 * 256) << k.name << ": too few blocks for the replay to use 3 workers";
      std::vector<ReplayResult> runs;
      for (int threads : {1, 2, 3}) {
        ReplayOptions opt;
        opt.threads = threads;
        runs.push_back(replay(cfg, opt));
      }
      for (int r = 1; r < 3; ++r) {
        const std::string what = std::string(k.name) + " " + dtype_name(d) + " run " + std::to_string(r);
        ASSERT_EQ(runs[r].sites.size(), runs[0].sites.size());
        EXPECT_EQ(runs[r].warps, runs[0].warps) << what;
        for (size_t i = 0; i < runs[0].sites.size(); ++i) {
          const SiteCounts &a = runs[0].sites[i], &b = runs[r].sites[i];
          EXPECT_EQ(a.instructions, b.instructions) << what;
          EXPECT_EQ(a.lane_accesses, b.lane_accesses) << what;
          EXPECT_EQ(a.bytes, b.bytes) << what;
          EXPECT_EQ(a.sectors, b.sectors) << what;
          EXPECT_EQ(a.ideal_sectors, b.ideal_sectors) << what;
          EXPECT_EQ(a.lines, b.lines) << what;
          EXPECT_EQ(a.l1_wavefronts, b.l1_wavefronts) << what;
          EXPECT_EQ(a.wavefronts, b.wavefronts) << what;
          EXPECT_EQ(a.ideal_wavefronts, b.ideal_wavefronts) << what;
          EXPECT_EQ(a.first_block_bank_words, b.first_block_bank_words) << what;
        }
        EXPECT_EQ(runs[r].findings.size(), runs[0].findings.size()) << what;
        // Launch totals from the geometry: every element read once and written once.
        int64_t ld_bytes = 0, st_bytes = 0;
        for (size_t i = 0; i < runs[r].sites.size(); ++i)
          if (k.sites[i].space == Space::Global) (k.sites[i].op == Op::Load ? ld_bytes : st_bytes) += runs[r].sites[i].bytes;
        EXPECT_EQ(ld_bytes, 256 * 512 * dtype_bytes(d)) << what;
        EXPECT_EQ(st_bytes, 256 * 512 * dtype_bytes(d)) << what;
      }
    }
  }
}

}  // namespace
}  // namespace memsim
