#pragma once
// Figures for people: a value with a given number of significant digits in plain decimal notation, so that a
// small bandwidth reads 0.00160 rather than 0.0, and a large time 1981 rather than 1981.28436.
#include <cmath>
#include <cstdio>
#include <string>

namespace memsim {

// "0" for zero; otherwise at least `digits` significant digits, without an exponent (1234567 keeps every
// digit before the point) unless more than 15 decimals would be needed (1e-20 prints as 1.000e-20). NaN and
// infinities print as the C library spells them.
inline std::string significant(double v, int digits = 4) {
  char buf[400];
  if (v == 0) return "0";
  const int magnitude = std::isfinite(v) ? int(std::floor(std::log10(std::fabs(v)))) : 0;
  const int decimals = digits - 1 - magnitude;
  if (decimals > 15)
    std::snprintf(buf, sizeof buf, "%.*e", digits - 1, v);
  else
    std::snprintf(buf, sizeof buf, "%.*f", decimals < 0 ? 0 : decimals, v);
  return buf;
}

}  // namespace memsim
