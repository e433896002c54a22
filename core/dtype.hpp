#pragma once
// The element types memsim's kernels move: what the replay runs them on and what a device profile's tables
// (registers a kernel, a dtype a device refuses) name.
namespace memsim {

enum class Dtype { F16, F32, F64 };
inline int dtype_bytes(Dtype d) { return d == Dtype::F16 ? 2 : d == Dtype::F32 ? 4 : 8; }
inline const char* dtype_name(Dtype d) { return d == Dtype::F16 ? "f16" : d == Dtype::F32 ? "f32" : "f64"; }

}  // namespace memsim
