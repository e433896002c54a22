#pragma once
// What memsim-held-open and memsim-step-lines share: a 256 MiB output that a kernel under test writes as the
// transpose of its input (4- or 8-byte elements), its options, the JSON document's opening and closing, the
// first launch checked element by element, and the timing (docs/validation.md): CUDA events around each launch,
// outputs rotated over 4 buffers, 2 warm-up launches, 15 timed.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "validate/cuda_check.hpp"

namespace memsim::transpose_bench {

constexpr size_t kOutputBytes = size_t(256) << 20;  // a side: 5x the L2 of an H100 or H200
constexpr int kRows = 8192;                          // output rows (a program may halve them); the columns fill 256 MiB
constexpr int kOutputs = 4, kWarmup = 2, kReps = 15;

template <class T>
__host__ __device__ inline T value_at(size_t i) { return T(i * 2654435761u + 12345u); }

// A rows x cols output against the transpose of the input (cols x rows, element i = value_at(i)).
template <class T>
int64_t count_wrong(const std::vector<unsigned char>& bytes, size_t rows, size_t cols) {
  const T* out = reinterpret_cast<const T*>(bytes.data());
  int64_t wrong = 0;
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) wrong += out[r * cols + c] != value_at<T>(c * rows + r);
  return wrong;
}

struct Options {
  bool once = false;            // --once: each configuration launched once, untimed, for Nsight Compute
  const char* match = nullptr;  // --match TEXT: only the runs whose name holds TEXT, or one of its |-parts
  // --blocks-per-sm N[,N...]: the blocks an SM to hold each run at (0: as many as fit), where the program takes
  // it; empty: the program's own list.
  std::vector<int> blocks_per_sm;
};
// Whether a run's name is selected by --match (every name is, without it): TEXT is one or more parts apart by
// '|' ("W=4 S|K=2"), and a name holding any of them is selected.
inline bool name_matches(const char* name, const char* match) {
  if (!match) return true;
  for (const char* part = match;;) {
    const char* end = std::strchr(part, '|');
    const std::string text = end ? std::string(part, end) : std::string(part);
    if (!text.empty() && std::strstr(name, text.c_str())) return true;
    if (!end) return false;
    part = end + 1;
  }
}
// False, after the usage line on stderr, for anything but --once and --match TEXT (each at most once).
// "7,6,5": counts from 0 to 32, apart by commas, into out; false (out cleared) on anything else.
inline bool parse_counts(const char* text, std::vector<int>& out) {
  out.clear();
  for (const char* p = text;;) {
    char* end = nullptr;
    const long n = std::strtol(p, &end, 10);
    if (end == p || n < 0 || n > 32 || (*end != ',' && *end != '\0')) {
      out.clear();
      return false;
    }
    out.push_back(int(n));
    if (*end == '\0') return true;
    p = end + 1;
  }
}

inline bool parse_options(int argc, char** argv, const char* program, Options& o) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--once") == 0 && !o.once) {
      o.once = true;
    } else if (std::strcmp(argv[i], "--match") == 0 && !o.match && i + 1 < argc && argv[i + 1][0] != '\0') {
      o.match = argv[++i];
    } else if (std::strcmp(argv[i], "--blocks-per-sm") == 0 && o.blocks_per_sm.empty() && i + 1 < argc &&
               parse_counts(argv[i + 1], o.blocks_per_sm)) {
      ++i;
    } else {
      std::fprintf(stderr, "usage: %s [--once] [--match TEXT[|TEXT...]] [--blocks-per-sm N[,N...]]\n", program);
      return false;
    }
  }
  return true;
}

// The input in 4- and 8-byte elements (in[0], in[1]), the outputs, a host buffer of an output's size, and the
// two events the timing records.
struct Buffers {
  void* in[2] = {nullptr, nullptr};
  std::vector<void*> outs;
  std::vector<unsigned char> host;
  cudaEvent_t start{}, stop{};
  const void* input(int element_bytes) const { return in[element_bytes == 8]; }
};

template <class T>
void fill_input(std::vector<unsigned char>& bytes) {
  T* in = reinterpret_cast<T*>(bytes.data());
  for (size_t i = 0; i < kOutputBytes / sizeof(T); ++i) in[i] = value_at<T>(i);
}

inline Buffers make_buffers() {
  Buffers b;
  b.host.resize(kOutputBytes);
  for (int k = 0; k < 2; ++k) {
    if (k == 0) fill_input<uint32_t>(b.host);
    else fill_input<uint64_t>(b.host);
    MEMSIM_CUDA_CHECK(cudaMalloc(&b.in[k], kOutputBytes));
    MEMSIM_CUDA_CHECK(cudaMemcpy(b.in[k], b.host.data(), kOutputBytes, cudaMemcpyHostToDevice));
  }
  b.outs.resize(kOutputs);
  for (auto& o : b.outs) MEMSIM_CUDA_CHECK(cudaMalloc(&o, kOutputBytes));
  MEMSIM_CUDA_CHECK(cudaEventCreate(&b.start));
  MEMSIM_CUDA_CHECK(cudaEventCreate(&b.stop));
  return b;
}

// The JSON document up to its list of runs: the program, the date, the device, its SMs and L2, the driver, the
// output's bytes.
inline void print_header(const char* program, const cudaDeviceProp& p) {
  int driver = 0;
  MEMSIM_CUDA_CHECK(cudaDriverGetVersion(&driver));
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  std::printf("{\n  \"program\": \"%s\",\n  \"date\": \"%s\",\n  \"device\": \"%s\",\n"
              "  \"sms\": %d,\n  \"l2_bytes\": %d,\n  \"driver_version\": %d,\n  \"output_bytes\": %zu,\n"
              "  \"runs\": [\n",
              program, date, p.name, p.multiProcessorCount, p.l2CacheSize, driver, kOutputBytes);
}

// The document's end: whether every output checked (null where --once checked none).
inline void print_footer(bool once, bool all_ok) {
  std::printf("\n  ],\n  \"all_checks_passed\": %s\n}\n", once ? "null" : all_ok ? "true" : "false");
}

// The first launch, into the first output filled with 0xff, waited for; copied back to b.host unless `once`.
inline void launch_first(Buffers& b, const std::function<void(void* out)>& launch, bool once) {
  MEMSIM_CUDA_CHECK(cudaMemset(b.outs[0], 0xff, kOutputBytes));
  launch(b.outs[0]);
  MEMSIM_CUDA_CHECK(cudaGetLastError());
  MEMSIM_CUDA_CHECK(cudaDeviceSynchronize());
  if (!once) MEMSIM_CUDA_CHECK(cudaMemcpy(b.host.data(), b.outs[0], kOutputBytes, cudaMemcpyDeviceToHost));
}

// kWarmup + kReps launches, the outputs rotated, each between two events: the kReps times in ms, sorted.
inline std::vector<float> time_launches(const Buffers& b, const std::function<void(void* out)>& launch) {
  std::vector<float> ms;
  for (int r = 0; r < kWarmup + kReps; ++r) {
    MEMSIM_CUDA_CHECK(cudaEventRecord(b.start));
    launch(b.outs[r % kOutputs]);
    MEMSIM_CUDA_CHECK(cudaEventRecord(b.stop));
    MEMSIM_CUDA_CHECK(cudaEventSynchronize(b.stop));
    MEMSIM_CUDA_CHECK(cudaGetLastError());
    float t = 0;
    MEMSIM_CUDA_CHECK(cudaEventElapsedTime(&t, b.start, b.stop));
    if (r >= kWarmup) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  return ms;
}

}  // namespace memsim::transpose_bench
