#include "base/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace drainsim {

namespace {

const char* type_of(mode_t mode) {
  if (S_ISDIR(mode)) return "is a directory";
  if (S_ISCHR(mode)) return "not a regular file (a character device)";
  if (S_ISBLK(mode)) return "not a regular file (a block device)";
  if (S_ISFIFO(mode)) return "not a regular file (a FIFO)";
  if (S_ISSOCK(mode)) return "not a regular file (a socket)";
  return "not a regular file";
}

std::string format_size(std::uint64_t bytes) {
  if (bytes >= (std::uint64_t{1} << 30)) return fmt::format("{:.1f} GiB", bytes / 1073741824.0);
  if (bytes >= (std::uint64_t{1} << 20)) return fmt::format("{:.1f} MiB", bytes / 1048576.0);
  return fmt::format("{} bytes", bytes);
}

}  // namespace

std::string format_bytes_limit(std::uint64_t bytes) {
  if (bytes % (std::uint64_t{1} << 30) == 0) return fmt::format("{} GiB", bytes >> 30);
  if (bytes % (std::uint64_t{1} << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  return fmt::format("{} bytes", bytes);
}

InputFile::InputFile(const std::string& path, std::uint64_t max_bytes, const std::string& kind)
    : max_(max_bytes), kind_(kind) {
  // Type first, by stat: opening a FIFO would block, reading /dev/zero would not end.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    error_ = std::strerror(errno);
    return;
  }
  if (!S_ISREG(st.st_mode)) {
    error_ = type_of(st.st_mode);
    return;
  }
  // O_NONBLOCK: should the path have become a FIFO since, open does not wait for a writer.
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd_ < 0) {
    error_ = std::strerror(errno);
    return;
  }
  const bool stat_ok = ::fstat(fd_, &st) == 0;
  if (!stat_ok || !S_ISREG(st.st_mode)) {
    error_ = stat_ok ? type_of(st.st_mode) : std::strerror(errno);
    ::close(fd_);
    fd_ = -1;
    return;
  }
  size_ = static_cast<std::uint64_t>(st.st_size);
  if (size_ > max_) {
    error_ = fmt::format("{}, more than the {} {} may be", format_size(size_),
                         format_bytes_limit(max_), kind_);
    ::close(fd_);
    fd_ = -1;
  }
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::optional<std::string> InputFile::read_all() {
  std::string text;
  text.resize(static_cast<std::size_t>(size_));
  std::size_t got = 0;
  while (true) {
    if (got == text.size()) {  // the file may have grown since fstat: read on, up to the limit
      if (text.size() > max_) {
        error_ = fmt::format("more than the {} {} may be (it grew while being read)",
                             format_bytes_limit(max_), kind_);
        return std::nullopt;
      }
      text.resize(text.size() + 65536);
    }
    const ssize_t n = ::read(fd_, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error_ = std::strerror(errno);
      return std::nullopt;
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  return text;
}

std::optional<std::pair<std::uint64_t, std::uint64_t>> file_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return std::make_pair(static_cast<std::uint64_t>(st.st_dev),
                        static_cast<std::uint64_t>(st.st_ino));
}

std::string line_col(std::string_view text, std::size_t pos) {
  pos = std::min(pos, text.size());
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < pos; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return fmt::format("line {}, column {}", line, col);
}

}  // namespace drainsim
