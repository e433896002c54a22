// memsim-partition-sweep: does a modern GPU camp on DRAM partitions? (docs/hardware.md, "DRAM partitions";
// docs/validation.md)
//
// GT200 sent consecutive 256-byte chunks to consecutive partitions, so blocks that touched addresses a multiple
// of 8 x 256 B apart all queued on one partition (the whitepaper, docs/sources.md). Fermi and later hash addresses over
// channels with an unpublished function; memsim assumes one. This program measures whether any stride still
// camps: many chunks of `chunk` contiguous bytes, chunk i at base + offset + i x stride, handed out in launch
// order (thread block b streams chunks [b K, (b+1) K), K = 16 KiB / chunk, so resident blocks cover a run of
// consecutive chunk ids, exactly the pattern that camps on a linear interleave). Every (direction, stride,
// offset) moves the same bytes; if bandwidth depends on the stride, the mapping camps.
//
// Timing (docs/validation.md): CUDA events around each launch, after a warm-up launch; before every timed launch a
// read of a scratch buffer 4x the L2 evicts what the previous launch left there (reads, so no dirty lines are
// written back during the next timed launch); the median of the repeats is reported with min and max. The
// moved bytes per launch (default 256 MiB) exceed the L2 (50 MB on H100) several times. Written data may still
// sit in L2 when a write launch ends (at most one L2 of it): write bandwidths are upper bounds by that much.
//
// Checks: the buffer holds a known pattern; every read launch's per-block XOR is compared with the host's for
// sampled blocks, and every write launch's chunks are compared for sampled chunks. Every CUDA call is checked.
//
// Output: JSON (stdout or --out FILE) with device, parameters and one record per (direction, stride, offset);
// on stderr the summary line "max/min bandwidth ratio across strides: ...".
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <string>
#include <vector>

#include "validate/cuda_check.hpp"

namespace {

constexpr int kThreads = 256;
constexpr int kPiece = 16;                             // bytes per thread per step (uint4)
constexpr int kBlockBytes = 16384;                     // bytes a thread block streams per launch
constexpr int kSteps = kBlockBytes / (kThreads * kPiece);  // 4

// The value stored at 4-byte word w of the buffer (and written by the write test, xor `salt`).
__host__ __device__ inline uint32_t pattern(uint64_t word, uint32_t salt) {
  uint64_t x = word * 0x9E3779B97F4A7C15ull + salt;
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 32;
  return uint32_t(x);
}

struct Geometry {
  uint64_t base_offset;  // bytes from the buffer start to chunk 0
  uint64_t stride;       // bytes from chunk i to chunk i + 1
  uint32_t chunk;        // contiguous bytes per chunk (a multiple of 16 dividing kBlockBytes)
};

// Byte offset of 16-byte piece `p` (0 .. kBlockBytes / 16 - 1) of thread block `b`.
__host__ __device__ inline uint64_t piece_offset(const Geometry& g, uint64_t b, uint32_t p) {
  const uint32_t pieces_per_chunk = g.chunk / kPiece;
  const uint64_t chunk_id = b * (kBlockBytes / g.chunk) + p / pieces_per_chunk;
  return g.base_offset + chunk_id * g.stride + uint64_t(p % pieces_per_chunk) * kPiece;
}

__global__ void fill(uint32_t* buf, uint64_t words, uint32_t salt) {
  for (uint64_t w = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; w < words; w += uint64_t(gridDim.x) * blockDim.x)
    buf[w] = pattern(w, salt);
}

// Reads the block's chunks; one XOR per block goes out so the loads cannot be dropped and can be checked.
__global__ void read_chunks(const char* __restrict__ buf, Geometry g, uint32_t* __restrict__ block_xor) {
  uint4 v[kSteps];
#pragma unroll
  for (int s = 0; s < kSteps; ++s)
    v[s] = *reinterpret_cast<const uint4*>(buf + piece_offset(g, blockIdx.x, s * kThreads + threadIdx.x));
  uint32_t x = 0;
#pragma unroll
  for (int s = 0; s < kSteps; ++s) x ^= v[s].x ^ v[s].y ^ v[s].z ^ v[s].w;
  for (int o = 16; o > 0; o /= 2) x ^= __shfl_xor_sync(0xffffffffu, x, o);
  __shared__ uint32_t warp_xor[kThreads / 32];
  if (threadIdx.x % 32 == 0) warp_xor[threadIdx.x / 32] = x;
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32_t all = 0;
    for (int w = 0; w < kThreads / 32; ++w) all ^= warp_xor[w];
    block_xor[blockIdx.x] = all;
  }
}

