// memsim-microbench: the measurements memsim-calibrate fits the cost model's constants to (docs/validation.md).
// Prints one JSON document: the device as cudaGetDeviceProperties sees it, one record per microbenchmark
// run (its parameters, the counts the cost model reads, and its time), and a hold-out section timing the
// suite's own kernels, which the calibration never reads.
//
//   memsim-microbench [--quick] [--no-holdout] > h100_microbench.json
#include <cuda_runtime.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_kernels.cuh"
#include "kernels/resolve.hpp"
#include "model/profile.hpp"
#include "sim/dram_order.hpp"
#include "validate/device_info.hpp"
#include "validate/record_lines.hpp"
#include "validate/reference.hpp"
#include "validate/suite_launch.hpp"
#include "timing.cuh"

namespace {

using mb::Counts;
using mb::Stats;

struct Device {
  cudaDeviceProp prop{};
  int sm_clock_khz = 0, mem_clock_khz = 0, bus_bits = 0, driver = 0, runtime = 0;
  size_t l2 = 0;
};

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string counts_json(const Counts& c) {
  std::ostringstream os;
  os << "{\"blocks\": " << c.blocks << ", \"threads_per_block\": " << c.threads_per_block
     << ", \"shared_bytes_per_block\": " << c.shared_bytes_per_block << ", \"regs_per_thread\": " << c.regs_per_thread
     << ", \"useful_bytes\": " << num(c.useful_bytes) << ", \"dram_read_bytes\": " << num(c.dram_read_bytes)
     << ", \"dram_write_bytes\": " << num(c.dram_write_bytes) << ", \"l1_sectors_ld\": " << num(c.l1_sectors_ld)
     << ", \"l1_sectors_st\": " << num(c.l1_sectors_st) << ", \"l1_wavefronts_ld\": " << num(c.l1_wavefronts_ld)
     << ", \"l1_wavefronts_st\": " << num(c.l1_wavefronts_st) << ", \"l2_sectors_ld\": " << num(c.l2_sectors_ld)
     << ", \"l2_sectors_st\": " << num(c.l2_sectors_st) << ", \"l2_requests_st\": " << num(c.l2_requests_st)
     << ", \"l2_requests_ld\": "
     << num(c.l2_requests_ld >= 0 ? c.l2_requests_ld : std::min(c.l1_wavefronts_ld, c.l2_sectors_ld)) << ", \"shared_wavefronts\": " << num(c.shared_wavefronts)
     << ", \"shared_instructions\": " << num(c.shared_instructions)
     << ", \"global_ld_instructions\": " << num(c.global_ld_instructions)
     << ", \"global_st_instructions\": " << num(c.global_st_instructions)
     << ", \"loads_in_flight_per_warp\": " << num(c.loads_in_flight_per_warp)
     << ", \"instructions\": " << num(c.instructions) << ", \"barriers\": " << c.barriers
     << ", \"partial_lines_per_block\": " << num(c.partial_lines_per_block)
     << ", \"partial_sector_warps\": " << c.partial_sector_warps;
  if (c.dram_order_counted)
    os << ", \"dram_scattered_ld\": " << num(c.dram_scattered[0]) << ", \"dram_scattered_st\": " << num(c.dram_scattered[1]);
  if (c.split_sectors > 0) os << ", \"split_sectors\": " << num(c.split_sectors);
  os << "}";
  return os.str();
}

std::string stats_json(const Stats& s) {
  return "{\"median\": " + num(s.median_us) + ", \"min\": " + num(s.min_us) + ", \"max\": " + num(s.max_us) +
         ", \"reps\": " + std::to_string(s.reps) + "}";
}

class Runs {
 public:
  void add(const std::string& bench, const std::string& params, Counts c, const void* fn, const Stats& s,
           const std::string& check, int occupancy_blocks) {
    cudaFuncAttributes a{};
    if (fn && cudaFuncGetAttributes(&a, fn) == cudaSuccess) c.regs_per_thread = a.numRegs;
    std::ostringstream os;
    os << "    {\"bench\": \"" << bench << "\", \"params\": {" << params << "}, \"counts\": " << counts_json(c)
       << ", \"occupancy_blocks_per_sm\": " << occupancy_blocks << ", \"time_us\": " << stats_json(s)
       << ", \"check\": \"" << check << "\"}";
    rows_.push_back(os.str());
    std::fprintf(stderr, "%-22s %-40s %10.2f us  (%s)\n", bench.c_str(), params.c_str(), s.median_us, check.c_str());
  }
  const std::vector<std::string>& rows() const { return rows_; }

 private:
  std::vector<std::string> rows_;
};

template <class T>
std::vector<T> download(const void* p, size_t n) {
  std::vector<T> h(n);
  MB_CHECK(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

int occupancy(const void* fn, int threads, size_t dyn_smem) {
  int b = 0;
  MB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, fn, threads, dyn_smem));
  return b;
}

// Dynamic shared memory that lets only cap_blocks blocks of fn onto an SM (1 KiB per block is reserved);
// 0 for no cap.
size_t cap_dynamic_shared(const void* fn, const Device& dev, int cap_blocks) {
  if (cap_blocks <= 0) return 0;
  size_t dyn = dev.prop.sharedMemPerMultiprocessor / cap_blocks - 1024 - 256;
  dyn = std::min(dyn, size_t(dev.prop.sharedMemPerBlockOptin));
  MB_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, int(dyn)));
  return dyn;
}

// ---- copies: launch overhead, latency (small sizes, capped occupancy) and DRAM bandwidth ----------------

template <class V, int E>
void run_copy(Runs& runs, const mb::Pool& pool, const Device& dev, size_t n_vec, int cap_blocks, bool check) {
  const auto fn = &mb::copy_ilp<V, E>;
  const size_t dyn = cap_dynamic_shared((const void*)fn, dev, cap_blocks);
  const size_t bytes = n_vec * sizeof(V);
  const mb::PairSet ps = mb::make_pairs(pool, bytes, bytes, dev.l2);
  const unsigned blocks = unsigned(n_vec / (256 * E));
  auto launch = [&](int i) { fn<<<blocks, 256, dyn>>>(static_cast<const V*>(ps.in(i)), static_cast<V*>(ps.out(i))); };
  std::string verdict = "not checked";
  if (check) {
    MB_CHECK(cudaMemset(ps.out(0), 0xff, bytes));
    launch(0);
    MB_CHECK(cudaDeviceSynchronize());
    verdict = download<unsigned char>(ps.in(0), bytes) == download<unsigned char>(ps.out(0), bytes) ? "ok" : "WRONG";
  }
  const Stats s = mb::time_launches(launch);
  std::ostringstream p;
  p << "\"vector_bytes\": " << sizeof(V) << ", \"per_thread\": " << E << ", \"bytes\": " << bytes
    << ", \"cap_blocks_per_sm\": " << cap_blocks;
  runs.add("copy", p.str(), mb::copy_ilp_counts<V, E>(n_vec, int64_t(dyn)), (const void*)fn, s, verdict,
           occupancy((const void*)fn, 256, dyn));
}

template <int E>
void run_chain(Runs& runs, const mb::Pool& pool, const Device& dev, size_t n, int cap_blocks) {
  const auto fn = &mb::copy_chain<E>;
  const size_t dyn = cap_dynamic_shared((const void*)fn, dev, cap_blocks);
  const size_t bytes = n * 4;
  const mb::PairSet ps = mb::make_pairs(pool, bytes, bytes, dev.l2);
  const unsigned blocks = unsigned(n / (256 * E));
  auto launch = [&](int i) { fn<<<blocks, 256, dyn>>>(static_cast<const float*>(ps.in(i)), static_cast<float*>(ps.out(i))); };
  const Stats s = mb::time_launches(launch);
  std::ostringstream p;
  p << "\"per_thread\": " << E << ", \"bytes\": " << bytes << ", \"cap_blocks_per_sm\": " << cap_blocks;
  runs.add("copy_chain", p.str(), mb::copy_chain_counts<E>(n, int64_t(dyn)), (const void*)fn, s, "not checked",
           occupancy((const void*)fn, 256, dyn));
}

// ---- strided stores and loads: L1 and L2 sector costs --------------------------------------------------

// The first pair's output of a strided benchmark, element by element: the strided side (the output when
// strided_store, else the input) at strided_index, the linear side at the thread's own positions.
template <class T, int K, bool kRowFast = false, bool kAcross = false>
int64_t count_wrong_strided(const mb::PairSet& ps, size_t n, int P, bool strided_store) {
  const std::vector<T> hin = download<T>(ps.in(0), n), hout = download<T>(ps.out(0), n);
  int64_t wrong = 0;
  for (unsigned b = 0; b < unsigned(n / 1024); ++b)
    for (int w = 0; w < 8; ++w)
      for (int l = 0; l < 32; ++l)
        for (int i = 0; i < 4; ++i) {
          const size_t lin = mb::linear_base(b, w, l) + i * mb::kLinearStep;
          const size_t str = mb::strided_index<T, K, kRowFast, kAcross>(P, int(b), w, l, i);
          wrong += strided_store ? std::memcmp(&hout[str], &hin[lin], sizeof(T)) != 0
                                 : std::memcmp(&hout[lin], &hin[str], sizeof(T)) != 0;
        }
  return wrong;
}

// One strided benchmark (kernel fn(in, out, P), n / 1024 blocks of 256 threads, dyn bytes of dynamic shared
// memory): checked element by element, timed, and added under `bench` with its parameters and counts.
template <class T, int K, bool kRowFast = false, bool kAcross = false, class Kernel>
void measure_strided(Runs& runs, const mb::Pool& pool, const Device& dev, int P, bool timed, Kernel fn, size_t dyn,
                     bool strided_store, const char* bench, const std::string& more_params, const mb::Counts& counts) {
  const size_t n = size_t(P) * P, bytes = n * sizeof(T);
  const mb::PairSet ps = mb::make_pairs(pool, bytes, bytes, dev.l2);
  const unsigned blocks = unsigned(n / 1024);
  auto launch = [&](int i) { fn<<<blocks, 256, dyn>>>(static_cast<const T*>(ps.in(i)), static_cast<T*>(ps.out(i)), P); };
  MB_CHECK(cudaMemset(ps.out(0), 0xff, bytes));
  launch(0);
  MB_CHECK(cudaDeviceSynchronize());
  if (!timed) return;  // --stores-only: one launch each, for Nsight Compute's counters
  const int64_t wrong = count_wrong_strided<T, K, kRowFast, kAcross>(ps, n, P, strided_store);
  const Stats s = mb::time_launches(launch);
  std::ostringstream p;
  p << "\"elem_bytes\": " << sizeof(T) << ", \"rows_per_request\": " << K << ", \"side\": " << P << more_params;
  runs.add(bench, p.str(), counts, (const void*)fn, s, wrong ? "WRONG" : "ok", occupancy((const void*)fn, 256, dyn));
}

