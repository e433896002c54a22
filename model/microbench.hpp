#pragma once
// Reads the JSON memsim-microbench prints (validate/microbench): its device block, its calibration runs as
// (counts, measured time) pairs, and its hold-out records (the suite's kernels, never fitted).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/counts.hpp"

namespace memsim {

struct Measurement {
  std::string bench;      // "copy", "strided_store", ...
  nlohmann::json params;  // as the microbenchmark wrote them
  KernelCounts counts;
  double time_us = 0;     // median
};

struct HoldoutRecord {
  std::string kernel, matrix, dtype, block;
  int regs_per_thread = 0;
  double time_us = 0;
};

struct MicrobenchRun {
  nlohmann::json device;  // cudaGetDeviceProperties and friends, as measured
  std::string date;
  std::vector<Measurement> runs;
  std::vector<HoldoutRecord> holdout;
};

// Throws ProfileError (model/profile.hpp) naming the file and the record for anything malformed.
MicrobenchRun read_microbench(const nlohmann::json& doc, const std::string& where);
MicrobenchRun read_microbench_file(const std::string& path);

// The microbenchmark's own counts in the cost model's terms: which sectors are partial, how many
// instructions the lean kernels issue (they do little besides their memory instructions).
KernelCounts counts_from_microbench(const std::string& bench, const nlohmann::json& counts);

// The read-back of 4-byte lanes is calibrated apart: its cost per byte on memsim-partial-lines' launch-order
// pairs (model/calibration/fit_read_back.py), the per-request cost on the strided stores here, their own
// read-back included (at 4 bytes a lane their time hardly moves with the lines open at once:
// validate/results/l2_partial_lines.md). So those runs are not charged a read-back again (their lines are
// dropped); the wider lanes' read-back is fitted by memsim-calibrate, on the capped strided stores.
void leave_4_byte_read_back_out(std::vector<Measurement>& runs);

}  // namespace memsim
