// The cost model's inputs from a replay, worked out by hand for small launches.
#include <gtest/gtest.h>

#include <optional>

#include "report/launch_prediction.hpp"
#include "sim/launch_counts.hpp"
#include "model/profile.hpp"
#include "lab/calibration/microbench_records.hpp"

namespace memsim {
namespace {

ReplayResult run(const char* kernel, Size2 matrix, Size2 block, Dtype dtype = Dtype::F32,
                 std::optional<Size2> tile = std::nullopt) {
  UserConfig u;
  u.kernel = kernel;
  u.matrix = matrix;
  u.block = block;
  u.dtype = dtype;
  u.tile = tile;
  ReplayOptions o;
  o.threads = 1;
  return replay(resolve_launch(u), o);
}

TEST(Counts, NaiveStoresArePartialSectors) {
  // 64x64 f32, block 32x8 over 32x32 tiles: 4 blocks, 32 warps. Loads: rows of 32 floats = 4 whole sectors a
  // request, 4096 elements = 512 sectors. Stores: every lane a different output row, one 4-byte piece of a
  // sector each: 4096 partial sectors; DRAM still sees each output byte once (16384 bytes).
  const KernelCounts c = launch_counts(run("naive", {64, 64}, {32, 8}));
  EXPECT_EQ(c.blocks, 4);
  EXPECT_EQ(c.warps(), 32);
  EXPECT_EQ(c.l2_load_sectors, 512);
  EXPECT_EQ(c.dram_read_bytes, 16384);
  EXPECT_EQ(c.dram_write_bytes, 16384);
  EXPECT_EQ(c.partial_store_requests[kLanes4], 4096);
  EXPECT_EQ(c.partial_store_sectors, 4096);  // a piece a sector: 4096 pieces of the 512 sectors' bytes
  EXPECT_EQ(c.l2_write_sectors_given, -1);   // the replay never measures the L2's writes
  EXPECT_EQ(c.l2_store_sectors, 0);
  // Coalesced loads: 128 requests, one line each; scattered stores: a wavefront per sector.
  EXPECT_EQ(c.l1_global_wavefronts, 128 + 4096);
  EXPECT_EQ(c.global_load_instructions, 128);
  EXPECT_EQ(c.global_load_lines, 128);  // 32 floats = one 128-byte line a request
  EXPECT_EQ(c.memory_instructions, 256);
  EXPECT_EQ(c.loads_in_flight_per_warp, 1);  // load, store, load, ...: one in flight
  EXPECT_EQ(c.useful_bytes, 2 * 16384);
}

TEST(Counts, HalfSectorRequestsArePartialStores) {
  // vec4_shared f16 256x16, block 32x8 over 128x8 tiles: 4 blocks. Each tile's transpose is 128 output rows
  // of 8 halves (16 bytes), stored by 8 lanes of 2 bytes: one request into one sector, as few sectors as its
  // bytes need, yet half of it unwritten. 4 x 128 = 512 such requests, each one line; 8192 bytes in all.
  const KernelCounts c = launch_counts(run("vec4_shared", {256, 16}, {32, 8}, Dtype::F16));
  EXPECT_EQ(c.blocks, 4);
  EXPECT_EQ(c.global_store_instructions, 512);
  EXPECT_EQ(c.partial_store_requests[kLanes4], 512);
  EXPECT_EQ(c.partial_store_bytes[kLanes4], 8192);
  EXPECT_EQ(c.l2_store_sectors, 0);
  EXPECT_EQ(c.dram_write_bytes, 8192);
}

TEST(Counts, HalfSectorPiecesAreTheStoreBytesWrittenAsHalvesOfSectors) {
  // naive f32 64x64, block 8x16 (one element a thread): a warp is 8 columns x 4 rows, so a store writes 8 output
  // rows of 4 consecutive floats, a 16-byte piece of one sector each: every stored byte (64 x 64 x 4) is in a
  // half-sector piece. Block 32x8 writes 4-byte pieces (none); vec4_shared f16 32x8 writes 16 bytes into a
  // sector with 8 lanes of 2 bytes (all of its 8192 bytes).
  EXPECT_EQ(launch_counts(run("naive", {64, 64}, {8, 16})).half_sector_piece_bytes, 16384);
  EXPECT_EQ(launch_counts(run("naive", {64, 64}, {32, 8})).half_sector_piece_bytes, 0);
  EXPECT_EQ(launch_counts(run("vec4_shared", {256, 16}, {32, 8}, Dtype::F16)).half_sector_piece_bytes, 8192);
  // The 4-byte class's share of them, whose read-back costs as 16-byte pieces (model/cost.cpp): naive f32's
  // 4-byte lanes and vec4_shared f16's 2-byte ones alike; naive f64 at 16x8 writes 16 bytes a sector with 8-byte
  // lanes (16 output rows of 2 doubles a warp), in the 16-byte class already: none.
  EXPECT_EQ(launch_counts(run("naive", {64, 64}, {8, 16})).lane4_half_sector_bytes, 16384);
  EXPECT_EQ(launch_counts(run("naive", {64, 64}, {32, 8})).lane4_half_sector_bytes, 0);
  EXPECT_EQ(launch_counts(run("vec4_shared", {256, 16}, {32, 8}, Dtype::F16)).lane4_half_sector_bytes, 8192);
  const KernelCounts f64 = launch_counts(run("naive", {64, 64}, {16, 8}, Dtype::F64));
  EXPECT_EQ(f64.half_sector_piece_bytes, 64 * 64 * 8);
  EXPECT_EQ(f64.partial_store_bytes[kLanes16], 64 * 64 * 8);
  EXPECT_EQ(f64.lane4_half_sector_bytes, 0);
  // Whole sectors are not pieces: copy's stores.
  EXPECT_EQ(launch_counts(run("copy", {64, 64}, {8, 16})).half_sector_piece_bytes, 0);
}

TEST(Counts, NarrowLanePiecesAreTwoByteLanesWritingEightBytesOfASector) {
  // vec4_shared f16 256x16 writes 16 bytes into a sector with 8 lanes of 2 bytes: all 8192 of its bytes. naive
  // f16 64x64 at block 8x16 writes 4 consecutive halves of each of 8 output rows, 8 bytes a sector from 2-byte
  // lanes: all 8192 bytes; at block 32x8 one half a sector (2 bytes): none. naive f32 at 8x16 writes 16 bytes
  // a sector from 4-byte lanes: none.
  EXPECT_EQ(launch_counts(run("vec4_shared", {256, 16}, {32, 8}, Dtype::F16)).narrow_lane_piece_bytes, 8192);
  EXPECT_EQ(launch_counts(run("naive", {64, 64}, {8, 16}, Dtype::F16)).narrow_lane_piece_bytes, 8192);
  EXPECT_EQ(launch_counts(run("naive", {64, 64}, {32, 8}, Dtype::F16)).narrow_lane_piece_bytes, 0);
  EXPECT_EQ(launch_counts(run("naive", {64, 64}, {8, 16})).narrow_lane_piece_bytes, 0);
}

TEST(Counts, HalfSectorPairsAWarpCompletesInItsNextStore) {
  // coalesced f32 64x64, block 4x16 over 16x16 tiles: the drain's warp is 4 lanes x 8 rows, so a store writes 16
  // bytes (4 floats) into one sector of each of 8 output rows, and its next store (the next 4 columns) the other
  // 16: every partial byte is half of a pair completed in the next store. In f16 the same walk writes 8-byte
  // quarters (none a half: 0); naive f16 4x16 writes 16-byte halves (8 rows of 2 bytes) whose other halves come
  // from the block's other warp (0); block 32x8 writes whole sectors (no partial piece: 0).
  const Size2 tile{16, 16};
  EXPECT_DOUBLE_EQ(launch_counts(run("coalesced", {64, 64}, {4, 16}, Dtype::F32, tile)).next_store_pair_share,
                   1.0);
  EXPECT_DOUBLE_EQ(launch_counts(run("coalesced", {64, 64}, {4, 16}, Dtype::F16, tile)).next_store_pair_share,
                   0.0);
  EXPECT_DOUBLE_EQ(launch_counts(run("naive", {64, 64}, {4, 16}, Dtype::F16, tile)).next_store_pair_share, 0.0);
  EXPECT_DOUBLE_EQ(launch_counts(run("coalesced", {64, 64}, {32, 8})).next_store_pair_share, 0.0);
}

TEST(Counts, StoreSlotsAreWriteRequestsPlusSectors) {
  // naive f32 64x64, block 32x8: 128 store instructions, each 32 output rows of one sector: 32 L2 write
  // requests and 32 sectors, 64 slots each. The loads take none.
  EXPECT_EQ(launch_counts(run("naive", {64, 64}, {32, 8})).l2_write_slots, 128 * 64);
  // copy: a store is one 128-byte row, 1 request and 4 sectors.
  EXPECT_EQ(launch_counts(run("copy", {64, 64}, {32, 8})).l2_write_slots, 128 * 5);
}

TEST(Counts, LoadLinesPerRequest) {
  // naive_read reads a column: under 16x16 blocks a warp is 16 rows (x) by 2 columns (y), so each load
  // request touches 16 lines, whatever the element size; 64x64 has 16 blocks of 8 warps, one load each.
  for (Dtype d : {Dtype::F16, Dtype::F32, Dtype::F64}) {
    const KernelCounts c = launch_counts(run("naive_read", {64, 64}, {16, 16}, d));
    EXPECT_EQ(c.global_load_instructions, 128);
    EXPECT_EQ(c.global_load_lines, 128 * 16);
  }
  // copy's rows of 32 doubles are 256 bytes: two lines a request.
  const KernelCounts c = launch_counts(run("copy", {64, 64}, {32, 8}, Dtype::F64));
  EXPECT_EQ(c.global_load_lines, 2 * c.global_load_instructions);
}

TEST(Counts, StagedTilesBatchTheirLoadsAndCountConflicts) {
  // coalesced 64x64 f32, block 32x8, tile 32x32: 4 loads per thread. Its compiled code (the shipped table, or
  // nvcc where the toolkit is) issues all 4 before the first shared store: 4 in flight; without its code (a
  // run-time shape, or a device without an L2) the run-time rule: each row step's shared store waits for its
  // load (one column step: nothing unrolled to batch them) -> 1.
  // Tile reads down a column of a 32-wide tile: 32 lanes in one bank, 32 wavefronts, 31 of them conflicts;
  // 4 per warp x 32 warps = 128 instructions.
  const ReplayResult r = run("coalesced", {64, 64}, {32, 8});
  const CompiledCode code = compiled_code(r.config, CodegenOptions{}, r.first_block);
  KernelCounts c = launch_counts(r);
  add_compiled_code(c, r, code);
  EXPECT_EQ(c.loads_in_flight_per_warp, 4);
  EXPECT_EQ(launch_counts(run("coalesced", {64, 64}, {32, 8}), false).loads_in_flight_per_warp, 1);
  EXPECT_EQ(c.shared_wavefronts, 128 * 32 + 128);  // column reads + conflict-free row stores
  EXPECT_EQ(c.shared_conflict_wavefronts, 128 * 31);
  EXPECT_EQ(c.l2_store_sectors, 512);  // the transposed tile rows are written whole
  EXPECT_EQ(c.partial_store_requests[kLanes4], 0);
}

TEST(Counts, AStagedColumnWalkOfFourStepsBatchesLoads) {
  // A 128x32 tile (not padded's default: a run-time shape) under a 32x8 block walks 4 rows x 4 columns: 16
  // loads a thread, the column walk nvcc unrolls by 4 keeps 2 in flight. Under 8x32 (tile 8x32) one load
  // each: 1.
  UserConfig u;
  u.kernel = "padded";
  u.matrix = {256, 64};
  u.block = {32, 8};
  u.tile = Size2{128, 32};
  ReplayOptions o;
  o.threads = 1;
  EXPECT_EQ(launch_counts(replay(resolve_launch(u), o)).loads_in_flight_per_warp, 2);
  EXPECT_EQ(launch_counts(run("padded", {64, 64}, {8, 32})).loads_in_flight_per_warp, 1);
  // vec4_shared f64 under 32x8 (tile 128x8): one step, its 4-double row in two 16-byte loads: 2 in flight.
  EXPECT_EQ(launch_counts(run("vec4_shared", {256, 64}, {32, 8}, Dtype::F64)).loads_in_flight_per_warp, 2);
}

TEST(Counts, SixteenByteLanesAndTheReg4x4Footprint) {
  // reg4x4 64x64 f32, block 32x8: tile 128x32 -> each lane stores 16-byte rows of the output, 32 different
  // rows a request: 16 bytes of each sector. Its 4 row loads come before any store: 4 in flight.
  const KernelCounts c = launch_counts(run("reg4x4", {128, 64}, {32, 8}));
  EXPECT_GT(c.partial_store_requests[kLanes16], 0);
  EXPECT_EQ(c.partial_store_requests[kLanes4], 0);
  EXPECT_EQ(c.partial_store_requests[kLanes16] * 16, c.dram_write_bytes);
  EXPECT_EQ(c.loads_in_flight_per_warp, 4);
}

TEST(Counts, PartialStoresAreCountedPerLineRequest) {
  // reg4x4 128x128 f64, block 8x32 (tile 32x128): 1024 threads = 32 warps; each stores 4 output rows of 4
  // doubles as two 16-byte pieces = 8 store instructions, 256 in all. A warp's 8 tx write 8 output rows
  // (x + j); its 4 ty write y = 16w + 4ty, 4 neighbouring sectors of one line, 16 bytes of each. So a
  // request writes half of 32 sectors in 8 lines: 256 x 8 = 2048 L2 write requests (8192 half sectors),
  // 16-byte class.
  const KernelCounts c = launch_counts(run("reg4x4", {128, 128}, {8, 32}, Dtype::F64));
  EXPECT_EQ(c.warps(), 32);
  EXPECT_EQ(c.partial_store_requests[kLanes16], 2048);
  EXPECT_EQ(c.partial_store_requests[kLanes4] + c.partial_store_requests[kLanes8], 0);
  EXPECT_EQ(c.dram_write_bytes, 128 * 128 * 8);
  // Each warp completes its sectors itself (the second piece of a sector is its next store): its 32 output
  // rows x one line, 8 warps = 256 lines a block, in 8 store instructions a warp.
  EXPECT_EQ(c.global_store_instructions, 256);
  EXPECT_EQ(c.lines_completed_by_one_warp_per_block, 256);
}

TEST(Counts, BarriersPerBlockFromTheBody) {
  // The staged bodies pass one __syncthreads() between their global loads and stores; naive passes none.
  EXPECT_EQ(launch_counts(run("coalesced", {64, 64}, {32, 8})).barriers_per_block, 1);
  EXPECT_EQ(launch_counts(run("copy_shared", {64, 64}, {16, 16})).barriers_per_block, 1);
  EXPECT_EQ(launch_counts(run("vec4_shared", {128, 64}, {32, 8})).barriers_per_block, 1);
  EXPECT_EQ(launch_counts(run("naive", {64, 64}, {32, 8})).barriers_per_block, 0);
  EXPECT_EQ(launch_counts(run("reg4x4", {128, 128}, {8, 32})).barriers_per_block, 0);
}

TEST(Counts, WithoutL2EveryTransactionIsDramTraffic) {
  const ReplayResult r = run("naive", {64, 64}, {32, 8});
  const KernelCounts c = launch_counts(r, false);
  EXPECT_EQ(c.dram_write_bytes, 4096 * 32);  // a 32-byte sector per scattered element
  EXPECT_EQ(c.partial_store_requests[kLanes4], 0);
}

TEST(Counts, FromMicrobenchmarkRecords) {
  // strided_store, 4-byte elements, 32 rows per request on a 64x64 matrix: 128 warp instructions a side.
  const nlohmann::json j = {{"blocks", 4},           {"threads_per_block", 256}, {"shared_bytes_per_block", 0},
                            {"regs_per_thread", 18}, {"useful_bytes", 32768},    {"dram_read_bytes", 16384},
                            {"dram_write_bytes", 16384}, {"l1_sectors_ld", 512},  {"l1_sectors_st", 4096},
                            {"l2_sectors_ld", 512},  {"l2_sectors_st", 4096},   {"shared_wavefronts", 0},
                            {"shared_instructions", 0}, {"global_ld_instructions", 128},
                            {"global_st_instructions", 128}, {"loads_in_flight_per_warp", 4}};
  const KernelCounts c = counts_from_microbench("strided_store", j);
  EXPECT_EQ(c.partial_store_requests[kLanes4], 4096);  // 4096 sectors carry 16384 bytes: partial
  EXPECT_EQ(c.l2_store_sectors, 0);
  EXPECT_EQ(c.l1_global_wavefronts, 128 + 4096);  // an older record: the rule of its time
  EXPECT_EQ(c.instructions, 256 * 6);
  // A record carrying the replay's L1 wavefronts: used as given (4-byte rows of 32 lanes: 1 a load request;
  // 32 rows a store request: 32).
  nlohmann::json carried = j;
  carried["l1_wavefronts_ld"] = 128;
  carried["l1_wavefronts_st"] = 4096;
  EXPECT_EQ(counts_from_microbench("strided_store", carried).l1_global_wavefronts, 128 + 4096);
  carried["l1_wavefronts_ld"] = 256;  // different from the old rule, so the carried value shows
  EXPECT_EQ(counts_from_microbench("strided_store", carried).l1_global_wavefronts, 256 + 4096);
  // Store slots: the partial stores' 4096 write requests (one a sector in an older record) + 4096 sectors.
  EXPECT_EQ(c.l2_write_slots, 4096 + 4096);
  // Whole-sector stores: requests are the store wavefronts the record carries (else a quarter of the sectors).
  nlohmann::json whole = j;
  whole["l2_sectors_st"] = 512, whole["l1_sectors_st"] = 512;
  EXPECT_EQ(counts_from_microbench("strided_load", whole).l2_write_slots, 512 + 128);
  whole["l1_wavefronts_st"] = 256;
  EXPECT_EQ(counts_from_microbench("strided_load", whole).l2_write_slots, 512 + 256);
  EXPECT_EQ(c.regs_per_thread, 18);

  // An issue benchmark carries the count Nsight Compute measured; it replaces the loop estimate.
  nlohmann::json counted = j;
  counted["instructions"] = 123456;
  EXPECT_EQ(counts_from_microbench("issue_copy", counted).instructions, 123456);
  counted["instructions"] = 0;  // not measured: the estimate again
  EXPECT_EQ(counts_from_microbench("issue_copy", counted).instructions, 256 * 6);
  counted["instructions"] = -1;
  EXPECT_THROW(counts_from_microbench("issue_copy", counted), ProfileError);
  // L2 read requests: absent in runs before 2026-11-26 (0: not counted, no extra round trip), else as given.
  EXPECT_EQ(c.l2_read_requests, 0);
  nlohmann::json requested = j;
  requested["l2_requests_ld"] = 130.5;  // memsim's count, merges taken as shares of a request
  EXPECT_EQ(counts_from_microbench("strided_load_chain", requested).l2_read_requests, 130.5);
  requested["l2_requests_ld"] = -1;
  EXPECT_THROW(counts_from_microbench("strided_load_chain", requested), ProfileError);
  // The L2's sector writes measured (add_l2_write_sectors.py): absent, not given; else carried for the cost
  // model to charge the pieces beyond them as whole; the partial pieces are the record's L2 sectors.
  EXPECT_EQ(c.partial_store_sectors, 4096);
  EXPECT_EQ(c.l2_write_sectors_given, -1);
  nlohmann::json written = j;
  written["l2_write_sectors_measured"] = 3000;
  EXPECT_EQ(counts_from_microbench("strided_store", written).l2_write_sectors_given, 3000);
  written["l2_write_sectors_measured"] = -5;
  EXPECT_THROW(counts_from_microbench("strided_store", written), ProfileError);
  // Barriers: absent in older runs (none), else as given.
  EXPECT_EQ(counts_from_microbench("strided_store", j).barriers_per_block, 0);
  nlohmann::json staged = j;
  staged["barriers"] = 1;
  EXPECT_EQ(counts_from_microbench("tiled_copy_shared", staged).barriers_per_block, 1);
  staged["barriers"] = -2;
  EXPECT_THROW(counts_from_microbench("tiled_copy_shared", staged), ProfileError);
  // The partial stores' bytes are the bytes written (all of them partial here); the lines partly written at
  // once per block as given, none in older runs.
  EXPECT_EQ(c.partial_store_bytes[kLanes4], 16384);
  EXPECT_EQ(total_lines(c.partial_lines_per_block), 0);
  // Partly written lines go with the warps writing each of their sectors: a run without that field is refused
  // (naming it), one with it puts the lines there.
  nlohmann::json lines = j;
  lines["partial_lines_per_block"] = 32;
  try {
    counts_from_microbench("strided_store", lines);
    ADD_FAILURE() << "a run with partial lines and no partial_sector_warps was read";
  } catch (const ProfileError& e) {
    EXPECT_NE(std::string(e.what()).find("partial_sector_warps"), std::string::npos) << e.what();
  }
  lines["partial_sector_warps"] = 4;
  PartialSectorLines want{};
  want[4] = 32;
  EXPECT_EQ(counts_from_microbench("strided_store", lines).partial_lines_per_block, want);
  for (int bad : {0, 33}) {
    lines["partial_sector_warps"] = bad;
    EXPECT_THROW(counts_from_microbench("strided_store", lines), ProfileError) << bad;
  }
  lines["partial_sector_warps"] = 4;
  lines["partial_lines_per_block"] = -1;
  EXPECT_THROW(counts_from_microbench("strided_store", lines), ProfileError);
}

// The calibration leaves the read-back of 4-byte lanes to memsim-partial-lines' fit: their runs' lines are not
// charged; a run of 16-byte lanes keeps its lines, a run without partial stores has none to drop.
TEST(Counts, CalibrationLeavesFourByteReadBackOut) {
  std::vector<Measurement> runs(3);
  runs[0].counts.partial_store_requests[kLanes4] = 4096;
  runs[0].counts.partial_lines_per_block[8] = 32;
  runs[1].counts.partial_store_requests[kLanes16] = 4096;
  runs[1].counts.partial_lines_per_block[2] = 128;
  runs[2].counts.l2_store_sectors = 4096;
  leave_4_byte_read_back_out(runs);
  EXPECT_EQ(total_lines(runs[0].counts.partial_lines_per_block), 0);
  EXPECT_EQ(runs[1].counts.partial_lines_per_block[2], 128);
  EXPECT_EQ(total_lines(runs[1].counts.partial_lines_per_block), 128);
  EXPECT_EQ(total_lines(runs[2].counts.partial_lines_per_block), 0);
}

}  // namespace
}  // namespace memsim
