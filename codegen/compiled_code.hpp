#pragma once
// The code nvcc generates for exactly the configuration asked. memsim predicts the kernel people write: its
// block, tile and pad compile-time constants (kernels/static_shape.hpp), so nvcc unrolls the walks and folds
// their strides. Its warp instructions and the loads a warp keeps in flight are read off that code:
//   - compiled: with nvcc and cuobjdump (and the nvdisasm it runs), the configuration's static instantiation is
//     compiled from the same kernel header the replay runs, for the profile's architecture, and its SASS paths
//     counted (codegen/sass_paths.hpp); the result is cached on disk, keyed by the kernel sources, the
//     configuration, the toolkit's version and the architecture;
//   - estimated: without them, from the replay's warp accesses of the launch's first block by a linear rule
//     fitted on compiled configurations (docs/model.md says on which, and its error on others).
// A user whose kernel keeps run-time shapes says so (CodegenOptions::runtime_shape); nothing here applies then.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "codegen/sass_paths.hpp"
#include "core/kernel_counts.hpp"
#include "kernels/resolve.hpp"
#include "sim/busiest_warp.hpp"

namespace memsim {


struct CompiledCode {
  CodeBasis basis = CodeBasis::Estimated;
  SassPaths paths;          // per warp, along each path (estimated: inner and edge; the exits equal them)
  std::string source;       // e.g. "nvcc 13.0.88, sm_90" or "estimated from the replay (no cuobjdump found)"
  double loads_in_flight = 1;  // global loads a warp issues before it waits for one
  int registers = 0;           // a thread, as ptxas allocated them; 0 where not compiled (the occupancy's own)
  // The estimate's only: the bytes a lane loads before its first global store, where the estimate issues those
  // loads in more than one round (0 where they all go in one, or where the code was compiled).
  double estimate_bytes_before_store = 0;
};

struct CodegenOptions {
  bool compile = true;     // false: never run the toolkit (the estimate), as --no-compile asks
  std::string arch = "90";  // the SASS architecture, from the profile's compute capability
  int jobs = 0;            // parallel nvcc processes for a batch; 0: the machine's cores
};

// The toolkit memsim compiles with, found once: $MEMSIM_NVCC, else nvcc on PATH, else /usr/local/cuda/bin/nvcc;
// cuobjdump and nvdisasm beside it or on PATH. `missing` says what is not there (empty when all are).
struct Toolkit {
  std::string nvcc, cuobjdump, version;  // version: "13.0.88"
  std::string missing;
  bool headers = false;  // the kernel headers were found
  bool usable() const { return missing.empty(); }
  // The disk cache can answer without cuobjdump: its entries are keyed by nvcc's version and the headers, so a
  // cache filled on a machine with the whole toolkit serves one that has nvcc alone (CI, a laptop).
  bool reads_cache() const { return !version.empty() && headers; }
};
const Toolkit& find_toolkit();

// The name and source of the kernel wrapper compiled for cfg (an extern "C" __global__ function running the
// kernel's body with cfg's static shape): what both the SASS count and a GPU launch of cfg compile.
std::string static_shape_type(const LaunchConfig& cfg);
std::string instantiation_source(const std::vector<LaunchConfig>& configs, const std::string& kernel_dir);

// Compiles, in one batch of parallel nvcc runs, every configuration of `configs` whose code is not cached yet
// (reads the cache only without cuobjdump; no-op with options.compile false). `progress(done, total)` is called as
// configurations finish. Failures are remembered per configuration and reported by compiled_code.
void compile_batch(const std::vector<LaunchConfig>& configs, const CodegenOptions& options,
                   const std::function<void(int, int)>& progress = {});

// The configuration's code: compiled (from the cache, else compiled now), else the shipped table's row (sm_90,
// the suite's default tiles at four blocks), else estimated (sm_90's rule). Never throws for a
// toolkit's failure: the estimate's `source` then says what failed.
// `first_block` is the replay's (ReplayResult::first_block), which the estimate reads.
CompiledCode compiled_code(const LaunchConfig& cfg, const CodegenOptions& options, const BusiestWarp& first_block);

// The registers a thread of cfg's compiled code where the cache holds it (memory, else disk), without compiling:
// what the occupancy reads once compile_batch has run. Nothing with options.compile false, for a configuration
// memsim cannot compile, or where no toolkit's version is known.
std::optional<int> compiled_registers(const LaunchConfig& cfg, const CodegenOptions& options);

// The estimate alone (tests and the judged comparison use it beside the compiled counts).
CompiledCode estimated_code(const LaunchConfig& cfg, const BusiestWarp& first_block);

// A configuration's paths as the cache stores them (and the lab's tools print them): {"inner", "inner_exit",
// "square", "square_exit", "edge", "edge_square", "loads", "load_waits"}.
nlohmann::ordered_json sass_paths_json(const SassPaths& p);

// The directory of the disk cache: $MEMSIM_CACHE_DIR, else $XDG_CACHE_HOME/memsim, else ~/.cache/memsim.
std::string code_cache_dir();

}  // namespace memsim