// cap_blocks > 0: unused dynamic shared memory holds the SM to that many blocks, so fewer lines are partly
// written at once (the stores' pattern is unchanged).
template <class T, int K, bool kStore, bool kRowFast = false, bool kAcross = false>
void run_strided(Runs& runs, const mb::Pool& pool, const Device& dev, int P, bool timed = true, int cap_blocks = 0) {
  const auto fn = &mb::strided<T, K, kStore, kRowFast, kAcross>;
  const size_t dyn = cap_dynamic_shared((const void*)fn, dev, cap_blocks);
  std::string more = std::string(", \"strided\": \"") + (kStore ? "store" : "load") + "\"";
  if (cap_blocks > 0) more += ", \"cap_blocks_per_sm\": " + std::to_string(cap_blocks);
  if (kRowFast) more += ", \"lanes\": \"row_fast\"";
  if (kAcross) more += ", \"blocks\": \"across\"";
  measure_strided<T, K, kRowFast, kAcross>(runs, pool, dev, P, timed, fn, dyn, kStore, kStore ? "strided_store" : "strided_load", more,
                        mb::strided_counts<T, K, kStore>(P, int64_t(dyn)));
}

// One load in flight a warp (each load after the previous store, no __restrict__): strided loads
// (strided_load_chain), a diagnostic of the latency term, or strided stores after such loads
// (strided_store_chain): partial stores spaced by a round trip, as the suite's direct bodies (copy, naive) and
// narrow blocks have them; a study, not fitted: the L2 merges their pieces into fewer write requests than the
// counts give (validate/results/chain_stores.md).
template <class T, int K, bool kStridedStore = false>
void run_strided_chain(Runs& runs, const mb::Pool& pool, const Device& dev, int P, bool timed, int cap_blocks = 0) {
  const auto fn = kStridedStore ? &mb::strided_store_chain<T, K> : &mb::strided_load_chain<T, K>;
  const size_t dyn = cap_dynamic_shared((const void*)fn, dev, cap_blocks);
  mb::Counts c = mb::strided_counts<T, K, kStridedStore>(P, int64_t(dyn));
  c.loads_in_flight_per_warp = 1;
  c.l2_requests_ld = mb::strided_read_requests<T, K, kStridedStore>(P, 1);
  const std::string more = cap_blocks > 0 ? ", \"cap_blocks_per_sm\": " + std::to_string(cap_blocks) : "";
  measure_strided<T, K>(runs, pool, dev, P, timed, fn, dyn, kStridedStore,
                        kStridedStore ? "strided_store_chain" : "strided_load_chain", more, c);
}

template <class T>
void run_strided_chain_all(Runs& runs, const mb::Pool& pool, const Device& dev, int P, bool timed) {
  run_strided_chain<T, 1>(runs, pool, dev, P, timed);
  run_strided_chain<T, 2>(runs, pool, dev, P, timed);  // 2 and 4 rows: the suite's 16x16 and 8x32 blocks
  run_strided_chain<T, 4>(runs, pool, dev, P, timed);
  run_strided_chain<T, 8>(runs, pool, dev, P, timed);
  run_strided_chain<T, 16>(runs, pool, dev, P, timed);
  run_strided_chain<T, 32>(runs, pool, dev, P, timed);
}

// Whole sectors (1 row; 4 rows of 4- or 8-byte elements, 8 of 8-byte ones) beside pieces of 2 to 16 bytes.
template <class T>
void run_strided_store_chain_all(Runs& runs, const mb::Pool& pool, const Device& dev, int P, bool timed) {
  run_strided_chain<T, 1, true>(runs, pool, dev, P, timed);
  run_strided_chain<T, 4, true>(runs, pool, dev, P, timed);
  run_strided_chain<T, 8, true>(runs, pool, dev, P, timed);
  run_strided_chain<T, 32, true>(runs, pool, dev, P, timed);
}

template <class T, bool kStore>
void run_strided_all(Runs& runs, const mb::Pool& pool, const Device& dev, int P, bool timed = true) {
  run_strided<T, 1, kStore>(runs, pool, dev, P, timed);
  run_strided<T, 2, kStore>(runs, pool, dev, P, timed);
  run_strided<T, 4, kStore>(runs, pool, dev, P, timed);
  run_strided<T, 8, kStore>(runs, pool, dev, P, timed);
  run_strided<T, 16, kStore>(runs, pool, dev, P, timed);
  run_strided<T, 32, kStore>(runs, pool, dev, P, timed);
}

// ---- shared memory: cost of a wavefront, alone and behind a copy's DRAM traffic -------------------------

template <int K>
void run_shared(Runs& runs, const mb::Pool& pool, const Device& dev, int reps) {
  const auto fn = &mb::shared_conflict<K>;
  const int64_t blocks = int64_t(dev.prop.multiProcessorCount) * 8;
  float* out = reinterpret_cast<float*>(pool.at(0));
  auto launch = [&](int) { fn<<<unsigned(blocks), 256>>>(out, reps); };
  launch(0);
  MB_CHECK(cudaDeviceSynchronize());
  // Every lane reads the same 32 words of its row (values i, row stride 64): the sum is known.
  const std::vector<float> h = download<float>(out, size_t(blocks) * 256);
  int64_t wrong = 0;
  for (int64_t t = 0; t < blocks * 256; ++t) {
    const int lane = int(t % 32), g = 32 / K;
    double want = 0;
    for (int it = 0; it < 32; ++it) want += (lane / g) * 64 + lane % g + it;
    wrong += std::abs(h[t] - float(want * reps)) > 1e-3f * float(want * reps);
  }
  const Stats s = mb::time_launches(launch);
  std::ostringstream p;
  p << "\"ways\": " << K << ", \"reps\": " << reps;
  runs.add("shared_conflict", p.str(), mb::shared_conflict_counts<K>(blocks, reps), (const void*)fn, s,
           wrong ? "WRONG" : "ok", occupancy((const void*)fn, 256, 0));
}

template <int K>
void run_shared_copy(Runs& runs, const mb::Pool& pool, const Device& dev, int P) {
  const auto fn = &mb::shared_copy_conflict<K>;
  const size_t n = size_t(P) * P, bytes = n * 4;
  const mb::PairSet ps = mb::make_pairs(pool, bytes, bytes, dev.l2);
  auto launch = [&](int i) {
    fn<<<dim3(P / 32, P / 32), dim3(32, 8)>>>(static_cast<const float*>(ps.in(i)), static_cast<float*>(ps.out(i)), P);
  };
  MB_CHECK(cudaMemset(ps.out(0), 0xff, bytes));
  launch(0);
  MB_CHECK(cudaDeviceSynchronize());
  const std::vector<uint32_t> hin = download<uint32_t>(ps.in(0), n), hout = download<uint32_t>(ps.out(0), n);
  int64_t wrong = 0;
  for (int by = 0; by < P / 32; ++by)
    for (int bx = 0; bx < P / 32; ++bx)
      for (int q = 0; q < 32; ++q)
        for (int l = 0; l < 32; ++l) {
          int r, c;
          mb::conflict_rc(K, q, l, r, c);
          wrong += hout[size_t(by * 32 + q) * P + bx * 32 + l] != hin[size_t(by * 32 + r) * P + bx * 32 + c];
        }
  const Stats s = mb::time_launches(launch);
  std::ostringstream p;
  p << "\"ways\": " << K << ", \"side\": " << P;
  runs.add("shared_copy", p.str(), mb::shared_copy_conflict_counts<K>(P), (const void*)fn, s, wrong ? "WRONG" : "ok",
           occupancy((const void*)fn, 256, 0));
}

// ---- per-block cost: the same bytes in more or fewer blocks --------------------------------------------

template <bool kShared, int BX, int BY, int E>
void run_tiled(Runs& runs, const mb::Pool& pool, const Device& dev, int W, int H) {
  const void* fn = kShared ? (const void*)&mb::tiled_copy_shared<BX, BY, E> : (const void*)&mb::tiled_copy<BX, BY, E>;
  const size_t n = size_t(W) * H, bytes = n * 4;
  constexpr int tile_h = BY * E;
  if (W % BX != 0 || H % tile_h != 0 || n >= (size_t(1) << 31)) {
    std::fprintf(stderr, "memsim-microbench: tiled copy %dx%d needs a multiple of its %dx%d tile below 2^31 elements\n",
                 W, H, BX, tile_h);
    std::exit(1);
  }
  const mb::PairSet ps = mb::make_pairs(pool, bytes, bytes, dev.l2);
  const dim3 grid{unsigned(W / BX), unsigned(H / tile_h)}, block{unsigned(BX), unsigned(BY)};
  auto launch = [&](int i) {
    const float* in = static_cast<const float*>(ps.in(i));
    float* out = static_cast<float*>(ps.out(i));
    if constexpr (kShared) mb::tiled_copy_shared<BX, BY, E><<<grid, block>>>(in, out, W);
    else mb::tiled_copy<BX, BY, E><<<grid, block>>>(in, out, W);
  };
  MB_CHECK(cudaMemset(ps.out(0), 0xff, bytes));
  launch(0);
  MB_CHECK(cudaGetLastError());
  MB_CHECK(cudaDeviceSynchronize());
  const std::string verdict =
      download<unsigned char>(ps.in(0), bytes) == download<unsigned char>(ps.out(0), bytes) ? "ok" : "WRONG";
  const Stats s = mb::time_launches(launch);
  std::ostringstream p;
  p << "\"block\": \"" << BX << "x" << BY << "\", \"per_thread\": " << E << ", \"matrix\": \"" << W << "x" << H << "\"";
  runs.add(kShared ? "tiled_copy_shared" : "tiled_copy", p.str(),
           kShared ? mb::tiled_copy_shared_counts(W, H, BX, BY, E) : mb::tiled_copy_counts(W, H, BX, BY, E), fn, s,
           verdict, occupancy(fn, BX * BY, 0));
}

void run_block_cost(Runs& runs, const mb::Pool& pool, const Device& dev, bool quick) {
  const int P = 4096;
  run_tiled<false, 32, 8, 1>(runs, pool, dev, P, P);
  run_tiled<false, 32, 8, 2>(runs, pool, dev, P, P);
  run_tiled<false, 32, 8, 4>(runs, pool, dev, P, P);
  run_tiled<false, 32, 8, 8>(runs, pool, dev, P, P);
  run_tiled<false, 16, 16, 1>(runs, pool, dev, P, P);
  run_tiled<false, 16, 16, 2>(runs, pool, dev, P, P);
  run_tiled<false, 8, 32, 1>(runs, pool, dev, P, P);
  run_tiled<false, 64, 4, 1>(runs, pool, dev, P, P);
  run_tiled<false, 32, 4, 1>(runs, pool, dev, P, P);   // 128-thread blocks
  run_tiled<false, 32, 32, 1>(runs, pool, dev, P, P);  // 1024-thread blocks
  run_tiled<true, 32, 8, 1>(runs, pool, dev, P, P);
  run_tiled<true, 32, 8, 4>(runs, pool, dev, P, P);
  run_tiled<true, 16, 16, 1>(runs, pool, dev, P, P);
  run_tiled<true, 8, 32, 1>(runs, pool, dev, P, P);
  if (!quick) {
    run_tiled<false, 32, 8, 1>(runs, pool, dev, 2 * P, 2 * P);
    run_tiled<false, 32, 8, 4>(runs, pool, dev, 2 * P, 2 * P);
    run_tiled<false, 32, 8, 1>(runs, pool, dev, P / 2, P / 2);
    run_tiled<false, 32, 8, 4>(runs, pool, dev, P / 2, P / 2);
  }
}

