#pragma once
// The accesses of the busiest warp of a launch's first block (the most accesses: a full warp of an inner tile),
// as the replay sees them (sim/replay.cpp, first_block_warps): what the compiled-code estimate reads
// (codegen/code_estimate.hpp). A plain record with no dependencies, so that codegen need not include the replay.

namespace memsim {

struct BusiestWarp {
  double global_loads = 0, global_stores = 0;  // warp instructions
  double shared_loads = 0, shared_stores = 0;
  double loads_before_store = 0;  // global loads the warp makes before its first global store
  // The matrix rows its global loads (of the input) and its global stores (of the output) start in, as its
  // first active lane sees them: the row pointers a static shape's code computes, the row pitch being a launch
  // value, where column steps fold into immediates.
  double load_rows = 0, store_rows = 0;
  int load_bytes = 0;  // bytes a lane of its widest global load reads
  // Its accesses at sites where some lane of the block is off (in a tile inside the matrix: the walks whose
  // extent the block does not divide, each step of which tests that its position lies in the tile).
  double guarded_accesses = 0;
  // Those of them at sites whose guard changes from step to step: some warp of the block has lanes on at one
  // of the site's accesses and not the same lanes at another (the last step of a walk the block does not
  // divide in several steps). nvcc cannot know a thread's index lies below the block's extent, so it tests
  // each such step with its own predicate and recomputes the step's addresses under it; a guard that is the
  // same at every step (a walk shorter than one step of the block) is one test for all of them.
  double varying_guard_accesses = 0;
  // Those of them at sites whose guard leaves each warp whole: at every access a warp has all its lanes on or
  // none (a walk shorter than one step of the block, whose idle lanes are whole warps). Its accesses then
  // need no lane's default value, and what the warp skips it skips whole.
  double whole_warp_guard_accesses = 0;
  // The predicate work its guarded accesses cost, in tests, as nvcc compiles them (sm_90 SASS of the shared-
  // tile kernels): a guard that is the same at every step is one ISETP for all of them, set on each access for
  // free, where the warp's global loads and its global stores each lie in one row (every address is the
  // prologue's pointer plus an immediate); where they step over rows, ptxas re-derives each guarded access's
  // address under the predicate (a pointer reload, a wide multiply and an add a global store, a LEA a shared
  // load), and a guard that varies gives each step a predicate of its own: one an access. Counted per site,
  // as guarded_accesses are (a step's load and store share their predicate).
  double guard_tests = 0;
};

}  // namespace memsim
