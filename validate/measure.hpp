#pragma once
// Timing as docs/validation.md describes it: CUDA events around each launch, warm-ups first, the median with min and
// max of repeated launches, rotating among enough buffers that together they exceed the L2 several times (or repeats
// would measure the cache). Also the library baselines: cudaMemcpy device-to-device and cuBLAS geam.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kernels/resolve.hpp"

namespace memsim::validate {

// One cudaMalloc'd buffer (never managed memory), freed with its owner.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) { o.ptr_ = nullptr; }
  DeviceBuffer& operator=(DeviceBuffer&&) = delete;
  DeviceBuffer(const DeviceBuffer&) = delete;
  void* get() const { return ptr_; }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

// Input/output pairs for one matrix and dtype; pair 0 is the one whose output is checked.
struct BufferRing {
  std::vector<DeviceBuffer> in, out;
  size_t bytes = 0;
  int size() const { return int(in.size()); }
};

// How many pairs make one pass over the ring exceed the L2 `l2_multiple` times: at least 2, and never more
// than `memory_budget` bytes in all.
int ring_size(size_t matrix_bytes, int64_t l2_bytes, double l2_multiple, int64_t memory_budget);
BufferRing make_buffer_ring(size_t matrix_bytes, int pairs);

// Copies `host` (the random input) into every input buffer of the ring.
void upload_input(const BufferRing& ring, const void* host);
void poison(void* device, size_t bytes);

struct TimingSettings {
  int warmup = 5;
  int reps = 50;
};
struct TimingStats {
  int reps = 0;     // timed launches per round
  int buffers = 0;  // buffer pairs rotated (the first round's)
  double median_us = 0, min_us = 0, max_us = 0;
  // Each round's median (one round: {median_us}); a round times the cell again on freshly allocated buffers.
  std::vector<double> round_medians;
};

// Times launch(i), i the buffer pair to use (launch number mod `buffers`): warm-ups, then `reps` launches
// enqueued back to back, each between its own pair of events, so host overhead stays out of the numbers.
TimingStats time_launches(cudaStream_t stream, const TimingSettings& settings, int buffers,
                          const std::function<void(int)>& launch);

// Several rounds of one cell as one timing: the median of the rounds' medians (of an even count, the mean of
// the middle two), min and max over every launch of every round, the rounds' medians in order.
TimingStats combine_rounds(const std::vector<TimingStats>& rounds);

// 2 x matrix bytes / time (read once, write once), in GB/s = 1e9 bytes/s.
double effective_bandwidth_gbs(int64_t matrix_bytes, double time_us);

// A cuBLAS handle bound to one stream.
class Cublas {
 public:
  explicit Cublas(cudaStream_t stream);
  ~Cublas();
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;
  // cuBLAS's transpose, C = 1 * A^T + 0 * C with geam on the row-major W x H input; false where cuBLAS has
  // no geam for the dtype (f16: there is no cublasHgeam).
  bool transpose(Dtype dtype, const LaunchShape& s, const void* in, void* out);

 private:
  cublasHandle_t handle_ = nullptr;
};

}  // namespace memsim::validate