// --block-shapes: the same copy in blocks of 1 to 32 warps (32 to 1024 threads), and empty launches of many
// blocks. A block's slot frees when its last warp is done, and the GPU launches blocks at a limited rate: the
// runs that measure both, the block term's calibration (docs/model.md, block scheduling).
void run_block_shapes(Runs& runs, const mb::Pool& pool, const Device& dev) {
  for (int P : {4096, 8192}) {
    run_tiled<false, 32, 1, 1>(runs, pool, dev, P, P);   // 1 warp
    run_tiled<false, 32, 2, 1>(runs, pool, dev, P, P);   // 2 warps
    run_tiled<false, 32, 4, 1>(runs, pool, dev, P, P);   // 4 warps
    run_tiled<false, 32, 8, 1>(runs, pool, dev, P, P);   // 8 warps
    run_tiled<false, 32, 16, 1>(runs, pool, dev, P, P);  // 16 warps
    run_tiled<false, 64, 8, 1>(runs, pool, dev, P, P);
    run_tiled<false, 32, 32, 1>(runs, pool, dev, P, P);  // 32 warps
    run_tiled<false, 64, 16, 1>(runs, pool, dev, P, P);
    run_tiled<false, 128, 8, 1>(runs, pool, dev, P, P);
    run_tiled<false, 32, 8, 4>(runs, pool, dev, P, P);
    run_tiled<false, 32, 16, 2>(runs, pool, dev, P, P);
    run_tiled<false, 32, 32, 2>(runs, pool, dev, P, P);
    run_tiled<true, 32, 4, 1>(runs, pool, dev, P, P);
    run_tiled<true, 32, 8, 1>(runs, pool, dev, P, P);
    run_tiled<true, 32, 16, 1>(runs, pool, dev, P, P);
    run_tiled<true, 32, 32, 1>(runs, pool, dev, P, P);
  }
  // Launch throughput: empty blocks, as many as a 4096x4096 copy's at each block size.
  for (int threads : {32, 128, 256, 1024}) {
    for (int blocks : {16384, 131072}) {
      const Stats s = mb::time_launches([&](int) { mb::empty_kernel<<<blocks, threads>>>(); }, 10, 51);
      Counts c;
      c.blocks = blocks;
      c.threads_per_block = threads;
      std::ostringstream p;
      p << "\"threads\": " << threads << ", \"blocks\": " << blocks;
      runs.add("empty", p.str(), c, (const void*)&mb::empty_kernel, s, "ok", occupancy((const void*)&mb::empty_kernel, threads, 0));
    }
  }
}

// ---- half-sector stores: partial sectors per line ------------------------------------------------------

// rows x per_row sectors (128 MiB a side by default); J sectors a thread, cap_blocks > 0 holds the SM to that
// many blocks (run_half_sector_bursts).
template <int K, int J = 1>
void run_half_sector(Runs& runs, const mb::Pool& pool, const Device& dev, bool timed = true, int rows = 4096,
                     int per_row = 1024, int cap_blocks = 0) {
  const size_t sectors = size_t(rows) * per_row, bytes = sectors * 32;
  const auto fn = &mb::half_sector_store<K, J>;
  const size_t dyn = cap_dynamic_shared((const void*)fn, dev, cap_blocks);
  const mb::PairSet ps = mb::make_pairs(pool, bytes, bytes, dev.l2);
  const unsigned blocks = unsigned(sectors / (256 * J));
  auto launch = [&](int i) {
    fn<<<blocks, 256, dyn>>>(static_cast<const uint4*>(ps.in(i)), static_cast<uint4*>(ps.out(i)), rows, per_row);
  };
  MB_CHECK(cudaMemset(ps.out(0), 0xff, bytes));
  launch(0);
  MB_CHECK(cudaDeviceSynchronize());
  if (!timed) return;  // --stores-only
  const std::vector<uint4> hin = download<uint4>(ps.in(0), 2 * sectors), hout = download<uint4>(ps.out(0), 2 * sectors);
  int64_t wrong = 0;
  for (unsigned vb = 0; vb < blocks * J; ++vb)
    for (int t = 0; t < 256; ++t) {
      const size_t lin = vb * size_t(256) + t, s = mb::half_sector_index<K>(rows, per_row, int(vb), t / 32, t % 32);
      wrong += std::memcmp(&hout[2 * s], &hin[2 * lin], 32) != 0;
    }
  const Stats st = mb::time_launches(launch);
  std::ostringstream p;
  p << "\"rows_per_request\": " << K << ", \"half_sectors_per_line\": " << 32 / K;
  if (J > 1 || rows != 4096 || per_row != 1024 || cap_blocks > 0)
    p << ", \"sectors_per_thread\": " << J << ", \"rows\": " << rows << ", \"sectors_per_row\": " << per_row
      << ", \"cap_blocks_per_sm\": " << cap_blocks;
  Counts c = mb::half_sector_counts<K, J>(rows, per_row);
  c.shared_bytes_per_block = int64_t(dyn);
  runs.add("half_sector_store", p.str(), c, (const void*)fn, st, wrong ? "WRONG" : "ok",
           occupancy((const void*)fn, 256, dyn));
}

// Where the suite's reg4x4 f64 at block 8x32 (8 lines of 4 half sectors a store request, 4 sectors a thread,
// 5 blocks an SM) is slower than the half-sector benchmark's counts say: the same requests with 1 or 4 sectors
// a thread, at 128 MiB and at 512 MiB a side (the suite's 8192 x 8192 f64), uncapped and at 5 and 3 blocks/SM.
void run_half_sector_bursts(Runs& runs, const mb::Pool& pool, const Device& dev, bool timed) {
  for (const auto& [rows, per_row] : {std::pair{4096, 1024}, std::pair{8192, 2048}})
    for (int cap : {0, 5, 3}) {
      run_half_sector<8, 1>(runs, pool, dev, timed, rows, per_row, cap);
      run_half_sector<8, 4>(runs, pool, dev, timed, rows, per_row, cap);
    }
}

// ---- split sectors: a sector's two halves from two blocks D apart (a study: not calibrated on) ---------

// The order the resident blocks (per_sm an SM) meet DRAM in, counted as for a suite kernel
// (sim/dram_order.hpp), into the counts; `accesses` lays the output on the 2 MiB boundary after the input, as the
// replay lays its buffers out (mb::align_up).
memsim::WindowOrder count_dram_order(mb::Counts& c, const Device& dev, int per_sm, int64_t blocks,
                                     const memsim::BlockAccesses& accesses) {
  const memsim::WindowOrder order =
      memsim::window_order(blocks, int64_t(per_sm) * dev.prop.multiProcessorCount, 4, accesses);
  c.dram_order_counted = true;
  c.dram_scattered[0] = order.scattered(0);
  c.dram_scattered[1] = order.scattered(1);
  return order;
}

// One split-sector run over 128 MiB a side (bench_kernels.cuh, split_sector_store). Timed: every output byte
// is checked against the input chunk its index math sends it (each half sector written exactly once).
// --stores-only: one launch, and its parameters on stderr in launch order, to match ncu's rows.
void run_split_sector(Runs& runs, const mb::Pool& pool, const Device& dev, bool timed, mb::SplitGeometry g) {
  const size_t sectors = size_t(128) << 20 >> 5, bytes = sectors * 32;
  g.pairs = int64_t(sectors / size_t(g.slots()));
  const int64_t blocks = g.blocks();
  const int chunks = g.dense ? 512 : 128;  // 16-byte chunks a block moves
  if (g.mode == mb::kSplit && (g.distance < 1 || blocks % (2 * g.distance) != 0)) {
    std::fprintf(stderr, "memsim-microbench: split distance %d does not divide %lld blocks in pairs\n", g.distance,
                 (long long)blocks);
    std::exit(1);
  }
  const void* fn = g.dense ? (const void*)&mb::split_sector_store_dense : (const void*)&mb::split_sector_store;
  const mb::PairSet ps = mb::make_pairs(pool, bytes, bytes, dev.l2);
  auto launch = [&](int i) {
    if (g.dense)
      mb::split_sector_store_dense<<<unsigned(blocks), 256>>>(static_cast<const uint4*>(ps.in(i)),
                                                              static_cast<uint4*>(ps.out(i)), g);
    else
      mb::split_sector_store<<<unsigned(blocks), 256>>>(static_cast<const uint2*>(ps.in(i)),
                                                        static_cast<uint16_t*>(ps.out(i)), g);
  };
  const char* mode = g.mode == mb::kSplit ? "split" : g.mode == mb::kSame ? "same_warp" : "whole";
  std::ostringstream p;
  p << "\"mode\": \"" << mode << "\", \"lanes\": \"" << (g.dense ? "32x16B" : "8x2B")
    << "\", \"layout\": \"" << (g.columns ? "transposed" : "linear") << "\", \"distance_blocks\": "
    << (g.mode == mb::kSplit ? g.distance : 0) << ", \"distance_output_bytes\": "
    << (g.mode == mb::kSplit ? int64_t(g.distance) * chunks * 16 : 0) << ", \"bytes\": " << bytes;
  if (g.columns) p << ", \"columns\": " << g.columns;
  MB_CHECK(cudaMemset(ps.out(0), 0xff, bytes));
  launch(0);
  MB_CHECK(cudaGetLastError());
  MB_CHECK(cudaDeviceSynchronize());
  if (!timed) {  // --stores-only
    std::fprintf(stderr, "split_sector launch: %s\n", p.str().c_str());
    return;
  }
  const std::vector<unsigned char> hin = download<unsigned char>(ps.in(0), bytes),
                                   hout = download<unsigned char>(ps.out(0), bytes);
  std::vector<unsigned char> seen(2 * sectors, 0);  // each half sector written exactly once
  int64_t wrong = 0;
  for (int64_t b = 0; b < blocks; ++b) {
    const mb::SplitBlock sb = mb::split_block_of(g, unsigned(b));
    for (int k = 0; k < chunks; ++k) {
      int half = 0;
      const int64_t s = mb::split_sector_in(g, sb, k, half);
      if (s < 0 || size_t(s) >= sectors) {
        ++wrong;
        continue;
      }
      wrong += seen[2 * s + half]++ != 0;
      wrong += std::memcmp(&hout[size_t(s) * 32 + half * 16], &hin[(size_t(b) * chunks + k) * 16], 16) != 0;
    }
  }
  for (unsigned char v : seen) wrong += v == 0;
  const Stats st = mb::time_launches(launch);
  mb::Counts c = mb::split_sector_counts(g);
  // Each split sector is left partly written by both its blocks (the replay counts a block's, summed).
  c.split_sectors = g.mode == mb::kSplit ? 2.0 * double(sectors) : 0.0;
  const int per_sm = occupancy(fn, 256, 0);
  const uint64_t out_base = mb::align_up(bytes);
  count_dram_order(c, dev, per_sm, blocks, [&](int64_t first, int64_t last, const memsim::EmitAccess& emit) {
    for (int64_t b = first; b < last; ++b) {
      emit(memsim::Op::Load, uint64_t(b) * chunks * 16, chunks * 16);
      const mb::SplitBlock sb = mb::split_block_of(g, unsigned(b));
      for (int k = 0; k < chunks; ++k) {
        int half = 0;
        const int64_t s = mb::split_sector_in(g, sb, k, half);
        emit(memsim::Op::Store, out_base + uint64_t(s) * 32 + uint64_t(half) * 16, 16);
      }
    }
  });
  runs.add(g.dense ? "split_sector_store_dense" : "split_sector_store", p.str(), c, fn, st, wrong ? "WRONG" : "ok",
           per_sm);
}

