#include "validate/measure.hpp"

#include <algorithm>
#include <cmath>

#include "model/stats.hpp"
#include "validate/cuda_check.hpp"
#include "validate/reference.hpp"

namespace memsim::validate {

DeviceBuffer::DeviceBuffer(size_t bytes) : bytes_(bytes) { MEMSIM_CUDA_CHECK(cudaMalloc(&ptr_, bytes)); }
DeviceBuffer::~DeviceBuffer() {
  if (ptr_) cudaFree(ptr_);
}

int ring_size(size_t matrix_bytes, int64_t l2_bytes, double l2_multiple, int64_t memory_budget) {
  const double pair = 2.0 * double(matrix_bytes);
  int pairs = int(std::ceil(l2_multiple * double(l2_bytes) / pair));
  pairs = std::max(2, pairs);
  const int affordable = int(std::max<double>(1.0, std::floor(double(memory_budget) / pair)));
  return std::min(pairs, affordable);
}

BufferRing make_buffer_ring(size_t matrix_bytes, int pairs) {
  BufferRing ring;
  ring.bytes = matrix_bytes;
  for (int i = 0; i < pairs; ++i) {
    ring.in.emplace_back(matrix_bytes);
    ring.out.emplace_back(matrix_bytes);
  }
  return ring;
}

void upload_input(const BufferRing& ring, const void* host) {
  for (const DeviceBuffer& b : ring.in) MEMSIM_CUDA_CHECK(cudaMemcpy(b.get(), host, ring.bytes, cudaMemcpyHostToDevice));
}

void poison(void* device, size_t bytes) {
  MEMSIM_CUDA_CHECK(cudaMemset(device, kPoisonByte, bytes));
  MEMSIM_CUDA_CHECK(cudaDeviceSynchronize());
}

namespace {

// Events created once per timing and destroyed on every path out.
struct EventPool {
  std::vector<cudaEvent_t> events;
  explicit EventPool(size_t n) : events(n, nullptr) {
    for (cudaEvent_t& e : events) MEMSIM_CUDA_CHECK(cudaEventCreate(&e));
  }
  ~EventPool() {
    for (cudaEvent_t e : events)
      if (e) cudaEventDestroy(e);
  }
};

}  // namespace

TimingStats time_launches(cudaStream_t stream, const TimingSettings& settings, int buffers,
                          const std::function<void(int)>& launch) {
  buffers = std::max(1, buffers);
  for (int i = 0; i < settings.warmup; ++i) launch(i % buffers);
  MEMSIM_CUDA_CHECK(cudaStreamSynchronize(stream));

  const int reps = std::max(1, settings.reps);
  EventPool pool(2 * size_t(reps));
  for (int i = 0; i < reps; ++i) {
    MEMSIM_CUDA_CHECK(cudaEventRecord(pool.events[2 * i], stream));
    launch(i % buffers);
    MEMSIM_CUDA_CHECK(cudaEventRecord(pool.events[2 * i + 1], stream));
  }
  MEMSIM_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> us(reps);
  for (int i = 0; i < reps; ++i) {
    float ms = 0;
    MEMSIM_CUDA_CHECK(cudaEventElapsedTime(&ms, pool.events[2 * i], pool.events[2 * i + 1]));
    us[i] = 1000.0 * ms;
  }
  TimingStats t;
  t.reps = reps;
  t.buffers = buffers;
  t.median_us = median(us);
  t.min_us = *std::min_element(us.begin(), us.end());
  t.max_us = *std::max_element(us.begin(), us.end());
  t.round_medians = {t.median_us};
  return t;
}

TimingStats combine_rounds(const std::vector<TimingStats>& rounds) {
  if (rounds.empty()) return {};
  TimingStats t = rounds.front();
  t.round_medians.clear();
  for (const TimingStats& r : rounds) {
    if (r.round_medians.empty())
      t.round_medians.push_back(r.median_us);
    else
      t.round_medians.insert(t.round_medians.end(), r.round_medians.begin(), r.round_medians.end());
    t.min_us = std::min(t.min_us, r.min_us);
    t.max_us = std::max(t.max_us, r.max_us);
  }
  t.median_us = median(t.round_medians);
  return t;
}

double effective_bandwidth_gbs(int64_t matrix_bytes, double time_us) {
  return time_us > 0 ? 2.0 * double(matrix_bytes) / (time_us * 1e-6) / 1e9 : 0.0;
}

Cublas::Cublas(cudaStream_t stream) {
  cublas_check(cublasCreate(&handle_), "cublasCreate");
  cublas_check(cublasSetStream(handle_, stream), "cublasSetStream");
}

Cublas::~Cublas() {
  if (handle_) cublasDestroy(handle_);
}

bool Cublas::transpose(Dtype dtype, const LaunchShape& s, const void* in, void* out) {
  // cuBLAS is column-major: the row-major W x H input is a column-major W x H matrix (lda = W); its transpose
  // C (H x W column-major, ldc = H) is the row-major output with W rows of H. beta = 0, so B is not read;
  // passing C as B with ldb = ldc is the documented in-place form.
  const int m = int(s.height), n = int(s.width);
  if (dtype == Dtype::F32) {
    const float alpha = 1.0f, beta = 0.0f;
    float* c = static_cast<float*>(out);
    cublas_check(cublasSgeam(handle_, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &alpha, static_cast<const float*>(in), n,
                             &beta, c, m, c, m),
                 "cublasSgeam");
    return true;
  }
  if (dtype == Dtype::F64) {
    const double alpha = 1.0, beta = 0.0;
    double* c = static_cast<double*>(out);
    cublas_check(cublasDgeam(handle_, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &alpha, static_cast<const double*>(in), n,
                             &beta, c, m, c, m),
                 "cublasDgeam");
    return true;
  }
  return false;
}

}  // namespace memsim::validate
