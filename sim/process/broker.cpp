#include "process/broker.h"

#include <fcntl.h>
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
#include <boost/asio/ip/tcp.hpp>
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

// An AMQP 0-9-1 protocol header to 127.0.0.1:port; true when the server answers with a
// method frame (Connection.Start), i.e. RabbitMQ is ready for clients.
bool amqp_answers(int port) {
  namespace asio = boost::asio;
  try {
    asio::io_context io;
    asio::ip::tcp::socket s(io);
    s.connect({asio::ip::address_v4::loopback(), static_cast<unsigned short>(port)});
    asio::write(s, asio::buffer(std::string_view("AMQP\x00\x00\x09\x01", 8)));
    std::array<char, 1> frame_type{};
    asio::read(s, asio::buffer(frame_type));
    return frame_type[0] == 1;
  } catch (const std::exception&) {
    return false;
  }
}

// `n` ports of 127.0.0.1 free now (held open together so they differ, then released).
std::vector<int> free_loopback_ports(int n) {
  namespace asio = boost::asio;
  asio::io_context io;
  std::vector<asio::ip::tcp::acceptor> held;
  std::vector<int> ports;
  for (int i = 0; i < n; ++i) {
    held.emplace_back(io, asio::ip::tcp::endpoint(asio::ip::address_v4::loopback(), 0));
    ports.push_back(held.back().local_endpoint().port());
  }
  return ports;
}

