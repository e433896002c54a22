// memsim-validate: runs the suite's kernels (built from the same bodies the replay counts) on the GPU, checks
// every output against a CPU reference, times them against the copy kernel, cudaMemcpy and cuBLAS, reads
// Nsight Compute counters, and puts memsim's predictions beside the measurements. This file wires options to
// the modules in validate/; the logic lives there.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/kernel_file.hpp"
#include "kernels/registry.hpp"
#include "kernels/resolve.hpp"
#include "model/cost.hpp"
#include "model/profile.hpp"
#include "report/analysis.hpp"
#include "report/launch_prediction.hpp"
#include "sim/replay.hpp"
#include "validate/address_check.hpp"
#include "validate/capture_format.hpp"
#include "validate/cuda_check.hpp"
#include "validate/cute_transpose.hpp"
#include "validate/device_info.hpp"
#include "validate/kernel_file_launch.hpp"
#include "validate/measure.hpp"
#include "validate/ncu.hpp"
#include "validate/reached.hpp"
#include "validate/record_lines.hpp"
#include "validate/reference.hpp"
#include "validate/reference_kernels.hpp"
#include "validate/report.hpp"
#include "validate/results.hpp"
#include "validate/suite_launch.hpp"
#include "validate/sweep.hpp"

#ifndef MEMSIM_GIT_REVISION
#define MEMSIM_GIT_REVISION "unknown"
#endif
#ifndef MEMSIM_SOURCE_DIR_PATH
#define MEMSIM_SOURCE_DIR_PATH ""
#endif
#ifndef MEMSIM_CUDA_ARCHITECTURES
#define MEMSIM_CUDA_ARCHITECTURES "unknown"
#endif

namespace po = boost::program_options;
using namespace memsim;
using namespace memsim::validate;
using Json = nlohmann::ordered_json;

namespace {

constexpr int kExitFailed = 1;  // a check failed (wrong output, differing addresses, a count off its tolerance),
                                // or a run's reports could not be written
constexpr int kExitUsage = 2;   // bad options, an unusable --out-dir or --render file, or no GPU

// Round r's buffers are allocated behind a spacer of r times this (validate/measure.hpp combine_rounds).
constexpr size_t kRoundSpacerBytes = size_t(64) << 20;

int usage_error(const std::string& msg) {
  std::cerr << "memsim-validate: " << msg << "\n";
  return kExitUsage;
}

struct Settings {
  SweepSpec spec;
  TimingSettings timing;
  int rounds = 3;  // each cell timed this many times, each round on freshly allocated buffers
  double l2_multiple = 4.0;
  uint64_t seed = 1;
  int threads = 0;
  int device = 0;
  std::string out_dir = ".";
  std::string name = "memsim-validate";
  bool ncu = false;
  std::string ncu_path = "ncu";
  bool check_only = false;
  bool check_addresses = false;
  bool ncu_child = false;
  bool counts_gate = true;
  std::string profile = "h100";  // the cost model's device profile (model/devices) for predicted times
  std::vector<std::string> kernel_files;  // --kernel-file, as given; their kernels lead spec.kernels
  std::vector<std::string> defines;       // --define, for every kernel file
  bool runtime_shape = false;             // --runtime-shape: the suite's run-time-shaped bodies
};

std::string join(const std::vector<std::string>& items) {
  std::string s;
  for (const std::string& i : items) s += (s.empty() ? "" : ",") + i;
  return s;
}

std::string command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) s += (i ? " " : "") + std::string(argv[i]);
  return s;
}

// The revision the results belong to: MEMSIM_GIT_REVISION from the environment (a script that knows better),
// else git asked at run time in the source tree, else the one seen when the build was configured.
std::string git_revision() {
  if (const char* env = std::getenv("MEMSIM_GIT_REVISION"); env && *env) return env;
  const std::string dir = MEMSIM_SOURCE_DIR_PATH;
  if (!dir.empty())
    if (auto rev = command_output("git -C " + shell_quote(dir) + " describe --always --dirty --abbrev=12")) return *rev;
  return MEMSIM_GIT_REVISION;
}

// This program's path for re-running it under ncu, relative to the working directory when it lies below it
// (the report records the command, and should not name one machine's directories).
std::string self_path(const char* argv0) {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return argv0;
  buf[n] = '\0';
  const std::string exe = buf;
  char cwd[4096];
  if (getcwd(cwd, sizeof(cwd))) {
    const std::string prefix = std::string(cwd) + "/";
    if (exe.rfind(prefix, 0) == 0) return "./" + exe.substr(prefix.size());
  }
  return exe;
}

std::string host_name() {
  char buf[256] = {0};
  return gethostname(buf, sizeof(buf) - 1) == 0 ? std::string(buf) : std::string("unknown");
}

// A kernel file (or a suite plugin) that does not compile: the compiler's own words, then memsim-validate's line,
// with `hint` after it where given (exit 2).
int kernel_file_error(const KernelFileError& e, const std::string& hint = "") {
  if (!e.detail.empty()) std::cerr << e.detail << "\n";
  return usage_error(std::string(e.what()) + hint);
}

// Loads --kernel-file's kernels (their CPU plugins: the replay) and puts them first in the --kernels list.
// Without --kernels (`defaulted`) a file's kernel is measured beside the suite's copy kernel, the ceiling;
// --kernels names the suite kernels to measure it beside instead (its nearest, say padded).
std::string with_kernel_files(const Settings& s, const std::string& kernels, bool defaulted) {
  const std::vector<std::string> listed = defaulted ? std::vector<std::string>{"copy"} : split_list(kernels);
  std::vector<std::string> out;
  for (const std::string& f : s.kernel_files) {
    const std::string name = load_kernel_file(f, s.defines)->name;
    if (std::find(listed.begin(), listed.end(), name) == listed.end()) out.push_back(name);
  }
  out.insert(out.end(), listed.begin(), listed.end());
  return join(out);
}

