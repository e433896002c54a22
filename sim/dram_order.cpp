#include "sim/dram_order.hpp"

#include <algorithm>
#include <cmath>
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

// The number of distinct values of v and the sum of the squares of their runs of consecutive values. Where
// the values are dense (a window's lines span few more lines than it touches: the usual case) a bitmap over
// their range replaces the sort, which took most of a prediction's time for kernels whose lanes each touch
// their own line (naive's column stores); the result is the same. v is left in an unspecified order.
void distinct_runs(std::vector<uint64_t>& v, double& distinct, double& runs_squared) {
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  const uint64_t first = *lo, span = *hi - *lo + 1;
  distinct = runs_squared = 0;
  const auto add_run = [&](double run) {
    distinct += run;
    runs_squared += run * run;
  };
  if (span / 64 > v.size()) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    for (size_t i = 0; i < v.size();) {
      size_t j = i + 1;
      while (j < v.size() && v[j] == v[j - 1] + 1) ++j;
      add_run(double(j - i));
      i = j;
    }
    return;
  }
  std::vector<uint64_t> bits(size_t(span / 64 + 1), 0);
  for (uint64_t x : v) bits[size_t((x - first) / 64)] |= uint64_t(1) << ((x - first) % 64);
  // Walk the set bits run by run: a run may cross words.
  double run = 0;
  for (uint64_t word : bits) {
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

// One window's lines, per direction; a warp's lanes mostly repeat the line before, and a column store's
// lanes each touch their own line, which the next warps touch again. A small direct-mapped table of the lines
// last seen drops most such repeats before they are stored: a window of naive f16 32x2 on a 128x128 tile
// at 16384x16384 touched 69 million lines for 1.1 million distinct (1 GB of vector before). A line the table
// has lost is stored again, which distinct_runs removes, so the counts are the same either way.
struct WindowLines {
  static constexpr size_t kRecent = 4096;  // a power of two
  std::vector<uint64_t> lines[2];
  std::vector<uint64_t> recent[2] = {std::vector<uint64_t>(kRecent, ~uint64_t(0)),
                                     std::vector<uint64_t>(kRecent, ~uint64_t(0))};
  void clear() {
    for (int d = 0; d < 2; ++d) {
      lines[d].clear();
      std::fill(recent[d].begin(), recent[d].end(), ~uint64_t(0));
    }
  }
  void push(int d, uint64_t line) {
    if (!lines[d].empty() && lines[d].back() == line) return;  // the common repeat, at no table look-up
    uint64_t& slot = recent[d][size_t((line ^ (line >> 12)) & (kRecent - 1))];
    if (slot == line) return;
    slot = line;
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
      if (v.empty()) continue;
      // The distinct lines and their runs of consecutive lines: streams = lines^2 / sum of runs^2.
      double distinct = 0, runs_squared = 0;
      distinct_runs(v, distinct, runs_squared);
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
WindowOrder count_windows(int64_t blocks, int64_t resident, int max_windows, Walk&& walk) {
  if (resident < 1) throw std::invalid_argument("window_order: resident blocks must be at least 1");
  if (max_windows < 1) throw std::invalid_argument("window_order: max_windows must be at least 1");
  WindowOrder r;
  r.resident = resident;
  if (blocks <= 0) return r;
  WindowLines lines;
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
  return count_windows(blocks, resident, max_windows, [&](int64_t first, int64_t last, WindowLines& lines) {
    accesses(first, last, [&](Op op, uint64_t address, int bytes) { lines.add(op, address, bytes); });
  });
}

WindowOrder window_order(const LaunchConfig& cfg, int64_t resident, int max_windows) {
  Tally findings(cfg.kernel->num_sites);
  return count_windows(cfg.blocks(), resident, max_windows, [&](int64_t first, int64_t last, WindowLines& lines) {
    for_each_warp_access(cfg, first, last, Recorders::Counting,
                         [&](int64_t, int, const WarpAccess& a) {
                           if (a.space != Space::Global) return;
                           // A lane's access (at most 16 bytes) lies in one line unless it is misaligned.
                           const int d = a.op == Op::Store ? 1 : 0;
                           for (int lane = 0; lane < kWarpSize; ++lane) {
                             if (!(a.mask >> lane & 1u)) continue;
                             lines.push(d, a.addr[lane] / kDramOrderLineBytes);
                             lines.push(d, (a.addr[lane] + a.width - 1) / kDramOrderLineBytes);
                           }
                         },
                         findings);
  });
}

}  // namespace memsim
