#pragma once
// Calibration: the cost constants no data sheet gives, fitted by least squares to microbenchmark times.
// The residual of a measurement is log(predicted / measured), so every kernel weighs by its relative error
// whatever its length; Levenberg-Marquardt (Eigen) minimises their sum of squares over the constants in
// log space (positive by construction).
#include <stdexcept>
#include <string>
#include <vector>

#include "lab/calibration/microbench_records.hpp"
#include "model/profile.hpp"

namespace memsim {

// The constants memsim-calibrate fits; the others stay as the profile gives them.
struct FitParameter {
  const char* name;
  double CostConstants::*scalar;     // a single constant, or nullptr for an element of an array:
  double (CostConstants::*array)[3];  // an array by lane-width class (partial_store_ps, read_back_ps_per_byte)
  int index;                          // ... and the element
};
const std::vector<FitParameter>& fit_parameters();
double get_parameter(const CostConstants& c, const FitParameter& p);
void set_parameter(CostConstants& c, const FitParameter& p, double v);

struct FitResult {
  CostConstants constants;
  std::vector<std::string> fitted;     // parameters the measurements determined
  std::vector<std::string> held;       // parameters no measurement moved (kept as the profile had them)
  std::vector<double> predicted_us;    // per measurement, with the fitted constants
  double rms_log_error = 0;            // sqrt(mean(residual^2))
  int iterations = 0;
  // Fitted constants more than kMaxFactorFromPrior from a positive prior, one line each: the measurements
  // hardly determine them (kept, since a constant the runs do not exercise may be right for them, but said);
  // and those driven to nothing, set to 0 (kNegligibleFromPrior).
  std::vector<std::string> warnings;
};

// A fit the measurements cannot support: fewer measurements than the constants they move, or a fitted
// constant that is not a positive finite number. The message says which constants; the caller names the
// document.
struct FitError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A fitted constant this many times above or below a positive prior gets a warning: no data sheet or earlier
// calibration is that far off, so the measurements hardly determine it (one run fitted
// l1_cycles_per_wavefront = 1.9e-11).
constexpr double kMaxFactorFromPrior = 1e6;

// A fitted constant below this share of its positive prior has been driven to nothing (the fit works on
// logs: log x walking off to -250 and below): the runs need no such cost. It is set to 0, the profile's "not
// charged", with a line in FitResult::warnings. Far below any value a constant that is merely undetermined
// reaches (1.9e-11 above), which stays a warning.
constexpr double kNegligibleFromPrior = 1e-30;

// No data: the profile's constants, nothing fitted. Throws FitError for a measured time that is not positive
// and finite, for fewer measurements than the constants they move, for a fitted constant that is not finite
// or is negative, and for a prediction that is not finite and positive. A constant driven below
// kNegligibleFromPrior of a positive prior becomes 0, with a line in FitResult::warnings. A constant more than kMaxFactorFromPrior from a positive prior is kept
// with a line in FitResult::warnings (overlap_p, on [1, inf) by construction, is only checked for finiteness).
// `hold`: names of fit_parameters() kept at the base's values whatever the runs say (the caller checks the
// names).
FitResult fit_constants(const DeviceProfile& base, const std::vector<Measurement>& data, int max_iterations = 200,
                        const std::vector<std::string>& hold = {});

}  // namespace memsim
