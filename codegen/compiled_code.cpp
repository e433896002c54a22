#include "codegen/compiled_code.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "codegen/code_estimate.hpp"
#include "codegen/kernel_file.hpp"
#include "codegen/tools.hpp"
#include "codegen/launch_instructions.hpp"
#include "core/threads.hpp"
#include "kernels/static_shape.hpp"
#include "kernels/suite.hpp"

namespace memsim {
namespace fs = std::filesystem;
namespace {

using namespace tools;

// The flags of the GPU build's kernels (validate/CMakeLists.txt) and of the committed table
// (scripts/sass_instruction_counts.py): the code counted is the code that runs.
const std::vector<std::string>& nvcc_flags() {
  static const std::vector<std::string> f{"-std=c++17", "--expt-relaxed-constexpr", "-O3", "-cubin"};
  return f;
}

const char* struct_name(const KernelInfo& k) {
  static const std::map<std::string, const char*> names{
#define MEMSIM_STRUCT_NAME(K) {suite::K::info().name, #K},
      MEMSIM_KERNEL_SUITE(MEMSIM_STRUCT_NAME)
#undef MEMSIM_STRUCT_NAME
  };
  const auto it = names.find(k.name);
  return it == names.end() ? nullptr : it->second;
}

std::vector<std::string> suite_headers(const std::string& root) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(root) / "kernels" / "suite", ec))
    if (e.path().extension() == ".hpp") out.push_back("kernels/suite/" + e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// The hash of every kernel header: a change to any of them is a change to the code compiled.
const std::string& sources_hash() {
  static const std::string h = [] {
    const std::string root = kernel_dir();
    return hash_headers(root, {"kernels", "kernels/suite"}, {".hpp", ".cuh"}, root.empty() ? "none" : "kernels");
  }();
  return h;
}

// Whether memsim can generate cfg's kernel's code: a suite kernel, or one from a --kernel-file.
bool compilable(const LaunchConfig& cfg) {
  return cfg.kernel && (struct_name(*cfg.kernel) || kernel_file_source(*cfg.kernel));
}

// The kernel's struct as the generated source names it: the suite's, or the one the user's file names with
// MEMSIM_KERNEL (found as the plugin's source finds it, codegen/kernel_file.cpp).
std::string kernel_type(const KernelInfo& k) {
  return struct_name(k) ? std::string("suite::") + struct_name(k) : std::string("memsim_file_kernel");
}

// A kernel file's configurations compile apart from the suite's, with its defines: "" for the suite.
std::string source_group(const LaunchConfig& cfg) {
  const KernelFileSource* f = kernel_file_source(*cfg.kernel);
  return f ? f->path : std::string();
}

std::string wrapper_signature(const LaunchConfig& cfg) {
  std::string s = kernel_type(*cfg.kernel) + ", " + storage_type(cfg.dtype) + ", " + static_shape_type(cfg);
  if (const KernelFileSource* f = kernel_file_source(*cfg.kernel)) s += " from " + f->path + " " + f->hash;
  return s;
}

// The cache entry's format: an entry of an earlier format (without the registers) is compiled again.
constexpr const char* kEntryFormat = "paths+registers";

std::string cache_key(const LaunchConfig& cfg, const CodegenOptions& o, const Toolkit& tk) {
  std::string k = std::string(kEntryFormat) + "|" + sources_hash() + "|" + tk.version + "|sm_" + o.arch + "|";
  for (const std::string& f : nvcc_flags()) k += f + " ";
  return hex(fnv1a(k + "|" + wrapper_signature(cfg)));
}

struct Entry {
  bool ok = false;
  SassPaths paths;
  int registers = 0;  // a thread, as ptxas allocated them (cuobjdump -res-usage)
  std::string error;
};

std::mutex g_mutex;
std::map<std::string, Entry>& memory_cache() {
  static std::map<std::string, Entry> m;
  return m;
}

std::string entry_path(const std::string& key) { return (fs::path(code_cache_dir()) / "code" / (key + ".json")).string(); }

bool load_entry(const std::string& key, Entry& e) {
  std::ifstream in(entry_path(key));
  if (!in) return false;
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    const auto& p = j.at("paths");
    e.paths = {p.at("inner"), p.at("inner_exit"), p.at("square"), p.at("square_exit"),
               p.at("edge"),  p.at("edge_square"), p.at("loads"), p.at("load_waits")};
    e.registers = j.at("registers").get<int>();
    e.ok = e.paths.inner > 0 && e.registers > 0 && e.registers <= 255;
    return e.ok;
  } catch (const std::exception&) {
    return false;  // a damaged entry is compiled again
  }
}

