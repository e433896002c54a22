// memsim-split-lines' index math, one definition for the CUDA program (split_lines.cu) and the memsim kernel
// file that replays it (split_lines_kernel.hpp). README.md says what the study asks.
//
// A copy of 256 MiB of 4-byte words in which blocks come in pairs, b and b + D in launch order (b mod 2D < D),
// that share a group of 128 output lines (4096 words). Each block loads 2048 words of the input in order
// (8 steps of 256 threads, whole lines) and stores them into the half of its group's words that a pattern
// gives it. A pattern says, for the 8 half sectors (16 bytes) of each line of a 4-line period, which of the two
// blocks writes it: a sector whose halves go to different blocks is split (left partly written by one for the
// other to complete), as a transpose's sectors are where its tile rows end mid-sector.
//
// A second variant, with 2-byte lanes (split_lines::lanes2 below), asks the same of sectors cut in 8- and 24-byte
// pieces, as f16 tiles whose rows end 8 or 24 bytes into a sector cut them: the same 256 MiB, 256 threads a
// block, 8 loads then 8 stores of one 2-byte element a thread, pairs b and b + D, the same layouts; a block
// then moves 4 KiB, so a pair shares 64 lines (8 KiB) instead of 128, and a pattern says which block writes
// each quarter sector (8 bytes) of a 4-line period.
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

// The set bits of m, for the compile-time checks below (a plain loop: never on the GPU's path).
constexpr int bits_set(uint64_t m) {
  int n = 0;
  for (; m != 0; m &= m - 1) ++n;
  return n;
}
constexpr bool halves_balanced() {
  for (const Pattern& p : kPatterns)
    if (bits_set(p.first_halves) != 16) return false;
  return true;
}
static_assert(halves_balanced(), "every 4-byte-lane pattern gives each block 16 of the 32 half sectors");

SPLIT_LINES_HD inline int popcount(uint32_t m) {
#if defined(__CUDA_ARCH__)
  return __popc(m);
#else
  return __builtin_popcount(m);
#endif
}
SPLIT_LINES_HD inline int popcount(uint64_t m) {
#if defined(__CUDA_ARCH__)
  return __popcll(m);
#else
  return __builtin_popcountll(m);
#endif
}

