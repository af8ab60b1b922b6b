// HttpWorker (drainsim-worker's insides) against a scripted backend: an HttpServer that
// answers register, fetch and heartbeat at once, holds every /wait (and, when asked, the
// first fetch) until the test answers it, and records each request. One worker of 2
// slots whose poll and heartbeat intervals (60 s) never come up, so every request below
// is one the test caused. Nothing sleeps: every wait is on a condition with a deadline
// only a failing test reaches.
#include "process/http_worker.h"

#include <signal.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/asio_runtime.h"
#include "process/http_server.h"

namespace drainsim {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

struct Request {
  std::string op;  // "register", "wait", ...
  json body;
};

class ScriptedBackend {
 public:
  HttpHandler handler() {
    return [this](HttpRequest request, Responder respond) {
      const std::string op = request.target.substr(request.target.rfind('/') + 1);
      std::lock_guard lock(mu_);
      requests_.push_back({op, json::parse(request.body)});
      if (op == "wait" || (op == "fetch" && hold_fetch_)) {
        hold_fetch_ = false;
        held_ = std::move(respond);
      } else if (op == "register") {
        respond({200, R"({"worker_id":"w-1"})"});
      } else if (op == "fetch") {
        respond({200, R"({"jobs":[]})"});
      } else if (op == "heartbeat") {
        respond({200, R"({"state":"running"})"});
      } else {
        respond({200, "{}"});
      }
      changed_.notify_all();
    };
  }

  // Waits until a request satisfies `seen` (given every request so far, in order).
  bool wait_for(const std::function<bool(const std::vector<Request>&)>& seen) {
    std::unique_lock lock(mu_);
    return changed_.wait_for(lock, 20s, [&] { return seen(requests_); });
  }
  // Holds the next fetch as it holds waits. Call before the worker starts.
  void hold_next_fetch() { hold_fetch_ = true; }
  // Answers the request held last.
  void answer_held(const json& reply) {
    Responder respond;
    {
      std::lock_guard lock(mu_);
      respond = std::move(held_);
      held_ = nullptr;
    }
    ASSERT_TRUE(respond);
    respond({200, reply.dump()});
  }
  // Lets go of a request still held: its connection must close while the io_context that
  // owns its socket is alive.
  void drop_held() {
    std::lock_guard lock(mu_);
    held_ = nullptr;
  }
  std::vector<Request> requests() {
    std::lock_guard lock(mu_);
    return requests_;
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<Request> requests_;
  Responder held_;
  bool hold_fetch_ = false;
};

// How many requests of `op` there are, from the `from`th on.
int count(const std::vector<Request>& requests, const std::string& op, std::size_t from = 0) {
  int n = 0;
  for (std::size_t i = from; i < requests.size(); ++i) n += requests[i].op == op;
  return n;
}

json carried_job(const std::string& id, double duration_ms) {
  return json{{"id", id},
              {"type", "drainsim.sleep"},
              {"queue", "default"},
              {"attempt", 1},
              {"args", json::array({{{"duration_ms", duration_ms},
                                     {"fail_after_ms", nullptr},
                                     {"cooperative", true},
                                     {"cancel_latency_ms", 0}}})}};
}

class WorkerAgainstScript {
 public:
  explicit WorkerAgainstScript(bool hold_first_fetch = false)
      : asio_(0, 1.0, 1), server_(asio_.context(), backend_.handler()) {
    if (hold_first_fetch) backend_.hold_next_fetch();
    const std::string url = "http://127.0.0.1:" + std::to_string(server_.listen());
    const std::map<std::string, std::string> env = {{"OJS_URL", url},
                                                    {"OJS_WORKER_ID", "w-1"},
                                                    {"OJS_CONCURRENCY", "2"},
                                                    {"OJS_POLL_INTERVAL", "60s"},
                                                    {"OJS_HEARTBEAT_INTERVAL", "60s"},
                                                    {"DRAINSIM_JOB_BODY", "timer"}};
    rt_ = asio_.strand();
    worker_ = std::make_unique<HttpWorker>(
        *rt_, worker_config_from_env([&](const char* name) -> const char* {
          const auto it = env.find(name);
          return it == env.end() ? nullptr : it->second.c_str();
        }),
        [](int) {});
    asio_.start();
    rt_->post([this] { worker_->start(); });
  }
  ~WorkerAgainstScript() {
    server_.stop();
    asio_.stop();
    backend_.drop_held();
    worker_.reset();
  }
  ScriptedBackend& backend() { return backend_; }
  // Hands the worker a signal and returns once it has taken it.
  void signal(int number) {
    std::promise<void> taken;
    rt_->post([&] {
      worker_->on_posix_signal(number);
      taken.set_value();
    });
    ASSERT_EQ(taken.get_future().wait_for(20s), std::future_status::ready);
  }