// DRAM order (bench_kernels.cuh, order_chunks): 256 MiB a side as a grid of 128-byte chunks `cols` wide,
// scattered (linear reads, transposed writes) or gathered (the reverse); cols = 1 is the plain copy they are
// measured against. The share of each side the resident blocks meet out of order is counted as the replay
// counts a suite kernel's (sim/dram_order.hpp), for the blocks the GPU keeps resident at once; the run each
// transposed row gets from a window (window_run_bytes) is what a DRAM page sees. Every output byte is checked
// against the input chunk the index math sends it. cap_blocks > 0: unused dynamic shared memory holds the SM to
// that many blocks, so few loads are in flight and the copy waits on their round trips (the latency term), not
// on DRAM's rate: how much longer a load out of order waits.
template <class V, bool kScatter, int kChunk = mb::kChunkBytes>
void run_order_chunks(Runs& runs, const mb::Pool& pool, const Device& dev, unsigned cols, int cap_blocks = 0,
                      unsigned sleep_ns = 0) {
  const size_t bytes = size_t(256) << 20;
  const unsigned chunks = unsigned(bytes / kChunk);
  const mb::ChunkGrid g{chunks / cols, cols};
  constexpr int kChunksPerBlock = mb::chunks_per_block<V, kChunk>();
  const unsigned blocks = chunks / kChunksPerBlock;
  const auto fn = &mb::order_chunks<V, kChunk, kScatter>;
  const size_t dyn = cap_dynamic_shared((const void*)fn, dev, cap_blocks);
  const mb::PairSet ps = mb::make_pairs(pool, bytes, bytes, dev.l2);
  auto launch = [&](int i) {
    fn<<<blocks, 256, dyn>>>(static_cast<const V*>(ps.in(i)), static_cast<V*>(ps.out(i)), g, sleep_ns);
  };
  MB_CHECK(cudaMemset(ps.out(0), 0xff, bytes));
  launch(0);
  MB_CHECK(cudaGetLastError());
  MB_CHECK(cudaDeviceSynchronize());
  const std::vector<unsigned char> hin = download<unsigned char>(ps.in(0), bytes),
                                   hout = download<unsigned char>(ps.out(0), bytes);
  int64_t wrong = 0;
  for (unsigned i = 0; i < chunks; ++i) {
    const unsigned from = kScatter ? i : g.transposed(i), to = kScatter ? g.transposed(i) : i;
    wrong += std::memcmp(&hout[size_t(to) * kChunk], &hin[size_t(from) * kChunk], kChunk) != 0;
  }
  const Stats st = mb::time_launches(launch);
  const int per_sm = occupancy((const void*)fn, 256, dyn);
  mb::Counts c = mb::chunk_counts<V, kChunk>(g, kScatter);
  c.shared_bytes_per_block = int64_t(dyn);
  const uint64_t out_base = mb::align_up(bytes);
  const memsim::WindowOrder order =
      count_dram_order(c, dev, per_sm, blocks, [&](int64_t first, int64_t last, const memsim::EmitAccess& emit) {
        for (int64_t b = first; b < last; ++b)
          for (unsigned k = 0; k < unsigned(kChunksPerBlock); ++k) {
            const unsigned i = unsigned(b) * kChunksPerBlock + k;
            const unsigned from = kScatter ? i : g.transposed(i), to = kScatter ? g.transposed(i) : i;
            emit(memsim::Op::Load, uint64_t(from) * kChunk, kChunk);
            emit(memsim::Op::Store, out_base + uint64_t(to) * kChunk, kChunk);
          }
      });
  std::ostringstream p;
  p << "\"side\": \"" << (kScatter ? "writes" : "reads") << "\", \"cols\": " << cols << ", \"rows\": " << g.rows
    << ", \"bytes\": " << bytes << ", \"window_run_bytes\": "
    << std::min<int64_t>(int64_t(bytes), order.resident * kChunksPerBlock * kChunk / cols)
    << ", \"streams\": " << num(order.streams(kScatter ? 1 : 0));
  if (sizeof(V) != 16) p << ", \"lane_bytes\": " << sizeof(V);
  if (kChunk != mb::kChunkBytes) p << ", \"chunk_bytes\": " << kChunk;
  if (cap_blocks > 0) p << ", \"cap_blocks_per_sm\": " << cap_blocks;
  if (sleep_ns > 0) p << ", \"sleep_ns\": " << sleep_ns;
  runs.add(kScatter ? "chunks_scatter" : "chunks_gather", p.str(), c, (const void*)fn, st, wrong ? "WRONG" : "ok",
           per_sm);
}

void run_order_chunks_all(Runs& runs, const mb::Pool& pool, const Device& dev) {
  for (unsigned cols : {1u, 2u, 4u, 8u, 16u, 64u, 1024u, 16384u, 65536u}) {
    run_order_chunks<uint4, true>(runs, pool, dev, cols);
    if (cols > 1) run_order_chunks<uint4, false>(runs, pool, dev, cols);  // at 1 the same copy as the scatter's
  }
}

// A study, not fitted (--dram-order-latency; docs/history/model_notebook.md, "Loads out of order wait longer"): the same copies
// where they wait on their loads' round trips rather than on DRAM's rate. First 1 and 2 blocks an SM: the copy,
// the reads out of order from 16 to thousands of streams, and the writes out of order, which a load's round
// trip should not see.
void run_order_latency_study(Runs& runs, const mb::Pool& pool, const Device& dev) {
  for (int cap : {1, 2}) {
    run_order_chunks<uint4, true>(runs, pool, dev, 1, cap);
    for (unsigned cols : {16u, 1024u, 16384u}) run_order_chunks<uint4, false>(runs, pool, dev, cols, cap);
    run_order_chunks<uint4, true>(runs, pool, dev, 1024, cap);
  }
  // Then the same bytes in narrower lanes, so more warps with fewer bytes each (as a 2-byte transpose's warps
  // carry half a 4-byte one's), at 8, 4 and 2 blocks an SM: does a load out of order wait as much longer when
  // DRAM is less busy?
  const auto narrow = [&](auto lane, int cap) {
    using V = decltype(lane);
    run_order_chunks<V, true>(runs, pool, dev, 1, cap);
    run_order_chunks<V, false>(runs, pool, dev, 1024, cap);
    run_order_chunks<V, true>(runs, pool, dev, 1024, cap);
  };
  for (int cap : {0, 2, 4}) {
    narrow(uint2{}, cap);
    narrow(0u, cap);
  }
  // Chunks of part of a line (64 and 32 bytes): the transposed side's lines shared between blocks, as a
  // transpose's tiles of 16 4-byte or 2-byte columns share theirs. 32-byte chunks also in 4-byte lanes.
  const auto part_lines = [&](auto lane, auto chunk, int cap) {
    using V = decltype(lane);
    constexpr int kChunk = decltype(chunk)::value;
    run_order_chunks<V, true, kChunk>(runs, pool, dev, 1, cap);
    run_order_chunks<V, false, kChunk>(runs, pool, dev, 1024, cap);
    run_order_chunks<V, true, kChunk>(runs, pool, dev, 1024, cap);
  };
  for (int cap : {0, 2}) {
    part_lines(uint4{}, std::integral_constant<int, 64>{}, cap);
    part_lines(uint4{}, std::integral_constant<int, 32>{}, cap);
    part_lines(0u, std::integral_constant<int, 32>{}, cap);
  }
  // 2-byte lanes, 32-byte chunks: a warp reads two 32-byte row pieces, as a 2-byte transpose's 16x16 block does.
  for (int cap : {0, 2, 4}) part_lines(uint16_t{}, std::integral_constant<int, 32>{}, cap);
  // The same with 16,384 columns: the resident blocks reach each transposed row once, a chunk or two (as a
  // transpose's window reaches each row of its scattered side with a tile row or two), not a run of hundreds
  // of bytes.
  for (int cap : {0, 2}) {
    run_order_chunks<uint16_t, false, 32>(runs, pool, dev, 16384, cap);
    run_order_chunks<unsigned, false, 32>(runs, pool, dev, 16384, cap);
    run_order_chunks<uint4, false, 32>(runs, pool, dev, 16384, cap);
    run_order_chunks<uint4, false, 128>(runs, pool, dev, 16384, cap);
  }
  // 4-byte lanes reaching each row once a window pay at 8 blocks an SM and not at 2: with all 8 resident but
  // each sleeping after its copy, fewer of them have loads in flight at once. Does the window shrink with them?
  for (unsigned sleep_ns : {500u, 1000u, 2000u, 4000u}) {
    run_order_chunks<unsigned, true, 32>(runs, pool, dev, 1, 0, sleep_ns);
    run_order_chunks<unsigned, false, 32>(runs, pool, dev, 16384, 0, sleep_ns);
  }
}

// A study, not fitted (--chunk-sizes): does the size of the piece each block moves on the transposed side cost
// at the same order? `padded` f32 at tile 32 writes each output row in 128-byte pieces, at tile 64 in 256-byte
// ones, and runs 5-8% slower (held-out set a, both cards) where every count memsim makes is the same and the
// resident blocks reach each output row in runs of the same bytes. Chunks of 128, 256 and 512 bytes (16-byte
// lanes: 8, 16 or 32 lanes a chunk) at full occupancy, each beside its copy (cols = 1), scattered and gathered
// at 64, 256 (a 32 KiB row of 128-byte chunks), 1024 and 16384 columns.
void run_chunk_size_study(Runs& runs, const mb::Pool& pool, const Device& dev) {
  const auto sizes = [&](auto chunk) {
    constexpr int kChunk = decltype(chunk)::value;
    run_order_chunks<uint4, true, kChunk>(runs, pool, dev, 1);
    for (unsigned cols : {64u, 256u, 1024u, 16384u}) {
      run_order_chunks<uint4, true, kChunk>(runs, pool, dev, cols);
      run_order_chunks<uint4, false, kChunk>(runs, pool, dev, cols);
    }
  };
  sizes(std::integral_constant<int, 128>{});
  sizes(std::integral_constant<int, 256>{});
  sizes(std::integral_constant<int, 512>{});
}

// vec4_shared f16 (block 32x8, 8192 x 8192) writes each output sector's halves from two blocks a grid row (64)
// apart; its L2 reads part of them back from DRAM. The same stores with the halves D = 1 .. 32768 blocks
// apart (up to half the grid: the first halves of the whole output before any second one), against the
// same bytes written by one warp back to back (D = 0) and in whole sectors: narrow stores in the linear and
// the transposed layout (there D = 64 is vec4_shared's drain), then the dense ones (32 half sectors a store).
void run_split_sectors(Runs& runs, const mb::Pool& pool, const Device& dev, bool timed) {
  // The two controls, then the halves at each distance.
  const auto sweep = [&](mb::SplitGeometry g, std::initializer_list<int> distances) {
    for (int mode : {mb::kWhole, mb::kSame}) {
      g.mode = mode;
      run_split_sector(runs, pool, dev, timed, g);
    }
    g.mode = mb::kSplit;
    for (int d : distances) {
      g.distance = d;
      run_split_sector(runs, pool, dev, timed, g);
    }
  };
  for (int columns : {0, 64}) {
    mb::SplitGeometry g;
    g.columns = columns;
    sweep(g, {1, 8, 64, 512, 4096, 16384, 32768});
  }
  mb::SplitGeometry g;
  g.dense = true;
  // Blocks move 4 times the narrow ones' bytes: 1024, 4096 and 8192 match narrow 4096, 16384, 32768 in bytes.
  sweep(g, {1, 8, 64, 512, 1024, 4096, 8192});
}

