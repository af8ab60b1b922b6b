#include "io/atomic_file.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

namespace drainsim {

namespace {

// The temporary file a write_whole() call is writing, for the handler below; a fixed
// buffer, as a signal handler may not allocate.
char g_tmp_path[4096];
std::atomic<bool> g_tmp_claimed{false};  // a guard holds g_tmp_path
constexpr std::array<int, 2> kEndingSignals = {SIGINT, SIGTERM};

extern "C" void remove_tmp_and_end(int signal) {
  ::unlink(g_tmp_path);  // async-signal-safe, as are the calls below
  ::signal(signal, SIG_DFL);
  ::raise(signal);  // delivered when the handler returns: the default action
}

// While alive: a SIGINT or SIGTERM that nothing else handles (its disposition is the
// default) removes the temporary file before it ends the process (Ctrl+C during a long
// write left PATH.tmp-PID behind). Signals with a handler of their own (a command's
// StopSignal) are left alone; so is a second write at the same time, on another thread.
class TmpGuard {
 public:
  explicit TmpGuard(const std::string& tmp) {
    if (tmp.size() >= sizeof g_tmp_path || g_tmp_claimed.exchange(true)) return;
    std::memcpy(g_tmp_path, tmp.c_str(), tmp.size() + 1);
    claimed_ = true;
    struct sigaction sa = {};
    sa.sa_handler = remove_tmp_and_end;
    sigemptyset(&sa.sa_mask);
    for (std::size_t i = 0; i < kEndingSignals.size(); ++i) {
      struct sigaction old = {};
      if (sigaction(kEndingSignals[i], nullptr, &old) != 0) continue;
      if ((old.sa_flags & SA_SIGINFO) != 0 || old.sa_handler != SIG_DFL) continue;
      installed_[i] = sigaction(kEndingSignals[i], &sa, nullptr) == 0;
    }
    struct sigaction xfsz = {};
    if (sigaction(SIGXFSZ, nullptr, &xfsz) == 0 && (xfsz.sa_flags & SA_SIGINFO) == 0 &&
        xfsz.sa_handler == SIG_DFL) {
      ignoring_xfsz_ = ::signal(SIGXFSZ, SIG_IGN) != SIG_ERR;
    }
  }
  ~TmpGuard() {
    for (std::size_t i = 0; i < kEndingSignals.size(); ++i) {
      if (installed_[i]) ::signal(kEndingSignals[i], SIG_DFL);
    }
    if (ignoring_xfsz_) ::signal(SIGXFSZ, SIG_DFL);
    if (claimed_) g_tmp_claimed.store(false);
  }
  TmpGuard(const TmpGuard&) = delete;
  TmpGuard& operator=(const TmpGuard&) = delete;

 private:
  bool claimed_ = false;
  bool ignoring_xfsz_ = false;
  std::array<bool, kEndingSignals.size()> installed_ = {};
};

// Why writing `tmp` failed, `error` being errno then (which later calls in the writer may
// have changed): a file size limit it reached, or a write error the system reported.
std::string write_error(const std::string& tmp, int error) {
  struct rlimit limit {};
  struct stat st {};
  if (::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      ::stat(tmp.c_str(), &st) == 0 && static_cast<rlim_t>(st.st_size) >= limit.rlim_cur) {
    return fmt::format("{}: the file size limit (ulimit -f) is {} bytes", std::strerror(EFBIG),
                       limit.rlim_cur);
  }
  const bool says = error == ENOSPC || error == EDQUOT || error == EIO || error == EFBIG;
  return says ? std::strerror(error) : "";
}

}  // namespace

bool write_whole(const std::string& path, const std::function<void(std::ostream&)>& write,
                 std::string* why) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(path, ec);
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    std::ofstream f(path, std::ios::binary);
    write(f);
    return static_cast<bool>(f << std::flush);
  }
  const std::string tmp = fmt::format("{}.tmp-{}", path, getpid());
  const TmpGuard guard(tmp);
  bool written;
  int error = 0;
  {
    errno = 0;
    std::ofstream f(tmp, std::ios::binary);
    if (f) write(f);
    written = static_cast<bool>(f << std::flush);
    if (!written) error = errno;
  }
  if (written) fs::rename(tmp, path, ec);
  if (!written || ec) {
    if (why != nullptr) *why = written ? ec.message() : write_error(tmp, error);
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
