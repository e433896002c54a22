#pragma once
// The boundary between memsim and a kernel compiled at run time from a user's file (memsim --kernel-file,
// docs/kernel_interface.md). Narrow on purpose: one extern "C" entry point returns a table of plain function
// pointers; what crosses is plain records whose layout memsim's headers fix (KernelInfo, LaunchShape,
// BufferLayout, WarpAccess, ThreadCoord) and a sink of C callbacks. No std:: type crosses, so the plugin
// needs no symbol of memsim's executable and any compiler with the platform's C ABI may build it. The table
// records what it was built against; memsim refuses a plugin whose records differ from its own.
#include <cstdint>

#include <cstddef>

#include "kernels/kernel_info.hpp"
#include "kernels/launch_shape.hpp"
#include "kernels/plugin.hpp"
#include "sim/recorder.hpp"
#include "sim/warp_access.hpp"

// The entry point's name; MEMSIM_KERNEL_INTERFACE_VERSION (kernels/plugin.hpp) versions it with the table.
#define MEMSIM_PLUGIN_ENTRY_NAME "memsim_plugin_v1"

namespace memsim {

// The sizes and a few offsets of the records that cross the boundary, folded into one number that memsim and
// the plugin each compute from the headers they were compiled with: headers edited after memsim was built
// give another number, and memsim refuses the plugin rather than read a record of another layout.
constexpr uint64_t plugin_abi_fingerprint() {
  const uint64_t parts[] = {MEMSIM_KERNEL_INTERFACE_VERSION, sizeof(KernelInfo), sizeof(SiteInfo),
                            sizeof(LaunchShape), offsetof(LaunchShape, walk_tile), sizeof(BufferLayout),
                            sizeof(WarpAccess), offsetof(WarpAccess, mask), sizeof(ThreadCoord),
                            offsetof(KernelInfo, num_sites), sizeof(Footprint), sizeof(OutputKind)};
  return fold_layout(parts);
}

}  // namespace memsim

extern "C" {

// Where a walk hands what it sees: every warp access of its blocks in launch order, then its findings, one
// call per (kind, site) with the first offending lane in launch order and the count.
struct memsim_access_sink_v1 {
  void* context;
  void (*access)(void* context, int64_t block, int warp, const memsim::WarpAccess* access);
  void (*finding)(void* context, int kind, int site, const memsim::ThreadCoord* first, int64_t first_offset,
                  int width, int64_t count);
};

// One walk over blocks [first, last): grouping != 0 replays every warp lane by lane (Recorders::Grouping).
// counters receives the walk's lane operations and 32- and 64-bit run-time divisions (sim/replay.hpp).
typedef void (*memsim_walk_fn_v1)(const memsim::LaunchShape* shape, const memsim::BufferLayout* layout,
                                  int64_t first, int64_t last, int grouping, const memsim_access_sink_v1* sink,
                                  int64_t counters[3]);
typedef int (*memsim_barriers_fn_v1)(const memsim::LaunchShape* shape, const memsim::BufferLayout* layout);

struct memsim_plugin_table_v1 {
  int interface_version;      // MEMSIM_KERNEL_INTERFACE_VERSION of the headers it was compiled with
  uint64_t abi_fingerprint;   // memsim::plugin_abi_fingerprint() of those headers
  const char* headers_hash;   // the hash of those headers (MEMSIM_PLUGIN_HEADERS_HASH, given by memsim)
  const char* compiler;       // __VERSION__ of its compiler
  const memsim::KernelInfo* info;
  memsim_walk_fn_v1 walk[3];  // by element storage: uint16_t (f16), float (f32), double (f64)
  memsim_barriers_fn_v1 barriers_per_thread[3];
};

typedef const memsim_plugin_table_v1* (*memsim_plugin_entry_v1)();

}  // extern "C"
