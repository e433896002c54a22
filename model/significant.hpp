#pragma once
// Figures for people: a value with a given number of significant digits in plain decimal notation, so that a
// small bandwidth reads 0.00160 rather than 0.0, and a large time 1981 rather than 1981.28436.
#include <cmath>
#include <cstdio>
#include <string>

namespace memsim {

// "0" for zero; otherwise at least `digits` significant digits, never an exponent (1234567 keeps every
// digit before the point). Not for NaN or infinities, which print as the C library spells them.
inline std::string significant(double v, int digits = 4) {
  if (v == 0) return "0";
  if (!std::isfinite(v)) return std::to_string(v);
  const int magnitude = int(std::floor(std::log10(std::fabs(v))));
  int decimals = digits - 1 - magnitude;
  if (decimals < 0) decimals = 0;
  if (decimals > 15) decimals = 15;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace memsim
