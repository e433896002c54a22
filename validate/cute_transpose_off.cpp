// The CuTe transpose baseline where memsim-validate is built without the CUTLASS headers (MEMSIM_CUTE off or
// not found): runs simply have no such baseline (validate/cute_transpose.hpp).
#include <stdexcept>

#include "validate/cute_transpose.hpp"

namespace memsim::validate {

bool cute_transpose_built() { return false; }

std::string cute_transpose_detail(Dtype) { return "CuTe transpose (not built)"; }

std::optional<std::string> cute_transpose_unavailable(Dtype, int64_t, int64_t) {
  return std::string("memsim-validate was built without the CUTLASS headers (MEMSIM_CUTE, scripts/install-cutlass.sh)");
}

void launch_cute_transpose(Dtype, const void*, void*, int, int, cudaStream_t) {
  throw std::logic_error("launch_cute_transpose: memsim-validate was built without CuTe");
}

}  // namespace memsim::validate