// The entry in memory, else the one on disk (then kept in memory), else none; the caller holds g_mutex.
const Entry* cached_entry(const std::string& key) {
  if (const auto found = memory_cache().find(key); found != memory_cache().end()) return &found->second;
  Entry e;
  if (!load_entry(key, e)) return nullptr;
  return &memory_cache().emplace(key, e).first->second;
}

// Written whole or not at all: a temporary file renamed over the entry.
void store_entry(const std::string& key, const std::string& signature, const Toolkit& tk, const std::string& arch,
                 const Entry& e) {
  std::error_code ec;
  const fs::path path = entry_path(key);
  fs::create_directories(path.parent_path(), ec);
  if (ec) return;  // no cache: compiled again next time
  const nlohmann::ordered_json j{
      {"kernel", signature}, {"nvcc", tk.version}, {"arch", "sm_" + arch}, {"paths", sass_paths_json(e.paths)},
      {"registers", e.registers}};
  const std::string tmp = path.string() + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp);
    out << j.dump(1) << "\n";
    if (!out) return;
  }
  fs::rename(tmp, path, ec);
}

std::string first_error_line(const std::string& text) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.find("error") != std::string::npos) return line.substr(0, 300);
  return text.substr(0, text.find('\n')).substr(0, 300);
}

// Compiles one chunk of configurations in its own temporary directory; fills `out` per key.
void compile_chunk(const std::vector<std::pair<std::string, LaunchConfig>>& chunk, const CodegenOptions& o,
                   const Toolkit& tk, std::map<std::string, Entry>& out) {
  std::error_code ec;
  // A TMPDIR that is no directory falls back to /tmp rather than throwing out of a prediction.
  std::error_code tmp_ec;
  fs::path tmp = fs::temp_directory_path(tmp_ec);
  if (tmp_ec) tmp = "/tmp";
  const fs::path dir = tmp / ("memsim-code-" + std::to_string(::getpid()) + "-" + hex(fnv1a(chunk.front().first)));
  fs::create_directories(dir / "memsim", ec);
  const auto fail_all = [&](const std::string& why) {
    for (const auto& [key, cfg] : chunk) out[key].error = why;
    fs::remove_all(dir, ec);
  };
  if (ec) return fail_all("cannot make a temporary directory: " + ec.message());
  const std::string root = kernel_dir();
  {
    std::ofstream inc(dir / "memsim" / "suite_includes.hpp");
    inc << "#pragma once\n";
    for (const std::string& h : suite_headers(root)) inc << "#include \"" << h << "\"\n";
    std::vector<LaunchConfig> configs;
    for (const auto& kc : chunk) configs.push_back(kc.second);
    std::ofstream cu(dir / "code.cu");
    cu << instantiation_source(configs, root);
  }
  std::vector<std::string> argv{tk.nvcc};
  argv.insert(argv.end(), nvcc_flags().begin(), nvcc_flags().end());
  if (const KernelFileSource* f = kernel_file_source(*chunk.front().second.kernel))
    for (const std::string& d : f->defines) argv.push_back("-D" + d);
  argv.insert(argv.end(), {"-arch=sm_" + o.arch, "-I" + root, "-I" + dir.string(), "-o", (dir / "code.cubin").string(),
                           (dir / "code.cu").string()});
  const std::string log = (dir / "nvcc.log").string(), sass = (dir / "code.sass").string();
  if (run(argv, (dir / "nvcc.out").string(), log) != 0)
    return fail_all("nvcc failed: " + first_error_line(read_file(log)));
  if (run({tk.cuobjdump, "-sass", (dir / "code.cubin").string()}, sass, log) != 0)
    return fail_all("cuobjdump -sass failed: " + first_error_line(read_file(log)));
  const std::string usage = (dir / "code.res").string();
  if (run({tk.cuobjdump, "-res-usage", (dir / "code.cubin").string()}, usage, log) != 0)
    return fail_all("cuobjdump -res-usage failed: " + first_error_line(read_file(log)));
  const auto functions = sass_functions(read_file(sass));
  const std::map<std::string, int> registers = registers_by_function(read_file(usage));
  for (size_t i = 0; i < chunk.size(); ++i) {
    Entry& e = out[chunk[i].first];
    const std::string name = "memsim_code_" + std::to_string(i);
    const auto f = functions.find(name);
    if (f == functions.end()) {
      e.error = "no function " + name + " in the SASS";
      continue;
    }
    const auto r = registers.find(name);
    if (r == registers.end() || r->second < 1) {
      e.error = "no registers for " + name + " in cuobjdump -res-usage";
      continue;
    }
    try {
      e.paths = count_sass_paths(f->second);
      e.registers = r->second;
      e.ok = true;
    } catch (const SassPathError& err) {
      e.error = std::string("the SASS is not one straight path: ") + err.what();
    }
  }
  fs::remove_all(dir, ec);
}

}  // namespace