// The arguments that make a child resolve exactly this run's configurations, in the same order.
std::vector<std::string> child_arguments(const Settings& s) {
  std::vector<std::string> blocks, matrices, dtypes;
  for (const Size2& b : s.spec.blocks) blocks.push_back(format_size2(b));
  for (const Size2& m : s.spec.matrices) matrices.push_back(format_size2(m));
  for (Dtype d : s.spec.dtypes) dtypes.push_back(dtype_name(d));
  std::vector<std::string> args{"--kernels", join(s.spec.kernels), "--blocks",  join(blocks),
                                "--matrices", join(matrices),      "--dtypes",  join(dtypes),
                                "--device",   std::to_string(s.device), "--ncu-child"};
  if (s.spec.tile) args.insert(args.end(), {"--tile", format_size2(*s.spec.tile)});
  if (s.spec.pad) args.insert(args.end(), {"--pad", std::to_string(*s.spec.pad)});
  // The child loads the same kernel files (from the cache), so their kernels are in its --kernels too.
  for (const std::string& f : s.kernel_files) args.insert(args.end(), {"--kernel-file", f});
  for (const std::string& d : s.defines) args.insert(args.end(), {"--define", d});
  // The child loads the same suite plugins (from the cache) or runs the same run-time-shaped bodies.
  if (s.runtime_shape) args.push_back("--runtime-shape");
  return args;
}

bool same_group(const LaunchConfig& a, const LaunchConfig& b) {
  return a.shape.width == b.shape.width && a.shape.height == b.shape.height && a.dtype == b.dtype;
}

int64_t matrix_bytes(const LaunchConfig& cfg) { return cfg.elements() * dtype_bytes(cfg.dtype); }

LaunchShape plain_shape(Size2 m) {
  LaunchShape s;
  s.width = m.x;
  s.height = m.y;
  return s;
}

// Runs `launch` once into a poisoned output and compares the whole output with the reference.
OutputCheck run_and_check(const std::function<void()>& launch, void* out_device, size_t bytes,
                          std::vector<unsigned char>& host_out, const std::vector<unsigned char>& host_in,
                          OutputKind kind, const LaunchShape& shape, int elem_bytes, int threads) {
  poison(out_device, bytes);
  launch();
  MEMSIM_CUDA_CHECK(cudaDeviceSynchronize());
  MEMSIM_CUDA_CHECK(cudaMemcpy(host_out.data(), out_device, bytes, cudaMemcpyDeviceToHost));
  return check_output(kind, shape, elem_bytes, host_in.data(), host_out.data(), threads);
}

// The references (validate/reference_kernels.hpp) of a group's configurations: those of the same kernel and
// block, for f32 matrices they can run, each once.
std::vector<ReferenceKernel> group_references(const std::vector<LaunchConfig>& group) {
  std::vector<ReferenceKernel> out;
  if (group.empty() || group.front().dtype != Dtype::F32) return out;
  for (const ReferenceKernel& ref : reference_kernels()) {
    if (!reference_runs(ref, group.front().shape.width, group.front().shape.height)) continue;
    for (const LaunchConfig& c : group)
      if (c.kernel->name == std::string(ref.kernel) && c.shape.block_x == ref.block_x && c.shape.block_y == ref.block_y) {
        out.push_back(ref);
        break;
      }
  }
  return out;
}

std::vector<Baseline> measure_baselines(const Settings& s, const DeviceInfo& dev, const std::vector<LaunchConfig>& group,
                                        const BufferRing& ring, std::vector<unsigned char>& host_out,
                                        const std::vector<unsigned char>& host_in, cudaStream_t stream, Cublas& cublas,
                                        bool check) {
  const LaunchConfig& any = group.front();
  const Size2 m{any.shape.width, any.shape.height};
  const int eb = dtype_bytes(any.dtype);
  const size_t bytes = ring.bytes;
  std::vector<Baseline> out;

  // The copy kernel of the suite with the whitepaper's 32x8 block: the ceiling every kernel is compared with.
  UserConfig cu;
  cu.kernel = "copy";
  cu.matrix = m;
  cu.block = {32, 8};
  cu.dtype = any.dtype;
  const LaunchConfig copy = resolve_launch(cu, dev.limits);
  prepare_suite_kernel(copy);
  Baseline kb;
  kb.name = "copy_kernel";
  kb.detail = "suite kernel copy, block 32x8, tile " + format_size2({copy.shape.tile_x, copy.shape.tile_y});
  if (check)
    kb.check = run_and_check([&] { launch_suite_kernel(copy, ring.in[0].get(), ring.out[0].get(), stream); },
                             ring.out[0].get(), bytes, host_out, host_in, OutputKind::Copy, copy.shape, eb, s.threads);
  kb.timing = time_launches(stream, s.timing, ring.size(),
                            [&](int i) { launch_suite_kernel(copy, ring.in[i].get(), ring.out[i].get(), stream); });
  out.push_back(kb);

  Baseline mb;
  mb.name = "cudaMemcpy_d2d";
  mb.detail = "cudaMemcpyAsync device to device";
  auto copy_bytes = [&](int i) {
    MEMSIM_CUDA_CHECK(cudaMemcpyAsync(ring.out[i].get(), ring.in[i].get(), bytes, cudaMemcpyDeviceToDevice, stream));
  };
  if (check)
    mb.check = run_and_check([&] { copy_bytes(0); }, ring.out[0].get(), bytes, host_out, host_in, OutputKind::Copy,
                             plain_shape(m), eb, s.threads);
  mb.timing = time_launches(stream, s.timing, ring.size(), copy_bytes);
  out.push_back(mb);

  Baseline gb;
  gb.name = "cublas_geam";
  gb.output = OutputKind::Transpose;
  gb.detail = any.dtype == Dtype::F64 ? "cublasDgeam(T, N), alpha 1, beta 0" : "cublasSgeam(T, N), alpha 1, beta 0";
  if (any.dtype == Dtype::F16) {
    gb.available = false;
    gb.detail = "cuBLAS geam";
    gb.note = "cuBLAS has no half-precision geam (no cublasHgeam)";
  } else {
    auto geam = [&](int i) { cublas.transpose(any.dtype, plain_shape(m), ring.in[i].get(), ring.out[i].get()); };
    if (check)
      gb.check = run_and_check([&] { geam(0); }, ring.out[0].get(), bytes, host_out, host_in, OutputKind::Transpose,
                               plain_shape(m), eb, s.threads);
    gb.timing = time_launches(stream, s.timing, ring.size(), geam);
  }
  out.push_back(gb);

  // The CuTe transpose (validate/cute_transpose.hpp), where this build has it; unavailable with a note where the
  // matrix is not whole tiles.
  if (cute_transpose_built()) {
    Baseline cb;
    cb.name = kCuteBaselineName;
    cb.output = OutputKind::Transpose;
    cb.detail = cute_transpose_detail(any.dtype);
    cb.ncu_kernel = kCuteKernelName;
    if (const std::optional<std::string> why = cute_transpose_unavailable(any.dtype, m.x, m.y)) {
      cb.available = false;
      cb.note = *why;
    } else {
      auto cute = [&](int i) {
        launch_cute_transpose(any.dtype, ring.in[i].get(), ring.out[i].get(), int(m.x), int(m.y), stream);
      };
      if (check)
        cb.check = run_and_check([&] { cute(0); }, ring.out[0].get(), bytes, host_out, host_in,
                                 OutputKind::Transpose, plain_shape(m), eb, s.threads);
      cb.timing = time_launches(stream, s.timing, ring.size(), cute);
    }
    out.push_back(cb);
  }

  // The hand-written references of the group's configurations (f32 only, as the articles write them).
  for (const ReferenceKernel& ref : group_references(group)) {
    Baseline rb;
    rb.name = reference_name(ref);
    rb.detail = ref.detail;
    rb.reference_of = ref.kernel;
    rb.output = ref.output;
    rb.block_x = ref.block_x;
    rb.block_y = ref.block_y;
    rb.ncu_kernel = kReferenceKernelPrefix;
    auto run_ref = [&](int i) {
      ref.launch(static_cast<const float*>(ring.in[i].get()), static_cast<float*>(ring.out[i].get()), int(m.x), int(m.y),
                 stream);
    };
    if (check)
      rb.check = run_and_check([&] { run_ref(0); }, ring.out[0].get(), bytes, host_out, host_in, ref.output,
                               plain_shape(m), eb, s.threads);
    rb.timing = time_launches(stream, s.timing, ring.size(), run_ref);
    out.push_back(rb);
  }
  return out;
}

