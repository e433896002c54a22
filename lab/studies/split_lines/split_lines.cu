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
//
// Then the same with 2-byte lanes (split_lines_map.hpp's lanes2: quarter sectors, 8/24 and 16/16 cuts), every
// pattern of it in both layouts and D = 1, 16, 256, named "2-byte lanes, PATTERN, LAYOUT, D N" (the 4-byte runs
// keep their names and come first). Its input element i holds i mod 65535 (never 0xffff, the unwritten
// output's value), checked element by element as the words are. Each run's JSON says its lane_bytes (4 or 2).
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

// The same with 2-byte lanes (lanes2's index math).
__global__ void __launch_bounds__(kThreads) split_lines_copy2(const uint16_t* __restrict__ in,
                                                              uint16_t* __restrict__ out, uint64_t first_quarters,
                                                              bool scattered, uint32_t distance) {
  const uint32_t b = blockIdx.x;
  const int t = threadIdx.x;
  uint16_t v[kSteps];
#pragma unroll
  for (int s = 0; s < kSteps; ++s) v[s] = in[lanes2::load_elem(b, t, s)];
#pragma unroll
  for (int s = 0; s < kSteps; ++s) out[lanes2::store_elem(first_quarters, scattered, distance, b, t, s)] = v[s];
}

// Input element i of the 2-byte-lane copy.
uint16_t input_elem2(uint32_t i) { return uint16_t(i % 65535u); }

struct Config {
  int lane_bytes;  // 4: kPatterns, 2: lanes2::kPatterns
  int pattern;
  bool scattered;
  int distance;
  const char* pattern_name() const {
    return lane_bytes == 2 ? lanes2::kPatterns[pattern].name : kPatterns[pattern].name;
  }
  std::string name() const {
    return std::string(lane_bytes == 2 ? "2-byte lanes, " : "") + pattern_name() +
           (scattered ? ", scattered" : ", linear") + ", D " + std::to_string(distance);
  }
};

// in, out: the 4-byte copy's buffers; in2: the 2-byte copy's input (out serves it as 2-byte elements).
void launch(const Config& c, const uint32_t* in, const uint16_t* in2, uint32_t* out) {
  if (c.lane_bytes == 2)
    split_lines_copy2<<<unsigned(lanes2::kBlocks), kThreads>>>(in2, reinterpret_cast<uint16_t*>(out),
                                                               lanes2::kPatterns[c.pattern].first_quarters,
                                                               c.scattered, uint32_t(c.distance));
  else
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
        const uint32_t w = output_word(c.scattered, g, store_slot(s, t, word_of[role][size_t(t)]));
        wrong += seen[size_t(w)]++ != 0;
        wrong += host[size_t(w)] != load_word(b, t, s);
      }
  }
  for (uint8_t v : seen) wrong += v == 0;
  return wrong;
}

