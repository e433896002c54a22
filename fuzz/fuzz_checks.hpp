#pragma once
// What the fuzz targets check beyond the sanitizers: an error is one line a user can read, and a report holds
// numbers, not infinities or NaN. A failed check aborts, which libFuzzer reports as a crash with its input.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

namespace memsim::fuzz {

[[noreturn]] inline void fail(const std::string& what, const std::string& detail) {
  std::fprintf(stderr, "fuzz check failed: %s: %s\n", what.c_str(), detail.c_str());
  std::abort();
}

// One non-empty line (main puts "memsim: " before it and a newline after it), unless the input held a newline
// the message echoes (main escapes those: app/cli.hpp, one_line).
inline void check_error_line(const std::string& message, bool input_has_newline) {
  if (message.empty()) fail("an empty error message", "");
  if (!input_has_newline && message.find('\n') != std::string::npos) fail("an error of more than one line", message);
}

// Every number of a report is finite: nlohmann writes NaN and infinity as null, which no reader takes for one.
template <class Json>
void check_finite(const Json& j, const std::string& at = "") {
  if (j.is_number_float() && !std::isfinite(j.template get<double>())) fail("a number that is not finite", at);
  if (j.is_object())
    for (auto it = j.begin(); it != j.end(); ++it) check_finite(it.value(), at + "." + it.key());
  if (j.is_array())
    for (size_t i = 0; i < j.size(); ++i) check_finite(j[i], at + "[" + std::to_string(i) + "]");
}

}  // namespace memsim::fuzz
