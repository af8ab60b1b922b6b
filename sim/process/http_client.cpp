#include "process/http_client.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <exception>
#include <utility>
#include <vector>

#include <fmt/core.h>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace drainsim {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using boost::system::error_code;

// Named, not anonymous: HttpClient::State derives from it (a unity build includes this file).
namespace http_client_impl {

using Strand = HttpClient::Strand;
// Typed on the strand, not on any_io_executor: no type-erased executor per operation.
using Socket = asio::basic_stream_socket<tcp, Strand>;
using Resolver = asio::ip::basic_resolver<tcp, Strand>;
using Timer = asio::basic_waitable_timer<std::chrono::steady_clock,
                                         asio::wait_traits<std::chrono::steady_clock>, Strand>;
using Request = http::request<http::string_body>;
using Done = std::function<void(error_code, int status, std::string body)>;

// Errors that say the server closed a kept-alive connection before it saw the request.
bool stale(error_code ec) {
  return ec == http::error::end_of_stream || ec == asio::error::eof ||
         ec == asio::error::connection_reset || ec == asio::error::broken_pipe ||
         ec == asio::error::connection_aborted;
}

// One connection to the server, carrying one exchange (request, response) at a time.
// Everything runs on the client's strand. The exchange's deadline is one timer per
// connection, armed when none is and moved along lazily: no timer per read or write
// (issue 39).
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(const Strand& strand, const std::string& host, const std::string& port,
             std::chrono::milliseconds timeout)
      : stream_(strand),
        resolver_(strand),
        timer_(strand),
        host_(host),
        port_(port),
        timeout_(timeout) {
    buffer_.reserve(4096);  // a fetch's reply in one read
  }

  // Sends `request` and reads the answer within the timeout, connecting first if need be;
  // calls `done` once. With `retry_stale`, a connection used before that turns out to have
  // been closed by the server is opened again and the request sent once more.
  // REQUIRES: no exchange under way.
  void exchange(std::shared_ptr<const Request> request, bool retry_stale, Done done);
  // Closes the connection for good; an exchange under way ends with an error.
  void close();

 private:
  void connect();
  void write();
  void fail(error_code ec);
  void finish(error_code ec, int status, std::string body);
  void drop();  // closes the socket; the next exchange connects again
  // Arms the timer for deadline_ unless it is armed already; on_deadline() ends an
  // exchange that is past it with beast::error::timeout.
  void arm();
  void on_deadline();
  // The error an operation ended with, as the exchange should report it.
  error_code why(error_code ec) const;

  Socket stream_;
  Resolver resolver_;
  Timer timer_;
  beast::flat_buffer buffer_;
  http::response<http::string_body> response_;
  const std::string host_;
  const std::string port_;
  const std::chrono::milliseconds timeout_;
  std::shared_ptr<const Request> request_;
  Done done_;
  bool used_ = false;   // the socket has carried an exchange already
  bool retry_ = false;  // the exchange under way may be sent again on a new connection
  bool closed_ = false;
  bool busy_ = false;       // an exchange is under way
  bool armed_ = false;      // timer_ has a wait under way
  bool timed_out_ = false;  // the exchange under way passed its deadline
  std::chrono::steady_clock::time_point deadline_;
};

void Connection::exchange(std::shared_ptr<const Request> request, bool retry_stale, Done done) {
  request_ = std::move(request);
  done_ = std::move(done);
  if (closed_) {
    finish(asio::error::operation_aborted, 0, {});
    return;
  }
  // One deadline for the exchange, a retry included.
  busy_ = true;
  timed_out_ = false;
  deadline_ = std::chrono::steady_clock::now() + timeout_;
  arm();
  if (stream_.is_open()) {
    retry_ = retry_stale && used_;
    write();
  } else {
    retry_ = false;
    connect();
  }
}

void Connection::connect() {
  used_ = false;
  buffer_.clear();
  resolver_.async_resolve(
      host_, port_,
      [self = shared_from_this()](error_code ec, const tcp::resolver::results_type& results) {
        ec = self->why(ec);
        if (ec) {
          self->finish(ec, 0, {});
          return;
        }
        asio::async_connect(self->stream_, results, [self](error_code ec2, const tcp::endpoint&) {
          ec2 = self->why(ec2);
          if (ec2) {
            self->drop();
            self->finish(ec2, 0, {});
            return;
          }
          // A request goes out at once, not held for the server's delayed ACK (Nagle).
          error_code ignored;
          self->stream_.set_option(tcp::no_delay(true), ignored);
          self->write();
        });
      });
}

