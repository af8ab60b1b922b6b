#include "model/worker_core.h"

#include "profiles/profile.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "engine/virtual_runtime.h"

namespace drainsim {
namespace {

using Calls = std::vector<std::string>;

const char* kind(ErrorKind e) {
  switch (e) {
    case ErrorKind::kHandler:
      return "handler";
    case ErrorKind::kShutdown:
      return "shutdown";
    case ErrorKind::kWorkerDeath:
      return "worker_death";
    case ErrorKind::kVisibilityTimeout:
      return "visibility_timeout";
    case ErrorKind::kStalled:
      return "stalled";
    case ErrorKind::kRescued:
      return "rescued";
  }
  return "?";
}

Lease job(JobId id) {
  Lease l;
  l.id = id;
  l.handle = static_cast<std::uint32_t>(id);
  l.ledger = static_cast<std::uint32_t>(id);
  l.attempt = 1;
  l.spec.work = kMinute;
  return l;
}

// Records every call with the virtual time it was made at, as "<time> <call>". Fetches are
// answered at once from `supply` (as the in-process backend does) unless `answer_fetches`
// is off; heartbeats are answered with `reply`, delivered after the call is recorded and
// not for a "terminate" heartbeat (as SimulatedProcess does).
class FakePort final : public WorkerPort {
 public:
  explicit FakePort(VirtualRuntime& runtime) : rt_(runtime) {}

  void fetch(int count) override {
    log(fmt::format("fetch {}", count));
    if (answer_fetches) answer(count);
  }
  // Answers a fetch with up to `count` leases from the supply.
  void answer(int count) {
    std::vector<Lease> leases;
    while (static_cast<int>(leases.size()) < count && !supply.empty()) {
      leases.push_back(supply.front());
      supply.pop_front();
    }
    core->on_fetched(leases);
  }
  void wait_for_jobs() override { log("wait"); }
  void ack(int slot, const Lease& lease) override {
    log(fmt::format("ack {} #{}", slot, lease.id));
  }
  void fail(int slot, const Lease& lease, ErrorKind error, bool retryable) override {
    log(fmt::format("fail {} #{} {} {}", slot, lease.id, kind(error),
                    retryable ? "retryable" : "final"));
  }
  void heartbeat(Directive state, std::span<const Lease> active) override {
    std::string ids;
    for (const Lease& l : active) {
      if (!ids.empty()) ids += ',';
      ids += std::to_string(l.id);
    }
    log(fmt::format("heartbeat {} [{}]", to_string(state), ids));
    if (state != Directive::kTerminate) core->on_directive(reply);
  }
  void deregister() override { log("deregister"); }
  void cancel_job(int slot) override { log(fmt::format("cancel {}", slot)); }
  void detach_job(int slot) override { log(fmt::format("detach {}", slot)); }
  void start_job(int slot, const Lease& lease) override {
    log(fmt::format("start {} #{}", slot, lease.id));
  }
  void state_changed(WorkerState state) override { log(fmt::format("state {}", to_string(state))); }
  void log_remaining(int active) override { log(fmt::format("remaining {}", active)); }
  void requeue(int slot, const Lease& lease) override {
    log(fmt::format("requeue {} #{}", slot, lease.id));
  }
  void release(const Lease& lease) override { log(fmt::format("release #{}", lease.id)); }
  void keep(const Lease& lease) override { log(fmt::format("keep #{}", lease.id)); }
  void exit(int code, Outcome leftover) override {
    log(fmt::format("exit {}{}", code, leftover == Outcome::kKilled ? " killing jobs" : ""));
    exited = true;
  }

  // The calls since the last take().
  Calls take() { return std::exchange(calls, {}); }

  WorkerCore* core = nullptr;
  std::deque<Lease> supply;
  bool answer_fetches = true;
  Directive reply = Directive::kRunning;
  Calls calls;
  bool exited = false;
  int calls_after_exit = 0;

 private:
  void log(const std::string& what) {
    if (exited) ++calls_after_exit;
    calls.push_back(format_duration(rt_.now()) + " " + what);
  }

  VirtualRuntime& rt_;
};

// Runs test actions at given virtual times, in the runtime's priority classes: signals as
// scripted events, job bodies finishing as completions, backend wake-ups as timers.
class Script final : public TimerTarget {
 public:
  explicit Script(VirtualRuntime& runtime) : rt_(runtime) {}
  void at(Time t, Priority priority, std::function<void()> action) {
    actions_.push_back(std::move(action));
    rt_.schedule(t, priority, this, static_cast<std::uint32_t>(actions_.size() - 1));
  }
  void on_timer(std::uint32_t tag, std::uint64_t /*arg*/) override { actions_[tag](); }

 private:
  VirtualRuntime& rt_;
  std::vector<std::function<void()>> actions_;
};

WorkerConfig test_config() {
  WorkerConfig c;
  c.concurrency = 3;
  c.grace_period = 10 * kSecond;
  c.heartbeat_interval = 5 * kSecond;
  c.poll_interval = kSecond;
  return c;
}

// One worker under test: the core, its fake port and a script of events.
struct Harness {
  explicit Harness(WorkerConfig c = test_config()) : config(std::move(c)), core(rt, port, config) {
    port.core = &core;
  }
  // Queues jobs #first..#last for the fake backend to hand out.
  void supply(JobId first, JobId last) {
    for (JobId id = first; id <= last; ++id) port.supply.push_back(job(id));
  }
  void signal_at(Time t, Signal s) {
    script.at(t, Priority::kScripted, [this, s] { core.on_signal(s); });
  }
  void finish_at(Time t, int slot, JobResult result = JobResult::kSucceeded) {
    script.at(t, Priority::kCompletion,
              [this, slot, result] { core.on_job_finished(slot, result); });
  }
  // What the calls up to `t` were, and forget them.
  Calls run_until(Time t) {
    rt.run_until(t);
    return port.take();
  }