// The warp shared instructions issued if every all-off instruction is issued too, by op, under ncu's names.
std::map<std::string, int64_t> shared_instruction_bounds(const LaunchConfig& cfg) {
  const std::vector<int64_t> reached = warp_instructions_reached(cfg);
  std::map<std::string, int64_t> out{{"smsp__inst_executed_op_shared_ld.sum", 0},
                                     {"smsp__inst_executed_op_shared_st.sum", 0}};
  for (int i = 0; i < cfg.kernel->num_sites; ++i) {
    const SiteInfo& site = cfg.kernel->sites[i];
    if (site.space != Space::Shared) continue;
    out[site.op == Op::Load ? "smsp__inst_executed_op_shared_ld.sum" : "smsp__inst_executed_op_shared_st.sum"] +=
        reached[i];
  }
  return out;
}

std::string progress_line(size_t i, size_t n, const ConfigResult& r) {
  std::ostringstream os;
  os << "[" << i + 1 << "/" << n << "] " << config_label(r.cfg) << ": output "
     << (r.check ? (r.check->passed() ? "ok" : "WRONG (" + r.check->describe() + ")") : "not checked");
  if (r.timing)
    os << ", " << r.timing->median_us << " us, " << effective_bandwidth_gbs(matrix_bytes(r.cfg), r.timing->median_us)
       << " GB/s";
  return os.str();
}

// Checks (and unless --check-only times and predicts) every configuration, a matrix and dtype at a time.
void measure(const Settings& s, const DeviceInfo& dev, const ResolvedSweep& sweep, RunResult& run) {
  const DeviceProfile profile = load_profile(s.profile);
  cudaStream_t stream = nullptr;
  MEMSIM_CUDA_CHECK(cudaStreamCreate(&stream));
  struct StreamGuard {
    cudaStream_t s;
    ~StreamGuard() { cudaStreamDestroy(s); }
  } guard{stream};
  Cublas cublas(stream);
  launch_warmup_kernel(stream);
  MEMSIM_CUDA_CHECK(cudaStreamSynchronize(stream));

  const std::vector<LaunchConfig>& cfgs = sweep.configs;
  for (size_t first = 0; first < cfgs.size();) {
    size_t last = first;
    while (last < cfgs.size() && same_group(cfgs[first], cfgs[last])) ++last;
    const LaunchConfig& any = cfgs[first];
    const size_t bytes = size_t(matrix_bytes(any));
    const int eb = dtype_bytes(any.dtype);

    std::vector<unsigned char> host_in(bytes), host_out(bytes);
    // The input depends on the seed and the group alone, so a configuration sees the same data in every run.
    fill_random_input(host_in.data(), any.elements(), eb,
                      s.seed ^ (uint64_t(any.shape.width) << 32) ^ (uint64_t(any.shape.height) << 8) ^ uint64_t(eb));

    GroupResult g;
    g.matrix = {any.shape.width, any.shape.height};
    g.dtype = any.dtype;
    g.matrix_bytes = int64_t(bytes);
    const std::vector<LaunchConfig> group(cfgs.begin() + first, cfgs.begin() + last);
    std::vector<ConfigResult> results(last - first);
    std::vector<std::vector<TimingStats>> config_rounds(last - first), baseline_rounds;

    // Each round times every cell of the group on buffers of its own: the previous round's are freed and the
    // new ring allocated behind a spacer of round x kRoundSpacerBytes, so that it does not simply get the same
    // pages back. Outputs are checked in the first round only; the replay runs once, after the last.
    const int rounds = s.check_only ? 1 : s.rounds;
    for (int round = 0; round < rounds; ++round) {
      std::optional<DeviceBuffer> spacer;
      if (round > 0) spacer.emplace(size_t(round) * kRoundSpacerBytes);
      size_t free_bytes = 0, total_bytes = 0;
      MEMSIM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
      const int pairs =
          s.check_only ? 1 : ring_size(bytes, dev.l2_bytes, s.l2_multiple, int64_t(0.6 * double(free_bytes)));
      BufferRing ring = make_buffer_ring(bytes, pairs);
      upload_input(ring, host_in.data());
      if (round == 0) g.buffer_pairs = pairs;
      const bool check = round == 0;

      if (!s.check_only) {
        const std::vector<Baseline> b =
            measure_baselines(s, dev, group, ring, host_out, host_in, stream, cublas, check);
        if (round == 0) {
          g.baselines = b;
          baseline_rounds.assign(b.size(), {});
        }
        for (size_t k = 0; k < b.size() && k < baseline_rounds.size(); ++k)
          if (b[k].timing) baseline_rounds[k].push_back(*b[k].timing);
      }

      for (size_t i = first; i < last; ++i) {
        ConfigResult& r = results[i - first];
        if (check) {
          r.cfg = cfgs[i];
          r.shape_kind = suite_kernel_shape_kind(r.cfg);
        }
        prepare_suite_kernel(r.cfg);
        if (check) {
          const SuiteOccupancy o = suite_kernel_occupancy(r.cfg);
          r.registers_per_thread = o.registers_per_thread, r.blocks_per_sm = o.blocks_per_sm;
          r.check = run_and_check([&] { launch_suite_kernel(r.cfg, ring.in[0].get(), ring.out[0].get(), stream); },
                                  ring.out[0].get(), bytes, host_out, host_in, r.cfg.kernel->output, r.cfg.shape, eb,
                                  s.threads);
        }
        if (!s.check_only)
          config_rounds[i - first].push_back(time_launches(stream, s.timing, ring.size(), [&](int k) {
            launch_suite_kernel(r.cfg, ring.in[k].get(), ring.out[k].get(), stream);
          }));
      }
    }
    for (size_t k = 0; k < baseline_rounds.size(); ++k)
      if (!baseline_rounds[k].empty()) g.baselines[k].timing = combine_rounds(baseline_rounds[k]);

    for (size_t i = first; i < last; ++i) {
      ConfigResult& r = results[i - first];
      if (!s.check_only) {
        r.timing = combine_rounds(config_rounds[i - first]);
        PredictOptions po;
        // The registers as memsim reads them (report/analysis.hpp): the configuration's compiled code's where
        // the toolkit is, compiled first, else the profile's count.
        if (const std::string arch = sass_arch(profile.compute_capability); !arch.empty()) {
          CodegenOptions co;
          co.arch = arch;
          compile_batch({r.cfg}, co);
        }
        const LaunchRegisters regs = launch_registers(profile, AnalysisOptions{}, r.cfg);
        po.regs_per_thread = regs.count;
        po.occupancy = launch_occupancy(profile, r.cfg, regs);
        r.predicted_registers_per_thread = po.regs_per_thread;
        r.predicted_blocks_per_sm = po.occupancy->blocks_per_sm;
        r.predicted_l1_bytes = po.occupancy->l1_bytes;
        ReplayOptions ro;
        prepare_replay(ro, profile, r.cfg, *po.occupancy);
        ro.threads = s.threads;
        const ReplayResult replayed = replay(r.cfg, ro);
        r.predicted = ncu_metrics(replayed);
        for (const Finding& f : replayed.findings) r.replay_findings += f.count;
        r.upper_bounds = shared_instruction_bounds(r.cfg);
        // The cost model's time for the same counts on the chosen profile (as memsim prints it; the modern
        // profiles' partition mapping is assumed, so no camping factor is applied).
        const Prediction p = predict(replayed, profile, po);
        r.model = ModelPrediction{p.time_us, p.effective_bandwidth_gbs, p.bottleneck,
                                  "memsim cost model, profile " + provenance_line(profile)};
      }
      std::cerr << progress_line(i, cfgs.size(), r) << "\n";
      run.configs.push_back(std::move(r));
    }
    if (!s.check_only) g.clocks_after_timing = sample_clocks(dev);
    run.groups.push_back(std::move(g));
    first = last;
  }
}

