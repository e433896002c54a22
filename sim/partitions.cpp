#include "sim/partitions.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace memsim {
namespace {

// Bits needed for the partition index (at least 1, so a one-partition hash still has a bit to fold into).
int index_bits(int count) {
  int b = 1;
  while ((int64_t(1) << b) < count) ++b;
  return b;
}

int ilog2_floor(int64_t v) {
  int b = 0;
  while ((int64_t(1) << (b + 1)) <= v) ++b;
  return b;
}

}  // namespace

int partition_of(const PartitionSpec& spec, uint64_t addr) {
  const uint64_t chunk = addr / uint64_t(spec.granularity_bytes);
  if (spec.policy == PartitionSpec::Policy::Linear) return int(chunk % uint64_t(spec.count));
  const int b = index_bits(spec.count);
  uint64_t fold = 0;
  for (size_t i = 0; i < spec.xor_bits.size(); ++i) fold ^= ((addr >> spec.xor_bits[i]) & 1u) << (int(i) % b);
  return int((chunk ^ fold) % uint64_t(spec.count));
}

std::string check_partition_spec(const PartitionSpec& spec) {
  if (spec.count < 1) return "partition count must be at least 1, got " + std::to_string(spec.count);
  if (spec.granularity_bytes < 1)
    return "partition granularity must be at least 1 byte, got " + std::to_string(spec.granularity_bytes);
  for (int bit : spec.xor_bits)
    if (bit < 0 || bit > 63) return "xor_bits must lie in 0..63, got " + std::to_string(bit);
  return {};
}

PartitionSpec linear_partitions(int count, int granularity_bytes, std::string note) {
  PartitionSpec s;
  s.policy = PartitionSpec::Policy::Linear;
  s.count = count;
  s.granularity_bytes = granularity_bytes;
  s.note = std::move(note);
  return s;
}

PartitionSpec gt200_partitions() {
  return linear_partitions(8, 256, "GT200: 8 partitions of 256 B, consecutive chunks on consecutive partitions "
                                   "(the whitepaper, docs/sources.md)");
}

PartitionSpec g80_partitions() {
  return linear_partitions(6, 256, "G80: 6 partitions of 256 B, consecutive chunks on consecutive partitions "
                                   "(the whitepaper, docs/sources.md)");
}

PartitionSpec assumed_hashed_partitions(int count, int granularity_bytes, int top_bit) {
  PartitionSpec s;
  s.policy = PartitionSpec::Policy::XorHash;
  s.count = count;
  s.granularity_bytes = granularity_bytes;
  // Fold every bit above the linear interleave's own index bits, so strides that are multiples of
  // count x granularity (the ones that camp on a linear mapping) still spread.
  const int lo = ilog2_floor(std::max(1, granularity_bytes)) + index_bits(count);
  for (int bit = lo; bit <= top_bit; ++bit) s.xor_bits.push_back(bit);
  s.assumed = true;
  s.note = "assumed: NVIDIA does not publish the address-to-partition hash of Fermi and later GPUs; " +
           std::to_string(count) + " partitions of " + std::to_string(granularity_bytes) +
           " B with address bits " + std::to_string(lo) + ".." + std::to_string(top_bit) +
           " XOR-folded into the partition index stand in for it";
  return s;
}

const char* partition_policy_name(PartitionSpec::Policy p) {
  return p == PartitionSpec::Policy::Linear ? "linear" : "xor_hash";
}

// ---------------------------------------------------------------------------------------------------------

int64_t resident_blocks(int sms, int blocks_per_sm, int64_t launch_blocks) {
  const int64_t r = int64_t(std::max(sms, 1)) * std::max(blocks_per_sm, 1);
  return std::max<int64_t>(1, std::min(r, launch_blocks));
}

BlockSchedule block_schedule(int64_t launch_blocks, int64_t resident, int64_t step) {
  BlockSchedule s;
  s.blocks = std::max<int64_t>(0, launch_blocks);
  s.resident = std::max<int64_t>(1, std::min(resident, std::max<int64_t>(1, s.blocks)));
  s.step = step <= 0 ? s.resident : std::min(step, s.resident);
  return s;
}

int64_t window_count(const BlockSchedule& s) {
  if (s.blocks <= 0) return 0;
  const int64_t rest = std::max<int64_t>(0, s.blocks - s.resident);
  return 1 + (rest + s.step - 1) / s.step;
}