__global__ void write_chunks(char* __restrict__ buf, Geometry g, uint32_t salt) {
#pragma unroll
  for (int s = 0; s < kSteps; ++s) {
    const uint64_t off = piece_offset(g, blockIdx.x, s * kThreads + threadIdx.x);
    const uint64_t w = off / 4;
    *reinterpret_cast<uint4*>(buf + off) =
        make_uint4(pattern(w, salt), pattern(w + 1, salt), pattern(w + 2, salt), pattern(w + 3, salt));
  }
}

// Evicts the L2 by reading `bytes` of scratch (clean lines: nothing to write back later).
__global__ void flush_read(const uint4* __restrict__ p, uint64_t n, uint32_t* sink) {
  uint32_t x = 0;
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x)
    x ^= p[i].x;
  if (x == 0x12345678u) *sink = x;  // practically never: keeps the loads alive
}

// ---------------------------------------------------------------------------------------------------------

struct Options {
  std::vector<uint64_t> strides;
  std::vector<uint64_t> offsets{0, 128, 256, 2048};
  uint32_t chunk = 512;
  uint64_t bytes = uint64_t(256) << 20;
  uint64_t max_footprint = uint64_t(40) << 30;
  int repeats = 9;
  bool do_read = true, do_write = true;
  std::string out;
  int device = 0;
};

std::vector<uint64_t> default_strides() {
  std::vector<uint64_t> s;
  for (uint64_t p = 256; p <= 65536; p *= 2) s.push_back(p);       // powers of two, 256 B .. 64 KiB
  for (uint64_t p = 256; p <= 16384; p *= 2) s.push_back(3 * p);   // 3 x: odd multiples of each
  s.push_back(5 * 256);
  s.push_back(7 * 256);
  s.push_back(9 * 256);
  s.push_back(5 * 4096);
  s.push_back(7 * 4096);
  std::sort(s.begin(), s.end());
  return s;
}

std::vector<uint64_t> parse_list(const char* text) {
  std::vector<uint64_t> v;
  const std::string s(text);
  size_t pos = 0;
  while (pos <= s.size()) {
    const size_t comma = s.find(',', pos);
    const std::string item = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (!item.empty()) v.push_back(std::stoull(item));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return v;
}

const char* kUsage =
    "usage: memsim-partition-sweep [--direction read|write|both] [--chunk BYTES] [--bytes BYTES]\n"
    "         [--strides B,B,...] [--offsets B,B,...] [--repeats N] [--max-footprint BYTES] [--device N]\n"
    "         [--out FILE]\n"
    "  chunk: contiguous bytes per chunk, a multiple of 16 dividing 16384 (default 512; a stride below it\n"
    "  uses chunk = stride); bytes: moved per launch (default 256 MiB); strides: default 256 B .. 64 KiB,\n"
    "  powers of two and odd multiples; offsets: added to chunk 0's address (default 0,128,256,2048).\n";

Options parse(int argc, char** argv) {
  Options o;
  o.strides = default_strides();
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    if (a == "--direction") {
      const std::string d = value();
      if (d != "read" && d != "write" && d != "both") throw std::invalid_argument("--direction: read, write or both");
      o.do_read = d != "write";
      o.do_write = d != "read";
    } else if (a == "--chunk") {
      o.chunk = uint32_t(std::stoul(value()));
    } else if (a == "--bytes") {
      o.bytes = std::stoull(value());
    } else if (a == "--strides") {
      o.strides = parse_list(value());
    } else if (a == "--offsets") {
      o.offsets = parse_list(value());
    } else if (a == "--repeats") {
      o.repeats = std::stoi(value());
    } else if (a == "--max-footprint") {
      o.max_footprint = std::stoull(value());
    } else if (a == "--device") {
      o.device = std::stoi(value());
    } else if (a == "--out") {
      o.out = value();
    } else if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else {
      throw std::invalid_argument("unknown option " + a);
    }
  }
  if (o.chunk < 16 || o.chunk % 16 != 0 || kBlockBytes % o.chunk != 0)
    throw std::invalid_argument("--chunk must be a multiple of 16 that divides 16384");
  if (o.repeats < 1) throw std::invalid_argument("--repeats must be at least 1");
  if (o.bytes < uint64_t(kBlockBytes)) throw std::invalid_argument("--bytes must be at least 16384");
  for (uint64_t s : o.strides)
    if (s < 16 || s % 16 != 0) throw std::invalid_argument("strides must be multiples of 16 bytes");
  for (uint64_t off : o.offsets)
    if (off % 16 != 0) throw std::invalid_argument("offsets must be multiples of 16 bytes");
  return o;
}

