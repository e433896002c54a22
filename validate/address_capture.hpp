#pragma once
// GPU side of the address check: runs a kernel's body with the capturing policy (validate/device_capture.cuh)
// over a range of blocks and brings the captured offsets back to the host.
#include <cstdint>
#include <vector>

#include "kernels/resolve.hpp"

namespace memsim::validate {

struct AddressCapture {
  int num_sites = 0;
  int capacity = 0;  // occurrences kept per (thread, site)
  int threads_per_block = 0;
  int64_t first_block = 0, last_block = 0;  // linear block ids [first, last), x fastest
  std::vector<int64_t> slots;  // [(block - first) * threads + tid][site][capacity]: pack_capture() or a sentinel
  std::vector<int> counts;     // [(block - first) * threads + tid][site]

  int64_t slot(int64_t block, int tid, int site, int occurrence) const {
    const int64_t thread = (block - first_block) * threads_per_block + tid;
    return slots[size_t((thread * num_sites + site) * capacity + occurrence)];
  }
  int count(int64_t block, int tid, int site) const {
    return counts[size_t(((block - first_block) * threads_per_block + tid) * num_sites + site)];
  }
};

// The most times any thread reaches any one site in cfg's launch (a counting pass over the whole grid).
int max_site_occurrences(const LaunchConfig& cfg);

// Every access of blocks [first_block, last_block), `capacity` occurrences per (thread, site) kept.
AddressCapture capture_addresses(const LaunchConfig& cfg, int64_t first_block, int64_t last_block, int capacity);

}  // namespace memsim::validate
