#include "validate/cute_transpose.hpp"

#include <cute/tensor.hpp>
#include <cutlass/version.h>

#include <stdexcept>

#include "validate/cuda_check.hpp"

// The design of Colfax Research's CuTe transpose tutorial (its transpose_smem), written here for memsim's
// conventions: the input is `height` rows of `width` (row-major). Each block copies a 32x32 tile into shared
// memory as 8 warps each taking 32 consecutive elements of a row, then writes the transposed tile the same way.
// The grid is the tutorial's, (tile rows, tile columns) of the input: blockIdx.x walks down a column of tiles,
// so the blocks resident together read a band of input columns and write a band of whole output rows. The
// shared tile is row-major in the input's orientation with its offset's bits 5..9 (the row) XORed into bits
// 0..4 (the column: Swizzle<5,0,5>), so that a warp's column of the tile is spread over the banks; the drain
// reads it through that layout composed with the transposed (32, 32) layout, which is the tutorial's trick: one
// layout algebra expression instead of hand-written index math.
namespace memsim::validate {
namespace {

constexpr int64_t kMaxGridY = 65535;  // gridDim.y's limit (the tile columns)
using TileSide = cute::Int<kCuteTile>;
// 256 threads as 8 rows of 32, row-major: a warp is 32 consecutive threads of one row.
using ThreadLayout = cute::Layout<cute::Shape<cute::_8, cute::_32>, cute::Stride<cute::_32, cute::_1>>;
constexpr int kThreads = 256;

template <class T>
__global__ void __launch_bounds__(kThreads) cute_transpose_kernel(const T* in, T* out, int width, int height) {
  using namespace cute;
  __shared__ alignas(128) T smem[kCuteTile * kCuteTile];

  const auto tile = make_shape(TileSide{}, TileSide{});
  Tensor input = make_tensor(make_gmem_ptr(in), make_layout(make_shape(height, width), LayoutRight{}));
  Tensor output = make_tensor(make_gmem_ptr(out), make_layout(make_shape(width, height), LayoutRight{}));
  // This block's tile of the input (tile row blockIdx.x, tile column blockIdx.y) and the same elements' place
  // in the output.
  Tensor g_in = local_tile(input, tile, make_coord(int(blockIdx.x), int(blockIdx.y)));
  Tensor g_out = local_tile(output, tile, make_coord(int(blockIdx.y), int(blockIdx.x)));

  // (r, c) -> swizzled r * 32 + c; and (c, r) -> the same word: the row-major (c, r) index is the
  // column-major one of (r, c), which is how composition reads its inner layout's result.
  const auto fill_layout = composition(Swizzle<5, 0, 5>{}, make_layout(tile, LayoutRight{}));
  const auto drain_layout = composition(fill_layout, make_layout(tile, LayoutRight{}));
  Tensor s_fill = make_tensor(make_smem_ptr(smem), fill_layout);
  Tensor s_drain = make_tensor(make_smem_ptr(smem), drain_layout);

  copy(local_partition(g_in, ThreadLayout{}, threadIdx.x), local_partition(s_fill, ThreadLayout{}, threadIdx.x));
  __syncthreads();
  copy(local_partition(s_drain, ThreadLayout{}, threadIdx.x), local_partition(g_out, ThreadLayout{}, threadIdx.x));
}

template <class T>
void launch(const void* in, void* out, int width, int height, cudaStream_t stream) {
  const dim3 grid(unsigned(height / kCuteTile), unsigned(width / kCuteTile));
  cute_transpose_kernel<T><<<grid, kThreads, 0, stream>>>(static_cast<const T*>(in), static_cast<T*>(out), width, height);
  MEMSIM_CHECK_LAUNCH("CuTe transpose launch");
}

}  // namespace

bool cute_transpose_built() { return true; }

std::string cute_transpose_detail(Dtype dtype) {
  return "CuTe (CUTLASS " + std::to_string(CUTLASS_MAJOR) + "." + std::to_string(CUTLASS_MINOR) + "." +
         std::to_string(CUTLASS_PATCH) + ") swizzled smem transpose after Colfax's tutorial: 32x32 tile, " +
         "Swizzle<5,0,5>, 256 threads as 8x32, grid over tile rows then columns, " + storage_type(dtype) + " elements";
}

std::optional<std::string> cute_transpose_unavailable(Dtype, int64_t width, int64_t height) {
  if (width % kCuteTile != 0 || height % kCuteTile != 0)
    return "the CuTe transpose covers whole 32x32 tiles only (no bounds tests, as in the tutorial): " +
           std::to_string(width) + "x" + std::to_string(height) + " is not";
  if (width / kCuteTile > kMaxGridY)
    return "the CuTe transpose's grid has a block a column of tiles in y, at most " + std::to_string(kMaxGridY) +
           ": " + std::to_string(width) + " columns is " + std::to_string(width / kCuteTile);
  if (width * height >= (int64_t(1) << 31)) return std::string("the CuTe transpose's int indices reach 2^31 elements");
  return std::nullopt;
}

void launch_cute_transpose(Dtype dtype, const void* in, void* out, int width, int height, cudaStream_t stream) {
  switch (dtype) {
    case Dtype::F16: return launch<uint16_t>(in, out, width, height, stream);
    case Dtype::F32: return launch<float>(in, out, width, height, stream);
    case Dtype::F64: return launch<double>(in, out, width, height, stream);
  }
  throw std::logic_error("launch_cute_transpose: unknown dtype");
}

}  // namespace memsim::validate