nlohmann::ordered_json sass_paths_json(const SassPaths& p) {
  return {{"inner", p.inner}, {"inner_exit", p.inner_exit}, {"square", p.square}, {"square_exit", p.square_exit},
          {"edge", p.edge},   {"edge_square", p.edge_square}, {"loads", p.loads}, {"load_waits", p.load_waits}};
}

const Toolkit& find_toolkit() {
  static const Toolkit tk = [] {
    Toolkit t;
    t.nvcc = env("MEMSIM_NVCC");
    if (t.nvcc.empty()) t.nvcc = on_path("nvcc");
    if (t.nvcc.empty() && executable("/usr/local/cuda/bin/nvcc")) t.nvcc = "/usr/local/cuda/bin/nvcc";
    if (t.nvcc.empty()) {
      t.missing = "no nvcc";
      return t;
    }
    t.cuobjdump = beside_or_on_path("cuobjdump", t.nvcc);
    const std::string nvdisasm = env("NVDISASM_PATH").empty() ? beside_or_on_path("nvdisasm", t.nvcc)
                                                               : env("NVDISASM_PATH");
    if (t.cuobjdump.empty()) t.missing = "no cuobjdump beside " + t.nvcc + " or on PATH";
    else if (nvdisasm.empty()) t.missing = "no nvdisasm beside " + t.nvcc + " or on PATH";
    std::error_code ec;
    const fs::path dir = fs::temp_directory_path(ec);
    const std::string out = (dir / ("memsim-nvcc-version-" + std::to_string(::getpid()))).string();
    if (run({t.nvcc, "--version"}, out, out + ".err") == 0) {
      const std::string v = read_file(out);
      const size_t at = v.rfind(", V");
      if (at != std::string::npos) t.version = v.substr(at + 3, v.find_first_of(" \n", at + 3) - at - 3);
    }
    fs::remove(out, ec);
    fs::remove(out + ".err", ec);
    if (t.version.empty() && t.missing.empty()) t.missing = "nvcc --version failed";
    t.headers = !kernel_dir().empty() && fs::exists(fs::path(kernel_dir()) / "kernels" / "suite.hpp");
    if (!t.headers) t.missing = "no kernel headers (set MEMSIM_KERNEL_DIR to memsim's source tree)";
    return t;
  }();
  return tk;
}

