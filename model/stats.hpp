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
// The middle value (of an even count, the mean of the middle two). Throws std::invalid_argument when empty.
double median(std::vector<double> v);
// Ranks 1..n, ties averaged. Throws std::invalid_argument for a NaN.
std::vector<double> ranks(const std::vector<double>& v);

// Which of two kernels is faster, asked of every pair of one group, sorted by how far apart the pair measured:
// separation = slower / faster - 1 of the measured times, in [from, to). A pair agrees when the prediction
// orders it the same way (a predicted tie does not); pairs measured exactly equal have no order and are left
// out. Spearman weighs a swap of two kernels 1% apart like one of kernels 20% apart; this says how far apart
// two kernels must be for the prediction to tell them apart.
struct PairOrderBand {
  double from, to;  // separation bounds (0.02 = 2%); `to` may be infinity
  long pairs = 0, agreeing = 0;
};
// Bands [edges[i], edges[i+1]) for the given increasing edges, the last open to infinity. Throws
// std::invalid_argument for no edges, a first edge other than 0 or edges not increasing.
std::vector<PairOrderBand> pair_order_bands(const std::vector<double>& edges);
// Adds the pairs of one group (predicted[i], measured[i] of the same configuration) to `bands`, with the
// checks of mape().
void count_pair_order(const std::vector<double>& predicted, const std::vector<double>& measured,
                      std::vector<PairOrderBand>& bands);

}  // namespace memsim
