#include "app/plot.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>

#include "model/atomic_file.hpp"
#include "core/install_paths.hpp"
#include "codegen/tools.hpp"
#include "sim/replay.hpp"
#include "sim/shared_banks.hpp"

extern char** environ;

#ifndef MEMSIM_PLOT_SCRIPT_DEFAULT
#define MEMSIM_PLOT_SCRIPT_DEFAULT "plots/memsim_plot.py"
#endif

namespace memsim {

const std::vector<std::string>& plot_kinds() {
  static const std::vector<std::string> kinds = {"banks", "partitions", "sectors"};
  return kinds;
}

int shared_phase_lanes(int width, const BankRules& rules) {
  const int row_bytes = rules.banks * rules.bank_bytes;
  return std::max(1, std::min(rules.phase_lanes, row_bytes / std::max(std::max(width, 1), rules.bank_bytes)));
}

namespace {

const char* op_name(Op o) { return o == Op::Load ? "ld" : "st"; }

// One warp instruction: its lanes' words and banks, and per phase what the simulator's bank rule counts.
nlohmann::ordered_json instruction_json(const WarpAccess& w, int warp, const BankRules& rules) {
  const SharedCost total = count_shared_wavefronts(w, rules);
  const int width = std::max<int>(w.width, 1);
  const int per_phase = shared_phase_lanes(width, rules);
  nlohmann::ordered_json lanes = nlohmann::ordered_json::array();
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!(w.mask >> lane & 1u)) {
      lanes.push_back(nullptr);
      continue;
    }
    nlohmann::ordered_json words = nlohmann::ordered_json::array(), banks = nlohmann::ordered_json::array();
    const uint64_t lo = w.addr[lane] / uint64_t(rules.bank_bytes);
    const uint64_t hi = (w.addr[lane] + uint64_t(width) - 1) / uint64_t(rules.bank_bytes);
    for (uint64_t word = lo; word <= hi; ++word) {
      words.push_back(word);
      banks.push_back(word % uint64_t(rules.banks));
    }
    lanes.push_back({{"address", w.addr[lane]}, {"words", words}, {"banks", banks}});
  }
  nlohmann::ordered_json phases = nlohmann::ordered_json::array();
  for (int first = 0; first < kWarpSize; first += per_phase) {
    const uint32_t span = per_phase >= kWarpSize ? ~0u : ((1u << per_phase) - 1u) << first;
    WarpAccess phase = w;
    phase.mask = w.mask & span;
    std::vector<int64_t> bank_words(size_t(rules.banks), 0);
    const SharedCost c = phase.mask ? count_shared_wavefronts(phase, rules, bank_words.data()) : SharedCost{};
    phases.push_back({{"first_lane", first}, {"lanes", per_phase}, {"wavefronts", c.wavefronts},
                      {"bank_words", bank_words}});
  }
  return {{"warp", warp},
          {"width", width},
          {"active_lanes", active_lanes(w)},
          {"wavefronts", total.wavefronts},
          {"ideal_wavefronts", total.ideal_wavefronts},
          {"bank_conflicts", total.conflicts()},
          {"phases", phases},
          {"lanes", lanes}};
}

