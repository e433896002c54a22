#include "validate/kernel_file_launch.hpp"

#include <algorithm>
#include <future>
#include <map>
#include <stdexcept>

#include "codegen/gpu_plugin.hpp"
#include "codegen/kernel_file.hpp"
#include "kernels/static_shape.hpp"
#include "sim/warp_access.hpp"
#include "validate/cuda_check.hpp"
#include "validate/suite_launch.hpp"

namespace memsim::validate {
namespace {

std::map<std::string, GpuPlugin>& plugins() {  // by kernel name
  static std::map<std::string, GpuPlugin> m;
  return m;
}

const GpuPlugin* plugin_of(const LaunchConfig& cfg) {
  const auto it = plugins().find(cfg.kernel->name);
  return it == plugins().end() ? nullptr : &it->second;
}

// cfg's entry in its kernel's plugin; nullptr where there is no plugin or it holds no such instantiation.
const memsim_gpu_entry_v1* find_entry(const LaunchConfig& cfg) {
  const GpuPlugin* p = plugin_of(cfg);
  if (!p) return nullptr;
  const LaunchShape& s = cfg.shape;
  const int index_bytes = fits_32bit_index(s.width, s.height, s.tile_x, s.tile_y) ? 4 : 8;
  for (int i = 0; i < p->table->num_entries; ++i) {
    const memsim_gpu_entry_v1& e = p->table->entries[i];
    if (e.dtype == int(cfg.dtype) && e.block_x == s.block_x && e.block_y == s.block_y && e.tile_x == s.tile_x &&
        e.tile_y == s.tile_y && e.smem_row == s.smem_row && e.index_bytes == index_bytes)
      return &e;
  }
  return nullptr;
}

const memsim_gpu_entry_v1& entry_of(const LaunchConfig& cfg) {
  if (!plugin_of(cfg)) throw std::logic_error(std::string("kernel without a GPU entry: ") + cfg.kernel->name);
  if (const memsim_gpu_entry_v1* e = find_entry(cfg)) return *e;
  throw std::logic_error(std::string("the GPU plugin of ") + cfg.kernel->name + " was not compiled for this shape");
}

void check(int err, const LaunchConfig& cfg, const char* what) {
  if (err == int(cudaSuccess)) return;
  const cudaError_t e = cudaError_t(err);
  throw CudaError(std::string(what) + " of " + cfg.kernel->name + " (its GPU plugin) failed: " + cudaGetErrorName(e) +
                  " (" + cudaGetErrorString(e) + ")");
}

}  // namespace

namespace {

// Loads one plugin a kernel over the configurations `wanted` keeps (`load`: the kernel and its configurations to
// the plugin), registers each and returns the run's record of them, `describe` adding each kernel's own fields.
template <class Wanted, class Load, class Describe>
nlohmann::ordered_json load_plugins(const std::vector<LaunchConfig>& configs, Wanted wanted, Load load,
                                    Describe describe) {
  std::vector<LaunchConfig> kept;
  std::copy_if(configs.begin(), configs.end(), std::back_inserter(kept), wanted);
  std::vector<const KernelInfo*> kernels;
  for (const LaunchConfig& c : kept)
    if (std::find(kernels.begin(), kernels.end(), c.kernel) == kernels.end()) kernels.push_back(c.kernel);
  // One nvcc a kernel, all at once (each a few seconds; posix_spawn and the caches' keys keep them apart).
  std::vector<std::vector<LaunchConfig>> owns;
  std::vector<std::future<GpuPlugin>> loading;
  for (const KernelInfo* k : kernels) {
    std::vector<LaunchConfig>& own = owns.emplace_back();
    std::copy_if(kept.begin(), kept.end(), std::back_inserter(own), [&](const LaunchConfig& c) { return c.kernel == k; });
  }
  for (size_t i = 0; i < kernels.size(); ++i)
    loading.push_back(std::async(std::launch::async, [&, i] { return load(*kernels[i], owns[i]); }));
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (size_t i = 0; i < kernels.size(); ++i) {
    const KernelInfo* k = kernels[i];
    const std::vector<LaunchConfig>& own = owns[i];
    const GpuPlugin p = loading[i].get();  // rethrows a kernel's error, in the kernels' order
    plugins()[k->name] = p;
    nlohmann::ordered_json j = {{"kernel", k->name}};
    describe(j, own.front());
    j["symbol"] = p.table->symbol;
    j["instantiations"] = p.table->num_entries;
    j["nvcc"] = p.nvcc_version;
    j["arch"] = p.arch;
    j["cached"] = p.cached;
    j["compile_seconds"] = p.compile_seconds;
    out.push_back(j);
  }
  return out;
}

bool needs_suite_plugin(const LaunchConfig& c) { return suite_kernel_struct(c) && !has_built_in_static_shape(c); }

}  // namespace

nlohmann::ordered_json load_kernel_file_plugins(const std::vector<LaunchConfig>& configs, int cc_major, int cc_minor) {
  const std::string arch = std::to_string(cc_major) + std::to_string(cc_minor);
  return load_plugins(
      configs, [](const LaunchConfig& c) { return kernel_file_source(*c.kernel) != nullptr; },
      [&](const KernelInfo& k, const std::vector<LaunchConfig>& own) { return load_gpu_plugin(k, own, arch); },
      [](nlohmann::ordered_json& j, const LaunchConfig& c) {
        const KernelFileSource& src = *kernel_file_source(*c.kernel);
        j["file"] = src.path;
        j["defines"] = src.defines;
      });
}

nlohmann::ordered_json load_suite_plugins(const std::vector<LaunchConfig>& configs, int cc_major, int cc_minor) {
  const std::string arch = std::to_string(cc_major) + std::to_string(cc_minor);
  return load_plugins(
      configs, needs_suite_plugin,
      [&](const KernelInfo& k, const std::vector<LaunchConfig>& own) {
        return load_suite_gpu_plugin(k, suite_kernel_struct(own.front()), own, arch);
      },
      [](nlohmann::ordered_json& j, const LaunchConfig& c) { j["struct"] = suite_kernel_struct(c); });
}

int suite_configs_to_compile(const std::vector<LaunchConfig>& configs) {
  return int(std::count_if(configs.begin(), configs.end(), needs_suite_plugin));
}

bool is_kernel_file_config(const LaunchConfig& cfg) {
  return plugin_of(cfg) != nullptr && kernel_file_source(*cfg.kernel) != nullptr;
}

bool runs_in_gpu_plugin(const LaunchConfig& cfg) { return find_entry(cfg) != nullptr; }

void prepare_kernel_file(const LaunchConfig& cfg) {
  check(entry_of(cfg).prepare(cfg.shared_bytes), cfg, "cudaFuncSetAttribute");
}

void launch_kernel_file(const LaunchConfig& cfg, const void* in, void* out, cudaStream_t stream) {
  check(entry_of(cfg).launch(&cfg.shape, cfg.shared_bytes, in, out, stream), cfg, "the launch");
}

const void* kernel_file_function(const LaunchConfig& cfg) { return entry_of(cfg).function(); }

const char* kernel_file_symbol(const LaunchConfig& cfg) {
  const GpuPlugin* p = plugin_of(cfg);
  if (!p) throw std::logic_error(std::string("kernel without a GPU entry: ") + cfg.kernel->name);
  return p->table->symbol;
}

void capture_kernel_file(const LaunchConfig& cfg, int num_sites, int capacity, int64_t first, int64_t last,
                         int64_t* slots, int* counts) {
  check(entry_of(cfg).capture(&cfg.shape, num_sites, capacity, first, last, slots, counts), cfg,
        "the address capture");
}

std::vector<int64_t> kernel_file_reached(const LaunchConfig& cfg) {
  const int sites = cfg.kernel->num_sites, threads = cfg.threads_per_block();
  const int64_t blocks = cfg.blocks();
  // Blocks a pass at a time, so the counts stay within 64 MB whatever the matrix.
  const int64_t per_pass = std::max<int64_t>(1, (int64_t(16) << 20) / (int64_t(threads) * sites));
  const size_t most = size_t(std::min(blocks, per_pass)) * threads * sites;
  int* device = nullptr;
  MEMSIM_CUDA_CHECK(cudaMalloc(&device, most * sizeof(int)));
  struct Free {
    int* p;
    ~Free() { cudaFree(p); }
  } guard{device};
  std::vector<int> host(most);
  std::vector<int64_t> total(size_t(sites), 0);
  for (int64_t first = 0; first < blocks; first += per_pass) {
    const int64_t last = std::min(blocks, first + per_pass);
    capture_kernel_file(cfg, sites, 0, first, last, nullptr, device);
    const size_t n = size_t(last - first) * threads * sites;
    MEMSIM_CUDA_CHECK(cudaMemcpy(host.data(), device, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int64_t b = 0; b < last - first; ++b)
      for (int w = 0; w * kWarpSize < threads; ++w)
        for (int site = 0; site < sites; ++site) {
          int busiest = 0;
          for (int lane = 0; lane < kWarpSize && w * kWarpSize + lane < threads; ++lane)
            busiest = std::max(busiest, host[size_t((b * threads + w * kWarpSize + lane) * sites + site)]);
          total[size_t(site)] += busiest;
        }
  }
  return total;
}

}  // namespace memsim::validate
