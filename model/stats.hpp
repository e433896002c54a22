#pragma once
// How well predictions match measurements: mean absolute percentage error and Spearman's rank correlation.
#include <vector>

namespace memsim {

// mean(|predicted - measured| / measured) x 100. Throws std::invalid_argument for different lengths, no
// pairs, or a measured value <= 0.
double mape(const std::vector<double>& predicted, const std::vector<double>& measured);
// Largest |predicted - measured| / measured x 100, with the same checks.
double max_ape(const std::vector<double>& predicted, const std::vector<double>& measured);
// Pearson correlation of the ranks (ties get their average rank). Throws for different lengths or fewer
// than 2 pairs; 0 when either side is constant.
double spearman(const std::vector<double>& a, const std::vector<double>& b);
// Ranks 1..n, ties averaged.
std::vector<double> ranks(const std::vector<double>& v);

}  // namespace memsim
