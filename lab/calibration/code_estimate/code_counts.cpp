// memsim-code-counts: for each configuration of a list, its compiled code's paths and registers (where the toolkit compiles)
// beside the estimate's features and paths, as JSON: the data codegen/code_estimate.cpp's rule is fitted on and
// judged with (fit_code_estimate.py). A lab tool: the product does not link it.
//
//   memsim-code-counts LIST > counts.json      LIST: "kernel dtype BXxBY TXxTY WxH" a line ("-" for the
//                                               default tile); --table adds the shipped table's configurations
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "codegen/code_estimate.hpp"
#include "codegen/compiled_code.hpp"
#include "kernels/registry.hpp"
#include "sim/replay.hpp"

using namespace memsim;

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::vector<std::pair<std::string, UserConfig>> users;  // (set, config)
  for (const std::string& a : args) {
    if (a == "--table") {
      for (const KernelInfo& k : kernel_suite())
        for (Dtype d : {Dtype::F16, Dtype::F32, Dtype::F64})
          for (Size2 b : {Size2{32, 8}, Size2{16, 16}, Size2{8, 32}, Size2{32, 32}}) {
            UserConfig u;
            u.kernel = k.name, u.dtype = d, u.block = b, u.matrix = {8192, 8192};
            users.push_back({"table", u});
          }
      continue;
    }
    std::ifstream in(a);
    if (!in) {
      std::cerr << "memsim-code-counts: cannot read " << a << "\n";
      return 2;
    }
    for (std::string line; std::getline(in, line);) {
      std::istringstream ls(line);
      std::string kernel, dtype, block, tile, matrix;
      if (!(ls >> kernel >> dtype >> block >> tile >> matrix)) continue;
      UserConfig u;
      u.kernel = kernel, u.dtype = parse_dtype(dtype), u.block = parse_size2(block, "block");
      if (tile != "-") u.tile = parse_size2(tile, "tile");
      u.matrix = parse_size2(matrix, "matrix");
      users.push_back({a, u});
    }
  }
  LaunchLimits limits;
  limits.max_shared_per_block = 227 * 1024;
  std::vector<std::pair<std::string, LaunchConfig>> configs;
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& [set, u] : users) {
    try {
      configs.push_back({set, resolve_launch(u, limits)});
    } catch (const ConfigError& e) {
      out.push_back({{"set", set}, {"kernel", u.kernel}, {"refused", e.what()}});
    }
  }
  std::vector<LaunchConfig> all;
  for (const auto& c : configs) all.push_back(c.second);
  CodegenOptions o;
  compile_batch(all, o, [](int done, int total) { std::cerr << "compiled " << done << " of " << total << "\n"; });
  for (const auto& [set, cfg] : configs) {
    const FirstBlockWarps first_block = first_block_warps(cfg);
    const CodeFeatures f = code_features(cfg, first_block);
    const CompiledCode code = compiled_code(cfg, o, first_block);
    nlohmann::ordered_json j{{"set", set},
                             {"kernel", cfg.kernel->name},
                             {"dtype", dtype_name(cfg.dtype)},
                             {"block", {cfg.shape.block_x, cfg.shape.block_y}},
                             {"tile", {cfg.shape.tile_x, cfg.shape.tile_y}},
                             {"smem_row", cfg.shape.smem_row},
                             {"matrix", {cfg.shape.width, cfg.shape.height}},
                             {"features",
                              {{"global_loads", f.global_loads}, {"global_stores", f.global_stores},
                               {"shared_loads", f.shared_loads}, {"shared_stores", f.shared_stores},
                               {"loads_before_store", f.loads_before_store},
                               {"load_rows", f.load_rows}, {"store_rows", f.store_rows},
                               {"load_bytes", f.load_bytes}, {"guarded_accesses", f.guarded_accesses},
                               {"varying_guard_accesses", f.varying_guard_accesses},
                               {"whole_warp_guard_accesses", f.whole_warp_guard_accesses},
                               {"guard_tests", f.guard_tests},
                               {"warps_in_block", f.warps_in_block}}},
                             {"estimate", sass_paths_json(estimate_paths(f))},
                             {"basis", code.basis == CodeBasis::Compiled ? "compiled"
                                       : code.basis == CodeBasis::Shipped ? "shipped" : "estimated"},
                             {"source", code.source}};
    if (code.basis != CodeBasis::Estimated) j["compiled"] = sass_paths_json(code.paths);
    if (code.registers > 0) j["registers"] = code.registers;
    out.push_back(j);
  }
  std::cout << out.dump(1) << "\n";
  return 0;
}
