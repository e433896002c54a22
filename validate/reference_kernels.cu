#include "validate/reference_kernels.hpp"

#include "validate/cuda_check.hpp"

// Written as the articles write them, not through kernels/: the whitepaper's (docs/sources.md) TILE_DIM 32 and
// BLOCK_ROWS 8 with int indices and the row loop unrolled by nvcc; seed 001's float4 loads into a padded
// tile; seed 000's 4x4 register transpose with float4 loads and stores. No bounds tests except where the
// design has them (the diagonal kernel): the matrix must be whole tiles.
namespace memsim::validate {
namespace {

constexpr int TILE_DIM = 32;
constexpr int BLOCK_ROWS = 8;

__global__ void reference_copy(float* odata, const float* idata, int width, int height) {
  const int x = blockIdx.x * TILE_DIM + threadIdx.x;
  const int y = blockIdx.y * TILE_DIM + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) odata[(y + j) * width + x] = idata[(y + j) * width + x];
}

__global__ void reference_copy_shared(float* odata, const float* idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM];
  const int x = blockIdx.x * TILE_DIM + threadIdx.x;
  const int y = blockIdx.y * TILE_DIM + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
#pragma unroll
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) odata[(y + j) * width + x] = tile[threadIdx.y + j][threadIdx.x];
}

__global__ void reference_padded(float* odata, const float* idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

// The whitepaper's diagonal reordering, with bounds tests on every access.
__global__ void reference_diagonal(float* odata, const float* idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int blockIdx_x, blockIdx_y;
  if (gridDim.x == gridDim.y) {
    blockIdx_y = blockIdx.x;
    blockIdx_x = (blockIdx.x + blockIdx.y) % gridDim.x;
  } else {
    const int bid = blockIdx.x + gridDim.x * blockIdx.y;
    blockIdx_y = bid % gridDim.y;
    blockIdx_x = ((bid / gridDim.y) + blockIdx_y) % gridDim.x;
  }
  int x = blockIdx_x * TILE_DIM + threadIdx.x;
  int y = blockIdx_y * TILE_DIM + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx_y * TILE_DIM + threadIdx.x;
  y = blockIdx_x * TILE_DIM + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < height && y + j < width) odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

// XOR swizzle of a 32-wide tile: element (r, c) at column c ^ r.
__global__ void reference_swizzle(float* odata, const float* idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    tile[threadIdx.y + j][threadIdx.x ^ (threadIdx.y + j)] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    odata[(y + j) * height + x] = tile[threadIdx.x][(threadIdx.y + j) ^ threadIdx.x];
}

// Seed 001's float4 load into a padded tile of BY rows by 4 BX columns, drained transposed with scalar
// shared loads and coalesced scalar stores.
template <int BX, int BY>
__global__ void reference_vec4_shared(float* odata, const float* idata, int width, int height) {
  constexpr int TX = 4 * BX, TY = BY;
  __shared__ float tile[TY][TX + 1];
  const int col0 = blockIdx.x * TX, row0 = blockIdx.y * TY;
  const float4 v = *reinterpret_cast<const float4*>(&idata[(row0 + threadIdx.y) * width + col0 + 4 * threadIdx.x]);
  tile[threadIdx.y][4 * threadIdx.x + 0] = v.x;
  tile[threadIdx.y][4 * threadIdx.x + 1] = v.y;
  tile[threadIdx.y][4 * threadIdx.x + 2] = v.z;
  tile[threadIdx.y][4 * threadIdx.x + 3] = v.w;
  __syncthreads();
  // Output row col0 + r holds input column col0 + r: TX rows of TY elements.
#pragma unroll
  for (int j = 0; j < TX; j += BY) {
    const int r = threadIdx.y + j;
#pragma unroll
    for (int k = 0; k < TY; k += BX) {
      const int c = threadIdx.x + k;
      if (TY % BX == 0 || c < TY) odata[(col0 + r) * height + row0 + c] = tile[c][r];  // 32x8: 8 of 32 lanes
    }
  }
}

// Seed 000's register transpose: four float4 row loads, four float4 column stores a thread.
template <int BX, int BY>
__global__ void reference_reg4x4(float* odata, const float* idata, int width, int height) {
  constexpr int TX = 4 * BX, TY = 4 * BY;
  float src[4][4];
  const float* in = idata + blockIdx.y * TY * width + blockIdx.x * TX;
#pragma unroll
  for (int i = 0; i < 4; ++i)
    *reinterpret_cast<float4*>(src[i]) = *reinterpret_cast<const float4*>(&in[(threadIdx.y * 4 + i) * width + threadIdx.x * 4]);
  float* out = odata + blockIdx.x * TX * height + blockIdx.y * TY;
#pragma unroll
  for (int i = 0; i < 4; ++i)
    *reinterpret_cast<float4*>(&out[(threadIdx.x * 4 + i) * height + threadIdx.y * 4]) =
        make_float4(src[0][i], src[1][i], src[2][i], src[3][i]);
}

using KernelFn = void (*)(float*, const float*, int, int);

template <KernelFn K, int BX, int BY, int TX, int TY>
void launch(const float* in, float* out, int width, int height, cudaStream_t stream) {
  const dim3 grid(unsigned((width + TX - 1) / TX), unsigned((height + TY - 1) / TY));
  K<<<grid, dim3(BX, BY), 0, stream>>>(out, in, width, height);
  MEMSIM_CHECK_LAUNCH("reference kernel launch");
}

}  // namespace

