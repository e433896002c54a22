#pragma once
// Every CUDA and cuBLAS call is checked: a failure becomes a CudaError naming the call and where it was made,
// so a run can never report numbers from work that did not happen.
#include <cublas_v2.h>
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

inline const char* cublas_status_name(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    default: return "CUBLAS_STATUS_(other)";
  }
}

inline void cublas_check(cublasStatus_t s, const char* call) {
  if (s != CUBLAS_STATUS_SUCCESS) throw CudaError(std::string(call) + " failed: " + cublas_status_name(s));
}

// After a launch: the launch's own error (bad configuration) now, and with `sync` any fault the kernel hit.
inline void cuda_check_launch(const char* what, const char* file, int line, bool sync = false) {
  cuda_check(cudaGetLastError(), what, file, line);
  if (sync) cuda_check(cudaDeviceSynchronize(), what, file, line);
}

}  // namespace memsim::validate

#define MEMSIM_CUDA_CHECK(call) ::memsim::validate::cuda_check((call), #call, __FILE__, __LINE__)
#define MEMSIM_CHECK_LAUNCH(what) ::memsim::validate::cuda_check_launch((what), __FILE__, __LINE__)
