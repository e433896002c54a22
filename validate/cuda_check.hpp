#pragma once
// Every CUDA and cuBLAS call is checked: a failure becomes a CudaError naming the call and where it was made,
// so a run can never report numbers from work that did not happen.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace memsim::validate {

struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline void cuda_check(cudaError_t err, const char* call, const char* file, int line) {
  if (err == cudaSuccess) return;
  throw CudaError(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                  cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
}

// After a launch: the launch's own error (bad configuration) now, and with `sync` any fault the kernel hit.
inline void cuda_check_launch(const char* what, const char* file, int line, bool sync = false) {
  cuda_check(cudaGetLastError(), what, file, line);
  if (sync) cuda_check(cudaDeviceSynchronize(), what, file, line);
}

}  // namespace memsim::validate

#define MEMSIM_CUDA_CHECK(call) ::memsim::validate::cuda_check((call), #call, __FILE__, __LINE__)
#define MEMSIM_CHECK_LAUNCH(what) ::memsim::validate::cuda_check_launch((what), __FILE__, __LINE__)
