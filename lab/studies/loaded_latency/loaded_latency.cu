// memsim-loaded-latency: how long a load's round trip takes beside other traffic (docs/model.md, "A loaded
// round trip"). Each run is a naive-like transpose walk: a block BX x BY walks its tile TX x TY of the input in
// steps, every thread loading one element a step (a warp: BX lanes of a row by 32 / BX rows, so a load request
// spreads over 32 / BX lines when BX < 32); K steps' loads issue before the group's first store (K loads in
// flight a warp: a load does not pass a store that may alias it); then the stores, by mode:
//   0  none: a store predicated on the loaded value, never taken (the loads alone, one wait a group)
//   1  whole rows: the loads' own layout in the output (a copy; whole sectors where BX x elem >= 32 bytes)
//   2  transposed: out[x * H + y], naive's column pieces (32 / BX x elem bytes of a line a warp)
//   3  transposed, the block's threads renumbered as a block SBX wide: pieces of another size beside the same
//      loads
// An optional 11th field, WALK (two letters, default xx), orders each side's steps apart: the first letter the
// loads', the second the stores' (mode 2 only), x walking along the tile row first (a block's next load reads
// the next sector of the lines it has just read; its next store writes BX rows further on), y down the tile
// column first (new lines for the next load; the next store writes the next bytes of the same output rows).
// With the two letters apart, a step stores an element of another step: the output is each tile permuted.
// Every element is loaded once and (modes 1-3) stored once; modes 1-3 are checked against the reference (a
// permuted tile by its sum and its unwritten elements).
// Timed with CUDA events: 3 launches to warm up, then the median of 15 (min and max too).
//   loaded_latency CONFIGS > results.jsonl      CONFIGS: lines "dtype BXxBY TXxTY mode K SBX WxH [WALK] [gy] [tag]"
// gy numbers the grid down the tile columns first (blockIdx.x the tile row), so co-resident blocks write
// other lines than in the usual order (blockIdx.x the tile column).
// loaded_latency_kernel.hpp is the same index math as a memsim kernel file.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CHECK(x)                                                                             \
  do {                                                                                       \
    cudaError_t e_ = (x);                                                                    \
    if (e_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)

struct Params {
  int width, height, bx, by, tx, ty, mode, sbx;
  int load_walk_y, store_walk_y;  // 1: that side walks down the tile column first (WALK's letter y)
  int grid_y_first;               // 1: consecutive blocks take consecutive tile rows (the token gy)
};

template <class T, int K>
__global__ void loaded_latency(const T* in, T* out, Params p) {
  // The index math walks the steps with counters, no division a step: the kernel stays as lean in
  // instructions as naive's compiled body (a run-time shape with a division a step is issue-bound here).
  const int bx = p.bx, by = p.by, threads = bx * by;
  const int nsx = p.tx / bx, nsy = p.ty / by, steps = nsx * nsy;
  const int tid = threadIdx.y * bx + threadIdx.x;
  const int sbx = p.mode == 3 ? p.sbx : bx, sby = threads / sbx, snsx = p.tx / sbx, snsy = p.ty / sby;
  const int64_t tile_col = p.grid_y_first ? blockIdx.y : blockIdx.x, tile_row = p.grid_y_first ? blockIdx.x : blockIdx.y;
  const int64_t col0 = tile_col * p.tx, row0 = tile_row * p.ty;
  const int64_t W = p.width, H = p.height;
  // Load side: in[(row0 + r) * W + col0 + c], c = sx * bx + tx, r = sy * by + ty; mode 1 stores there too.
  // A step moves the address by `inner`; after `n` steps the walk turns by `outer` (counters, no division).
  int64_t at = (row0 + threadIdx.y) * W + col0 + threadIdx.x;
  const int64_t ld_inner = p.load_walk_y ? by * W : bx;
  const int ld_n = p.load_walk_y ? nsy : nsx;
  const int64_t ld_outer = p.load_walk_y ? bx - int64_t(nsy) * by * W : by * W - int64_t(nsx) * bx;
  // Store side (modes 2, 3): out[(col0 + c) * H + row0 + r], c = ssx * sbx + stx, r = ssy * sby + sty.
  int64_t to = (col0 + tid % sbx) * H + row0 + tid / sbx;
  const int64_t st_inner = p.store_walk_y ? sby : sbx * H;
  const int st_n = p.store_walk_y ? snsy : snsx;
  const int64_t st_outer = p.store_walk_y ? sbx * H - int64_t(snsy) * sby : sby - int64_t(snsx) * sbx * H;
  const T never = T(~T(0));  // the inputs are small: the mode-0 store is never taken
  int li = 0, si = 0;
  for (int g = 0; g < steps; g += K) {
    T v[K];
    int64_t ld[K];
#pragma unroll
    for (int j = 0; j < K; ++j) {
      ld[j] = at;
      v[j] = g + j < steps ? in[at] : T(0);
      at += ld_inner;
      if (++li == ld_n) li = 0, at += ld_outer;
    }
#pragma unroll
    for (int j = 0; j < K; ++j) {
      if (g + j >= steps) continue;
      if (p.mode == 0) {
        if (v[j] == never) out[ld[j]] = v[j];
      } else if (p.mode == 1) {
        out[ld[j]] = v[j];
      } else {
        out[to] = v[j];
        to += st_inner;
        if (++si == st_n) si = 0, to += st_outer;
      }
    }
  }
}

template <class T>
using KernelFn = void (*)(const T*, T*, Params);

template <class T>
KernelFn<T> pick(int k) {
  switch (k) {
    case 1: return loaded_latency<T, 1>;
    case 2: return loaded_latency<T, 2>;
    case 4: return loaded_latency<T, 4>;
    case 8: return loaded_latency<T, 8>;
  }
  return nullptr;
}

template <class T>
bool run(const Params& p, int k, const std::string& line, const std::string& dtype) {
  const size_t n = size_t(p.width) * p.height;
  T *in = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&in, n * sizeof(T)));
  CHECK(cudaMalloc(&out, n * sizeof(T)));
  std::vector<T> h(n);
  for (size_t i = 0; i < n; ++i) h[i] = T(i % 251);
  CHECK(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(out, 0xff, n * sizeof(T)));
  const dim3 block(p.bx, p.by), grid(p.grid_y_first ? p.height / p.ty : p.width / p.tx,
                                     p.grid_y_first ? p.width / p.tx : p.height / p.ty);
  KernelFn<T> f = pick<T>(k);
  if (!f) return false;
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<float> ms;
  const char* reps_env = std::getenv("LL_REPS");  // LL_REPS=1: one launch (under Nsight Compute)
  const int reps = reps_env ? std::max(1, std::atoi(reps_env)) : 15, warm = reps_env ? 0 : 3;
  for (int rep = 0; rep < warm + reps; ++rep) {
    CHECK(cudaEventRecord(a));
    f<<<grid, block>>>(in, out, p);
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaGetLastError());
    float t = 0;
    CHECK(cudaEventElapsedTime(&t, a, b));
    if (rep >= warm) ms.push_back(t);
  }
  // Check: mode 1 is a copy, modes 2 and 3 a permutation of each tile (every output element written once,
  // each input value once): compare sums and count unwritten elements; mode 2 element by element.
  std::vector<T> o(n);
  CHECK(cudaMemcpy(o.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
  size_t bad = 0;
  if (p.mode == 1) {
    for (size_t i = 0; i < n; ++i) bad += o[i] != h[i];
  } else if (p.mode == 2 && p.load_walk_y == p.store_walk_y) {
    for (size_t y = 0; y < size_t(p.height); ++y)
      for (size_t x = 0; x < size_t(p.width); ++x) bad += o[x * p.height + y] != h[y * p.width + x];
  } else if (p.mode >= 2) {
    uint64_t si = 0, so = 0;
    for (size_t i = 0; i < n; ++i) si += uint64_t(h[i]), so += uint64_t(o[i]), bad += o[i] == T(~T(0));
    bad += si != so;
  }
  std::sort(ms.begin(), ms.end());
  std::printf("{\"config\": \"%s\", \"dtype\": \"%s\", \"matrix\": \"%dx%d\", \"block\": \"%dx%d\", \"tile\": \"%dx%d\", "
              "\"mode\": %d, \"k\": %d, \"sbx\": %d, \"walk\": \"%c%c\", \"grid\": \"%s\", \"time_us\": {\"median\": %.3f, \"min\": %.3f, \"max\": %.3f, "
              "\"reps\": %zu}, \"check\": \"%s\"}\n",
              line.c_str(), dtype.c_str(), p.width, p.height, p.bx, p.by, p.tx, p.ty, p.mode, k, p.sbx,
              p.load_walk_y ? 'y' : 'x', p.store_walk_y ? 'y' : 'x', p.grid_y_first ? "y" : "x", 1e3 * ms[ms.size() / 2], 1e3 * ms.front(), 1e3 * ms.back(), ms.size(), bad ? "FAILED" : "passed");
  std::fflush(stdout);
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  return bad == 0;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CONFIGS\n", argv[0]);
    return 2;
  }
  FILE* f = std::fopen(argv[1], "r");
  if (!f) return 2;
  char buf[512];
  int failed = 0;
  while (std::fgets(buf, sizeof buf, f)) {
    std::string line(buf);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    char dtype[8];
    Params p{};
    int k = 1;
    // After the ten fields, in any order: WALK (xx, xy, yx or yy), gy (the grid's blocks down the tile columns
    // first: blockIdx.x numbers the tile rows) and a tag (a word naming the run, e.g. "check").
    char extra[3][16] = {"", "", ""};
    const int fields =
        std::sscanf(line.c_str(), "%7s %dx%d %dx%d %d %d %d %dx%d %15s %15s %15s", dtype, &p.bx, &p.by, &p.tx, &p.ty,
                    &p.mode, &k, &p.sbx, &p.width, &p.height, extra[0], extra[1], extra[2]);
    char walk[3] = "xx";
    int walks = 0;
    for (const char* e : extra) {
      if (std::strlen(e) == 2 && std::strchr("xy", e[0]) && std::strchr("xy", e[1])) std::strcpy(walk, e), ++walks;
      if (!std::strcmp(e, "gy")) p.grid_y_first = 1;
    }
    if (fields < 10 || walks > 1 || (p.mode != 2 && walk[0] != walk[1]) || (p.mode == 3 && walk[0] != 'x')) {
      std::fprintf(stderr, "bad line (WALK: xx, xy, yx or yy; apart only in mode 2; mode 3 xx): %s\n", line.c_str());
      return 2;
    }
    p.load_walk_y = walk[0] == 'y';
    p.store_walk_y = walk[1] == 'y';
    const bool ok = !std::strcmp(dtype, "f16")   ? run<uint16_t>(p, k, line, dtype)
                    : !std::strcmp(dtype, "f32") ? run<uint32_t>(p, k, line, dtype)
                                                 : run<uint64_t>(p, k, line, dtype);
    failed += !ok;
  }
  std::fclose(f);
  return failed ? 1 : 0;
}
