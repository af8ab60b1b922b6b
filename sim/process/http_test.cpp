// HttpServer and HttpClient against each other (and against plain Beast, to see the wire)
// on an io_context run by two threads. Nothing sleeps: every wait is on a future or a
// condition with a generous deadline that only a failing test reaches.
#include "process/http_client.h"
#include "process/http_server.h"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace drainsim {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using boost::system::error_code;
using namespace std::chrono_literals;

constexpr auto kWait = 20s;

// Runs an io_context on two threads. Declare it after everything its handlers touch.
class Pool {
 public:
  explicit Pool(asio::io_context& io) : io_(io), guard_(io.get_executor()) {
    for (int i = 0; i < 2; ++i) {
      std::promise<void> ended;
      ended_.push_back(ended.get_future());
      threads_.emplace_back([this, ended = std::move(ended)]() mutable {
        io_.run();
        ended.set_value();
      });
    }
  }
  ~Pool() {
    io_.stop();
    for (std::thread& t : threads_) t.join();
  }
  // Lets the threads return once no work is left: true if every operation and handler
  // has finished within kWait (so nothing was left behind, and nothing more will run).
  bool drain() {
    guard_.reset();
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    for (std::future<void>& f : ended_) {
      if (f.wait_until(deadline) != std::future_status::ready) return false;
    }
    return true;
  }

 private:
  asio::io_context& io_;
  asio::executor_work_guard<asio::io_context::executor_type> guard_;
  std::vector<std::future<void>> ended_;
  std::vector<std::thread> threads_;
};

// The server side: records every request. /hold is answered only when the test says so,
// /throw throws, /created answers 201, anything else echoes the body with 200.
struct Backend {
  HttpHandler handler() {
    return [this](HttpRequest request, Responder respond) {
      std::unique_lock lock(mu);
      seen.push_back(request);
      changed.notify_all();
      if (request.target == "/hold") {
        held.push_back(std::move(respond));
        return;
      }
      lock.unlock();
      if (request.target == "/throw") throw std::runtime_error("boom");
      if (request.target == "/created") {
        respond({201, R"({"created":true})"});
      } else {
        respond({200, request.body});
      }
    };
  }
  bool wait_seen(std::size_t n) {
    std::unique_lock lock(mu);
    return changed.wait_for(lock, kWait, [&] { return seen.size() >= n; });
  }
  std::vector<HttpRequest> requests() {
    std::lock_guard lock(mu);
    return seen;
  }
  Responder held_at(std::size_t i) {
    std::lock_guard lock(mu);
    return held.at(i);
  }
  void drop_held() {
    std::lock_guard lock(mu);
    held.clear();
  }

  std::mutex mu;
  std::condition_variable changed;
  std::vector<HttpRequest> seen;
  std::vector<Responder> held;
};

struct Reply {
  error_code ec;
  int status = -1;
  std::string body;
};

// A callback that hands its reply to the future.
struct Expect {
  Expect() : promise(std::make_shared<std::promise<Reply>>()), future(promise->get_future()) {}
  HttpClient::Callback callback() {
    return [p = promise](error_code ec, int status, std::string body) {
      p->set_value({ec, status, std::move(body)});
    };
  }
  bool ready() { return future.wait_for(0s) == std::future_status::ready; }
  Reply get() {
    if (future.wait_for(kWait) != std::future_status::ready) {
      ADD_FAILURE() << "no reply within " << kWait.count() << " s";
      return {make_error_code(boost::system::errc::timed_out), -1, ""};
    }
    return future.get();
  }

  std::shared_ptr<std::promise<Reply>> promise;
  std::future<Reply> future;
};

tcp::endpoint local(std::uint16_t port) { return {asio::ip::address_v4::loopback(), port}; }

