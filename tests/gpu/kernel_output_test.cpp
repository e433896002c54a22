// Every kernel of the suite, run on the GPU from its shared body, writes exactly the reference output
// (validate/reference.hpp) into a poisoned buffer, on whole tiles and on ragged matrices.
#include <gtest/gtest.h>

#include <vector>

#include "gpu_test_support.hpp"
#include "validate/cuda_check.hpp"
#include "validate/measure.hpp"
#include "validate/reference.hpp"
#include "validate/suite_launch.hpp"
#include "validate/sweep.hpp"

namespace memsim::validate::testing {

class KernelOutput : public GpuTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(KernelOutput, MatchesTheReference) {
  const std::vector<LaunchConfig> cfgs =
      configs(GetParam(), {{128, 96}, {100, 72}, {72, 100}, {33, 17}}, {{32, 8}, {16, 16}, {8, 32}});
  ASSERT_FALSE(cfgs.empty());
  for (const LaunchConfig& cfg : cfgs) {
    const size_t bytes = size_t(cfg.elements()) * dtype_bytes(cfg.dtype);
    std::vector<unsigned char> in(bytes), out(bytes);
    fill_random_input(in.data(), cfg.elements(), dtype_bytes(cfg.dtype), 7);
    DeviceBuffer din(bytes), dout(bytes);
    MEMSIM_CUDA_CHECK(cudaMemcpy(din.get(), in.data(), bytes, cudaMemcpyHostToDevice));
    poison(dout.get(), bytes);
    prepare_suite_kernel(cfg);
    launch_suite_kernel(cfg, din.get(), dout.get(), nullptr);
    MEMSIM_CUDA_CHECK(cudaDeviceSynchronize());
    MEMSIM_CUDA_CHECK(cudaMemcpy(out.data(), dout.get(), bytes, cudaMemcpyDeviceToHost));
    const OutputCheck c = check_output(cfg.kernel->output, cfg.shape, dtype_bytes(cfg.dtype), in.data(), out.data());
    EXPECT_TRUE(c.passed()) << config_label(cfg) << ": " << c.describe();
  }
}

INSTANTIATE_TEST_SUITE_P(Suite, KernelOutput, ::testing::ValuesIn(suite_names()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

// cuBLAS's transpose, the baseline, is checked like the kernels (the row-major/column-major mapping is easy to
// get wrong on non-square matrices).
TEST_F(GpuTest, CublasGeamTransposes) {
  for (Dtype d : {Dtype::F32, Dtype::F64}) {
    LaunchShape s;
    s.width = 100;
    s.height = 36;
    const int eb = dtype_bytes(d);
    const size_t bytes = size_t(s.width * s.height) * eb;
    std::vector<unsigned char> in(bytes), out(bytes);
    fill_random_input(in.data(), s.width * s.height, eb, 3);
    DeviceBuffer din(bytes), dout(bytes);
    MEMSIM_CUDA_CHECK(cudaMemcpy(din.get(), in.data(), bytes, cudaMemcpyHostToDevice));
    poison(dout.get(), bytes);
    Cublas cublas(nullptr);
    ASSERT_TRUE(cublas.transpose(d, s, din.get(), dout.get()));
    MEMSIM_CUDA_CHECK(cudaDeviceSynchronize());
    MEMSIM_CUDA_CHECK(cudaMemcpy(out.data(), dout.get(), bytes, cudaMemcpyDeviceToHost));
    const OutputCheck c = check_output(OutputKind::Transpose, s, eb, in.data(), out.data());
    EXPECT_TRUE(c.passed()) << dtype_name(d) << ": " << c.describe();
  }
  Cublas cublas(nullptr);
  EXPECT_FALSE(cublas.transpose(Dtype::F16, LaunchShape{}, nullptr, nullptr));  // no half-precision geam
}

}  // namespace memsim::validate::testing
