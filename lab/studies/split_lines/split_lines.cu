// memsim-split-lines: what does a sector split between two blocks cost beside a copy's whole-line loads, and
// does it go by the split sectors or by the lines that hold one? (a study; README.md)
//
// The index math is split_lines_map.hpp's (shared with the memsim kernel file split_lines_kernel.hpp). Every
// pattern of that header runs in both layouts (linear, scattered) with the pair's blocks D = 1, 16 and 256
// apart in launch order. Each block: 8 loads of a word a thread, all issued before the first store (8 loads in
// flight a warp), then 8 stores.
//
// Timing: CUDA events around each launch, 2 warm-up launches, median of 15 with min and max, over 2 output
// buffers of 256 MiB (5x the H100's L2). Check: the first launch's output word for word (the input holds each
// word's index, so every output word must hold the index of the input word its block loaded for it; the output
// is filled with 0xff first, so an unwritten word shows). --once launches each configuration once, untimed,
// for Nsight Compute; --only TEXT runs the configurations whose name contains TEXT. One JSON document on stdout.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "lab/studies/split_lines/split_lines_map.hpp"
#include "validate/cuda_check.hpp"

namespace {

using namespace split_lines;
constexpr int kOutputs = 2, kWarmup = 2, kReps = 15;
constexpr int kDistances[] = {1, 16, 256};

__global__ void __launch_bounds__(kThreads) split_lines_copy(const uint32_t* __restrict__ in, uint32_t* __restrict__ out,
                                                             uint32_t first_halves, bool scattered, uint32_t distance) {
  const uint32_t b = blockIdx.x;
  const int t = threadIdx.x;
  uint32_t v[kSteps];
#pragma unroll
  for (int s = 0; s < kSteps; ++s) v[s] = in[load_word(b, t, s)];
#pragma unroll
  for (int s = 0; s < kSteps; ++s) out[store_word(first_halves, scattered, distance, b, t, s)] = v[s];
}

struct Config {
  int pattern;
  bool scattered;
  int distance;
  std::string name() const {
    return std::string(kPatterns[pattern].name) + (scattered ? ", scattered" : ", linear") + ", D " +
           std::to_string(distance);
  }
};

void launch(const Config& c, const uint32_t* in, uint32_t* out) {
  split_lines_copy<<<unsigned(kBlocks), kThreads>>>(in, out, kPatterns[c.pattern].first_halves, c.scattered,
                                                    uint32_t(c.distance));
}

// Every output word against the input word its block loaded for it (input word i holds i), and no word twice.
long long wrong_words(const Config& c, const std::vector<uint32_t>& host) {
  long long wrong = 0;
  std::vector<int> word_of[2];  // the period word of each thread, by role (the same at every step)
  for (int role = 0; role < 2; ++role)
    for (int t = 0; t < kThreads; ++t) word_of[role].push_back(period_word(kPatterns[c.pattern].first_halves, role, t));
  std::vector<uint8_t> seen(static_cast<size_t>(kWords), 0);
  for (uint32_t b = 0; b < kBlocks; ++b) {
    const uint32_t g = group_of(b, uint32_t(c.distance));
    const int role = role_of(b, uint32_t(c.distance));
    for (int s = 0; s < kSteps; ++s)
      for (int t = 0; t < kThreads; ++t) {
        const uint32_t w = output_word(c.scattered, g, (4 * s + t / 64) * kPeriodWords + word_of[role][size_t(t)]);
        wrong += seen[size_t(w)]++ != 0;
        wrong += host[size_t(w)] != load_word(b, t, s);
      }
  }
  for (uint8_t v : seen) wrong += v == 0;
  return wrong;
}

}  // namespace

