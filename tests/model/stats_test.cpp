#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "model/stats.hpp"

namespace memsim {
namespace {

TEST(Stats, Mape) {
  // |110-100|/100 = 10%, |45-50|/50 = 10%, |200-200| = 0 -> mean 6.667%.
  EXPECT_NEAR(mape({110, 45, 200}, {100, 50, 200}), 20.0 / 3.0, 1e-12);
  EXPECT_NEAR(max_ape({110, 45, 260}, {100, 50, 200}), 30.0, 1e-12);
  EXPECT_THROW(mape({1, 2}, {1}), std::invalid_argument);
  EXPECT_THROW(mape({}, {}), std::invalid_argument);
  EXPECT_THROW(mape({1}, {0}), std::invalid_argument);
}

TEST(Stats, Median) {
  EXPECT_EQ(median({3, 1, 2}), 2.0);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);  // the mean of the middle two
  EXPECT_EQ(median({7}), 7.0);
  EXPECT_THROW(median({}), std::invalid_argument);
}

TEST(Stats, RanksAverageTies) {
  const std::vector<double> r = ranks({10, 30, 20, 30});
  EXPECT_EQ(r, (std::vector<double>{1, 3.5, 2, 3.5}));
}

TEST(Stats, Spearman) {
  EXPECT_NEAR(spearman({1, 2, 3, 4}, {10, 20, 30, 45}), 1.0, 1e-12);
  EXPECT_NEAR(spearman({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0, 1e-12);
  // One adjacent swap among 4: d^2 = 2, rho = 1 - 6 * 2 / (4 * 15) = 0.8.
  EXPECT_NEAR(spearman({1, 2, 3, 4}, {1, 3, 2, 4}), 0.8, 1e-12);
  // Ties: ranks (1, 2.5, 2.5, 4) against (1, 2, 3, 4): Pearson of ranks = 4.5 / sqrt(4.5 * 5) = 0.9487.
  EXPECT_NEAR(spearman({1, 5, 5, 9}, {1, 2, 3, 4}), 4.5 / std::sqrt(4.5 * 5.0), 1e-12);
  EXPECT_EQ(spearman({2, 2, 2}, {1, 2, 3}), 0.0);
  EXPECT_THROW(spearman({1}, {1}), std::invalid_argument);
}

// A NaN or an infinity is no statistic: refused, not passed on as "MAPE nan%".
TEST(Stats, MapeRefusesNonFiniteValues) {
  const double nan = std::nan(""), inf = HUGE_VAL;
  EXPECT_THROW(mape({1}, {nan}), std::invalid_argument);
  EXPECT_THROW(mape({1}, {inf}), std::invalid_argument);
  EXPECT_THROW(mape({nan}, {1}), std::invalid_argument);
  EXPECT_THROW(max_ape({1, -inf}, {1, 1}), std::invalid_argument);
  EXPECT_THROW(mape({1}, {-3}), std::invalid_argument);
  // A negative prediction is a number (a bad one): |(-1) - 1| / 1 = 200%.
  EXPECT_NEAR(mape({-1}, {1}), 200.0, 1e-12);
}

TEST(Stats, RanksRefuseNaN) {
  EXPECT_THROW(ranks({1, std::nan(""), 2}), std::invalid_argument);
  EXPECT_THROW(spearman({1, 2, 3}, {1, std::nan(""), 3}), std::invalid_argument);
}

// Fewer than 2 pairs: no rank order, so nothing (a summary prints it as n/a) rather than a made-up 1.
TEST(Stats, SpearmanOrNone) {
  EXPECT_FALSE(spearman_or_none({}, {}).has_value());
  EXPECT_FALSE(spearman_or_none({5}, {7}).has_value());
  ASSERT_TRUE(spearman_or_none({1, 2}, {2, 1}).has_value());
  EXPECT_NEAR(*spearman_or_none({1, 2}, {2, 1}), -1.0, 1e-12);
  EXPECT_NEAR(*spearman_or_none({1, 2, 3, 4}, {1, 3, 2, 4}), 0.8, 1e-12);
  EXPECT_THROW(spearman_or_none({1, 2}, {1}), std::invalid_argument);
}

// Worked by hand: measured {100, 101, 112, 200}, predicted {100, 99, 120, 150}. Separations: 100/101 1%
// (predicted the other way round), 100/112 12%, 101/112 10.9%, and the three pairs with 200 25% or more
// (78.6%, 98%, 100%), all predicted in the measured order.
TEST(Stats, PairOrderBySeparation) {
  std::vector<PairOrderBand> bands = pair_order_bands({0, 0.02, 0.05, 0.10, 0.25});
  ASSERT_EQ(bands.size(), 5u);
  EXPECT_TRUE(std::isinf(bands[4].to));
  count_pair_order({100, 99, 120, 150}, {100, 101, 112, 200}, bands);
  const long pairs[] = {1, 0, 0, 2, 3}, agreeing[] = {0, 0, 0, 2, 3};
  for (int b = 0; b < 5; ++b) {
    EXPECT_EQ(bands[b].pairs, pairs[b]) << "band " << b;
    EXPECT_EQ(bands[b].agreeing, agreeing[b]) << "band " << b;
  }
  // A second group adds to the same bands; a predicted tie is no agreement; equal measurements have no order.
  count_pair_order({7, 7, 3}, {10, 10.1, 10.1}, bands);  // (10, 10.1) twice, 1%: a tie, the wrong way; (10.1, 10.1) left out
  EXPECT_EQ(bands[0].pairs, 3);
  EXPECT_EQ(bands[0].agreeing, 0);
}

TEST(Stats, PairOrderRefusesBadInput) {
  EXPECT_THROW(pair_order_bands({}), std::invalid_argument);
  EXPECT_THROW(pair_order_bands({0.01, 0.1}), std::invalid_argument);
  EXPECT_THROW(pair_order_bands({0, 0.1, 0.1}), std::invalid_argument);
  std::vector<PairOrderBand> bands = pair_order_bands({0});
  EXPECT_THROW(count_pair_order({1, 2}, {1}, bands), std::invalid_argument);
  EXPECT_THROW(count_pair_order({1, 2}, {1, 0}, bands), std::invalid_argument);
  count_pair_order({1, 2}, {1, 3}, bands);
  EXPECT_EQ(bands[0].pairs, 1);
  EXPECT_EQ(bands[0].agreeing, 1);
}

}  // namespace
}  // namespace memsim
