#pragma once
// DRAM partition camping (docs/hardware.md, "DRAM partitions"; the whitepaper, docs/sources.md): which partition serves
// each byte of global traffic, which blocks are resident together, and how unevenly the resident blocks' traffic falls
// on the partitions.
//
// Three pieces, each usable alone:
//  - the address-to-partition mapping (a PartitionSpec evaluated by partition_of), a swappable policy as in
//    gpgpu-sim's addrdec: linear interleave (GT200, G80) or an XOR hash (the assumed stand-in for Fermi and
//    later, whose real hashes are not public);
//  - the block schedule: which blocks are resident in each window of time;
//  - the counter (PartitionTrafficSink, a SectorSink the replay feeds) and its summary per window.
//
// Schedule model (a simplification; the hardware's is not observable): blocks become resident in linear block
// id order (blockIdx.x + gridDim.x * blockIdx.y, as the hardware dispatches), R at a time (R = SMs x resident
// blocks per SM, capped by the launch), and retire in the order they started. Every block of a transpose does
// the same work, so first-in-first-out retirement is what equal-length blocks do; the whitepaper notes that
// the resident set is contiguous at first and drifts apart later, which this model ignores. Window k is the
// set of blocks resident after k x step retirements: blocks [k * step, min(k * step + R, blocks)). step = R
// gives non-overlapping waves (every block in exactly one window: the default), step = 1 a window after every
// retirement. Windows stop once the last block has started; the drain after it only shrinks the last window.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/partition_spec.hpp"
#include "sim/tally.hpp"

namespace memsim {

// ---------------------------------------------------------------------------------------------------------
// Address-to-partition mapping

// The partition that serves byte address `addr`.
//  Linear:  (addr / granularity) mod count.
//  XorHash: chunk = addr / granularity; fold = XOR of the address bits listed in xor_bits, bit xor_bits[i]
//           going to bit (i mod b) of the fold, b = bits needed for count - 1 (ceil(log2(count)), at least 1);
//           partition = (chunk XOR fold) mod count. With a power-of-two count this flips the partition index
//           bits of the linear mapping by the chosen higher address bits.
int partition_of(const PartitionSpec& spec, uint64_t addr);

// Empty when the spec is usable; otherwise one line saying why not (count < 1, granularity < 1, a bit
// outside 0..63).
std::string check_partition_spec(const PartitionSpec& spec);

// The mappings memsim knows. GT200 (GTX 280, 200 series, Tesla 10): 8 partitions of 256 B; G80 (8 and 9
// series): 6 of 256 B (the whitepaper, "Partition Camping").
PartitionSpec gt200_partitions();
PartitionSpec g80_partitions();
PartitionSpec linear_partitions(int count, int granularity_bytes, std::string note);
// A stand-in for devices whose mapping is not public (Fermi and later): `count` partitions interleaved every
// `granularity_bytes`, the partition index XORed with every address bit above the interleave up to bit
// `top_bit` (folded cyclically). Marked assumed: reports must say so.
PartitionSpec assumed_hashed_partitions(int count, int granularity_bytes, int top_bit = 33);

const char* partition_policy_name(PartitionSpec::Policy p);  // "linear" | "xor_hash"

// ---------------------------------------------------------------------------------------------------------
// Block schedule

struct BlockSchedule {
  int64_t blocks = 0;    // blocks in the launch
  int64_t resident = 1;  // R: blocks resident at once
  int64_t step = 1;      // retirements from one window to the next
};

struct BlockRange {
  int64_t first = 0, last = 0;  // [first, last) in linear block id
  int64_t size() const { return last - first; }
};

// R for a device: every SM holds `blocks_per_sm` blocks (the occupancy limit for this launch), capped by the
// launch. At least 1.
int64_t resident_blocks(int sms, int blocks_per_sm, int64_t launch_blocks);
// A schedule with R capped to the launch; step 0 means step = R (non-overlapping waves); step is capped to R.
BlockSchedule block_schedule(int64_t launch_blocks, int64_t resident, int64_t step = 0);
// 1 + ceil(max(0, blocks - R) / step) windows for a non-empty launch, 0 for an empty one.
int64_t window_count(const BlockSchedule& s);
BlockRange window_blocks(const BlockSchedule& s, int64_t k);

// ---------------------------------------------------------------------------------------------------------
// The counter

// Bytes each partition serves, for loads and stores apart, accumulated per group of G consecutive blocks,
// G = gcd(R, step): every window is then a whole number of groups, and the memory needed is
// blocks / G x partitions x 2 counts. Groups are added independently, so merging is exact however the replay
// splits blocks among workers. Each sector handed in moves sector_bytes bytes; a sector that crosses a
// partition boundary (granularity not a multiple of sector_bytes) is split byte-exactly.
class PartitionTrafficSink final : public SectorSink {
 public:
  PartitionTrafficSink(const PartitionSpec& spec, const BlockSchedule& schedule, int sector_bytes = 32);

