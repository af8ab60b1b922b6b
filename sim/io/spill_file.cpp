#include "io/spill_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace drainsim {

namespace {

std::string temp_folder() {
  const char* dir = std::getenv("TMPDIR");
  return dir != nullptr && *dir != '\0' ? dir : "/tmp";
}

// An unnamed file in `dir`, open for reading and writing; -1 (errno set) if none can be
// made.
int unnamed_file(const std::string& dir) {
#ifdef O_TMPFILE
  const int fd = open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)) return fd;
#endif
  std::string name = dir + "/drainsim-spill-XXXXXX";
  const int named = mkostemp(name.data(), O_CLOEXEC);
  if (named >= 0) unlink(name.c_str());
  return named;
}

}  // namespace

SpillFile::SpillFile(std::size_t buffer) : buffer_(std::max(buffer, kMinBuffer)) {}

SpillFile::~SpillFile() {
  if (fd_ >= 0) close(fd_);
}

void SpillFile::append(std::string_view bytes) {
  while (!bytes.empty()) {
    char* p = reserve(1);
    const std::size_t n = std::min(bytes.size(), cap_ - used_);
    std::memcpy(p, bytes.data(), n);
    commit(p + n);
    bytes.remove_prefix(n);
  }
}

void SpillFile::make_room() {
  if (released_) throw std::logic_error("SpillFile: append after read_and_release");
  if (!buf_) {
    buf_.reset(new char[buffer_]);
    cap_ = buffer_;
    return;
  }
  if (fd_ < 0 && error_.empty()) {
    fd_ = unnamed_file(temp_folder());
    if (fd_ < 0) {
      error_ = fmt::format("cannot make a temporary file in {}: {}", temp_folder(),
                           std::strerror(errno));
    }
  }
  const char* p = buf_.get();
  std::size_t left = used_;
  while (error_.empty() && left > 0) {
    const ssize_t n = write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error_ = fmt::format("cannot write a temporary file in {}: {}", temp_folder(),
                           n < 0 ? std::strerror(errno) : "nothing written");
      break;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  spilled_ += used_;  // counted even when lost: size() stays what was appended
  used_ = 0;
}

void SpillFile::read(const TextSink& out) const { read(out, false); }

void SpillFile::read_and_release(const TextSink& out) {
  read(out, true);
  released_ = true;
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  buf_.reset();
  cap_ = used_ = 0;
}

void SpillFile::read(const TextSink& out, bool release) const {
  if (released_) throw std::logic_error("SpillFile: read after read_and_release");
  if (!error_.empty()) throw std::runtime_error(error_);
  if (spilled_ > 0) {
    const std::unique_ptr<char[]> chunk(new char[cap_]);
    std::uint64_t at = 0;
    while (at < spilled_) {
      const std::size_t want =
          static_cast<std::size_t>(std::min<std::uint64_t>(cap_, spilled_ - at));
      const ssize_t n = pread(fd_, chunk.get(), want, static_cast<off_t>(at));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        throw std::runtime_error(fmt::format("cannot read back a temporary file in {}: {}",
                                             temp_folder(),
                                             n < 0 ? std::strerror(errno) : "it is shorter"));
      }
      out(std::string_view(chunk.get(), static_cast<std::size_t>(n)));
      // Best effort: a file system without holes keeps the pages until the file closes.
      if (release)
        fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(at), n);
      at += static_cast<std::uint64_t>(n);
    }
  }
  if (used_ > 0) out(std::string_view(buf_.get(), used_));
}

}  // namespace drainsim
