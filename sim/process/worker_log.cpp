#include "process/worker_log.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace drainsim {

namespace {

constexpr std::size_t kChunk = 64 * 1024;
// Chunks read from one pipe before the others get their turn: a flooding worker does not
// starve the rest.
constexpr int kChunksPerTurn = 16;
// Turns given to each pipe when stopping (up to 64 MiB): a leftover still writing is not
// waited for.
constexpr int kFinalTurns = 64;

void write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // a full disk: the output is dropped, the run goes on
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

}  // namespace

WorkerLog::WorkerLog(const std::string& path, std::uint64_t cap) : path_(path), cap_(cap) {
  file_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (file_ < 0) {
    throw std::runtime_error(
        fmt::format("cannot open the worker log {}: {}", path, strerror(errno)));
  }
  if (pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) {
    const int e = errno;
    ::close(file_);
    throw std::runtime_error(fmt::format("worker log {}: pipe: {}", path, strerror(e)));
  }
  devnull_ = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  thread_ = std::thread([this] { run(); });
}

WorkerLog::~WorkerLog() { stop(); }

int WorkerLog::add() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    throw std::runtime_error(fmt::format("worker log {}: pipe: {}", path_, strerror(errno)));
  }
  fcntl(fds[0], F_SETFL, O_NONBLOCK);
  {
    const std::lock_guard lock(mu_);
    added_.push_back(fds[0]);
  }
  const char c = 'a';
  const ssize_t ignored = ::write(wake_[1], &c, 1);
  (void)ignored;
  return fds[1];
}

void WorkerLog::stop() {
  if (!thread_.joinable()) return;
  stopping_ = true;
  const char c = 's';
  const ssize_t ignored = ::write(wake_[1], &c, 1);
  (void)ignored;
  thread_.join();
  ::close(wake_[0]);
  ::close(wake_[1]);
  ::close(file_);
  if (devnull_ >= 0) ::close(devnull_);
}

void WorkerLog::write_out(const char* data, std::size_t size) {
  if (cut_) return;
  const std::uint64_t done = written_.load();
  const std::size_t room =
      cap_ == 0 ? size : static_cast<std::size_t>(std::min<std::uint64_t>(size, cap_ - done));
  write_all(file_, data, room);
  written_ = done + room;
  if (room < size) {
    cut_ = true;
    const std::string line = fmt::format(
        "\n[drainsim] the worker log reached its cap of {} bytes (--worker-log-max): the "
        "workers' further output was discarded\n",
        cap_);
    write_all(file_, line.data(), line.size());
  }
}

bool WorkerLog::drain(int fd) {
  char buf[kChunk];
  for (int i = 0; i < kChunksPerTurn; ++i) {
    // Once cut, the output goes to /dev/null without a copy through this process.
    const ssize_t n = cut_ && devnull_ >= 0
                          ? ::splice(fd, nullptr, devnull_, nullptr, kChunk, SPLICE_F_NONBLOCK)
                          : ::read(fd, buf, sizeof buf);
    if (n > 0 && cut_) continue;
    if (n > 0) {
      write_out(buf, static_cast<std::size_t>(n));
    } else if (n == 0) {
      return false;  // every writer is gone
    } else if (errno == EINTR) {
      continue;
    } else if (errno == EINVAL && cut_ && devnull_ >= 0) {
      ::close(devnull_);  // no splice here: read and drop instead
      devnull_ = -1;
    } else {
      return errno == EAGAIN;
    }
  }
  return true;
}

void WorkerLog::run() {
  std::vector<int> readers;
  auto take_added = [&] {
    const std::lock_guard lock(mu_);
    readers.insert(readers.end(), added_.begin(), added_.end());
    added_.clear();
  };
  std::vector<pollfd> fds;
  while (!stopping_) {
    take_added();
    fds.assign(1, pollfd{wake_[0], POLLIN, 0});
    for (int fd : readers) fds.push_back(pollfd{fd, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) break;
    if (fds[0].revents != 0) {
      char sink[64];
      while (::read(wake_[0], sink, sizeof sink) > 0) {
      }
    }
    for (std::size_t i = 1; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      if (!drain(fds[i].fd)) {
        ::close(fds[i].fd);
        std::erase(readers, fds[i].fd);
      }
    }
  }
  // Stopping: the workers are gone, what they wrote waits in the pipes (a descendant that
  // still holds one open is not waited for).
  take_added();
  for (int fd : readers) {
    for (int turn = 0; turn < kFinalTurns; ++turn) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 0) <= 0 || !drain(fd)) break;
    }
    ::close(fd);
  }
}

}  // namespace drainsim
