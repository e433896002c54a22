// memsim-validate --kernel-file's GPU plugin compiled by nvcc, where nvcc is found (skipped elsewhere), and
// its table read: loading it needs the CUDA runtime library, not a GPU. The examples at 32x8 in f32 and f64,
// from the cache the second time; a file nvcc refuses (tests/codegen/kernel_files/host_only.hpp) gives nvcc's
// first error and one line.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "codegen/compiled_code.hpp"
#include "codegen/gpu_plugin.hpp"
#include "codegen/kernel_file.hpp"
#include "kernels/resolve.hpp"

namespace memsim {
namespace {

const std::string kSource = std::string(MEMSIM_SOURCE_DIR) + "/";

const KernelInfo* load(const std::string& file) {
  setenv("MEMSIM_CACHE_DIR", MEMSIM_TEST_CACHE_DIR, 1);
  return load_kernel_file(kSource + file);
}

std::vector<LaunchConfig> configs(const KernelInfo* k) {
  std::vector<LaunchConfig> out;
  for (Dtype d : {Dtype::F32, Dtype::F64}) {
    UserConfig u;
    u.kernel = k->name;
    u.matrix = {8192, 8192};
    u.block = {32, 8};
    u.dtype = d;
    out.push_back(resolve_launch(u));
  }
  return out;
}

bool have_nvcc() { return !find_toolkit().nvcc.empty() && !find_toolkit().version.empty(); }

void expect_table(const KernelInfo* k, const char* symbol) {
  const std::vector<LaunchConfig> cfgs = configs(k);
  const GpuPlugin p = load_gpu_plugin(*k, cfgs, "90");
  ASSERT_NE(p.table, nullptr);
  EXPECT_STREQ(p.table->kernel_name, k->name);
  EXPECT_STREQ(p.table->symbol, symbol);  // namespace example dropped, as ncu prints it
  EXPECT_EQ(p.arch, "sm_90");
  ASSERT_EQ(p.table->num_entries, 2);
  for (int i = 0; i < 2; ++i) {
    const memsim_gpu_entry_v1& e = p.table->entries[i];
    const LaunchShape& s = cfgs[size_t(i)].shape;
    EXPECT_EQ(e.dtype, int(cfgs[size_t(i)].dtype));
    EXPECT_EQ(e.block_x, 32);
    EXPECT_EQ(e.block_y, 8);
    EXPECT_EQ(e.tile_x, s.tile_x);
    EXPECT_EQ(e.tile_y, s.tile_y);
    EXPECT_EQ(e.smem_row, s.smem_row);
    EXPECT_EQ(e.index_bytes, 4);
    EXPECT_NE(e.launch, nullptr);
    EXPECT_NE(e.capture, nullptr);
    EXPECT_NE(e.function(), nullptr);
  }
  EXPECT_TRUE(load_gpu_plugin(*k, cfgs, "90").cached);
}

TEST(GpuPluginNvcc, Float2PaddedCompilesAndLoads) {
  if (!have_nvcc()) GTEST_SKIP() << "no nvcc";
  expect_table(load("examples/float2_padded.hpp"), "Float2Padded");
}

TEST(GpuPluginNvcc, CopyVec4CompilesAndLoads) {
  if (!have_nvcc()) GTEST_SKIP() << "no nvcc";
  expect_table(load("examples/copy_vec4.hpp"), "CopyVec4");
}

// A suite kernel at a block and tile the GPU build has no instantiation of: memsim-validate compiles it so,
// from the suite's own header (codegen/gpu_plugin.hpp, load_suite_gpu_plugin); the cache the second time.
TEST(GpuPluginNvcc, SuiteKernelAtANewShapeCompilesAndLoads) {
  if (!have_nvcc()) GTEST_SKIP() << "no nvcc";
  setenv("MEMSIM_CACHE_DIR", MEMSIM_TEST_CACHE_DIR, 1);
  std::vector<LaunchConfig> cfgs;
  for (Dtype d : {Dtype::F32, Dtype::F64}) {
    UserConfig u;
    u.kernel = "copy_shared";
    u.matrix = {4096, 4096};
    u.block = {24, 4};
    u.tile = Size2{48, 48};
    u.dtype = d;
    cfgs.push_back(resolve_launch(u));
  }
  const GpuPlugin p = load_suite_gpu_plugin(*cfgs[0].kernel, "CopyShared", cfgs, "90");
  ASSERT_NE(p.table, nullptr);
  EXPECT_STREQ(p.table->kernel_name, "copy_shared");
  EXPECT_STREQ(p.table->symbol, "CopyShared");
  ASSERT_EQ(p.table->num_entries, 2);
  for (int i = 0; i < 2; ++i) {
    const memsim_gpu_entry_v1& e = p.table->entries[i];
    EXPECT_EQ(e.dtype, int(cfgs[size_t(i)].dtype));
    EXPECT_EQ(e.block_x, 24);
    EXPECT_EQ(e.block_y, 4);
    EXPECT_EQ(e.tile_x, 48);
    EXPECT_EQ(e.tile_y, 48);
    EXPECT_EQ(e.smem_row, cfgs[size_t(i)].shape.smem_row);
    EXPECT_NE(e.function(), nullptr);
  }
  EXPECT_TRUE(load_suite_gpu_plugin(*cfgs[0].kernel, "CopyShared", cfgs, "90").cached);
}

TEST(GpuPluginNvcc, AFileNvccRefusesGivesItsFirstError) {
  if (!have_nvcc()) GTEST_SKIP() << "no nvcc";
  const KernelInfo* k = load("tests/codegen/kernel_files/host_only.hpp");
  try {
    load_gpu_plugin(*k, configs(k), "90");
    FAIL() << "nvcc compiled a body that calls an undeclared function on the GPU";
  } catch (const KernelFileError& e) {
    const std::string line = e.what();
    EXPECT_EQ(line.find("cannot compile kernel file "), 0u) << line;
    EXPECT_NE(line.find("for the GPU"), std::string::npos) << line;
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
    EXPECT_NE(e.detail.find("undeclared_on_the_gpu"), std::string::npos) << e.detail;
  }
}

}  // namespace
}  // namespace memsim
