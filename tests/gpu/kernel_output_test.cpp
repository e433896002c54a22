// Every kernel of the suite, run on the GPU from its shared body, writes exactly the reference output
// (validate/reference.hpp) into a poisoned buffer, on whole tiles and on ragged matrices.
#include <gtest/gtest.h>

#include <vector>

#include "codegen/compiled_code.hpp"
#include "gpu_test_support.hpp"
#include "validate/kernel_file_launch.hpp"
#include "validate/cuda_check.hpp"
#include "validate/measure.hpp"
#include "validate/reference.hpp"
#include "validate/suite_launch.hpp"
#include "validate/sweep.hpp"

namespace memsim::validate::testing {

// Runs cfg once on random input (`seed`) into a poisoned buffer and expects exactly the reference output.
void expect_reference_output(const LaunchConfig& cfg, uint64_t seed) {
  const size_t bytes = size_t(cfg.elements()) * dtype_bytes(cfg.dtype);
  std::vector<unsigned char> in(bytes), out(bytes);
  fill_random_input(in.data(), cfg.elements(), dtype_bytes(cfg.dtype), seed);
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

class KernelOutput : public GpuTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(KernelOutput, MatchesTheReference) {
  const std::vector<LaunchConfig> cfgs =
      configs(GetParam(), {{128, 96}, {100, 72}, {72, 100}, {33, 17}}, {{32, 8}, {16, 16}, {8, 32}});
  ASSERT_FALSE(cfgs.empty());
  for (const LaunchConfig& cfg : cfgs) {
    expect_reference_output(cfg, 7);
  }
}

// A block and tile the build holds no instantiation of (unless configured with them): memsim-validate compiles
// them now (validate/kernel_file_launch.hpp, load_suite_plugins), and they run that compile-time shape and
// write the reference output, on whole tiles and ragged edges alike. Skipped without nvcc.
TEST_F(GpuTest, ShapesTheBuildLacksRunCompiledNow) {
  if (find_toolkit().nvcc.empty()) GTEST_SKIP() << "no nvcc";
  setenv("MEMSIM_CACHE_DIR", MEMSIM_TEST_CACHE_DIR, 1);
  std::vector<LaunchConfig> cfgs;
  for (const char* kernel : {"naive", "coalesced", "padded", "copy_shared"})
    for (Size2 m : {Size2{96, 96}, Size2{100, 72}})
      for (Dtype d : {Dtype::F16, Dtype::F32, Dtype::F64}) {
        UserConfig u;
        u.kernel = kernel;
        u.matrix = m;
        u.block = {20, 8};
        u.tile = Size2{40, 40};
        u.dtype = d;
        cfgs.push_back(resolve_launch(u, limits_));
      }
  const int cc_major = query_device(0).cc_major, cc_minor = query_device(0).cc_minor;
  for (const LaunchConfig& cfg : cfgs) ASSERT_FALSE(has_built_in_static_shape(cfg)) << config_label(cfg);
  ASSERT_EQ(suite_configs_to_compile(cfgs), int(cfgs.size()));
  const nlohmann::ordered_json built = load_suite_plugins(cfgs, cc_major, cc_minor);
  ASSERT_EQ(built.size(), 4u);
  for (const LaunchConfig& cfg : cfgs) {
    ASSERT_TRUE(runs_in_gpu_plugin(cfg)) << config_label(cfg);
    EXPECT_STREQ(suite_kernel_shape_kind(cfg), "static");
    expect_reference_output(cfg, 11);
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
