#pragma once
// How well predictions match measurements: mean absolute percentage error and Spearman's rank correlation.
#include <optional>
#include <vector>

namespace memsim {

// mean(|predicted - measured| / measured) x 100. Throws std::invalid_argument for different lengths, no
// pairs, a measured value <= 0 or not finite, or a predicted value not finite.
double mape(const std::vector<double>& predicted, const std::vector<double>& measured);
// Largest |predicted - measured| / measured x 100, with the same checks.
double max_ape(const std::vector<double>& predicted, const std::vector<double>& measured);
// Pearson correlation of the ranks (ties get their average rank). Throws for different lengths or fewer
// than 2 pairs (a caller that may have fewer says so itself: spearman_or_none) or a NaN; 0 when either side
// is constant.
double spearman(const std::vector<double>& a, const std::vector<double>& b);
// Spearman where it is defined (2 pairs or more), else nothing: a summary of one pair has no rank order.
std::optional<double> spearman_or_none(const std::vector<double>& a, const std::vector<double>& b);
// Ranks 1..n, ties averaged. Throws std::invalid_argument for a NaN.
std::vector<double> ranks(const std::vector<double>& v);

}  // namespace memsim
