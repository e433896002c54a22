#pragma once
// A kernel's memory access sites: one per load or store in its source. The replay groups lanes by
// (site, occurrence) into warp accesses, and reports every count per site under these names.
#include <cstdint>

namespace memsim {

enum class Space : uint8_t { Global, Shared };
enum class Op : uint8_t { Load, Store };

struct SiteInfo {
  const char* name;  // short label, e.g. "ld in"
  Space space;
  Op op;
  const char* expr;  // the access as the source writes it, for the reader of a report
};

}  // namespace memsim
