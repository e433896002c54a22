#pragma once
// Global-memory coalescing of compute capability 1.x (G80, GT200: the whitepaper's GPUs), after the CUDA C
// Programming Guide 2.x/3.x appendix ("Global Memory", compute capabilities 1.0/1.1 and 1.2/1.3) and the CUDA
// C Best Practices Guide 3.x. A warp's access is served per half-warp (lanes 0-15, then 16-31); each
// half-warp gets its own memory transactions, which move aligned 32-, 64- or 128-byte segments.
//
//  CC 1.2/1.3 (GT200): repeat until every active lane is served: take the segment holding the lowest-numbered
//    pending lane's address (32 B for 1-byte words, 64 B for 2-byte, 128 B for 4-, 8- and 16-byte words); it
//    serves every pending lane whose address lies in it; if only its lower or upper half is used, halve it
//    (128 -> 64), and again (64 -> 32); issue it.
//  CC 1.0/1.1 (G80): one transaction for the half-warp only if it accesses 4-, 8- or 16-byte words and every
//    active lane k (k = lane mod 16) accesses word k of one segment aligned to 16 words: 64 B for 4-byte
//    words, 128 B for 8-byte, two 128-byte transactions for 16-byte; inactive lanes do not break it. Else one
//    transaction per active lane, the 32-byte segment holding its word (32 B is the smallest transaction).
//    1- and 2-byte words never coalesce on 1.0/1.1.
//
// A misaligned vector access faults on the GPU (the replay reports it as a finding); here it belongs to the
// segment of its first byte, and its bytes past that segment are not counted.
#include <cstdint>

#include "sim/warp_access.hpp"

namespace memsim {

constexpr int kHalfWarp = 16;
constexpr int kMaxCc1xTransactions = 2 * kWarpSize;  // one per lane at most (two per lane: room to spare)

struct Transaction {
  uint64_t addr = 0;  // aligned to its size
  int bytes = 0;      // 32, 64, 128 (or 32 x k for a misaligned per-lane transaction on 1.0/1.1)
};

struct Cc1xCost {
  int transactions = 0;
  int64_t bytes = 0;  // bytes the transactions move
  int half_warps = 0;  // half-warps with an active lane (each one memory request on CC 1.x)
};

// Segment size of CC 1.2/1.3 for a word size (bytes).
int cc12_segment_bytes(int word_bytes);

// The transactions of one warp access, half-warp 0's first. `out` (room for kMaxCc1xTransactions) receives
// them when given.
Cc1xCost coalesce_cc12(const WarpAccess& w, Transaction* out = nullptr);
Cc1xCost coalesce_cc10(const WarpAccess& w, Transaction* out = nullptr);

// Writes the sector indices (address / sector_bytes) each transaction moves, transaction by transaction (a
// sector two transactions move appears twice: it crosses the bus twice); returns how many. `out` needs room
// for the total bytes / sector_bytes (at most kMaxCc1xTransactions x 256 / sector_bytes).
int transaction_sectors(const Transaction* tx, int count, int sector_bytes, uint64_t* out);

}  // namespace memsim
