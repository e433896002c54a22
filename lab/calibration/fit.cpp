#include "lab/calibration/fit.hpp"

#include <algorithm>
#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
#include <string>

#include "model/cost.hpp"

namespace memsim {
namespace {

// overlap_p lives in [1, inf): fitted as log(p - 1) so every parameter is an unconstrained real.
double to_x(const FitParameter& p, double v) { return std::log(p.scalar == &CostConstants::overlap_p ? std::max(v - 1, 1e-6) : v); }
double from_x(const FitParameter& p, double x) { return p.scalar == &CostConstants::overlap_p ? 1 + std::exp(x) : std::exp(x); }

Eigen::VectorXd residuals(DeviceProfile& prof, const std::vector<FitParameter>& ps, const Eigen::VectorXd& x,
                          const std::vector<Measurement>& data) {
  for (size_t i = 0; i < ps.size(); ++i) set_parameter(prof.cost, ps[i], from_x(ps[i], x[Eigen::Index(i)]));
  Eigen::VectorXd r(data.size());
  for (size_t i = 0; i < data.size(); ++i)
    r[Eigen::Index(i)] = std::log(predict(data[i].counts, prof).time_us / data[i].time_us);
  return r;
}

std::string shown(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// Nothing degenerate leaves the fit: a constant the profile would carry (and every later prediction use)
// must be finite, and positive where its prior is. A prior of 0 (a cost the profile did not charge; the fit
// starts it at 1) may come back as 0 (exp underflows on the way), which is the profile's own "not charged",
// and has no scale to compare with. One more than kMaxFactorFromPrior from a positive prior is kept but said:
// the runs may not exercise it (a launch cost next to milliseconds of stores), and the caller decides.
// overlap_p lives on [1, inf) and both ends mean something.
void check_fitted(const CostConstants& prior, FitResult& out, const std::vector<FitParameter>& ps,
                  const std::vector<Measurement>& data) {
  for (const FitParameter& p : ps) {
    double v = get_parameter(out.constants, p);
    const double p0 = get_parameter(prior, p);
    const std::string what = std::string("fitted ") + p.name + " = " + shown(v);
    if (!std::isfinite(v) || v < 0) throw FitError(what + " is not a positive number: the runs do not determine it");
    // Driven to nothing (exp underflowing to 0, or to 1e-111): the runs need no such cost. The profile keeps
    // a plain 0, the term's "not charged", and says so.
    if (p.scalar != &CostConstants::overlap_p && p0 > 0 && v < p0 * kNegligibleFromPrior) {
      set_parameter(out.constants, p, 0.0);
      out.warnings.push_back(std::string("fitted ") + p.name + " to 0 from the profile's " + shown(p0) +
                             ": the runs need no such cost, and the profile no longer charges it");
      continue;
    }
    if (p.scalar == &CostConstants::overlap_p || !(p0 > 0)) continue;
    if (v > p0 * kMaxFactorFromPrior || v < p0 / kMaxFactorFromPrior)
      out.warnings.push_back(what + " is more than " + shown(kMaxFactorFromPrior) + " times " +
                             (v > p0 ? "above" : "below") + " the profile's " + shown(p0) +
                             ": the profile's value is far off, or the runs hardly exercise it");
  }
  for (size_t i = 0; i < data.size(); ++i) {
    const double t = out.predicted_us[i];
    if (!std::isfinite(t) || !(t > 0))
      throw FitError("the fitted constants predict " + shown(t) + " us for " +
                     (data[i].where.empty() ? "run " + std::to_string(i) : data[i].where));
  }
  if (!std::isfinite(out.rms_log_error)) throw FitError("the fit's rms log error is not finite");
}

}  // namespace

const std::vector<FitParameter>& fit_parameters() {
  // The read-back's cost per byte is fitted for the wider lanes only: the 4-byte one comes from
  // memsim-partial-lines' launch-order pairs (lab/calibration/fit_read_back.py), which the strided stores
  // here cannot separate from the cost of their requests.
  static const std::vector<FitParameter> all{
      {"dram_gbs", &CostConstants::dram_gbs, nullptr, -1},
      {"partial_store_ps[4B]", nullptr, &CostConstants::partial_store_ps, 0},
      {"partial_store_ps[8B]", nullptr, &CostConstants::partial_store_ps, 1},
      {"partial_store_ps[16B]", nullptr, &CostConstants::partial_store_ps, 2},
      {"read_back_ps_per_byte[8B]", nullptr, &CostConstants::read_back_ps_per_byte, 1},
      {"read_back_ps_per_byte[16B]", nullptr, &CostConstants::read_back_ps_per_byte, 2},
      {"l1_cycles_per_wavefront", &CostConstants::l1_cycles_per_wavefront, nullptr, -1},
      {"l2_write_slot_ps", &CostConstants::l2_write_slot_ps, nullptr, -1},
      {"scattered_read_ps_per_byte", &CostConstants::scattered_read_ps_per_byte, nullptr, -1},
      {"scattered_write_ps_per_byte", &CostConstants::scattered_write_ps_per_byte, nullptr, -1},
      {"split_sector_ps", &CostConstants::split_sector_ps, nullptr, -1},
      {"split_sector_per_log2_distance", &CostConstants::split_sector_per_log2_distance, nullptr, -1},
      {"latency_us", &CostConstants::latency_us, nullptr, -1},
      {"l2_request_ns", &CostConstants::l2_request_ns, nullptr, -1},
      {"block_us", &CostConstants::block_us, nullptr, -1},
      {"barrier_us", &CostConstants::barrier_us, nullptr, -1},
      {"block_drain_rounds", &CostConstants::block_drain_rounds, nullptr, -1},
      {"block_launch_ns", &CostConstants::block_launch_ns, nullptr, -1},
      {"launch_us", &CostConstants::launch_us, nullptr, -1},
      {"overlap_p", &CostConstants::overlap_p, nullptr, -1},
  };
  return all;
}

double get_parameter(const CostConstants& c, const FitParameter& p) {
  return p.scalar ? c.*(p.scalar) : (c.*(p.array))[p.index];
}
void set_parameter(CostConstants& c, const FitParameter& p, double v) {
  if (p.scalar) c.*(p.scalar) = v;
  else (c.*(p.array))[p.index] = v;
}

FitResult fit_constants(const DeviceProfile& base, const std::vector<Measurement>& data, int max_iterations,
                        const std::vector<std::string>& hold) {
  DeviceProfile prof = base;
  const std::vector<FitParameter>& all = fit_parameters();
  FitResult out;
  if (data.empty()) {
    out.constants = base.cost;
    return out;
  }
  // The residual is the log of a ratio: a measured time or a starting prediction that is not positive and
  // finite makes every residual after it NaN (read_microbench refuses such records; this is the fit's own
  // guard for other callers).
  for (size_t i = 0; i < data.size(); ++i) {
    const std::string run = data[i].where.empty() ? "run " + std::to_string(i) : data[i].where;
    if (!std::isfinite(data[i].time_us) || !(data[i].time_us > 0))
      throw FitError(run + ": the measured time must be positive and finite, got " + shown(data[i].time_us));
    const double t = predict(data[i].counts, base).time_us;
    if (!std::isfinite(t) || !(t > 0)) throw FitError(run + ": the profile predicts " + shown(t) + " us for it");
  }
  // A parameter no measurement is sensitive to is held at its prior (e.g. no 16-byte partial stores). A prior
  // of 0 (a cost the profile does not charge yet) starts from 1 instead: in log space 0 would never move. A
  // held one stays at its prior, 0 included (log 0 = -inf, exp(-inf) = 0), also while the others are probed:
  // at 1 it could hide them (a launch rate of 1 ns a block is a floor over a million blocks).
  const auto is_held = [&](const FitParameter& p) { return std::find(hold.begin(), hold.end(), p.name) != hold.end(); };
  Eigen::VectorXd x0(all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    const double prior = get_parameter(base.cost, all[i]);
    x0[Eigen::Index(i)] = to_x(all[i], prior > 0 || is_held(all[i]) ? prior : 1.0);
  }
  std::vector<FitParameter> ps;
  std::vector<double> xs;
  {
    const Eigen::VectorXd r0 = residuals(prof, all, x0, data);
    for (size_t i = 0; i < all.size(); ++i) {
      Eigen::VectorXd x = x0;
      x[Eigen::Index(i)] += 0.05;
      const double moved = (residuals(prof, all, x, data) - r0).cwiseAbs().maxCoeff();
      if (moved > 1e-6 && !is_held(all[i])) {
        ps.push_back(all[i]);
        xs.push_back(x0[Eigen::Index(i)]);
        out.fitted.push_back(all[i].name);
      } else {
        out.held.push_back(all[i].name);
      }
    }
    prof.cost = base.cost;  // back to the priors, 0 included, for the held ones
  }
  // Fewer residuals than unknowns: the least-squares problem has a family of exact solutions, and LM walks
  // to any one of them (one run fitted l1_cycles_per_wavefront = 1.9e-11).
  if (data.size() < ps.size()) {
    std::string names;
    for (const FitParameter& p : ps) names += (names.empty() ? "" : ", ") + std::string(p.name);
    throw FitError(std::to_string(data.size()) + " usable run" + (data.size() == 1 ? "" : "s") + " for " +
                   std::to_string(ps.size()) + " constants to fit (" + names + "): a fit needs at least as many runs "
                   "as constants");
  }

  Eigen::VectorXd x = Eigen::Map<Eigen::VectorXd>(xs.data(), Eigen::Index(xs.size()));
  Eigen::VectorXd r = residuals(prof, ps, x, data);
  double cost = r.squaredNorm(), lambda = 1e-3;
  const double h = 1e-5;
  for (out.iterations = 0; out.iterations < max_iterations; ++out.iterations) {
    Eigen::MatrixXd J(r.size(), x.size());
    for (Eigen::Index j = 0; j < x.size(); ++j) {
      Eigen::VectorXd xh = x;
      xh[j] += h;
      J.col(j) = (residuals(prof, ps, xh, data) - r) / h;
    }
    const Eigen::MatrixXd JtJ = J.transpose() * J;
    const Eigen::VectorXd g = J.transpose() * r;
    bool improved = false, converged = false;
    while (lambda < 1e10) {
      Eigen::MatrixXd A = JtJ;
      A.diagonal() += lambda * (JtJ.diagonal().array() + 1e-12).matrix();
      const Eigen::VectorXd step = A.ldlt().solve(-g);
      const Eigen::VectorXd xn = x + step;
      const Eigen::VectorXd rn = residuals(prof, ps, xn, data);
      if (rn.allFinite() && rn.squaredNorm() < cost) {
        const double gain = cost - rn.squaredNorm();
        x = xn, r = rn, cost = rn.squaredNorm();
        lambda = std::max(lambda / 3, 1e-9);
        improved = true;
        converged = gain < 1e-12 * std::max(1.0, cost);
        break;
      }
      lambda *= 4;
    }
    if (!improved || converged) {
      ++out.iterations;  // this one counts
      break;
    }
  }
  r = residuals(prof, ps, x, data);
  out.constants = prof.cost;
  out.rms_log_error = std::sqrt(r.squaredNorm() / double(r.size()));
  for (const Measurement& m : data) out.predicted_us.push_back(predict(m.counts, prof).time_us);
  check_fitted(base.cost, out, ps, data);
  return out;
}

}  // namespace memsim