std::string code_cache_dir() {
  if (!env("MEMSIM_CACHE_DIR").empty()) return env("MEMSIM_CACHE_DIR");
  if (!env("XDG_CACHE_HOME").empty()) return env("XDG_CACHE_HOME") + "/memsim";
  if (!env("HOME").empty()) return env("HOME") + "/.cache/memsim";
  std::error_code ec;
  const fs::path tmp = fs::temp_directory_path(ec);
  return ((ec ? fs::path("/tmp") : tmp) / "memsim-cache").string();
}

std::string static_shape_type(const LaunchConfig& cfg) {
  const LaunchShape& s = cfg.shape;
  const bool narrow = fits_32bit_index(s.width, s.height, s.tile_x, s.tile_y);
  return "StaticShape<" + std::to_string(s.block_x) + ", " + std::to_string(s.block_y) + ", " +
         std::to_string(s.tile_x) + ", " + std::to_string(s.tile_y) + ", " + std::to_string(s.smem_row) + ", " +
         (narrow ? "int32_t" : "int64_t") + ">";
}

std::string instantiation_source(const std::vector<LaunchConfig>& configs, const std::string& kernel_dir) {
  std::ostringstream os;
  os << "// Generated by memsim (codegen/compiled_code.cpp) from the kernel headers under " << kernel_dir
     << ":\n// each configuration's body with its compile-time shape, as the GPU build instantiates it.\n"
        "#include <cstdint>\n#include \"kernels/device_memory.cuh\"\n#include \"kernels/static_shape.hpp\"\n"
        "#include \"kernels/suite.hpp\"\nusing namespace memsim;\n";
  // A kernel file (one per source: compile_batch groups them) is found as its plugin finds it.
  if (!configs.empty() && configs.front().kernel)
    if (const KernelFileSource* f = kernel_file_source(*configs.front().kernel))
      os << "#include \"kernels/plugin.hpp\"\nnamespace memsim { struct NoKernelInFile; }\n"
            "memsim::NoKernelInFile* memsim_kernel_of_file(...);\n#include \""
         << f->path
         << "\"\nusing memsim_file_kernel = "
            "std::remove_pointer_t<decltype(memsim_kernel_of_file(memsim::KernelFileTag{}))>;\n";
  for (size_t i = 0; i < configs.size(); ++i) {
    const LaunchConfig& c = configs[i];
    const char* t = storage_type(c.dtype);
    os << "extern \"C\" __global__ void memsim_code_" << i << "(DeviceMemory<" << t << "> mem, "
       << static_shape_type(c) << " s) {\n"
       << "  const ThreadCoord t{int(blockIdx.x), int(blockIdx.y), int(threadIdx.x), int(threadIdx.y)};\n"
       << "  const DeviceMemory<" << t << ">& m = mem;\n"
       << "  " << kernel_type(*c.kernel) << "::body(m, s, t);\n}\n";
  }
  return os.str();
}

