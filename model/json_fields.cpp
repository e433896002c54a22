#include "model/json_fields.hpp"

#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>
#include <vector>

#include "model/profile.hpp"
#include "model/user_text.hpp"

namespace memsim {

namespace {

// How a number that is not finite reads in a message; dump() writes it as null.
const char* non_finite_name(double x) { return std::isnan(x) ? "nan" : x > 0 ? "inf" : "-inf"; }

bool within(double v, const NumberRange& r) { return (r.lo_open ? v > r.lo : v >= r.lo) && v <= r.hi; }

std::string plain(double v) {  // 100000, 0.05, 1e+09: a bound as a reader writes it
  std::ostringstream os;
  os << v;
  return os.str();
}

}  // namespace

nlohmann::json parse_strict_json(const std::string& text, const std::string& where, int max_depth) {
  using nlohmann::json;
  std::vector<std::set<std::string>> seen;  // the keys of each object open, innermost last
  std::vector<std::string> path;            // the keys down to the current object or array ("[]" in arrays)
  std::string last_key;
  const json::parser_callback_t check = [&](int depth, json::parse_event_t event, json& parsed) {
    if (depth > max_depth)
      throw ProfileError(where + ": nests objects or arrays more than " + std::to_string(max_depth) + " deep");
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        path.push_back(last_key);
        seen.emplace_back();
        last_key = "[]";
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!path.empty()) path.pop_back(), seen.pop_back();
        break;
      case json::parse_event_t::key:
        last_key = parsed.get<std::string>();
        if (!seen.empty() && !seen.back().insert(last_key).second) {
          std::string full;  // "runs[].time_us.median"
          for (size_t i = 1; i < path.size(); ++i) full += (path[i] == "[]" || full.empty() ? "" : ".") + path[i];
          full += (full.empty() ? "" : ".") + last_key;
          throw ProfileError(where + ": field '" + echo_text(full) +
                             "' is given twice (JSON keeps only one of them)");
        }
        break;
      case json::parse_event_t::value:
        break;
    }
    return true;
  };
  return json::parse(text, check);
}

void raise_profile_error(const std::string& where, const std::string& path, const std::string& why) {
  throw ProfileError(where + ": field '" + path + "' " + why);
}

template <class Json>
BasicJsonFields<Json>::BasicJsonFields(const Json& obj, std::string where, std::string prefix, RaiseFieldError raise)
    : obj_(obj), where_(std::move(where)), prefix_(std::move(prefix)), raise_(raise) {}