// The outcome of one asynchronous operation.
struct Outcome {
  std::shared_ptr<std::promise<error_code>> promise = std::make_shared<std::promise<error_code>>();
  auto handler() {
    return [p = promise](error_code ec, std::size_t) { p->set_value(ec); };
  }
  error_code get() {
    std::future<error_code> f = promise->get_future();
    if (f.wait_for(kWait) != std::future_status::ready) {
      ADD_FAILURE() << "no outcome within " << kWait.count() << " s";
      return make_error_code(boost::system::errc::timed_out);
    }
    return f.get();
  }
};

// A connection of plain Beast, to see what goes over the wire. (Not asio::use_future: it
// hands errors over as exception_ptrs, whose count in libstdc++ TSan cannot see.)
class Raw {
 public:
  Raw(asio::io_context& io, std::uint16_t port) : socket_(io) { socket_.connect(local(port)); }

  error_code send(const http::request<http::string_body>& request) {
    Outcome o;
    http::async_write(socket_, request, o.handler());
    return o.get();
  }
  error_code send_bytes(const std::string& bytes) {
    Outcome o;
    asio::async_write(socket_, asio::buffer(bytes), o.handler());
    return o.get();
  }
  error_code receive(http::response<http::string_body>& response) {
    Outcome o;
    http::async_read(socket_, buffer_, response, o.handler());
    return o.get();
  }

 private:
  tcp::socket socket_;
  beast::flat_buffer buffer_;
};

http::request<http::string_body> raw_post(std::string target, std::string body,
                                          bool keep_alive = true) {
  http::request<http::string_body> request{http::verb::post, target, 11};
  request.set(http::field::host, "127.0.0.1");
  request.keep_alive(keep_alive);
  request.body() = std::move(body);
  request.prepare_payload();
  return request;
}

// A server of plain Beast that echoes bodies and counts connections and requests. With
// close_after_answer it closes each connection after one answer, though the answer says
// keep-alive (as a server does when it drops an idle connection).
class RawServer {
 public:
  RawServer(asio::io_context& io, bool close_after_answer)
      : io_(io), close_(close_after_answer), acceptor_(asio::make_strand(io), local(0)) {
    port_ = acceptor_.local_endpoint().port();
    accept();
  }
  std::uint16_t port() const { return port_; }
  int connections() const { return connections_.load(); }
  int requests() const { return requests_.load(); }
  void stop() {
    asio::post(acceptor_.get_executor(), [this] { acceptor_.close(); });
  }

 private:
  struct Connection {
    explicit Connection(tcp::socket s) : socket(std::move(s)) {}
    tcp::socket socket;
    beast::flat_buffer buffer;
    http::request<http::string_body> request;
    http::response<http::string_body> response;
  };

  void accept() {
    acceptor_.async_accept(asio::make_strand(io_), [this](error_code ec, tcp::socket socket) {
      if (ec) return;
      ++connections_;
      serve(std::make_shared<Connection>(std::move(socket)));
      accept();
    });
  }
  void serve(std::shared_ptr<Connection> c) {
    c->request = {};
    http::async_read(c->socket, c->buffer, c->request, [this, c](error_code ec, std::size_t) {
      if (ec) return;
      ++requests_;
      c->response = {http::status::ok, 11};
      c->response.keep_alive(true);
      c->response.body() = c->request.body();
      c->response.prepare_payload();
      http::async_write(c->socket, c->response, [this, c](error_code ec2, std::size_t) {
        if (ec2) return;
        if (close_) {
          error_code ignored;
          c->socket.shutdown(tcp::socket::shutdown_both, ignored);
          c->socket.close(ignored);
          return;
        }
        serve(c);
      });
    });
  }

  asio::io_context& io_;
  const bool close_;
  tcp::acceptor acceptor_;
  std::uint16_t port_ = 0;
  std::atomic<int> connections_{0};
  std::atomic<int> requests_{0};
};

