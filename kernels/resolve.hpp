#pragma once
// From what a user typed to a launch the kernels can run: defaults filled in (docs/hardware.md, "Conventions"), every
// constraint checked. Anything wrong throws ConfigError with one line that says what and why; the CLI prints it and
// exits 2.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/device_rules.hpp"
#include "core/dtype.hpp"
#include "kernels/kernel_info.hpp"
#include "kernels/launch_shape.hpp"

namespace memsim {

struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The C++ type a dtype's elements are stored as on the GPU and in the replay ("uint16_t", "float", "double"):
// a transpose moves bits, so f16 needs no half type.
const char* storage_type(Dtype d);
Dtype parse_dtype(std::string_view text);  // "f16" | "f32" | "f64"

struct Size2 {
  int64_t x = 0, y = 0;
  bool operator==(const Size2& o) const { return x == o.x && y == o.y; }
};
// "WxH" with positive decimal integers, e.g. "32x8". `what` names the option in the error message.
Size2 parse_size2(std::string_view text, std::string_view what);
std::string format_size2(Size2 s);

struct UserConfig {
  std::string kernel = "padded";
  Size2 matrix{2048, 2048};
  Size2 block{32, 8};
  std::optional<Size2> tile;  // default from the kernel's footprint
  std::optional<int> pad;     // default from the kernel
  Dtype dtype = Dtype::F32;
};

struct LaunchConfig {
  const KernelInfo* kernel = nullptr;
  Dtype dtype = Dtype::F32;
  LaunchShape shape;
  int64_t shared_bytes = 0;  // the shared tile, per block
  bool tile_defaulted = false;
  int64_t blocks() const { return int64_t(shape.grid_x) * shape.grid_y; }
  int threads_per_block() const { return shape.block_x * shape.block_y; }
  int warps_per_block() const { return (threads_per_block() + 31) / 32; }
  int64_t elements() const { return shape.width * shape.height; }
};

Size2 default_tile(const KernelInfo& k, Size2 block, Dtype dtype);
LaunchConfig resolve_launch(const UserConfig& user, const LaunchLimits& limits = {});
// resolve_launch, or nothing where the configuration is refused (ConfigError): what a sweep over kernels,
// blocks and dtypes uses to skip the combinations a kernel does not run.
std::optional<LaunchConfig> try_resolve_launch(const UserConfig& user, const LaunchLimits& limits = {});

}  // namespace memsim
