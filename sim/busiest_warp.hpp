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
};

}  // namespace memsim
