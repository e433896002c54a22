// memsim-split-lines' index math, one definition for the CUDA program (split_lines.cu) and the memsim kernel
// file that replays it (split_lines_kernel.hpp). README.md says what the study asks.
//
// A copy of 256 MiB of 4-byte words in which blocks come in pairs, b and b + D in launch order (b mod 2D < D),
// that share a group of 128 output lines (4096 words). Each block loads 2048 words of the input in order
// (8 steps of 256 threads, whole lines) and stores them into the half of its group's words that a pattern
// gives it. A pattern says, for the 8 half sectors (16 bytes) of each line of a 4-line period, which of the two
// blocks writes it: a sector whose halves go to different blocks is split (left partly written by one for the
// other to complete), as a transpose's sectors are where its tile rows end mid-sector.
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define SPLIT_LINES_HD __host__ __device__
#else
#define SPLIT_LINES_HD
#endif

namespace split_lines {

constexpr int kThreads = 256, kSteps = 8;
constexpr int kBlockWords = kThreads * kSteps;  // 2048 words a block loads and stores
constexpr int kLineWords = 32, kGroupLines = 128, kGroupWords = kGroupLines * kLineWords;
constexpr int kPeriodLines = 4, kPeriodWords = kPeriodLines * kLineWords;
// 32-bit arithmetic throughout: 2^26 words, 2^16 blocks.
constexpr uint32_t kWords = uint32_t(64) << 20;  // 256 MiB a side
constexpr uint32_t kGroups = kWords / kGroupWords, kBlocks = 2 * kGroups;

// Bit 8 l + h: half sector h (0..7) of line l (0..3) of the period is the first block's; the second block
// writes the rest. Every pattern gives each block 16 of the 32 halves, so both store the same bytes.
struct Pattern {
  const char* name;
  uint32_t first_halves;
};

constexpr Pattern kPatterns[] = {
    {"whole lines", 0x0000ffffu},                      // lines 0, 1 the first block's, 2, 3 the second's
    {"shared lines, whole sectors", 0x33333333u},      // sectors 0, 2 the first's, 1, 3 the second's
    {"4 split a line", 0x55555555u},                   // every sector split
    {"2 split a line", 0x35353535u},                   // sectors 0, 1 split, 2 and 3 whole
    {"1 split a line", 0xf10df10du},                   // sector 0 split, the other three whole
    {"2 split every other line", 0x33353335u},         // one split sector a line, on half the lines
    {"4 split one line in four", 0x33333355u},         // one split sector a line, on a quarter of them
    {"1 split every other line", 0x33f1330du},         // half a split sector a line
    {"4 split every other line", 0x33553355u},         // two a line, on half the lines
};
constexpr int kPatternCount = int(sizeof(kPatterns) / sizeof(kPatterns[0]));

SPLIT_LINES_HD inline int popcount(uint32_t m) {
#if defined(__CUDA_ARCH__)
  return __popc(m);
#else
  return __builtin_popcount(m);
#endif
}

// The position of the n-th set bit of m (n from 0; m has more than n): a binary search on the popcounts of
// the low halves, a few dozen instructions, where a loop over the bits costs the GPU kernel about as many as
// its copy takes to issue.
SPLIT_LINES_HD inline int nth_set_bit(uint32_t m, int n) {
  int pos = 0;
  for (int width = 16; width > 0; width /= 2) {
    const int low = popcount(m & ((1u << width) - 1u));
    if (n >= low) {
      n -= low;
      m >>= width;
      pos += width;
    }
  }
  return pos;
}

// Block b's group and role (0: the first of its pair, 1: the second).
SPLIT_LINES_HD inline uint32_t group_of(uint32_t b, uint32_t distance) {
  const uint32_t q = b / distance;
  return q / 2 * distance + b % distance;
}
SPLIT_LINES_HD inline int role_of(uint32_t b, uint32_t distance) { return int(b / distance % 2); }

// The word of its group's period a thread stores at every step: thread t takes its block's (t mod 64)-th word
// of the period in address order (a warp: 32 consecutive ones), and step s the period 4 s + t / 64.
SPLIT_LINES_HD inline int period_word(uint32_t first_halves, int role, int thread) {
  const uint32_t mine = role == 0 ? first_halves : ~first_halves;
  const int r = thread % 64, bit = nth_set_bit(mine, r / 4);
  return bit / 8 * kLineWords + bit % 8 * 4 + r % 4;
}

// The output word of group g's word `slot` (0..4095): linear puts the group's 128 lines one after another;
// scattered puts line l of every group in region l (the groups' lines side by side, 2 MiB apart from one
// line of the group to the next), as a transpose's blocks write pieces of many rows.
SPLIT_LINES_HD inline uint32_t output_word(bool scattered, uint32_t g, int slot) {
  const uint32_t line = uint32_t(slot) / kLineWords, word = uint32_t(slot) % kLineWords;
  return (scattered ? line * kGroups + g : g * kGroupLines + line) * kLineWords + word;
}

// Where thread t of block b stores at step s, and the input word it loaded there.
SPLIT_LINES_HD inline uint32_t store_word(uint32_t first_halves, bool scattered, uint32_t distance, uint32_t b,
                                         int thread, int step) {
  const int slot = (4 * step + thread / 64) * kPeriodWords + period_word(first_halves, role_of(b, distance), thread);
  return output_word(scattered, group_of(b, distance), slot);
}
SPLIT_LINES_HD inline uint32_t load_word(uint32_t b, int thread, int step) {
  return b * kBlockWords + uint32_t(step * kThreads + thread);
}

}  // namespace split_lines
