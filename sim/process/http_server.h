// HttpServer: a small HTTP/1.1 server (Boost.Beast) for JSON POST endpoints, listening
// on 127.0.0.1. Connections are kept alive and served one request at a time, each on a
// strand of its own on the given io_context (run by any number of threads). The handler
// may answer later and from any thread (a long-poll): it gets a Responder to call
// exactly once; a Responder whose connection has gone (or after stop()) does nothing.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>

namespace drainsim {

struct HttpRequest {
  std::string method;  // "POST", "GET", ...
  std::string target;  // "/ojs/v1/workers/fetch"
  std::string body;
};

struct HttpResponse {
  int status = 200;
  std::string body;  // JSON text; sent with Content-Type: application/json
};

using Responder = std::function<void(HttpResponse)>;
using HttpHandler = std::function<void(HttpRequest, Responder)>;

class HttpServer {
 public:
  HttpServer(boost::asio::io_context& io, HttpHandler handler);
  ~HttpServer();  // stop()s

  // Starts listening on 127.0.0.1 at an ephemeral port and returns the port.
  std::uint16_t listen();
  // Stops accepting and closes every connection. Thread-safe; idempotent.
  void stop();

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace drainsim
