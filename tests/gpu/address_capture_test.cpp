// The GPU's addresses against the replay's (validate/address_check.hpp): the kernels the GPU runs compute, lane
// by lane and occurrence by occurrence, exactly the addresses memsim counts.
#include <gtest/gtest.h>

#include "gpu_test_support.hpp"
#include "kernels/registry.hpp"
#include "validate/address_check.hpp"
#include "validate/capture_format.hpp"
#include "validate/sweep.hpp"

namespace memsim::validate::testing {

std::vector<std::string> suite_names() {
  std::vector<std::string> names;
  for (const KernelInfo& k : kernel_suite()) names.emplace_back(k.name);
  return names;
}

class AddressCapture : public GpuTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(AddressCapture, GpuAddressesEqualTheReplay) {
  // Whole tiles and ragged edges (100x72 is no multiple of a 32-wide tile), both block shapes of the seeds.
  const std::vector<LaunchConfig> cfgs = configs(GetParam(), {{96, 64}, {100, 72}}, {{32, 8}, {16, 16}, {8, 32}});
  ASSERT_FALSE(cfgs.empty());
  for (const LaunchConfig& cfg : cfgs) {
    const AddressCheck c = check_addresses(cfg);
    EXPECT_TRUE(c.passed()) << config_label(cfg) << ": " << c.first_mismatch;
    EXPECT_EQ(c.blocks, cfg.blocks()) << config_label(cfg);
    EXPECT_GT(c.lane_accesses, 0) << config_label(cfg);
  }
}

INSTANTIATE_TEST_SUITE_P(Suite, AddressCapture, ::testing::ValuesIn(suite_names()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

// The check is worth something only if it sees a difference: shift one captured address by one element, then
// switch one lane off, and expect exactly that warp access to be reported.
TEST_F(GpuTest, ACorruptedCaptureIsCaught) {
  UserConfig u;
  u.kernel = "padded";
  u.matrix = {64, 64};
  const LaunchConfig cfg = resolve_launch(u, limits_);
  const int capacity = max_site_occurrences(cfg);
  ASSERT_EQ(capacity, 4);  // 32x8 threads over a 32x32 tile: four steps per site
  ::memsim::validate::AddressCapture cap = capture_addresses(cfg, 0, cfg.blocks(), capacity);
  ASSERT_TRUE(compare_with_replay(cfg, cap).passed());

  size_t victim = 0;
  while (victim < cap.slots.size() && cap.slots[victim] < 0) ++victim;
  ASSERT_LT(victim, cap.slots.size());
  const int64_t original = cap.slots[victim];
  cap.slots[victim] = original + pack_capture(4, 0);
  // Both of the replay's recorders (its fast path and the grouping Recorder) see the one difference.
  AddressCheck shifted = compare_with_replay(cfg, cap);
  EXPECT_FALSE(shifted.passed());
  EXPECT_EQ(shifted.mismatches, 2);
  EXPECT_NE(shifted.first_mismatch.find("byte offset"), std::string::npos) << shifted.first_mismatch;

  cap.slots[victim] = kCaptureInactive;
  AddressCheck inactive = compare_with_replay(cfg, cap);
  EXPECT_EQ(inactive.mismatches, 2);
  EXPECT_NE(inactive.first_mismatch.find("active lanes differ"), std::string::npos) << inactive.first_mismatch;
}

}  // namespace memsim::validate::testing
