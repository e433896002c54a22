#pragma once
// What the replay accumulates: per-site counts, findings, and (optionally) every global access's sectors
// handed to a SectorSink (the partition-camping counter). Plain records, merged by addition.
#include <cstdint>
#include <memory>
#include <tuple>
#include <vector>

#include "core/device_rules.hpp"
#include "kernels/launch_shape.hpp"
#include "sim/coalescing_cc1x.hpp"
#include "sim/global_sectors.hpp"
#include "sim/shared_banks.hpp"
#include "sim/warp_access.hpp"

namespace memsim {

struct SiteCounts {
  int64_t instructions = 0;  // warp instructions with >= 1 active lane (= requests for global)
  int64_t lane_accesses = 0;
  int64_t bytes = 0;  // bytes the active lanes asked for
  int64_t sectors = 0, ideal_sectors = 0;        // global
  int64_t lines = 0;  // global: distinct lines per request, summed (L2 requests; 0 under the CC 1.x rules)
  // global: of the sectors, those a request writes only in part, and the lines holding them, summed over the
  // requests (sim/global_sectors.hpp; 0 under the CC 1.x rules)
  int64_t partial_sectors = 0, partial_lines = 0;
  int64_t l1_wavefronts = 0;  // global: L1 data-stage passes (sim/global_sectors.hpp; 0 under the CC 1.x rules)
  // global, CC 1.x rules only (0 otherwise): memory transactions issued per half-warp; `sectors` then counts
  // the bytes those transactions move in sector_bytes units, and `instructions` stays warp instructions.
  int64_t transactions = 0;
  int64_t wavefronts = 0, ideal_wavefronts = 0;  // shared
  // shared: for each warp instruction of the first block (launch order), the distinct words each bank
  // delivered; a bank-usage heatmap shows a conflict as one hot column.
  std::vector<std::vector<int64_t>> first_block_bank_words;
  int64_t bank_conflicts() const { return wavefronts - ideal_wavefronts; }
  // Every count but the bank rows, to compare two sites' counts whole.
  auto counts() const {
    return std::tie(instructions, lane_accesses, bytes, sectors, ideal_sectors, lines, partial_sectors, partial_lines,
                    l1_wavefronts, transactions, wavefronts, ideal_wavefronts);
  }
  void add(const SiteCounts& o) { add_times(o, 1); }
  // Adds `times` copies of o's counts (the replay by block classes, sim/block_classes.hpp); the bank rows are
  // the first block's, taken once.
  void add_times(const SiteCounts& o, int64_t times);
};

enum class FindingKind { Misaligned, OutOfBounds };
const char* finding_kind_name(FindingKind k);

struct Finding {
  FindingKind kind = FindingKind::Misaligned;
  int site = 0;
  int64_t count = 0;       // offending lane accesses
  ThreadCoord first{};     // first offending thread in launch order
  int64_t first_offset = 0;  // its element offset into the matrix or tile
  int width = 0;
};

// Receives the distinct sectors of every global warp access with the linear id of the block that made it.
// Under the CC 1.x rules it receives the sectors of every transaction instead (a sector that two
// transactions move comes twice), so that sectors x sector_bytes is always the traffic.
class SectorSink {
 public:
  virtual ~SectorSink() = default;
  virtual void add(int64_t block_linear, Op op, const uint64_t* sectors, int count) = 0;
  virtual std::unique_ptr<SectorSink> clone_empty() const = 0;
  virtual void merge_from(const SectorSink& other) = 0;
};

struct Tally {
  std::vector<SiteCounts> sites;
  std::vector<Finding> findings;
  std::unique_ptr<SectorSink> sectors_sink;
  int64_t lane_operations = 0;  // sim/lanes.hpp: the warp replay's operations (0 for lane-by-lane bodies)
  int64_t runtime_divisions[2] = {0, 0};  // kernels/runtime_division.hpp: 32- and 64-bit, likewise
  int barriers_per_thread = 0;  // __syncthreads() a thread passes (set by the worker that replays block 0)

  explicit Tally(int num_sites) : sites(num_sites) {}
  void add(const WarpAccess& w, int64_t block_linear, const MemoryRules& rules);
  // Inline: a kernel compiled at run time (sim/plugin_entry.hpp) reports its findings through it too.
  void note_finding(FindingKind kind, int site, const ThreadCoord& t, int64_t offset, int width) {
    for (Finding& f : findings) {
      if (f.kind == kind && f.site == site) {
        ++f.count;
        return;
      }
    }
    findings.push_back({kind, site, 1, t, offset, width});
  }
  // Adds `later`, a tally of blocks that come after this one's in launch order.
  void merge(const Tally& later);
};

}  // namespace memsim
