// RealSystem's watch over the processes of a real run, with stand-ins for them (sleep, sh,
// cat): a broker that dies or stays stopped, an enqueuer that dies or stops answering, an
// inspector that hangs, a worker that something else kills. Each failure names its
// component, the time it was seen and its cause first. Waits are a few hundred ms, in
// real time; the bounds on when allow for a loaded machine, nothing tighter is claimed.
#include "process/real_system.h"

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <thread>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "model/process_handle.h"

namespace drainsim {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// A stand-in program: `sh -c SCRIPT`.
std::vector<std::string> sh(const std::string& script) { return {"/bin/sh", "-c", script}; }

// A process of this test's own (the broker's stand-in), killed and reaped at the end.
struct Child {
  explicit Child(const std::string& log) : pid(spawn(SpawnSpec{{"sleep", "100"}, {}, log})) {}
  ~Child() {
    kill(pid, SIGKILL);
    kill(pid, SIGCONT);
    waitpid(pid, nullptr, 0);
  }
  pid_t pid;
};

// One RealSystem on a real-time strand, its programs in a fresh folder.
struct Fixture {
  explicit Fixture(RealSystemOptions o) {
    dir = fs::temp_directory_path() / fmt::format("drainsim_real_system_{}", getpid());
    fs::remove_all(dir);
    fs::create_directories(dir);
    o.events = (dir / "events.jsonl").string();
    o.logs = dir.string();
    if (o.enqueue.empty())
      o.enqueue = sh("while read line; do echo \"enqueued ${line%% *}\"; done");
    if (o.inspect.empty()) o.inspect = sh("echo '{\"jobs\": {}}'");
    if (o.broker_name.empty()) o.broker_name = "fake-broker";
    options = std::move(o);
  }
  ~Fixture() {
    asio.stop();
    if (system) system->shut_down();
    fs::remove_all(dir);
  }
  // Starts the system; returns its failure once there is one, or nothing after `within`.
  std::optional<RealFailure> failure_within(std::chrono::milliseconds within,
                                            const std::function<void(RealSystem&)>& then = {}) {
    system = std::make_unique<RealSystem>(*rt, asio.context(), options);
    auto seen = std::make_shared<std::promise<RealFailure>>();
    system->set_on_change([this, seen] {
      if (system->failure() && !reported) {
        reported = true;
        seen->set_value(*system->failure());
      }
    });
    asio.start();
    rt->post([this, then] {
      system->start();
      if (then) then(*system);
    });
    std::future<RealFailure> f = seen->get_future();
    if (f.wait_for(within) != std::future_status::ready) return std::nullopt;
    return f.get();
  }

  fs::path dir;
  RealSystemOptions options;
  AsioRuntime asio{1, 1.0, 2};
  std::unique_ptr<StrandRuntime> rt = asio.strand();
  std::unique_ptr<RealSystem> system;
  bool reported = false;
};

TEST(RealSystem, ABrokerThatDiesFailsTheRunNamingItsSignal) {
  const fs::path log = fs::temp_directory_path() / "drainsim_real_system_broker.log";
  Child broker(log.string());
  RealSystemOptions o;
  o.broker_pid = broker.pid;
  o.broker_log = log.string();
  Fixture f(o);
  std::thread killer;  // from the run's start: 300 ms of run time, then the kill
  const std::optional<RealFailure> failed =
      f.failure_within(std::chrono::seconds(10), [&](RealSystem&) {
        killer = std::thread([&] {
          std::this_thread::sleep_for(std::chrono::milliseconds(300));
          kill(broker.pid, SIGKILL);
        });
      });
  if (killer.joinable()) killer.join();
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->component, "broker");
  EXPECT_THAT(failed->reason, StartsWith("the broker fake-broker died (SIGKILL) at "));
  EXPECT_GE(failed->at, from_seconds(0.3));
  EXPECT_LT(failed->at, from_seconds(3));
  fs::remove(log);
}

TEST(RealSystem, ABrokerStoppedLongerThanTheConfirmWaitFailsTheRun) {
  const fs::path log = fs::temp_directory_path() / "drainsim_real_system_broker.log";
  Child broker(log.string());
  RealSystemOptions o;
  o.broker_pid = broker.pid;
  o.confirm_wait = 500 * kMillisecond;
  Fixture f(o);
  kill(broker.pid, SIGSTOP);
  const std::optional<RealFailure> failed = f.failure_within(std::chrono::seconds(10));
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->component, "broker");
  EXPECT_THAT(failed->reason, StartsWith("the broker fake-broker is stopped (SIGSTOP) since "));
  EXPECT_THAT(failed->reason, HasSubstr("for more than 500ms"));
  EXPECT_GE(failed->at, from_seconds(0.5));
  fs::remove(log);
}