void compile_batch(const std::vector<LaunchConfig>& configs, const CodegenOptions& o,
                   const std::function<void(int, int)>& progress) {
  const Toolkit& tk = find_toolkit();
  if (!o.compile || !tk.reads_cache()) return;
  std::vector<std::pair<std::string, LaunchConfig>> misses;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    std::map<std::string, bool> seen;
    for (const LaunchConfig& c : configs) {
      if (!compilable(c)) continue;
      const std::string key = cache_key(c, o, tk);
      if (seen[key] || cached_entry(key)) continue;
      seen[key] = true;
      misses.push_back({key, c});
    }
  }
  if (misses.empty() || !tk.usable()) return;
  const int cores = hardware_threads();
  const int jobs = std::max(1, std::min(o.jobs > 0 ? o.jobs : cores, int(misses.size())));
  // Contiguous chunks: nvcc's start-up (about a second) is paid once a chunk. A chunk holds one source
  // group (the suite, or one kernel file with its defines), and at most kMostAChunk configurations: nvcc's
  // front end grows faster than its input (a chunk of 5,000 ran past 7 minutes where 100 take 5 seconds), so
  // a large sweep is compiled in many chunks, `jobs` at a time, with progress after each.
  constexpr size_t kMostAChunk = 100;
  using Chunk = std::vector<std::pair<std::string, LaunchConfig>>;
  std::stable_sort(misses.begin(), misses.end(),
                   [](const auto& a, const auto& b) { return source_group(a.second) < source_group(b.second); });
  const size_t per_chunk = std::min(kMostAChunk, (misses.size() + size_t(jobs) - 1) / size_t(jobs));
  std::vector<Chunk> chunks;
  for (const auto& miss : misses) {
    if (chunks.empty() || chunks.back().size() >= per_chunk ||
        source_group(chunks.back().front().second) != source_group(miss.second))
      chunks.emplace_back();
    chunks.back().push_back(miss);
  }
  std::atomic<int> done{0};
  std::atomic<size_t> next{0};
  std::mutex progress_mutex;
  const int total = int(misses.size());
  if (progress) progress(0, total);
  std::vector<std::map<std::string, Entry>> results(chunks.size());
  std::vector<std::thread> workers;
  for (int w = 0; w < std::min(jobs, int(chunks.size())); ++w)
    workers.emplace_back([&] {
      for (size_t j = next++; j < chunks.size(); j = next++) {
        compile_chunk(chunks[j], o, tk, results[j]);
        const int now = done += int(chunks[j].size());
        if (progress && now < total) {
          std::lock_guard<std::mutex> lock(progress_mutex);
          progress(now, total);
        }
      }
    });
  for (std::thread& w : workers) w.join();
  if (progress) progress(done.load(), total);
  std::lock_guard<std::mutex> lock(g_mutex);
  for (size_t j = 0; j < chunks.size(); ++j)
    for (const auto& [key, cfg] : chunks[j]) {
      const Entry& e = results[j][key];
      memory_cache()[key] = e;
      if (e.ok) store_entry(key, wrapper_signature(cfg), tk, o.arch, e);
    }
}

std::optional<int> compiled_registers(const LaunchConfig& cfg, const CodegenOptions& o) {
  const Toolkit& tk = find_toolkit();
  if (!o.compile || !tk.reads_cache() || !compilable(cfg)) return std::nullopt;
  std::lock_guard<std::mutex> lock(g_mutex);
  const Entry* e = cached_entry(cache_key(cfg, o, tk));
  if (!e || !e->ok) return std::nullopt;
  return e->registers;
}

CompiledCode compiled_code(const LaunchConfig& cfg, const CodegenOptions& o, const BusiestWarp& first_block) {
  std::string why;
  const Toolkit& tk = find_toolkit();
  if (!o.compile) {
    why = "--no-compile";
  } else if (!tk.reads_cache()) {
    why = tk.missing;
  } else if (!compilable(cfg)) {
    why = "not a suite kernel";
  } else {
    compile_batch({cfg}, o);
    std::lock_guard<std::mutex> lock(g_mutex);
    const auto found = memory_cache().find(cache_key(cfg, o, tk));
    const Entry e = found == memory_cache().end() ? Entry{false, {}, 0, tk.missing} : found->second;
    if (e.ok) {
      CompiledCode c;
      c.basis = CodeBasis::Compiled;
      c.paths = e.paths;
      c.source = "nvcc " + tk.version + " for sm_" + o.arch;
      c.loads_in_flight = loads_in_flight(e.paths);
      c.registers = e.registers;
      return c;
    }
    why = e.error;
  }
  if (o.arch == "90")
    if (const SassPaths* row = shipped_sass_paths(cfg)) {
      CompiledCode c;
      c.basis = CodeBasis::Shipped;
      c.paths = *row;
      c.source = std::string("the SASS table memsim ships (") + kSassTableToolkit + "; " + why + ")";
      c.loads_in_flight = loads_in_flight(*row);
      return c;
    }
  CompiledCode c = estimated_code(cfg, first_block);
  c.source = why;
  if (kernel_file_source(*cfg.kernel)) c.source += "; a --kernel-file kernel: the rule fitted on the whole suite";
  return c;
}

}  // namespace memsim