const std::vector<ReferenceKernel>& reference_kernels() {
  using O = OutputKind;
  static const std::vector<ReferenceKernel> all{
      {"copy", 32, 8, 32, 32, false, O::Copy, "whitepaper copy, TILE_DIM 32, BLOCK_ROWS 8", "reference_copy",
       &launch<reference_copy, 32, 8, 32, 32>},
      {"copy_shared", 32, 8, 32, 32, false, O::Copy, "whitepaper copySharedMem", "reference_copy_shared",
       &launch<reference_copy_shared, 32, 8, 32, 32>},
      {"padded", 32, 8, 32, 32, false, O::Transpose, "whitepaper transposeNoBankConflicts (tile[32][33])",
       "reference_padded", &launch<reference_padded, 32, 8, 32, 32>},
      {"diagonal", 32, 8, 32, 32, true, O::Transpose, "whitepaper transposeDiagonal, bounds-tested",
       "reference_diagonal", &launch<reference_diagonal, 32, 8, 32, 32>},
      {"swizzle", 32, 8, 32, 32, false, O::Transpose, "tile[32][32], column c ^ r", "reference_swizzle",
       &launch<reference_swizzle, 32, 8, 32, 32>},
      {"vec4_shared", 32, 8, 128, 8, false, O::Transpose, "seed 001 float4 + padded tile[8][129]",
       "reference_vec4_shared", &launch<reference_vec4_shared<32, 8>, 32, 8, 128, 8>},
      {"vec4_shared", 16, 16, 64, 16, false, O::Transpose, "seed 001 float4 + padded tile[16][65]",
       "reference_vec4_shared", &launch<reference_vec4_shared<16, 16>, 16, 16, 64, 16>},
      {"vec4_shared", 8, 32, 32, 32, false, O::Transpose, "seed 001 float4 + padded tile[32][33]",
       "reference_vec4_shared", &launch<reference_vec4_shared<8, 32>, 8, 32, 32, 32>},
      {"reg4x4", 32, 8, 128, 32, false, O::Transpose, "seed 000 transpose_v2, float4 loads and stores",
       "reference_reg4x4", &launch<reference_reg4x4<32, 8>, 32, 8, 128, 32>},
      {"reg4x4", 16, 16, 64, 64, false, O::Transpose, "seed 000 transpose_v2, float4 loads and stores",
       "reference_reg4x4", &launch<reference_reg4x4<16, 16>, 16, 16, 64, 64>},
  };
  return all;
}

bool reference_runs(const ReferenceKernel& ref, int64_t width, int64_t height) {
  constexpr int64_t kLimit = int64_t(1) << 31;
  if (width <= 0 || height <= 0 || (width + ref.tile_x) * (height + ref.tile_y) >= kLimit) return false;
  return ref.guarded || (width % ref.tile_x == 0 && height % ref.tile_y == 0);
}

std::string reference_name(const ReferenceKernel& ref) {
  return std::string("reference ") + ref.kernel + " " + std::to_string(ref.block_x) + "x" + std::to_string(ref.block_y);
}

}  // namespace memsim::validate
