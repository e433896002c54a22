// memsim-validate --kernel-file's GPU half, without a GPU: the instantiation a configuration gets, the source
// generated for a kernel file and nvcc's command line. tests/codegen/gpu_plugin_nvcc_test.cpp compiles it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "codegen/gpu_plugin.hpp"
#include "codegen/kernel_file.hpp"
#include "kernels/resolve.hpp"

namespace memsim {
namespace {

const std::string kExamples = std::string(MEMSIM_SOURCE_DIR) + "/examples/";

LaunchConfig config(const KernelInfo* k, Dtype d, Size2 matrix = {8192, 8192}) {
  UserConfig u;
  u.kernel = k->name;
  u.matrix = matrix;
  u.block = {32, 8};
  u.dtype = d;
  return resolve_launch(u);
}

const KernelInfo* float2_padded() {
  static const KernelInfo* k = [] {
    setenv("MEMSIM_CACHE_DIR", MEMSIM_TEST_CACHE_DIR, 1);
    return load_kernel_file(kExamples + "float2_padded.hpp");
  }();
  return k;
}

bool has(const std::vector<std::string>& argv, const std::string& word) {
  return std::find(argv.begin(), argv.end(), word) != argv.end();
}

// The compile-time shape of the configuration: float2_padded's 32x8 covers a 64x64 tile, pad 1; a matrix
// whose indices pass 2^31 keeps 64-bit ones, as the SASS count's instantiation does (codegen/compiled_code.hpp).
TEST(GpuPlugin, InstantiationIsTheConfigurationsStaticShape) {
  const GpuInstantiation f32 = gpu_instantiation(config(float2_padded(), Dtype::F32));
  EXPECT_EQ(f32.storage, "float");
  EXPECT_EQ(f32.shape, "memsim::StaticShape<32, 8, 64, 64, 65, int32_t>");
  const GpuInstantiation f16 = gpu_instantiation(config(float2_padded(), Dtype::F16, {50000, 50000}));
  EXPECT_EQ(f16.storage, "uint16_t");
  EXPECT_EQ(f16.shape, "memsim::StaticShape<32, 8, 64, 64, 65, int64_t>");
}

TEST(GpuPlugin, SourceIncludesTheFileAndListsEachInstantiation) {
  const std::string file = kExamples + "float2_padded.hpp";
  const std::string src = gpu_plugin_source(file, {gpu_instantiation(config(float2_padded(), Dtype::F32)),
                                                   gpu_instantiation(config(float2_padded(), Dtype::F64))});
  EXPECT_NE(src.find("#include \"" + file + "\""), std::string::npos) << src;
  EXPECT_NE(src.find("#include \"validate/gpu_plugin_entry.cuh\""), std::string::npos) << src;
  EXPECT_NE(src.find("entry<memsim_file_kernel, float, memsim::StaticShape<32, 8, 64, 64, 65, int32_t>>()"),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("entry<memsim_file_kernel, double, memsim::StaticShape<32, 8, 64, 64, 65, int32_t>>()"),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("MEMSIM_GPU_PLUGIN_DEFINE_ENTRY(memsim_file_kernel, memsim_gpu_entries)"), std::string::npos);
}

// A suite kernel at a shape the GPU build holds none of: the suite's header, its struct, one entry each.
TEST(GpuPlugin, SuiteSourceNamesTheStructAndEachInstantiation) {
  UserConfig u;
  u.kernel = "padded";
  u.matrix = {8192, 8192};
  u.block = {24, 8};
  u.tile = Size2{48, 48};
  u.dtype = Dtype::F32;
  const LaunchConfig f32 = resolve_launch(u);
  u.dtype = Dtype::F16;
  const LaunchConfig f16 = resolve_launch(u);
  const std::vector<std::string> headers = suite_headers(MEMSIM_SOURCE_DIR);
  EXPECT_NE(std::find(headers.begin(), headers.end(), "kernels/suite/coalesced.hpp"), headers.end());
  EXPECT_TRUE(std::is_sorted(headers.begin(), headers.end()));
  const std::string src = suite_gpu_plugin_source("Padded", {gpu_instantiation(f32), gpu_instantiation(f16)}, headers);
  for (const std::string& h : headers) EXPECT_NE(src.find("#include \"" + h + "\""), std::string::npos) << h;
  EXPECT_NE(src.find("#include \"validate/gpu_plugin_entry.cuh\""), std::string::npos) << src;
  EXPECT_NE(src.find("using memsim_suite_kernel = memsim::suite::Padded;"), std::string::npos) << src;
  // padded pads its shared row by one element: 48 + 1.
  EXPECT_NE(src.find("entry<memsim_suite_kernel, float, memsim::StaticShape<24, 8, 48, 48, 49, int32_t>>()"),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("entry<memsim_suite_kernel, uint16_t, memsim::StaticShape<24, 8, 48, 48, 49, int32_t>>()"),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("MEMSIM_GPU_PLUGIN_DEFINE_ENTRY(memsim_suite_kernel, memsim_gpu_entries)"), std::string::npos);
}

// The suite's flags (-O3, relaxed constexpr), a shared library on the shared CUDA runtime, the defines.
TEST(GpuPlugin, CommandBuildsASharedLibraryForTheArchitecture) {
  const std::vector<std::string> argv = gpu_plugin_command("/opt/cuda/bin/nvcc", "90", {"PAD=2"}, "k.cu", "k.so");
  ASSERT_FALSE(argv.empty());
  EXPECT_EQ(argv.front(), "/opt/cuda/bin/nvcc");
  EXPECT_EQ(argv.back(), "k.cu");
  for (const char* w : {"-shared", "-arch=sm_90", "-O3", "--expt-relaxed-constexpr", "-std=c++17", "-DPAD=2", "-o"})
    EXPECT_TRUE(has(argv, w)) << w;
  const auto cudart = std::find(argv.begin(), argv.end(), "-cudart");
  ASSERT_NE(cudart, argv.end());
  EXPECT_EQ(*(cudart + 1), "shared");
}

}  // namespace
}  // namespace memsim
