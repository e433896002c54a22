#pragma once
// Shared by the GPU tests: skip cleanly where there is no GPU, and the configurations worth checking.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "kernels/resolve.hpp"
#include "validate/device_info.hpp"

namespace memsim::validate::testing {

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::optional<std::string> why = gpu_unavailable_reason()) GTEST_SKIP() << *why;
    limits_ = query_device(0).limits;
  }
  // The kernel's configurations among blocks x matrices x dtypes that it supports (coarse and fine need whole
  // square tiles, the vector kernels widths that keep their vectors aligned).
  std::vector<LaunchConfig> configs(const std::string& kernel, const std::vector<Size2>& matrices,
                                    const std::vector<Size2>& blocks) const {
    std::vector<LaunchConfig> out;
    for (const Size2& m : matrices)
      for (const Size2& b : blocks)
        for (Dtype d : {Dtype::F16, Dtype::F32, Dtype::F64}) {
          UserConfig u;
          u.kernel = kernel;
          u.matrix = m;
          u.block = b;
          u.dtype = d;
          try {
            out.push_back(resolve_launch(u, limits_));
          } catch (const ConfigError&) {
          }
        }
    return out;
  }
  LaunchLimits limits_;
};

// Every kernel of the suite, by name (for parameterised tests).
std::vector<std::string> suite_names();

}  // namespace memsim::validate::testing
