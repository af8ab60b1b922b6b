// The process engine's HTTP server (process/http_server.h) reading what a worker sends:
// any bytes on a connection, as one or more pipelined requests, are served or the
// connection is closed; the server never crashes, never hangs, and answers only with an
// HTTP response. One server for the whole run (a thread runs its io_context); each input
// is one connection from 127.0.0.1 that sends the bytes, closes its sending side and reads
// until the server closes. The handler answers at once, as the engine's does for a
// request it refuses (ProcessEngineServer::serve checks the same JSON body).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <nlohmann/json.hpp>

#include "fuzz_target.h"
#include "process/http_server.h"

namespace {

using drainsim::fuzz::fail;

struct Server {
  boost::asio::io_context io;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work{io.get_executor()};
  drainsim::HttpServer server{
      io, [](drainsim::HttpRequest request, drainsim::Responder respond) {
        if (request.method.empty()) fail("a request without a method");
        const nlohmann::json body = nlohmann::json::parse(request.body, nullptr, false);
        respond({body.is_object() ? 404 : 400, R"({"error":{"code":"not_found","message":"no"}})"});
      }};
  std::uint16_t port = server.listen();
  std::thread thread{[this] { io.run(); }};
};

// A system call failed: say which, and why.
[[noreturn]] void fail_errno(const char* call) {
  const std::string what = std::string(call) + " failed: " + std::strerror(errno);
  fail(what.c_str());
}

Server& server() {
  static Server* s = new Server;  // lives as long as the process
  return *s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::uint16_t port = server().port;
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) fail_errno("socket()");
  sockaddr_in at{};
  at.sin_family = AF_INET;
  at.sin_port = htons(port);
  at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  // The client closes first, so each connection leaves its port in TIME_WAIT for a minute:
  // thousands of inputs a second would use up the ephemeral ports of one address. Each
  // connection comes from the next address of 127.0.0.0/8 instead.
  static std::uint32_t next = 0;
  sockaddr_in from{};
  from.sin_family = AF_INET;
  from.sin_addr.s_addr = htonl(0x7F000000u | (1 + next++ % 0xFFFFFD));
  if (bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0) fail_errno("bind()");
  // libFuzzer's -timeout watchdog is a SIGALRM, which interrupts a blocking call: a
  // connect() it interrupts goes on in the background, so wait for it to end; a send() or
  // recv() it interrupts is made again.
  if (connect(fd, reinterpret_cast<sockaddr*>(&at), sizeof at) != 0) {
    if (errno != EINTR) fail_errno("connect()");
    pollfd ready{fd, POLLOUT, 0};
    int n;
    while ((n = poll(&ready, 1, 10'000)) < 0 && errno == EINTR) {
    }
    if (n == 0) fail("connect() took 10 s");
    int error = 0;
    socklen_t length = sizeof error;
    if (n < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0) fail_errno("poll()");
    errno = error;
    if (error != 0) fail_errno("connect()");
  }
  // An answer (or the close) that takes seconds on loopback is a hang.
  const timeval wait{10, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, sizeof wait);
  std::size_t sent = 0;
  while (sent < size) {
    const ssize_t n = send(fd, data + sent, size - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the server closed on a malformed request: fine
    sent += static_cast<std::size_t>(n);
  }
  shutdown(fd, SHUT_WR);
  std::string answer;
  char buffer[4096];
  for (;;) {
    const ssize_t n = recv(fd, buffer, sizeof buffer, 0);
    if (n > 0) {
      answer.append(buffer, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      fail("the server neither answered nor closed");
    break;  // closed (or reset)
  }
  close(fd);
  if (!answer.empty() && answer.compare(0, 5, "HTTP/") != 0) fail("an answer that is not HTTP");
  return 0;
}
