#pragma once
// Hand-written references: the seed articles' designs written directly in CUDA the way the articles write
// them (compile-time tile and block, int indices, f32), timed and counted beside the suite in the same run as
// baselines, like cuBLAS. A suite kernel slower than its reference measures memsim's code, not the memory
// system. The replay never sees these: they are not the suite's definitions, only the yardstick for them.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/kernel_info.hpp"

namespace memsim::validate {

struct ReferenceKernel {
  const char* kernel;  // the suite kernel it is the reference of
  int block_x, block_y;
  int tile_x, tile_y;  // what one block covers
  bool guarded;        // bounds-tested (runs ragged matrices); the others need whole tiles
  OutputKind output;
  const char* detail;  // where the design comes from
  const char* symbol;  // the __global__ function's name, as ncu prints it
  // Launches once on `stream` (width x height f32 input, row-major); checks the launch.
  void (*launch)(const float* in, float* out, int width, int height, cudaStream_t stream);
};

const std::vector<ReferenceKernel>& reference_kernels();

// What every reference's __global__ name starts with (ncu --kernel-name regex, and telling its rows apart).
constexpr const char* kReferenceKernelPrefix = "reference_";

// Whether ref can run a width x height matrix: whole tiles unless it is guarded, and 32-bit indices.
bool reference_runs(const ReferenceKernel& ref, int64_t width, int64_t height);

// "reference padded 32x8": the baseline's name in run documents.
std::string reference_name(const ReferenceKernel& ref);

}  // namespace memsim::validate
