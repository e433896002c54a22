#pragma once
// Reading the fields of a JSON document (a device profile, a microbenchmark run, a validation run) so that
// every error names the document and the field by its path ("dram.partitions.count", "counts.blocks",
// "records[3].metrics[\"dram__bytes_read.sum\"].measured"): a field missing, of the wrong type or out of
// range. It never uses operator[] on a key that may be missing (on a const json that reads out of bounds).
//
// One reader for every document; what differs between them is only how an error reaches the caller (see
// RaiseFieldError) and which flavour of nlohmann JSON holds the document: profiles and microbenchmark runs
// are read as json, validation runs as ordered_json (their re-renders keep the order the run wrote).
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace memsim {

// Throws the error a reader's callers catch. `where` is the document (and record) the reader was made with,
// `path` the field's path from there, `why` what is wrong ("is missing", "must be a number, got null").
// Must not return.
using RaiseFieldError = void (*)(const std::string& where, const std::string& path, const std::string& why);

// A number's physical range, for a message: "must be from 1 to 100000 GB/s" or, with lo_open, "must be above
// 0 and at most 10000 ps" (a rate or a cost that 0 would make infinite or meaningless).
struct NumberRange {
  double lo, hi;
  bool lo_open;
  const char* unit;  // "" when the number has none
};

// The profile and microbenchmark readers' errors: ProfileError (model/profile.hpp),
// "<where>: field '<path>' <why>"; the quotes set the path apart from a record named in `where`
// ("run.json: runs[5] (copy): field 'time_us.median' must be positive, got 0").
[[noreturn]] void raise_profile_error(const std::string& where, const std::string& path, const std::string& why);

// Parses `text` as JSON, refusing what nlohmann would take silently: a key given twice in one object (it keeps
// the last) and nesting deeper than `max_depth`. Both throw ProfileError, "<where>: field 'a.b' is given twice
// (JSON keeps only one of them)" or "<where>: nests objects or arrays more than N deep"; a syntax error is
// nlohmann's json::exception, for the caller to word.
nlohmann::json parse_strict_json(const std::string& text, const std::string& where, int max_depth);

template <class Json>
class BasicJsonFields {
 public:
  // `where` opens every message ("device profile model/devices/h100.json", "run.json: runs[5] (copy)");
  // `prefix` is the path of `obj` itself within the record, for nested objects ("time_us.").
  BasicJsonFields(const Json& obj, std::string where, std::string prefix = "",
                  RaiseFieldError raise = raise_profile_error);

  const Json* find(const std::string& path) const;  // dotted path; nullptr when absent
  const Json& need(const std::string& path) const;

  double number(const std::string& path) const;  // finite (1e999 reads as infinity)
  double positive(const std::string& path) const;
  double non_negative(const std::string& path) const;
  double at_least(const std::string& path, double lo) const;
  // A finite number within `range`; the message names the value and the range.
  double number_in(const std::string& path, const NumberRange& range) const;
  // A field older documents lack: `fallback` when absent, else checked like number_in.
  double number_in_or(const std::string& path, const NumberRange& range, double fallback) const;
  double number_or(const std::string& path, double fallback) const;
  // A field older documents lack: `fallback` when absent, else checked like non_negative.
  double non_negative_or(const std::string& path, double fallback) const;
  // Present: null (nullopt), or a finite number.
  std::optional<double> null_or_number(const std::string& path) const;
  // A JSON integer > 0 (an unsigned one past 2^63 - 1 is out of range, not wrapped).
  int64_t count(const std::string& path) const;
  int64_t count_to(const std::string& path, int64_t hi) const;
  // A count (as count) from lo to hi; the message names the value and the range.
  int64_t count_in(const std::string& path, int64_t lo, int64_t hi, const char* unit = "") const;
  int power_of_two(const std::string& path, int lo, int hi) const;
  // A whole number in [lo, hi], written as an integer or not (256.0 is 256).
  int64_t integer(const std::string& path, int64_t lo, int64_t hi) const;
  // A JSON integer in [lo, hi], written as one (not 32.0, not "32"): what a program that writes integers
  // wrote, where anything else means the document is not its output.
  int64_t integer_literal(const std::string& path, int64_t lo, int64_t hi) const;
  bool boolean(const std::string& path) const;  // true or false
  std::string text(const std::string& path) const;  // a non-empty string
  std::string text_or(const std::string& path, const std::string& fallback) const;
  // Any string, the empty one too (ids and details a program wrote); null_or_string: present, null (nullopt)
  // or a string.
  std::string string(const std::string& path) const;
  std::optional<std::string> null_or_string(const std::string& path) const;
  // Exactly n numbers (`what` says which, for the message) into out[0..n), each within `range`; an item out
  // of it is named by its index ("ps_per_byte[1]").
  void numbers_in(const std::string& path, int n, const std::string& what, const NumberRange& range, double* out) const;
  const Json& array(const std::string& path) const;

  // Nested objects, whose fields' paths carry their own: object("time_us") reads "time_us.median";
  // item("records", 3) reads "records[3].id"; member("metrics", "dram__bytes_read.sum") reads
  // "metrics[\"dram__bytes_read.sum\"].measured" (keys of such maps hold dots, so they are named as JSON
  // strings and looked up whole). Each must be an object; null_or_object gives nullopt for null.
  BasicJsonFields object(const std::string& path) const;
  std::optional<BasicJsonFields> null_or_object(const std::string& path) const;
  BasicJsonFields item(const std::string& path, size_t i) const;
  BasicJsonFields member(const std::string& path, const std::string& key) const;

  const Json& self() const { return obj_; }
  const std::string& where() const { return where_; }
  [[noreturn]] void fail(const std::string& path, const std::string& why) const;

  static std::string bound(int64_t v);  // 1073741824 reads better as 2^30
  static std::string describe(const NumberRange& r);  // "from 1 to 100000 GB/s"
  // What a value is, for a message: `string "fast"`, `number 0`, `true`, `null`, `an array`, `an object`
  // (a long string cut to 40 characters: a message stays one readable line).
  static std::string type_of(const Json& v);

 private:
  BasicJsonFields nested(const Json& v, const std::string& path) const;

  const Json& obj_;
  std::string where_, prefix_;
  RaiseFieldError raise_;
};

using JsonFields = BasicJsonFields<nlohmann::json>;
using OrderedJsonFields = BasicJsonFields<nlohmann::ordered_json>;
extern template class BasicJsonFields<nlohmann::json>;
extern template class BasicJsonFields<nlohmann::ordered_json>;

}  // namespace memsim
