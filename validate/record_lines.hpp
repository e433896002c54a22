// The layout of the committed JSON run documents (validate/results/README.md, "Files"), for the
// programs that write them (memsim-validate, memsim-microbench); validate/record_lines.py is the same for the
// scripts. Header-only, so that the CPU-only tests check it without CUDA.
//
// record_lines(doc): the top-level object's keys one per line; an array that holds objects or arrays (records,
// runs, rows) one element per line, each element compact; an object that holds objects or arrays one key per
// line, its values laid out by the same rule; anything else (a scalar, an array of scalars, an object of those)
// compact on its key's line. Compact is nlohmann's dump(): "," and ":" with no spaces, floats in a form that
// round-trips (not always repr's shortest: record_lines.py's in_layout allows for that). The text parses back
// to the same document (an ordered_json keeps the key order).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace memsim {

namespace record_lines_detail {

// A value written on one line wherever it sits: a scalar, an array of scalars, an empty object.
template <class Json>
bool flat(const Json& v) {
  if (!v.is_structured()) return true;
  if (v.is_object() && !v.empty()) return false;
  for (const auto& e : v)
    if (e.is_structured()) return false;
  return true;
}

template <class Json>
void layout(const Json& v, int indent, std::string& out) {
  const std::string pad(size_t(indent), ' ');
  bool expand = false;
  if (v.is_object() && !v.empty()) {
    expand = indent == 0;
    for (const auto& e : v) expand = expand || !flat(e);
  }
  if (expand) {
    out += "{\n";
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it, first = false) {
      out += (first ? "" : ",\n") + pad + " " + Json(it.key()).dump() + ":";
      layout(it.value(), indent + 1, out);
    }
    out += "\n" + pad + "}";
  } else if (v.is_array() && !flat(v)) {
    out += "[\n";
    for (size_t i = 0; i < v.size(); ++i) out += (i ? ",\n" : "") + pad + " " + v[i].dump();
    out += "\n" + pad + "]";
  } else {
    out += v.dump();
  }
}

}  // namespace record_lines_detail

// doc as one-record-per-line JSON text, ending in a newline.
template <class Json>
std::string record_lines(const Json& doc) {
  std::string out;
  record_lines_detail::layout(doc, 0, out);
  return out + "\n";
}

}  // namespace memsim