// The store benchmarks the partial-sector costs are fitted to; timed = false (--stores-only) launches each
// once, for Nsight Compute's L2 and DRAM counters.
void run_partial_stores(Runs& runs, const mb::Pool& pool, const Device& dev, bool quick, bool timed) {
  const int P = quick ? 4096 : 8192;
  run_strided_all<uint32_t, true>(runs, pool, dev, P, timed);
  run_strided_all<uint16_t, true>(runs, pool, dev, P, timed);
  run_strided_all<uint64_t, true>(runs, pool, dev, quick ? P : P / 2, timed);
  run_strided_all<uint32_t, true>(runs, pool, dev, 4096, timed);
  // 16-byte lanes (one uint4 per lane): K = 32 writes a 16-byte half of each sector, K = 16 whole sectors.
  run_strided<uint4, 32, true>(runs, pool, dev, 4096, timed);
  run_strided<uint4, 16, true>(runs, pool, dev, 4096, timed);
  run_strided<uint4, 8, true>(runs, pool, dev, 4096, timed);
  run_strided<uint64_t, 32, true>(runs, pool, dev, 8192, timed);
  run_strided<uint64_t, 16, true>(runs, pool, dev, 8192, timed);
  // Partial sectors per line: 16-byte halves, 1, 2 or 4 half-written sectors in each line of a request.
  run_half_sector<32>(runs, pool, dev, timed);
  run_half_sector<16>(runs, pool, dev, timed);
  run_half_sector<8>(runs, pool, dev, timed);
}

// The partial-store benchmarks again with occupancy capped at 1, 2 and 4 blocks an SM (and uncapped, 8):
// the same stores with an eighth to a half of the lines partly written at once. The calibration takes the
// capped runs of 8- and 16-byte lanes (their read-back's cost per byte); --capped-stores runs them all, the
// 2- and 4-byte lanes too (a diagnostic: validate/results/l2_partial_lines.md).
void run_partial_stores_capped(Runs& runs, const mb::Pool& pool, const Device& dev, bool timed, bool calibration) {
  for (int cap : {1, 2, 4, 0}) {
    if (cap == 0 && calibration) break;  // the full run has them already (run_partial_stores)
    if (!calibration) {
      run_strided<uint32_t, 8, true>(runs, pool, dev, 8192, timed, cap);
      run_strided<uint32_t, 16, true>(runs, pool, dev, 8192, timed, cap);
      run_strided<uint32_t, 32, true>(runs, pool, dev, 8192, timed, cap);
      run_strided<uint16_t, 16, true>(runs, pool, dev, 8192, timed, cap);
      run_strided<uint16_t, 32, true>(runs, pool, dev, 8192, timed, cap);
    }
    run_strided<uint64_t, 16, true>(runs, pool, dev, 8192, timed, cap);
    run_strided<uint64_t, 32, true>(runs, pool, dev, 8192, timed, cap);
    run_strided<uint4, 32, true>(runs, pool, dev, 4096, timed, cap);
  }
}

// Pieces from 2-byte lanes beside the same pieces from 4-byte lanes (--narrow-lanes): strided stores of 16- and
// 8-byte pieces from 2-byte lanes (4 and 8 rows a request) and from 4-byte lanes (8 and 16 rows), whole sectors
// of each (2 and 4 rows) as the floor, at 1, 2, 4 blocks an SM and uncapped, at 4096 and 8192 a side; and the
// 4-byte lanes' 16-byte pieces again with their lanes numbered row fastest (naive's stores in blocks 8 wide).
// The calibration's 4-byte lane class prices 2- and 4-byte lanes alike; its two runs of 2-byte lanes writing
// 16 and 8 bytes a sector are its worst (docs/history/model_notebook.md, "What set w says").
void run_narrow_lanes(Runs& runs, const mb::Pool& pool, const Device& dev, bool timed) {
  for (int P : {8192, 4096})
    for (int cap : {0, 4, 2, 1}) {
      run_strided<uint16_t, 2, true>(runs, pool, dev, P, timed, cap);
      run_strided<uint16_t, 4, true>(runs, pool, dev, P, timed, cap);
      run_strided<uint16_t, 8, true>(runs, pool, dev, P, timed, cap);
      run_strided<uint32_t, 4, true>(runs, pool, dev, P, timed, cap);
      run_strided<uint32_t, 8, true>(runs, pool, dev, P, timed, cap);
      run_strided<uint32_t, 16, true>(runs, pool, dev, P, timed, cap);
      run_strided<uint32_t, 8, true, true>(runs, pool, dev, P, timed, cap);
      run_strided<uint16_t, 4, true, true>(runs, pool, dev, P, timed, cap);
    }
}

// The blocks' order against the same pieces (--store-order, a study): first a staged copy's stores in tiles whose
// rows end mid-sector, the tiles' blocks along the output's rows and down them (tile_stores); then the strided
// stores, whose blocks complete their own lines, with consecutive blocks
// down the rows (the calibration's runs, as a transpose's blocks meet their output) and side by side along them
// (as copy_shared's meet theirs), each block's addresses the same: whole sectors and 16- and 8-byte pieces from
// 2-, 4- and 8-byte lanes, uncapped and at 4 blocks an SM, 8192 a side. The held-out sets' copy_shared f16 with
// tile rows ending mid-sector runs 30-40% faster than padded and coalesced at the same block, tile and stores
// (Nsight Compute: the same L2 sector writes and DRAM bytes within 5%), where memsim prices them alike.
template <bool kAcross>
void run_store_order_one(Runs& runs, const mb::Pool& pool, const Device& dev, bool timed, int cap) {
  run_strided<uint16_t, 2, true, false, kAcross>(runs, pool, dev, 8192, timed, cap);
  run_strided<uint16_t, 4, true, false, kAcross>(runs, pool, dev, 8192, timed, cap);
  run_strided<uint16_t, 8, true, false, kAcross>(runs, pool, dev, 8192, timed, cap);
  run_strided<uint32_t, 4, true, false, kAcross>(runs, pool, dev, 8192, timed, cap);
  run_strided<uint32_t, 8, true, false, kAcross>(runs, pool, dev, 8192, timed, cap);
  run_strided<uint32_t, 16, true, false, kAcross>(runs, pool, dev, 8192, timed, cap);
  run_strided<uint64_t, 8, true, false, kAcross>(runs, pool, dev, 8192, timed, cap);
  run_strided<uint64_t, 16, true, false, kAcross>(runs, pool, dev, 8192, timed, cap);
  run_strided<uint64_t, 32, true, false, kAcross>(runs, pool, dev, 8192, timed, cap);
}

// One tile_stores run: about 8192 a side (whole tiles), checked element by element. Counts: the launch's shape and
// bytes only (a study: memsim-calibrate does not read these runs).
template <class T, int TW, int BX, int BY, bool kDown>
void run_tile_stores(Runs& runs, const mb::Pool& pool, const Device& dev, bool timed) {
  const auto fn = &mb::tile_stores<T, TW, BX, BY, kDown>;
  const int tiles = 8192 / TW;
  const size_t P = size_t(tiles) * TW, n = P * P;
  const mb::PairSet ps = mb::make_pairs(pool, n * sizeof(T), n * sizeof(T), dev.l2);
  const unsigned blocks = unsigned(tiles) * unsigned(tiles);
  auto launch = [&](int i) {
    fn<<<blocks, BX * BY>>>(static_cast<const T*>(ps.in(i)), static_cast<T*>(ps.out(i)), tiles);
  };
  MB_CHECK(cudaMemset(ps.out(0), 0xff, n * sizeof(T)));
  launch(0);
  MB_CHECK(cudaGetLastError());
  MB_CHECK(cudaDeviceSynchronize());
  if (!timed) return;  // --stores-only
  const std::vector<T> hin = download<T>(ps.in(0), n), hout = download<T>(ps.out(0), n);
  int64_t wrong = 0;
  for (size_t b = 0; b < blocks; ++b) {
    const size_t tile_row = kDown ? b % tiles : b / tiles, tile_col = kDown ? b / tiles : b % tiles;
    for (int r = 0; r < TW; ++r)
      for (int c = 0; c < TW; ++c)
        wrong += std::memcmp(&hout[(tile_row * TW + r) * P + tile_col * TW + c], &hin[b * TW * TW + r * TW + c],
                             sizeof(T)) != 0;
  }
  const Stats st = mb::time_launches(launch);
  Counts c;
  c.blocks = blocks;
  c.threads_per_block = BX * BY;
  c.useful_bytes = 2.0 * double(n * sizeof(T));
  c.dram_read_bytes = c.dram_write_bytes = double(n * sizeof(T));
  c.global_ld_instructions = c.global_st_instructions = double(blocks) * ((BX * BY + 31) / 32) * (TW / BY) * (TW / BX);
  std::ostringstream p;
  p << "\"elem_bytes\": " << sizeof(T) << ", \"tile\": " << TW << ", \"block\": \"" << BX << "x" << BY
    << "\", \"side\": " << P << ", \"blocks\": \"" << (kDown ? "down" : "across") << "\"";
  runs.add("tile_stores", p.str(), c, (const void*)fn, st, wrong ? "WRONG" : "ok", occupancy((const void*)fn, BX * BY, 0));
}

template <bool kDown>
void run_tile_stores_all(Runs& runs, const mb::Pool& pool, const Device& dev, bool timed) {
  // 2-byte lanes: rows of 48 and 80 bytes (boundary sectors split with the neighbouring tile), of 64 (whole
  // sectors, lines split) and 128 (whole lines); 4-byte lanes: 80 and 144 bytes, 96 and 128.
  run_tile_stores<uint16_t, 24, 12, 4, kDown>(runs, pool, dev, timed);
  run_tile_stores<uint16_t, 40, 20, 4, kDown>(runs, pool, dev, timed);
  run_tile_stores<uint16_t, 32, 16, 4, kDown>(runs, pool, dev, timed);
  run_tile_stores<uint16_t, 64, 32, 4, kDown>(runs, pool, dev, timed);
  run_tile_stores<uint32_t, 20, 10, 4, kDown>(runs, pool, dev, timed);
  run_tile_stores<uint32_t, 36, 18, 4, kDown>(runs, pool, dev, timed);
  run_tile_stores<uint32_t, 24, 12, 4, kDown>(runs, pool, dev, timed);
  run_tile_stores<uint32_t, 32, 16, 4, kDown>(runs, pool, dev, timed);
}

void run_store_order(Runs& runs, const mb::Pool& pool, const Device& dev, bool timed) {
  run_tile_stores_all<false>(runs, pool, dev, timed);
  run_tile_stores_all<true>(runs, pool, dev, timed);
  for (int cap : {0, 4}) {
    run_store_order_one<false>(runs, pool, dev, timed, cap);
    run_store_order_one<true>(runs, pool, dev, timed, cap);
  }
}