std::string json_string(const std::string& s) {
  std::string r = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) r += c;
  }
  return r + "\"";
}

struct Record {
  std::string direction;
  uint64_t stride = 0, offset = 0, chunk = 0, footprint = 0, bytes = 0;
  bool skipped = false;
  std::string why;
  double median_us = 0, min_us = 0, max_us = 0, gbs = 0;
  bool verified = false;
};

// Host check of one read block: the XOR of the pattern words its pieces cover.
uint32_t expected_block_xor(const Geometry& g, uint64_t b) {
  uint32_t x = 0;
  for (uint32_t p = 0; p < uint32_t(kBlockBytes / kPiece); ++p) {
    const uint64_t w = piece_offset(g, b, p) / 4;
    for (int k = 0; k < 4; ++k) x ^= pattern(w + k, 0);
  }
  return x;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    MEMSIM_CUDA_CHECK(cudaSetDevice(o.device));
    cudaDeviceProp prop{};
    MEMSIM_CUDA_CHECK(cudaGetDeviceProperties(&prop, o.device));
    int mem_clock_khz = 0, driver = 0, runtime = 0;
    MEMSIM_CUDA_CHECK(cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, o.device));
    MEMSIM_CUDA_CHECK(cudaDriverGetVersion(&driver));
    MEMSIM_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));

    // One buffer for the largest footprint that fits, one scratch buffer for flushing the L2.
    uint64_t need = 0;
    for (uint64_t s : o.strides)
      for (uint64_t off : o.offsets) {
        const uint64_t chunk = std::min<uint64_t>(o.chunk, s);
        const uint64_t fp = off + (o.bytes / chunk) * s;
        if (fp <= o.max_footprint) need = std::max(need, fp);
      }
    size_t free_b = 0, total_b = 0;
    MEMSIM_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    const uint64_t flush_bytes = std::max<uint64_t>(uint64_t(4) * std::max(prop.l2CacheSize, 1 << 20), 64 << 20);
    const uint64_t usable = uint64_t(double(free_b) * 0.85);
    const uint64_t limit = std::min<uint64_t>(o.max_footprint, usable > flush_bytes ? usable - flush_bytes : 0);
    if (need > limit) need = limit;
    if (need < o.bytes) throw std::runtime_error("not enough device memory for even a contiguous sweep");
    char* buf = nullptr;
    uint4* scratch = nullptr;
    uint32_t *block_xor = nullptr, *sink = nullptr;
    MEMSIM_CUDA_CHECK(cudaMalloc(&buf, need));
    MEMSIM_CUDA_CHECK(cudaMalloc(&scratch, flush_bytes));
    MEMSIM_CUDA_CHECK(cudaMalloc(&sink, sizeof(uint32_t)));
    const uint64_t max_blocks = o.bytes / kBlockBytes;
    MEMSIM_CUDA_CHECK(cudaMalloc(&block_xor, max_blocks * sizeof(uint32_t)));
    MEMSIM_CUDA_CHECK(cudaMemset(scratch, 0, flush_bytes));
    fill<<<4 * prop.multiProcessorCount * 8, 256>>>(reinterpret_cast<uint32_t*>(buf), need / 4, 0);
    MEMSIM_CHECK_LAUNCH("fill");
    MEMSIM_CUDA_CHECK(cudaDeviceSynchronize());

    cudaEvent_t start, stop;
    MEMSIM_CUDA_CHECK(cudaEventCreate(&start));
    MEMSIM_CUDA_CHECK(cudaEventCreate(&stop));
    auto flush = [&]() {
      flush_read<<<prop.multiProcessorCount * 8, 256>>>(scratch, flush_bytes / sizeof(uint4), sink);
      MEMSIM_CHECK_LAUNCH("flush_read");
    };

    std::vector<Record> records;
    uint32_t salt = 1;
    for (int dir = 0; dir < 2; ++dir) {
      const bool reading = dir == 0;
      if ((reading && !o.do_read) || (!reading && !o.do_write)) continue;
      for (uint64_t stride : o.strides)
        for (uint64_t offset : o.offsets) {
          Record r;
          r.direction = reading ? "read" : "write";
          r.stride = stride;
          r.offset = offset;
          r.chunk = std::min<uint64_t>(o.chunk, stride);
          r.bytes = o.bytes;
          r.footprint = offset + (o.bytes / r.chunk) * stride;
          if (r.footprint > need) {
            r.skipped = true;
            r.why = "footprint " + std::to_string(r.footprint) + " B exceeds the buffer (" + std::to_string(need) +
                    " B: --max-footprint or free memory)";
            records.push_back(r);
            continue;
          }
          const Geometry g{offset, stride, uint32_t(r.chunk)};
          const unsigned blocks = unsigned(o.bytes / kBlockBytes);
          auto launch = [&]() {
            if (reading)
              read_chunks<<<blocks, kThreads>>>(buf, g, block_xor);
            else
              write_chunks<<<blocks, kThreads>>>(buf, g, salt);
            MEMSIM_CHECK_LAUNCH(reading ? "read_chunks" : "write_chunks");
          };
          flush();
          launch();  // warm-up
          std::vector<float> ms;
          for (int rep = 0; rep < o.repeats; ++rep) {
            flush();
            MEMSIM_CUDA_CHECK(cudaEventRecord(start));
            launch();
            MEMSIM_CUDA_CHECK(cudaEventRecord(stop));
            MEMSIM_CUDA_CHECK(cudaEventSynchronize(stop));
            float t = 0;
            MEMSIM_CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
            ms.push_back(t);
          }
          std::sort(ms.begin(), ms.end());
          r.median_us = 1000.0 * ms[ms.size() / 2];
          r.min_us = 1000.0 * ms.front();
          r.max_us = 1000.0 * ms.back();
          r.gbs = double(o.bytes) / (r.median_us * 1e-6) / 1e9;

          // Sampled checks: first, middle and last blocks.
          bool ok = true;
          const uint64_t samples[] = {0, blocks / 2, uint64_t(blocks) - 1};
          if (reading) {
            std::vector<uint32_t> got(blocks);
            MEMSIM_CUDA_CHECK(cudaMemcpy(got.data(), block_xor, blocks * sizeof(uint32_t), cudaMemcpyDeviceToHost));
            for (uint64_t b : samples) ok = ok && got[b] == expected_block_xor(g, b);
          } else {
            for (uint64_t b : samples) {
              const uint64_t off = piece_offset(g, b, 0);  // the block's first chunk
              std::vector<uint32_t> got(r.chunk / 4);
              MEMSIM_CUDA_CHECK(cudaMemcpy(got.data(), buf + off, r.chunk, cudaMemcpyDeviceToHost));
              for (size_t k = 0; k < got.size(); ++k) ok = ok && got[k] == pattern(off / 4 + k, salt);
            }
            ++salt;  // every read ran before the first write: the read pattern is not needed any more
          }
          MEMSIM_CUDA_CHECK(cudaDeviceSynchronize());
          r.verified = ok;
          if (!ok) std::fprintf(stderr, "memsim-partition-sweep: CHECK FAILED for %s stride %llu offset %llu\n",
                                r.direction.c_str(), (unsigned long long)stride, (unsigned long long)offset);
          records.push_back(r);
        }
    }

    // Summary: per direction and offset, max/min bandwidth across strides; the headline is the largest.
    std::string summary_json = "{";
    std::string line = "max/min bandwidth ratio across strides:";
    bool all_ok = true;
    for (const Record& r : records) all_ok = all_ok && (r.skipped || r.verified);
    for (const char* dir : {"read", "write"}) {
      double worst_ratio = 0;
      std::string per_offset;
      const Record *best_r = nullptr, *worst_r = nullptr;
      for (uint64_t offset : o.offsets) {
        const Record *hi = nullptr, *lo = nullptr;
        for (const Record& r : records) {
          if (r.direction != dir || r.offset != offset || r.skipped) continue;
          if (!hi || r.gbs > hi->gbs) hi = &r;
          if (!lo || r.gbs < lo->gbs) lo = &r;
        }
        if (!hi) continue;
        const double ratio = hi->gbs / lo->gbs;
        char buf2[160];
        std::snprintf(buf2, sizeof buf2, "%s{\"offset\": %llu, \"ratio\": %.4f, \"best_stride\": %llu, \"worst_stride\": %llu}",
                      per_offset.empty() ? "" : ", ", (unsigned long long)offset, ratio,
                      (unsigned long long)hi->stride, (unsigned long long)lo->stride);
        per_offset += buf2;
        if (ratio > worst_ratio) {
          worst_ratio = ratio;
          best_r = hi;
          worst_r = lo;
        }
      }
      if (!best_r) continue;
      char buf2[400];
      std::snprintf(buf2, sizeof buf2,
                    "%s\"%s\": {\"max_min_ratio\": %.4f, \"best\": {\"stride\": %llu, \"offset\": %llu, "
                    "\"bandwidth_gbs\": %.2f}, \"worst\": {\"stride\": %llu, \"offset\": %llu, \"bandwidth_gbs\": "
                    "%.2f}, \"per_offset\": [",
                    summary_json.size() > 1 ? ", " : "", dir, worst_ratio, (unsigned long long)best_r->stride,
                    (unsigned long long)best_r->offset, best_r->gbs, (unsigned long long)worst_r->stride,
                    (unsigned long long)worst_r->offset, worst_r->gbs);
      summary_json += buf2 + per_offset + "]}";
      std::snprintf(buf2, sizeof buf2, " %s %.3f (%.1f GB/s at stride %llu B vs %.1f GB/s at stride %llu B, offset %llu);",
                    dir, worst_ratio, best_r->gbs, (unsigned long long)best_r->stride, worst_r->gbs,
                    (unsigned long long)worst_r->stride, (unsigned long long)worst_r->offset);
      line += buf2;
    }
    summary_json += "}";

    // JSON record.
    char when[64];
    const std::time_t now = std::time(nullptr);
    std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    std::string js = "{\n  \"program\": \"memsim-partition-sweep\",\n";
    js += "  \"date\": \"" + std::string(when) + "\",\n";
    char dev[600];
    std::snprintf(dev, sizeof dev,
                  "  \"device\": {\"name\": %s, \"compute_capability\": \"%d.%d\", \"sms\": %d, \"l2_bytes\": %d, "
                  "\"memory_bus_bits\": %d, \"memory_clock_khz\": %d, \"global_memory_bytes\": %llu, "
                  "\"driver_version\": %d, \"runtime_version\": %d},\n",
                  json_string(prop.name).c_str(), prop.major, prop.minor, prop.multiProcessorCount, prop.l2CacheSize,
                  prop.memoryBusWidth, mem_clock_khz, (unsigned long long)prop.totalGlobalMem, driver, runtime);
    js += dev;
    char par[700];
    std::snprintf(par, sizeof par,
                  "  \"parameters\": {\"chunk_bytes\": %u, \"bytes_per_launch\": %llu, \"repeats\": %d, "
                  "\"thread_block\": %d, \"bytes_per_thread_block\": %d, \"buffer_bytes\": %llu, "
                  "\"l2_flush_bytes\": %llu, \"pattern\": \"chunk i at base + offset + i * stride; thread block b "
                  "streams chunks [b*K, (b+1)*K), K = 16384 / chunk; chunk = min(chunk_bytes, stride)\", "
                  "\"timing\": \"CUDA events around each launch, L2 evicted by a read before each, median of "
                  "repeats\"},\n",
                  o.chunk, (unsigned long long)o.bytes, o.repeats, kThreads, kBlockBytes, (unsigned long long)need,
                  (unsigned long long)flush_bytes);
    js += par;
    js += "  \"all_checks_passed\": " + std::string(all_ok ? "true" : "false") + ",\n";
    js += "  \"summary\": " + summary_json + ",\n  \"results\": [\n";
    for (size_t i = 0; i < records.size(); ++i) {
      const Record& r = records[i];
      char rec[700];
      if (r.skipped)
        std::snprintf(rec, sizeof rec,
                      "    {\"direction\": \"%s\", \"stride\": %llu, \"offset\": %llu, \"chunk\": %llu, "
                      "\"footprint\": %llu, \"skipped\": %s}",
                      r.direction.c_str(), (unsigned long long)r.stride, (unsigned long long)r.offset,
                      (unsigned long long)r.chunk, (unsigned long long)r.footprint, json_string(r.why).c_str());
      else
        std::snprintf(rec, sizeof rec,
                      "    {\"direction\": \"%s\", \"stride\": %llu, \"offset\": %llu, \"chunk\": %llu, "
                      "\"footprint\": %llu, \"bytes\": %llu, \"median_us\": %.3f, \"min_us\": %.3f, \"max_us\": %.3f, "
                      "\"bandwidth_gbs\": %.2f, \"verified\": %s}",
                      r.direction.c_str(), (unsigned long long)r.stride, (unsigned long long)r.offset,
                      (unsigned long long)r.chunk, (unsigned long long)r.footprint, (unsigned long long)r.bytes,
                      r.median_us, r.min_us, r.max_us, r.gbs, r.verified ? "true" : "false");
      js += rec;
      js += i + 1 < records.size() ? ",\n" : "\n";
    }
    js += "  ]\n}\n";
    if (o.out.empty()) {
      std::fputs(js.c_str(), stdout);
    } else {
      FILE* f = std::fopen(o.out.c_str(), "w");
      if (!f) throw std::runtime_error("cannot write " + o.out);
      std::fputs(js.c_str(), f);
      std::fclose(f);
    }
    std::fprintf(stderr, "%s\n", line.c_str());

    MEMSIM_CUDA_CHECK(cudaEventDestroy(start));
    MEMSIM_CUDA_CHECK(cudaEventDestroy(stop));
    MEMSIM_CUDA_CHECK(cudaFree(buf));
    MEMSIM_CUDA_CHECK(cudaFree(scratch));
    MEMSIM_CUDA_CHECK(cudaFree(block_xor));
    MEMSIM_CUDA_CHECK(cudaFree(sink));
    return all_ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "memsim-partition-sweep: %s\n%s", e.what(), kUsage);
    return 2;
  }
}
