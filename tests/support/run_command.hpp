#pragma once
// Running a built command as a user does, for the command-line tests (tests/core/cli_test.cpp,
// tests/model/calibrate_cli_test.cpp): its exit code, stdout and stderr.
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace memsim::test {

struct CommandResult {
  int code = -1;  // the exit status; -1 when the command did not exit (a signal)
  std::string out, err;
};

// One shell word, whatever it holds.
inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream os;
  os << f.rdbuf();
  return os.str();
}

// binary with args, stdin from /dev/null; stdout and stderr go through stem.out and stem.err (removed after).
inline CommandResult run_command(const std::string& binary, const std::vector<std::string>& args,
                                 const std::string& stem) {
  std::string cmd = quote(binary);
  for (const std::string& a : args) cmd += " " + quote(a);
  cmd += " >" + quote(stem + ".out") + " 2>" + quote(stem + ".err") + " </dev/null";
  const int status = std::system(cmd.c_str());
  CommandResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(stem + ".out");
  r.err = slurp(stem + ".err");
  std::remove((stem + ".out").c_str());
  std::remove((stem + ".err").c_str());
  return r;
}

}  // namespace memsim::test