// When the L1 merges a sector's pieces (--merge-window, a study): the strided stores with the odd warps held back
// 0 to 16,384 cycles after their loads (strided_store_delayed), at 8 and 2 blocks an SM; and the stores after
// chained loads (one in flight a warp) at 8, 4, 2 and 1 blocks an SM. 16-byte pieces from 4- and 2-byte lanes.
template <class T, int K, int kDelay>
void run_delayed(Runs& runs, const mb::Pool& pool, const Device& dev, bool timed, int cap) {
  const auto fn = &mb::strided_store_delayed<T, K, kDelay>;
  const size_t dyn = cap_dynamic_shared((const void*)fn, dev, cap);
  std::string more = ", \"delay_cycles\": " + std::to_string(kDelay);
  if (cap > 0) more += ", \"cap_blocks_per_sm\": " + std::to_string(cap);
  measure_strided<T, K>(runs, pool, dev, 8192, timed, fn, dyn, true, "strided_store_delayed", more,
                        mb::strided_counts<T, K, true>(8192, int64_t(dyn)));
}

template <class T, int K>
void run_delays(Runs& runs, const mb::Pool& pool, const Device& dev, bool timed, int cap) {
  run_delayed<T, K, 0>(runs, pool, dev, timed, cap);
  run_delayed<T, K, 256>(runs, pool, dev, timed, cap);
  run_delayed<T, K, 1024>(runs, pool, dev, timed, cap);
  run_delayed<T, K, 4096>(runs, pool, dev, timed, cap);
  run_delayed<T, K, 16384>(runs, pool, dev, timed, cap);
}

void run_merge_window(Runs& runs, const mb::Pool& pool, const Device& dev, bool timed) {
  for (int cap : {0, 2}) {
    run_delays<uint32_t, 8>(runs, pool, dev, timed, cap);
    run_delays<uint16_t, 4>(runs, pool, dev, timed, cap);
  }
  for (int cap : {0, 4, 2, 1}) {
    run_strided_chain<uint32_t, 8, true>(runs, pool, dev, 8192, timed, cap);
    run_strided_chain<uint16_t, 4, true>(runs, pool, dev, 8192, timed, cap);
  }
}

// A staged drain's pieces (--drain-merges, a study): drain_pieces with kStores stores a warp, in blocks of 1 to 16 warps,
// as many an SM as fit or capped, through shared memory or not; 2^26 elements. Checked element by element.
template <class T, int kStores, bool kShared>
void run_drain(Runs& runs, const mb::Pool& pool, const Device& dev, bool timed, int warps, int cap) {
  constexpr size_t n = size_t(1) << 26;
  constexpr int L = 16 / int(sizeof(T));
  const auto fn = &mb::drain_pieces<T, kStores, kShared>;
  const size_t tile = size_t(warps) * 32 * kStores * sizeof(T);
  size_t dyn = std::max(cap_dynamic_shared((const void*)fn, dev, cap), tile);
  if (dyn > 48 * 1024) MB_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, int(dyn)));
  const mb::PairSet ps = mb::make_pairs(pool, n * sizeof(T), n * sizeof(T), dev.l2);
  // Blocks of 3, 5, ... warps do not divide 2^26 elements: the launch covers the whole blocks' warps, and the
  // check and the counts take those (a few thousand elements fewer at most).
  const unsigned blocks = unsigned(n / (size_t(32) * kStores * warps));
  const size_t covered = size_t(blocks) * warps * 32 * kStores;
  auto launch = [&](int i) {
    fn<<<blocks, 32 * warps, dyn>>>(static_cast<const T*>(ps.in(i)), static_cast<T*>(ps.out(i)));
  };
  MB_CHECK(cudaMemset(ps.out(0), 0xff, n * sizeof(T)));
  launch(0);
  MB_CHECK(cudaGetLastError());
  MB_CHECK(cudaDeviceSynchronize());
  if (!timed) return;  // --stores-only
  const std::vector<T> hin = download<T>(ps.in(0), n), hout = download<T>(ps.out(0), n);
  int64_t wrong = 0;
  for (size_t gw = 0; gw < size_t(blocks) * warps; ++gw)
    for (int s = 0; s < kStores; ++s)
      for (int lane = 0; lane < 32; ++lane) {
        const size_t row = gw * (32 / L) + lane / L;
        wrong += hout[row * (kStores * L) + s * L + lane % L] != hin[(gw * kStores + s) * 32 + lane];
      }
  const Stats st = mb::time_launches(launch);
  Counts c;
  c.blocks = blocks;
  c.threads_per_block = 32 * warps;
  c.shared_bytes_per_block = int64_t(dyn);
  c.useful_bytes = 2.0 * covered * sizeof(T);
  c.dram_read_bytes = c.dram_write_bytes = double(covered * sizeof(T));
  c.global_ld_instructions = c.global_st_instructions = double(covered) / 32;
  c.l1_sectors_ld = c.l2_sectors_ld = double(covered * sizeof(T)) / 32;
  c.l1_sectors_st = c.l2_sectors_st = 2.0 * double(covered * sizeof(T)) / 32;  // 16-byte pieces: two a sector
  c.l2_requests_st = c.global_st_instructions * (32 / L);              // one a row (line) a store
  c.loads_in_flight_per_warp = kStores;
  c.barriers = kShared ? 1 : 0;
  if (kShared) c.shared_instructions = c.shared_wavefronts = 2.0 * double(covered) / 32;
  std::ostringstream p;
  p << "\"elem_bytes\": " << sizeof(T) << ", \"stores_a_warp\": " << kStores << ", \"warps_a_block\": " << warps
    << ", \"shared\": " << (kShared ? "true" : "false") << ", \"cap_blocks_per_sm\": " << cap;
  runs.add("drain_pieces", p.str(), c, (const void*)fn, st, wrong ? "WRONG" : "ok",
           occupancy((const void*)fn, 32 * warps, dyn));
}

// The grid the profiles' drain tables hold (model/profile.hpp): every warps-a-block and stores-a-warp cell.
template <class T, int kStores>
void run_drains(Runs& runs, const mb::Pool& pool, const Device& dev, bool timed) {
  for (int warps : memsim::kDrainMergeWarps)
    for (int cap : {0, 2}) {
      run_drain<T, kStores, true>(runs, pool, dev, timed, warps, cap);
      run_drain<T, kStores, false>(runs, pool, dev, timed, warps, cap);
    }
}

template <class T>
void run_drains_all_stores(Runs& runs, const mb::Pool& pool, const Device& dev, bool timed) {
  static_assert(std::size(memsim::kDrainMergeStores) == 3);
  run_drains<T, memsim::kDrainMergeStores[0]>(runs, pool, dev, timed);
  run_drains<T, memsim::kDrainMergeStores[1]>(runs, pool, dev, timed);
  run_drains<T, memsim::kDrainMergeStores[2]>(runs, pool, dev, timed);
}

void run_drain_merges(Runs& runs, const mb::Pool& pool, const Device& dev, bool timed) {
  run_drains_all_stores<uint16_t>(runs, pool, dev, timed);
  run_drains_all_stores<uint32_t>(runs, pool, dev, timed);
}

// The same strided stores at four sizes, from a launch whose output and input fit the L2 together to one ten
// times its size (a study, --store-sizes): does the L2 read back fewer partly written lines when it can hold
// them until their other pieces arrive? Whole sectors (1 row) beside 16-byte and 4-byte pieces (8 and 32 rows,
// naive's 8x32 and 32x8 stores), 4-byte lanes; 16-byte lanes in half sectors (reg4x4's stores) beside whole.
void run_store_sizes(Runs& runs, const mb::Pool& pool, const Device& dev, bool timed) {
  for (int P : {1024, 2048, 4096, 8192}) {
    run_strided<uint32_t, 1, true>(runs, pool, dev, P, timed);
    run_strided<uint32_t, 8, true>(runs, pool, dev, P, timed);
    run_strided<uint32_t, 32, true>(runs, pool, dev, P, timed);
  }
  for (int P : {512, 1024, 2048, 4096}) {
    run_strided<uint4, 16, true>(runs, pool, dev, P, timed);
    run_strided<uint4, 32, true>(runs, pool, dev, P, timed);
  }
}

// ---- instruction issue: a copy with R rounds of integer arithmetic per element ---------------------------

// An odd multiplier, as an index stride would be; the rounds' result is masked with 0 (a launch argument).
constexpr unsigned kIssueMultiplier = 2654435761u;

template <int R, bool kTile>
void run_issue(Runs& runs, const mb::Pool& pool, const Device& dev, bool timed) {
  const int P = 4096;
  const size_t n = size_t(P) * P, bytes = n * 4;
  const mb::PairSet ps = mb::make_pairs(pool, bytes, bytes, dev.l2);
  auto launch = [&](int i) {
    const unsigned* in = static_cast<const unsigned*>(ps.in(i));
    unsigned* out = static_cast<unsigned*>(ps.out(i));
    if (kTile) mb::issue_tile<R><<<dim3(P / 32, P / 32), dim3(32, 8)>>>(in, out, P, kIssueMultiplier, 0u);
    else mb::issue_copy<R><<<unsigned(n / 1024), 256>>>(in, out, kIssueMultiplier, 0u);
  };
  MB_CHECK(cudaMemset(ps.out(0), 0xff, bytes));
  launch(0);
  MB_CHECK(cudaGetLastError());
  MB_CHECK(cudaDeviceSynchronize());
  if (!timed) return;  // --issue-only: one launch each, for Nsight Compute's instruction count
  const std::string verdict =
      download<unsigned char>(ps.in(0), bytes) == download<unsigned char>(ps.out(0), bytes) ? "ok" : "WRONG";
  const Stats s = mb::time_launches(launch);
  const void* fn = kTile ? (const void*)&mb::issue_tile<R> : (const void*)&mb::issue_copy<R>;
  std::ostringstream p;
  p << "\"rounds\": " << R << ", \"tile\": " << (kTile ? 1 : 0);
  runs.add(kTile ? "issue_tile" : "issue_copy", p.str(), mb::issue_counts(n, kTile), fn, s, verdict,
           occupancy(fn, 256, 0));
}

void run_issue_all(Runs& runs, const mb::Pool& pool, const Device& dev, bool timed) {
  run_issue<0, false>(runs, pool, dev, timed);
  run_issue<16, false>(runs, pool, dev, timed);
  run_issue<32, false>(runs, pool, dev, timed);
  run_issue<64, false>(runs, pool, dev, timed);
  run_issue<128, false>(runs, pool, dev, timed);
  run_issue<0, true>(runs, pool, dev, timed);
  run_issue<16, true>(runs, pool, dev, timed);
  run_issue<32, true>(runs, pool, dev, timed);
  run_issue<64, true>(runs, pool, dev, timed);
  run_issue<128, true>(runs, pool, dev, timed);
}

// ---- hold-out: the suite's own kernels -----------------------------------------------------------------

// The validation program's reference check (validate/reference.hpp), on the first launch's output.
template <class T>
std::string suite_check(const memsim::LaunchConfig& cfg, const void* in, const void* out) {
  const size_t n = size_t(cfg.elements());
  const std::vector<T> host_in = download<T>(in, n), host_out = download<T>(out, n);
  const memsim::validate::OutputCheck c = memsim::validate::check_output(
      cfg.kernel->output, cfg.shape, int(sizeof(T)), host_in.data(), host_out.data());
  return c.passed() ? "ok" : "WRONG (" + std::to_string(c.mismatches) + " elements)";
}

