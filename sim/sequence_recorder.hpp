#pragma once
// The replay's fast path. Kernel bodies predicate every access instead of branching around it, so every lane
// of a warp makes the same sequence of access calls: the k-th call of each lane belongs to the same warp
// instruction. This recorder files lane accesses by that call index k (no per-site occurrence bookkeeping).
// It checks its assumption as it goes: a lane whose sequence differs from the warp's first lane (another
// site at call k, more or fewer calls), or an access that needs a finding, marks the warp irregular and the
// caller replays that warp again with the grouping Recorder (sim/recorder.hpp), whose (site, occurrence)
// rule is the definition. Both give the same records for regular warps.
#include <algorithm>
#include <vector>

#include "kernels/launch_shape.hpp"
#include "sim/recorder.hpp"
#include "sim/warp_access.hpp"

namespace memsim {

template <class T>
class SequenceRecorder : public RecordingAccess<SequenceRecorder<T>> {
 public:
  using Elem = T;
  friend class RecordingAccess<SequenceRecorder<T>>;

  explicit SequenceRecorder(const BufferLayout& layout)
      : RecordingAccess<SequenceRecorder<T>>(layout), records_(16) {}

  void start_warp() {
    calls_in_first_lane_ = -1;
    irregular_ = false;
  }
  void start_lane(int lane) {
    lane_ = lane;
    lane_bit_ = 1u << lane;
    call_ = 0;
    first_lane_ = calls_in_first_lane_ < 0;
  }
  void end_lane() {
    if (first_lane_)
      calls_in_first_lane_ = call_;
    else if (call_ != calls_in_first_lane_)
      irregular_ = true;
  }


  // Hands the warp's accesses to `f` in program order and empties the records. Returns false, handing over
  // nothing, when the warp was irregular: the caller must replay it with the grouping Recorder.
  template <class F>
  bool flush(F&& f) {
    const int calls = std::max(calls_in_first_lane_, 0);
    if (irregular_) {
      for (int k = 0; k < calls; ++k) records_[k].mask = 0;
      return false;
    }
    for (int k = 0; k < calls; ++k) {
      WarpAccess& w = records_[k];
      if (w.mask) f(static_cast<const WarpAccess&>(w));
      w.mask = 0;
    }
    return true;
  }

 private:
  template <int Width>
  MEMSIM_REPLAY_INLINE void note(int site, Space space, Op op, bool pred, int64_t off, uint64_t base, int64_t elems) {
    const int k = call_++;
    if (first_lane_) {
      if (k >= int(records_.size())) records_.resize(records_.size() * 2);
      WarpAccess& w = records_[k];
      w.site = site;
      w.space = space;
      w.op = op;
      w.width = uint8_t(Width);
    } else if (k >= calls_in_first_lane_ || records_[k].site != site) {
      irregular_ = true;
      return;
    }
    if (!pred) return;
    const uint64_t addr = base + uint64_t(off) * sizeof(T);
    // Accesses that need a finding are left to the grouping Recorder, which reports them.
    if ((addr & (Width - 1)) != 0 || off < 0 || off + int64_t(Width / sizeof(T)) > elems) {
      irregular_ = true;
      return;
    }
    WarpAccess& w = records_[k];
    w.addr[lane_] = addr;
    w.mask |= lane_bit_;
  }

  std::vector<WarpAccess> records_;
  int calls_in_first_lane_ = -1;
  int call_ = 0;
  int lane_ = 0;
  uint32_t lane_bit_ = 1;
  bool first_lane_ = true;
  bool irregular_ = false;
};

}  // namespace memsim
