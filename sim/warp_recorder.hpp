#pragma once
// The replay's fast path: the kernel body runs once per warp, with the 32 lanes' thread coordinates as
// Lanes<int> (sim/lanes.hpp), so each access call the body makes is one warp instruction, carrying every
// lane's predicate and offset at once. Nothing needs grouping: the k-th call is the warp's k-th memory
// instruction, as the GPU issues it.
// An access that needs a finding (a misaligned or out-of-bounds lane) marks the warp irregular, and the
// caller replays that warp lane by lane with the grouping Recorder (sim/recorder.hpp), which reports the
// finding with its site and first offending thread.
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/launch_shape.hpp"
#include "sim/lanes.hpp"
#include "sim/recorder.hpp"
#include "sim/warp_access.hpp"

namespace memsim {

using WarpCoord = BasicThreadCoord<Lanes<int>>;
template <class T>
class WarpRecorder;

// Whether K's body is written generically over its thread coordinates (as the suite's are), so that it runs
// once per warp on Lanes; a body written for one ThreadCoord is replayed lane by lane.
template <class K, class T, class = void>
struct body_takes_warp : std::false_type {};
template <class K, class T>
struct body_takes_warp<K, T,
                       std::void_t<decltype(K::body(std::declval<WarpRecorder<T>&>(), std::declval<const LaunchShape&>(),
                                                    std::declval<const WarpCoord&>()))>> : std::true_type {};
template <class K, class T>
inline constexpr bool runs_per_warp = body_takes_warp<K, T>::value;

template <class T>
class WarpRecorder : public RecordingAccess<WarpRecorder<T>> {
 public:
  using Elem = T;
  friend class RecordingAccess<WarpRecorder<T>>;

  explicit WarpRecorder(const BufferLayout& layout) : RecordingAccess<WarpRecorder<T>>(layout), records_(16) {}

  // active: the lanes the warp has (a block's last warp may be partial).
  void start_warp(uint32_t active) {
    active_ = active;
    calls_ = 0;
    irregular_ = false;
  }

  // Hands the warp's accesses to `f` in program order and empties the records. Returns false, handing over
  // nothing, when an access needs a finding: the caller must replay the warp with the grouping Recorder.
  template <class F>
  bool flush(F&& f) {
    if (irregular_) return false;
    for (int k = 0; k < calls_; ++k)
      if (records_[k].mask) f(static_cast<const WarpAccess&>(records_[k]));
    return true;
  }

 private:
  template <int Width, class Pred, class Off>
  MEMSIM_REPLAY_INLINE void note(int site, Space space, Op op, const Pred& pred, const Off& off, uint64_t base,
                                 int64_t elems) {
    ++lane_operations;  // the memory instruction itself
    if (calls_ == int(records_.size())) records_.resize(records_.size() * 2);
    WarpAccess& w = records_[calls_++];
    w.site = site;
    w.space = space;
    w.op = op;
    w.width = uint8_t(Width);
    w.mask = lane_mask(pred) & active_;
    if (!w.mask) return;
    // Lane-wise in 64 bits, one pass the compiler vectorizes: addresses, and an OR over the masked lanes of
    // "out of bounds" (an unsigned compare also catches negative offsets) and, for vector accesses (the
    // only ones that can be), "misaligned".
    constexpr int64_t kElemsPerLane = Width / int64_t(sizeof(T));
    // The largest offset whose access stays inside (a buffer smaller than one lane's access has none).
    const uint64_t last_ok = uint64_t(elems - kElemsPerLane);
    uint64_t bad = elems < kElemsPerLane;
    for (int i = 0; i < kWarpSize; ++i) {
      const uint64_t o = uint64_t(int64_t(lane_of(off, i)));
      const uint64_t addr = base + o * sizeof(T);
      w.addr[i] = addr;
      const uint64_t selected = uint64_t(0) - uint64_t((w.mask >> i) & 1u);
      uint64_t wrong = uint64_t(o > last_ok);
      if constexpr (Width > int(sizeof(T))) wrong |= addr & uint64_t(Width - 1);
      bad |= selected & wrong;
    }
    if (bad) irregular_ = true;
  }

  std::vector<WarpAccess> records_;
  uint32_t active_ = ~0u;
  int calls_ = 0;
  bool irregular_ = false;
};

}  // namespace memsim