// Whether `pid` has ended (reaping it, its wait status into `status` when given); waits up
// to `wait`.
bool reaped_within(pid_t pid, std::chrono::milliseconds wait, int* status = nullptr) {
  const auto until = Clock::now() + wait;
  while (true) {
    const pid_t r = waitpid(pid, status, WNOHANG);
    if (r == pid || (r < 0 && errno == ECHILD)) return true;
    if (Clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// Whether `pid`, not our child, has ended (SIGKILLed if it has not after `wait`).
bool ended_within(pid_t pid, std::chrono::milliseconds wait) {
  const auto until = Clock::now() + wait;
  while (kill(pid, 0) == 0) {
    if (Clock::now() >= until) {
      kill(pid, SIGKILL);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// Runs a program to its end (initdb, createdb, pg_isready); true when it exits 0. One
// still running after `wait` is killed (its group) and counts as failed: "" or, then,
// " (still running after 60 s: killed)" in `*why`.
bool run_to_end(const SpawnSpec& spec, std::chrono::seconds wait = std::chrono::seconds(60),
                std::string* why = nullptr) {
  pid_t pid = -1;
  try {
    pid = spawn(spec);
  } catch (const std::exception&) {
    return false;
  }
  int status = -1;  // ECHILD (never ours) reaps nothing: not an exit 0
  if (!reaped_within(pid, wait, &status)) {
    kill(-pid, SIGKILL);
    reaped_within(pid, std::chrono::seconds(5));
    if (why) *why = fmt::format(" (still running after {} s: killed)", wait.count());
    return false;
  }
  return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
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

// RabbitMQ's server script (Debian keeps it out of PATH), or "".
std::string rabbitmq_server() {
  const char* script = "/usr/lib/rabbitmq/bin/rabbitmq-server";
  return access(script, X_OK) == 0 ? script : "";
}

}  // namespace

Broker::Broker(BrokerKind kind, std::chrono::milliseconds ready_wait) : kind_(kind) {
  struct Needs {
    const char* what;
    const char* package;
    std::string program;
  };
  const Needs needs =
      kind == BrokerKind::kRedis ? Needs{"redis-server", "redis-server", on_path("redis-server")}
      : kind == BrokerKind::kPostgresql ? Needs{"PostgreSQL", "postgresql", postgres_bin()}
                                        : Needs{"RabbitMQ", "rabbitmq-server", rabbitmq_server()};
  const std::string epmd = kind == BrokerKind::kRabbitmq ? on_path("epmd") : "";
  if (needs.program.empty() || (kind == BrokerKind::kRabbitmq && epmd.empty())) {
    throw BrokerError(
        fmt::format("{} is not installed: install the Debian package {} (apt-get "
                    "install {})",
                    needs.what, needs.package, needs.package));
  }
  std::string pattern = (fs::temp_directory_path() / "drainsim-broker-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw BrokerError(fmt::format("cannot make a temporary directory: {}", strerror(errno)));
  }
  dir_ = pattern;
  log_ = dir_ + "/broker.log";
  try {
    switch (kind) {
      case BrokerKind::kRedis:
        start_redis(needs.program, ready_wait);
        break;
      case BrokerKind::kPostgresql:
        start_postgres(needs.program, ready_wait);
        break;
      case BrokerKind::kRabbitmq:
        start_rabbitmq(needs.program, epmd, ready_wait);
        break;
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
  std::string why;
  if (!run_to_end(as({bin + "/initdb", "-D", data, "-U", "drainsim", "--auth=trust", "--no-sync",
                      "-E", "UTF8"}),
                  std::chrono::seconds(60), &why)) {
    throw BrokerError(fmt::format("initdb failed{}; its log:\n{}", why, tail_of(log_)));
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
                   log_},
                  std::chrono::seconds(60), &why)) {
    throw BrokerError(fmt::format("createdb failed{}; the log:\n{}", why, tail_of(log_)));
  }
}

// RabbitMQ in the foreground as the calling user, never the system service: its data,
// logs, configuration and Erlang cookie (HOME) in the folder, its AMQP listener and
// Erlang distribution on free ports of 127.0.0.1, and an epmd of its own on a third (the
// VM would otherwise start a shared one on 4369). RABBITMQ_ALLOW_INPUT makes the script
// exec the VM (one process, no signal-forwarding shell) with its shell on stdin: a pipe
// held here, whose end (this process's death included) stops the VM.
void Broker::start_rabbitmq(const std::string& server, const std::string& epmd,
                            std::chrono::milliseconds ready_wait) {
  const std::vector<int> ports = free_loopback_ports(3);
  port_ = ports[0];
  const std::string dist_port = std::to_string(ports[1]), epmd_port = std::to_string(ports[2]);
  std::ofstream(dir_ + "/enabled_plugins") << "[].\n";
  std::ofstream(dir_ + "/rabbitmq.conf") << fmt::format(
      "listeners.tcp.default = 127.0.0.1:{}\n"
      "loopback_users.guest = true\n",
      port_);
  std::ofstream(dir_ + "/rabbitmq-env.conf");  // instead of /etc/rabbitmq's
  const std::vector<std::string> env = {
      "PATH=/usr/bin:/bin",
      "LANG=C.UTF-8",
      "HOME=" + dir_,
      "ERL_EPMD_PORT=" + epmd_port,
      "ERL_EPMD_ADDRESS=127.0.0.1",
      fmt::format("RABBITMQ_NODENAME=drainsim-{}@localhost", getpid()),
      "RABBITMQ_NODE_IP_ADDRESS=127.0.0.1",
      fmt::format("RABBITMQ_NODE_PORT={}", port_),
      "RABBITMQ_DIST_PORT=" + dist_port,
      "RABBITMQ_CONF_ENV_FILE=" + dir_ + "/rabbitmq-env.conf",
      "RABBITMQ_CONFIG_FILE=" + dir_ + "/rabbitmq.conf",
      "RABBITMQ_ADVANCED_CONFIG_FILE=" + dir_ + "/advanced.config",
      "RABBITMQ_ENABLED_PLUGINS_FILE=" + dir_ + "/enabled_plugins",
      "RABBITMQ_MNESIA_BASE=" + dir_ + "/mnesia",
      "RABBITMQ_LOG_BASE=" + dir_ + "/log",
      "RABBITMQ_LOGS=" + dir_ + "/log/rabbit.log",
      "RABBITMQ_PID_FILE=" + dir_ + "/rabbit.pid",
      "RABBITMQ_FEATURE_FLAGS_FILE=" + dir_ + "/feature_flags",
      "RABBITMQ_ALLOW_INPUT=1",
      "RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS=-kernel inet_dist_use_interface {127,0,0,1}"};
  try {
    epmd_pid_ = spawn({{epmd, "-port", epmd_port, "-address", "127.0.0.1"}, env, log_});
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
      throw BrokerError(fmt::format("cannot make a pipe: {}", strerror(errno)));
    }
    stdin_fd_ = fds[1];
    SpawnSpec spec{{server}, env, log_};
    spec.stdin_fd = fds[0];
    try {
      pid_ = spawn(spec);
    } catch (...) {
      close(fds[0]);
      throw;
    }
    close(fds[0]);
  } catch (const BrokerError&) {
    throw;
  } catch (const std::exception& e) {
    throw BrokerError(e.what());
  }
  wait_until_ready("rabbitmq-server", ready_wait);
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
  switch (kind_) {
    case BrokerKind::kRedis:
      return "unix://" + socket_;
    case BrokerKind::kPostgresql:
      return "postgresql://drainsim@/drainsim?host=" + dir_;
    case BrokerKind::kRabbitmq:
      break;
  }
  return fmt::format("amqp://guest:guest@127.0.0.1:{}/", port_);
}

bool Broker::alive() const {
  if (pid_ <= 0) return false;
  if (kind_ == BrokerKind::kRedis) return redis_ping(socket_);
  if (kind_ == BrokerKind::kRabbitmq) return amqp_answers(port_);
  return run_to_end({{postgres_bin() + "/pg_isready", "-q", "-h", dir_, "-U", "drainsim"},
                     {"PATH=/usr/bin:/bin"},
                     ""},
                    std::chrono::seconds(10));
}

std::string Broker::program() const {
  switch (kind_) {
    case BrokerKind::kRedis:
      return "redis-server";
    case BrokerKind::kPostgresql:
      return "postgres";
    case BrokerKind::kRabbitmq:
      return "rabbitmq-server";
  }
  return "broker";
}

void Broker::stop() {
  if (pid_ > 0) {
    // Helpers it forked into sessions of their own (RabbitMQ's erl_child_setup) end a
    // moment after it, out of reach of its group: none is left when this returns.
    const std::vector<pid_t> helpers = children_of(pid_);
    kill(-pid_, kind_ == BrokerKind::kPostgresql ? SIGINT : SIGTERM);  // postgres: fast shutdown
    kill(-pid_, SIGCONT);  // a stopped one (a hung broker's test) acts on it
    if (!reaped_within(pid_, std::chrono::seconds(5))) {
      kill(-pid_, SIGKILL);
      reaped_within(pid_, std::chrono::seconds(5));
    }
    for (pid_t helper : helpers) ended_within(helper, std::chrono::seconds(2));
    pid_ = -1;
  }
  if (stdin_fd_ >= 0) {
    close(stdin_fd_);
    stdin_fd_ = -1;
  }
  if (epmd_pid_ > 0) {
    kill(-epmd_pid_, SIGKILL);  // nothing to lose: it only maps node names to ports
    reaped_within(epmd_pid_, std::chrono::seconds(5));
    epmd_pid_ = -1;
  }
  if (!dir_.empty()) {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
    dir_.clear();
  }
}

}  // namespace drainsim
