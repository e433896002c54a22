#pragma once
// The CuTe transpose baseline: a shared-memory tile transpose written with CuTe (CUTLASS's layout library) the
// way Colfax Research's CuTe transpose tutorial designs it (docs/sources.md, docs/validation.md): 32x32 tiles,
// 256 threads, the grid over the input's tile rows then its tile columns, the shared tile XOR-swizzled with
// Swizzle<5,0,5> and read back through the same layout composed with its transpose. Timed, output-checked and
// counted beside cuBLAS and cudaMemcpy, like them a yardstick: the replay never sees it. Built only with the
// CUTLASS headers (CMake MEMSIM_CUTE, scripts/install-cutlass.sh); without them cute_transpose_built() is false
// and runs have no such baseline. This header needs no CuTe.
#include <cuda_runtime.h>

#include <cstdint>
#include <optional>
#include <string>

#include "kernels/resolve.hpp"

namespace memsim::validate {

// The baseline's name in run documents.
constexpr const char* kCuteBaselineName = "cute_transpose";
// Its __global__ function's name (ncu --kernel-name regex, and telling its rows apart).
constexpr const char* kCuteKernelName = "cute_transpose_kernel";
// The tile one block covers: the matrix must be whole tiles (the design has no bounds tests).
constexpr int kCuteTile = 32;

bool cute_transpose_built();

// What ran, e.g. "CuTe (CUTLASS 4.2.0) 32x32 smem tile, Swizzle<5,0,5>, 256 threads, uint16_t elements".
std::string cute_transpose_detail(Dtype dtype);

// Why the baseline cannot run a width x height matrix of dtype (nullopt: it can): not built, a side that is
// no multiple of the tile, or more elements than its 32-bit indices reach.
std::optional<std::string> cute_transpose_unavailable(Dtype dtype, int64_t width, int64_t height);

// Launches once on `stream` (width x height row-major input, moved as 2-, 4- or 8-byte words); checks the launch.
void launch_cute_transpose(Dtype dtype, const void* in, void* out, int width, int height, cudaStream_t stream);

}  // namespace memsim::validate
