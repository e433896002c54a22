#include "model/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

namespace memsim {

std::string write_file_atomically(const std::string& path, const std::string& text) {
  const std::filesystem::path target(path);
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  std::string templ = (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
  std::vector<char> name(templ.begin(), templ.end());
  name.push_back('\0');
  const int fd = mkstemp(name.data());
  if (fd < 0) return std::strerror(errno);
  const std::string temp(name.data());
  const auto fail = [&](int err) {
    close(fd);
    unlink(temp.c_str());
    return std::string(std::strerror(err));
  };
  // mkstemp makes the file 0600; an output gets what the umask gives a new file.
  const mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask) != 0) return fail(errno);
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail(n < 0 ? errno : EIO);
    done += size_t(n);
  }
  if (fsync(fd) != 0 && errno != EINVAL) return fail(errno);
  if (close(fd) != 0) {
    const int err = errno;
    unlink(temp.c_str());
    return std::strerror(err);
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    unlink(temp.c_str());
    return std::strerror(err);
  }
  return "";
}

}  // namespace memsim