int main(int argc, char** argv) {
  bool once = false;
  const char* only = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--once") == 0 && !once) {
      once = true;
    } else if (std::strcmp(argv[i], "--only") == 0 && !only && i + 1 < argc && argv[i + 1][0] != '\0') {
      only = argv[++i];
    } else {
      std::fprintf(stderr, "usage: memsim-split-lines [--once] [--only TEXT]\n");
      return 2;
    }
  }
  std::vector<Config> configs;
  for (int p = 0; p < kPatternCount; ++p)
    for (bool scattered : {false, true})
      for (int d : kDistances) {
        const Config c{p, scattered, d};
        if (!only || c.name().find(only) != std::string::npos) configs.push_back(c);
      }
  if (configs.empty()) {
    std::fprintf(stderr, "memsim-split-lines: no configuration's name contains '%s'\n", only);
    return 2;
  }
  try {
    const size_t bytes = size_t(kWords) * 4;
    std::vector<uint32_t> host(static_cast<size_t>(kWords));
    for (size_t i = 0; i < host.size(); ++i) host[i] = uint32_t(i);
    uint32_t* in = nullptr;
    MEMSIM_CUDA_CHECK(cudaMalloc(&in, bytes));
    MEMSIM_CUDA_CHECK(cudaMemcpy(in, host.data(), bytes, cudaMemcpyHostToDevice));
    std::vector<uint32_t*> outs(kOutputs);
    for (auto& o : outs) MEMSIM_CUDA_CHECK(cudaMalloc(&o, bytes));
    cudaEvent_t a, b;
    MEMSIM_CUDA_CHECK(cudaEventCreate(&a));
    MEMSIM_CUDA_CHECK(cudaEventCreate(&b));
    cudaDeviceProp p{};
    MEMSIM_CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
    int driver = 0, resident = 0;
    MEMSIM_CUDA_CHECK(cudaDriverGetVersion(&driver));
    MEMSIM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, split_lines_copy, kThreads, 0));
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    std::printf("{\n  \"program\": \"memsim-split-lines\",\n  \"date\": \"%s\",\n  \"device\": \"%s\",\n"
                "  \"sms\": %d,\n  \"l2_bytes\": %d,\n  \"driver_version\": %d,\n  \"words\": %lld,\n"
                "  \"blocks\": %lld,\n  \"blocks_per_sm\": %d,\n  \"runs\": [\n",
                date, p.name, p.multiProcessorCount, p.l2CacheSize, driver, (long long)kWords, (long long)kBlocks,
                resident);
    bool all_ok = true, first = true;
    for (const Config& c : configs) {
      MEMSIM_CUDA_CHECK(cudaMemset(outs[0], 0xff, bytes));
      launch(c, in, outs[0]);
      MEMSIM_CUDA_CHECK(cudaGetLastError());
      MEMSIM_CUDA_CHECK(cudaDeviceSynchronize());
      if (once) continue;
      std::vector<uint32_t> out(static_cast<size_t>(kWords));
      MEMSIM_CUDA_CHECK(cudaMemcpy(out.data(), outs[0], bytes, cudaMemcpyDeviceToHost));
      const long long wrong = wrong_words(c, out);
      all_ok = all_ok && wrong == 0;
      std::vector<float> ms;
      for (int r = 0; r < kWarmup + kReps; ++r) {
        MEMSIM_CUDA_CHECK(cudaEventRecord(a));
        launch(c, in, outs[r % kOutputs]);
        MEMSIM_CUDA_CHECK(cudaEventRecord(b));
        MEMSIM_CUDA_CHECK(cudaEventSynchronize(b));
        MEMSIM_CUDA_CHECK(cudaGetLastError());
        float t = 0;
        MEMSIM_CUDA_CHECK(cudaEventElapsedTime(&t, a, b));
        if (r >= kWarmup) ms.push_back(t);
      }
      std::sort(ms.begin(), ms.end());
      std::printf("%s    {\"name\": \"%s\", \"pattern\": \"%s\", \"first_halves\": \"0x%08x\", \"layout\": \"%s\", "
                  "\"distance\": %d, \"median_us\": %.2f, \"min_us\": %.2f, \"max_us\": %.2f, \"wrong_words\": %lld}",
                  first ? "" : ",\n", c.name().c_str(), kPatterns[c.pattern].name, kPatterns[c.pattern].first_halves,
                  c.scattered ? "scattered" : "linear", c.distance, 1e3 * ms[ms.size() / 2], 1e3 * ms.front(),
                  1e3 * ms.back(), wrong);
      first = false;
    }
    std::printf("\n  ],\n  \"all_checks_passed\": %s\n}\n", once ? "null" : all_ok ? "true" : "false");
    return all_ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "memsim-split-lines: %s\n", e.what());
    return 1;
  }
}
