#include "validate/reached.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "kernels/suite.hpp"
#include "sim/warp_access.hpp"
#include "validate/kernel_file_launch.hpp"

namespace memsim::validate {
namespace {

// A memory policy that only counts how often the lane reaches each site, predicate or not.
template <class T>
struct ReachCounter {
  using Elem = T;
  std::vector<int> occurrences;

  template <class V>
  V load_global(int site, bool, int64_t) {
    ++occurrences[site];
    return V{};
  }
  template <class V>
  void store_global(int site, bool, int64_t, const V&) {
    ++occurrences[site];
  }
  template <class V>
  V load_shared(int site, bool, int) {
    ++occurrences[site];
    return V{};
  }
  template <class V>
  void store_shared(int site, bool, int, const V&) {
    ++occurrences[site];
  }
  void sync() {}
};

// A warp issues a site's instruction as often as its busiest lane reaches it.
template <class K, class T>
std::vector<int64_t> reached_in_block(const LaunchConfig& cfg, int64_t block) {
  const LaunchShape& s = cfg.shape;
  const int sites = cfg.kernel->num_sites;
  const int threads = cfg.threads_per_block();
  std::vector<int64_t> total(sites, 0);
  ReachCounter<T> counter;
  ThreadCoord t;
  t.block_x = int(block % s.grid_x);
  t.block_y = int(block / s.grid_x);
  for (int w = 0; w * kWarpSize < threads; ++w) {
    std::vector<int> most(sites, 0);
    for (int lane = 0; lane < kWarpSize && w * kWarpSize + lane < threads; ++lane) {
      const int tid = w * kWarpSize + lane;
      t.thread_x = tid % s.block_x;
      t.thread_y = tid / s.block_x;
      counter.occurrences.assign(sites, 0);
      K::body(counter, s, t);
      for (int i = 0; i < sites; ++i) most[i] = std::max(most[i], counter.occurrences[i]);
    }
    for (int i = 0; i < sites; ++i) total[i] += most[i];
  }
  return total;
}

// The suite's loops do not depend on the block (only predicates do), so three probe blocks that agree stand
// for all of them; if they disagree every block is counted.
template <class K, class T>
std::vector<int64_t> reached_typed(const LaunchConfig& cfg) {
  const int64_t blocks = cfg.blocks();
  const std::vector<int64_t> first = reached_in_block<K, T>(cfg, 0);
  if (reached_in_block<K, T>(cfg, blocks / 2) == first && reached_in_block<K, T>(cfg, blocks - 1) == first) {
    std::vector<int64_t> total = first;
    for (int64_t& v : total) v *= blocks;
    return total;
  }
  std::vector<int64_t> total(first.size(), 0);
  for (int64_t b = 0; b < blocks; ++b) {
    const std::vector<int64_t> v = reached_in_block<K, T>(cfg, b);
    for (size_t i = 0; i < v.size(); ++i) total[i] += v[i];
  }
  return total;
}

using ReachedFn = std::vector<int64_t> (*)(const LaunchConfig&);
struct Entry {
  const char* name;
  ReachedFn by_dtype[3];
};

#define MEMSIM_REACHED_ENTRY(K) \
  {suite::K::info().name,       \
   {&reached_typed<suite::K, uint16_t>, &reached_typed<suite::K, float>, &reached_typed<suite::K, double>}},

const std::vector<Entry>& entries() {
  static const std::vector<Entry> all{MEMSIM_KERNEL_SUITE(MEMSIM_REACHED_ENTRY)};
  return all;
}
#undef MEMSIM_REACHED_ENTRY

}  // namespace

std::vector<int64_t> warp_instructions_reached(const LaunchConfig& cfg) {
  for (const Entry& e : entries())
    if (std::strcmp(e.name, cfg.kernel->name) == 0) return e.by_dtype[int(cfg.dtype)](cfg);
  if (is_kernel_file_config(cfg)) return kernel_file_reached(cfg);  // counted on the GPU
  throw std::logic_error(std::string("kernel without an entry: ") + cfg.kernel->name);
}

}  // namespace memsim::validate
