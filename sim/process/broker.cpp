#include "process/broker.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include "process/child_process.h"

namespace drainsim {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The program on PATH, or "".
std::string on_path(std::string_view program) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const fs::path p = fs::path(dir.empty() ? "." : dir) / program;
    if (access(p.c_str(), X_OK) == 0) return p.string();
  }
  return {};
}

std::string tail_of(const std::string& file, std::size_t bytes = 2000) {
  std::ifstream f(file, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return text.size() > bytes ? text.substr(text.size() - bytes) : text;
}

// Sends a RESP PING over the unix socket; true when it answers +PONG.
bool redis_ping(const std::string& socket) {
  namespace asio = boost::asio;
  try {
    asio::io_context io;
    asio::local::stream_protocol::socket s(io);
    s.connect(asio::local::stream_protocol::endpoint(socket));
    asio::write(s, asio::buffer(std::string_view("PING\r\n")));
    std::array<char, 7> reply{};
    asio::read(s, asio::buffer(reply));
    return std::string_view(reply.data(), reply.size()) == "+PONG\r\n";
  } catch (const std::exception&) {
    return false;
  }
}

// Whether `pid` has ended (reaping it); waits up to `wait`.
bool reaped_within(pid_t pid, std::chrono::milliseconds wait) {
  const auto until = Clock::now() + wait;
  while (true) {
    const pid_t r = waitpid(pid, nullptr, WNOHANG);
    if (r == pid || (r < 0 && errno == ECHILD)) return true;
    if (Clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

Broker::Broker(BrokerKind kind, std::chrono::milliseconds ready_wait) : kind_(kind) {
  const std::string program = "redis-server";
  if (on_path(program).empty()) {
    throw BrokerError(
        fmt::format("{} is not installed: install the Debian package redis-server (apt-get install "
                    "redis-server)",
                    program));
  }
  std::string pattern = (fs::temp_directory_path() / "drainsim-broker-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw BrokerError(fmt::format("cannot make a temporary directory: {}", strerror(errno)));
  }
  dir_ = pattern;
  socket_ = dir_ + "/redis.sock";
  log_ = dir_ + "/redis.log";
  // No TCP port, no persistence, no protected-mode surprises: a unix socket only.
  const SpawnSpec spec{
      {program, "--port", "0", "--unixsocket", socket_, "--unixsocketperm", "700", "--dir", dir_,
       "--save", "", "--appendonly", "no", "--daemonize", "no", "--logfile", log_},
      {"PATH=/usr/local/bin:/usr/bin:/bin"},
      log_};
  try {
    pid_ = spawn(spec);
  } catch (const std::exception& e) {
    fs::remove_all(dir_);
    throw BrokerError(e.what());
  }
  const auto until = Clock::now() + ready_wait;
  while (!redis_ping(socket_)) {
    if (reaped_within(pid_, std::chrono::milliseconds(20)) || Clock::now() >= until) {
      const std::string log = tail_of(log_);
      stop();
      throw BrokerError(fmt::format("{} did not come up within {} ms; its log:\n{}", program,
                                    ready_wait.count(), log));
    }
  }
}

Broker::~Broker() { stop(); }

std::string Broker::url() const { return "unix://" + socket_; }

bool Broker::alive() const { return pid_ > 0 && redis_ping(socket_); }

void Broker::stop() {
  if (pid_ > 0) {
    kill(-pid_, SIGTERM);
    if (!reaped_within(pid_, std::chrono::seconds(5))) {
      kill(-pid_, SIGKILL);
      reaped_within(pid_, std::chrono::seconds(5));
    }
    pid_ = -1;
  }
  if (!dir_.empty()) {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
    dir_.clear();
  }
}

}  // namespace drainsim