// The hidden mode ncu runs: every configuration launched once, after a warm-up launch of another kernel, so
// that the profiled launches (picked by kernel name) are exactly the run's configurations in order.
int ncu_child(const ResolvedSweep& sweep) {
  launch_warmup_kernel(nullptr);
  MEMSIM_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<LaunchConfig>& cfgs = sweep.configs;
  for (size_t first = 0; first < cfgs.size();) {
    size_t last = first;
    while (last < cfgs.size() && same_group(cfgs[first], cfgs[last])) ++last;
    const size_t bytes = size_t(matrix_bytes(cfgs[first]));
    DeviceBuffer in(bytes), out(bytes);
    // Counts do not depend on the data; any non-zero pattern will do.
    MEMSIM_CUDA_CHECK(cudaMemset(in.get(), 0x3C, bytes));
    MEMSIM_CUDA_CHECK(cudaMemset(out.get(), kPoisonByte, bytes));
    for (size_t i = first; i < last; ++i) {
      prepare_suite_kernel(cfgs[i]);
      launch_suite_kernel(cfgs[i], in.get(), out.get(), nullptr);
      MEMSIM_CUDA_CHECK(cudaDeviceSynchronize());
    }
    const std::vector<LaunchConfig> group(cfgs.begin() + first, cfgs.begin() + last);
    const LaunchConfig& any = group.front();
    if (cute_transpose_built() && !cute_transpose_unavailable(any.dtype, any.shape.width, any.shape.height)) {
      launch_cute_transpose(any.dtype, in.get(), out.get(), int(any.shape.width), int(any.shape.height), nullptr);
      MEMSIM_CUDA_CHECK(cudaDeviceSynchronize());
    }
    for (const ReferenceKernel& ref : group_references(group)) {
      ref.launch(static_cast<const float*>(in.get()), static_cast<float*>(out.get()), int(group.front().shape.width),
                 int(group.front().shape.height), nullptr);
      MEMSIM_CUDA_CHECK(cudaDeviceSynchronize());
    }
    first = last;
  }
  return 0;
}

std::string grid_text(const LaunchConfig& cfg) {
  return "(" + std::to_string(cfg.shape.grid_x) + ", " + std::to_string(cfg.shape.grid_y) + ", 1)";
}

// ncu's "Grid Size" as the numbers it holds, whatever the punctuation around them.
std::vector<int64_t> numbers_in(const std::string& text) {
  std::vector<int64_t> out;
  int64_t v = -1;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      v = (v < 0 ? 0 : v * 10) + (c - '0');
    } else if (v >= 0) {
      out.push_back(v);
      v = -1;
    }
  }
  if (v >= 0) out.push_back(v);
  return out;
}

bool same_grid(const std::string& ncu_grid, const LaunchConfig& cfg) {
  if (ncu_grid.empty()) return true;  // a layout without the column: the kernel name must do
  const std::vector<int64_t> n = numbers_in(ncu_grid);
  return n.size() >= 2 && n[0] == cfg.shape.grid_x && n[1] == cfg.shape.grid_y;
}

