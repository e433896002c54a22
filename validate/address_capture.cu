#include "validate/address_capture.hpp"

#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <vector>
#include <string>

#include "kernels/static_dispatch.hpp"
#include "kernels/suite.hpp"
#include "validate/cuda_check.hpp"
#include "validate/gpu_kernels.cuh"
#include "validate/kernel_file_launch.hpp"

namespace memsim::validate {

namespace {

using CaptureFn = void (*)(const LaunchConfig& cfg, int num_sites, int capacity, int64_t first, int64_t last,
                           int64_t* slots, int* counts);

template <class K, class T>
void run_capture(const LaunchConfig& cfg, int num_sites, int capacity, int64_t first, int64_t last, int64_t* slots,
                 int* counts) {
  with_launch_shape<K, T>(cfg, [&](const auto& shape) {
    launch_capture<K, T>(cfg.shape, shape, num_sites, capacity, first, last, slots, counts);
  });
  MEMSIM_CHECK_LAUNCH("capture_kernel launch");
  MEMSIM_CUDA_CHECK(cudaDeviceSynchronize());
}

struct Entry {
  const char* name;
  CaptureFn capture[3];  // by Dtype
};

#define MEMSIM_CAPTURE_ENTRY(K) \
  {suite::K::info().name,       \
   {&run_capture<suite::K, uint16_t>, &run_capture<suite::K, float>, &run_capture<suite::K, double>}},

const std::vector<Entry>& entries() {
  static const std::vector<Entry> all{MEMSIM_KERNEL_SUITE(MEMSIM_CAPTURE_ENTRY)};
  return all;
}
#undef MEMSIM_CAPTURE_ENTRY

CaptureFn capture_fn(const LaunchConfig& cfg) {
  if (cfg.kernel->num_sites > kMaxCaptureSites)
    throw std::logic_error(std::string("kernel ") + cfg.kernel->name + " has more sites than the capture keeps");
  if (runs_in_gpu_plugin(cfg)) return &capture_kernel_file;  // its GPU plugin's capture (a static shape)
  for (const Entry& e : entries())
    if (std::strcmp(e.name, cfg.kernel->name) == 0) return e.capture[int(cfg.dtype)];
  throw std::logic_error(std::string("kernel without a capture entry: ") + cfg.kernel->name);
}

// Device memory freed on every path out (a failed check throws).
template <class T>
struct DeviceArray {
  T* ptr = nullptr;
  explicit DeviceArray(size_t n) { MEMSIM_CUDA_CHECK(cudaMalloc(&ptr, n * sizeof(T) + 1)); }
  ~DeviceArray() { cudaFree(ptr); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
};

}  // namespace

int max_site_occurrences(const LaunchConfig& cfg) {
  const CaptureFn fn = capture_fn(cfg);
  const int sites = cfg.kernel->num_sites;
  const size_t n = size_t(cfg.blocks()) * cfg.threads_per_block() * sites;
  DeviceArray<int> counts(n);
  fn(cfg, sites, 0, 0, cfg.blocks(), nullptr, counts.ptr);
  std::vector<int> host(n);
  MEMSIM_CUDA_CHECK(cudaMemcpy(host.data(), counts.ptr, n * sizeof(int), cudaMemcpyDeviceToHost));
  int most = 0;
  for (int c : host) most = c > most ? c : most;
  return most;
}

AddressCapture capture_addresses(const LaunchConfig& cfg, int64_t first_block, int64_t last_block, int capacity) {
  const CaptureFn fn = capture_fn(cfg);
  AddressCapture out;
  out.num_sites = cfg.kernel->num_sites;
  out.capacity = capacity;
  out.threads_per_block = cfg.threads_per_block();
  out.first_block = first_block;
  out.last_block = last_block;
  const size_t threads = size_t(last_block - first_block) * out.threads_per_block;
  const size_t n_counts = threads * out.num_sites;
  const size_t n_slots = n_counts * size_t(capacity);
  DeviceArray<int64_t> slots(n_slots);
  DeviceArray<int> counts(n_counts);
  MEMSIM_CUDA_CHECK(cudaMemset(slots.ptr, 0xFF, n_slots * sizeof(int64_t)));  // kCaptureUnreached everywhere
  fn(cfg, out.num_sites, capacity, first_block, last_block, slots.ptr, counts.ptr);
  out.slots.resize(n_slots);
  out.counts.resize(n_counts);
  MEMSIM_CUDA_CHECK(cudaMemcpy(out.slots.data(), slots.ptr, n_slots * sizeof(int64_t), cudaMemcpyDeviceToHost));
  MEMSIM_CUDA_CHECK(cudaMemcpy(out.counts.data(), counts.ptr, n_counts * sizeof(int), cudaMemcpyDeviceToHost));
  return out;
}

}  // namespace memsim::validate
