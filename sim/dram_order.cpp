#include "sim/dram_order.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "sim/replay.hpp"
#include "sim/tally.hpp"

namespace memsim {

double WindowOrder::streams(int op) const { return bytes[op] > 0 ? weighted_streams[op] / bytes[op] : 0.0; }
double WindowOrder::scattered(int op) const { return bytes[op] > 0 ? scattered_bytes[op] / bytes[op] : 0.0; }

double scattered_share(double streams) {
  if (!(streams > kStreamsInOrder)) return 0.0;
  return std::min(1.0, std::log2(streams / kStreamsInOrder) / std::log2(kStreamsScattered / kStreamsInOrder));
}

namespace {

// The windows to count: the first full one, then evenly spaced full ones up to the last; a launch of fewer
// than `resident` blocks is its one window.
std::vector<int64_t> sampled_windows(int64_t blocks, int64_t resident, int max_windows) {
  const int64_t full = blocks / resident;
  if (full == 0) return {0};
  std::vector<int64_t> w;
  const int64_t n = std::min<int64_t>(full, max_windows);
  for (int64_t i = 0; i < n; ++i) w.push_back(n == 1 ? 0 : i * (full - 1) / (n - 1));
  w.erase(std::unique(w.begin(), w.end()), w.end());
  return w;
}

// Adds the runs of set bits of words[0, n) (bit i of word w standing for value 64 w + i) to distinct (their
// bits) and runs_squared (the sum of the squares of their lengths); a run may cross words.
void bitmap_runs(const uint64_t* words, size_t n, double& distinct, double& runs_squared) {
  const auto add_run = [&](double run) {
    distinct += run;
    runs_squared += run * run;
  };
  double run = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t word = words[i];
    int at = 0;
    while (at < 64) {
      const uint64_t rest = word >> at;
      if (rest == 0) {  // no more set bits in this word: a run open here ends at its last bit
        if (run > 0 && at > 0) add_run(run), run = 0;
        break;
      }
      const int zeros = __builtin_ctzll(rest);
      if (zeros > 0) {
        if (run > 0) add_run(run), run = 0;
        at += zeros;
        continue;
      }
      const uint64_t ones_word = ~rest;
      const int ones = ones_word == 0 ? 64 - at : std::min(64 - at, __builtin_ctzll(ones_word));
      run += ones;
      at += ones;
    }
    if (at == 0 && run > 0) add_run(run), run = 0;  // a word with no set bit at all ends an open run
  }
  if (run > 0) add_run(run);
}

// The number of distinct values of v and the sum of the squares of their runs of consecutive values. Where
// the values are dense (a window's lines span few more lines than it touches: the usual case) a bitmap over
// their range replaces the sort, which took most of a prediction's time for kernels whose lanes each touch
// their own line (naive's column stores); the result is the same. v is left in an unspecified order.
void distinct_runs(std::vector<uint64_t>& v, double& distinct, double& runs_squared) {
  distinct = runs_squared = 0;
  if (v.empty()) return;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  const uint64_t first = *lo, span = *hi - *lo + 1;
  if (span / 64 > v.size()) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    for (size_t i = 0; i < v.size();) {
      size_t j = i + 1;
      while (j < v.size() && v[j] == v[j - 1] + 1) ++j;
      distinct += double(j - i);
      runs_squared += double(j - i) * double(j - i);
      i = j;
    }
    return;
  }
  std::vector<uint64_t> bits(size_t(span / 64 + 1), 0);
  for (uint64_t x : v) bits[size_t((x - first) / 64)] |= uint64_t(1) << ((x - first) % 64);
  bitmap_runs(bits.data(), bits.size(), distinct, runs_squared);
}

// One window's lines, per direction. With a range of lines for a direction (a launch's buffers), the lines in
// it are bits of a bitmap over it: a lane's line costs a shift and an or, and the memory is the range's bits
// (16 MiB for a 16 GiB buffer) however often a window touches a line. Before, every lane's line went into a
// vector: a window of naive f32 32x1 on a 1024x1024 tile at 65536x65536 touched 4.3 billion lines for a few
// million distinct, 2.2 GB of vector. Lines out of the range (and every line without one: the microbenchmarks'
// accesses) go into a vector; distinct_runs counts them with the bitmap's.
struct WindowLines {
  std::vector<uint64_t> lines[2];  // the lines outside the bitmap's range
  std::vector<uint64_t> bits[2];   // bit l - first[d] for line l in [first[d], first[d] + 64 x bits[d].size())
  uint64_t first[2] = {0, 0};
  size_t touched_lo[2] = {SIZE_MAX, SIZE_MAX}, touched_hi[2] = {0, 0};  // the words set: [lo, hi)
  // A small direct-mapped table of the lines last seen drops most repeats before the bitmap: it stays in the
  // L1 where the bitmap, over a whole buffer, does not.
  static constexpr size_t kRecent = 4096;  // a power of two
  std::vector<uint64_t> recent[2] = {std::vector<uint64_t>(kRecent, ~uint64_t(0)),
                                     std::vector<uint64_t>(kRecent, ~uint64_t(0))};

