#include "validate/reference.hpp"

#include <algorithm>
#include <cstring>
#include <random>
#include <sstream>
#include <thread>
#include <vector>

#include "core/threads.hpp"

namespace memsim::validate {

const char* output_kind_name(OutputKind k) {
  switch (k) {
    case OutputKind::Copy: return "copy";
    case OutputKind::Transpose: return "transpose";
    case OutputKind::TilesMoved: return "tiles_moved";
    case OutputKind::TilesTransposed: return "tiles_transposed";
  }
  return "?";
}

OutputDims output_dims(OutputKind k, const LaunchShape& s) {
  // Copy and the fine half-transpose keep the input's shape; the others are H columns by W rows.
  if (k == OutputKind::Copy || k == OutputKind::TilesTransposed) return {s.width, s.height};
  return {s.height, s.width};
}

int64_t source_index(OutputKind k, const LaunchShape& s, int64_t out_row, int64_t out_col) {
  const int64_t w = s.width;
  const int64_t t = s.tile_x;  // square tiles only for the half-transposes
  switch (k) {
    case OutputKind::Copy: return out_row * w + out_col;
    case OutputKind::Transpose: return out_col * w + out_row;
    case OutputKind::TilesMoved: {
      // out[(col0 + r) * H + row0 + c] = in[(row0 + r) * W + col0 + c]
      const int64_t col0 = out_row / t * t, r = out_row % t;
      const int64_t row0 = out_col / t * t, c = out_col % t;
      return (row0 + r) * w + col0 + c;
    }
    case OutputKind::TilesTransposed: {
      // out[(row0 + r) * W + col0 + c] = tile[c][r] = in[(row0 + c) * W + col0 + r]
      const int64_t row0 = out_row / t * t, r = out_row % t;
      const int64_t col0 = out_col / t * t, c = out_col % t;
      return (row0 + c) * w + col0 + r;
    }
  }
  return 0;
}

std::string OutputCheck::describe() const {
  std::ostringstream os;
  if (passed()) {
    os << "all " << elements << " elements match";
    return os.str();
  }
  os << mismatches << " of " << elements << " elements wrong (" << unwritten << " never written); first at output row "
     << first_row << " col " << first_col << ": got 0x" << std::hex << first_got << ", want 0x" << first_want;
  return os.str();
}

namespace {

template <class U>
void check_rows(OutputKind k, const LaunchShape& s, const U* in, const U* out, int64_t row_begin, int64_t row_end,
                OutputCheck& c) {
  const OutputDims d = output_dims(k, s);
  U poison;
  std::memset(&poison, kPoisonByte, sizeof(U));
  // Blocks of rows walked column by column: the transposed reads then run along input rows.
  constexpr int64_t kRowBlock = 64;
  for (int64_t r0 = row_begin; r0 < row_end; r0 += kRowBlock) {
    const int64_t r1 = std::min(row_end, r0 + kRowBlock);
    for (int64_t col = 0; col < d.cols; ++col) {
      for (int64_t row = r0; row < r1; ++row) {
        const U got = out[row * d.cols + col];
        const U want = in[source_index(k, s, row, col)];
        if (got == want) continue;
        if (c.mismatches == 0 || row < c.first_row || (row == c.first_row && col < c.first_col)) {
          c.first_row = row;
          c.first_col = col;
          c.first_got = uint64_t(got);
          c.first_want = uint64_t(want);
        }
        ++c.mismatches;
        if (got == poison) ++c.unwritten;
      }
    }
  }
}

template <class U>
OutputCheck check_typed(OutputKind k, const LaunchShape& s, const void* in, const void* out, int threads) {
  const OutputDims d = output_dims(k, s);
  const int workers = int(std::max<int64_t>(1, std::min<int64_t>(threads, d.rows / 64)));
  std::vector<OutputCheck> parts(workers);
  auto run = [&](int i) {
    check_rows(k, s, static_cast<const U*>(in), static_cast<const U*>(out), d.rows * i / workers,
               d.rows * (i + 1) / workers, parts[i]);
  };
  std::vector<std::thread> pool;
  for (int i = 1; i < workers; ++i) pool.emplace_back(run, i);
  run(0);
  for (std::thread& t : pool) t.join();
  OutputCheck total;
  total.elements = d.elements();
  for (const OutputCheck& p : parts) {  // parts cover increasing rows: the first one with a mismatch has the first
    if (p.mismatches && !total.mismatches) {
      total.first_row = p.first_row;
      total.first_col = p.first_col;
      total.first_got = p.first_got;
      total.first_want = p.first_want;
    }
    total.mismatches += p.mismatches;
    total.unwritten += p.unwritten;
  }
  return total;
}

}  // namespace

OutputCheck check_output(OutputKind k, const LaunchShape& s, int elem_bytes, const void* in, const void* out,
                         int threads) {
  threads = threads_to_use(threads);
  switch (elem_bytes) {
    case 2: return check_typed<uint16_t>(k, s, in, out, threads);
    case 4: return check_typed<uint32_t>(k, s, in, out, threads);
    default: return check_typed<uint64_t>(k, s, in, out, threads);
  }
}

namespace {

// One chunk of the input from its own generator, so that chunks can be filled in parallel and the input
// still depends on the seed alone.
void fill_chunk(void* data, int64_t begin, int64_t end, int elem_bytes, uint64_t seed) {
  std::mt19937_64 rng(seed);
  if (elem_bytes == 2) {
    auto* p = static_cast<uint16_t*>(data);
    for (int64_t i = begin; i < end; ++i) {
      const uint64_t r = rng();
      const uint16_t sign = uint16_t((r >> 63) << 15);
      const uint16_t exponent = uint16_t(1 + (r >> 10) % 30);  // 1..30: normal, finite, non-zero
      const uint16_t mantissa = uint16_t(r & 0x3FF);
      p[i] = uint16_t(sign | (exponent << 10) | mantissa);
    }
  } else if (elem_bytes == 4) {
    auto* p = static_cast<float*>(data);
    std::uniform_real_distribution<float> mag(0.5f, 2.0f);
    for (int64_t i = begin; i < end; ++i) p[i] = (rng() & 1 ? -1.0f : 1.0f) * mag(rng);
  } else {
    auto* p = static_cast<double*>(data);
    std::uniform_real_distribution<double> mag(0.5, 2.0);
    for (int64_t i = begin; i < end; ++i) p[i] = (rng() & 1 ? -1.0 : 1.0) * mag(rng);
  }
}

}  // namespace

void fill_random_input(void* data, int64_t elements, int elem_bytes, uint64_t seed) {
  constexpr int64_t kChunk = int64_t(1) << 20;
  const int64_t chunks = (elements + kChunk - 1) / kChunk;
  const int workers = int(std::max<int64_t>(1, std::min<int64_t>(chunks, hardware_threads())));
  auto run = [&](int w) {
    for (int64_t c = w; c < chunks; c += workers)
      fill_chunk(data, c * kChunk, std::min(elements, (c + 1) * kChunk), elem_bytes,
                 seed * 0x9E3779B97F4A7C15ull + uint64_t(c));
  };
  std::vector<std::thread> pool;
  for (int w = 1; w < workers; ++w) pool.emplace_back(run, w);
  run(0);
  for (std::thread& t : pool) t.join();
}

}  // namespace memsim::validate