// The same for the 2-byte lanes: every output element against the input element its block loaded for it.
long long wrong_elems2(const Config& c, const std::vector<uint16_t>& host) {
  long long wrong = 0;
  std::vector<int> elem_of[2];  // the period element of each thread, by role (the same at every step)
  for (int role = 0; role < 2; ++role)
    for (int t = 0; t < kThreads; ++t)
      elem_of[role].push_back(lanes2::period_elem(lanes2::kPatterns[c.pattern].first_quarters, role, t));
  std::vector<uint8_t> seen(static_cast<size_t>(lanes2::kElems), 0);
  for (uint32_t b = 0; b < lanes2::kBlocks; ++b) {
    const uint32_t g = group_of(b, uint32_t(c.distance));
    const int role = role_of(b, uint32_t(c.distance));
    for (int s = 0; s < kSteps; ++s)
      for (int t = 0; t < kThreads; ++t) {
        const uint32_t e = lanes2::output_elem(c.scattered, g, lanes2::store_slot(s, t, elem_of[role][size_t(t)]));
        wrong += seen[size_t(e)]++ != 0;
        wrong += host[size_t(e)] != input_elem2(lanes2::load_elem(b, t, s));
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
  for (int lane_bytes : {4, 2})
    for (int p = 0; p < (lane_bytes == 2 ? lanes2::kPatternCount : kPatternCount); ++p)
      for (bool scattered : {false, true})
        for (int d : kDistances) {
          const Config c{lane_bytes, p, scattered, d};
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
    static_assert(size_t(lanes2::kElems) * 2 == size_t(kWords) * 4, "both copies move the same bytes");
    std::vector<uint16_t> host2(static_cast<size_t>(lanes2::kElems));
    for (size_t i = 0; i < host2.size(); ++i) host2[i] = input_elem2(uint32_t(i));
    uint16_t* in2 = nullptr;
    MEMSIM_CUDA_CHECK(cudaMalloc(&in2, bytes));
    MEMSIM_CUDA_CHECK(cudaMemcpy(in2, host2.data(), bytes, cudaMemcpyHostToDevice));
    std::vector<uint32_t*> outs(kOutputs);
    for (auto& o : outs) MEMSIM_CUDA_CHECK(cudaMalloc(&o, bytes));
    cudaEvent_t a, b;
    MEMSIM_CUDA_CHECK(cudaEventCreate(&a));
    MEMSIM_CUDA_CHECK(cudaEventCreate(&b));
    cudaDeviceProp p{};
    MEMSIM_CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
    int driver = 0, resident = 0, resident2 = 0;
    MEMSIM_CUDA_CHECK(cudaDriverGetVersion(&driver));
    MEMSIM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, split_lines_copy, kThreads, 0));
    MEMSIM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident2, split_lines_copy2, kThreads, 0));
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    std::printf("{\n  \"program\": \"memsim-split-lines\",\n  \"date\": \"%s\",\n  \"device\": \"%s\",\n"
                "  \"sms\": %d,\n  \"l2_bytes\": %d,\n  \"driver_version\": %d,\n  \"words\": %lld,\n"
                "  \"blocks\": %lld,\n  \"blocks_per_sm\": %d,\n  \"elements_2_byte_lanes\": %lld,\n"
                "  \"blocks_2_byte_lanes\": %lld,\n  \"blocks_per_sm_2_byte_lanes\": %d,\n  \"runs\": [\n",
                date, p.name, p.multiProcessorCount, p.l2CacheSize, driver, (long long)kWords, (long long)kBlocks,
                resident, (long long)lanes2::kElems, (long long)lanes2::kBlocks, resident2);
    bool all_ok = true, first = true;
    for (const Config& c : configs) {
      MEMSIM_CUDA_CHECK(cudaMemset(outs[0], 0xff, bytes));
      launch(c, in, in2, outs[0]);
      MEMSIM_CUDA_CHECK(cudaGetLastError());
      MEMSIM_CUDA_CHECK(cudaDeviceSynchronize());
      if (once) continue;
      long long wrong = 0;
      if (c.lane_bytes == 2) {
        std::vector<uint16_t> out(static_cast<size_t>(lanes2::kElems));
        MEMSIM_CUDA_CHECK(cudaMemcpy(out.data(), outs[0], bytes, cudaMemcpyDeviceToHost));
        wrong = wrong_elems2(c, out);
      } else {
        std::vector<uint32_t> out(static_cast<size_t>(kWords));
        MEMSIM_CUDA_CHECK(cudaMemcpy(out.data(), outs[0], bytes, cudaMemcpyDeviceToHost));
        wrong = wrong_words(c, out);
      }
      all_ok = all_ok && wrong == 0;
      std::vector<float> ms;
      for (int r = 0; r < kWarmup + kReps; ++r) {
        MEMSIM_CUDA_CHECK(cudaEventRecord(a));
        launch(c, in, in2, outs[r % kOutputs]);
        MEMSIM_CUDA_CHECK(cudaEventRecord(b));
        MEMSIM_CUDA_CHECK(cudaEventSynchronize(b));
        MEMSIM_CUDA_CHECK(cudaGetLastError());
        float t = 0;
        MEMSIM_CUDA_CHECK(cudaEventElapsedTime(&t, a, b));
        if (r >= kWarmup) ms.push_back(t);
      }
      std::sort(ms.begin(), ms.end());
      // The pattern's mask: first_halves (4-byte lanes, 32 bits) or first_quarters (2-byte lanes, 64 bits);
      // wrong_words counts the output's elements either way.
      char mask[64];
      if (c.lane_bytes == 2)
        std::snprintf(mask, sizeof mask, "\"first_quarters\": \"0x%016llx\"",
                      (unsigned long long)lanes2::kPatterns[c.pattern].first_quarters);
      else
        std::snprintf(mask, sizeof mask, "\"first_halves\": \"0x%08x\"", kPatterns[c.pattern].first_halves);
      std::printf("%s    {\"name\": \"%s\", \"pattern\": \"%s\", %s, \"layout\": \"%s\", \"distance\": %d, "
                  "\"lane_bytes\": %d, \"median_us\": %.2f, \"min_us\": %.2f, \"max_us\": %.2f, \"wrong_words\": %lld}",
                  first ? "" : ",\n", c.name().c_str(), c.pattern_name(), mask, c.scattered ? "scattered" : "linear",
                  c.distance, c.lane_bytes, 1e3 * ms[ms.size() / 2], 1e3 * ms.front(), 1e3 * ms.back(), wrong);
      first = false;
    }
    std::printf("\n  ],\n  \"all_checks_passed\": %s\n}\n", once ? "null" : all_ok ? "true" : "false");
    return all_ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "memsim-split-lines: %s\n", e.what());
    return 1;
  }
}