  void add(int64_t block_linear, Op op, const uint64_t* sectors, int count) override;
  std::unique_ptr<SectorSink> clone_empty() const override;
  void merge_from(const SectorSink& other) override;

  const PartitionSpec& spec() const { return spec_; }
  const BlockSchedule& schedule() const { return schedule_; }
  int sector_bytes() const { return sector_bytes_; }
  int64_t group_blocks() const { return group_; }
  // Bytes of direction `op` that partition `p` served for the blocks of group g (blocks [g*G, (g+1)*G)).
  int64_t bytes(int64_t group, Op op, int partition) const;
  // Sectors that came with a block id outside [0, schedule.blocks): a caller's mistake, reported by
  // summarize_partition_traffic rather than thrown from a replay worker.
  int64_t stray_sectors() const { return stray_; }

 private:
  int64_t* row(int64_t group);  // grows the stored range of groups to include `group`
  void add_sector(int64_t* counts, uint64_t sector);

  PartitionSpec spec_;
  BlockSchedule schedule_;
  int sector_bytes_ = 32;
  int64_t group_ = 1;
  int stride_ = 0;  // counts per group: 2 x partitions (loads then stores)
  bool whole_sectors_ = true;  // granularity is a multiple of sector_bytes: a sector lies in one partition
  int64_t first_group_ = 0;
  std::vector<int64_t> counts_;  // [(group - first_group_) * stride_ + op * partitions + p]
  int64_t stray_ = 0;
};

// ---------------------------------------------------------------------------------------------------------
// Summary

// max / mean of per-partition bytes, mean over all partitions (idle ones included): 1 = even spread, N = all
// traffic on one of N partitions. 1 when there is no traffic (nothing to camp).
double window_imbalance(const std::vector<int64_t>& per_partition);

struct WindowTraffic {
  int64_t index = 0;  // k
  BlockRange blocks;
  std::vector<int64_t> load_bytes, store_bytes;  // per partition
};

// One direction (or both together) over the whole launch.
struct CampingFigure {
  int64_t bytes = 0;
  // Traffic-weighted mean over windows of the window's max/mean imbalance: sum_w T_w * I_w / sum_w T_w,
  // T_w = the window's bytes. Since T_w * I_w = partitions x (bytes on the window's busiest partition), this
  // equals (time with every window limited by its busiest partition) / (time with traffic spread evenly),
  // for a DRAM-bound kernel whose partitions each serve 1/N of the bandwidth: the factor that scales the
  // DRAM term.
  double imbalance = 1.0;
  double worst_window = 1.0;  // the largest window imbalance (windows with traffic)
  std::vector<int64_t> partition_bytes;  // per partition, whole launch
};

struct PartitionTraffic {
  PartitionSpec spec;
  BlockSchedule schedule;
  int sector_bytes = 32;
  int64_t windows = 0;       // all windows of the schedule
  int64_t window_every = 1;  // `kept` holds windows 0, e, 2e, ... (e > 1: downsampled for a big launch)
  std::vector<WindowTraffic> kept;
  // Two views of both directions together, for a cost model to choose from:
  //  combined: a window's loads and stores added per partition, then max/mean. Right if every partition
  //    serves its own queue independently of the others.
  //  paced: a window's imbalance is the larger of its load and store imbalances, weighted by all its bytes.
  //    Right if requests queue in order, so the more camped direction holds back the other (a resident
  //    block waiting on its camped stores starts no new loads). The whitepaper's GT200 figures point this
  //    way: its camped transposes run more than 4x below the diagonal one, which `combined` cannot explain
  //    (tests/partition/gt200_camping_test.cpp).
  CampingFigure loads, stores, combined, paced;
};

// Summarizes the sink over every window of its schedule; keeps at most max_windows windows (evenly spaced)
// for plotting. Throws std::logic_error when the sink saw blocks outside its schedule.
PartitionTraffic summarize_partition_traffic(const PartitionTrafficSink& sink, int64_t max_windows = 256);

}  // namespace memsim