template <class Json>
const Json* BasicJsonFields<Json>::find(const std::string& path) const {
  const Json* node = &obj_;
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

template <class Json>
const Json& BasicJsonFields<Json>::need(const std::string& path) const {
  const Json* v = find(path);
  if (!v) fail(path, "is missing");
  return *v;
}

template <class Json>
double BasicJsonFields<Json>::number(const std::string& path) const {
  const Json& v = need(path);
  if (!v.is_number()) fail(path, "must be a number, got " + type_of(v));
  const double x = v.template get<double>();
  if (!std::isfinite(x)) fail(path, std::string("must be finite, got ") + non_finite_name(x));
  return x;
}

template <class Json>
double BasicJsonFields<Json>::positive(const std::string& path) const {
  const double v = number(path);
  if (!(v > 0)) fail(path, "must be positive, got " + need(path).dump());
  return v;
}

template <class Json>
double BasicJsonFields<Json>::non_negative(const std::string& path) const {
  const double v = number(path);
  if (v < 0) fail(path, "must not be negative, got " + need(path).dump());
  return v;
}

template <class Json>
double BasicJsonFields<Json>::at_least(const std::string& path, double lo) const {
  const double v = number(path);
  if (v < lo) fail(path, "must be at least " + Json(lo).dump() + ", got " + need(path).dump());
  return v;
}

template <class Json>
double BasicJsonFields<Json>::number_in(const std::string& path, const NumberRange& range) const {
  const double v = number(path);
  if (!within(v, range))
    fail(path, "must be " + describe(range) + ", got " + need(path).dump());
  return v;
}

template <class Json>
double BasicJsonFields<Json>::number_in_or(const std::string& path, const NumberRange& range, double fallback) const {
  return find(path) ? number_in(path, range) : fallback;
}

template <class Json>
double BasicJsonFields<Json>::number_or(const std::string& path, double fallback) const {
  return find(path) ? number(path) : fallback;
}

template <class Json>
double BasicJsonFields<Json>::non_negative_or(const std::string& path, double fallback) const {
  return find(path) ? non_negative(path) : fallback;
}

template <class Json>
std::optional<double> BasicJsonFields<Json>::null_or_number(const std::string& path) const {
  const Json& v = need(path);
  if (v.is_null()) return std::nullopt;
  if (!v.is_number()) fail(path, "must be a number or null, got " + type_of(v));
  return number(path);
}

template <class Json>
int64_t BasicJsonFields<Json>::count(const std::string& path) const {
  const Json& n = need(path);
  if (n.is_number_unsigned() && n.template get<uint64_t>() > uint64_t(INT64_MAX)) fail(path, "is out of range");
  if (!n.is_number_integer() || n.template get<int64_t>() <= 0) fail(path, "must be a positive integer");
  return n.template get<int64_t>();
}

template <class Json>
int64_t BasicJsonFields<Json>::count_to(const std::string& path, int64_t hi) const {
  const int64_t v = count(path);
  if (v > hi) fail(path, "must be at most " + bound(hi) + ", got " + std::to_string(v));
  return v;
}

template <class Json>
int64_t BasicJsonFields<Json>::count_in(const std::string& path, int64_t lo, int64_t hi, const char* unit) const {
  const int64_t v = count(path);
  if (v < lo || v > hi)
    fail(path, "must be from " + bound(lo) + " to " + bound(hi) + (*unit ? " " : "") + unit + ", got " +
                   std::to_string(v));
  return v;
}

template <class Json>
int BasicJsonFields<Json>::power_of_two(const std::string& path, int lo, int hi) const {
  const int64_t v = count(path);
  if (v < lo || v > hi || (v & (v - 1)) != 0)
    fail(path, "must be a power of two from " + bound(lo) + " to " + bound(hi) + ", got " + std::to_string(v));
  return int(v);
}

template <class Json>
int64_t BasicJsonFields<Json>::integer(const std::string& path, int64_t lo, int64_t hi) const {
  const double v = number(path);
  if (v != std::floor(v) || v < double(lo) || v > double(hi))
    fail(path, "must be an integer from " + bound(lo) + " to " + bound(hi) + ", got " + need(path).dump());
  return int64_t(v);
}

template <class Json>
int64_t BasicJsonFields<Json>::integer_literal(const std::string& path, int64_t lo, int64_t hi) const {
  const Json& v = need(path);
  const auto wrong = [&] {
    fail(path,
         "must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) + ", got " + type_of(v));
  };
  if (!v.is_number_integer()) wrong();
  if (v.is_number_unsigned() && v.template get<uint64_t>() > uint64_t(hi)) wrong();  // before it wraps to int64
  const int64_t x = v.template get<int64_t>();
  if (x < lo || x > hi) wrong();
  return x;
}

template <class Json>
bool BasicJsonFields<Json>::boolean(const std::string& path) const {
  const Json& v = need(path);
  if (!v.is_boolean()) fail(path, "must be true or false, got " + type_of(v));
  return v.template get<bool>();
}

template <class Json>
std::string BasicJsonFields<Json>::text(const std::string& path) const {
  const Json& v = need(path);
  if (!v.is_string() || v.template get<std::string>().empty())
    fail(path, "must be a non-empty string, got " + v.dump());
  return v.template get<std::string>();
}

template <class Json>
std::string BasicJsonFields<Json>::text_or(const std::string& path, const std::string& fallback) const {
  return find(path) ? text(path) : fallback;
}

template <class Json>
std::string BasicJsonFields<Json>::string(const std::string& path) const {
  const Json& v = need(path);
  if (!v.is_string()) fail(path, "must be a string, got " + type_of(v));
  return v.template get<std::string>();
}

template <class Json>
std::optional<std::string> BasicJsonFields<Json>::null_or_string(const std::string& path) const {
  const Json& v = need(path);
  if (v.is_null()) return std::nullopt;
  if (!v.is_string()) fail(path, "must be a string or null, got " + type_of(v));
  return v.template get<std::string>();
}

template <class Json>
void BasicJsonFields<Json>::numbers_in(const std::string& path, int n, const std::string& what,
                                       const NumberRange& range, double* out) const {
  const Json& a = need(path);
  if (!a.is_array() || int(a.size()) != n) fail(path, "must be " + std::to_string(n) + " numbers (" + what + ")");
  const BasicJsonFields items(a, where_, prefix_ + path, raise_);
  for (int i = 0; i < n; ++i) {
    const std::string item = "[" + std::to_string(i) + "]";
    if (!a[i].is_number()) items.fail(item, "must be a number (" + what + "), got " + type_of(a[i]));
    const double v = a[i].template get<double>();
    if (!std::isfinite(v)) items.fail(item, std::string("must be finite, got ") + non_finite_name(v));
    if (!within(v, range))
      items.fail(item, "must be " + describe(range) + ", got " + a[i].dump());
    out[i] = v;
  }
}

template <class Json>
const Json& BasicJsonFields<Json>::array(const std::string& path) const {
  const Json& v = need(path);
  if (!v.is_array()) fail(path, "must be an array, got " + type_of(v));
  return v;
}

template <class Json>
BasicJsonFields<Json> BasicJsonFields<Json>::object(const std::string& path) const {
  return nested(need(path), path);
}

template <class Json>
std::optional<BasicJsonFields<Json>> BasicJsonFields<Json>::null_or_object(const std::string& path) const {
  const Json& v = need(path);
  if (v.is_null()) return std::nullopt;
  if (!v.is_object()) fail(path, "must be a JSON object or null, got " + type_of(v));
  return nested(v, path);
}

template <class Json>
BasicJsonFields<Json> BasicJsonFields<Json>::item(const std::string& path, size_t i) const {
  const Json& a = array(path);
  const std::string p = path + "[" + std::to_string(i) + "]";
  if (i >= a.size()) fail(p, "is missing");
  return nested(a[i], p);
}

template <class Json>
BasicJsonFields<Json> BasicJsonFields<Json>::member(const std::string& path, const std::string& key) const {
  const Json& map = object(path).self();
  const std::string p = path + "[" + Json(key).dump() + "]";
  const auto it = map.find(key);  // whole: the key's dots are its own
  if (it == map.end()) fail(p, "is missing");
  return nested(*it, p);
}

template <class Json>
BasicJsonFields<Json> BasicJsonFields<Json>::nested(const Json& v, const std::string& path) const {
  if (!v.is_object()) fail(path, "must be a JSON object, got " + type_of(v));
  return BasicJsonFields(v, where_, prefix_ + path + ".", raise_);
}

template <class Json>
void BasicJsonFields<Json>::fail(const std::string& path, const std::string& why) const {
  raise_(where_, prefix_ + path, why);
  std::abort();  // raise_ throws; one that returned would be the reader's bug, not the document's
}

template <class Json>
std::string BasicJsonFields<Json>::bound(int64_t v) {
  if (v >= (1 << 20) && (v & (v - 1)) == 0) {
    int k = 0;
    while ((int64_t(1) << k) < v) ++k;
    return "2^" + std::to_string(k);
  }
  return std::to_string(v);
}

template <class Json>
std::string BasicJsonFields<Json>::describe(const NumberRange& r) {
  const std::string unit = *r.unit ? std::string(" ") + r.unit : std::string();
  if (r.lo_open) return "above " + plain(r.lo) + " and at most " + plain(r.hi) + unit;
  return "from " + plain(r.lo) + " to " + plain(r.hi) + unit;
}

template <class Json>
std::string BasicJsonFields<Json>::type_of(const Json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return v.dump();
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  if (v.is_number_float() && !std::isfinite(v.template get<double>()))
    return std::string("number ") + non_finite_name(v.template get<double>());
  std::string text = v.dump();  // one line: JSON escapes control characters
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return (v.is_string() ? "string " : "number ") + text;
}

template class BasicJsonFields<nlohmann::json>;
template class BasicJsonFields<nlohmann::ordered_json>;

}  // namespace memsim
