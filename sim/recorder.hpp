#pragma once
// The replay's memory policy: a kernel body run for one lane at a time calls these instead of touching
// memory. Each call lands in the warp access of its (site, occurrence), occurrence = how many times this
// lane has reached the site, so the lanes of one warp instruction meet in one record.
#include <algorithm>
#include <stdexcept>
#include <vector>

#include "kernels/launch_shape.hpp"
#include "sim/tally.hpp"
#include "sim/warp_access.hpp"

// The replay runs every lane of every warp through these calls: they must inline into the kernel body.
#define MEMSIM_REPLAY_INLINE inline __attribute__((always_inline))

namespace memsim {

// Where the replay puts the matrices. Bases are assumed (a real run's addresses differ); they are aligned far
// beyond a sector, so counts do not depend on them; partition mappings on modern GPUs see them only as
// assumed physical addresses.
struct BufferLayout {
  uint64_t in_base = 0;
  uint64_t out_base = 0;
  int64_t in_elems = 0;
  int64_t out_elems = 0;
  int64_t shared_elems = 0;
  int elem_bytes = 4;
};

// The access interface (kernels/access.hpp) for a recording policy: each call becomes
// Derived::note<width>(site, space, op, pred, element offset, buffer base, buffer elements), with the buffers
// of `layout`; pred and offset are one lane's (bool, integer) or a warp's (sim/lanes.hpp). Both replay
// recorders share it, so they cannot disagree on where a buffer lies.
template <class Derived>
class RecordingAccess {
 public:
  explicit RecordingAccess(const BufferLayout& layout) : layout_(layout) {}

  template <class V, class Pred, class Off>
  MEMSIM_REPLAY_INLINE V load_global(int site, const Pred& pred, const Off& off) {
    self().template note<sizeof(V)>(site, Space::Global, Op::Load, pred, off, layout_.in_base, layout_.in_elems);
    return V{};
  }
  template <class V, class Pred, class Off>
  MEMSIM_REPLAY_INLINE void store_global(int site, const Pred& pred, const Off& off, const V&) {
    self().template note<sizeof(V)>(site, Space::Global, Op::Store, pred, off, layout_.out_base, layout_.out_elems);
  }
  template <class V, class Pred, class Off>
  MEMSIM_REPLAY_INLINE V load_shared(int site, const Pred& pred, const Off& off) {
    self().template note<sizeof(V)>(site, Space::Shared, Op::Load, pred, off, 0, layout_.shared_elems);
    return V{};
  }
  template <class V, class Pred, class Off>
  MEMSIM_REPLAY_INLINE void store_shared(int site, const Pred& pred, const Off& off, const V&) {
    self().template note<sizeof(V)>(site, Space::Shared, Op::Store, pred, off, 0, layout_.shared_elems);
  }
  // A barrier: counted, so that a one-thread probe tells how many a block's threads pass (replay()).
  void sync() { ++barriers_; }
  int64_t barriers() const { return barriers_; }

 protected:
  BufferLayout layout_;
  int64_t barriers_ = 0;

 private:
  MEMSIM_REPLAY_INLINE Derived& self() { return static_cast<Derived&>(*this); }
};

template <class T>
class Recorder : public RecordingAccess<Recorder<T>> {
 public:
  using Elem = T;
  static constexpr int kMaxSites = 32;
  friend class RecordingAccess<Recorder<T>>;

  Recorder(const BufferLayout& layout, int num_sites, Tally& tally)
      : RecordingAccess<Recorder<T>>(layout), tally_(tally), num_sites_(num_sites), capacity_(8), slots_(size_t(num_sites) * 8) {
    if (num_sites > kMaxSites) throw std::length_error("a kernel has at most 32 access sites");
    std::fill(used_, used_ + kMaxSites, 0);
    std::fill(occurrence_, occurrence_ + kMaxSites, 0);
  }

  void start_lane(int lane, const ThreadCoord& t) {
    lane_bit_ = 1u << lane;
    lane_ = lane;
    thread_ = t;
    // How far the previous lane got at each site; the warp's records reach the furthest lane's count.
    for (int site = 0; site < num_sites_; ++site) {
      used_[site] = std::max(used_[site], occurrence_[site]);
      occurrence_[site] = 0;
    }
  }


  // Hands every warp access of the warp just replayed to `f` (site by site, in occurrence order) and
  // empties the records for the next warp.
  template <class F>
  void flush(F&& f) {
    for (int site = 0; site < num_sites_; ++site) {
      // Occurrences past the table's capacity were never recorded (every lane was predicated off there).
      const int used = std::min(capacity_, std::max(used_[site], occurrence_[site]));
      WarpAccess* row = &slots_[size_t(site) * capacity_];
      for (int o = 0; o < used; ++o) {
        WarpAccess& w = row[o];
        if (w.mask) {
          // A site is one load or store of the source: its space, op and width never change.
          w.space = site_space_[site];
          w.op = site_op_[site];
          w.width = site_width_[site];
          w.site = site;
          f(static_cast<const WarpAccess&>(w));
        }
        w.mask = 0;
      }
      used_[site] = 0;
      occurrence_[site] = 0;
    }
  }

 private:
  template <int Width>
  MEMSIM_REPLAY_INLINE void note(int site, Space space, Op op, bool pred, int64_t off, uint64_t base, int64_t elems) {
    site_space_[site] = space;
    site_op_[site] = op;
    site_width_[site] = uint8_t(Width);
    const int o = occurrence_[site]++;
    if (!pred) return;
    if (o >= capacity_) grow(o + 1);
    const uint64_t addr = base + uint64_t(off) * sizeof(T);
    // A misaligned vector access faults on the GPU and an out-of-bounds one corrupts memory: report both
    // (they are still counted, as the instruction would be issued).
    if ((addr & (Width - 1)) != 0 || off < 0 || off + int64_t(Width / sizeof(T)) > elems)
      slow_check(site, off, addr, elems, Width);
    WarpAccess& w = slots_[size_t(site) * capacity_ + o];
    w.addr[lane_] = addr;
    w.mask |= lane_bit_;
  }

  void slow_check(int site, int64_t off, uint64_t addr, int64_t elems, int width) {
    if (addr % uint64_t(width) != 0) tally_.note_finding(FindingKind::Misaligned, site, thread_, off, width);
    if (off < 0 || off + width / int64_t(sizeof(T)) > elems)
      tally_.note_finding(FindingKind::OutOfBounds, site, thread_, off, width);
  }

  // Kernels whose loops run long keep more occurrences per site: re-lay the table (rare, between lanes).
  void grow(int needed) {
    int cap = capacity_;
    while (cap < needed) cap *= 2;
    std::vector<WarpAccess> bigger(size_t(num_sites_) * cap);
    for (int site = 0; site < num_sites_; ++site)
      for (int o = 0; o < capacity_; ++o) bigger[size_t(site) * cap + o] = slots_[size_t(site) * capacity_ + o];
    slots_.swap(bigger);
    capacity_ = cap;
  }

  Tally& tally_;
  int num_sites_;
  int capacity_;  // occurrences per site the table holds
  std::vector<WarpAccess> slots_;
  int used_[kMaxSites];        // occurrences reached by the warp's earlier lanes
  int occurrence_[kMaxSites];  // occurrences reached by the current lane
  Space site_space_[kMaxSites] = {};
  Op site_op_[kMaxSites] = {};
  uint8_t site_width_[kMaxSites] = {};
  uint32_t lane_bit_ = 1;
  int lane_ = 0;
  ThreadCoord thread_{};
};

}  // namespace memsim
