#include "app/progress.hpp"

#include <cstdio>

#include "report/report.hpp"

namespace memsim {

Progress::Progress(std::ostream& out, bool enabled, std::chrono::milliseconds quiet_for)
    : out_(out), enabled_(enabled), start_(std::chrono::steady_clock::now()), last_(start_), quiet_for_(quiet_for),
      stage_start_(start_) {}

Progress::~Progress() { clear(); }

void Progress::update(const std::string& stage, int64_t done, int64_t total, const char* units) {
  if (!enabled_) return;
  const std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock()) return;
  const auto now = std::chrono::steady_clock::now();
  if (stage != stage_) {
    stage_ = stage;
    stage_start_ = now;
  }
  if (now - start_ < quiet_for_ || (shown_ && now - last_ < std::chrono::milliseconds(250))) return;
  last_ = now;
  shown_ = true;
  std::string line = "memsim: " + stage;
  if (total > 0) {
    char pct[16];
    std::snprintf(pct, sizeof pct, "%.0f%%", 100.0 * double(done) / double(total));
    line += ": " + std::string(pct) + " (" + grouped(done) + " of " + grouped(total) + " " + units + ")";
    // The stage's own rate so far: a fair guess once it has run a moment.
    const double spent = std::chrono::duration<double>(now - stage_start_).count();
    const double left = done > 0 ? spent * double(total - done) / double(done) : 0;
    if (spent > 0.5 && left >= 1) {
      char text[48];
      std::snprintf(text, sizeof text, ", about %.0f s left", left);
      line += text;
    }
  }
  out_ << "\r\033[K" << line << std::flush;  // back to the start of the line, erase it, write the new one
}

void Progress::clear() {
  if (!enabled_) return;
  const std::lock_guard<std::mutex> lock(mutex_);
  if (shown_) out_ << "\r\033[K" << std::flush;
  shown_ = false;
}

}  // namespace memsim