 private:
  ScriptedBackend backend_;
  AsioRuntime asio_;
  HttpServer server_;
  std::unique_ptr<StrandRuntime> rt_;
  std::unique_ptr<HttpWorker> worker_;
};

// The worker registers, fetches (nothing) and waits, asking the wait to carry up to its 2
// slots' jobs. The answer carries job 7 (20 ms): the worker runs it with no fetch of its
// own, waits again for its other slot, and ACKs job 7.
TEST(HttpWorker, RunsTheJobsAWaitsAnswerCarriesWithoutFetchingThem) {
  WorkerAgainstScript w;
  ScriptedBackend& b = w.backend();
  ASSERT_TRUE(b.wait_for([](const auto& r) { return count(r, "wait") == 1; }));
  const std::vector<Request> before = b.requests();
  EXPECT_EQ(before.back().body["count"], 2);
  EXPECT_EQ(count(before, "fetch"), 1);
  b.answer_held(json{{"available", true}, {"jobs", json::array({carried_job("7", 20)})}});
  ASSERT_TRUE(b.wait_for([](const auto& r) { return count(r, "ack") == 1; }));
  const std::vector<Request> after = b.requests();
  EXPECT_EQ(count(after, "fetch", before.size()), 0) << "the carried job was fetched again";
  EXPECT_EQ(count(after, "wait", before.size()), 1) << "its free slot waits again";
  for (const Request& r : after) {
    if (r.op == "ack") {
      EXPECT_EQ(r.body["job_id"], "7");
    }
  }
}

// A signal that overtakes the answer: TSTP makes the worker quiet (its quiet heartbeat
// reaches the backend) before the wait it sent is answered with job 7. The quiet core
// never fetches, so the worker hands job 7 back as a ShutdownError NACK, retryable, and
// neither runs nor ACKs it.
TEST(HttpWorker, AJobCarriedToAWorkerThatWentQuietMeanwhileGoesBackAsAShutdownNack) {
  WorkerAgainstScript w;
  ScriptedBackend& b = w.backend();
  ASSERT_TRUE(b.wait_for([](const auto& r) { return count(r, "wait") == 1; }));
  w.signal(SIGTSTP);
  ASSERT_TRUE(b.wait_for([](const auto& r) {
    return !r.empty() && r.back().op == "heartbeat" && r.back().body["state"] == "quiet";
  }));
  const std::size_t quiet = b.requests().size();
  b.answer_held(json{{"available", true}, {"jobs", json::array({carried_job("7", 20)})}});
  ASSERT_TRUE(b.wait_for([](const auto& r) { return count(r, "nack") == 1; }));
  const std::vector<Request> after = b.requests();
  const Request& nack = after.back();  // the quiet heartbeat went first
  ASSERT_EQ(nack.op, "nack");
  EXPECT_EQ(nack.body["job_id"], "7");
  EXPECT_EQ(nack.body["error"]["type"], "ShutdownError");
  EXPECT_EQ(nack.body["error"]["retryable"], true);
  EXPECT_EQ(count(after, "fetch", quiet), 0);
  EXPECT_EQ(count(after, "wait", quiet), 0);
  EXPECT_EQ(count(after, "ack"), 0);
}

// The same race with a fetch: TSTP reaches the worker while its first fetch is out (its
// quiet heartbeat queues behind the fetch on their connection), and the reply brings job
// 7. The job goes back as a ShutdownError NACK.
TEST(HttpWorker, AJobAFetchBringsToAWorkerThatWentQuietMeanwhileGoesBackAsAShutdownNack) {
  WorkerAgainstScript w(true);
  ScriptedBackend& b = w.backend();
  ASSERT_TRUE(b.wait_for([](const auto& r) { return count(r, "fetch") == 1; }));
  w.signal(SIGTSTP);
  b.answer_held(json{{"jobs", json::array({carried_job("7", 20)})}});
  ASSERT_TRUE(b.wait_for([](const auto& r) { return count(r, "nack") == 1; }));
  const std::vector<Request> after = b.requests();
  const auto nack =
      std::find_if(after.begin(), after.end(), [](const Request& r) { return r.op == "nack"; });
  EXPECT_EQ(nack->body["job_id"], "7");
  EXPECT_EQ(nack->body["error"]["type"], "ShutdownError");
  EXPECT_EQ(count(after, "wait"), 0);
  EXPECT_EQ(count(after, "ack"), 0);
}

}  // namespace
}  // namespace drainsim
