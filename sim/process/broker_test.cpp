// The throwaway broker: up and answering on a unix socket in its own directory, no TCP
// port, two at once apart, and nothing left (process or directory) once it is destroyed.
#include "process/broker.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>

namespace drainsim {
namespace {

namespace fs = std::filesystem;

// Sends `command` (RESP inline) and returns the reply's first `lines` lines, joined by '|'.
std::string ask(const std::string& socket, const std::string& command, int lines) {
  namespace asio = boost::asio;
  asio::io_context io;
  asio::local::stream_protocol::socket s(io);
  s.connect(asio::local::stream_protocol::endpoint(socket));
  asio::write(s, asio::buffer(command + "\r\n"));
  asio::streambuf buf;
  std::string out;
  for (int i = 0; i < lines; ++i) {
    asio::read_until(s, buf, "\r\n");
    std::istream in(&buf);
    std::string line;
    std::getline(in, line);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out += (i ? "|" : "") + line;
  }
  return out;
}

bool process_exists(pid_t pid) { return kill(pid, 0) == 0 || errno != ESRCH; }

TEST(Broker, RedisAnswersOnAUnixSocketOnlyAndLeavesNothingBehind) {
  pid_t pid = -1;
  std::string dir;
  {
    const Broker redis(BrokerKind::kRedis);
    pid = redis.pid();
    dir = redis.directory();
    EXPECT_TRUE(redis.alive());
    EXPECT_EQ(redis.url(), "unix://" + redis.socket_path());
    EXPECT_EQ(fs::path(redis.socket_path()).parent_path(), fs::path(dir));
    EXPECT_EQ(ask(redis.socket_path(), "SET drainsim 1", 1), "+OK");
    EXPECT_EQ(ask(redis.socket_path(), "GET drainsim", 2), "$1|1");
    // No TCP port: "CONFIG GET port" answers *2 $4 port $1 0.
    EXPECT_EQ(ask(redis.socket_path(), "CONFIG GET port", 5), "*2|$4|port|$1|0");
    EXPECT_TRUE(process_exists(pid));
  }
  EXPECT_FALSE(process_exists(pid));
  EXPECT_FALSE(fs::exists(dir));
}

// `pid` if it lives, and its children (PostgreSQL's make process groups of their own).
std::vector<pid_t> with_children(pid_t pid) {
  std::vector<pid_t> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(e.path() / "stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    // pid (comm) state ppid pgrp ...: after the last ')'.
    std::istringstream rest(text.substr(text.rfind(')') + 1));
    std::string state;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (std::stoi(name) == pid || ppid == pid) out.push_back(std::stoi(name));
  }
  return out;
}

std::string run(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  char buf[256];
  while (p && fgets(buf, sizeof buf, p)) out += buf;
  if (p) pclose(p);
  return out;
}

TEST(Broker, PostgresqlAnswersOnItsFoldersSocketOnlyAndLeavesNothingBehind) {
  std::vector<pid_t> started;
  std::string dir;
  {
    const Broker pg(BrokerKind::kPostgresql);
    const pid_t pid = pg.pid();
    dir = pg.directory();
    EXPECT_TRUE(pg.alive());
    EXPECT_EQ(pg.url(), "postgresql://drainsim@/drainsim?host=" + dir);
    EXPECT_TRUE(fs::exists(dir + "/.s.PGSQL.5432"));
    const std::string psql = "psql -X -A -t -h " + dir + " -U drainsim -d drainsim -c ";
    EXPECT_EQ(run(psql + "'select 40 + 2'"), "42\n");
    // No TCP: listen_addresses is empty.
    EXPECT_EQ(run(psql + "'show listen_addresses'"), "\n");
    started = with_children(pid);
    EXPECT_GE(started.size(), 3u);  // the postmaster and its helpers
  }
  for (pid_t p : started) EXPECT_FALSE(process_exists(p)) << p;
  EXPECT_FALSE(fs::exists(dir));
}

// The listening TCP sockets of this machine, "ADDR:PORT" in /proc/net/tcp's hex.
std::vector<std::string> tcp_listeners() {
  std::ifstream f("/proc/net/tcp");
  std::vector<std::string> out;
  std::string line;
  std::getline(f, line);  // header
  while (std::getline(f, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state;
    fields >> slot >> local >> remote >> state;
    if (state == "0A") out.push_back(local);  // TCP_LISTEN
  }
  return out;
}

bool ends_within(pid_t pid, int seconds) {
  for (int i = 0; i < seconds * 20 && process_exists(pid); ++i) usleep(50'000);
  return !process_exists(pid);
}

TEST(Broker, RabbitmqAnswersOnLoopbackOnlyAndLeavesNothingBehind) {
  std::vector<pid_t> started;
  std::string dir;
  int port = 0;
  {
    const Broker rabbit(BrokerKind::kRabbitmq);
    dir = rabbit.directory();
    port = rabbit.port();
    EXPECT_TRUE(rabbit.alive());
    EXPECT_EQ(rabbit.url(), fmt::format("amqp://guest:guest@127.0.0.1:{}/", port));
    // Its AMQP port on 127.0.0.1 (0100007F), and nothing of it on 4369, the shared epmd's.
    const std::vector<std::string> listening = tcp_listeners();
    EXPECT_NE(std::find(listening.begin(), listening.end(), fmt::format("0100007F:{:04X}", port)),
              listening.end());
    for (const std::string& l : listening) EXPECT_NE(l.substr(l.find(':')), ":1111") << l;
    EXPECT_TRUE(fs::exists(dir + "/mnesia"));
    started = with_children(rabbit.pid());
  }
  for (pid_t p : started) EXPECT_FALSE(process_exists(p)) << p;
  EXPECT_FALSE(fs::exists(dir));
  const std::vector<std::string> listening = tcp_listeners();
  EXPECT_EQ(std::find(listening.begin(), listening.end(), fmt::format("0100007F:{:04X}", port)),
            listening.end());
}

TEST(Broker, RabbitmqEndsWhenItsOwnerIsKilled) {
  // The owner dies without a destructor (SIGKILL): the VM sees its stdin close and stops.
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t owner = fork();
  if (owner == 0) {
    close(fds[0]);
    const Broker rabbit(BrokerKind::kRabbitmq);
    const std::string said = fmt::format("{} {}\n", rabbit.pid(), rabbit.directory());
    if (write(fds[1], said.data(), said.size()) != static_cast<ssize_t>(said.size())) _exit(1);
    pause();
  }
  close(fds[1]);
  std::string said;
  char c = 0;
  while (read(fds[0], &c, 1) == 1 && c != '\n') said += c;
  close(fds[0]);
  std::istringstream fields(said);
  pid_t vm = -1;
  std::string dir;
  fields >> vm >> dir;
  ASSERT_GT(vm, 0) << said;
  EXPECT_TRUE(process_exists(vm));
  kill(owner, SIGKILL);
  waitpid(owner, nullptr, 0);
  EXPECT_TRUE(ends_within(vm, 20)) << vm;
  fs::remove_all(dir);  // the owner died before it could
}

TEST(Broker, TwoAtOnceAreApart) {
  const Broker a(BrokerKind::kRedis), b(BrokerKind::kRedis);
  EXPECT_NE(a.socket_path(), b.socket_path());
  ask(a.socket_path(), "SET where a", 1);
  EXPECT_EQ(ask(b.socket_path(), "GET where", 1), "$-1");  // b has no such key
}

TEST(Broker, AMissingProgramNamesItsPackage) {
  const char* old = std::getenv("PATH");
  const std::string saved = old ? old : "";
  setenv("PATH", "/nonexistent", 1);
  std::optional<std::string> error;
  try {
    const Broker redis(BrokerKind::kRedis);
  } catch (const BrokerError& e) {
    error = e.what();
  }
  setenv("PATH", saved.c_str(), 1);
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->find("apt-get install redis-server"), std::string::npos) << *error;
}

}  // namespace
}  // namespace drainsim
