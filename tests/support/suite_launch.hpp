#pragma once
// A suite kernel's launch at 1024x1024 for the counter tests: small enough to replay in a test, large enough
// for a middle block away from the edges.
#include "kernels/resolve.hpp"

namespace memsim::test {

inline LaunchConfig suite_launch_1024(const char* kernel, const char* dtype, Size2 block) {
  UserConfig u;
  u.kernel = kernel;
  u.dtype = parse_dtype(dtype);
  u.matrix = {1024, 1024};
  u.block = block;
  return resolve_launch(u);
}

}  // namespace memsim::test
