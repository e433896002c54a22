// Test helper, not part of memsim: writes memsim's JSON report for one launch with the partition results under
// "partitions", as `memsim --format json --device ...` will once app/memsim.cpp wires the options. Used to
// make the plot fixture and the GT200 figures.
//   partition_dump KERNEL WxH BXxBY MAPPING RESIDENT [STEP] [COALESCING]
//   MAPPING: gt200 | g80 | assumed:N   COALESCING: sectors32 | cc12 | cc10 (default cc12 for gt200, cc10 for
//   g80, sectors32 otherwise)
#include <iostream>
#include <string>

#include "app/partition_report.hpp"
#include "app/report.hpp"
#include "kernels/resolve.hpp"
#include "sim/replay.hpp"

using namespace memsim;

int main(int argc, char** argv) {
  if (argc < 6) {
    std::cerr << "usage: partition_dump KERNEL WxH BXxBY gt200|g80|assumed:N RESIDENT [STEP] [sectors32|cc12|cc10]\n";
    return 2;
  }
  try {
    UserConfig user;
    user.kernel = argv[1];
    user.matrix = parse_size2(argv[2], "matrix");
    user.block = parse_size2(argv[3], "block");
    const std::string mapping = argv[4];
    const int64_t resident = std::stoll(argv[5]);
    const int64_t step = argc > 6 ? std::stoll(argv[6]) : 0;
    std::string coalescing = argc > 7 ? argv[7] : "";

    PartitionSpec spec;
    MemoryRules rules;
    if (mapping == "gt200" || mapping == "g80") {
      spec = mapping == "gt200" ? gt200_partitions() : g80_partitions();
      rules.banks = {16, 4, 16};  // CC 1.x: 16 banks served per half-warp
      if (coalescing.empty()) coalescing = mapping == "gt200" ? "cc12" : "cc10";
    } else if (mapping.rfind("assumed:", 0) == 0) {
      spec = assumed_hashed_partitions(std::stoi(mapping.substr(8)), 256);
    } else {
      std::cerr << "unknown mapping " << mapping << "\n";
      return 2;
    }
    rules.coalescing = coalescing == "cc12"   ? GlobalCoalescing::Cc12Segments
                       : coalescing == "cc10" ? GlobalCoalescing::Cc10Strict
                                              : GlobalCoalescing::Sectors32;

    const LaunchConfig cfg = resolve_launch(user);
    const PartitionTrafficSink proto(spec, block_schedule(cfg.blocks(), resident, step), rules.sector_bytes);
    ReplayOptions opts;
    opts.rules = rules;
    opts.sector_sink_prototype = &proto;
    const ReplayResult r = replay(cfg, opts);
    nlohmann::ordered_json j = replay_json(r);
    j["partitions"] = partition_json(summarize_partition_traffic(static_cast<const PartitionTrafficSink&>(*r.sectors)));
    std::cout << j.dump(1) << "\n";
  } catch (const std::exception& e) {
    std::cerr << "partition_dump: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