TEST(HttpServer, RoundTripCarriesStatusAndBody) {
  asio::io_context io;
  Backend backend;
  HttpServer server(io, backend.handler());
  const std::uint16_t port = server.listen();
  ASSERT_NE(port, 0);
  EXPECT_EQ(server.listen(), port);  // already listening
  HttpClient client(io, "127.0.0.1", port);
  Pool pool(io);

  Expect created;
  client.post("/created", R"({"a":1})", created.callback());
  const Reply r = created.get();
  EXPECT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.status, 201);
  EXPECT_EQ(r.body, R"({"created":true})");

  Expect echoed;
  client.post("/ojs/v1/workers/ack", R"({"job_id":"42"})", echoed.callback());
  const Reply e = echoed.get();
  EXPECT_FALSE(e.ec) << e.ec.message();
  EXPECT_EQ(e.status, 200);
  EXPECT_EQ(e.body, R"({"job_id":"42"})");

  const std::vector<HttpRequest> seen = backend.requests();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].method, "POST");
  EXPECT_EQ(seen[0].target, "/created");
  EXPECT_EQ(seen[0].body, R"({"a":1})");
  EXPECT_EQ(seen[1].target, "/ojs/v1/workers/ack");
  EXPECT_EQ(client.pending(), 0u);

  client.close();
  server.stop();
  EXPECT_TRUE(pool.drain());
}

TEST(HttpServer, AnswersJsonWithContentLengthAndHonoursKeepAlive) {
  asio::io_context io;
  Backend backend;
  HttpServer server(io, backend.handler());
  const std::uint16_t port = server.listen();
  Pool pool(io);
  Raw raw(io, port);

  for (const char* body : {R"({"n":1})", R"({"n":22})"}) {  // both on the one connection
    ASSERT_FALSE(raw.send(raw_post("/echo", body)));
    http::response<http::string_body> response;
    ASSERT_FALSE(raw.receive(response));
    EXPECT_EQ(response.result_int(), 200);
    EXPECT_EQ(response[http::field::content_type], "application/json");
    EXPECT_EQ(response[http::field::content_length], std::to_string(std::string(body).size()));
    EXPECT_TRUE(response.keep_alive());
    EXPECT_EQ(response.body(), body);
  }
  // Connection: close is answered, and then the server closes.
  ASSERT_FALSE(raw.send(raw_post("/echo", "{}", /*keep_alive=*/false)));
  http::response<http::string_body> last;
  ASSERT_FALSE(raw.receive(last));
  EXPECT_FALSE(last.keep_alive());
  EXPECT_EQ(last.body(), "{}");
  http::response<http::string_body> none;
  EXPECT_EQ(raw.receive(none), http::error::end_of_stream);
  EXPECT_EQ(backend.requests().size(), 3u);

  server.stop();
  EXPECT_TRUE(pool.drain());
}

TEST(HttpServer, ClosesTheConnectionOnMalformedOrOversizedRequests) {
  asio::io_context io;
  Backend backend;
  HttpServer server(io, backend.handler());
  const std::uint16_t port = server.listen();
  Pool pool(io);

  Raw garbage(io, port);
  ASSERT_FALSE(garbage.send_bytes("NOT HTTP AT ALL\r\n\r\n"));
  http::response<http::string_body> response;
  const error_code ec = garbage.receive(response);
  EXPECT_TRUE(ec == http::error::end_of_stream || ec == asio::error::connection_reset)
      << ec.message();

  Raw big(io, port);
  big.send(raw_post("/echo", std::string(2 * 1024 * 1024, 'x')));  // may fail half-way
  http::response<http::string_body> refused;
  EXPECT_TRUE(big.receive(refused));
  EXPECT_TRUE(backend.requests().empty());

  server.stop();
  EXPECT_TRUE(pool.drain());
}

TEST(HttpServer, HandlerThatThrowsAnswers500) {
  asio::io_context io;
  Backend backend;
  HttpServer server(io, backend.handler());
  HttpClient client(io, "127.0.0.1", server.listen());
  Pool pool(io);

  Expect thrown;
  client.post("/throw", "{}", thrown.callback());
  const Reply r = thrown.get();
  EXPECT_FALSE(r.ec);
  EXPECT_EQ(r.status, 500);
  EXPECT_NE(r.body.find("boom"), std::string::npos) << r.body;
  Expect after;  // the connection still serves
  client.post("/echo", "[1]", after.callback());
  EXPECT_EQ(after.get().body, "[1]");

  client.close();
  server.stop();
  EXPECT_TRUE(pool.drain());
}

