#pragma once
// Reading the fields of a JSON document (a device profile, a microbenchmark run, a validation run) so that
// every error names the document and the field by its path ("dram.partitions.count", "counts.blocks"): a
// field missing, of the wrong type or out of range. It never uses operator[] on a key that may be missing
// (on a const json that reads out of bounds). Errors are ProfileError (model/profile.hpp).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace memsim {

class JsonFields {
 public:
  // `where` opens every message ("device profile model/devices/h100.json", "run.json: runs[5] (copy)");
  // `prefix` is the path of `obj` itself within the record, for nested objects ("time_us.").
  JsonFields(const nlohmann::json& obj, std::string where, std::string prefix = "");

  const nlohmann::json* find(const std::string& path) const;  // dotted path; nullptr when absent
  const nlohmann::json& need(const std::string& path) const;

  double number(const std::string& path) const;  // finite (1e999 reads as infinity)
  double positive(const std::string& path) const;
  double non_negative(const std::string& path) const;
  double at_least(const std::string& path, double lo) const;
  double number_or(const std::string& path, double fallback) const;
  // A field older documents lack: `fallback` when absent, else checked like non_negative.
  double non_negative_or(const std::string& path, double fallback) const;
  // A JSON integer > 0 (an unsigned one past 2^63 - 1 is out of range, not wrapped).
  int64_t count(const std::string& path) const;
  int64_t count_to(const std::string& path, int64_t hi) const;
  int small(const std::string& path) const;  // a count up to 2^30
  int power_of_two(const std::string& path, int lo, int hi) const;
  // A whole number in [lo, hi], written as an integer or not (256.0 is 256).
  int64_t integer(const std::string& path, int64_t lo, int64_t hi) const;
  std::string text(const std::string& path) const;  // a non-empty string
  std::string text_or(const std::string& path, const std::string& fallback) const;
  // Exactly n numbers (`what` says which, for the message) into out[0..n), each positive, or not negative
  // when zero_allowed.
  void numbers(const std::string& path, int n, const std::string& what, bool zero_allowed, double* out) const;
  // A nested object, whose fields' paths carry its own ("time_us.median").
  JsonFields object(const std::string& path) const;

  const nlohmann::json& self() const { return obj_; }
  const std::string& where() const { return where_; }
  [[noreturn]] void fail(const std::string& path, const std::string& why) const;

  static std::string bound(int64_t v);  // 1073741824 reads better as 2^30
  static std::string type_of(const nlohmann::json& v);

 private:
  const nlohmann::json& obj_;
  std::string where_, prefix_;
};

}  // namespace memsim