BlockRange window_blocks(const BlockSchedule& s, int64_t k) {
  const int64_t first = k * s.step;
  return {first, std::min(first + s.resident, s.blocks)};
}

// ---------------------------------------------------------------------------------------------------------

PartitionTrafficSink::PartitionTrafficSink(const PartitionSpec& spec, const BlockSchedule& schedule,
                                           int sector_bytes)
    : spec_(spec), schedule_(schedule), sector_bytes_(sector_bytes) {
  const std::string why = check_partition_spec(spec);
  if (!why.empty()) throw std::invalid_argument(why);
  if (sector_bytes < 1) throw std::invalid_argument("sector_bytes must be positive");
  if (schedule.resident < 1 || schedule.step < 1)
    throw std::invalid_argument("block schedule needs resident >= 1 and step >= 1 (use block_schedule())");
  group_ = std::gcd(schedule.resident, schedule.step);
  stride_ = 2 * spec.count;
  whole_sectors_ = spec.granularity_bytes % sector_bytes == 0;
}

int64_t* PartitionTrafficSink::row(int64_t group) {
  const int64_t have = int64_t(counts_.size()) / stride_;
  if (have == 0) {
    first_group_ = group;
    counts_.assign(size_t(stride_), 0);
  } else if (group < first_group_) {
    // Blocks arrive in launch order within a worker, so this is rare: shift the stored range down.
    counts_.insert(counts_.begin(), size_t((first_group_ - group) * stride_), 0);
    first_group_ = group;
  } else if (group >= first_group_ + have) {
    counts_.resize(size_t((group - first_group_ + 1) * stride_), 0);
  }
  return counts_.data() + (group - first_group_) * stride_;
}

void PartitionTrafficSink::add_sector(int64_t* counts, uint64_t sector) {
  const uint64_t begin = sector * uint64_t(sector_bytes_);
  if (whole_sectors_) {
    counts[partition_of(spec_, begin)] += sector_bytes_;
    return;
  }
  const uint64_t end = begin + uint64_t(sector_bytes_);
  const uint64_t g = uint64_t(spec_.granularity_bytes);
  for (uint64_t a = begin; a < end;) {
    const uint64_t piece_end = std::min(end, (a / g + 1) * g);
    counts[partition_of(spec_, a)] += int64_t(piece_end - a);
    a = piece_end;
  }
}

void PartitionTrafficSink::add(int64_t block_linear, Op op, const uint64_t* sectors, int count) {
  if (count <= 0) return;
  if (block_linear < 0 || block_linear >= schedule_.blocks) {
    stray_ += count;
    return;
  }
  int64_t* counts = row(block_linear / group_) + (op == Op::Load ? 0 : spec_.count);
  for (int i = 0; i < count; ++i) add_sector(counts, sectors[i]);
}

std::unique_ptr<SectorSink> PartitionTrafficSink::clone_empty() const {
  return std::make_unique<PartitionTrafficSink>(spec_, schedule_, sector_bytes_);
}

void PartitionTrafficSink::merge_from(const SectorSink& other) {
  const auto* o = dynamic_cast<const PartitionTrafficSink*>(&other);
  if (!o || o->stride_ != stride_ || o->group_ != group_ || o->sector_bytes_ != sector_bytes_ ||
      o->schedule_.blocks != schedule_.blocks || o->spec_.policy != spec_.policy ||
      o->spec_.granularity_bytes != spec_.granularity_bytes || o->spec_.xor_bits != spec_.xor_bits)
    throw std::logic_error("PartitionTrafficSink::merge_from: a sink of another kind or shape");
  stray_ += o->stray_;
  const int64_t n = int64_t(o->counts_.size()) / stride_;
  if (n == 0) return;
  row(o->first_group_);  // extend both ends before taking the pointer
  int64_t* dst = row(o->first_group_ + n - 1) - (n - 1) * stride_;
  for (size_t i = 0; i < o->counts_.size(); ++i) dst[i] += o->counts_[i];
}

int64_t PartitionTrafficSink::bytes(int64_t group, Op op, int partition) const {
  const int64_t have = int64_t(counts_.size()) / stride_;
  if (group < first_group_ || group >= first_group_ + have) return 0;
  return counts_[size_t((group - first_group_) * stride_ + (op == Op::Load ? 0 : spec_.count) + partition)];
}

// ---------------------------------------------------------------------------------------------------------

double window_imbalance(const std::vector<int64_t>& per_partition) {
  int64_t total = 0, most = 0;
  for (int64_t b : per_partition) {
    total += b;
    most = std::max(most, b);
  }
  if (total <= 0) return 1.0;
  return double(most) * double(per_partition.size()) / double(total);
}