// python3 on PATH, or "" when there is none.
std::string python_on_path() {
  const char* path = std::getenv("PATH");
  const std::string dirs = path ? path : "";
  for (size_t start = 0; start <= dirs.size();) {
    const size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = dirs.substr(start, end - start);
    const std::string candidate = (dir.empty() ? "." : dir) + "/python3";
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

// The command that gives `python` matplotlib: Debian's package for the system Python, pip for any other (a
// pyenv's or a virtual environment's).
std::string install_command(const std::string& python) {
  if (python == "/usr/bin/python3") return "apt-get install python3-matplotlib";
  return python + " -m pip install matplotlib";
}

}  // namespace

PythonChoice find_python() {
  PythonChoice choice;
  std::vector<std::string> candidates;
  // A Python named in MEMSIM_PYTHON is the one asked for: never replaced by another without a word.
  if (const char* env = std::getenv("MEMSIM_PYTHON"); env && *env) {
    candidates.push_back(env);
  } else {
    // The user's own python3 first (a pyenv's or a virtual environment's, where pip put matplotlib), then the
    // system's (where python3-matplotlib installs it).
    if (const std::string on_path = python_on_path(); !on_path.empty()) candidates.push_back(on_path);
    if (std::find(candidates.begin(), candidates.end(), "/usr/bin/python3") == candidates.end() &&
        access("/usr/bin/python3", X_OK) == 0)
      candidates.push_back("/usr/bin/python3");
  }
  std::vector<std::string> runnable;
  for (const std::string& python : candidates) {
    const int rc = tools::run({python, "-c", "import matplotlib"}, "/dev/null", "/dev/null");
    if (rc == 0) {
      choice.python = python;
      return choice;
    }
    if (rc > 0) runnable.push_back(python);
  }
  if (runnable.empty()) {
    choice.why = candidates.empty() ? "no python3 was found (MEMSIM_PYTHON unset, none on PATH, no /usr/bin/python3)"
                                    : "no Python could be run (" + candidates[0] + (candidates.size() > 1 ? ", ..." : "") + ")";
    choice.why = "--plot needs python3 with matplotlib, and " + choice.why +
                 ": install them (apt-get install python3-matplotlib) or set MEMSIM_PYTHON to a python3 that has it";
    return choice;
  }
  std::string tried, commands;
  for (const std::string& python : runnable) {
    tried += (tried.empty() ? "" : ", ") + python;
    commands += (commands.empty() ? "" : ", or ") + install_command(python);
  }
  choice.why = "--plot needs matplotlib, which " + tried + " cannot" +
               " import: install it with " + commands;
  return choice;
}

namespace {

int plot_error(const std::string& msg) {
  std::cerr << "memsim: " << msg << "\n";
  return 2;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && std::equal(tail.rbegin(), tail.rend(), s.rbegin(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == b;
         });
}

}  // namespace

nlohmann::ordered_json bank_map_json(const ReplayResult& replay, const MemoryRules& rules) {
  const KernelInfo& k = *replay.config.kernel;
  std::vector<nlohmann::ordered_json> per_site(size_t(k.num_sites), nlohmann::ordered_json::array());
  for (const auto& [warp, w] : replay.first_block_shared)
    per_site[size_t(w.site)].push_back(instruction_json(w, warp, rules.banks));
  nlohmann::ordered_json sites = nlohmann::ordered_json::array();
  for (int i = 0; i < k.num_sites; ++i) {
    if (k.sites[i].space != Space::Shared) continue;
    sites.push_back({{"site", i},
                     {"name", k.sites[i].name},
                     {"op", op_name(k.sites[i].op)},
                     {"expr", k.sites[i].expr},
                     {"instructions", per_site[size_t(i)]}});
  }
  return {{"block", 0},
          {"rules", {{"banks", rules.banks.banks}, {"bank_bytes", rules.banks.bank_bytes},
                     {"phase_lanes", rules.banks.phase_lanes}}},
          {"sites", sites}};
}

int draw_plot(const std::string& kind, const std::string& out, const nlohmann::ordered_json& document,
              const std::vector<std::string>& extra) {
  if (ends_with(out, ".json")) {
    // Whole or not at all: several memsims writing the same name leave one whole document.
    if (const std::string why = write_file_atomically(out, document.dump() + "\n"); !why.empty())
      return plot_error("cannot write --plot-out " + out + ": " + why);
    std::cout << out << "\n";
    return 0;
  }
  const PythonChoice found = find_python();
  if (found.python.empty()) return plot_error(found.why);
  const std::string& python = found.python;
  const char* env_script = std::getenv("MEMSIM_PLOT_SCRIPT");
  const std::string script = env_script && *env_script ? env_script
                             : installed_data_path("plots/memsim_plot.py").value_or(MEMSIM_PLOT_SCRIPT_DEFAULT);
  struct stat st {};
  if (stat(script.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return plot_error("the plotting script " + script + " is missing (set MEMSIM_PLOT_SCRIPT to plots/memsim_plot.py)");

  std::vector<std::string> args = {python, script, kind, "-", "--out", out};
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int fds[2];
  if (pipe(fds) != 0) return plot_error(std::string("cannot start the plotting script: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[0], 0);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  // The script's messages say "memsim:" when memsim runs it.
  setenv("MEMSIM_PLOT_PROG", "memsim", 1);
  pid_t pid = 0;
  // The script names memsim's options in its errors (--plot-site, not its own --site).
  setenv("MEMSIM_PLOT_CALLER", "memsim", 1);
  const int rc = posix_spawn(&pid, python.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[0]);
  if (rc != 0) {
    close(fds[1]);
    if (rc == ENOENT || rc == EACCES)
      return plot_error("--plot needs python3 with matplotlib, and " + python + " cannot be run (" + std::strerror(rc) +
                        "): install python3-matplotlib (apt-get install python3-matplotlib)");
    return plot_error("cannot run " + python + ": " + std::strerror(rc));
  }
  // A script that stops early (a bad --plot-site) closes the pipe: its message counts, not the broken pipe.
  signal(SIGPIPE, SIG_IGN);
  const std::string text = document.dump() + "\n";
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = write(fds[1], text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += size_t(n);
  }
  close(fds[1]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return plot_error(std::string("lost the plotting script: ") + std::strerror(errno));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  std::cerr << "memsim: the plotting script stopped on signal " << WTERMSIG(status) << "\n";
  return 1;
}

}  // namespace memsim
