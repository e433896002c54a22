#pragma once
// What a message may echo of a user's text (an option's value, a file name, a key of a document): at most
// `cap` characters, control characters escaped (\n, \t, \xNN), so that an error stays one short line whatever
// was typed or read (a 100 kB --device name printed the whole name).
#include <cstddef>
#include <string>

namespace memsim {

inline std::string echo_text(const std::string& s, size_t cap = 80) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  size_t shown = 0;
  for (const char c : s) {
    if (shown == cap) return out + "... (" + std::to_string(s.size()) + " bytes)";
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7f) out += c;
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else out += std::string("\\x") + hex[u >> 4] + hex[u & 15];
    ++shown;
  }
  return out;
}

}  // namespace memsim
