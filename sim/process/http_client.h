// HttpClient: asynchronous JSON POSTs to one HTTP server (Boost.Beast). Requests given
// to post() go out one at a time, in the order given, on one keep-alive connection
// (opened again when the server has closed it), so the server sees them in that order.
// post_alone() sends a request on a connection of its own, for a long-poll that must not
// hold up the rest; such a connection is kept open for the next post_alone() once its
// exchange has ended well. Every request has a deadline; callbacks run on the client's strand
// with the error (if any), the HTTP status and the body: a strand of the client's own, or
// the one given (then a caller on that strand gets its replies with no hop). Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <boost/system/error_code.hpp>

namespace drainsim {

class HttpClient {
 public:
  using Callback = std::function<void(boost::system::error_code, int status, std::string body)>;

  using Strand = boost::asio::strand<boost::asio::io_context::executor_type>;
  HttpClient(boost::asio::io_context& io, std::string host, std::uint16_t port,
             std::chrono::milliseconds timeout = std::chrono::seconds(10));
  HttpClient(const Strand& strand, std::string host, std::uint16_t port,
             std::chrono::milliseconds timeout = std::chrono::seconds(10));
  ~HttpClient();  // close()s

  void post(std::string target, std::string body, Callback done);
  void post_alone(std::string target, std::string body, Callback done);
  // Requests sent or queued and not yet answered (both kinds).
  std::size_t pending() const;
  // Fails every request not yet answered with operation_aborted and closes the
  // connections; later posts fail the same way.
  void close();

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace drainsim