  VirtualRuntime rt{1};
  WorkerConfig config;
  FakePort port{rt};
  WorkerCore core;
  Script script{rt};
};

constexpr Duration sec(double seconds) { return static_cast<Duration>(seconds * kSecond); }

TEST(WorkerCore, StartFetchesEverySlotAtOnce) {
  Harness h;
  h.supply(0, 5);
  h.core.start();
  EXPECT_EQ(h.port.take(),
            (Calls{"0s fetch 3", "0s start 0 #0", "0s start 1 #1", "0s start 2 #2"}));
  EXPECT_EQ(h.core.state(), WorkerState::kRunning);
  EXPECT_EQ(h.core.active(), 3);
  ASSERT_NE(h.core.lease(2), nullptr);
  EXPECT_EQ(h.core.lease(2)->id, 2u);
  // Full: a job becoming available does not make it fetch, and it does not poll.
  h.core.on_jobs_available();
  EXPECT_EQ(h.port.take(), Calls{});
  EXPECT_EQ(h.run_until(sec(10)),
            (Calls{"5s heartbeat running [0,1,2]", "10s heartbeat running [0,1,2]"}));
}

TEST(WorkerCore, FinishedJobIsAckedAndItsSlotRefetchedAtOnce) {
  Harness h;
  h.supply(0, 4);
  h.core.start();
  h.port.take();
  h.finish_at(sec(2), 1);
  h.finish_at(sec(3), 0, JobResult::kFailed);
  h.finish_at(sec(4), 2);
  // Slot 1 frees at 2 s: ack, fetch 1, #3 lands in slot 1. Slot 0 fails at 3 s: the job's
  // own error, retryable; #4 takes slot 0. Slot 2 frees at 4 s: the supply is empty, so the
  // worker waits for jobs (and polls).
  EXPECT_EQ(h.run_until(sec(4)),
            (Calls{"2s ack 1 #1", "2s fetch 1", "2s start 1 #3", "3s fail 0 #0 handler retryable",
                   "3s fetch 1", "3s start 0 #4", "4s ack 2 #2", "4s fetch 1", "4s wait"}));
  EXPECT_EQ(h.core.active(), 2);
  EXPECT_EQ(h.core.lease(0)->id, 4u);
  EXPECT_EQ(h.core.lease(1)->id, 3u);
  EXPECT_EQ(h.core.lease(2), nullptr);
  // Heartbeats list the active jobs in slot order.
  EXPECT_EQ(h.run_until(sec(5)), (Calls{"5s heartbeat running [4,3]", "5s fetch 1", "5s wait"}));
}

// BullMQ's lock extender renews a lock only once it is a tick (lockRenewTime / 2) old: a
// heartbeat lists a job first at the first tick at least one interval after its start, then
// at every tick. #0 and #2 start at 0 s and are listed from 5 s; #3 starts at 2 s in slot 1:
// at 5 s it is 3 s old and left out, at 10 s it is listed (slot order), and every tick on.
TEST(WorkerCore, AnAgedLeasesWorkerListsAJobFromTheFirstTickOneIntervalAfterItsStart) {
  const auto calls = [](bool aged_only, Time until) {
    WorkerConfig c = test_config();
    c.shutdown.renews_only_aged_leases = aged_only;
    Harness h(c);
    h.supply(0, 3);
    h.core.start();
    h.port.take();
    h.finish_at(sec(2), 1);
    return h.run_until(until);
  };
  EXPECT_EQ(calls(true, sec(15)),
            (Calls{"2s ack 1 #1", "2s fetch 1", "2s start 1 #3", "5s heartbeat running [0,2]",
                   "10s heartbeat running [0,3,2]", "15s heartbeat running [0,3,2]"}));
  // Without it every running job is listed at every tick.
  EXPECT_EQ(calls(false, sec(5)),
            (Calls{"2s ack 1 #1", "2s fetch 1", "2s start 1 #3", "5s heartbeat running [0,3,2]"}));
}

TEST(WorkerCore, ALeaseExpiryFailsTheJobAndFreesItsSlotWhileTheBodyRunsOn) {
  // pg-boss's work(): one slot, job #0 (fetched at 0, its lease expiring at 8 s) still
  // runs at 8 s. The core lets go of it (detach: the body runs on), FAILs it with the
  // lease-expiry error, retryable, and fetches at once: #1 starts at 8 s. #1 (expiring at
  // 16 s) finishes at 12 s: acked, and its expiry timer goes with it: nothing at 16 s. The
  // body of #0 reporting its end (a port never does, after a detach) changes nothing.
  WorkerConfig c = test_config();
  c.concurrency = 1;
  c.shutdown.fails_at_lease_expiry = true;
  Harness h(c);
  Lease first = job(0);
  first.expires = sec(8);
  Lease second = job(1);
  second.expires = sec(16);
  h.port.supply = {first, second};
  h.core.start();
  EXPECT_EQ(h.port.take(), (Calls{"0s fetch 1", "0s start 0 #0"}));
  EXPECT_EQ(h.run_until(sec(8)),
            (Calls{"5s heartbeat running [0]", "8s detach 0",
                   "8s fail 0 #0 visibility_timeout retryable", "8s fetch 1", "8s start 0 #1"}));
  h.finish_at(sec(12), 0);
  EXPECT_EQ(
      h.run_until(sec(17)),
      (Calls{"10s heartbeat running [1]", "12s ack 0 #1", "12s fetch 1", "12s wait", "13s fetch 1",
             "13s wait", "14s fetch 1", "14s wait", "15s heartbeat running []", "15s fetch 1",
             "15s wait", "16s fetch 1", "16s wait", "17s fetch 1", "17s wait"}));
  // Without the behaviour the same lease runs on in its slot past its expiry.
  c.shutdown.fails_at_lease_expiry = false;
  Harness plain(c);
  plain.port.supply = {first};
  plain.core.start();
  plain.port.take();
  EXPECT_EQ(plain.run_until(sec(9)), (Calls{"5s heartbeat running [0]"}));
  EXPECT_EQ(plain.core.active(), 1);
}

TEST(WorkerCore, ALeaseExpiryDuringTheDrainEndsItWhenItFreesTheLastSlot) {
  // TERM at 2 s with a 10 s grace; #0's lease expires at 6 s: the core FAILs it and, its
  // last slot free, the drain is done: it says goodbye and exits 0 at 6 s, not at the grace.
  WorkerConfig c = test_config();
  c.concurrency = 1;
  c.shutdown.fails_at_lease_expiry = true;
  Harness h(c);
  Lease first = job(0);
  first.expires = sec(6);
  h.port.supply = {first};
  h.core.start();
  h.port.take();
  h.signal_at(sec(2), Signal::kTerm);
  EXPECT_EQ(
      h.run_until(sec(20)),
      (Calls{"2s state draining", "2s heartbeat quiet [0]", "2s remaining 1",
             "5s heartbeat quiet [0]", "6s detach 0", "6s fail 0 #0 visibility_timeout retryable",
             "6s heartbeat terminate []", "6s deregister", "6s state stopped", "6s exit 0"}));
}

TEST(WorkerCore, ADrainThatLooksAtItsStartEndsOnALookAndLingers) {
  // pg-boss's stop(): TERM at 2 s. Its exit time, for a drain with no job and for one
  // whose last job ends at 4.2 s. Sidekiq's looks (one poll in): 3 s and 5 s. pg-boss 10
  // (a look at once, then every 0.5 s): 2 s and 4.5 s. pg-boss 9 (a look at once, then
  // every second, and a second more after the look that finds none): 3 s and 6 s.
  const auto exit_time = [](Duration poll, bool at_start, Duration linger, bool job) {
    WorkerConfig c = test_config();
    c.concurrency = 1;
    c.shutdown.drain_poll = poll;
    c.shutdown.drain_looks_at_start = at_start;
    c.shutdown.drain_linger = linger;
    Harness h(c);
    if (job) h.supply(0, 0);
    h.core.start();
    h.signal_at(sec(2), Signal::kTerm);
    if (job) h.finish_at(sec(4.2), 0);
    for (const std::string& call : h.run_until(sec(20))) {
      if (call.ends_with(" exit 0")) return call.substr(0, call.find(' '));
    }
    return std::string("none");
  };
  EXPECT_EQ(exit_time(sec(1), false, 0, false), "3s");
  EXPECT_EQ(exit_time(sec(1), false, 0, true), "5s");
  EXPECT_EQ(exit_time(sec(0.5), true, 0, false), "2s");
  EXPECT_EQ(exit_time(sec(0.5), true, 0, true), "4.5s");
  EXPECT_EQ(exit_time(sec(1), true, sec(1), false), "3s");
  EXPECT_EQ(exit_time(sec(1), true, sec(1), true), "6s");
}

TEST(WorkerCore, CancelledJobIsFailedWithShutdownError) {
  // A body that stopped because it was cancelled is an interruption, not the job's own
  // error: FAIL with ShutdownError (retryable), then the slot is refetched (#3, the last
  // of the four supplied).
  Harness h;
  h.supply(0, 3);
  h.core.start();
  h.port.take();
  h.finish_at(sec(2), 1, JobResult::kCancelled);
  EXPECT_EQ(h.run_until(sec(2)),
            (Calls{"2s fail 1 #1 shutdown retryable", "2s fetch 1", "2s start 1 #3"}));
}

TEST(WorkerCore, AJobWhosePoolChildDiedIsFailedForGoodOrRequeuedAsTheProfileSays) {
  // Celery's prefork pool: the child running #1 is OOM-killed at 2 s. By default the task
  // fails for good (WorkerLostError: worker_death, not retryable); with
  // task_reject_on_worker_lost it goes back to the queue. Either way the slot is refetched.
  for (const auto lost :
       {ShutdownBehaviour::ChildLost::kFail, ShutdownBehaviour::ChildLost::kRequeue}) {
    WorkerConfig c = test_config();
    c.shutdown.child_lost = lost;
    Harness h(c);
    h.supply(0, 3);
    h.core.start();
    h.port.take();
    h.finish_at(sec(2), 1, JobResult::kChildLost);
    const std::string report = lost == ShutdownBehaviour::ChildLost::kFail
                                   ? "2s fail 1 #1 worker_death final"
                                   : "2s requeue 1 #1";
    EXPECT_EQ(h.run_until(sec(2)), (Calls{report, "2s fetch 1", "2s start 1 #3"}));
  }
}

TEST(WorkerCore, EmptyFetchWaitsAndPollsEveryPollInterval) {
  Harness h;
  h.core.start();
  EXPECT_EQ(h.port.take(), (Calls{"0s fetch 3", "0s wait"}));
  EXPECT_EQ(h.run_until(sec(3)),
            (Calls{"1s fetch 3", "1s wait", "2s fetch 3", "2s wait", "3s fetch 3", "3s wait"}));
  // A wake-up at 3.5 s: fetch at once; one job arrives, two slots stay free. The poll
  // already due at 4 s stays as it is.
  h.script.at(sec(3.5), Priority::kTimer, [&] {
    h.supply(0, 0);
    h.core.on_jobs_available();
  });
  EXPECT_EQ(h.run_until(sec(4)),
            (Calls{"3.5s fetch 3", "3.5s start 0 #0", "3.5s wait", "4s fetch 2", "4s wait"}));
  EXPECT_EQ(h.run_until(sec(5)), (Calls{"5s heartbeat running [0]", "5s fetch 2", "5s wait"}));
}

TEST(WorkerCore, TermDrainsAndExitsRightAfterTheLastJob) {
  Harness h;
  h.supply(0, 5);  // more work is queued: a draining worker must not take it
  h.core.start();
  h.port.take();
  h.signal_at(sec(2), Signal::kTerm);
  h.finish_at(sec(3), 0);
  h.finish_at(sec(8), 1);
  h.finish_at(sec(11), 2);
  // TERM at 2 s: draining, quiet reported at once, remaining logged at once and at 7 s.
  // No fetch after an ack. The last job ends at 11 s (before the 12 s deadline): final
  // "terminate" heartbeat, deregister, exit 0, all at 11 s.
  EXPECT_EQ(h.run_until(sec(11)),
            (Calls{"2s state draining", "2s heartbeat quiet [0,1,2]", "2s remaining 3",
                   "3s ack 0 #0", "5s heartbeat quiet [1,2]", "7s remaining 2", "8s ack 1 #1",
                   "10s heartbeat quiet [2]", "11s ack 2 #2", "11s heartbeat terminate []",
                   "11s deregister", "11s state stopped", "11s exit 0"}));
  EXPECT_EQ(h.core.state(), WorkerState::kStopped);
  EXPECT_EQ(h.run_until(sec(120)), Calls{});  // no grace deadline, heartbeat or log after exit
  EXPECT_EQ(h.rt.pending(), 0u);
}

TEST(WorkerCore, GraceDeadlineFailsActiveJobsWithShutdownError) {
  Harness h;
  h.supply(0, 2);
  h.core.start();
  h.port.take();
  h.signal_at(sec(2), Signal::kTerm);
  EXPECT_EQ(h.run_until(sec(12) - 1),
            (Calls{"2s state draining", "2s heartbeat quiet [0,1,2]", "2s remaining 3",
                   "5s heartbeat quiet [0,1,2]", "7s remaining 3", "10s heartbeat quiet [0,1,2]"}));
  // At exactly TERM + 10 s: FAIL every active job (retryable ShutdownError), then the final
  // heartbeat, deregister and exit 0 -- without waiting for the bodies.
  EXPECT_EQ(h.run_until(sec(12)),
            (Calls{"12s fail 0 #0 shutdown retryable", "12s fail 1 #1 shutdown retryable",
                   "12s fail 2 #2 shutdown retryable", "12s heartbeat terminate []",
                   "12s deregister", "12s state stopped", "12s exit 0"}));
  EXPECT_EQ(h.core.active(), 0);
  // A body that returns later is not reported again.
  h.core.on_job_finished(0, JobResult::kSucceeded);
  EXPECT_EQ(h.run_until(sec(120)), Calls{});
}

TEST(WorkerCore, JobFinishingExactlyAtTheGraceDeadlineIsAcked) {
  Harness h;
  h.supply(0, 2);
  h.core.start();
  h.signal_at(sec(2), Signal::kTerm);
  h.finish_at(sec(12), 1);  // completions run before timers at equal times
  h.run_until(sec(12) - 1);
  EXPECT_EQ(
      h.run_until(sec(12)),
      (Calls{"12s ack 1 #1", "12s fail 0 #0 shutdown retryable", "12s fail 2 #2 shutdown retryable",
             "12s heartbeat terminate []", "12s deregister", "12s state stopped", "12s exit 0"}));
}

TEST(WorkerCore, RemainingIsLoggedEveryFiveSecondsWhileDraining) {
  WorkerConfig c = test_config();
  c.grace_period = 30 * kSecond;
  c.heartbeat_interval = kHour;  // keep heartbeats out of the log
  Harness h(c);
  h.supply(0, 2);
  h.core.start();
  h.port.take();
  h.signal_at(sec(2), Signal::kTerm);
  h.finish_at(sec(9), 0);
  h.finish_at(sec(20), 1);
  // Every 5 s from TERM at 2 s; the deadline at 32 s wins over the log due then.
  EXPECT_EQ(
      h.run_until(sec(32)),
      (Calls{"2s state draining", "2s heartbeat quiet [0,1,2]", "2s remaining 3", "7s remaining 3",
             "9s ack 0 #0", "12s remaining 2", "17s remaining 2", "20s ack 1 #1", "22s remaining 1",
             "27s remaining 1", "32s fail 2 #2 shutdown retryable", "32s heartbeat terminate []",
             "32s deregister", "32s state stopped", "32s exit 0"}));
}

TEST(WorkerCore, TermWithNoActiveJobsExitsAtOnce) {
  Harness h;
  h.core.start();
  h.port.take();
  h.signal_at(sec(1.5), Signal::kTerm);
  EXPECT_EQ(h.run_until(sec(1.5)),
            (Calls{"1s fetch 3", "1s wait", "1.5s state draining", "1.5s heartbeat quiet []",
                   "1.5s remaining 0", "1.5s heartbeat terminate []", "1.5s deregister",
                   "1.5s state stopped", "1.5s exit 0"}));
  EXPECT_EQ(h.run_until(sec(60)), Calls{});
}

TEST(WorkerCore, SecondTermWhileDrainingForcesStop) {
  // TERM then TERM, INT then INT, TERM then INT, INT then TERM: all force a stop.
  for (auto [first, second] :
       {std::pair{Signal::kTerm, Signal::kTerm}, std::pair{Signal::kInt, Signal::kInt},
        std::pair{Signal::kTerm, Signal::kInt}, std::pair{Signal::kInt, Signal::kTerm}}) {
    SCOPED_TRACE(fmt::format("{} then {}", to_string(first), to_string(second)));
    Harness h;
    h.supply(0, 2);
    h.core.start();
    h.signal_at(sec(2), first);
    h.signal_at(sec(3), second);
    h.run_until(sec(2));
    // At once, exit 1: no FAIL, no final heartbeat, no deregister (left to dead-worker
    // detection).
    EXPECT_EQ(h.run_until(sec(3)), (Calls{"3s state stopped", "3s exit 1"}));
    EXPECT_EQ(h.core.state(), WorkerState::kStopped);
    h.core.on_job_finished(1, JobResult::kSucceeded);  // a body returning afterwards
    EXPECT_EQ(h.run_until(sec(63)), Calls{});
    EXPECT_EQ(h.port.calls_after_exit, 0);
  }
}

TEST(WorkerCore, TstpQuietsAndContResumes) {
  Harness h;
  h.supply(0, 3);
  h.core.start();
  h.port.take();
  h.signal_at(sec(1), Signal::kTstp);
  h.finish_at(sec(2), 0);
  h.signal_at(sec(11), Signal::kCont);
  // Quiet: the freed slot is not refetched; heartbeats go on, saying "quiet".
  EXPECT_EQ(h.run_until(sec(10)),
            (Calls{"1s state quiet", "1s heartbeat quiet [0,1,2]", "2s ack 0 #0",
                   "5s heartbeat quiet [1,2]", "10s heartbeat quiet [1,2]"}));
  EXPECT_EQ(h.core.state(), WorkerState::kQuiet);
  // CONT: running again, says so, and fills the free slot at once.
  EXPECT_EQ(h.run_until(sec(15)),
            (Calls{"11s state running", "11s heartbeat running [1,2]", "11s fetch 1",
                   "11s start 0 #3", "15s heartbeat running [3,1,2]"}));
}

TEST(WorkerCore, QuietStopsPolling) {
  Harness h;
  h.core.start();
  EXPECT_EQ(h.port.take(), (Calls{"0s fetch 3", "0s wait"}));
  h.signal_at(sec(0.5), Signal::kTstp);
  // A wake-up for the wait registered before going quiet must not make it fetch.
  h.script.at(sec(6), Priority::kTimer, [&] { h.core.on_jobs_available(); });
  h.signal_at(sec(7.5), Signal::kCont);
  EXPECT_EQ(h.run_until(sec(7)),
            (Calls{"500ms state quiet", "500ms heartbeat quiet []", "5s heartbeat quiet []"}));
  EXPECT_EQ(h.run_until(sec(8.5)),
            (Calls{"7.5s state running", "7.5s heartbeat running []", "7.5s fetch 3", "7.5s wait",
                   "8.5s fetch 3", "8.5s wait"}));
}

TEST(WorkerCore, ContOrTstpWhileDrainingIsIgnored) {
  Harness h;
  h.supply(0, 5);
  h.core.start();
  h.signal_at(sec(1), Signal::kTerm);
  h.run_until(sec(1));
  h.signal_at(sec(2), Signal::kCont);
  h.signal_at(sec(3), Signal::kTstp);
  h.finish_at(sec(4), 2);
  EXPECT_EQ(h.run_until(sec(4)), (Calls{"4s ack 2 #2"}));  // no state change, no fetch
  EXPECT_EQ(h.core.state(), WorkerState::kDraining);
  // The deadline is still TERM + 10 s.
  h.run_until(sec(11) - 1);
  EXPECT_EQ(h.core.state(), WorkerState::kDraining);
  h.run_until(sec(11));
  EXPECT_EQ(h.core.state(), WorkerState::kStopped);
}

TEST(WorkerCore, IntBehavesLikeTerm) {
  auto run = [](Signal signal) {
    Harness h;
    h.supply(0, 5);
    h.core.start();
    h.signal_at(sec(2), signal);
    h.finish_at(sec(3), 0);
    h.finish_at(sec(8), 1);
    return h.run_until(sec(60));
  };
  const Calls term = run(Signal::kTerm);
  // Sanity: the TERM run drained and hit the deadline at 12 s with job #2 still running.
  ASSERT_EQ(term.size(), 17u);
  EXPECT_EQ(term[4], "2s state draining");
  EXPECT_EQ(term[12], "12s fail 2 #2 shutdown retryable");
  EXPECT_EQ(term.back(), "12s exit 0");
  EXPECT_EQ(run(Signal::kInt), term);
}

TEST(WorkerCore, TermWhileQuietDrains) {
  Harness h;
  h.supply(0, 5);
  h.core.start();
  h.signal_at(sec(1), Signal::kTstp);
  h.signal_at(sec(2), Signal::kTerm);
  h.run_until(sec(1));
  const Calls at_term = h.run_until(sec(2));
  EXPECT_EQ(h.core.state(), WorkerState::kDraining);
  ASSERT_FALSE(at_term.empty());
  EXPECT_EQ(at_term.front(), "2s state draining");
  EXPECT_EQ(at_term.back(), "2s remaining 3");
  h.run_until(sec(12) - 1);
  EXPECT_EQ(h.core.state(), WorkerState::kDraining);
  const Calls at_deadline = h.run_until(sec(12));
  EXPECT_EQ(at_deadline.front(), "12s fail 0 #0 shutdown retryable");
  EXPECT_EQ(at_deadline.back(), "12s exit 0");
}

TEST(WorkerCore, QuietDirectiveFromAHeartbeatReplyQuiets) {
  Harness h;
  h.supply(0, 5);
  h.core.start();
  h.port.take();
  h.port.reply = Directive::kQuiet;
  h.finish_at(sec(6), 0);
  // The reply to the 5 s heartbeat quiets the worker, which says so at once.
  EXPECT_EQ(h.run_until(sec(6)), (Calls{"5s heartbeat running [0,1,2]", "5s state quiet",
                                        "5s heartbeat quiet [0,1,2]", "6s ack 0 #0"}));
  EXPECT_EQ(h.core.state(), WorkerState::kQuiet);
  // A later "running" reply does not undo it: directives only escalate.
  h.port.reply = Directive::kRunning;
  EXPECT_EQ(h.run_until(sec(10)), (Calls{"10s heartbeat quiet [1,2]"}));
  EXPECT_EQ(h.core.state(), WorkerState::kQuiet);
}

TEST(WorkerCore, TerminateDirectiveFromAHeartbeatReplyDrains) {
  Harness h;
  h.supply(0, 5);
  h.core.start();
  h.port.take();
  h.port.reply = Directive::kTerminate;
  EXPECT_EQ(h.run_until(sec(5)), (Calls{"5s heartbeat running [0,1,2]", "5s state draining",
                                        "5s heartbeat quiet [0,1,2]", "5s remaining 3"}));
  EXPECT_EQ(h.core.state(), WorkerState::kDraining);
  // Grace runs from the directive: deadline at 15 s.
  EXPECT_EQ(
      h.run_until(sec(15)),
      (Calls{"10s heartbeat quiet [0,1,2]", "10s remaining 3", "15s fail 0 #0 shutdown retryable",
             "15s fail 1 #1 shutdown retryable", "15s fail 2 #2 shutdown retryable",
             "15s heartbeat terminate []", "15s deregister", "15s state stopped", "15s exit 0"}));
}

TEST(WorkerCore, FirstTermAfterATerminateDirectiveDoesNotForceAStop) {
  // Draining since the 5 s directive; the pod's own TERM at 8 s is the first TERM, not a
  // second one: the drain goes on to the 15 s deadline.
  Harness h;
  h.supply(0, 5);
  h.core.start();
  h.port.take();
  h.port.reply = Directive::kTerminate;
  h.run_until(sec(5));
  h.signal_at(sec(8), Signal::kTerm);
  const Calls calls = h.run_until(sec(15));
  EXPECT_EQ(calls.back(), "15s exit 0");
  EXPECT_EQ(std::count(calls.begin(), calls.end(), "8s exit 1"), 0);
  // A second TERM would force it out; here it is the first.
}

TEST(WorkerCore, TerminateDirectiveWhileIdleExitsAtOnce) {
  Harness h;
  h.core.start();
  h.run_until(sec(4));
  h.port.reply = Directive::kTerminate;
  // The heartbeat at 5 s runs before the poll due then; the poll is cancelled.
  EXPECT_EQ(h.run_until(sec(60)),
            (Calls{"5s heartbeat running []", "5s state draining", "5s heartbeat quiet []",
                   "5s remaining 0", "5s heartbeat terminate []", "5s deregister",
                   "5s state stopped", "5s exit 0"}));
}

TEST(WorkerCore, KilledCoreMakesNoFurtherCalls) {
  for (bool draining : {false, true}) {
    SCOPED_TRACE(draining ? "killed while draining" : "killed while running");
    Harness h;
    h.supply(0, 5);
    h.core.start();
    if (draining) h.signal_at(sec(1), Signal::kTerm);
    h.run_until(sec(2));
    h.core.on_killed();
    EXPECT_EQ(h.core.state(), WorkerState::kStopped);
    // A minute later (heartbeats, polls, the grace deadline and remaining logs would all
    // have been due) the fake has seen nothing, even with late replies arriving.
    h.core.on_job_finished(0, JobResult::kSucceeded);
    h.core.on_jobs_available();
    h.core.on_directive(Directive::kTerminate);
    EXPECT_EQ(h.run_until(sec(62)), Calls{});
    EXPECT_EQ(h.rt.pending(), 0u);  // all its timers were dropped
  }
}

TEST(WorkerCore, SigquitIsNotHandled) {
  Harness h;
  h.supply(0, 5);
  h.core.start();
  h.port.take();
  EXPECT_FALSE(h.core.on_signal(Signal::kQuit));
  EXPECT_EQ(h.port.take(), Calls{});
  EXPECT_EQ(h.core.state(), WorkerState::kRunning);
  EXPECT_TRUE(h.core.on_signal(Signal::kTstp));
  EXPECT_TRUE(h.core.on_signal(Signal::kCont));
  EXPECT_TRUE(h.core.on_signal(Signal::kTerm));
}

TEST(WorkerCore, FetchReplyArrivingAfterExitIsIgnored) {
  // WorkerPort allows replies after the call returns (an asynchronous port): a fetch in
  // flight when the worker exits may be answered after exit(0). The core must not start
  // those jobs: nothing may be called after exit.
  Harness h;
  h.port.answer_fetches = false;
  h.core.start();  // fetch 3 in flight
  h.signal_at(sec(1), Signal::kTerm);
  EXPECT_EQ(h.run_until(sec(1)),
            (Calls{"0s fetch 3", "1s state draining", "1s heartbeat quiet []", "1s remaining 0",
                   "1s heartbeat terminate []", "1s deregister", "1s state stopped", "1s exit 0"}));
  h.supply(0, 1);
  h.port.answer(3);  // the reply arrives after exit
  EXPECT_EQ(h.port.take(), Calls{});
  EXPECT_EQ(h.port.calls_after_exit, 0);
}

// --- Other implementations' behaviour (profiles, docs/profiles.md) ------------------------------

WorkerConfig profile_config(const char* name, Duration grace = 10 * kSecond) {
  WorkerConfig c = test_config();
  c.shutdown = find_profile(name)->worker.shutdown;
  c.grace_period = grace;
  return c;
}

// The calls without the periodic heartbeats and remaining-count logs.
Calls without_periodic(const Calls& calls) {
  Calls out;
  for (const std::string& c : calls) {
    if (c.find("heartbeat") == std::string::npos && c.find("remaining") == std::string::npos) {
      out.push_back(c);
    }
  }
  return out;
}

TEST(WorkerCore, SidekiqRequeuesUnfinishedJobsAtTheDeadlineAndIgnoresASecondTerm) {
  Harness h(profile_config("sidekiq"));
  h.supply(0, 2);
  h.core.start();
  h.port.take();
  h.signal_at(sec(2), Signal::kTerm);
  h.finish_at(sec(3), 0);
  h.signal_at(sec(4), Signal::kTerm);  // already stopping: no force stop
  // The deadline is TERM + 10 s = 12 s. Once no more than 0.5 s of it is left, at 11.5 s,
  // the two unfinished jobs go back to the front of the queue (not FAILed); at 12 s the
  // worker says goodbye and exits 0.
  EXPECT_EQ(h.run_until(sec(12)),
            (Calls{"2s state draining", "2s heartbeat quiet [0,1,2]", "3s ack 0 #0",
                   "5s heartbeat quiet [1,2]", "10s heartbeat quiet [1,2]", "11.5s requeue 1 #1",
                   "11.5s requeue 2 #2", "12s heartbeat terminate []", "12s deregister",
                   "12s state stopped", "12s exit 0"}));
}

TEST(WorkerCore, SidekiqDrainEndsOnTheManagersHalfSecondLook) {
  // TERM at 2 s; the last job ends at 3.2 s. The manager looks every 0.5 s from the TERM
  // (2.5, 3, 3.5 s): the drain ends at 3.5 s.
  Harness h(profile_config("sidekiq"));
  h.supply(0, 2);
  h.core.start();
  h.port.take();
  h.signal_at(sec(2), Signal::kTerm);
  h.finish_at(2200 * kMillisecond, 0);
  h.finish_at(2400 * kMillisecond, 1);
  h.finish_at(3200 * kMillisecond, 2);
  EXPECT_EQ(h.run_until(sec(4)),
            (Calls{"2s state draining", "2s heartbeat quiet [0,1,2]", "2.2s ack 0 #0",
                   "2.4s ack 1 #1", "3.2s ack 2 #2", "3.5s heartbeat terminate []",
                   "3.5s deregister", "3.5s state stopped", "3.5s exit 0"}));
}

TEST(WorkerCore, AnIdleSidekiqStopsWhenItsBrpopReturns) {
  // No jobs: the three processors sit in 2 s BRPOPs from 0 s (0-2 s, 2-4 s). TERM at
  // 3.3 s: they return at 4 s, and the manager's next look (3.8, 4.3 s) ends the drain.
  Harness h(profile_config("sidekiq"));
  h.core.start();
  h.run_until(sec(3));
  h.signal_at(3300 * kMillisecond, Signal::kTerm);
  EXPECT_EQ(h.run_until(sec(5)),
            (Calls{"3.3s state draining", "3.3s heartbeat quiet []", "4.3s heartbeat terminate []",
                   "4.3s deregister", "4.3s state stopped", "4.3s exit 0"}));
}

TEST(WorkerCore, SidekiqHandsBackWhatItsLateBrpopsTakeUnlessTheHardShutdownsKillWins) {
  // Three processors, -t 1 s: job #0 runs from 0 s; the two idle processors sit in BRPOPs of
  // 2 s from 0 s. TERM at 11 s: both are blocked until 12 s. At 11.2 s one pops #1 (the
  // backend tells the core): the processor, stopping, hands it back. hard_shutdown at
  // 11.5 s pushes #0 back; at 11.6 s the other pops #2: handed back, or kept unread by the
  // killed thread (late_fetch_killed 0 or 1). The process exits at 12 s.
  for (const double killed : {0.0, 1.0}) {
    WorkerConfig c = profile_config("sidekiq", kSecond);
    c.shutdown.late_fetch_killed = killed;
    Harness h(c);
    h.supply(0, 0);
    h.core.start();
    h.run_until(sec(10));
    EXPECT_TRUE(h.core.late_fetches().empty());  // running: none
    h.signal_at(sec(11), Signal::kTerm);
    h.run_until(sec(11));
    EXPECT_EQ(h.core.late_fetches(), (std::vector<Time>{sec(12), sec(12)}));
    h.script.at(sec(11.2), Priority::kTimer, [&h] {
      h.supply(1, 1);
      h.core.on_jobs_available();
    });
    h.script.at(sec(11.6), Priority::kTimer, [&h] {
      h.supply(2, 2);
      h.core.on_jobs_available();
    });
    EXPECT_EQ(without_periodic(h.run_until(sec(13))),
              (Calls{"11.2s fetch 3", "11.2s release #1", "11.5s requeue 0 #0", "11.6s fetch 3",
                     killed == 0 ? "11.6s release #2" : "11.6s keep #2", "12s deregister",
                     "12s state stopped", "12s exit 0"}))
        << killed;
    EXPECT_TRUE(h.core.late_fetches().empty());
  }
}

TEST(WorkerCore, OnlyAProfileWithLateFetchesCollectsWhatTheyTakeAfterItStops) {
  // The OJS worker: idle, polling every second from 0 s; TSTP quiets it at 2.5 s. Nothing
  // blocks past its stop, so a word from the backend at 3.5 s fetches nothing.
  Harness h;
  h.core.start();
  h.signal_at(sec(2.5), Signal::kTstp);
  h.script.at(sec(3.5), Priority::kTimer, [&h] { h.core.on_jobs_available(); });
  EXPECT_EQ(h.run_until(sec(4)),
            (Calls{"0s fetch 3", "0s wait", "1s fetch 3", "1s wait", "2s fetch 3", "2s wait",
                   "2.5s state quiet", "2.5s heartbeat quiet []"}));
  EXPECT_TRUE(h.core.late_fetches().empty());
}

TEST(WorkerCore, GoSdkCancelsItsJobsAtTheTermLosesTheirReportsAndLeavesTheRestAtTheDeadline) {
  Harness h(profile_config("ojs-go-sdk"));
  h.supply(0, 2);
  h.core.start();
  h.port.take();
  EXPECT_FALSE(h.core.on_signal(Signal::kTstp));  // NotifyContext catches TERM and INT only
  h.signal_at(sec(2), Signal::kTerm);
  // The TERM cancels the context the three bodies run under (cancel_after 0). Body 0 returns at
  // 2.1 s and its FAIL goes out on that context: never arrives. Bodies 1 and 2 ignore it;
  // no heartbeat from the drain's start on; at 12 s (grace 10 s) the worker returns without
  // a word and the process exits, killing them.
  h.finish_at(sec(2.1), 0, JobResult::kCancelled);
  EXPECT_EQ(h.run_until(sec(12)),
            (Calls{"2s state draining", "2s cancel 0", "2s cancel 1", "2s cancel 2",
                   "12s state stopped", "12s exit 0 killing jobs"}));
}

TEST(WorkerCore, GoSdkLosesTheAckOfAJobThatFinishesInTheDrain) {
  Harness h(profile_config("ojs-go-sdk"));
  h.supply(0, 1);
  h.core.start();
  h.port.take();
  h.signal_at(sec(2), Signal::kTerm);
  // Body 1 stops at 2.1 s (its FAIL lost); body 0 ignores its cancellation and succeeds at
  // 3 s: its ACK is lost too, and with no job left the drain ends there.
  h.finish_at(sec(2.1), 1, JobResult::kCancelled);
  h.finish_at(sec(3), 0);
  EXPECT_EQ(h.run_until(sec(12)),
            (Calls{"1s fetch 1", "1s wait", "2s state draining", "2s cancel 0", "2s cancel 1",
                   "3s state stopped", "3s exit 0"}));
}

TEST(WorkerCore, JsSdkAbortsAtItsDeadlineNacksWhatStopsAndWaitsForTheRest) {
  Harness h(profile_config("ojs-js-sdk"));
  h.supply(0, 1);
  h.core.start();
  h.port.take();
  h.signal_at(sec(2), Signal::kTerm);
  // At 12 s (grace 10 s) stop() aborts both jobs. Body 0 rejects at 12.1 s: NACKed as a
  // retryable handler_error. Body 1 ignores the abort and succeeds at 20 s: ACKed, and
  // Node, with nothing left pending, exits then. No heartbeat, no goodbye.
  h.finish_at(sec(12.1), 0, JobResult::kCancelled);
  h.finish_at(sec(20), 1);
  EXPECT_EQ(h.run_until(sec(30)),
            (Calls{"1s fetch 1", "1s wait", "2s state draining", "12s cancel 0", "12s cancel 1",
                   "12.1s fail 0 #0 handler retryable", "20s ack 1 #1", "20s state stopped",
                   "20s exit 0"}));
}

TEST(WorkerCore, JsSdkLeavesASecondTermToItsDefaultAction) {
  Harness h(profile_config("ojs-js-sdk"));
  h.supply(0, 1);
  h.core.start();
  EXPECT_TRUE(h.core.on_signal(Signal::kTerm));  // draining: two jobs run
  // stop() removed the SDK's listeners: the second TERM is the process's to act on.
  EXPECT_FALSE(h.core.on_signal(Signal::kTerm));
  EXPECT_FALSE(h.core.on_signal(Signal::kInt));
}

TEST(WorkerCore, NaiveWorkerHasNoHandlers) {
  Harness h(profile_config("naive"));
  h.supply(0, 0);
  h.core.start();
  h.port.take();
  // TERM, INT, TSTP and CONT take their default actions (the process decides what that is).
  EXPECT_FALSE(h.core.on_signal(Signal::kTerm));
  EXPECT_FALSE(h.core.on_signal(Signal::kInt));
  EXPECT_FALSE(h.core.on_signal(Signal::kTstp));
  EXPECT_FALSE(h.core.on_signal(Signal::kCont));
  EXPECT_EQ(h.core.state(), WorkerState::kRunning);
  EXPECT_EQ(h.port.take(), Calls{});
}

TEST(WorkerCore, RiverWaitsForeverThenCancelsOnASecondSignalAndExitsOnAThird) {
  Harness h(profile_config("river", kNever));
  h.supply(0, 2);
  h.core.start();
  h.port.take();
  h.signal_at(sec(2), Signal::kTerm);
  // A soft stop has no deadline: an hour later it still waits for its three jobs.
  EXPECT_EQ(without_periodic(h.run_until(kHour)), (Calls{"2s state draining"}));
  h.signal_at(kHour + sec(1), Signal::kTerm);               // StopAndCancel
  h.finish_at(kHour + sec(1.5), 0, JobResult::kCancelled);  // cooperative: errors out
  h.finish_at(kHour + sec(2), 2);                           // finished before it noticed: acked
  h.signal_at(kHour + sec(3), Signal::kTerm);  // slot 1 ignores cancellation: hard exit
  EXPECT_EQ(without_periodic(h.run_until(kHour + sec(3))),
            (Calls{"1h1s cancel 0", "1h1s cancel 1", "1h1s cancel 2",
                   "3601.5s fail 0 #0 shutdown retryable", "1h2s ack 2 #2", "1h3s state stopped",
                   "1h3s exit 1"}));
}

TEST(WorkerCore, GraphileAbortsJobsFiveSecondsIntoAGracefulStop) {
  Harness h(profile_config("graphile-worker", kNever));
  h.supply(0, 2);
  h.core.start();
  h.port.take();
  h.signal_at(sec(2), Signal::kTerm);
  h.finish_at(sec(7.1), 0, JobResult::kCancelled);
  h.finish_at(sec(9), 1);
  h.finish_at(sec(10), 2);
  // The abort fires at TERM + 5 s; the drain goes on until the last job returns, and the
  // process then kills itself with the TERM it got: 128 + 15.
  EXPECT_EQ(without_periodic(h.run_until(sec(10))),
            (Calls{"2s state draining", "7s cancel 0", "7s cancel 1", "7s cancel 2",
                   "7.1s fail 0 #0 shutdown retryable", "9s ack 1 #1", "10s ack 2 #2",
                   "10s deregister", "10s state stopped", "10s exit 143"}));
}

TEST(WorkerCore, GraphileIgnoresASecondSignalForFiveSecondsThenFailsItsJobsAndKillsItself) {
  Harness h(profile_config("graphile-worker", kNever));
  h.supply(0, 2);
  h.core.start();
  h.port.take();
  h.signal_at(sec(2), Signal::kTerm);
  h.signal_at(sec(4), Signal::kTerm);  // 2 s after the first: ignored
  h.signal_at(sec(8), Signal::kInt);   // 6 s after: the forceful shutdown
  // The three jobs ignore the abort at 7 s. The INT at 8 s FAILs them (retryable), and the
  // process kills itself with the TERM that started the drain: 128 + 15.
  EXPECT_EQ(without_periodic(h.run_until(sec(10))),
            (Calls{"2s state draining", "7s cancel 0", "7s cancel 1", "7s cancel 2",
                   "8s fail 0 #0 shutdown retryable", "8s fail 1 #1 shutdown retryable",
                   "8s fail 2 #2 shutdown retryable", "8s deregister", "8s state stopped",
                   "8s exit 143"}));
}

TEST(WorkerCore, Celery55IgnoresASecondTermAndGoesColdAtAnInt) {
  WorkerConfig c = profile_config("celery", kNever);
  ProfileOptions options = default_options(*find_profile("celery"));
  options["warm_ignores_term"] = true;
  BackendMechanisms unused;
  find_profile("celery")->apply(options, c.shutdown, unused);
  Harness h(c);
  h.supply(0, 2);
  h.core.start();
  h.port.take();
  h.signal_at(sec(2), Signal::kTerm);  // warm
  h.signal_at(sec(4), Signal::kTerm);  // warm again: nothing
  h.signal_at(sec(6), Signal::kInt);   // cold: the tasks are terminated, the process exits
  // Three tasks run and twelve wait reserved (prefetch 4 x 3); nothing happens at 4 s.
  EXPECT_EQ(without_periodic(h.run_until(sec(10))),
            (Calls{"1s fetch 12", "1s wait", "2s state draining", "6s state stopped",
                   "6s exit 0 killing jobs"}));
  // 5.2 (the default, as the adapters run it and as measured on 5.2.6): the second TERM
  // is the cold shutdown. (No options applied here: no reserve, so no fetch at 1 s.)
  Harness old(profile_config("celery", kNever));
  old.supply(0, 2);
  old.core.start();
  old.port.take();
  old.signal_at(sec(2), Signal::kTerm);
  old.signal_at(sec(4), Signal::kTerm);
  EXPECT_EQ(without_periodic(old.run_until(sec(10))),
            (Calls{"2s state draining", "4s state stopped", "4s exit 0 killing jobs"}));
}

TEST(WorkerCore, GraphileKillsItselfWithTheSignalThatStoppedIt) {
  // An INT at 1 s, no job running: the drain ends at once and the process kills itself
  // with SIGINT (128 + 2); a later TERM does not change which signal it re-raises.
  Harness h(profile_config("graphile-worker", kNever));
  h.core.start();
  h.port.take();
  h.signal_at(sec(1), Signal::kInt);
  EXPECT_EQ(without_periodic(h.run_until(sec(3))),
            (Calls{"1s state draining", "1s deregister", "1s state stopped", "1s exit 130"}));
  // A drain the backend's directive started was not a signal's: the process exits 0.
  Harness d(profile_config("graphile-worker", kNever));
  d.core.start();
  d.port.take();
  d.core.on_directive(Directive::kTerminate);
  EXPECT_EQ(without_periodic(d.port.take()),
            (Calls{"0s state draining", "0s deregister", "0s state stopped", "0s exit 0"}));
}

TEST(WorkerCore, TemporalGoSdkWithNoStopTimeoutExitsAtTheTermLeavingItsActivities) {
  // WorkerStopTimeout 0: Stop cancels the contexts and returns, and the program exits at
  // the TERM (2 s) with both activities still running: they die with the process.
  Harness h(profile_config("temporal", 0));
  h.supply(0, 1);
  h.core.start();
  h.port.take();
  h.signal_at(sec(2), Signal::kTerm);
  EXPECT_EQ(h.run_until(sec(60)),
            (Calls{"1s fetch 1", "1s wait", "2s state draining", "2s heartbeat quiet [0,1]",
                   "2s state stopped", "2s exit 0 killing jobs"}));
}

TEST(WorkerCore, TemporalPythonSdkCancelsItsJobsAtTheGraceAndWaitsForAllOfThem) {
  // waits_for_activities: the TERM at 2 s cancels both bodies (grace 0); body 0 returns at
  // 2.1 s and is FAILed, body 1 ignores it and the worker waits (the kubelet's SIGKILL ends
  // it).
  WorkerConfig c = profile_config("temporal", 0);
  c.shutdown.at_deadline = ShutdownBehaviour::AtDeadline::kCancelAndWait;
  Harness h(c);
  h.supply(0, 1);
  h.core.start();
  h.port.take();
  h.signal_at(sec(2), Signal::kTerm);
  h.finish_at(sec(2.1), 0, JobResult::kCancelled);
  EXPECT_EQ(
      h.run_until(sec(60)),
      (Calls{"1s fetch 1", "1s wait", "2s state draining", "2s heartbeat quiet [0,1]",
             "2s cancel 0", "2s cancel 1", "2.1s fail 0 #0 shutdown retryable",
             "5s heartbeat quiet [1]", "10s heartbeat quiet [1]", "15s heartbeat quiet [1]",
             "20s heartbeat quiet [1]", "25s heartbeat quiet [1]", "30s heartbeat quiet [1]",
             "35s heartbeat quiet [1]", "40s heartbeat quiet [1]", "45s heartbeat quiet [1]",
             "50s heartbeat quiet [1]", "55s heartbeat quiet [1]", "1m heartbeat quiet [1]"}));
}

TEST(WorkerCore, JobsFetchedAheadStartAsSlotsFreeAndGoBackAtTheExit) {
  // Celery's prefetch, 1 per slot, 3 slots: the start fetches 3 + 3; #0..#2 start and
  // #3..#5 wait reserved (a full reserve: it does not wait for more). Slot 1 frees at 2 s:
  // #3 starts in it and one fetch tops the reserve up with #6. The TERM at 3 s starts none
  // of the reserved; the drain ends with the last body at 5 s, the pool's teardown takes
  // 1.95 s more (drain_linger), and at the exit, 6.95 s, #4, #5, #6 go back before the
  // goodbye.
  WorkerConfig c = profile_config("celery", kNever);
  c.shutdown.reserve_per_slot = 1;
  Harness h(c);
  h.supply(0, 6);
  h.core.start();
  EXPECT_EQ(h.port.take(),
            (Calls{"0s fetch 6", "0s start 0 #0", "0s start 1 #1", "0s start 2 #2"}));
  EXPECT_EQ(h.core.reserved(), 3);
  h.finish_at(sec(2), 1);
  h.signal_at(sec(3), Signal::kTerm);
  h.finish_at(sec(4), 0);
  h.finish_at(sec(4.5), 1);
  h.finish_at(sec(5), 2);
  EXPECT_EQ(without_periodic(h.run_until(sec(10))),
            (Calls{"2s ack 1 #1", "2s start 1 #3", "2s fetch 1", "3s state draining", "4s ack 0 #0",
                   "4.5s ack 1 #3", "5s ack 2 #2", "6.95s release #4", "6.95s release #5",
                   "6.95s release #6", "6.95s deregister", "6.95s state stopped", "6.95s exit 0"}));
}

TEST(WorkerCore, AReserveWithNoLimitIsCappedWithoutOverflow) {
  // A per-slot reserve of INT_MAX (prefetch without limit, or a huge multiplier) times
  // 40000 slots would overflow an int: the process reserves 65536 jobs at most, so its
  // first fetch asks for 40000 + 65536.
  WorkerConfig c = profile_config("celery", kNever);
  c.concurrency = 40000;
  c.shutdown.reserve_per_slot = std::numeric_limits<int>::max();
  Harness h(c);
  h.core.start();
  EXPECT_EQ(h.port.take(), (Calls{"0s fetch 105536", "0s wait"}));
}

TEST(WorkerCore, AKilledWorkerSaysNothingOfItsReservedJobs) {
  // The jobs fetched ahead stay with the dead process, for the backend's recovery.
  WorkerConfig c = profile_config("celery", kNever);
  c.shutdown.reserve_per_slot = 2;
  Harness h(c);
  h.supply(0, 4);
  h.core.start();
  EXPECT_EQ(h.port.take(),
            (Calls{"0s fetch 9", "0s start 0 #0", "0s start 1 #1", "0s start 2 #2", "0s wait"}));
  EXPECT_EQ(h.core.reserved(), 2);
  h.core.on_killed();
  EXPECT_EQ(h.core.reserved(), 0);
  EXPECT_EQ(h.run_until(sec(10)), Calls{});
}

TEST(WorkerCore, OjsSecondTermForcesAStopAbandoningJobs) {
  Harness h(profile_config("ojs"));
  h.supply(0, 0);
  h.core.start();
  h.port.take();
  h.signal_at(sec(2), Signal::kTerm);
  h.signal_at(sec(3), Signal::kInt);
  EXPECT_EQ(without_periodic(h.run_until(sec(3))),
            (Calls{"1s fetch 2", "1s wait", "2s state draining", "3s state stopped", "3s exit 1"}));
}

}  // namespace
}  // namespace drainsim
