#pragma once
// Calibration: the cost constants no data sheet gives, fitted by least squares to microbenchmark times.
// The residual of a measurement is log(predicted / measured), so every kernel weighs by its relative error
// whatever its length; Levenberg-Marquardt (Eigen) minimises their sum of squares over the constants in
// log space (positive by construction).
#include <string>
#include <vector>

#include "model/microbench.hpp"
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
};

FitResult fit_constants(const DeviceProfile& base, const std::vector<Measurement>& data, int max_iterations = 200);

}  // namespace memsim
