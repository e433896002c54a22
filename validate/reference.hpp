#pragma once
// The CPU reference every GPU output is compared with, element by element and bit for bit (a transpose moves
// bits; nothing is computed). Each OutputKind (kernels/kernel_info.hpp) says where an output element comes from.
#include <cstdint>
#include <string>

#include "kernels/kernel_info.hpp"
#include "kernels/launch_shape.hpp"

namespace memsim::validate {

const char* output_kind_name(OutputKind k);  // "copy", "transpose", "tiles_moved", "tiles_transposed"

struct OutputDims {
  int64_t cols = 0, rows = 0;
  int64_t elements() const { return cols * rows; }
};
OutputDims output_dims(OutputKind k, const LaunchShape& s);

// Input element (row-major index) that output element (out_row, out_col) must hold. The two half-transposes
// use the square tile (tile_x) of the launch: coarse moves tile (i, j) to (j, i) unchanged, fine transposes
// each tile where it stands (kernels/suite/half_transposes.hpp).
int64_t source_index(OutputKind k, const LaunchShape& s, int64_t out_row, int64_t out_col);

struct OutputCheck {
  int64_t elements = 0;
  int64_t mismatches = 0;  // elements whose bits differ from the reference (unwritten ones keep the poison)
  int64_t unwritten = 0;   // mismatches that still hold the poison pattern
  int64_t first_row = -1, first_col = -1;
  uint64_t first_got = 0, first_want = 0;  // raw bits of the first mismatch
  bool passed() const { return elements > 0 && mismatches == 0; }
  std::string describe() const;
};

// Compares the whole output with the reference, using several host threads (0: all of them).
OutputCheck check_output(OutputKind k, const LaunchShape& s, int elem_bytes, const void* in, const void* out,
                         int threads = 0);

// Random input that is never zero, NaN or infinite and never the poison pattern: f16 as binary16 bits, f32 and
// f64 as numbers of magnitude in [0.5, 2) with a random sign. Deterministic for a seed.
void fill_random_input(void* data, int64_t elements, int elem_bytes, uint64_t seed);
// Every output byte before a run: all-ones is a NaN in every dtype, so an unwritten element cannot pass.
constexpr unsigned char kPoisonByte = 0xFF;

}  // namespace memsim::validate
