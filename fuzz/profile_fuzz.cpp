// libFuzzer target over device profiles, read as load_profile_file reads a file (parse_profile). An input
// that starts with '{' is a profile's text; any other is a list of edits to a shipped profile (the first byte
// picks which), each 11 bytes: a leaf (2 bytes, modulo the profile's leaves: numbers, strings, booleans, the
// XOR bits), an operation and 8 bytes for its value: a double or an integer as such, one of a table of values
// at and past the ranges' edges, or the leaf removed. Text mutations seldom keep a 9 KB profile valid; edits
// reach the range checks and the predictions with any combination of values.
// A profile refused says why in one line; one accepted predicts a few small launches with finite, positive
// times that some device could take: no profile within the physical ranges (model/profile.cpp) may predict
// a 64x64 transpose slower than 10 s (4e296 us was the finding that asked for the ranges).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "report/analysis.hpp"
#include "report/report.hpp"
#include "fuzz/fuzz_checks.hpp"
#include "model/profile.hpp"

namespace {

using namespace memsim;
using nlohmann::json;

constexpr double kSlowestSmallLaunchUs = 1e7;

struct Base {
  json doc;
  std::vector<json::json_pointer> leaves;
};

void collect(const json& v, const json::json_pointer& at, std::vector<json::json_pointer>& out) {
  if (v.is_object()) {
    for (const auto& [k, item] : v.items()) collect(item, at / k, out);
  } else if (v.is_array()) {
    for (size_t i = 0; i < v.size(); ++i) collect(v[i], at / i, out);
  } else {
    out.push_back(at);
  }
}

const std::vector<Base>& bases() {
  static const std::vector<Base> all = [] {
    std::vector<Base> b;
    for (const std::string& name : list_profiles()) {
      std::ifstream in(device_dir() + "/" + name + ".json");
      Base base{json::parse(in), {}};
      collect(base.doc, json::json_pointer(), base.leaves);
      b.push_back(std::move(base));
    }
    if (b.empty()) fuzz::fail("no shipped profiles to edit", device_dir());
    return b;
  }();
  return all;
}

const double kEdges[] = {0.0, -0.0, 1.0, -1.0, 0.5, 0.05, 0.049, 1e-300, 5e-324, 1e300, 1.7e308, 100.0, 100.5,
                         1000.0, 1e4, 10000.5, 1e5, 100001.0, 1e6, 1e12, 1e13, 4096.0, 4097.0, 65536.0, 65537.0,
                         2147483647.0, 2147483648.0, 4294967296.0, 9007199254740993.0, 9.3e18, -9.3e18};
const int64_t kIntEdges[] = {0, 1, -1, 2, 3, 16, 31, 32, 33, 64, 255, 256, 1023, 1024, 1025, 2048, 4096, 4097,
                             65536, 65537, 1 << 20, (1 << 20) + 1, 1 << 22, 1 << 26, (1 << 26) + 1, 1 << 30,
                             2147483647, 2147483648LL, 4294967297LL, std::numeric_limits<int64_t>::max(),
                             std::numeric_limits<int64_t>::min()};

std::string edited(const uint8_t* data, size_t size) {
  const Base& base = bases()[data[0] % bases().size()];
  json doc = base.doc;
  for (size_t at = 1; at + 11 <= size; at += 11) {
    const json::json_pointer& leaf = base.leaves[(data[at] | data[at + 1] << 8) % base.leaves.size()];
    if (!doc.contains(leaf)) continue;  // removed with its parent
    uint64_t bits;
    std::memcpy(&bits, data + at + 3, 8);
    double d;
    std::memcpy(&d, &bits, 8);
    switch (data[at + 2] % 6) {
      case 0: doc[leaf] = d; break;  // NaN and infinities dump as null
      case 1: doc[leaf] = int64_t(bits); break;
      case 2: doc[leaf] = kEdges[bits % std::size(kEdges)]; break;
      case 3: doc[leaf] = kIntEdges[bits % std::size(kIntEdges)]; break;
      case 4: doc[leaf] = uint64_t(bits); break;
      case 5: doc[leaf.parent_pointer()].is_object() ? void(doc[leaf.parent_pointer()].erase(leaf.back()))
                                                     : void(doc[leaf] = nullptr); break;
    }
  }
  return doc.dump();
}

UserConfig launch(const char* kernel, Dtype dtype, Size2 block) {
  UserConfig u;
  u.kernel = kernel;
  u.matrix = {64, 64};
  u.block = block;
  u.dtype = dtype;
  return u;
}

void predict_small_launches(const DeviceProfile& p) {
  AnalysisOptions options;
  options.threads = 1;
  for (const UserConfig& u : {launch("padded", Dtype::F32, {32, 8}), launch("naive", Dtype::F64, {16, 16}),
                              launch("vec4_shared", Dtype::F16, {16, 4})}) {
    try {
      const Analysis a = analyze(u, p, options);
      fuzz::check_finite(report_json(a));
      const Prediction& pr = a.prediction;
      if (!(pr.time_us > 0) || !(pr.time_us < kSlowestSmallLaunchUs))
        fuzz::fail("a 64x64 " + u.kernel + " predicted in " + std::to_string(pr.time_us) + " us", p.name);
      for (const auto& [term, t] : pr.terms_us)
        if (!(t >= 0) || t > pr.time_us) fuzz::fail("term " + term + " of " + std::to_string(t) + " us", u.kernel);
    } catch (const ConfigError& e) {  // a launch this device does not take (a small block limit, say)
      fuzz::check_error_line(e.what(), false);
    } catch (const ProfileError& e) {  // a register table naming no kernel: refused by the analysis, as memsim does
      fuzz::check_error_line(e.what(), true);
      return;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0 || size > 1 << 16) return 0;  // a profile is a few KiB
  const bool text = data[0] == '{';
  const std::string doc = text ? std::string(reinterpret_cast<const char*>(data), size) : edited(data, size);
  // To see what an input of edits reads as: MEMSIM_FUZZ_PRINT=1 build/fuzz/profile_fuzz INPUT (docs/testing.md).
  static const bool print = std::getenv("MEMSIM_FUZZ_PRINT") != nullptr;
  if (print) std::fprintf(stderr, "%s\n", doc.c_str());
  DeviceProfile p;
  try {
    p = parse_profile(doc, "fuzz", "fuzz input");
  } catch (const ProfileError& e) {
    // A key the input wrote is echoed as written (kernel_registers' keys); the shipped profiles' are one line.
    fuzz::check_error_line(e.what(), text);
    return 0;
  }
  predict_small_launches(p);
  return 0;
}
