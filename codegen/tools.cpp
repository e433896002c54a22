#include "codegen/tools.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/install_paths.hpp"

extern char** environ;

namespace memsim::tools {
namespace fs = std::filesystem;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

bool executable(const std::string& p) { return !p.empty() && ::access(p.c_str(), X_OK) == 0; }

std::string on_path(const std::string& name) {
  std::stringstream path(env("PATH"));
  for (std::string dir; std::getline(path, dir, ':');)
    if (!dir.empty() && executable(dir + "/" + name)) return dir + "/" + name;
  return {};
}

std::string beside_or_on_path(const std::string& tool, const std::string& beside) {
  if (!beside.empty()) {
    const std::string p = (fs::path(beside).parent_path() / tool).string();
    if (executable(p)) return p;
  }
  return on_path(tool);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int run(const std::vector<std::string>& argv, const std::string& out, const std::string& err) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

uint64_t fnv1a(const std::string& s, uint64_t h) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string hash_headers(const std::string& root, const std::vector<std::string>& dirs,
                         const std::vector<std::string>& extensions, const std::string& seed) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  std::error_code ec;
  for (const std::string& sub : dirs)
    for (const auto& e : fs::directory_iterator(fs::path(root) / sub, ec))
      if (std::find(extensions.begin(), extensions.end(), e.path().extension().string()) != extensions.end())
        files.push_back(e.path());
  std::sort(files.begin(), files.end());
  uint64_t v = fnv1a(seed);
  for (const fs::path& f : files) v = fnv1a(f.filename().string() + read_file(f.string()), v);
  return hex(v);
}

std::string kernel_dir() {
  const std::string e = env("MEMSIM_KERNEL_DIR");
  if (!e.empty()) return e;
  if (const std::optional<std::string> installed = installed_data_path("include")) return *installed;
#ifdef MEMSIM_KERNEL_SOURCE_DIR
  return MEMSIM_KERNEL_SOURCE_DIR;
#else
  return {};
#endif
}


}  // namespace memsim::tools
