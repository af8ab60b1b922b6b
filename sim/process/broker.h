// A throwaway broker for running a real job system (drainsim real): Redis, PostgreSQL or
// RabbitMQ, started for one run in a fresh temporary directory, reachable only through a
// unix socket in it (RabbitMQ, which has none: on free ports of 127.0.0.1, nothing beyond
// this machine), and stopped, reaped and removed with its directory when the Broker is
// destroyed (SIGTERM, PostgreSQL's fast-shutdown SIGINT, then a SIGKILL after 5 s). It runs
// in a process group of its own and dies with the thread that started it (PostgreSQL's
// children follow their postmaster; RabbitMQ's Erlang VM ends when its stdin, a pipe
// this object holds, closes), so a crash or Ctrl+C leaves nothing behind. Not
// thread-safe.
#pragma once

#include <sys/types.h>

#include <array>
#include <chrono>
#include <stdexcept>
#include <string>
#include <string_view>

#include "base/names.h"

namespace drainsim {

enum class BrokerKind { kRedis, kPostgresql, kRabbitmq };
constexpr std::array<std::string_view, 3> names(BrokerKind) {
  return {"redis", "postgresql", "rabbitmq"};
}

// Why a broker could not be had; the message says what to do (e.g. the Debian package to
// install) or quotes the broker's log.
struct BrokerError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Broker {
 public:
  // Starts one and waits until it answers, for up to `ready_wait` (a RabbitMQ takes 5-15 s
  // here). Throws BrokerError.
  Broker(BrokerKind kind, std::chrono::milliseconds ready_wait = std::chrono::seconds(60));
  ~Broker();
  Broker(const Broker&) = delete;
  Broker& operator=(const Broker&) = delete;

  BrokerKind kind() const { return kind_; }
  // Its address, as its clients take it: redis "unix:///tmp/drainsim-broker-XXXXXX/redis.sock",
  // postgresql "postgresql://drainsim@/drainsim?host=/tmp/drainsim-broker-XXXXXX" (the
  // database drainsim, its superuser drainsim, trusted on the socket in that folder),
  // rabbitmq "amqp://guest:guest@127.0.0.1:PORT/" (guest may log in from loopback only).
  std::string url() const;
  const std::string& socket_path() const { return socket_; }  // rabbitmq: none
  int port() const { return port_; }                          // rabbitmq's AMQP port
  const std::string& directory() const { return dir_; }
  pid_t pid() const { return pid_; }
  // Its server program, for messages ("redis-server", "postgres", "rabbitmq-server"), and
  // the file its output goes to.
  std::string program() const;
  const std::string& log_path() const { return log_; }
  // True while it answers (redis: PING; postgresql: pg_isready; rabbitmq: an AMQP
  // protocol header gets the Connection.Start frame).
  bool alive() const;

 private:
  void start_redis(const std::string& program, std::chrono::milliseconds ready_wait);
  void start_postgres(const std::string& bin, std::chrono::milliseconds ready_wait);
  void start_rabbitmq(const std::string& server, const std::string& epmd,
                      std::chrono::milliseconds ready_wait);
  void wait_until_ready(const std::string& program, std::chrono::milliseconds ready_wait);
  void stop();

  BrokerKind kind_;
  std::string dir_, socket_, log_;
  pid_t pid_ = -1;
  pid_t epmd_pid_ = -1;  // rabbitmq's own epmd
  int stdin_fd_ = -1;    // rabbitmq: the write end of its VM's stdin
  int port_ = 0;
};

}  // namespace drainsim