TEST(HttpClient, HundredPostsArriveInOrderAndEachGetsItsOwnReply) {
  asio::io_context io;
  Backend backend;
  HttpServer server(io, backend.handler());
  HttpClient client(io, "127.0.0.1", server.listen());
  constexpr int kPosts = 100;
  std::vector<int> answered;  // on the client's strand, then read after `all`
  std::vector<std::string> wrong;
  std::promise<void> all;
  Pool pool(io);

  // The first is held, so all 100 are pending at once and the rest wait behind it.
  for (int i = 0; i < kPosts; ++i) {
    const std::string body = R"({"n":)" + std::to_string(i) + "}";
    client.post(i == 0 ? "/hold" : "/echo", body,
                [&, i, body](error_code ec, int status, std::string reply) {
                  if (ec || status != 200 || reply != body) {
                    wrong.push_back(std::to_string(i) + ": " + ec.message() + " " +
                                    std::to_string(status) + " " + reply);
                  }
                  answered.push_back(i);
                  if (answered.size() == kPosts) all.set_value();
                });
  }
  EXPECT_EQ(client.pending(), std::size_t{kPosts});
  ASSERT_TRUE(backend.wait_seen(1));
  EXPECT_EQ(backend.requests().size(), 1u);  // one at a time: the rest wait for its answer
  EXPECT_EQ(client.pending(), std::size_t{kPosts});
  backend.held_at(0)({200, R"({"n":0})"});

  ASSERT_EQ(all.get_future().wait_for(kWait), std::future_status::ready);
  EXPECT_TRUE(wrong.empty()) << wrong.front();
  const std::vector<HttpRequest> seen = backend.requests();
  ASSERT_EQ(seen.size(), std::size_t{kPosts});
  for (int i = 0; i < kPosts; ++i) {
    EXPECT_EQ(seen[i].body, R"({"n":)" + std::to_string(i) + "}");
    EXPECT_EQ(answered[i], i);
  }
  EXPECT_EQ(client.pending(), 0u);

  client.close();
  server.stop();
  EXPECT_TRUE(pool.drain());
}

TEST(HttpClient, PostsShareOneConnectionAndPostAloneOpensItsOwn) {
  asio::io_context io;
  RawServer raw(io, /*close_after_answer=*/false);
  HttpClient client(io, "127.0.0.1", raw.port());
  Pool pool(io);

  std::array<Expect, 5> replies;
  for (std::size_t i = 0; i < replies.size(); ++i) {
    client.post("/echo", std::to_string(i), replies[i].callback());
  }
  for (std::size_t i = 0; i < replies.size(); ++i) {
    EXPECT_EQ(replies[i].get().body, std::to_string(i));
  }
  EXPECT_EQ(raw.connections(), 1);
  Expect alone;
  client.post_alone("/wait", "alone", alone.callback());
  EXPECT_EQ(alone.get().body, "alone");
  EXPECT_EQ(raw.connections(), 2);
  Expect again;
  client.post("/echo", "again", again.callback());
  EXPECT_EQ(again.get().body, "again");
  EXPECT_EQ(raw.connections(), 2);
  EXPECT_EQ(raw.requests(), 7);

  client.close();
  raw.stop();
  EXPECT_TRUE(pool.drain());
}

TEST(HttpClient, ConnectsAgainWhenTheServerClosedTheConnection) {
  asio::io_context io;
  RawServer raw(io, /*close_after_answer=*/true);
  HttpClient client(io, "127.0.0.1", raw.port());
  Pool pool(io);

  // Each post waits for the one before, so each finds its connection closed by the server.
  std::array<Expect, 3> replies;
  for (std::size_t i = 0; i < replies.size(); ++i) {
    client.post("/echo", std::to_string(i), replies[i].callback());
  }
  for (std::size_t i = 0; i < replies.size(); ++i) {
    const Reply r = replies[i].get();
    EXPECT_FALSE(r.ec) << i << ": " << r.ec.message();
    EXPECT_EQ(r.body, std::to_string(i));
  }
  EXPECT_EQ(raw.connections(), 3);
  EXPECT_EQ(raw.requests(), 3);

  client.close();
  raw.stop();
  EXPECT_TRUE(pool.drain());
}

