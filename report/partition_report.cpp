#include "report/partition_report.hpp"

#include <string>

namespace memsim {
namespace {

nlohmann::ordered_json by_direction(const PartitionTraffic& t, double CampingFigure::*field) {
  return {{"ld", t.loads.*field}, {"st", t.stores.*field}, {"both", t.combined.*field}, {"paced", t.paced.*field}};
}

}  // namespace

nlohmann::ordered_json partition_spec_json(const PartitionSpec& spec) {
  return {
      {"policy", partition_policy_name(spec.policy)},
      {"partitions", spec.count},
      {"granularity_bytes", spec.granularity_bytes},
      {"xor_bits", spec.xor_bits},
      {"assumed", spec.assumed},
      {"note", spec.note},
  };
}

nlohmann::ordered_json partition_json(const PartitionTraffic& t) {
  nlohmann::ordered_json j;
  nlohmann::ordered_json mapping = partition_spec_json(t.spec);
  if (t.spec.assumed)
    mapping["warning"] = "the partition mapping of this device is assumed, not known: imbalance figures are "
                         "illustrative";
  j["mapping"] = mapping;
  const BlockSchedule& s = t.schedule;
  j["schedule"] = {
      {"blocks", s.blocks},
      {"resident_blocks", s.resident},
      {"window_step", s.step},
      {"windows", t.windows},
      {"model", "blocks start in linear block id order (blockIdx.x + gridDim.x * blockIdx.y), " +
                    std::to_string(s.resident) + " resident at once, and retire in the order they started; "
                    "window k holds blocks [k * window_step, min(k * window_step + resident_blocks, blocks))"},
  };
  j["sector_bytes"] = t.sector_bytes;
  j["bytes"] = {{"ld", t.loads.bytes}, {"st", t.stores.bytes}, {"both", t.combined.bytes}};
  j["imbalance"] = by_direction(t, &CampingFigure::imbalance);
  j["imbalance_definition"] =
      "per window: max over partitions / mean over all partitions of the bytes they serve; overall: the "
      "traffic-weighted mean over windows (= DRAM time limited by each window's busiest partition / time with "
      "even spread); 1 = no camping, partitions = everything on one partition. both: a window's loads and stores "
      "added per partition; paced: the larger of a window's ld and st imbalances, weighted by all its bytes (the "
      "more camped direction holds back the other)";
  j["worst_window_imbalance"] = by_direction(t, &CampingFigure::worst_window);
  j["partition_bytes"] = {{"ld", t.loads.partition_bytes}, {"st", t.stores.partition_bytes}};

  nlohmann::ordered_json w;
  w["total"] = t.windows;
  w["shown"] = t.kept.size();
  w["every"] = t.window_every;
  w["downsampled"] = t.window_every > 1;
  w["note"] = t.window_every > 1
                  ? "downsampled: windows 0, " + std::to_string(t.window_every) + ", " +
                        std::to_string(2 * t.window_every) + ", ... of " + std::to_string(t.windows) +
                        " are shown; the imbalance figures use all of them"
                  : "every window is shown";
  nlohmann::ordered_json index = nlohmann::ordered_json::array(), first = nlohmann::ordered_json::array(),
                         last = nlohmann::ordered_json::array(), ld = nlohmann::ordered_json::array(),
                         st = nlohmann::ordered_json::array(), ldi = nlohmann::ordered_json::array(),
                         sti = nlohmann::ordered_json::array();
  for (const WindowTraffic& k : t.kept) {
    index.push_back(k.index);
    first.push_back(k.blocks.first);
    last.push_back(k.blocks.last);
    ld.push_back(k.load_bytes);
    st.push_back(k.store_bytes);
    ldi.push_back(window_imbalance(k.load_bytes));
    sti.push_back(window_imbalance(k.store_bytes));
  }
  w["index"] = index;
  w["first_block"] = first;
  w["last_block"] = last;
  w["ld_bytes"] = ld;
  w["st_bytes"] = st;
  w["ld_imbalance"] = ldi;
  w["st_imbalance"] = sti;
  j["windows"] = w;
  return j;
}

}  // namespace memsim