// Re-runs this program under ncu and joins each profiled launch to its configuration.
void profile(const Settings& s, const char* argv0, RunResult& run) {
  NcuInvocation inv;
  inv.ncu = s.ncu_path;
  inv.log_file = s.out_dir + "/" + s.name + ".ncu.csv";
  inv.kernel_regex = std::string(kSuiteKernelName) + "|" + kReferenceKernelPrefix + "|" + kCuteKernelName;
  inv.metrics = ncu_metric_list();
  inv.program.push_back(self_path(argv0));
  for (const std::string& a : child_arguments(s)) inv.program.push_back(a);
  const std::string cmd = ncu_command_line(inv);
  run.ncu["command"] = cmd;
  run.ncu["version"] = command_output(shell_quote(s.ncu_path) + " --version | tail -n 1").value_or("unknown");
  run.ncu["log_file"] = s.name + ".ncu.csv";
  std::cerr << "memsim-validate: profiling " << run.configs.size() << " launches with Nsight Compute\n";
  const int rc = std::system((cmd + " >&2").c_str());
  std::ifstream log(inv.log_file);
  const std::vector<NcuRow> rows = parse_ncu_csv(log);
  // The child's launches in order: each group's configurations, then the group's CuTe transpose and
  // references. Baselines are matched to rows by their kernel's name, in order within each name.
  std::map<std::string, std::vector<Baseline*>> profiled;  // ncu kernel name -> baselines in launch order
  size_t baseline_launches = 0;
  for (GroupResult& g : run.groups)
    for (Baseline& b : g.baselines)
      if (!b.ncu_kernel.empty() && b.available) {
        profiled[b.ncu_kernel].push_back(&b);
        ++baseline_launches;
      }
  if (rc != 0 || rows.size() != run.configs.size() + baseline_launches) {
    run.ncu["status"] = "ncu exited with status " + std::to_string(rc) + " and reported " +
                        std::to_string(rows.size()) + " launches for " + std::to_string(run.configs.size()) +
                        " configurations and " + std::to_string(baseline_launches) +
                        " references and CuTe transposes (see " + inv.log_file + ")";
    return;
  }
  size_t next_config = 0;
  std::map<std::string, size_t> next_baseline;
  for (size_t i = 0; i < rows.size(); ++i) {
    // The CuTe kernel first: its template arguments are plain words, the references' names hold no "cute_".
    const char* const kinds[] = {kCuteKernelName, kReferenceKernelPrefix};
    const char* kind = nullptr;
    for (const char* k : kinds)
      if (!kind && rows[i].kernel_name.find(k) != std::string::npos) kind = k;
    const bool is_reference = kind != nullptr;
    if (kind && next_baseline[kind] < profiled[kind].size()) {
      Baseline& b = *profiled[kind][next_baseline[kind]++];
      b.measured = rows[i].metrics;
      b.ncu_kernel_name = rows[i].kernel_name;
      continue;
    }
    if (next_config >= run.configs.size()) {
      run.ncu["status"] = "launch " + std::to_string(i) + " (" + rows[i].kernel_name + ") is one more than the run made";
      return;
    }
    ConfigResult& r = run.configs[next_config++];
    if (is_reference || !kernel_name_matches(rows[i].kernel_name, r.cfg) || !same_grid(rows[i].grid_size, r.cfg)) {
      run.ncu["status"] = "launch " + std::to_string(i) + " is " + rows[i].kernel_name + " grid " + rows[i].grid_size +
                          ", expected " + std::string(kSuiteKernelName) + "<" + suite_kernel_signature(r.cfg) +
                          suite_kernel_shape_signature(r.cfg) + " grid " + grid_text(r.cfg);
      return;
    }
    r.measured = rows[i].metrics;
    r.ncu_kernel_name = rows[i].kernel_name;
  }
  run.ncu["status"] = "ok";
}

Json context_json(const Settings& s, const DeviceInfo& dev, int argc, char** argv) {
  std::vector<std::string> blocks, matrices, dtypes;
  for (const Size2& b : s.spec.blocks) blocks.push_back(format_size2(b));
  for (const Size2& m : s.spec.matrices) matrices.push_back(format_size2(m));
  for (Dtype d : s.spec.dtypes) dtypes.push_back(dtype_name(d));
  Json sweep{{"kernels", s.spec.kernels}, {"blocks", blocks}, {"matrices", matrices}, {"dtypes", dtypes}};
  sweep["tile"] = s.spec.tile ? Json(format_size2(*s.spec.tile)) : Json(nullptr);
  sweep["pad"] = s.spec.pad ? Json(*s.spec.pad) : Json(nullptr);
  sweep["kernel_files"] = s.kernel_files;
  sweep["defines"] = s.defines;
  return {{"program", "memsim-validate"},
          {"command_line", command_line(argc, argv)},
          {"git_revision", git_revision()},
          {"date", utc_now_iso8601()},
          {"host", host_name()},
          {"cuda_architectures_built", MEMSIM_CUDA_ARCHITECTURES},
          {"device", device_json(dev)},
          {"clocks_at_start", sample_clocks(dev)},
          {"settings",
           {{"warmup", s.timing.warmup},
            {"reps", s.timing.reps},
            {"rounds", s.rounds},
            {"round_spacer_bytes", kRoundSpacerBytes},
            {"l2_multiple", s.l2_multiple},
            {"seed", s.seed},
            {"host_threads", s.threads},
            {"timing", "CUDA events around each launch, launches back to back, buffers rotated; each cell timed in "
                       "every round, each round on freshly allocated buffers; median = median of the rounds' medians"},
            {"effective_bandwidth", "2 x matrix bytes / median time, GB/s = 1e9 B/s"}}},
          {"sweep", sweep}};
}

// A report that could not be written (the stream, the temporary file or the rename failed).
struct WriteError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string errno_text() { return std::strerror(errno); }

const char* const kReportExtensions[] = {".json", ".csv", ".md"};

std::string report_base(const Settings& s) { return s.out_dir + "/" + s.name; }

// Whether `program` names something that can be run: a path to an executable, or a name found in PATH.
bool runnable(const std::string& program) {
  if (program.empty()) return false;
  if (program.find('/') != std::string::npos) return access(program.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    struct stat st {};
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(candidate.c_str(), X_OK) == 0) return true;
  }
  return false;
}

