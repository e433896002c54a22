// Findings (docs/hardware.md, "Alignment and bounds"): misaligned vector accesses and out-of-bounds accesses are
// reported per site with the first offending thread in launch order, and still counted. A test-only kernel, shaped like
// the suite's (kSites, info(), templated body), is driven through Recorder + Tally with a loop written here.
#include <gtest/gtest.h>

#include <string>

#include "kernels/access.hpp"
#include "kernels/kernel_info.hpp"
#include "kernels/launch_shape.hpp"
#include "sim/recorder.hpp"
#include "sim/tally.hpp"

namespace memsim {
namespace {

// Launch: block 4x2 (8 threads, one 8-lane warp), grid 3x2 (blocks in launch order: linear id bx + 3 by),
// 48 threads; g = global linear thread id = 8 * linear block + 4 ty + tx.
// Input 200 floats, output 190 floats, shared tile 15 floats.
struct Faulty {
  enum Site { kVecLoad, kScalarLoad, kVecStore, kSharedStore };
  static constexpr SiteInfo kSites[] = {
      {"ld in (vec4)", Space::Global, Op::Load, "vec4 in[4 g + skew]"},
      {"ld in", Space::Global, Op::Load, "in[g + 163]"},
      {"st out (vec4)", Space::Global, Op::Store, "vec4 out[4 g]"},
      {"st tile (vec2)", Space::Shared, Op::Store, "vec2 tile[2 tid + skew]"},
  };
  static KernelInfo info() {
    return {"faulty", "test only", "tests/core", Footprint::Scalar, OutputKind::Copy, kSites, num_sites_of<Faulty>()};
  }
  template <class Mem>
  static void body(Mem& m, const LaunchShape& s, const ThreadCoord& t) {
    using T = typename Mem::Elem;
    const int tid = t.thread_y * s.block_x + t.thread_x;
    const int64_t g = int64_t(t.block_x + s.grid_x * t.block_y) * (s.block_x * s.block_y) + tid;
    // Misaligned: in blocks with blockIdx.x == 1, threads (2,1) and (3,1) load 16 B one float off.
    const bool skew = t.block_x == 1 && t.thread_y == 1 && t.thread_x >= 2;
    (void)load_global<Vec<T, 4>>(m, kVecLoad, true, 4 * g + (skew ? 1 : 0));
    // Out of bounds: g + 163 >= 200 for g >= 37, but lane g = 45 is predicated off.
    (void)load_global<T>(m, kScalarLoad, g != 45, g + 163);
    // A 16-byte store whose last two floats fall past the 190-float output: only g = 47 (offset 188).
    store_global<Vec<T, 4>>(m, kVecStore, true, 4 * g, Vec<T, 4>{});
    // Shared: 8-byte stores at 2 tid, tid 3 one float off (misaligned, in bounds: 7 + 2 <= 15), tid 7 at 14
    // (aligned, 14 + 2 > 15: out of bounds).
    store_shared<Vec<T, 2>>(m, kSharedStore, true, 2 * tid + (tid == 3 ? 1 : 0), Vec<T, 2>{});
  }
};

LaunchShape faulty_shape() {
  LaunchShape s;
  s.width = 200;
  s.height = 1;
  s.block_x = 4;
  s.block_y = 2;
  s.tile_x = 4;
  s.tile_y = 2;
  s.grid_x = 3;
  s.grid_y = 2;
  return s;
}

BufferLayout faulty_layout() {
  BufferLayout l;
  l.in_base = uint64_t(1) << 32;
  l.out_base = uint64_t(1) << 33;
  l.in_elems = 200;
  l.out_elems = 190;
  l.shared_elems = 15;
  l.elem_bytes = 4;
  return l;
}

// Blocks [first, last) in launch order, every warp's lanes in order, as the GPU numbers them.
template <class K = Faulty>
void drive(Tally& tally, int64_t first, int64_t last) {
  const LaunchShape s = faulty_shape();
  Recorder<float> rec(faulty_layout(), num_sites_of<K>(), tally);
  const MemoryRules rules;
  const int threads = s.block_x * s.block_y;
  for (int64_t b = first; b < last; ++b) {
    for (int w = 0; w * 32 < threads; ++w) {
      for (int lane = 0; lane < 32 && w * 32 + lane < threads; ++lane) {
        ThreadCoord t;
        t.block_x = int(b % s.grid_x);
        t.block_y = int(b / s.grid_x);
        t.thread_x = (w * 32 + lane) % s.block_x;
        t.thread_y = (w * 32 + lane) / s.block_x;
        rec.start_lane(lane, t);
        K::body(rec, s, t);
      }
      rec.flush([&](const WarpAccess& a) { tally.add(a, b, rules); });
    }
  }
}

const Finding* find(const Tally& t, FindingKind kind, int site) {
  for (const Finding& f : t.findings)
    if (f.kind == kind && f.site == site) return &f;
  return nullptr;
}

void expect_finding(const Tally& t, FindingKind kind, int site, int64_t count, int bx, int by, int tx, int ty,
                    int64_t offset, int width) {
  const std::string what = std::string(finding_kind_name(kind)) + " at site " + std::to_string(site);
  const Finding* f = find(t, kind, site);
  ASSERT_NE(f, nullptr) << what << " not reported";
  EXPECT_EQ(f->count, count) << what;
  EXPECT_EQ(f->first.block_x, bx) << what;
  EXPECT_EQ(f->first.block_y, by) << what;
  EXPECT_EQ(f->first.thread_x, tx) << what;
  EXPECT_EQ(f->first.thread_y, ty) << what;
  EXPECT_EQ(f->first_offset, offset) << what;
  EXPECT_EQ(f->width, width) << what;
}

void expect_all_findings(const Tally& t) {
  // Exactly these five (kind, site) pairs, nothing else (e.g. no out-of-bounds at the vec4 load, which stays
  // inside the 200 floats: 4 * 47 + 4 = 192; no misaligned scalar).
  EXPECT_EQ(t.findings.size(), 5u);
  // Vec load: g = 14 is thread (2,1) of block (1,0) (linear block 1), offset 4 * 14 + 1 = 57; count: 2
  // threads in each of blocks (1,0) and (1,1).
  expect_finding(t, FindingKind::Misaligned, Faulty::kVecLoad, 4, 1, 0, 2, 1, 57, 16);
  // Scalar load: g = 37..47 without 45 -> 10; the first, g = 37, is thread (1,1) of block (1,1) (linear
  // block 4, tid 5), offset 200.
  expect_finding(t, FindingKind::OutOfBounds, Faulty::kScalarLoad, 10, 1, 1, 1, 1, 200, 4);
  // Vec store: g = 47 = block (2,1), thread (3,1), offset 188.
  expect_finding(t, FindingKind::OutOfBounds, Faulty::kVecStore, 1, 2, 1, 3, 1, 188, 16);
  // Shared: in every block (6), tid 3 = thread (3,0) misaligned at 7, tid 7 = thread (3,1) out of bounds at 14.
  expect_finding(t, FindingKind::Misaligned, Faulty::kSharedStore, 6, 0, 0, 3, 0, 7, 8);
  expect_finding(t, FindingKind::OutOfBounds, Faulty::kSharedStore, 6, 0, 0, 3, 1, 14, 8);
}

TEST(Findings, MisalignedAndOutOfBoundsWithFirstOffender) {
  Tally tally(num_sites_of<Faulty>());
  drive(tally, 0, 6);
  expect_all_findings(tally);
}

TEST(Findings, OffendingAccessesAreStillCounted) {
  Tally tally(num_sites_of<Faulty>());
  drive(tally, 0, 6);
  // One 8-lane instruction per block and site.
  for (int site = 0; site < 4; ++site) {
    EXPECT_EQ(tally.sites[site].instructions, 6) << site;
    EXPECT_EQ(tally.sites[site].lane_accesses, site == Faulty::kScalarLoad ? 47 : 48) << site;
  }
  // Vec loads: 8 lanes x 16 B = 128 B, aligned in 4 blocks (4 sectors). In blocks (1,0) and (1,1) the two
  // skewed lanes g = 8k+6, 8k+7 read bytes 16 g + 4 .. 16 g + 19: the block's run 128 k .. 128 k + 131 spans
  // 5 sectors. 4 x 4 + 2 x 5 = 26, ideal 6 x 4 = 24.
  EXPECT_EQ(tally.sites[Faulty::kVecLoad].sectors, 26);
  EXPECT_EQ(tally.sites[Faulty::kVecLoad].ideal_sectors, 24);
  // Shared vec2 stores, 8 lanes in one 16-lane phase: words 2 tid, 2 tid + 1 except tid 3 at words 7, 8 ->
  // words {0..5, 7..15} (8 shared by tids 3 and 4), each in its own bank -> 1 wavefront per block.
  EXPECT_EQ(tally.sites[Faulty::kSharedStore].wavefronts, 6);
}

TEST(Findings, MergeKeepsTheEarliestOffender) {
  // Two workers, blocks [0, 2) and [2, 6), merged in launch order: same as one pass.
  Tally a(num_sites_of<Faulty>()), b(num_sites_of<Faulty>());
  drive(a, 0, 2);
  drive(b, 2, 6);
  // Worker a saw only blocks (0,0) and (1,0).
  EXPECT_EQ(find(a, FindingKind::OutOfBounds, Faulty::kVecStore), nullptr);
  a.merge(b);
  expect_all_findings(a);
  for (int site = 0; site < 4; ++site) EXPECT_EQ(a.sites[site].instructions, 6);
  // A split where the first worker has no finding of a kind the second has.
  Tally c(num_sites_of<Faulty>()), d(num_sites_of<Faulty>()), e(num_sites_of<Faulty>());
  drive(c, 0, 1);
  drive(d, 1, 4);
  drive(e, 4, 6);
  c.merge(d);
  c.merge(e);
  expect_all_findings(c);
}

// Accesses that start before the buffer. Launch as above (block 4x2, grid 3x2); only block (0,0) offends.
struct BeforeStart {
  enum Site { kScalarLoad, kVecLoad, kSharedStore };
  static constexpr SiteInfo kSites[] = {
      {"ld in", Space::Global, Op::Load, "in[-1]"},
      {"ld in (vec4)", Space::Global, Op::Load, "vec4 in[-4], vec4 in[-8]"},
      {"st tile", Space::Shared, Op::Store, "tile[-1]"},
  };
  template <class Mem>
  static void body(Mem& m, const LaunchShape& s, const ThreadCoord& t) {
    using T = typename Mem::Elem;
    const int tid = t.thread_y * s.block_x + t.thread_x;
    const bool first_block = t.block_x == 0 && t.block_y == 0;
    // tid 0 reads in[-1]; everyone else in bounds.
    (void)load_global<T>(m, kScalarLoad, true, first_block && tid == 0 ? -1 : 8);
    // tid 1 loads 16 B at in[-4] (aligned, entirely before the buffer), tid 2 at in[-8].
    (void)load_global<Vec<T, 4>>(m, kVecLoad, true, !first_block ? 0 : tid == 1 ? -4 : tid == 2 ? -8 : 0);
    // tid 3 stores tile[-1].
    store_shared<T>(m, kSharedStore, true, first_block && tid == 3 ? -1 : tid, T{});
  }
};

TEST(Findings, AccessesBeforeTheStartAreOutOfBounds) {
  // BUG (sim/recorder.hpp, Recorder::note fast path): `uint64_t(off) + Width / sizeof(T) > uint64_t(elems)`
  // wraps to a small number for off in [-Width/sizeof(T), -1], so in[-1] (scalar), vec4 in[-4] and tile[-1]
  // never reach slow_check and are not reported; vec4 in[-8] is. Remove this skip once fixed.
  Tally tally(num_sites_of<BeforeStart>());
  drive<BeforeStart>(tally, 0, 6);
  EXPECT_EQ(tally.findings.size(), 3u);
  expect_finding(tally, FindingKind::OutOfBounds, BeforeStart::kScalarLoad, 1, 0, 0, 0, 0, -1, 4);
  expect_finding(tally, FindingKind::OutOfBounds, BeforeStart::kVecLoad, 2, 0, 0, 1, 0, -4, 16);
  expect_finding(tally, FindingKind::OutOfBounds, BeforeStart::kSharedStore, 1, 0, 0, 3, 0, -1, 4);
}

}  // namespace
}  // namespace memsim
