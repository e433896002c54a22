// significant(): figures for people with a given number of significant digits, in plain decimals. Expected
// strings written out by hand.
#include <gtest/gtest.h>

#include "model/significant.hpp"

namespace memsim {
namespace {

TEST(Significant, KeepsTheDigitsOfSmallAndLargeValues) {
  EXPECT_EQ(significant(0), "0");
  EXPECT_EQ(significant(0.0012077), "0.001208");        // 8 bytes over 6.624 us, in GB/s
  EXPECT_EQ(significant(0.0012077, 2), "0.0012");
  EXPECT_EQ(significant(23.456), "23.46");
  EXPECT_EQ(significant(6.62), "6.620");
  EXPECT_EQ(significant(1981.284), "1981");
  EXPECT_EQ(significant(1234567.8), "1234568");         // no exponent: every digit before the point stays
  EXPECT_EQ(significant(100.0, 3), "100");
  EXPECT_EQ(significant(3.126, 3), "3.13");
  EXPECT_EQ(significant(-0.5), "-0.5000");
  EXPECT_EQ(significant(1e-20), "1.000e-20");            // past 15 decimals: an exponent, never 0.000
}

}  // namespace
}  // namespace memsim
