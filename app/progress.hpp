#pragma once
// A progress line for work that takes a while (a replay of every block, a sweep over the suite), on stderr and
// only when stderr is a terminal: nothing reaches stdout, so JSON and CSV stay clean, and a pipe or a log file
// sees no carriage returns. Work done within about a second prints nothing at all.
#include <chrono>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>

namespace memsim {

class Progress {
 public:
  // `out` is written to only when `enabled` (the caller's isatty check); `quiet_for` is how long work runs
  // before the first line appears.
  Progress(std::ostream& out, bool enabled, std::chrono::milliseconds quiet_for = std::chrono::seconds(1));
  ~Progress();  // clears the line
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  bool enabled() const { return enabled_; }
  // What is being done ("replaying padded 65536x65536 f32"), and how far: `done` of `total` units (blocks).
  // Thread-safe; throttled to a few lines a second; a call while another thread writes is dropped.
  void update(const std::string& stage, int64_t done, int64_t total, const char* units = "blocks");
  void clear();

 private:
  std::ostream& out_;
  bool enabled_;
  std::chrono::steady_clock::time_point start_, last_;
  std::chrono::milliseconds quiet_for_;
  std::mutex mutex_;
  std::string stage_;
  std::chrono::steady_clock::time_point stage_start_;
  bool shown_ = false;
};

}  // namespace memsim