TEST(HttpServer, LongPollAnsweredFromAnotherThreadDoesNotHoldUpOthers) {
  asio::io_context io;
  Backend backend;
  HttpServer server(io, backend.handler());
  const std::uint16_t port = server.listen();
  HttpClient worker(io, "127.0.0.1", port);
  HttpClient other(io, "127.0.0.1", port);
  Pool pool(io);

  Expect poll;
  worker.post_alone("/hold", R"({"timeout_ms":60000})", poll.callback());
  ASSERT_TRUE(backend.wait_seen(1));
  // Meanwhile the same client's posts, and another client's, are served.
  Expect first, second, third;
  worker.post("/echo", "1", first.callback());
  worker.post("/echo", "2", second.callback());
  other.post_alone("/echo", "3", third.callback());
  EXPECT_EQ(first.get().body, "1");
  EXPECT_EQ(second.get().body, "2");
  EXPECT_EQ(third.get().body, "3");
  EXPECT_FALSE(poll.ready());
  EXPECT_EQ(worker.pending(), 1u);

  std::thread answer([r = backend.held_at(0)] { r({200, R"({"available":true})"}); });
  answer.join();
  const Reply r = poll.get();
  EXPECT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"available":true})");
  EXPECT_EQ(worker.pending(), 0u);

  worker.close();
  other.close();
  server.stop();
  EXPECT_TRUE(pool.drain());
}

TEST(HttpClient, ConnectionRefusedIsAnError) {
  asio::io_context io;
  std::uint16_t port;
  {
    tcp::acceptor closed(io, local(0));
    port = closed.local_endpoint().port();
  }
  HttpClient client(io, "127.0.0.1", port);
  Pool pool(io);

  Expect queued, alone;
  client.post("/echo", "{}", queued.callback());
  client.post_alone("/echo", "{}", alone.callback());
  for (Expect* e : {&queued, &alone}) {
    const Reply r = e->get();
    EXPECT_EQ(r.ec, asio::error::connection_refused) << r.ec.message();
    EXPECT_EQ(r.status, 0);
  }
  EXPECT_EQ(client.pending(), 0u);

  client.close();
  EXPECT_TRUE(pool.drain());
}

TEST(HttpClient, TimesOutWhenTheServerNeverAnswersThenConnectsAgain) {
  asio::io_context io;
  Backend backend;
  HttpServer server(io, backend.handler());
  HttpClient client(io, "127.0.0.1", server.listen(), 200ms);
  Pool pool(io);

  const auto start = std::chrono::steady_clock::now();
  Expect hold;
  client.post("/hold", "{}", hold.callback());
  const Reply r = hold.get();
  EXPECT_GE(std::chrono::steady_clock::now() - start, 200ms);  // never early
  EXPECT_EQ(r.ec, beast::error::timeout) << r.ec.message();
  EXPECT_EQ(r.status, 0);

  Expect after;
  client.post("/echo", "after", after.callback());
  const Reply a = after.get();
  EXPECT_FALSE(a.ec) << a.ec.message();
  EXPECT_EQ(a.body, "after");
  EXPECT_EQ(backend.requests().size(), 2u);

  client.close();
  server.stop();
  EXPECT_TRUE(pool.drain());
}