void Connection::write() {
  http::async_write(stream_, *request_, [self = shared_from_this()](error_code ec, std::size_t) {
    ec = self->why(ec);
    if (ec) {
      self->fail(ec);
      return;
    }
    self->response_ = {};
    http::async_read(
        self->stream_, self->buffer_, self->response_, [self](error_code ec2, std::size_t) {
          ec2 = self->why(ec2);
          if (ec2) {
            self->fail(ec2);
            return;
          }
          self->used_ = true;
          if (!self->response_.keep_alive()) self->drop();
          self->finish({}, self->response_.result_int(), std::move(self->response_.body()));
        });
  });
}

void Connection::fail(error_code ec) {
  drop();
  if (retry_ && !closed_ && stale(ec)) {
    retry_ = false;
    connect();
    return;
  }
  finish(ec, 0, {});
}

error_code Connection::why(error_code ec) const {
  if (timed_out_) return beast::error::timeout;  // on_deadline() cancelled the operation
  if (!ec && closed_) return asio::error::operation_aborted;
  return ec;
}

void Connection::arm() {
  if (armed_ || closed_) return;
  armed_ = true;
  timer_.expires_at(deadline_);
  timer_.async_wait([self = shared_from_this()](error_code) { self->on_deadline(); });
}

void Connection::on_deadline() {
  armed_ = false;
  if (closed_ || !busy_ || timed_out_) return;
  if (std::chrono::steady_clock::now() < deadline_) {  // a later exchange's: wait on
    arm();
    return;
  }
  timed_out_ = true;
  resolver_.cancel();
  error_code ignored;
  stream_.cancel(ignored);  // the operation under way ends, with why() = timeout
}

void Connection::finish(error_code ec, int status, std::string body) {
  busy_ = false;
  request_.reset();
  Done done = std::exchange(done_, nullptr);
  done(ec, status, std::move(body));  // may start the next exchange
}

void Connection::drop() {
  error_code ignored;
  stream_.shutdown(tcp::socket::shutdown_both, ignored);
  stream_.close(ignored);
}

void Connection::close() {
  closed_ = true;
  resolver_.cancel();
  timer_.cancel();
  drop();
}

// The client's state. Everything but post() and pending() runs on the strand.
class Client : public std::enable_shared_from_this<Client> {
 public:
  using Callback = HttpClient::Callback;

  Client(const Strand& strand, std::string host, std::uint16_t port,
         std::chrono::milliseconds timeout)
      : strand_(strand), host_(std::move(host)), port_(std::to_string(port)), timeout_(timeout) {}

  void post(std::string target, std::string body, Callback done, bool alone);
  std::size_t pending() const { return pending_.load(); }
  void close() {
    asio::post(strand_, [self = shared_from_this()] { self->shut(); });
  }

 private:
  struct Call {
    std::shared_ptr<const Request> request;
    Callback done;  // empty once called
  };

  void pump();
  void send_alone(const std::shared_ptr<Call>& call);
  void shut();
  void finish(Call& call, error_code ec, int status, std::string body);

  const Strand strand_;
  const std::string host_;
  const std::string port_;
  const std::chrono::milliseconds timeout_;
  std::atomic<std::size_t> pending_{0};
  // On the strand:
  bool closed_ = false;
  std::deque<std::shared_ptr<Call>> queue_;  // post()ed, not yet sent
  std::shared_ptr<Call> current_;            // post()ed and on main_
  std::shared_ptr<Connection> main_;
  std::vector<std::pair<std::shared_ptr<Connection>, std::shared_ptr<Call>>> alone_;
  // Connections of post_alone() calls that ended well, kept open for the next ones: a
  // worker's long-polls then cost no connect and close each (issue 39).
  std::vector<std::shared_ptr<Connection>> idle_alone_;
};

void Client::post(std::string target, std::string body, Callback done, bool alone) {
  auto request = std::make_shared<Request>(http::verb::post, target, 11);
  request->set(http::field::host, host_ + ":" + port_);
  request->set(http::field::content_type, "application/json");
  request->keep_alive(true);
  request->body() = std::move(body);
  request->prepare_payload();
  auto call = std::make_shared<Call>(Call{std::move(request), std::move(done)});
  pending_.fetch_add(1);
  asio::post(strand_, [self = shared_from_this(), call = std::move(call), alone] {
    if (self->closed_) {
      self->finish(*call, asio::error::operation_aborted, 0, {});
    } else if (alone) {
      self->send_alone(call);
    } else {
      self->queue_.push_back(call);
      self->pump();
    }
  });
}