TEST(RealSystem, AnEnqueuerThatConfirmsNothingWithinItsWaitFailsTheRun) {
  RealSystemOptions o;
  o.enqueue = sh("echo 'pushing' >&2; exec cat >/dev/null");  // reads, never confirms
  o.confirm_wait = 400 * kMillisecond;
  Fixture f(o);
  const std::optional<RealFailure> failed =
      f.failure_within(std::chrono::seconds(10), [](RealSystem& s) { s.enqueue("0 1"); });
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->component, "enqueuer");
  EXPECT_THAT(failed->reason,
              StartsWith("the enqueuer `/bin/sh` has confirmed none of the last 1 pushes since "));
  EXPECT_THAT(failed->reason, HasSubstr(", for more than 400ms; the end of its output:\npushing"));
  EXPECT_GE(failed->at, from_seconds(0.4));
}

// Pushes jobs 0..N-1 to the system, one every 100 ms, on its strand.
struct Pusher final : TimerTarget {
  explicit Pusher(int n) : total(n), left(n) {}
  RealSystem* system = nullptr;
  StrandRuntime* rt = nullptr;
  int total, left;
  void start(RealSystem& s, StrandRuntime& on) {
    system = &s;
    rt = &on;
    rt->schedule(rt->now(), Priority::kBackend, this, 0);
  }
  void on_timer(std::uint32_t, std::uint64_t) override {
    system->enqueue(fmt::format("{} 1", total - left));
    if (--left > 0) rt->schedule(rt->now() + 100 * kMillisecond, Priority::kBackend, this, 0);
  }
};

TEST(RealSystem, AConfirmingEnqueuerIsNeverStalled) {
  // Pushes every 100 ms for 3 s, each confirmed: a confirm wait of 1 s never expires (one
  // that never confirmed would fail the run at about 1 s).
  RealSystemOptions o;
  o.confirm_wait = kSecond;
  Fixture f(o);
  Pusher pusher(30);
  const std::optional<RealFailure> failed = f.failure_within(
      std::chrono::milliseconds(3500), [&](RealSystem& s) { pusher.start(s, *f.rt); });
  EXPECT_FALSE(failed) << failed->reason;
}

TEST(RealSystem, PushesToAnEnqueuerThatHasEndedFailTheRunNotDrainsim) {
  // The enqueuer ends at once, its input closed: the pushes after that get EPIPE (and
  // SIGPIPE, which would end this process). Its exit fails the run, naming its code.
  RealSystemOptions o;
  o.enqueue = sh("exec 0<&-; sleep 0.2; exit 3");
  Fixture f(o);
  Pusher pusher(10);
  const std::optional<RealFailure> failed =
      f.failure_within(std::chrono::seconds(10), [&](RealSystem& s) { pusher.start(s, *f.rt); });
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->component, "enqueuer");
  EXPECT_THAT(failed->reason, StartsWith("the enqueuer `/bin/sh` exited (code 3) at "));
}

TEST(RealSystem, AnEnqueuerThatDiesIsNamedWithTheLineThatSaysWhy) {
  // Ruby prints the error first, then its backtrace: the cause is the error's line, not
  // the end of the output.
  RealSystemOptions o;
  o.enqueue = sh(
      "echo \"enqueue.rb:15:in \\`push': Connection refused - connect(2) (Errno::ECONNREFUSED)\" "
      ">&2; printf '\\tfrom enqueue.rb:11:in each_line\\n\\tfrom enqueue.rb:11:in <main>\\n' >&2; "
      "exit 1");
  Fixture f(o);
  const std::optional<RealFailure> failed = f.failure_within(std::chrono::seconds(10));
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->component, "enqueuer");
  EXPECT_THAT(failed->reason, StartsWith("the enqueuer `/bin/sh` exited (code 1) at "));
  EXPECT_THAT(failed->reason,
              HasSubstr("while jobs were still to come: enqueue.rb:15:in `push': Connection "
                        "refused - connect(2) (Errno::ECONNREFUSED); the end of its output:\n"));
  EXPECT_THAT(failed->reason, HasSubstr("\tfrom enqueue.rb:11:in <main>"));
}

TEST(RealSystem, AnInspectorThatDoesNotAnswerWithinItsWaitIsKilledAndSaysSo) {
  RealSystemOptions o;
  o.inspect =
      sh("echo 'redis.exceptions.TimeoutError: Timeout reading from socket' >&2; "
         "exec sleep 100");
  o.inspect_wait = 300 * kMillisecond;
  o.inspect_wait_per_job = 0;
  Fixture f(o);
  std::promise<std::pair<std::string, bool>> answer;
  f.failure_within(std::chrono::milliseconds(1), [&](RealSystem& s) {
    s.inspect([&](std::string output, bool ok) { answer.set_value({output, ok}); });
  });
  std::future<std::pair<std::string, bool>> got = answer.get_future();
  ASSERT_EQ(got.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  const auto [output, ok] = got.get();
  EXPECT_FALSE(ok);
  EXPECT_THAT(output, StartsWith("it did not answer within 300ms: redis.exceptions.TimeoutError: "
                                 "Timeout reading from socket; the end of its output:\n"));
}

}  // namespace
}  // namespace drainsim
