#pragma once
// How byte addresses map to DRAM partitions (channels): a swappable, self-testable policy, as in gpgpu-sim's
// addrdec. Device profiles (model/devices/*.json, key "dram.partitions") fill this record; sim/partitions
// evaluates it.
#include <string>
#include <vector>

namespace memsim {

struct PartitionSpec {
  enum class Policy { Linear, XorHash };
  Policy policy = Policy::Linear;
  int count = 8;                 // partitions (GT200: 8, G80: 6)
  int granularity_bytes = 256;   // consecutive chunks of this size go to consecutive partitions
  std::vector<int> xor_bits;     // XorHash: higher address bits folded into the partition index
  bool assumed = false;          // the real mapping is not public (Fermi and later): this is a stand-in
  std::string note;              // where the mapping comes from, printed with results
};

}  // namespace memsim
