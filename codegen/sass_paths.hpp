#pragma once
// The warp instructions along the paths of a compiled transpose kernel, read off `cuobjdump -sass`. A static
// shape's walks are unrolled and their constants folded, so a warp executes one straight path of SASS whose
// length is known once the code is compiled:
//   inner   a block whose tile lies wholly inside the matrix: the uniform edge test (the first branch guarded by
//           one predicate and taking a second, `@!P0 BRA P1, target`) is taken; every other instruction is
//           counted once, predicated or not (a predicated-off instruction is issued all the same);
//   exit    the same, leaving at the first predicated EXIT: a warp whose last accesses have no active lane
//           (the tall blocks' transposed drain);
//   square  diagonal's grid-shape branch (a predicated branch before the edge test) taken: grid_x == grid_y;
//   edge    a block whose tile reaches past the matrix: the edge test falls through, and so does every branch
//           around an access (all lanes active): an upper estimate.
// Along the inner path, its global loads and the waits for them: the instructions that read a register a load
// in flight writes, where the warp stalls until the load is back. loads / waits = a warp's loads in flight.
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace memsim {

struct SassInstruction {
  uint32_t address = 0;
  std::string text;  // the instruction without its address and trailing ';', e.g. "@!P0 BRA P1, `(.L_x_1)"
};

struct SassPaths {
  int inner = 0, inner_exit = 0;
  int square = 0, square_exit = 0;
  int edge = 0, edge_square = 0;
  int loads = 0, load_waits = 0;
  bool operator==(const SassPaths& o) const {
    return inner == o.inner && inner_exit == o.inner_exit && square == o.square && square_exit == o.square_exit &&
           edge == o.edge && edge_square == o.edge_square && loads == o.loads && load_waits == o.load_waits;
  }
};

// The global loads a warp keeps in flight along the inner path: its loads / the waits for them (1 without loads).
inline double loads_in_flight(const SassPaths& p) {
  return p.load_waits > 0 ? double(p.loads) / p.load_waits : 1.0;
}

// A code shape the path walk cannot count: a loop (a branch back), a branch to no instruction, a path that runs
// off the function, two edge tests.
struct SassPathError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Every function of a cuobjdump -sass listing by its (mangled or extern "C") name, its instructions in order.
std::map<std::string, std::vector<SassInstruction>> sass_functions(const std::string& listing);

// The registers a thread of each function of a cuobjdump -res-usage listing ("Function NAME:" then a line
// "REG:N STACK:..."), by name: what ptxas allocated, which the occupancy reads.
std::map<std::string, int> registers_by_function(const std::string& listing);

// The paths above through one function. Throws SassPathError.
SassPaths count_sass_paths(const std::vector<SassInstruction>& code);

}  // namespace memsim
