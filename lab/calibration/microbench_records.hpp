#pragma once
// Reads the JSON memsim-microbench prints (lab/calibration): its device block, its calibration runs as
// (counts, measured time) pairs, and its hold-out records (the suite's kernels, never fitted); and the timed
// records of a memsim-validate result document, for memsim-calibrate --holdout-validate.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/resolve.hpp"
#include "core/kernel_counts.hpp"
#include "model/profile.hpp"

namespace memsim {

struct Measurement {
  std::string bench;      // "copy", "strided_store", ...
  nlohmann::json params;  // as the microbenchmark wrote them
  KernelCounts counts;
  double time_us = 0;     // median
  std::string where;      // "FILE: runs[i] (bench)", for messages about this run
};

struct HoldoutRecord {
  std::string kernel, matrix, dtype, block;
  int regs_per_thread = 0;
  double time_us = 0;
  std::string where;  // "FILE: holdout[i] (kernel)", for messages about this record
};

struct MicrobenchRun {
  nlohmann::json device;  // cudaGetDeviceProperties and friends, as measured
  std::string date;
  std::vector<Measurement> runs;
  std::vector<HoldoutRecord> holdout;
};

// One configuration a memsim-validate result document measured (records[i].config and
// records[i].measured.time_us.median): what memsim-calibrate --holdout-validate replays.
struct SuiteRecord {
  UserConfig config;
  double time_us = 0;  // median
  std::string where;   // "FILE: records[i] (id)", for messages about this record
};

// The timed records of a memsim-validate result document; a record whose measured.time_us is null (not
// timed) is left out. Throws ProfileError naming the file, the record and the field for anything malformed
// (the launch itself is checked by resolve_launch, against the device).
std::vector<SuiteRecord> read_suite_records(const nlohmann::json& doc, const std::string& where);
std::vector<SuiteRecord> read_suite_file(const std::string& path);

// Throws ProfileError (model/profile.hpp) naming the file, the record and the field for anything malformed:
// every field read must be present (or optional and absent), of its type, finite and in its range, so that
// nothing the cost model or the fit reads can turn into a NaN or a silently wrong constant. The device
// block's fields that memsim-calibrate takes into a profile are checked here too (device.sm_count, ...).
MicrobenchRun read_microbench(const nlohmann::json& doc, const std::string& where);
MicrobenchRun read_microbench_file(const std::string& path);

// The microbenchmark's own counts in the cost model's terms: which sectors are partial, how many
// instructions the lean kernels issue (they do little besides their memory instructions). `where` opens
// every error message (empty: "microbenchmark 'BENCH' counts").
KernelCounts counts_from_microbench(const std::string& bench, const nlohmann::json& counts,
                                    const std::string& where = "");

// The read-back of 4-byte lanes is calibrated apart: its cost per byte on memsim-partial-lines' launch-order
// pairs (lab/calibration/fit_read_back.py), the per-request cost on the strided stores here, their own
// read-back included (at 4 bytes a lane their time hardly moves with the lines open at once:
// validate/results/l2_partial_lines.md). So those runs are not charged a read-back again (their lines are
// dropped); the wider lanes' read-back is fitted by memsim-calibrate, on the capped strided stores.
void leave_4_byte_read_back_out(std::vector<Measurement>& runs);

// memsim-microbench --split-sectors (lab/calibration/results/NAME_split_sectors.json) in a fit: the runs whose counts
// do not describe what the GPU did are left out. Those whose sectors' halves come from two blocks (params.mode
// "split") without the count of such sectors (runs before 2026-11-26), or from blocks further apart than the
// blocks resident at once (SMs x the run's occupancy on `prof`: the first half waits in the L2 while a wave of blocks passes, and
// the L2 reads part of it back from DRAM, which the counts do not see: 1.3-2.2 times the time of the nearer
// ones). And the narrow stores in the linear layout, whose requests the L2 merges (ncu: 2.76M, 7.17M and 6.51M
// write requests where the counts, one a store, have 4.19M, 8.39M and 8.39M). Returns the runs left out, as
// "WHERE: why".
std::vector<std::string> leave_split_sectors_out(std::vector<Measurement>& runs, const DeviceProfile& prof);

}  // namespace memsim