// The position of the n-th set bit of m (n from 0; m has more than n; 32 or 64 bits): a binary search on the
// popcounts of the low halves, a few dozen instructions, where a loop over the bits costs the GPU kernel about
// as many as its copy takes to issue.
template <class Mask>
SPLIT_LINES_HD inline int nth_set_bit(Mask m, int n) {
  int pos = 0;
  for (int width = int(sizeof(Mask)) * 4; width > 0; width /= 2) {
    const int low = popcount(Mask(m & ((Mask(1) << width) - 1u)));
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

// The word of its group (0..4095) thread t stores at step s, its period word being p (period_word).
SPLIT_LINES_HD inline int store_slot(int step, int thread, int p) {
  return (4 * step + thread / 64) * kPeriodWords + p;
}

// Where thread t of block b stores at step s, and the input word it loaded there.
SPLIT_LINES_HD inline uint32_t store_word(uint32_t first_halves, bool scattered, uint32_t distance, uint32_t b,
                                         int thread, int step) {
  const int slot = store_slot(step, thread, period_word(first_halves, role_of(b, distance), thread));
  return output_word(scattered, group_of(b, distance), slot);
}
SPLIT_LINES_HD inline uint32_t load_word(uint32_t b, int thread, int step) {
  return b * kBlockWords + uint32_t(step * kThreads + thread);
}

// The variant with 2-byte lanes: the same copy of 256 MiB, now of 2-byte elements (2^27), in blocks of 256
// threads that each load 8 elements in order (a warp load: 64 bytes of one line) and store them as a pattern
// says. A block moves 4 KiB (2048 elements), so a pair shares a group of 64 output lines (4096 elements), each
// block storing half of its bytes; 2^16 blocks. A pattern says, for each quarter sector (8 bytes, 4 elements)
// of each line of a 4-line period (16 quarters a line, 64 in the period), which block writes it: a sector cut
// 8/24 (one block writes one quarter, the other three) is what an f16 tile row ending 8 or 24 bytes into a
// sector leaves, one cut 16/16 is the 4-byte variant's split with 2-byte lanes.
namespace lanes2 {

constexpr int kElemBytes = 2;
constexpr int kBlockElems = kThreads * kSteps;  // 2048 elements a block loads and stores
constexpr int kLineElems = 64, kGroupLines = 64, kGroupElems = kGroupLines * kLineElems;
constexpr int kPeriodLines = 4, kPeriodElems = kPeriodLines * kLineElems;
constexpr int kQuarterElems = 4, kLineQuarters = kLineElems / kQuarterElems;  // 16 quarters a line
// 32-bit arithmetic throughout: 2^27 elements, 2^16 blocks.
constexpr uint32_t kElems = uint32_t(128) << 20;  // 256 MiB a side
constexpr uint32_t kGroups = kElems / kGroupElems, kBlocks = 2 * kGroups;
static_assert(2 * kBlockElems == kGroupElems, "a pair's two blocks store its group's elements");
static_assert(uint64_t(kElems) * kElemBytes == uint64_t(kWords) * 4, "the same bytes as the 4-byte variant");

// Bit 16 l + q: quarter q (0..15) of line l (0..3) of the period is the first block's; the second block writes
// the rest. Each hex digit of the mask is one sector (the lowest digit sector 0 of line 0; within a digit the
// low bit the sector's first 8 bytes): f the first block's whole sector, 0 the second's, 3 (c) a 16/16 split,
// 1 and 7 (e and 8) 8/24 splits with the first block's piece at the sector's start (end), the cut where a
// tile row ending 8 or 24 bytes into it leaves it. Every pattern gives each block 32 of the 64 quarters.
struct Pattern {
  const char* name;
  uint64_t first_quarters;
};

// A warp stores 8 of its block's quarters (64 bytes) in address order: with 8 a line a warp's stores stay in
// one line; the comments say how many lines a warp reaches where it is more.
constexpr Pattern kPatterns[] = {
    // Lines 0, 1 the first block's, 2, 3 the second's.
    {"whole lines", 0x00000000ffffffffull},
    // Sectors 0, 2 of every line the first's, 1, 3 the second's (the 4-byte 0x33333333).
    {"shared lines, whole sectors", 0x0f0f0f0f0f0f0f0full},
    // Every sector split 8/24; the first block has 8 bytes of sectors 0 and 2, 24 of 1 and 3 (8 quarters a
    // line each).
    {"4 split a line, 8/24", 0x7171717171717171ull},
    // Every sector split 16/16, the first block the low halves: the 4-byte 0x55555555 with 2-byte lanes.
    {"4 split a line, 16/16", 0x3333333333333333ull},
    // Sectors 0 (8 bytes the first's) and 1 (24) split, 2 the first's, 3 the second's (the 4-byte 0x35353535).
    {"2 split a line, 8/24", 0x0f710f710f710f71ull},
    // Sector 0 split, the other three whole: lines 0, 2 the first 24 bytes of sector 0 and sector 1 (7
    // quarters), lines 1, 3 the first 8 bytes and sectors 2, 3 (9); the 4-byte 0xf10df10d. Half the warps
    // reach 2 lines.
    {"1 split a line, 8/24", 0xff0100f7ff0100f7ull},
    // Lines 0, 2 as "1 split a line, 8/24", lines 1, 3 as "shared lines, whole sectors": half a split sector a
    // line, on half the lines (the 4-byte 0x33f1330d). Half the warps reach 2 lines.
    {"1 split every other line, 8/24", 0x0f0fff010f0f00f7ull},
    // Line 0 as "4 split a line, 8/24", lines 1-3 shared, whole sectors: one split sector a line on average,
    // all on a quarter of the lines (the 4-byte 0x33333355).
    {"4 split one line in four, 8/24", 0x0f0f0f0f0f0f7171ull},
    // Sector 0 split 8/24 (8 bytes the first's on lines 0, 2, 24 on lines 1, 3), sector 1 split 16/16, sector
    // 2 the first's, 3 the second's (7 and 9 quarters a line). Half the warps reach 2 lines.
    {"2 split a line, 16/16 and 8/24", 0x0f370f310f370f31ull},
};
constexpr int kPatternCount = int(sizeof(kPatterns) / sizeof(kPatterns[0]));

constexpr bool quarters_balanced() {
  for (const Pattern& p : kPatterns)
    if (bits_set(p.first_quarters) != 32) return false;
  return true;
}
static_assert(quarters_balanced(), "every 2-byte-lane pattern gives each block 32 of the 64 quarter sectors");
// A split sector's pieces are one at its start and one at its end, as a tile row's end cuts it: each hex digit
// is 0, f, or one of 1, 3, 7 (the first block's piece first) or 8, c, e (last).
constexpr bool cuts_contiguous() {
  for (const Pattern& p : kPatterns)
    for (int k = 0; k < 16; ++k) {
      const uint64_t d = p.first_quarters >> (4 * k) & 0xf;
      if (d != 0x0 && d != 0xf && d != 0x1 && d != 0x3 && d != 0x7 && d != 0x8 && d != 0xc && d != 0xe) return false;
    }
  return true;
}
static_assert(cuts_contiguous(), "every split sector is cut once, 8/24 or 16/16");

// The element of its group's period a thread stores at every step: thread t takes its block's (t mod 128)-th
// element of the period in address order (a warp: 32 consecutive ones, 8 quarters), and step s the period
// 2 s + t / 128.
SPLIT_LINES_HD inline int period_elem(uint64_t first_quarters, int role, int thread) {
  const uint64_t mine = role == 0 ? first_quarters : ~first_quarters;
  const int r = thread % 128, bit = nth_set_bit(mine, r / kQuarterElems);
  return bit / kLineQuarters * kLineElems + bit % kLineQuarters * kQuarterElems + r % kQuarterElems;
}

// The output element of group g's element `slot` (0..4095): linear puts the group's 64 lines one after another;
// scattered puts line l of every group in region l (4 MiB apart from one line of the group to the next).
SPLIT_LINES_HD inline uint32_t output_elem(bool scattered, uint32_t g, int slot) {
  const uint32_t line = uint32_t(slot) / kLineElems, elem = uint32_t(slot) % kLineElems;
  return (scattered ? line * kGroups + g : g * kGroupLines + line) * kLineElems + elem;
}

// The element of its group (0..4095) thread t stores at step s, its period element being p (period_elem).
SPLIT_LINES_HD inline int store_slot(int step, int thread, int p) {
  return (2 * step + thread / 128) * kPeriodElems + p;
}

// Where thread t of block b stores at step s, and the input element it loaded there.
SPLIT_LINES_HD inline uint32_t store_elem(uint64_t first_quarters, bool scattered, uint32_t distance, uint32_t b,
                                         int thread, int step) {
  const int slot = store_slot(step, thread, period_elem(first_quarters, role_of(b, distance), thread));
  return output_elem(scattered, group_of(b, distance), slot);
}
SPLIT_LINES_HD inline uint32_t load_elem(uint32_t b, int thread, int step) {
  return b * kBlockElems + uint32_t(step * kThreads + thread);
}

}  // namespace lanes2

}  // namespace split_lines
