#include "model/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace memsim {
namespace {

void check_pairs(const std::vector<double>& p, const std::vector<double>& m) {
  if (p.size() != m.size()) throw std::invalid_argument("mape: predicted and measured differ in length");
  if (p.empty()) throw std::invalid_argument("mape: no pairs");
  // A NaN or an infinity would come out as the statistic itself: "MAPE nan%" is no answer.
  for (double v : m)
    if (!(v > 0) || !std::isfinite(v)) throw std::invalid_argument("mape: measured values must be positive and finite");
  for (double v : p)
    if (!std::isfinite(v)) throw std::invalid_argument("mape: predicted values must be finite");
}

}  // namespace

double median(std::vector<double> v) {
  if (v.empty()) throw std::invalid_argument("median: no values");
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double mape(const std::vector<double>& predicted, const std::vector<double>& measured) {
  check_pairs(predicted, measured);
  double sum = 0;
  for (size_t i = 0; i < predicted.size(); ++i) sum += std::abs(predicted[i] - measured[i]) / measured[i];
  return 100.0 * sum / double(predicted.size());
}

double max_ape(const std::vector<double>& predicted, const std::vector<double>& measured) {
  check_pairs(predicted, measured);
  double worst = 0;
  for (size_t i = 0; i < predicted.size(); ++i)
    worst = std::max(worst, std::abs(predicted[i] - measured[i]) / measured[i]);
  return 100.0 * worst;
}

std::vector<double> ranks(const std::vector<double>& v) {
  // NaN breaks the strict weak order the sort needs (undefined behaviour), and has no rank anyway.
  for (double x : v)
    if (std::isnan(x)) throw std::invalid_argument("ranks: NaN has no rank");
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    const double avg = 0.5 * double(i + j) + 1.0;  // positions i..j share their mean rank
    for (size_t k = i; k <= j; ++k) r[order[k]] = avg;
    i = j + 1;
  }
  return r;
}

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) throw std::invalid_argument("spearman: the two series differ in length");
  if (a.size() < 2) throw std::invalid_argument("spearman: needs at least 2 pairs");
  const std::vector<double> ra = ranks(a), rb = ranks(b);
  const double n = double(a.size()), mean = (n + 1) / 2;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    sab += (ra[i] - mean) * (rb[i] - mean);
    saa += (ra[i] - mean) * (ra[i] - mean);
    sbb += (rb[i] - mean) * (rb[i] - mean);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0.0;
}

std::vector<PairOrderBand> pair_order_bands(const std::vector<double>& edges) {
  if (edges.empty() || edges.front() != 0) throw std::invalid_argument("pair_order_bands: the first edge must be 0");
  std::vector<PairOrderBand> bands;
  for (size_t i = 0; i < edges.size(); ++i) {
    const double to = i + 1 < edges.size() ? edges[i + 1] : std::numeric_limits<double>::infinity();
    if (!(to > edges[i])) throw std::invalid_argument("pair_order_bands: edges must increase");
    bands.push_back({edges[i], to});
  }
  return bands;
}

void count_pair_order(const std::vector<double>& predicted, const std::vector<double>& measured,
                      std::vector<PairOrderBand>& bands) {
  check_pairs(predicted, measured);
  for (size_t i = 0; i < measured.size(); ++i)
    for (size_t j = i + 1; j < measured.size(); ++j) {
      if (measured[i] == measured[j]) continue;
      const double separation = std::max(measured[i], measured[j]) / std::min(measured[i], measured[j]) - 1;
      const bool agrees = (measured[i] < measured[j]) ? predicted[i] < predicted[j] : predicted[i] > predicted[j];
      for (PairOrderBand& b : bands)
        if (separation >= b.from && separation < b.to) {
          ++b.pairs;
          b.agreeing += agrees;
        }
    }
}

std::optional<double> spearman_or_none(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) throw std::invalid_argument("spearman: the two series differ in length");
  if (a.size() < 2) return std::nullopt;
  return spearman(a, b);
}

}  // namespace memsim