// Why the reports cannot go to --out-dir as --name (nullopt: they can), checked before any work, so that a
// long GPU run never ends in an unwritable directory and a render never writes half its files.
std::optional<std::string> output_problem(const Settings& s) {
  if (s.out_dir.empty()) return std::string("--out-dir is empty (give . for the working directory)");
  if (s.name.empty()) return std::string("--name is empty (it names the reports NAME.json, NAME.csv, NAME.md)");
  if (s.name.find('/') != std::string::npos)
    return "--name '" + s.name + "' must be a file name without '/' (the directory goes in --out-dir)";
  if (s.name == "." || s.name == "..") return "--name '" + s.name + "' is not a file name";
  struct stat st {};
  if (stat(s.out_dir.c_str(), &st) != 0) return "--out-dir " + s.out_dir + ": " + errno_text();
  if (!S_ISDIR(st.st_mode)) return "--out-dir " + s.out_dir + " is not a directory";
  // Writable: a file can be made there (access() would let root through on a read-only file system).
  std::string probe = s.out_dir + "/.memsim-validate-probe.XXXXXX";
  const int fd = mkstemp(probe.data());
  if (fd < 0) return "--out-dir " + s.out_dir + " is not writable: " + errno_text();
  close(fd);
  unlink(probe.c_str());
  std::vector<std::string> targets;
  for (const char* ext : kReportExtensions) targets.push_back(report_base(s) + ext);
  if (s.ncu) targets.push_back(report_base(s) + ".ncu.csv");
  for (const std::string& t : targets)
    if (stat(t.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return "cannot write " + t + ": it is a directory";
  return std::nullopt;
}

// Writes `text` to a new temporary file beside `path` (same directory, so that a rename moves it into place)
// and returns the temporary's name; throws WriteError, leaving nothing behind, when any step fails. The
// temporary takes the permissions `path` has, or the ones a new file gets.
std::string write_temporary(const std::string& path, const std::string& text) {
  const size_t slash = path.rfind('/');
  std::string tmp = path.substr(0, slash + 1) + "." + path.substr(slash + 1) + ".tmp.XXXXXX";
  const int fd = mkstemp(tmp.data());
  if (fd < 0) throw WriteError("cannot write " + path + ": " + errno_text());
  auto fail = [&](const std::string& why) {
    close(fd);
    unlink(tmp.c_str());
    throw WriteError("cannot write " + path + ": " + why);
  };
  struct stat st {};
  mode_t mode;
  if (stat(path.c_str(), &st) == 0) {
    mode = st.st_mode & 07777;
  } else {
    const mode_t mask = umask(0);
    umask(mask);
    mode = 0666 & ~mask;
  }
  if (fchmod(fd, mode) != 0) fail(errno_text());
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(errno_text());
    done += size_t(n);
  }
  if (close(fd) != 0) {
    const std::string why = errno_text();
    unlink(tmp.c_str());
    throw WriteError("cannot write " + path + ": " + why);
  }
  return tmp;
}

// NAME.json (one record per line, validate/record_lines.hpp), .csv and .md under --out-dir: all three rendered
// first, each written to a temporary file, then renamed into place, so that a failure leaves the reports that
// were there before.
void write_reports(const Settings& s, const Json& report) {
  std::ostringstream csv, md;
  write_csv(csv, report);
  write_markdown(md, report);
  const std::string texts[] = {memsim::record_lines(report), csv.str(), md.str()};
  std::vector<std::string> paths, temps;
  try {
    for (size_t i = 0; i < 3; ++i) {
      paths.push_back(report_base(s) + kReportExtensions[i]);
      temps.push_back(write_temporary(paths[i], texts[i]));
    }
    for (size_t i = 0; i < 3; ++i) {
      if (std::rename(temps[i].c_str(), paths[i].c_str()) != 0)
        throw WriteError("cannot write " + paths[i] + ": " + errno_text());
      temps[i].clear();
    }
  } catch (...) {
    for (const std::string& t : temps)
      if (!t.empty()) unlink(t.c_str());
    throw;
  }
  std::cerr << "memsim-validate: wrote " << report_base(s) << ".json, .csv, .md\n";
}

// A decimal seed, 0 .. 2^64 - 1 (program_options would take -1 as 2^64 - 1).
uint64_t parse_seed(const std::string& text) {
  const std::string want = "--seed must be a whole number from 0 to 18446744073709551615, got '" + text + "'";
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) throw ConfigError(want);
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  if (errno == ERANGE) throw ConfigError(want);
  return uint64_t(v);
}