  // Lines [first_line, first_line + count) of direction d (0 = loads, 1 = stores) go into a bitmap.
  void set_range(int d, uint64_t first_line, uint64_t count) {
    first[d] = first_line;
    bits[d].assign(size_t((count + 63) / 64), 0);
  }
  void clear() {
    for (int d = 0; d < 2; ++d) {
      std::fill(recent[d].begin(), recent[d].end(), ~uint64_t(0));
      lines[d].clear();
      if (touched_lo[d] < touched_hi[d])
        std::fill(bits[d].begin() + ptrdiff_t(touched_lo[d]), bits[d].begin() + ptrdiff_t(touched_hi[d]), 0);
      touched_lo[d] = SIZE_MAX;
      touched_hi[d] = 0;
    }
  }
  void push(int d, uint64_t line) {
    uint64_t& slot = recent[d][size_t((line ^ (line >> 12)) & (kRecent - 1))];
    if (slot == line) return;
    slot = line;
    const uint64_t at = line - first[d];  // wraps to a huge value below the range
    const size_t word = size_t(at / 64);
    if (word < bits[d].size()) {
      bits[d][word] |= uint64_t(1) << (at % 64);
      touched_lo[d] = std::min(touched_lo[d], word);
      touched_hi[d] = std::max(touched_hi[d], word + 1);
      return;
    }
    lines[d].push_back(line);
  }
  void add(Op op, uint64_t address, int bytes) {
    const int d = op == Op::Store ? 1 : 0;
    const uint64_t last = (address + uint64_t(std::max(bytes, 1)) - 1) / kDramOrderLineBytes;
    for (uint64_t l = address / kDramOrderLineBytes; l <= last; ++l) push(d, l);
  }
  // Adds the window to `r`: its distinct lines, their runs, its streams and share out of order.
  void count_into(WindowOrder& r) {
    for (int d = 0; d < 2; ++d) {
      std::vector<uint64_t>& v = lines[d];
      const bool any_bits = touched_lo[d] < touched_hi[d];
      if (v.empty() && !any_bits) continue;
      // The distinct lines and their runs of consecutive lines: streams = lines^2 / sum of runs^2.
      double distinct = 0, runs_squared = 0;
      if (v.empty()) {
        bitmap_runs(bits[d].data() + touched_lo[d], touched_hi[d] - touched_lo[d], distinct, runs_squared);
      } else {  // lines on both sides of the range's edge may join: count them all together (rare)
        for (size_t w = touched_lo[d]; w < touched_hi[d]; ++w)  // none where no bit is set
          for (uint64_t word = bits[d][w]; word != 0; word &= word - 1)
            v.push_back(first[d] + 64 * w + uint64_t(__builtin_ctzll(word)));
        distinct_runs(v, distinct, runs_squared);
      }
      const double n = distinct, window_bytes = n * kDramOrderLineBytes, streams = n * n / runs_squared;
      r.bytes[d] += window_bytes;
      r.weighted_streams[d] += window_bytes * streams;
      r.scattered_bytes[d] += window_bytes * scattered_share(streams);
    }
    ++r.windows_sampled;
  }
};

// Checks the arguments, then calls walk(first, last, lines) for each sampled window.
template <class Walk>
WindowOrder count_windows(int64_t blocks, int64_t resident, int max_windows, WindowLines& lines, Walk&& walk) {
  if (resident < 1) throw std::invalid_argument("window_order: resident blocks must be at least 1");
  if (max_windows < 1) throw std::invalid_argument("window_order: max_windows must be at least 1");
  WindowOrder r;
  r.resident = resident;
  if (blocks <= 0) return r;
  for (int64_t w : sampled_windows(blocks, resident, max_windows)) {
    lines.clear();
    const int64_t first = w * resident;
    walk(first, std::min(blocks, first + resident), lines);
    lines.count_into(r);
  }
  return r;
}

}  // namespace

WindowOrder window_order(int64_t blocks, int64_t resident, int max_windows, const BlockAccesses& accesses) {
  WindowLines window;
  return count_windows(blocks, resident, max_windows, window, [&](int64_t first, int64_t last, WindowLines& lines) {
    accesses(first, last, [&](Op op, uint64_t address, int bytes) { lines.add(op, address, bytes); });
  });
}

WindowOrder window_order(const LaunchConfig& cfg, int64_t resident, int max_windows) {
  Tally findings(cfg.kernel->num_sites);
  // The loads' lines as a bitmap over the input's, the stores' over the output's (the replay's layout).
  const BufferLayout layout = default_layout(cfg);
  const auto lines_of = [](uint64_t base, int64_t elems, int elem_bytes) {
    return (base + uint64_t(elems) * uint64_t(elem_bytes) + kDramOrderLineBytes - 1) / kDramOrderLineBytes -
           base / kDramOrderLineBytes;
  };
  WindowLines window;
  window.set_range(0, layout.in_base / kDramOrderLineBytes, lines_of(layout.in_base, layout.in_elems, layout.elem_bytes));
  window.set_range(1, layout.out_base / kDramOrderLineBytes,
                   lines_of(layout.out_base, layout.out_elems, layout.elem_bytes));
  return count_windows(cfg.blocks(), resident, max_windows, window,
                       [&](int64_t first, int64_t last, WindowLines& lines) {
    for_each_warp_access(cfg, first, last, Recorders::Counting,
                         [&](int64_t, int, const WarpAccess& a) {
                           if (a.space != Space::Global) return;
                           // A lane's access (at most 16 bytes) lies in one line unless it is misaligned:
                           // its first and last line, not add()'s loop (30% of the count's time on naive
                           // f16 32x2 at 128x128, BM_WindowOrderNaiveF16Tile128).
                           const int d = a.op == Op::Store ? 1 : 0;
                           for (int lane = 0; lane < kWarpSize; ++lane) {
                             if (!(a.mask >> lane & 1u)) continue;
                             const uint64_t l = a.addr[lane] / kDramOrderLineBytes,
                                            end = (a.addr[lane] + a.width - 1) / kDramOrderLineBytes;
                             lines.push(d, l);
                             if (end != l) lines.push(d, end);
                           }
                         },
                         findings);
  });
}

}  // namespace memsim