namespace {

int64_t total(const std::vector<int64_t>& v) {
  int64_t t = 0;
  for (int64_t b : v) t += b;
  return t;
}

struct FigureSum {
  int64_t window_bytes = 0;  // sum over windows of T_w (counts a block once per window it is in)
  double weighted = 0;       // sum over windows of T_w * I_w
  double worst = 1.0;
  void add(int64_t t, double i) {
    if (t == 0) return;
    window_bytes += t;
    weighted += double(t) * i;
    worst = std::max(worst, i);
  }
  void add(const std::vector<int64_t>& per_partition) { add(total(per_partition), window_imbalance(per_partition)); }
  CampingFigure figure(std::vector<int64_t> launch_bytes) const {
    CampingFigure f;
    for (int64_t b : launch_bytes) f.bytes += b;
    f.imbalance = window_bytes > 0 ? weighted / double(window_bytes) : 1.0;
    f.worst_window = worst;
    f.partition_bytes = std::move(launch_bytes);
    return f;
  }
};

}  // namespace

PartitionTraffic summarize_partition_traffic(const PartitionTrafficSink& sink, int64_t max_windows) {
  if (sink.stray_sectors() > 0)
    throw std::logic_error("partition counter saw " + std::to_string(sink.stray_sectors()) +
                           " sectors from blocks outside its schedule of " + std::to_string(sink.schedule().blocks) +
                           " blocks");
  PartitionTraffic t;
  t.spec = sink.spec();
  t.schedule = sink.schedule();
  t.sector_bytes = sink.sector_bytes();
  t.windows = window_count(t.schedule);
  const int parts = t.spec.count;
  const int64_t g = sink.group_blocks();
  const int64_t groups = (t.schedule.blocks + g - 1) / g;

  // Prefix sums over groups: a window's traffic is then a difference of two rows, whatever its length.
  const size_t w = size_t(2 * parts);
  std::vector<int64_t> prefix((size_t(groups) + 1) * w, 0);
  for (int64_t k = 0; k < groups; ++k)
    for (int p = 0; p < parts; ++p) {
      prefix[size_t(k + 1) * w + p] = prefix[size_t(k) * w + p] + sink.bytes(k, Op::Load, p);
      prefix[size_t(k + 1) * w + parts + p] = prefix[size_t(k) * w + parts + p] + sink.bytes(k, Op::Store, p);
    }

  max_windows = std::max<int64_t>(1, max_windows);
  // Rounded up without adding first: max_windows may be any positive int64 (--max-windows 2^63-1 overflowed).
  t.window_every = std::max<int64_t>(1, t.windows / max_windows + (t.windows % max_windows != 0));
  FigureSum ld, st, both, paced;
  const size_t np = size_t(parts);
  std::vector<int64_t> lw(np), sw(np), cw(np);
  for (int64_t k = 0; k < t.windows; ++k) {
    const BlockRange r = window_blocks(t.schedule, k);
    const int64_t g0 = r.first / g, g1 = (r.last + g - 1) / g;
    for (int p = 0; p < parts; ++p) {
      lw[size_t(p)] = prefix[size_t(g1) * w + p] - prefix[size_t(g0) * w + p];
      sw[size_t(p)] = prefix[size_t(g1) * w + parts + p] - prefix[size_t(g0) * w + parts + p];
      cw[size_t(p)] = lw[size_t(p)] + sw[size_t(p)];
    }
    ld.add(lw);
    st.add(sw);
    both.add(cw);
    const int64_t tl = total(lw), ts = total(sw);
    paced.add(tl + ts, std::max(tl ? window_imbalance(lw) : 1.0, ts ? window_imbalance(sw) : 1.0));
    if (k % t.window_every == 0) t.kept.push_back({k, r, lw, sw});
  }

  std::vector<int64_t> lt(np), stt(np), ct(np);
  for (int p = 0; p < parts; ++p) {
    lt[size_t(p)] = prefix[size_t(groups) * w + p];
    stt[size_t(p)] = prefix[size_t(groups) * w + parts + p];
    ct[size_t(p)] = lt[size_t(p)] + stt[size_t(p)];
  }
  t.loads = ld.figure(lt);
  t.stores = st.figure(stt);
  t.combined = both.figure(ct);
  t.paced = paced.figure(ct);
  return t;
}

}  // namespace memsim
