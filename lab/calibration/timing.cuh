#pragma once
// Timing and buffer plumbing shared by every microbenchmark: checked CUDA calls, one pool of device memory
// carved into (input, output) pairs that are rotated so repeats never find their data in L2, and
// event-timed launches summarised by median, min and max (docs/validation.md).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define MB_CHECK(call)                                                                                    \
  do {                                                                                                     \
    cudaError_t err_ = (call);                                                                             \
    if (err_ != cudaSuccess) {                                                                             \
      std::fprintf(stderr, "memsim-microbench: %s failed at %s:%d: %s\n", #call, __FILE__, __LINE__,       \
                   cudaGetErrorString(err_));                                                              \
      std::exit(1);                                                                                        \
    }                                                                                                      \
  } while (0)

namespace mb {

struct Stats {
  double median_us = 0, min_us = 0, max_us = 0;
  int reps = 0;
};

// One allocation for the whole run: large allocations are where the suite's buffers live too (2 MiB
// pages), and carving avoids allocator noise between configurations.
class Pool {
 public:
  explicit Pool(size_t bytes) : bytes_(bytes) { MB_CHECK(cudaMalloc(&base_, bytes)); }
  ~Pool() { cudaFree(base_); }
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;
  size_t bytes() const { return bytes_; }
  unsigned char* at(size_t offset) const { return static_cast<unsigned char*>(base_) + offset; }

 private:
  void* base_ = nullptr;
  size_t bytes_;
};

constexpr size_t kAlign = size_t(2) << 20;
inline size_t align_up(size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

// Rotating (input, output) pairs: enough that the pairs a repeat has not touched recently exceed the L2 a
// few times over, so each timed launch starts with its data in DRAM as a one-off launch would.
struct PairSet {
  const Pool* pool;
  size_t in_bytes, out_bytes, stride;
  int count;
  void* in(int i) const { return pool->at(size_t(i % count) * stride); }
  void* out(int i) const { return pool->at(size_t(i % count) * stride + align_up(in_bytes)); }
};

inline PairSet make_pairs(const Pool& pool, size_t in_bytes, size_t out_bytes, size_t l2_bytes) {
  PairSet p{&pool, in_bytes, out_bytes, align_up(in_bytes) + align_up(out_bytes), 0};
  const size_t want = std::max<size_t>(2, (4 * l2_bytes + p.stride - 1) / p.stride);
  const size_t fit = pool.bytes() / p.stride;
  if (fit < 2) {
    std::fprintf(stderr, "memsim-microbench: pool too small for %zu + %zu bytes\n", in_bytes, out_bytes);
    std::exit(1);
  }
  p.count = int(std::min(want, fit));
  return p;
}

// Times `launch(i)` (i = repeat index, used to pick the pair) with events around each launch. The repeats
// are queued back to back and synchronised once, as validate/measure.cpp times the suite: an event pair
// then holds the kernel's time on the GPU, not the host's launch latency.
template <class F>
Stats time_launches(F&& launch, int warmup = 3, int reps = 25) {
  for (int r = 0; r < warmup; ++r) launch(r);
  MB_CHECK(cudaGetLastError());
  MB_CHECK(cudaDeviceSynchronize());
  std::vector<cudaEvent_t> ev(2 * size_t(reps));
  for (cudaEvent_t& e : ev) MB_CHECK(cudaEventCreate(&e));
  for (int r = 0; r < reps; ++r) {
    MB_CHECK(cudaEventRecord(ev[2 * r]));
    launch(warmup + r);
    MB_CHECK(cudaEventRecord(ev[2 * r + 1]));
  }
  MB_CHECK(cudaGetLastError());
  MB_CHECK(cudaDeviceSynchronize());
  std::vector<double> t(reps);
  for (int r = 0; r < reps; ++r) {
    float ms = 0;
    MB_CHECK(cudaEventElapsedTime(&ms, ev[2 * r], ev[2 * r + 1]));
    t[r] = 1000.0 * ms;
  }
  for (cudaEvent_t e : ev) cudaEventDestroy(e);
  std::sort(t.begin(), t.end());
  Stats s;
  s.reps = reps;
  s.median_us = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
  s.min_us = t.front();
  s.max_us = t.back();
  return s;
}

// Non-zero pseudo-random words (never time on zeros: docs/validation.md, "Checking results").
__global__ void fill_words(uint32_t* p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    uint32_t h = uint32_t(i) * 2654435761u ^ seed ^ uint32_t(i >> 32) * 40503u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    p[i] = h | 0x01010101u;
  }
}

inline void fill(void* p, size_t bytes, uint32_t seed) {
  fill_words<<<1024, 256>>>(static_cast<uint32_t*>(p), bytes / 4, seed);
  MB_CHECK(cudaGetLastError());
}

}  // namespace mb
