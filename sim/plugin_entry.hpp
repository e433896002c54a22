#pragma once
// The plugin side of sim/plugin_abi.hpp: the table of kernel K, its walks instantiated from the replay's own
// templates (sim/replay_kernel.hpp), so a kernel from a user's file is replayed exactly as a suite kernel.
// memsim compiles this into the plugin's generated source (codegen/kernel_file.cpp); nothing else includes it.
#include "sim/plugin_abi.hpp"
#include "sim/replay_kernel.hpp"

#ifndef MEMSIM_PLUGIN_HEADERS_HASH
#define MEMSIM_PLUGIN_HEADERS_HASH "unknown"
#endif

namespace memsim::plugin_detail {

template <class K, class T>
void walk(const LaunchShape* s, const BufferLayout* layout, int64_t first, int64_t last, int grouping,
          const memsim_access_sink_v1* sink, int64_t counters[3]) {
  // The warp replay's counters are this plugin's own thread-locals: hand back what the walk added.
  const int64_t operations_before = lane_operations;
  const int64_t divisions_before[2] = {runtime_divisions[0], runtime_divisions[1]};
  Tally findings(num_sites_of<K>());
  replay_detail::walk_blocks<K, T>(*s, *layout, first, last, grouping ? Recorders::Grouping : Recorders::Counting,
                                   findings, [sink](int64_t b, int w, const WarpAccess& a) {
                                     sink->access(sink->context, b, w, &a);
                                   });
  for (const Finding& f : findings.findings)
    sink->finding(sink->context, int(f.kind), f.site, &f.first, f.first_offset, f.width, f.count);
  counters[0] = lane_operations - operations_before;
  counters[1] = runtime_divisions[0] - divisions_before[0];
  counters[2] = runtime_divisions[1] - divisions_before[1];
}

template <class K, class T>
int barriers(const LaunchShape* s, const BufferLayout* layout) {
  return replay_detail::barriers_per_thread<K, T>(*s, *layout);
}

template <class K>
const memsim_plugin_table_v1* table() {
  static constexpr KernelInfo kInfo = K::info();
  static const memsim_plugin_table_v1 t{MEMSIM_KERNEL_INTERFACE_VERSION,
                                  plugin_abi_fingerprint(),
                                  MEMSIM_PLUGIN_HEADERS_HASH,
                                  __VERSION__,
                                  &kInfo,
                                  {&walk<K, uint16_t>, &walk<K, float>, &walk<K, double>},
                                  {&barriers<K, uint16_t>, &barriers<K, float>, &barriers<K, double>}};
  return &t;
}

}  // namespace memsim::plugin_detail

// The entry point memsim looks up with dlsym, for the one kernel of the file.
#define MEMSIM_PLUGIN_DEFINE_ENTRY(K)                                                   \
  extern "C" __attribute__((visibility("default"))) const memsim_plugin_table_v1* memsim_plugin_v1() { \
    return ::memsim::plugin_detail::table<K>();                                          \
  }
