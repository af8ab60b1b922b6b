#include "io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

namespace drainsim {

bool write_whole(const std::string& path, const std::function<void(std::ostream&)>& write) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(path, ec);
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    std::ofstream f(path, std::ios::binary);
    write(f);
    return static_cast<bool>(f << std::flush);
  }
  const std::string tmp = fmt::format("{}.tmp-{}", path, getpid());
  bool written;
  {
    std::ofstream f(tmp, std::ios::binary);
    if (f) write(f);
    written = static_cast<bool>(f << std::flush);
  }
  if (written) fs::rename(tmp, path, ec);
  if (!written || ec) {
    fs::remove(tmp, ec);
    return false;
  }
  return true;
}

std::string cannot_write(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return "is a directory";
    if (S_ISFIFO(st.st_mode)) {  // opening it would wait for a reader
      return ::access(path.c_str(), W_OK) == 0 ? "" : std::strerror(errno);
    }
    if (!S_ISREG(st.st_mode)) {  // written directly: can it be opened for writing?
      const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
      if (fd < 0) return std::strerror(errno);
      ::close(fd);
      return "";
    }
  }
  const std::string tmp = fmt::format("{}.tmp-{}", path, getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return std::strerror(errno);
  ::close(fd);
  ::unlink(tmp.c_str());
  return "";
}

}  // namespace drainsim
