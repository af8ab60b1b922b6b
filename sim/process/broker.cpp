#include "process/broker.h"

#include <pwd.h>
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

// Runs a program to its end (initdb, createdb, pg_isready); true when it exits 0.
bool run_to_end(const SpawnSpec& spec) {
  pid_t pid = -1;
  try {
    pid = spawn(spec);
  } catch (const std::exception&) {
    return false;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// The newest PostgreSQL's programs (Debian keeps them out of PATH), or "".
std::string postgres_bin() {
  std::string best;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    const fs::path bin = e.path() / "bin";
    if (access((bin / "postgres").c_str(), X_OK) != 0) continue;
    if (best.empty() || std::stoi(e.path().filename().string()) >
                            std::stoi(fs::path(best).parent_path().filename().string())) {
      best = bin.string();
    }
  }
  return best;
}

}  // namespace

Broker::Broker(BrokerKind kind, std::chrono::milliseconds ready_wait) : kind_(kind) {
  const char* package = kind == BrokerKind::kRedis ? "redis-server" : "postgresql";
  const std::string program = kind == BrokerKind::kRedis ? on_path("redis-server") : postgres_bin();
  if (program.empty()) {
    throw BrokerError(
        fmt::format("{} is not installed: install the Debian package {} (apt-get "
                    "install {})",
                    kind == BrokerKind::kRedis ? "redis-server" : "PostgreSQL", package, package));
  }
  std::string pattern = (fs::temp_directory_path() / "drainsim-broker-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw BrokerError(fmt::format("cannot make a temporary directory: {}", strerror(errno)));
  }
  dir_ = pattern;
  log_ = dir_ + "/broker.log";
  try {
    if (kind == BrokerKind::kRedis) {
      start_redis(program, ready_wait);
    } else {
      start_postgres(program, ready_wait);
    }
  } catch (...) {
    stop();
    throw;
  }
}

void Broker::start_redis(const std::string& program, std::chrono::milliseconds ready_wait) {
  socket_ = dir_ + "/redis.sock";
  // No TCP port, no persistence, no protected-mode surprises: a unix socket only.
  const SpawnSpec spec{
      {program, "--port", "0", "--unixsocket", socket_, "--unixsocketperm", "700", "--dir", dir_,
       "--save", "", "--appendonly", "no", "--daemonize", "no", "--logfile", log_},
      {"PATH=/usr/local/bin:/usr/bin:/bin"},
      log_};
  try {
    pid_ = spawn(spec);
  } catch (const std::exception& e) {
    throw BrokerError(e.what());
  }
  wait_until_ready(program, ready_wait);
}

// PostgreSQL will not run as root: as root, its programs run as nobody (setpriv, which
// also keeps them dying with drainsim: a change of user clears PR_SET_PDEATHSIG). Its only
// socket is in the folder; listen_addresses '' opens no TCP port. Durability is off: the
// data dies with the run.
void Broker::start_postgres(const std::string& bin, std::chrono::milliseconds ready_wait) {
  std::vector<std::string> as_user;
  if (geteuid() == 0) {
    const passwd* nobody = getpwnam("nobody");
    if (nobody == nullptr || chown(dir_.c_str(), nobody->pw_uid, nobody->pw_gid) != 0) {
      throw BrokerError(
          fmt::format("cannot hand {} to the user nobody, as PostgreSQL will not "
                      "run as root",
                      dir_));
    }
    as_user = {"setpriv",
               fmt::format("--reuid={}", nobody->pw_uid),
               fmt::format("--regid={}", nobody->pw_gid),
               "--clear-groups",
               "--pdeathsig",
               "KILL",
               "--"};
  }
  const auto as = [&](std::vector<std::string> argv) {
    argv.insert(argv.begin(), as_user.begin(), as_user.end());
    return SpawnSpec{argv, {"PATH=/usr/bin:/bin", "LANG=C.UTF-8"}, log_};
  };
  socket_ = dir_ + "/.s.PGSQL.5432";
  const std::string data = dir_ + "/data";
  if (!run_to_end(as({bin + "/initdb", "-D", data, "-U", "drainsim", "--auth=trust", "--no-sync",
                      "-E", "UTF8"}))) {
    throw BrokerError(fmt::format("initdb failed; its log:\n{}", tail_of(log_)));
  }
  try {
    pid_ = spawn(as({bin + "/postgres", "-D", data, "-k", dir_, "-c", "listen_addresses=", "-c",
                     "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"}));
  } catch (const std::exception& e) {
    throw BrokerError(e.what());
  }
  wait_until_ready(bin + "/postgres", ready_wait);
  if (!run_to_end({{bin + "/createdb", "-h", dir_, "-U", "drainsim", "drainsim"},
                   {"PATH=/usr/bin:/bin"},
                   log_})) {
    throw BrokerError(fmt::format("createdb failed; the log:\n{}", tail_of(log_)));
  }
}

void Broker::wait_until_ready(const std::string& program, std::chrono::milliseconds ready_wait) {
  const auto until = Clock::now() + ready_wait;
  while (!alive()) {
    if (reaped_within(pid_, std::chrono::milliseconds(20)) || Clock::now() >= until) {
      throw BrokerError(fmt::format("{} did not come up within {} ms; its log:\n{}", program,
                                    ready_wait.count(), tail_of(log_)));
    }
  }
}

Broker::~Broker() { stop(); }

std::string Broker::url() const {
  return kind_ == BrokerKind::kRedis ? "unix://" + socket_
                                     : "postgresql://drainsim@/drainsim?host=" + dir_;
}

bool Broker::alive() const {
  if (pid_ <= 0) return false;
  if (kind_ == BrokerKind::kRedis) return redis_ping(socket_);
  return run_to_end({{postgres_bin() + "/pg_isready", "-q", "-h", dir_, "-U", "drainsim"},
                     {"PATH=/usr/bin:/bin"},
                     ""});
}

void Broker::stop() {
  if (pid_ > 0) {
    kill(-pid_, kind_ == BrokerKind::kPostgresql ? SIGINT : SIGTERM);  // postgres: fast shutdown
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
