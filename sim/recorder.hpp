#pragma once
// The replay's memory policy: a kernel body run for one lane at a time calls these instead of touching
// memory. Each call lands in the warp access of its (site, occurrence), occurrence = how many times this
// lane has reached the site, so the lanes of one warp instruction meet in one record.
#include <vector>

#include "kernels/launch_shape.hpp"
#include "sim/tally.hpp"
#include "sim/warp_access.hpp"

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

template <class T>
class Recorder {
 public:
  using Elem = T;

  Recorder(const BufferLayout& layout, int num_sites, Tally& tally)
      : layout_(layout), tally_(tally), slots_(num_sites), used_(num_sites, 0), occurrence_(num_sites, 0) {}

  void start_lane(int lane, const ThreadCoord& t) {
    lane_ = lane;
    thread_ = t;
    std::fill(occurrence_.begin(), occurrence_.end(), 0);
  }

  template <class V>
  V load_global(int site, bool pred, int64_t off) {
    note_global(site, Op::Load, pred, off, sizeof(V), layout_.in_base, layout_.in_elems);
    return V{};
  }
  template <class V>
  void store_global(int site, bool pred, int64_t off, const V&) {
    note_global(site, Op::Store, pred, off, sizeof(V), layout_.out_base, layout_.out_elems);
  }
  template <class V>
  V load_shared(int site, bool pred, int off) {
    note_shared(site, Op::Load, pred, off, sizeof(V));
    return V{};
  }
  template <class V>
  void store_shared(int site, bool pred, int off, const V&) {
    note_shared(site, Op::Store, pred, off, sizeof(V));
  }
  void sync() {}

  // Hands every warp access of the warp just replayed to `f` (site by site, in occurrence order) and
  // empties the records for the next warp.
  template <class F>
  void flush(F&& f) {
    for (size_t site = 0; site < slots_.size(); ++site) {
      for (int o = 0; o < used_[site]; ++o) {
        WarpAccess& w = slots_[site][o];
        if (w.mask) f(static_cast<const WarpAccess&>(w));
        w.mask = 0;
      }
      used_[site] = 0;
    }
  }

 private:
  WarpAccess& slot(int site, Space space, Op op, int width) {
    const int o = occurrence_[site]++;
    std::vector<WarpAccess>& v = slots_[site];
    if (o >= int(v.size())) v.resize(o + 1);
    if (o >= used_[site]) used_[site] = o + 1;
    WarpAccess& w = v[o];
    w.space = space;
    w.op = op;
    w.width = uint8_t(width);
    w.site = site;
    return w;
  }

  void note_global(int site, Op op, bool pred, int64_t off, int width, uint64_t base, int64_t elems) {
    WarpAccess& w = slot(site, Space::Global, op, width);
    if (!pred) return;
    const uint64_t addr = base + uint64_t(off) * sizeof(T);
    check(site, off, width, addr, elems);
    w.addr[lane_] = addr;
    w.mask |= 1u << lane_;
  }

  void note_shared(int site, Op op, bool pred, int off, int width) {
    WarpAccess& w = slot(site, Space::Shared, op, width);
    if (!pred) return;
    const uint64_t addr = uint64_t(int64_t(off) * int64_t(sizeof(T)));
    check(site, off, width, addr, layout_.shared_elems);
    w.addr[lane_] = addr;
    w.mask |= 1u << lane_;
  }

  // A misaligned vector access faults on the GPU and an out-of-bounds one corrupts memory: report both
  // (they are still counted, as the instruction would be issued).
  void check(int site, int64_t off, int width, uint64_t addr, int64_t elems) {
    if (addr % uint64_t(width) != 0) tally_.note_finding(FindingKind::Misaligned, site, thread_, off, width);
    if (off < 0 || off + width / int64_t(sizeof(T)) > elems)
      tally_.note_finding(FindingKind::OutOfBounds, site, thread_, off, width);
  }

  BufferLayout layout_;
  Tally& tally_;
  std::vector<std::vector<WarpAccess>> slots_;
  std::vector<int> used_;
  std::vector<int> occurrence_;
  int lane_ = 0;
  ThreadCoord thread_{};
};

}  // namespace memsim