TEST(HttpServer, ResponderAfterTheClientHasGoneDoesNothingHarmful) {
  asio::io_context io;
  Backend backend;
  HttpServer server(io, backend.handler());
  const std::uint16_t port = server.listen();
  HttpClient gone(io, "127.0.0.1", port);
  HttpClient later(io, "127.0.0.1", port);
  Pool pool(io);

  Expect held;
  gone.post("/hold", "{}", held.callback());
  ASSERT_TRUE(backend.wait_seen(1));
  gone.close();
  EXPECT_EQ(held.get().ec, asio::error::operation_aborted);  // its socket is closed by now

  Responder respond = backend.held_at(0);
  std::thread answer([respond] {
    respond({200, "{}"});
    respond({200, "{}"});  // a second call is ignored
  });
  answer.join();
  backend.drop_held();  // the last copies go

  Expect fine;
  later.post("/echo", "still serving", fine.callback());
  EXPECT_EQ(fine.get().body, "still serving");

  later.close();
  server.stop();
  respond = nullptr;
  EXPECT_TRUE(pool.drain());
}

TEST(HttpClient, CloseAbortsEveryPendingRequestExactlyOnce) {
  asio::io_context io;
  Backend backend;
  HttpServer server(io, backend.handler());
  HttpClient client(io, "127.0.0.1", server.listen());
  constexpr std::size_t kCalls = 6;  // 4 post()ed (1 sent, 3 queued), 2 post_alone()d
  std::array<int, kCalls> calls{};   // on the client's strand; read after drain()
  std::array<error_code, kCalls> errors{};
  std::promise<void> all_failed;
  std::size_t failed = 0;
  Pool pool(io);

  auto record = [&](std::size_t i) {
    return [&, i](error_code ec, int, std::string) {
      ++calls[i];
      errors[i] = ec;
      if (++failed == kCalls) all_failed.set_value();
    };
  };
  for (std::size_t i = 0; i < 4; ++i) client.post("/hold", "{}", record(i));
  client.post_alone("/hold", "{}", record(4));
  client.post_alone("/hold", "{}", record(5));
  ASSERT_TRUE(backend.wait_seen(3));  // the first post and both alone
  EXPECT_EQ(client.pending(), kCalls);

  client.close();
  ASSERT_EQ(all_failed.get_future().wait_for(kWait), std::future_status::ready);
  EXPECT_EQ(client.pending(), 0u);
  Expect late;
  client.post("/echo", "{}", late.callback());
  EXPECT_EQ(late.get().ec, asio::error::operation_aborted);
  client.close();  // idempotent

  // Answers to the closed connections go nowhere, and nothing is called again.
  for (std::size_t i = 0; i < 3; ++i) backend.held_at(i)({200, "{}"});
  server.stop();
  ASSERT_TRUE(pool.drain());
  for (std::size_t i = 0; i < kCalls; ++i) {
    EXPECT_EQ(calls[i], 1) << i;
    EXPECT_EQ(errors[i], asio::error::operation_aborted) << i;
  }
  EXPECT_EQ(backend.requests().size(), 3u);
  EXPECT_EQ(client.pending(), 0u);
}

TEST(HttpServer, StopClosesConnectionsAndTheClientSeesAnError) {
  asio::io_context io;
  Backend backend;
  HttpServer server(io, backend.handler());
  const std::uint16_t port = server.listen();
  HttpClient client(io, "127.0.0.1", port);
  Pool pool(io);

  Expect first;
  client.post("/echo", "{}", first.callback());
  EXPECT_FALSE(first.get().ec);
  Expect queued, alone;
  client.post("/hold", "{}", queued.callback());  // on the kept-alive connection
  client.post_alone("/hold", "{}", alone.callback());
  ASSERT_TRUE(backend.wait_seen(3));

  server.stop();
  server.stop();  // idempotent
  for (Expect* e : {&queued, &alone}) {
    const Reply r = e->get();
    EXPECT_TRUE(r.ec);
    EXPECT_EQ(r.status, 0);
  }
  backend.held_at(0)({200, "{}"});  // after stop(): nothing happens
  Expect refused;
  client.post("/echo", "{}", refused.callback());
  EXPECT_EQ(refused.get().ec, asio::error::connection_refused);
  EXPECT_EQ(backend.requests().size(), 3u);
  EXPECT_EQ(client.pending(), 0u);

  client.close();
  EXPECT_TRUE(pool.drain());
}

}  // namespace
}  // namespace drainsim
