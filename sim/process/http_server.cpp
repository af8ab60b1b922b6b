#include "process/http_server.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>

namespace drainsim {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using boost::system::error_code;

// Named, not anonymous: HttpServer::State derives from it (a unity build includes this file).
namespace http_server_impl {

constexpr std::uint64_t kMaxBodyBytes = 1024 * 1024;

class Session;

// What the server's sessions share: the handler, the acceptor and the list of sessions.
class Listener : public std::enable_shared_from_this<Listener> {
 public:
  Listener(asio::io_context& io, HttpHandler handler) : io_(io), handler_(std::move(handler)) {}

  std::uint16_t listen();
  void stop();
  bool stopped() const { return stopped_.load(); }
  // Calls the handler, unless stopped (then returns false).
  bool call(HttpRequest request, const Responder& respond);

 private:
  void accept();  // REQUIRES: mu_ held.
  void on_accept(error_code ec, tcp::socket socket);

  asio::io_context& io_;
  const HttpHandler handler_;
  std::atomic<bool> stopped_{false};
  std::mutex mu_;
  std::condition_variable idle_;
  tcp::acceptor acceptor_{io_};                   // guarded by mu_
  std::vector<std::weak_ptr<Session>> sessions_;  // guarded by mu_
  int calls_ = 0;                                 // handler calls under way; guarded by mu_
};

// The listener whose handler this thread is running, if any.
thread_local const Listener* t_calling = nullptr;

// One connection. Everything but close() and the Responders runs on the session's strand.
// A request waiting for its Responder owns the session (through the Responder), and no
// read is under way meanwhile.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, std::shared_ptr<Listener> server)
      : executor_(socket.get_executor()), stream_(std::move(socket)), server_(std::move(server)) {}

  void start() {
    asio::dispatch(executor_, [self = shared_from_this()] { self->read(); });
  }
  void close() {
    asio::post(executor_, [self = shared_from_this()] { self->shut(); });
  }

 private:
  void read();
  void on_read(error_code ec);
  void write(HttpResponse response);
  void on_write(error_code ec);
  void shut();

  const asio::any_io_executor executor_;  // the strand
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> response_;
  const std::shared_ptr<Listener> server_;
  unsigned version_ = 11;
  bool keep_alive_ = true;
  bool closed_ = false;
};

std::uint16_t Listener::listen() {
  std::lock_guard lock(mu_);
  if (stopped_) return 0;
  if (!acceptor_.is_open()) {
    const tcp::endpoint at(asio::ip::address_v4::loopback(), 0);
    acceptor_.open(at.protocol());
    acceptor_.bind(at);
    acceptor_.listen(asio::socket_base::max_listen_connections);
    accept();
  }
  return acceptor_.local_endpoint().port();
}

void Listener::accept() {
  acceptor_.async_accept(asio::make_strand(io_),
                         [self = shared_from_this()](error_code ec, tcp::socket socket) {
                           self->on_accept(ec, std::move(socket));
                         });
}

void Listener::on_accept(error_code ec, tcp::socket socket) {
  std::shared_ptr<Session> session;
  {
    std::lock_guard lock(mu_);
    if (stopped_) return;
    if (!ec) {
      // A response goes out at once, not after the client's delayed ACK (Nagle's algorithm
      // holds a segment while an earlier one is unacknowledged).
      error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      session = std::make_shared<Session>(std::move(socket), shared_from_this());
      std::erase_if(sessions_, [](const std::weak_ptr<Session>& s) { return s.expired(); });
      sessions_.push_back(session);
    }
    accept();
  }
  if (session) session->start();
}

void Listener::stop() {
  std::vector<std::shared_ptr<Session>> live;
  {
    std::unique_lock lock(mu_);
    if (!stopped_) {
      stopped_ = true;
      error_code ignored;
      acceptor_.close(ignored);
      for (const std::weak_ptr<Session>& weak : sessions_) {
        if (std::shared_ptr<Session> s = weak.lock()) live.push_back(std::move(s));
      }
      sessions_.clear();
    }
    // Once stop() returns the handler is not running anywhere (and is never called again),
    // so it may refer to things that go away with the server's owner. A handler that calls
    // stop() itself does not wait for itself.
    idle_.wait(lock, [this] { return calls_ == (t_calling == this ? 1 : 0); });
  }
  for (const std::shared_ptr<Session>& s : live) s->close();
}

bool Listener::call(HttpRequest request, const Responder& respond) {
  {
    std::lock_guard lock(mu_);
    if (stopped_) return false;
    ++calls_;
  }
  const Listener* outer = std::exchange(t_calling, this);
  try {
    handler_(std::move(request), respond);
  } catch (const std::exception& e) {
    respond({500, nlohmann::json{{"error", {{"code", "internal"}, {"message", e.what()}}}}.dump()});
  } catch (...) {
    respond({500, R"({"error":{"code":"internal","message":"unknown exception"}})"});
  }
  t_calling = outer;
  std::lock_guard lock(mu_);
  if (--calls_ == 0) idle_.notify_all();
  return true;
}

void Session::read() {
  if (closed_) return;
  parser_.emplace();
  parser_->body_limit(kMaxBodyBytes);
  http::async_read(stream_, buffer_, *parser_,
                   [self = shared_from_this()](error_code ec, std::size_t) { self->on_read(ec); });
}

void Session::on_read(error_code ec) {
  if (ec) {  // the client has gone, sent something malformed or too big, or stop() closed us
    shut();
    return;
  }
  http::request<http::string_body> request = parser_->release();
  parser_.reset();
  version_ = request.version();
  keep_alive_ = request.keep_alive();
  auto answered = std::make_shared<std::atomic<bool>>(false);
  Responder respond = [self = shared_from_this(), answered](HttpResponse response) {
    if (answered->exchange(true)) return;
    asio::post(self->executor_,
               [self, r = std::move(response)]() mutable { self->write(std::move(r)); });
  };
  HttpRequest r{std::string(request.method_string()), std::string(request.target()),
                std::move(request.body())};
  if (!server_->call(std::move(r), respond)) shut();
}

void Session::write(HttpResponse response) {
  if (closed_ || server_->stopped()) return;
  // Beast refuses a body with 1xx, 204 and 304, and a status above 999.
  int status = response.status;
  if (status < 200 || status > 599) status = 500;
  if (status == 204 || status == 304) response.body.clear();
  response_ = {};
  response_.version(version_);
  response_.result(static_cast<unsigned>(status));
  response_.set(http::field::content_type, "application/json");
  response_.keep_alive(keep_alive_);
  response_.body() = std::move(response.body);
  response_.prepare_payload();
  http::async_write(stream_, response_, [self = shared_from_this()](error_code ec, std::size_t) {
    self->on_write(ec);
  });
}

void Session::on_write(error_code ec) {
  if (ec || !keep_alive_) {
    shut();
    return;
  }
  read();
}

void Session::shut() {
  if (closed_) return;
  closed_ = true;
  error_code ignored;
  stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
  stream_.close();
}

}  // namespace http_server_impl

struct HttpServer::State : http_server_impl::Listener {
  using Listener::Listener;
};

HttpServer::HttpServer(asio::io_context& io, HttpHandler handler)
    : state_(std::make_shared<State>(io, std::move(handler))) {}

HttpServer::~HttpServer() { stop(); }

std::uint16_t HttpServer::listen() { return state_->listen(); }

void HttpServer::stop() { state_->stop(); }

}  // namespace drainsim
