#include "model/json_fields.hpp"

#include <cmath>

#include "model/profile.hpp"

namespace memsim {

using nlohmann::json;

JsonFields::JsonFields(const json& obj, std::string where, std::string prefix)
    : obj_(obj), where_(std::move(where)), prefix_(std::move(prefix)) {}

const json* JsonFields::find(const std::string& path) const {
  const json* node = &obj_;
  size_t start = 0;
  while (start <= path.size()) {
    const size_t dot = path.find('.', start);
    const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!node->is_object()) return nullptr;
    const auto it = node->find(key);
    if (it == node->end()) return nullptr;
    node = &*it;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return node;
}

const json& JsonFields::need(const std::string& path) const {
  const json* v = find(path);
  if (!v) fail(path, "is missing");
  return *v;
}

double JsonFields::number(const std::string& path) const {
  const json& v = need(path);
  if (!v.is_number()) fail(path, "must be a number, got " + type_of(v));
  const double x = v.get<double>();
  if (!std::isfinite(x)) fail(path, std::string("must be finite, got ") + (std::isnan(x) ? "nan" : x > 0 ? "inf" : "-inf"));
  return x;
}

double JsonFields::positive(const std::string& path) const {
  const double v = number(path);
  if (!(v > 0)) fail(path, "must be positive, got " + need(path).dump());
  return v;
}

double JsonFields::non_negative(const std::string& path) const {
  const double v = number(path);
  if (v < 0) fail(path, "must not be negative, got " + need(path).dump());
  return v;
}

double JsonFields::at_least(const std::string& path, double lo) const {
  const double v = number(path);
  if (v < lo) fail(path, "must be at least " + json(lo).dump() + ", got " + need(path).dump());
  return v;
}

double JsonFields::number_or(const std::string& path, double fallback) const {
  return find(path) ? number(path) : fallback;
}

double JsonFields::non_negative_or(const std::string& path, double fallback) const {
  return find(path) ? non_negative(path) : fallback;
}

int64_t JsonFields::count(const std::string& path) const {
  const json& n = need(path);
  if (n.is_number_unsigned() && n.get<uint64_t>() > uint64_t(INT64_MAX)) fail(path, "is out of range");
  if (!n.is_number_integer() || n.get<int64_t>() <= 0) fail(path, "must be a positive integer");
  return n.get<int64_t>();
}

int64_t JsonFields::count_to(const std::string& path, int64_t hi) const {
  const int64_t v = count(path);
  if (v > hi) fail(path, "must be at most " + std::to_string(hi));
  return v;
}

int JsonFields::small(const std::string& path) const {
  const int64_t v = count(path);
  if (v > 1 << 30) fail(path, "is out of range");
  return int(v);
}

int JsonFields::power_of_two(const std::string& path, int lo, int hi) const {
  const int64_t v = count(path);
  if (v < lo || v > hi || (v & (v - 1)) != 0)
    fail(path, "must be a power of two from " + std::to_string(lo) + " to " + std::to_string(hi));
  return int(v);
}

int64_t JsonFields::integer(const std::string& path, int64_t lo, int64_t hi) const {
  const double v = number(path);
  if (v != std::floor(v) || v < double(lo) || v > double(hi))
    fail(path, "must be an integer from " + bound(lo) + " to " + bound(hi) + ", got " + need(path).dump());
  return int64_t(v);
}

std::string JsonFields::text(const std::string& path) const {
  const json& v = need(path);
  if (!v.is_string() || v.get<std::string>().empty()) fail(path, "must be a non-empty string, got " + v.dump());
  return v.get<std::string>();
}

std::string JsonFields::text_or(const std::string& path, const std::string& fallback) const {
  return find(path) ? text(path) : fallback;
}

void JsonFields::numbers(const std::string& path, int n, const std::string& what, bool zero_allowed,
                         double* out) const {
  const json& a = need(path);
  if (!a.is_array() || int(a.size()) != n) fail(path, "must be " + std::to_string(n) + " numbers (" + what + ")");
  for (int i = 0; i < n; ++i) {
    const bool ok = a[i].is_number() && std::isfinite(a[i].get<double>()) &&
                    (zero_allowed ? a[i].get<double>() >= 0 : a[i].get<double>() > 0);
    if (!ok) fail(path, zero_allowed ? "must hold numbers that are not negative" : "must hold positive numbers");
    out[i] = a[i].get<double>();
  }
}

JsonFields JsonFields::object(const std::string& path) const {
  const json& v = need(path);
  if (!v.is_object()) fail(path, "must be a JSON object, got " + type_of(v));
  return JsonFields(v, where_, prefix_ + path + ".");
}

void JsonFields::fail(const std::string& path, const std::string& why) const {
  throw ProfileError(where_ + ": field '" + prefix_ + path + "' " + why);
}

std::string JsonFields::bound(int64_t v) {
  if (v >= (1 << 20) && (v & (v - 1)) == 0) {
    int k = 0;
    while ((int64_t(1) << k) < v) ++k;
    return "2^" + std::to_string(k);
  }
  return std::to_string(v);
}

std::string JsonFields::type_of(const json& v) {
  return std::string(v.type_name()) + (v.is_primitive() ? " " + v.dump() : "");
}

}  // namespace memsim