std::string run_suite(const mb::Pool& pool, const Device& dev, const std::string& kernel, memsim::Size2 matrix,
                      memsim::Size2 block, memsim::Dtype dtype) {
  memsim::UserConfig u;
  u.kernel = kernel;
  u.matrix = matrix;
  u.block = block;
  u.dtype = dtype;
  memsim::LaunchLimits lim;
  lim.max_shared_per_block = int64_t(dev.prop.sharedMemPerBlock);
  const memsim::LaunchConfig cfg = memsim::resolve_launch(u, lim);
  const void* fn = memsim::validate::suite_kernel_function(cfg);
  memsim::validate::prepare_suite_kernel(cfg);
  const size_t bytes = size_t(cfg.elements()) * memsim::dtype_bytes(dtype);
  const mb::PairSet ps = mb::make_pairs(pool, bytes, bytes, dev.l2);
  auto launch = [&](int i) { memsim::validate::launch_suite_kernel(cfg, ps.in(i), ps.out(i), 0); };
  MB_CHECK(cudaMemset(ps.out(0), 0xff, bytes));
  launch(0);
  MB_CHECK(cudaGetLastError());
  MB_CHECK(cudaDeviceSynchronize());
  const std::string check = dtype == memsim::Dtype::F16   ? suite_check<uint16_t>(cfg, ps.in(0), ps.out(0))
                            : dtype == memsim::Dtype::F32 ? suite_check<uint32_t>(cfg, ps.in(0), ps.out(0))
                                                          : suite_check<uint64_t>(cfg, ps.in(0), ps.out(0));
  const Stats s = mb::time_launches(launch);
  cudaFuncAttributes a{};
  MB_CHECK(cudaFuncGetAttributes(&a, fn));
  std::fprintf(stderr, "holdout %-12s %s %s block %s  %10.2f us  regs %d  (%s)\n", kernel.c_str(),
               memsim::format_size2(matrix).c_str(), memsim::dtype_name(dtype), memsim::format_size2(block).c_str(),
               s.median_us, a.numRegs, check.c_str());
  std::ostringstream os;
  os << "    {\"kernel\": \"" << kernel << "\", \"matrix\": \"" << memsim::format_size2(matrix) << "\", \"dtype\": \""
     << memsim::dtype_name(dtype) << "\", \"block\": \"" << memsim::format_size2(block)
     << "\", \"regs_per_thread\": " << a.numRegs << ", \"occupancy_blocks_per_sm\": "
     << occupancy(fn, int(block.x * block.y), size_t(cfg.shared_bytes)) << ", \"time_us\": " << stats_json(s)
     << ", \"check\": \"" << check << "\"}";
  return os.str();
}

}  // namespace

// --one's configuration, resolved before any GPU work; throws memsim::ConfigError (one line) when it is bad.
memsim::LaunchConfig parse_one(const std::string& kernel, const std::string& matrix, const std::string& dtype,
                               const std::string& block) {
  memsim::UserConfig u;
  u.kernel = kernel;
  u.matrix = memsim::parse_size2(matrix, "matrix");
  u.block = memsim::parse_size2(block, "block");
  u.dtype = memsim::parse_dtype(dtype);
  return memsim::resolve_launch(u);
}

// For Nsight Compute: two launches (warm-up, then the one to profile) of one suite configuration.
int run_one(const memsim::LaunchConfig& cfg) {
  memsim::validate::prepare_suite_kernel(cfg);
  const size_t bytes = size_t(cfg.elements()) * memsim::dtype_bytes(cfg.dtype);
  mb::Pool pool(4 * mb::align_up(bytes));
  mb::fill(pool.at(0), pool.bytes(), 777u);
  memsim::validate::launch_suite_kernel(cfg, pool.at(0), pool.at(mb::align_up(bytes)), 0);
  memsim::validate::launch_suite_kernel(cfg, pool.at(2 * mb::align_up(bytes)), pool.at(3 * mb::align_up(bytes)), 0);
  MB_CHECK(cudaGetLastError());
  MB_CHECK(cudaDeviceSynchronize());
  return 0;
}

namespace {

const char kUsage[] =
    "usage: memsim-microbench [--quick] [--no-holdout] [--block-only] > microbench.json\n"
    "       memsim-microbench --one KERNEL WxH DTYPE BXxBY   (two launches, for ncu)\n"
    "       memsim-microbench --issue-only   (one launch of each issue benchmark, for ncu)\n"
    "       memsim-microbench --stores-only  (one launch of each partial-store benchmark, for ncu)\n"
    "       memsim-microbench --capped-stores [--stores-only]  (strided stores at 1, 2, 4, 8 blocks/SM)\n"
    "       memsim-microbench --chain-loads [--stores-only]  (strided loads, one in flight a warp)\n"
    "       memsim-microbench --chain-stores [--stores-only]  (strided stores after such loads; a study)\n"
    "       memsim-microbench --half-sector-bursts [--stores-only]  (half-sector stores, 1 or 4 a thread, capped)\n"
    "       memsim-microbench --split-sectors [--stores-only]  (sector halves from blocks D apart; a study)\n"
    "       memsim-microbench --store-sizes [--stores-only]  (strided stores at four sizes about the L2's; a study)\n"
    "       memsim-microbench --narrow-lanes [--stores-only]  (pieces from 2- and 4-byte lanes, capped and not)\n"
    "       memsim-microbench --merge-window [--stores-only]  (a sector's pieces from warps held apart; a study)\n"
    "       memsim-microbench --drain-merges [--stores-only]  (a warp's own pieces in drains; a study)\n"
    "       memsim-microbench --store-order [--stores-only]  (the same pieces, blocks down or along the rows; a study)\n"
    "       memsim-microbench --dram-order  (128-byte chunks copied with one side in transposed order)\n"
    "       memsim-microbench --dram-order-latency  (the same copies latency-bound; a study)\n"
    "       memsim-microbench --chunk-sizes  (the same copies in 128- to 512-byte chunks; a study)\n"
    "       memsim-microbench --block-shapes  (a copy in blocks of 1 to 32 warps; empty launches of many blocks)\n"
    "       memsim-microbench --help, -h   (this text)\n"
    "Exit status: 0 done, 1 a CUDA error or the JSON could not be written, 2 bad options or no GPU.\n";

int usage_error(const std::string& msg) {
  std::fprintf(stderr, "memsim-microbench: %s\n", msg.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::fputs(kUsage, stdout);
      return std::fflush(stdout) == 0 ? 0 : 1;
    }
  // --one KERNEL WxH DTYPE BXxBY: a mode of its own, checked (kernel, sizes, dtype, launch) before the GPU is.
  if (argc > 1 && std::strcmp(argv[1], "--one") == 0) {
    if (argc != 6) return usage_error("--one takes exactly KERNEL WxH DTYPE BXxBY and no other option");
    memsim::LaunchConfig cfg;
    try {
      cfg = parse_one(argv[2], argv[3], argv[4], argv[5]);
    } catch (const memsim::ConfigError& e) {
      return usage_error(std::string("--one: ") + e.what());
    }
    if (const std::optional<std::string> why = memsim::validate::gpu_unavailable_reason()) return usage_error(*why);
    return run_one(cfg);
  }
  bool quick = false, holdout = true, block_only = false, issue_only = false, stores_only = false, capped = false,
       chain = false, chain_stores = false, bursts = false, split = false, dram_order = false, order_latency = false,
       chunk_sizes = false, block_shapes = false, store_sizes = false, narrow = false, merge_window = false, drains = false,
       store_order = false;
  std::vector<std::string> given;  // the options, as given, to name in a refusal
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") quick = true;
    else if (a == "--no-holdout") holdout = false;
    else if (a == "--block-only") block_only = true, holdout = false;
    else if (a == "--issue-only") issue_only = true;
    else if (a == "--stores-only") stores_only = true;
    else if (a == "--capped-stores") capped = true, holdout = false;
    else if (a == "--chain-loads") chain = true, holdout = false;
    else if (a == "--chain-stores") chain_stores = true, holdout = false;
    else if (a == "--half-sector-bursts") bursts = true, holdout = false;
    else if (a == "--split-sectors") split = true, holdout = false;
    else if (a == "--store-sizes") store_sizes = true, holdout = false;
    else if (a == "--narrow-lanes") narrow = true, holdout = false;
    else if (a == "--merge-window") merge_window = true, holdout = false;
    else if (a == "--drain-merges") drains = true, holdout = false;
    else if (a == "--store-order") store_order = true, holdout = false;
    else if (a == "--dram-order") dram_order = true, holdout = false;
    else if (a == "--dram-order-latency") order_latency = true, holdout = false;
    else if (a == "--chunk-sizes") chunk_sizes = true, holdout = false;
    else if (a == "--block-shapes") block_shapes = true, holdout = false;
    else if (a == "--one") return usage_error("--one is a mode of its own: memsim-microbench --one KERNEL WxH DTYPE BXxBY");
    else if (!a.empty() && a[0] == '-') return usage_error("unknown option '" + a + "' (memsim-microbench --help lists them)");
    else return usage_error("unexpected argument '" + a + "' (memsim-microbench --help lists the options)");
    given.push_back(a);
  }
  // Options that some mode would silently ignore are refused instead.
  if (issue_only)
    for (const std::string& a : given)
      if (a != "--issue-only")
        return usage_error("--issue-only launches each issue benchmark once (for ncu) and takes no other option: drop " + a);
  if (stores_only) {
    for (const std::string& a : given)
      if (a == "--quick" || a == "--no-holdout" || a == "--block-only")
        return usage_error("--stores-only launches each store benchmark once (for ncu): " + a + " does not apply");
    if (dram_order || order_latency || chunk_sizes || block_shapes)
      return usage_error("--stores-only does not apply to --dram-order, --dram-order-latency, --chunk-sizes or "
                         "--block-shapes (no partial stores there)");
    if (int(capped) + int(chain) + int(chain_stores) + int(bursts) + int(split) + int(store_sizes) + int(narrow) +
            int(merge_window) + int(drains) + int(store_order) > 1)
      return usage_error("--stores-only profiles one set at a time: give at most one of --capped-stores, --chain-loads, "
                         "--chain-stores, --half-sector-bursts, --split-sectors, --store-sizes, --narrow-lanes, "
                         "--merge-window, --drain-merges, --store-order");
  }
  if (const std::optional<std::string> why = memsim::validate::gpu_unavailable_reason()) return usage_error(*why);
  Device dev;
  MB_CHECK(cudaGetDeviceProperties(&dev.prop, 0));
  MB_CHECK(cudaDeviceGetAttribute(&dev.sm_clock_khz, cudaDevAttrClockRate, 0));
  MB_CHECK(cudaDeviceGetAttribute(&dev.mem_clock_khz, cudaDevAttrMemoryClockRate, 0));
  MB_CHECK(cudaDeviceGetAttribute(&dev.bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0));
  MB_CHECK(cudaDriverGetVersion(&dev.driver));
  MB_CHECK(cudaRuntimeGetVersion(&dev.runtime));
  dev.l2 = size_t(dev.prop.l2CacheSize);

  const size_t pool_bytes = size_t(quick ? 1 : 6) << 30;
  mb::Pool pool(pool_bytes);
  mb::fill(pool.at(0), pool_bytes, 12345u);
  MB_CHECK(cudaDeviceSynchronize());