// --render: the reports of a saved run, with no GPU. Everything it reads is checked before anything is
// written; every failure is the input's (exit 2), and the stored checks decide 0 or 1 as in the run.
int render(const Settings& s, const std::string& file) {
  struct stat st {};
  if (stat(file.c_str(), &st) != 0) return usage_error("cannot read " + file + ": " + errno_text());
  if (S_ISDIR(st.st_mode)) return usage_error("cannot read " + file + ": it is a directory, not a memsim-validate run");
  Json report;
  {
    std::ifstream in(file, std::ios::binary);
    if (!in) return usage_error("cannot read " + file + ": " + errno_text());
    try {
      report = Json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      return usage_error(file + " is not a memsim-validate JSON: " + e.what());
    } catch (const std::exception& e) {
      return usage_error("cannot read " + file + ": " + e.what());
    }
  }
  try {
    check_run_document(report, file);
    refresh_summaries(report);
  } catch (const RunDocumentError& e) {
    return usage_error(e.what());
  } catch (const std::exception& e) {  // a gap in the document check: still the document's fault, and one line
    return usage_error(file + ": cannot render: " + e.what());
  }
  std::vector<std::string> failed;
  try {
    write_reports(s, report);
    failed = failures(report);
  } catch (const WriteError& e) {
    return usage_error(e.what());
  } catch (const std::exception& e) {
    return usage_error(file + ": cannot render: " + e.what());
  }
  for (const std::string& f : failed) std::cerr << "memsim-validate: FAILED " << f << "\n";
  return failed.empty() ? 0 : kExitFailed;
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description opts("memsim-validate options");
  // clang-format off
  opts.add_options()
      ("help,h", "show this help and exit")
      ("kernels,k", po::value<std::string>()->default_value("all"), "kernels: all, or a comma list of suite names (alias --kernel)")
      ("kernel", po::value<std::string>(), "same as --kernels")
      ("kernel-file", po::value<std::vector<std::string>>()->composing(), "your own kernel: a header written against memsim's kernel interface (docs/kernel_interface.md), compiled now for the host and the GPU (cached); measured beside the --kernels named (default: copy); repeatable")
      ("define,D", po::value<std::vector<std::string>>()->composing(), "NAME or NAME=VALUE: a macro for the --kernel-file's compilation, as -D; repeatable")
      ("runtime-shape", "run the suite's run-time-shaped bodies (extents passed as arguments), as memsim --runtime-shape predicts; by default every configuration runs a compile-time shape, those the build holds none of compiled now (nvcc, cached)")
      ("blocks,b", po::value<std::string>()->default_value("32x8"), "thread blocks BXxBY, comma list (alias --block)")
      ("block", po::value<std::string>(), "same as --blocks")
      ("matrices,m", po::value<std::string>()->default_value("2048x2048"), "matrices WxH, comma list (alias --matrix)")
      ("matrix", po::value<std::string>(), "same as --matrices")
      ("dtypes,d", po::value<std::string>()->default_value("f32"), "element types f16, f32, f64, comma list (alias --dtype)")
      ("dtype", po::value<std::string>(), "same as --dtypes")
      ("tile,t", po::value<std::string>(), "tile TXxTY for every configuration (default: each kernel's footprint)")
      ("pad,p", po::value<int>(), "shared-tile padding for every shared-tile configuration (default per kernel)")
      ("reps", po::value<int>()->default_value(50), "timed launches per configuration")
      ("warmup", po::value<int>()->default_value(5), "untimed launches before timing")
      ("rounds", po::value<int>()->default_value(3), "time every cell this many times, each round on fresh buffers (reports each round's median and their spread)")
      ("l2-multiple", po::value<double>()->default_value(4.0), "rotate buffers totalling this many times the L2")
      ("seed", po::value<std::string>()->default_value("1"), "random input seed (0 .. 2^64 - 1)")
      ("threads", po::value<int>()->default_value(0), "host threads for the replay and the reference check (0: all)")
      ("device", po::value<int>()->default_value(0), "CUDA device ordinal")
      ("profile", po::value<std::string>()->default_value("h100"), "device profile for the cost model's predicted times (model/devices)")
      ("out-dir,o", po::value<std::string>()->default_value("."), "directory for the reports")
      ("name", po::value<std::string>()->default_value("memsim-validate"), "report file name stem: NAME.json, .csv, .md")
      ("ncu", "also collect Nsight Compute counters (re-runs this program under ncu)")
      ("ncu-path", po::value<std::string>()->default_value("ncu"), "the ncu executable")
      ("check-only", "only verify outputs (no timing, baselines, predictions): for compute-sanitizer")
      ("counts-informational", "report counts outside their tolerance without failing the run")
      ("check-addresses", "compare the GPU's computed addresses with the replay's, access by access")
      ("render", po::value<std::string>(), "re-render a saved run's summaries and .json/.csv/.md (to --out-dir, --name) without a GPU; takes no other option");
  po::options_description hidden;
  hidden.add_options()("ncu-child", "launch every configuration once (the mode ncu profiles)");
  // clang-format on
  po::options_description all;
  all.add(opts).add(hidden);

  po::variables_map vm;
  try {
    const po::parsed_options parsed = po::command_line_parser(argc, argv).options(all).run();
    // Words that are no option's value would otherwise be dropped without a word.
    for (const po::option& o : parsed.options)
      if (o.position_key >= 0 || o.string_key.empty())
        return usage_error("unexpected argument '" + (o.original_tokens.empty() ? std::string() : o.original_tokens[0]) +
                           "' (memsim-validate takes options only; --help lists them)");
    po::store(parsed, vm);
    po::notify(vm);
  } catch (const po::error& e) {
    return usage_error(std::string(e.what()) + " (memsim-validate --help lists the options)");
  }
  if (vm.count("help")) {
    std::cout << "Usage: memsim-validate [options]\n"
                 "       memsim-validate --render RUN.json [--out-dir DIR] [--name NAME]\n"
                 "  e.g. memsim-validate --kernels all --matrices 2048x2048,1000x3000 --dtypes f32 --ncu\n"
                 "       memsim-validate --kernel-file my_kernel.hpp --kernels padded --matrices 8192x8192 --ncu\n"
                 "Exit status: 0 all checks passed, 1 a check failed (wrong output, differing addresses, a count\n"
                 "outside its tolerance, ncu failure) or a run's reports could not be written, 2 bad options, an\n"
                 "unusable --out-dir, an unreadable or invalid --render file, or no GPU.\n\n"
              << opts << "\n";
    return 0;
  }

  Settings s;
  s.out_dir = vm["out-dir"].as<std::string>();
  s.name = vm["name"].as<std::string>();
  if (vm.count("render")) {
    // A saved run is rendered as it was measured: the sweep and measurement options do not apply.
    for (const auto& [option, value] : vm)
      if (!value.defaulted() && option != "render" && option != "out-dir" && option != "name")
        return usage_error("--render re-renders a saved run: --" + option + " does not apply (only --out-dir and --name do)");
    if (const std::optional<std::string> why = output_problem(s)) return usage_error(*why);
    return render(s, vm["render"].as<std::string>());
  }
  try {
    auto pick = [&](const char* plural, const char* singular) {
      if (vm.count(singular) && !vm[plural].defaulted())
        throw ConfigError(std::string("give --") + plural + " or --" + singular + ", not both");
      return vm.count(singular) ? vm[singular].as<std::string>() : vm[plural].as<std::string>();
    };
    std::optional<std::string> tile;
    std::optional<int> pad;
    if (vm.count("tile")) tile = vm["tile"].as<std::string>();
    if (vm.count("pad")) pad = vm["pad"].as<int>();
    std::string kernels = pick("kernels", "kernel");
    if (vm.count("define") && !vm.count("kernel-file"))
      throw ConfigError("--define goes with --kernel-file: it sets a macro for compiling the kernel's file");
    if (vm.count("kernel-file")) {
      if (vm.count("define")) s.defines = vm["define"].as<std::vector<std::string>>();
      s.kernel_files = vm["kernel-file"].as<std::vector<std::string>>();
      kernels = with_kernel_files(s, kernels, vm["kernels"].defaulted() && !vm.count("kernel"));
    }
    s.spec = parse_sweep(kernels, pick("blocks", "block"), pick("matrices", "matrix"), pick("dtypes", "dtype"), tile,
                         pad);
    s.timing.reps = vm["reps"].as<int>();
    s.timing.warmup = vm["warmup"].as<int>();
    s.rounds = vm["rounds"].as<int>();
    s.l2_multiple = vm["l2-multiple"].as<double>();
    s.seed = parse_seed(vm["seed"].as<std::string>());
    s.threads = vm["threads"].as<int>();
    s.device = vm["device"].as<int>();
    s.profile = vm["profile"].as<std::string>();
    s.ncu = vm.count("ncu") > 0;
    s.ncu_path = vm["ncu-path"].as<std::string>();
    s.check_only = vm.count("check-only") > 0;
    s.check_addresses = vm.count("check-addresses") > 0;
    s.ncu_child = vm.count("ncu-child") > 0;
    s.counts_gate = vm.count("counts-informational") == 0;
    s.runtime_shape = vm.count("runtime-shape") > 0;
    if (s.timing.reps < 1 || s.timing.reps > 100000) throw ConfigError("--reps must be between 1 and 100000");
    if (s.timing.warmup < 0 || s.timing.warmup > 10000) throw ConfigError("--warmup must be between 0 and 10000");
    if (s.rounds < 1 || s.rounds > 100) throw ConfigError("--rounds must be between 1 and 100");
    if (!(s.l2_multiple > 0 && s.l2_multiple <= 1000)) throw ConfigError("--l2-multiple must be in (0, 1000]");
    if (s.threads < 0 || s.threads > 1024) throw ConfigError("--threads must be between 0 and 1024");
    if (s.device < 0) throw ConfigError("--device must be a CUDA device ordinal (0 or more), got " + std::to_string(s.device));
    if (s.check_addresses && (s.check_only || s.ncu))
      throw ConfigError("--check-addresses is a mode of its own: without --check-only and --ncu");
    if (s.check_only && s.ncu) throw ConfigError("--check-only measures nothing: drop --ncu");
    if (s.ncu && !s.ncu_child && !runnable(s.ncu_path))
      throw ConfigError("--ncu-path " + s.ncu_path + ": no such executable (Nsight Compute's ncu; --ncu needs it)");
    load_profile(s.profile);  // an unknown profile is a usage error, before any GPU work
  } catch (const KernelFileError& e) {
    return kernel_file_error(e);
  } catch (const ConfigError& e) {
    return usage_error(e.what());
  } catch (const ProfileError& e) {
    return usage_error(e.what());
  }
  // The reports' directory is checked before the (long) run, not found unwritable at its end.
  if (!s.ncu_child)
    if (const std::optional<std::string> why = output_problem(s)) return usage_error(*why);

  if (const std::optional<std::string> why = gpu_unavailable_reason()) return usage_error(*why);
  {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) == cudaSuccess && s.device >= devices)
      return usage_error("--device " + std::to_string(s.device) + ": no such CUDA device (this machine has " +
                         std::to_string(devices) +
                         (devices == 1 ? ": ordinal 0)" : ": ordinals 0 to " + std::to_string(devices - 1) + ")"));
  }

  try {
    const DeviceInfo dev = query_device(s.device);
    ResolvedSweep sweep;
    try {
      sweep = resolve_sweep(expand_sweep(s.spec), dev.limits);
    } catch (const ConfigError& e) {
      return usage_error(e.what());
    }
    if (sweep.configs.empty())
      return usage_error("no configuration of the sweep can run: " + sweep.skipped.front().reason);
    Json kernel_files = Json::array();
    try {
      if (!s.kernel_files.empty()) {
        std::cerr << "memsim-validate: compiling " << join(s.kernel_files) << " for sm_" << dev.cc_major
                  << dev.cc_minor << " (nvcc; cached after the first run)\n";
        kernel_files = load_kernel_file_plugins(sweep.configs, dev.cc_major, dev.cc_minor);
      }
    } catch (const KernelFileError& e) {
      return kernel_file_error(e);
    }
    // Configurations at shapes this build holds no instantiation of run the code nvcc makes for that shape, as
    // a hand-written kernel would, compiled now: never, silently, the run-time-shaped body.
    set_runtime_shapes(s.runtime_shape);
    Json suite_plugins = Json::array();
    if (const int missing = s.runtime_shape ? 0 : suite_configs_to_compile(sweep.configs); missing > 0) {
      try {
        if (!s.ncu_child)
          std::cerr << "memsim-validate: compiling " << missing << " configuration" << (missing == 1 ? "" : "s")
                    << " of the suite at static shapes this build does not hold, for sm_" << dev.cc_major
                    << dev.cc_minor << " (nvcc; cached after the first run)\n";
        suite_plugins = load_suite_plugins(sweep.configs, dev.cc_major, dev.cc_minor);
      } catch (const KernelFileError& e) {
        return kernel_file_error(e, " (--runtime-shape runs the run-time-shaped bodies instead, which hand-written "
                                    "kernels of these shapes do not compile to)");
      }
    }
    if (s.check_addresses)
      for (const LaunchConfig& c : sweep.configs)
        if (c.kernel->num_sites > kMaxCaptureSites)
          return usage_error(std::string("--check-addresses keeps at most ") + std::to_string(kMaxCaptureSites) +
                             " access sites a kernel; " + c.kernel->name + " has " +
                             std::to_string(c.kernel->num_sites));
    if (s.ncu_child) return ncu_child(sweep);
    for (const Skipped& k : sweep.skipped)
      std::cerr << "memsim-validate: skipping " << user_label(k.user) << ": " << k.reason << "\n";

    RunResult run;
    run.context = context_json(s, dev, argc, argv);
    run.context["kernel_files"] = kernel_files;
    run.context["suite_plugins"] = suite_plugins;
    run.context["runtime_shape"] = s.runtime_shape;
    run.skipped = sweep.skipped;
    run.ncu["status"] = "not requested";
    run.counts_gate = s.counts_gate;
    if (s.check_addresses) {
      run.mode = "check-addresses";
      for (size_t i = 0; i < sweep.configs.size(); ++i) {
        const AddressCheck c = check_addresses(sweep.configs[i]);
        std::cerr << "[" << i + 1 << "/" << sweep.configs.size() << "] " << config_label(sweep.configs[i]) << ": "
                  << c.warp_accesses << " warp accesses, "
                  << (c.passed() ? "addresses identical" : "MISMATCH: " + c.first_mismatch) << "\n";
        run.address_checks.push_back({sweep.configs[i], c});
      }
    } else {
      run.mode = s.check_only ? "check-only" : "measure";
      measure(s, dev, sweep, run);
      if (s.ncu) profile(s, argv[0], run);
    }
    const Json report = run_json(run);
    std::optional<std::string> write_failure;
    try {
      write_reports(s, report);
    } catch (const WriteError& e) {
      write_failure = e.what();
    }
    write_markdown(std::cout, report);
    std::cout.flush();
    if (!std::cout) std::cerr << "memsim-validate: cannot write the Markdown summary to standard output\n";
    const std::vector<std::string> failed = failures(report);
    for (const std::string& f : failed) std::cerr << "memsim-validate: FAILED " << f << "\n";
    // The results exist only on stdout now: the run failed (exit 1), though its options were good.
    if (write_failure) std::cerr << "memsim-validate: " << *write_failure << "\n";
    return failed.empty() && !write_failure && std::cout ? 0 : kExitFailed;
  } catch (const CudaError& e) {
    std::cerr << "memsim-validate: CUDA error: " << e.what() << "\n";
    return kExitFailed;
  } catch (const std::bad_alloc&) {
    std::cerr << "memsim-validate: out of host memory\n";
    return kExitFailed;
  } catch (const std::exception& e) {
    std::cerr << "memsim-validate: " << e.what() << "\n";
    return kExitFailed;
  }
}