void Client::pump() {
  if (closed_ || current_ || queue_.empty()) return;
  current_ = std::move(queue_.front());
  queue_.pop_front();
  if (!main_) main_ = std::make_shared<Connection>(strand_, host_, port_, timeout_);
  // The connection holds this callback, so it holds the client weakly (no cycle). The
  // client goes only after shut() has finished every call.
  main_->exchange(
      current_->request, /*retry_stale=*/true,
      [weak = weak_from_this(), call = current_](error_code ec, int status, std::string body) {
        const std::shared_ptr<Client> self = weak.lock();
        if (!self) return;
        if (self->current_ == call) self->current_.reset();
        self->pump();
        self->finish(*call, ec, status, std::move(body));
      });
}

void Client::send_alone(const std::shared_ptr<Call>& call) {
  std::shared_ptr<Connection> connection;
  if (!idle_alone_.empty()) {
    connection = std::move(idle_alone_.back());
    idle_alone_.pop_back();
  } else {
    connection = std::make_shared<Connection>(strand_, host_, port_, timeout_);
  }
  alone_.emplace_back(connection, call);
  // A kept connection the server has closed meanwhile is opened again (retry_stale).
  connection->exchange(call->request, /*retry_stale=*/true,
                       [weak = weak_from_this(), call, raw = connection.get()](
                           error_code ec, int status, std::string body) {
                         const std::shared_ptr<Client> self = weak.lock();
                         if (!self) return;
                         const auto it =
                             std::find_if(self->alone_.begin(), self->alone_.end(),
                                          [raw](const auto& a) { return a.first.get() == raw; });
                         if (it != self->alone_.end()) {
                           if (!ec && !self->closed_) self->idle_alone_.push_back(it->first);
                           self->alone_.erase(it);
                         }
                         if (ec || self->closed_)
                           raw->close();  // still alive: the handler that called us owns it
                         self->finish(*call, ec, status, std::move(body));
                       });
}

void Client::shut() {
  if (closed_) return;
  closed_ = true;
  std::vector<std::shared_ptr<Call>> aborted;
  if (current_) aborted.push_back(std::exchange(current_, nullptr));
  aborted.insert(aborted.end(), queue_.begin(), queue_.end());
  queue_.clear();
  if (main_) main_->close();
  for (auto& [connection, call] : alone_) {
    connection->close();
    aborted.push_back(call);
  }
  alone_.clear();
  for (auto& connection : idle_alone_) connection->close();
  idle_alone_.clear();
  for (const std::shared_ptr<Call>& call : aborted) {
    finish(*call, asio::error::operation_aborted, 0, {});
  }
}

void Client::finish(Call& call, error_code ec, int status, std::string body) {
  if (!call.done) return;  // already failed by close()
  Callback done = std::exchange(call.done, nullptr);
  pending_.fetch_sub(1);
  // An exception must not unwind through Asio; there is nobody left to tell but stderr.
  try {
    done(ec, status, std::move(body));
  } catch (const std::exception& e) {
    fmt::print(stderr, "drainsim: an HTTP client callback threw: {}\n", e.what());
  } catch (...) {
    fmt::print(stderr, "drainsim: an HTTP client callback threw\n");
  }
}

}  // namespace http_client_impl

struct HttpClient::State : http_client_impl::Client {
  using Client::Client;
};

HttpClient::HttpClient(asio::io_context& io, std::string host, std::uint16_t port,
                       std::chrono::milliseconds timeout)
    : HttpClient(asio::make_strand(io), std::move(host), port, timeout) {}

HttpClient::HttpClient(const Strand& strand, std::string host, std::uint16_t port,
                       std::chrono::milliseconds timeout)
    : state_(std::make_shared<State>(strand, std::move(host), port, timeout)) {}

HttpClient::~HttpClient() { close(); }

void HttpClient::post(std::string target, std::string body, Callback done) {
  state_->post(std::move(target), std::move(body), std::move(done), /*alone=*/false);
}

void HttpClient::post_alone(std::string target, std::string body, Callback done) {
  state_->post(std::move(target), std::move(body), std::move(done), /*alone=*/true);
}

std::size_t HttpClient::pending() const { return state_->pending(); }

void HttpClient::close() { state_->close(); }

}  // namespace drainsim