  Runs runs;
  if (issue_only) {
    run_issue_all(runs, pool, dev, false);
    return 0;
  }
  if (chain && stores_only) {  // one launch each, for Nsight Compute
    run_strided_chain_all<uint16_t>(runs, pool, dev, 8192, false);
    run_strided_chain_all<uint32_t>(runs, pool, dev, 8192, false);
    run_strided_chain_all<uint64_t>(runs, pool, dev, 8192, false);
    return 0;
  }
  if (chain_stores && stores_only) {
    run_strided_store_chain_all<uint16_t>(runs, pool, dev, 8192, false);
    run_strided_store_chain_all<uint32_t>(runs, pool, dev, 8192, false);
    run_strided_store_chain_all<uint64_t>(runs, pool, dev, 8192, false);
    return 0;
  }
  if (bursts && stores_only) {
    run_half_sector_bursts(runs, pool, dev, false);
    return 0;
  }
  if (split && stores_only) {
    run_split_sectors(runs, pool, dev, false);
    return 0;
  }
  if (store_sizes && stores_only) {
    run_store_sizes(runs, pool, dev, false);
    return 0;
  }
  if (narrow && stores_only) {
    run_narrow_lanes(runs, pool, dev, false);
    return 0;
  }
  if (merge_window && stores_only) {
    run_merge_window(runs, pool, dev, false);
    return 0;
  }
  if (drains && stores_only) {
    run_drain_merges(runs, pool, dev, false);
    return 0;
  }
  if (store_order && stores_only) {
    run_store_order(runs, pool, dev, false);
    return 0;
  }
  if (stores_only) {
    if (capped) run_partial_stores_capped(runs, pool, dev, false, false);
    else run_partial_stores(runs, pool, dev, false, false);
    return 0;
  }
  // Launch overhead: an empty kernel, events around it.
  {
    const Stats s = mb::time_launches([](int) { mb::empty_kernel<<<1, 32>>>(); }, 10, 101);
    Counts c;
    c.blocks = 1;
    c.threads_per_block = 32;
    runs.add("empty", "\"threads\": 32", c, (const void*)&mb::empty_kernel, s, "ok", 0);
  }
  if (capped) run_partial_stores_capped(runs, pool, dev, true, false);
  if (bursts) run_half_sector_bursts(runs, pool, dev, true);
  if (split) run_split_sectors(runs, pool, dev, true);
  if (store_sizes) run_store_sizes(runs, pool, dev, true);
  if (narrow) run_narrow_lanes(runs, pool, dev, true);
  if (merge_window) run_merge_window(runs, pool, dev, true);
  if (drains) run_drain_merges(runs, pool, dev, true);
  if (store_order) run_store_order(runs, pool, dev, true);
  if (dram_order) run_order_chunks_all(runs, pool, dev);
  if (order_latency) run_order_latency_study(runs, pool, dev);
  if (chunk_sizes) run_chunk_size_study(runs, pool, dev);
  if (block_shapes) run_block_shapes(runs, pool, dev);
  if (chain) {
    run_strided_chain_all<uint16_t>(runs, pool, dev, 8192, true);
    run_strided_chain_all<uint32_t>(runs, pool, dev, 8192, true);
    run_strided_chain_all<uint64_t>(runs, pool, dev, 8192, true);
  }
  if (chain_stores) {
    run_strided_store_chain_all<uint16_t>(runs, pool, dev, 8192, true);
    run_strided_store_chain_all<uint32_t>(runs, pool, dev, 8192, true);
    run_strided_store_chain_all<uint64_t>(runs, pool, dev, 8192, true);
  }
  if (block_only) {
    // Anchors shared with the full run (to compare machines), then the per-block benches alone.
    run_copy<float, 1>(runs, pool, dev, size_t(1) << 24, 0, true);
    run_copy<float, 4>(runs, pool, dev, size_t(1) << 24, 0, true);
    run_chain<4>(runs, pool, dev, size_t(1) << 24, 0);
    run_block_cost(runs, pool, dev, quick);
  }
  // Latency and bandwidth: one float per thread from 64 KiB to 256 MiB; 16-byte vectors, 4 per thread.
  const bool one_set = block_only || capped || chain || chain_stores || bursts || split || dram_order || order_latency ||
                       chunk_sizes || block_shapes || store_sizes || narrow || merge_window || drains ||
                       store_order;
  if (!one_set) {
    const int big = quick ? 22 : 26;
    for (int lg = 14; lg <= big; lg += 2) run_copy<float, 1>(runs, pool, dev, size_t(1) << lg, 0, lg <= 24);
    for (int lg = 20; lg <= big; lg += 2) run_copy<float4, 4>(runs, pool, dev, size_t(1) << (lg - 2), 0, lg <= 24);
    // Bytes in flight: occupancy capped at 1, 2, 4 blocks of 256 threads per SM, 1 or 4 loads per thread.
    for (int cap : {1, 2, 4}) {
      run_copy<float, 1>(runs, pool, dev, size_t(1) << 24, cap, false);
      run_copy<float, 4>(runs, pool, dev, size_t(1) << 24, cap, false);
      run_copy<float4, 1>(runs, pool, dev, size_t(1) << 22, cap, false);
      run_copy<float4, 4>(runs, pool, dev, size_t(1) << 22, cap, false);
    }
    run_copy<float, 4>(runs, pool, dev, size_t(1) << 24, 0, true);
    // Dependent chains: E loads a warp waits out one after another, at full and capped occupancy.
    run_chain<2>(runs, pool, dev, size_t(1) << 24, 0);
    run_chain<4>(runs, pool, dev, size_t(1) << 24, 0);
    run_chain<8>(runs, pool, dev, size_t(1) << 24, 0);
    run_chain<4>(runs, pool, dev, size_t(1) << 24, 4);
    run_chain<4>(runs, pool, dev, size_t(1) << 24, 2);
    run_chain<4>(runs, pool, dev, size_t(1) << 26, 0);
    run_copy<float4, 1>(runs, pool, dev, size_t(1) << 22, 0, false);
    // Sector costs: strided stores and loads, K rows per request, 2-, 4- and 8-byte elements.
    const int P = quick ? 4096 : 8192;
    run_strided_all<uint32_t, false>(runs, pool, dev, P);
    run_strided_all<uint16_t, false>(runs, pool, dev, P);
    run_strided_all<uint64_t, false>(runs, pool, dev, quick ? P : P / 2);
    run_strided<uint4, 32, false>(runs, pool, dev, 4096);
    run_partial_stores(runs, pool, dev, quick, true);
    if (!quick) run_partial_stores_capped(runs, pool, dev, true, true);
    // Wavefront cost: K-way conflicts alone, and behind a copy's DRAM traffic.
    const int reps = 128;
    run_shared<1>(runs, pool, dev, reps);
    run_shared<2>(runs, pool, dev, reps);
    run_shared<4>(runs, pool, dev, reps);
    run_shared<8>(runs, pool, dev, reps);
    run_shared<16>(runs, pool, dev, reps);
    run_shared<32>(runs, pool, dev, reps);
    run_shared_copy<1>(runs, pool, dev, P);
    run_shared_copy<2>(runs, pool, dev, P);
    run_shared_copy<4>(runs, pool, dev, P);
    run_shared_copy<8>(runs, pool, dev, P);
    run_shared_copy<16>(runs, pool, dev, P);
    run_shared_copy<32>(runs, pool, dev, P);
    // Per-block cost: the same bytes in more or fewer blocks, with and without a barrier.
    run_block_cost(runs, pool, dev, quick);
    // Instruction issue: copies with more and more integer arithmetic per element.
    run_issue_all(runs, pool, dev, true);
  }

  std::vector<std::string> hold;
  if (holdout) {
    using memsim::Dtype;
    const char* all[] = {"copy",   "copy_shared", "naive", "naive_read", "coalesced", "padded",     "diagonal",
                         "coarse", "fine",        "swizzle", "vec4",     "vec4_shared", "reg4x4"};
    const memsim::Size2 b32x8{32, 8};
    for (const char* k : all) hold.push_back(run_suite(pool, dev, k, {4096, 4096}, b32x8, Dtype::F32));
    for (const char* k : {"copy", "naive", "naive_read", "coalesced", "padded", "vec4", "reg4x4"}) {
      hold.push_back(run_suite(pool, dev, k, {4096, 4096}, {8, 32}, Dtype::F32));
      hold.push_back(run_suite(pool, dev, k, {4096, 4096}, {16, 16}, Dtype::F32));
    }
    if (!quick)
      for (Dtype d : {Dtype::F32, Dtype::F16, Dtype::F64})
        for (const char* k : all) hold.push_back(run_suite(pool, dev, k, {8192, 8192}, b32x8, d));
  }

  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  const cudaDeviceProp& p = dev.prop;
  using Json = nlohmann::ordered_json;
  Json doc = {{"tool", "memsim-microbench"},
              {"format", 1},
              {"date", date},
              {"method", "CUDA events around each launch; 3 warm-up launches, median of 25; (input, output) pairs "
                         "rotated so at least 4x L2 lies between repeats of a pair; outputs poisoned and checked once"}};
  doc["device"] = {{"name", p.name},
                   {"cc", std::to_string(p.major) + "." + std::to_string(p.minor)},
                   {"sm_count", p.multiProcessorCount},
                   {"sm_clock_mhz", std::llround(dev.sm_clock_khz / 1000.0)},
                   {"mem_clock_mhz", std::llround(dev.mem_clock_khz / 1000.0)},
                   {"bus_width_bits", dev.bus_bits},
                   {"l2_bytes", dev.l2},
                   {"global_mem_bytes", size_t(p.totalGlobalMem)},
                   {"shared_per_sm", size_t(p.sharedMemPerMultiprocessor)},
                   {"shared_per_block", size_t(p.sharedMemPerBlock)},
                   {"shared_per_block_optin", size_t(p.sharedMemPerBlockOptin)},
                   {"reserved_shared_per_block", size_t(p.reservedSharedMemPerBlock)},
                   {"regs_per_sm", p.regsPerMultiprocessor},
                   {"regs_per_block", p.regsPerBlock},
                   {"max_threads_per_sm", p.maxThreadsPerMultiProcessor},
                   {"max_threads_per_block", p.maxThreadsPerBlock},
                   {"max_blocks_per_sm", p.maxBlocksPerMultiProcessor},
                   {"warp_size", p.warpSize},
                   {"driver_version", dev.driver},
                   {"runtime_version", dev.runtime}};
  // The rows are JSON text (Runs::add, run_suite); a time that is no number (nan) makes one that is not JSON.
  const auto parse_rows = [](const std::vector<std::string>& rows) {
    Json a = Json::array();
    for (const std::string& row : rows) a.push_back(Json::parse(row));
    return a;
  };
  try {
    doc["runs"] = parse_rows(runs.rows());
    doc["holdout_note"] = "the suite's own kernels (kernels/suite.hpp bodies): recorded to judge the model, never "
                          "read by memsim-calibrate";
    doc["holdout"] = parse_rows(hold);
  } catch (const nlohmann::json::exception& e) {
    std::fprintf(stderr, "memsim-microbench: a run's record is not JSON: %s\n", e.what());
    return 1;
  }
  // One record per line, as the committed runs are (validate/record_lines.hpp).
  std::fputs(memsim::record_lines(doc).c_str(), stdout);
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "memsim-microbench: cannot write the JSON to standard output: %s\n", std::strerror(errno));
    return 1;
  }
  return 0;
}
