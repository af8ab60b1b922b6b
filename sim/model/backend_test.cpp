#include "model/backend.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "engine/virtual_runtime.h"
#include "model/recorder.h"

namespace drainsim {
namespace {

// Counts wakeups, and appends its name to a shared log so tests can check the order.
struct Wakeups final : WorkerListener {
  void on_jobs_available() override {
    ++count;
    if (order != nullptr) order->push_back(name);
  }
  int count = 0;
  char name = '?';
  std::vector<char>* order = nullptr;
};

// OJS's mechanisms with dead-worker detection and lease expiry switched on or off.
BackendMechanisms detection_and_lease(bool heartbeat_detection, bool lease_expiry) {
  BackendMechanisms m;
  m.heartbeat_detection = heartbeat_detection;
  m.lease.enabled = lease_expiry;
  return m;
}

class BackendTest : public ::testing::Test {
 protected:
  BackendTest() { config.retry.jitter = false; }

  Backend& make(BackendMechanisms mechanisms = {}) {
    backend = std::make_unique<Backend>(rt, config, mechanisms, recorder);
    queue = backend->queue("default");
    return *backend;
  }
  WorkerId add_worker(Wakeups* listener = nullptr) {
    const int queues[] = {queue};
    return backend->register_worker(queues, listener != nullptr ? listener : &unused);
  }
  std::optional<JobId> enqueue(Duration work = kSecond) {
    return backend->enqueue(queue, JobSpec{work, 0, true});
  }
  std::vector<Lease> fetch(WorkerId worker, int count) {
    std::vector<Lease> out;
    backend->fetch(worker, count, out);
    return out;
  }
  std::optional<JobState> state(const Lease& lease) const {
    return backend->job_state(lease.handle, lease.id);
  }
  // What a worker process reports around an attempt, so the ledger stays consistent with
  // the backend.
  void start_attempt(const Lease& lease) { recorder.attempt_started(lease, rt.now()); }
  void end_attempt(const Lease& lease, WorkerId worker, Outcome outcome) {
    AttemptRecord record;
    record.job = lease.id;
    record.attempt = lease.attempt;
    record.worker = worker;
    record.start = record.end = rt.now();
    record.outcome = outcome;
    recorder.attempt_ended(lease, record, 0);
  }
  void complete_attempt(const Lease& lease, WorkerId worker) {
    start_attempt(lease);
    end_attempt(lease, worker, Outcome::kCompleted);
  }
  // Fetches one job, runs it to completion and acks it.
  void fetch_and_complete(WorkerId worker) {
    const auto l = fetch(worker, 1);
    ASSERT_EQ(l.size(), 1u);
    complete_attempt(l[0], worker);
    ASSERT_TRUE(backend->ack(worker, l[0]));
  }
  void expect_audit_ok() {
    const AuditResult audit = recorder.finish(*backend);
    EXPECT_TRUE(audit.ok) << (audit.errors.empty() ? "" : audit.errors[0]);
  }

  VirtualRuntime rt{1};
  Recorder recorder{true};
  BackendConfig config;
  std::unique_ptr<Backend> backend;
  int queue = 0;
  Wakeups unused;
};

TEST_F(BackendTest, FetchClaimsAtMostCountInFifoOrder) {
  make();
  for (int i = 1; i <= 5; ++i) enqueue(i * kSecond);
  const WorkerId w = add_worker();
  const auto first = fetch(w, 3);
  ASSERT_EQ(first.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const Lease& l = first[static_cast<std::size_t>(i)];
    EXPECT_EQ(l.id, static_cast<JobId>(i));  // enqueue order
    EXPECT_EQ(l.attempt, 1);
    EXPECT_EQ(l.progress, 0);
    EXPECT_EQ(l.spec.work, (i + 1) * kSecond);  // the args travel with the lease
    EXPECT_EQ(state(l), JobState::kActive);
  }
  EXPECT_EQ(backend->live_jobs(), 5u);  // claimed jobs are still live
  // A second fetch only sees the two unclaimed jobs, even when asking for more.
  const auto second = fetch(w, 5);
  ASSERT_EQ(second.size(), 2u);
  EXPECT_EQ(second[0].id, 3u);
  EXPECT_EQ(second[1].id, 4u);
  EXPECT_TRUE(fetch(w, 5).empty());
  EXPECT_TRUE(fetch(add_worker(), 5).empty());
  EXPECT_TRUE(fetch(w, 0).empty());
}

TEST_F(BackendTest, AckAcceptedFinishesTheJob) {
  make();
  enqueue();
  enqueue();
  const WorkerId w = add_worker();
  const auto leases = fetch(w, 1);
  ASSERT_EQ(leases.size(), 1u);
  EXPECT_EQ(backend->live_jobs(), 2u);
  complete_attempt(leases[0], w);
  EXPECT_TRUE(backend->ack(w, leases[0]));
  EXPECT_EQ(backend->live_jobs(), 1u);
  EXPECT_EQ(state(leases[0]), std::nullopt);  // the record is freed
  EXPECT_EQ(recorder.totals().completions_rejected, 0);
  // Acking it again: the worker no longer holds it.
  EXPECT_FALSE(backend->ack(w, leases[0]));
  EXPECT_EQ(recorder.totals().completions_rejected, 1);
  // The freed record is reused by a new job, and the stale lease still does not match it.
  enqueue();
  const auto rest = fetch(w, 2);
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_FALSE(backend->ack(w, leases[0]));
  EXPECT_EQ(recorder.totals().completions_rejected, 2);
  for (const Lease& l : rest) {
    complete_attempt(l, w);
    EXPECT_TRUE(backend->ack(w, l));
  }
  const AuditResult audit = recorder.finish(*backend);
  EXPECT_TRUE(audit.ok) << (audit.errors.empty() ? "" : audit.errors[0]);
  EXPECT_EQ(recorder.totals().enqueued, 3);
  EXPECT_EQ(recorder.totals().completed, 3);
}

TEST_F(BackendTest, AckOrFailFromAnotherWorkerIsRejected) {
  make();
  enqueue();
  const WorkerId w1 = add_worker();
  const WorkerId w2 = add_worker();
  const auto leases = fetch(w1, 1);
  ASSERT_EQ(leases.size(), 1u);
  EXPECT_FALSE(backend->ack(w2, leases[0]));
  EXPECT_EQ(recorder.totals().completions_rejected, 1);
  EXPECT_FALSE(backend->fail(w2, leases[0], ErrorKind::kHandler, true, 0));
  EXPECT_EQ(recorder.totals().rejected_fails, 1);
  EXPECT_EQ(state(leases[0]), JobState::kActive);  // untouched
  EXPECT_TRUE(backend->ack(w1, leases[0]));
  EXPECT_EQ(backend->live_jobs(), 0u);
}

TEST_F(BackendTest, RetryableFailBacksOffExponentially) {
  // initial 1 s, coefficient 2, no jitter: after attempt n fails, the wait is 1 s * 2^(n-1).
  config.retry = RetryPolicy{3, kSecond, 2.0, 5 * kMinute, false};
  make(detection_and_lease(false, false));  // no other timers in the queue
  enqueue();
  const WorkerId w = add_worker();
  auto l = fetch(w, 1);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_TRUE(backend->fail(w, l[0], ErrorKind::kHandler, true, 0));
  EXPECT_EQ(state(l[0]), JobState::kScheduled);
  EXPECT_TRUE(fetch(w, 1).empty());  // waiting out the backoff
  rt.run_until(kSecond - 1);
  EXPECT_EQ(state(l[0]), JobState::kScheduled);
  rt.run_until(kSecond);  // first wait: 1 s
  EXPECT_EQ(state(l[0]), JobState::kAvailable);
  l = fetch(w, 1);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].attempt, 2);
  EXPECT_TRUE(backend->fail(w, l[0], ErrorKind::kHandler, true, 0));
  rt.run_until(3 * kSecond - 1);  // second wait: 2 s, from t = 1 s to 3 s
  EXPECT_EQ(state(l[0]), JobState::kScheduled);
  rt.run_until(3 * kSecond);
  EXPECT_EQ(state(l[0]), JobState::kAvailable);
  l = fetch(w, 1);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].attempt, 3);
  // The third failure uses up max_attempts = 3: discarded at once.
  EXPECT_TRUE(backend->fail(w, l[0], ErrorKind::kHandler, true, 0));
  EXPECT_EQ(state(l[0]), std::nullopt);
  EXPECT_EQ(backend->live_jobs(), 0u);
  EXPECT_EQ(rt.pending(), 0u);  // no retry scheduled
  recorder.finish(*backend);
  EXPECT_EQ(recorder.totals().discarded, 1);
  EXPECT_EQ(recorder.totals().discarded_by_shutdown, 0);  // the job's own error
  EXPECT_EQ(recorder.totals().pending, 0);
}

// Sidekiq's retries (no jitter) and scheduled-set poller, its first poll exactly 10 s after
// a process registers; one job queued and one process registered at 0.
class SidekiqRetryTest : public BackendTest {
 protected:
  WorkerId sidekiq_with_one_job() {
    config.retry = RetryPolicy{26, 0, 1.0, 0, false, RetryPolicy::Schedule::kSidekiq};
    BackendMechanisms m = detection_and_lease(false, false);
    m.poll_per_process = 5 * kSecond;
    m.poll_initial_jitter = 0;
    make(m);
    enqueue();
    return add_worker();
  }
};

TEST_F(SidekiqRetryTest, ASidekiqRetryWaitsItsScheduleAndThenForAProcesssPoller) {
  // Sidekiq 6.4: retry n waits (n-1)^4 + 15 s (no rand(10) term without jitter), then for
  // the next poll of some running process. The poller starts 10 s after its process (the
  // U(0, 5 s) on top set to 0 here) and then polls every U(2.5 s, 7.5 s): A = 5 s x 1.
  const WorkerId w = sidekiq_with_one_job();
  auto l = fetch(w, 1);
  ASSERT_EQ(l.size(), 1u);
  const auto available_from = [&](Time from, Time until) {
    for (Time t = from; t <= until; t += kMillisecond) {
      rt.run_until(t);
      if (state(l[0]) == JobState::kAvailable) return t;
    }
    return Time{-1};
  };
  // Failed at 1 s: due at 1 + 0^4 + 15 = 16 s. The polls at 10 s and after found nothing
  // due; the first at or after 16 s moves it: after 16 s (a poll landing on 16 s exactly is
  // not this seed's) and before 16 + 7.5 s.
  rt.run_until(kSecond);
  EXPECT_TRUE(backend->fail(w, l[0], ErrorKind::kHandler, true, 0));
  const Time first = available_from(16 * kSecond, 24 * kSecond);
  EXPECT_GT(first, 16 * kSecond);
  EXPECT_LT(first, 23500 * kMillisecond);
  // The second failure, at once: retry_count 1, due 1^4 + 15 = 16 s later.
  l = fetch(w, 1);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].attempt, 2);
  EXPECT_TRUE(backend->fail(w, l[0], ErrorKind::kHandler, true, 0));
  const Time second = available_from(first, first + 24 * kSecond);
  EXPECT_GT(second, first + 16 * kSecond);
  EXPECT_LT(second, first + 23500 * kMillisecond);
}

TEST_F(BackendTest, ASidekiqRetrysRandomTermIsAWholeMultipleOfItsCountPlusOne) {
  // rand(10) x (retry_count + 1): the first retry waits 15 + 0..9 s, whole seconds (no
  // poller here: due is available). 40 jobs failed at 0 s come back at whole seconds from 15
  // to 24 s, and not all at one.
  config.retry = RetryPolicy{26, 0, 1.0, 0, true, RetryPolicy::Schedule::kSidekiq};
  make(detection_and_lease(false, false));
  for (int i = 0; i < 40; ++i) enqueue();
  const WorkerId w = add_worker();
  const auto l = fetch(w, 40);
  ASSERT_EQ(l.size(), 40u);
  for (const Lease& lease : l) EXPECT_TRUE(backend->fail(w, lease, ErrorKind::kHandler, true, 0));
  std::set<Time> seen;
  std::vector<Lease> scratch;
  for (Time t = 0; t <= 25 * kSecond; t += kSecond / 2) {
    rt.run_until(t);
    for (const Lease& lease : l) {
      if (state(lease) == JobState::kAvailable && seen.size() < 40) seen.insert(t);
    }
    backend->fetch(w, 40, scratch);  // take them so each is seen once
  }
  ASSERT_FALSE(seen.empty());
  for (const Time t : seen) {
    EXPECT_EQ(t % kSecond, 0) << t;
    EXPECT_GE(t, 15 * kSecond);
    EXPECT_LE(t, 24 * kSecond);
  }
  EXPECT_GT(seen.size(), 3u);
}

TEST_F(BackendTest, DuctworkCountsCrashesApartFromAttemptsAndBacksOffPastTheThird) {
  // Ductwork 1.0 (max_crash 10, immediate 3, step 10 s). A job whose holder departs every
  // time it runs: crashes 1-3 make it available at once, crash n >= 4 n x 10 s later; the
  // attempt is given back each time, so the job stays at attempt 1 though max_attempts is
  // 3; the 11th crash (crash_count 10, not < max_crash) fails it for good.
  BackendMechanisms m;
  m.heartbeat_detection = false;
  m.lease.enabled = false;
  m.crashes.enabled = true;
  make(m);
  enqueue(kMinute);
  std::vector<double> available_at;
  for (int crash = 1; crash <= 11; ++crash) {
    const WorkerId w = add_worker();
    const auto l = fetch(w, 1);
    ASSERT_EQ(l.size(), 1u) << "crash " << crash;
    EXPECT_EQ(l[0].attempt, 1);
    start_attempt(l[0]);
    end_attempt(l[0], w, Outcome::kKilled);
    backend->deregister(w);
    if (crash == 11) break;
    // Available now, or scheduled: run the clock to when it is queued again.
    while (state(l[0]) == JobState::kScheduled) rt.run_until(rt.now() + kSecond);
    ASSERT_EQ(state(l[0]), JobState::kAvailable) << "crash " << crash;
    available_at.push_back(to_seconds(rt.now()));
  }
  // At once three times; then +40 s, +50 s, ... +100 s: 40, 90, 150, 220, 300, 390, 490.
  EXPECT_EQ(available_at, (std::vector<double>{0, 0, 0, 40, 90, 150, 220, 300, 390, 490}));
  EXPECT_EQ(backend->live_jobs(), 0u);
  EXPECT_EQ(recorder.totals().discarded, 1);
  expect_audit_ok();
}

TEST_F(BackendTest, FaktoryRiverAndObanRetryOnTheirOwnSchedules) {
  // Without jitter, one job failing at once each time it is fetched; the waits before
  // retries 1, 2, 3 (n):
  //   faktory (n-1)^4 + 15:        15, 16, 31 s
  //   river n^4:                   1, 16, 81 s
  //   oban 15 + 2^n:               17, 19, 23 s
  //   oban, max_attempts 40: n -> round(n x 20 / 40) = 1, 1, 2: 17, 17, 19 s
  using Schedule = RetryPolicy::Schedule;
  struct Case {
    Schedule schedule;
    int max_attempts;
    std::vector<int> waits;
  };
  for (const Case& c :
       {Case{Schedule::kFaktory, 26, {15, 16, 31}}, Case{Schedule::kRiver, 25, {1, 16, 81}},
        Case{Schedule::kOban, 20, {17, 19, 23}}, Case{Schedule::kOban, 40, {17, 17, 19}}}) {
    config.retry = RetryPolicy{c.max_attempts, 0, 1.0, 0, false, c.schedule};
    make(detection_and_lease(false, false));
    enqueue();
    const WorkerId w = add_worker();
    for (const int wait : c.waits) {
      const auto l = fetch(w, 1);
      ASSERT_EQ(l.size(), 1u);
      const Time failed = rt.now();
      EXPECT_TRUE(backend->fail(w, l[0], ErrorKind::kHandler, true, 0));
      rt.run_until(failed + wait * kSecond - 1);
      EXPECT_EQ(state(l[0]), JobState::kScheduled) << name_of(c.schedule) << " " << wait;
      rt.run_until(failed + wait * kSecond);
      EXPECT_EQ(state(l[0]), JobState::kAvailable) << name_of(c.schedule) << " " << wait;
    }
  }
}

TEST_F(BackendTest, FaktoryRiverAndObanJitterTheirFirstRetryWithinTheirOwnBounds) {
  // 40 jobs failed at 0 s, jitter on; the first retry is due, for each:
  //   faktory 15 + rand(30) x 1: whole seconds 15-44; river 1 s x U(0.9, 1.1): 0.9-1.1 s;
  //   oban 17 + trunc(U x 1.7): whole seconds 17 or 18. All 40 come back by then.
  using Schedule = RetryPolicy::Schedule;
  struct Case {
    Schedule schedule;
    Time lo, hi;
    bool whole_seconds;
  };
  for (const Case& c : {Case{Schedule::kFaktory, 15 * kSecond, 44 * kSecond, true},
                        Case{Schedule::kRiver, 900 * kMillisecond, 1100 * kMillisecond, false},
                        Case{Schedule::kOban, 17 * kSecond, 18 * kSecond, true}}) {
    config.retry = RetryPolicy{25, 0, 1.0, 0, true, c.schedule};
    make(detection_and_lease(false, false));  // each case from where the last one ended
    const Time t0 = rt.now();
    for (int i = 0; i < 40; ++i) enqueue();
    const WorkerId w = add_worker();
    const auto l = fetch(w, 40);
    ASSERT_EQ(l.size(), 40u);
    for (const Lease& lease : l) EXPECT_TRUE(backend->fail(w, lease, ErrorKind::kHandler, true, 0));
    std::set<Time> due;
    std::size_t returned = 0;
    for (Time t = 0; t <= c.hi; t += c.whole_seconds ? kSecond : kMillisecond) {
      rt.run_until(t0 + t);
      std::vector<Lease> back;
      backend->fetch(w, 40, back);
      returned += back.size();
      if (!back.empty()) due.insert(t);
      if (c.whole_seconds) {  // nothing comes due between whole seconds
        rt.run_until(t0 + t + kSecond - 1);
        back.clear();
        backend->fetch(w, 40, back);
        EXPECT_TRUE(back.empty()) << name_of(c.schedule) << " " << t;
      }
    }
    ASSERT_FALSE(due.empty()) << name_of(c.schedule);
    EXPECT_EQ(returned, 40u) << name_of(c.schedule);
    EXPECT_GE(*due.begin(), c.lo) << name_of(c.schedule);
    EXPECT_LE(*due.rbegin(), c.hi) << name_of(c.schedule);
    EXPECT_GT(due.size(), 1u) << name_of(c.schedule);  // not all at one instant
  }
}

TEST_F(SidekiqRetryTest, AProcessThatStoppedRunningPollsNoMoreAndANewOneStartsItsOwnPoller) {
  // The only process goes quiet at 5 s (Sidekiq's quiet terminates its poller): the retry
  // due at 16 s waits. A process registered at 30 s polls first at 30 + 10 s: the retry is
  // available at 40 s exactly.
  const WorkerId w = sidekiq_with_one_job();
  auto l = fetch(w, 1);
  ASSERT_EQ(l.size(), 1u);
  rt.run_until(kSecond);
  EXPECT_TRUE(backend->fail(w, l[0], ErrorKind::kHandler, true, 0));
  rt.run_until(5 * kSecond);
  backend->heartbeat(w, Directive::kQuiet, {});
  rt.run_until(30 * kSecond);
  EXPECT_EQ(state(l[0]), JobState::kScheduled);
  add_worker();
  rt.run_until(40 * kSecond - 1);
  EXPECT_EQ(state(l[0]), JobState::kScheduled);
  rt.run_until(40 * kSecond);
  EXPECT_EQ(state(l[0]), JobState::kAvailable);
}

TEST_F(BackendTest, ARetryWithNoBackoffIsFetchableAtTheInstantOfTheFail) {
  // pg-boss's retryDelay 0: the job failed at 3 s is available at 3 s, to a fetch in the
  // same instant (the failing worker's own, as its slot frees), with no timer pending.
  config.retry = RetryPolicy{3, 0, 1.0, 0, false};
  make(detection_and_lease(false, false));
  enqueue();
  const WorkerId w = add_worker();
  auto l = fetch(w, 1);
  ASSERT_EQ(l.size(), 1u);
  rt.run_until(3 * kSecond);
  EXPECT_TRUE(backend->fail(w, l[0], ErrorKind::kHandler, true, 0));
  EXPECT_EQ(state(l[0]), JobState::kAvailable);
  EXPECT_EQ(rt.pending(), 0u);
  l = fetch(w, 1);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].attempt, 2);
  // Its lease as fetched: 3 s + the 30 min visibility timeout.
  EXPECT_EQ(l[0].expires, 3 * kSecond + config.visibility_timeout);
}

TEST_F(BackendTest, EachJobClassRetriesByItsOwnPolicy) {
  // A fail-fast class (one attempt) beside a retryable one (3 attempts, 5 s backoff): both
  // jobs FAIL with their own error at 0 s; the first is discarded at once, the second is
  // retried at 5 s, fails again, and is retried at 15 s.
  config.class_retry = {RetryPolicy{1, kSecond, 2.0, kMinute, false},
                        RetryPolicy{3, 5 * kSecond, 2.0, kMinute, false}};
  make();
  backend->enqueue(queue, JobSpec{kSecond, 0, true, 0});
  backend->enqueue(queue, JobSpec{kSecond, 0, true, 1});
  const WorkerId w = add_worker();
  const auto l = fetch(w, 2);
  ASSERT_EQ(l.size(), 2u);
  for (const Lease& lease : l) {
    start_attempt(lease);
    end_attempt(lease, w, Outcome::kFailed);
    EXPECT_TRUE(backend->fail(w, lease, ErrorKind::kHandler, true, 0));
  }
  EXPECT_EQ(state(l[0]), std::nullopt);  // discarded
  EXPECT_EQ(recorder.totals().discarded, 1);
  EXPECT_EQ(state(l[1]), JobState::kScheduled);
  rt.run_until(5 * kSecond - 1);
  EXPECT_TRUE(fetch(w, 1).empty());
  rt.run_until(5 * kSecond);
  auto again = fetch(w, 1);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].attempt, 2);
  start_attempt(again[0]);
  end_attempt(again[0], w, Outcome::kFailed);
  EXPECT_TRUE(backend->fail(w, again[0], ErrorKind::kHandler, true, 0));
  rt.run_until(15 * kSecond - 1);
  EXPECT_TRUE(fetch(w, 1).empty());
  rt.run_until(15 * kSecond);
  EXPECT_EQ(fetch(w, 1).size(), 1u);
}

TEST_F(BackendTest, RetryWaitIsCappedByMaxInterval) {
  // initial 2 s, coefficient 10, cap 5 s: waits 2 s, then min(20 s, 5 s) = 5 s.
  config.retry = RetryPolicy{5, 2 * kSecond, 10.0, 5 * kSecond, false};
  make(detection_and_lease(false, false));
  enqueue();
  const WorkerId w = add_worker();
  auto l = fetch(w, 1);
  backend->fail(w, l[0], ErrorKind::kHandler, true, 0);
  EXPECT_EQ(rt.next_time(), 2 * kSecond);
  rt.run_until(2 * kSecond);
  l = fetch(w, 1);
  ASSERT_EQ(l.size(), 1u);
  backend->fail(w, l[0], ErrorKind::kHandler, true, 0);
  EXPECT_EQ(rt.next_time(), 7 * kSecond);
}

TEST_F(BackendTest, RetryJitterStaysWithinHalfToOneAndAHalf) {
  // jitter multiplies the 10 s wait by U[0.5, 1.5): every wait is in [5 s, 15 s). With 200
  // waits, all above 7 s has probability 0.8^200 ~ 1e-19, so the spread is checked too.
  config.retry = RetryPolicy{3, 10 * kSecond, 2.0, 5 * kMinute, true};
  make(detection_and_lease(false, false));
  const WorkerId w = add_worker();
  Duration lo = kNever, hi = 0;
  for (int i = 0; i < 200; ++i) {
    enqueue();
    auto l = fetch(w, 1);
    ASSERT_EQ(l.size(), 1u);
    ASSERT_EQ(l[0].attempt, 1);
    backend->fail(w, l[0], ErrorKind::kHandler, true, 0);
    const Duration wait = rt.next_time() - rt.now();
    lo = std::min(lo, wait);
    hi = std::max(hi, wait);
    rt.run_until(rt.next_time());
    l = fetch(w, 1);
    ASSERT_EQ(l.size(), 1u);
    backend->ack(w, l[0]);
  }
  EXPECT_GE(lo, 5 * kSecond);
  EXPECT_LT(hi, 15 * kSecond);
  EXPECT_LT(lo, 7 * kSecond);
  EXPECT_GT(hi, 13 * kSecond);
}

TEST_F(BackendTest, NonRetryableFailDiscardsAtOnce) {
  make(detection_and_lease(false, false));
  enqueue();
  const WorkerId w = add_worker();
  const auto l = fetch(w, 1);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_TRUE(backend->fail(w, l[0], ErrorKind::kHandler, false, 0));
  EXPECT_EQ(state(l[0]), std::nullopt);
  EXPECT_EQ(backend->live_jobs(), 0u);
  EXPECT_EQ(rt.pending(), 0u);
  recorder.finish(*backend);
  EXPECT_EQ(recorder.totals().discarded, 1);
  EXPECT_EQ(recorder.totals().discarded_by_shutdown, 0);
}

TEST_F(BackendTest, ShutdownFailOnTheLastAttemptIsDiscardedByShutdown) {
  config.retry.max_attempts = 1;
  make(detection_and_lease(false, false));
  enqueue();
  const WorkerId w = add_worker();
  const auto l = fetch(w, 1);
  EXPECT_TRUE(backend->fail(w, l[0], ErrorKind::kShutdown, true, 0));
  EXPECT_EQ(state(l[0]), std::nullopt);
  recorder.finish(*backend);
  EXPECT_EQ(recorder.totals().discarded, 1);
  EXPECT_EQ(recorder.totals().discarded_by_shutdown, 1);
}

TEST_F(BackendTest, FailKeepsCheckpointedProgressForTheNextAttempt) {
  make(detection_and_lease(false, false));
  enqueue(10 * kSecond);
  const WorkerId w = add_worker();
  auto l = fetch(w, 1);
  backend->fail(w, l[0], ErrorKind::kShutdown, true, 4 * kSecond);
  rt.run_until(kSecond);  // 1 s backoff
  l = fetch(w, 1);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].progress, 4 * kSecond);
}

TEST_F(BackendTest, LeaseExpiresExactlyOneVisibilityTimeoutAfterFetch) {
  config.visibility_timeout = 10 * kSecond;
  config.heartbeat_timeout = kHour;  // the worker stays alive throughout
  make();
  enqueue();
  const WorkerId w1 = add_worker();
  rt.run_until(2 * kSecond);
  const auto l = fetch(w1, 1);  // at 2 s: the lease runs to 12 s
  ASSERT_EQ(l.size(), 1u);
  rt.run_until(12 * kSecond - 1);
  EXPECT_EQ(state(l[0]), JobState::kActive);
  rt.run_until(12 * kSecond);
  EXPECT_EQ(state(l[0]), JobState::kAvailable);
  // The old holder's ack comes too late.
  EXPECT_FALSE(backend->ack(w1, l[0]));
  EXPECT_EQ(recorder.totals().completions_rejected, 1);
  const WorkerId w2 = add_worker();
  const auto again = fetch(w2, 1);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].id, l[0].id);
  EXPECT_EQ(again[0].attempt, 2);
  EXPECT_TRUE(backend->ack(w2, again[0]));
}

TEST_F(BackendTest, LeasesDueAtOneInstantExpireInClaimOrderAmongOtherBackendTimers) {
  // One timer stands for every claim's lease (backend.h, lease_timers): each deadline must
  // still fire in the place its claim took. At 0 s: A0 and A are claimed (leases to 10 s),
  // X is claimed and fails, its retry due at 10 s, then B is claimed. A0 is acked at 1 s,
  // so the timer moves on to A. At 10 s A, X and B become available in that order.
  config.visibility_timeout = 10 * kSecond;
  config.heartbeat_timeout = kHour;
  config.retry.initial_interval = 10 * kSecond;
  make();
  const JobId a0 = *enqueue(), a = *enqueue(), x = *enqueue(), b = *enqueue();
  const WorkerId w = add_worker();
  const auto first = fetch(w, 2);
  ASSERT_EQ(first.size(), 2u);
  const auto failing = fetch(w, 1);
  ASSERT_EQ(failing.size(), 1u);
  ASSERT_EQ(failing[0].id, x);
  start_attempt(failing[0]);
  end_attempt(failing[0], w, Outcome::kFailed);
  ASSERT_TRUE(backend->fail(w, failing[0], ErrorKind::kHandler, true, 0));
  ASSERT_EQ(fetch(w, 1).at(0).id, b);
  rt.run_until(kSecond);
  complete_attempt(first[0], w);
  ASSERT_TRUE(backend->ack(w, first[0]));
  EXPECT_EQ(first[0].id, a0);
  rt.run_until(10 * kSecond - 1);
  EXPECT_TRUE(fetch(add_worker(), 3).empty());
  rt.run_until(10 * kSecond);
  std::vector<JobId> order;
  for (const Lease& l : fetch(add_worker(), 3)) order.push_back(l.id);
  EXPECT_EQ(order, (std::vector<JobId>{a, x, b}));
}

TEST_F(BackendTest, HeartbeatsRenewLeases) {
  config.visibility_timeout = 10 * kSecond;
  config.heartbeat_timeout = 30 * kSecond;
  make();
  enqueue();
  const WorkerId w = add_worker();
  const auto l = fetch(w, 1);
  ASSERT_EQ(l.size(), 1u);
  // Heartbeats every 5 s: each pushes the lease to heartbeat + 10 s.
  for (Time t = 5 * kSecond; t <= 40 * kSecond; t += 5 * kSecond) {
    rt.run_until(t);
    ASSERT_EQ(state(l[0]), JobState::kActive) << "t=" << t;
    EXPECT_EQ(backend->heartbeat(w, Directive::kRunning, l), Directive::kRunning);
  }
  EXPECT_TRUE(fetch(add_worker(), 1).empty());  // still leased at 40 s, past 30 s
  // The last heartbeat was at 40 s: the lease ends at exactly 50 s.
  rt.run_until(50 * kSecond - 1);
  EXPECT_EQ(state(l[0]), JobState::kActive);
  rt.run_until(50 * kSecond);
  EXPECT_EQ(state(l[0]), JobState::kAvailable);
  EXPECT_FALSE(backend->ack(w, l[0]));
}

TEST_F(BackendTest, HeartbeatRenewsOnlyTheListedLeases) {
  config.visibility_timeout = 10 * kSecond;
  make();
  enqueue();
  enqueue();
  const WorkerId w = add_worker();
  const auto l = fetch(w, 2);
  ASSERT_EQ(l.size(), 2u);
  const WorkerId other = add_worker();
  rt.run_until(5 * kSecond);
  backend->heartbeat(w, Directive::kRunning, std::span<const Lease>(l.data(), 1));
  // Another worker listing job 1 does not renew a lease it does not hold.
  backend->heartbeat(other, Directive::kRunning, std::span<const Lease>(l.data() + 1, 1));
  rt.run_until(10 * kSecond);  // job 1 was not renewed: its lease ends at 0 + 10 s
  EXPECT_EQ(state(l[0]), JobState::kActive);
  EXPECT_EQ(state(l[1]), JobState::kAvailable);
  rt.run_until(15 * kSecond);  // job 0's lease was renewed to 5 + 10 s
  EXPECT_EQ(state(l[0]), JobState::kAvailable);
}

TEST_F(BackendTest, DeadWorkerJobsAreAvailableAtLastHeartbeatPlusTimeout) {
  config.heartbeat_timeout = 30 * kSecond;
  make();
  enqueue();
  enqueue();
  const WorkerId w1 = add_worker();
  const auto l = fetch(w1, 2);
  ASSERT_EQ(l.size(), 2u);
  rt.run_until(5 * kSecond);
  backend->heartbeat(w1, Directive::kRunning, l);  // last heartbeat: 5 s -> dead at 35 s
  rt.run_until(35 * kSecond - 1);
  EXPECT_EQ(state(l[0]), JobState::kActive);
  EXPECT_EQ(state(l[1]), JobState::kActive);
  rt.run_until(35 * kSecond);
  EXPECT_EQ(state(l[0]), JobState::kAvailable);
  EXPECT_EQ(state(l[1]), JobState::kAvailable);
  const WorkerId w2 = add_worker();
  const auto again = fetch(w2, 2);
  ASSERT_EQ(again.size(), 2u);
  for (const Lease& a : again) EXPECT_EQ(a.attempt, 2);
  // The dead worker is told to terminate and gets nothing more.
  EXPECT_FALSE(backend->ack(w1, l[0]));
  EXPECT_EQ(backend->heartbeat(w1, Directive::kRunning, {}), Directive::kTerminate);
  enqueue();
  EXPECT_TRUE(fetch(w1, 1).empty());
}

TEST_F(BackendTest, DeadWorkerJobIsDiscardedWhenAttemptsAreUsedUp) {
  config.heartbeat_timeout = 30 * kSecond;
  config.retry.max_attempts = 1;
  make();
  enqueue();
  const WorkerId w = add_worker();  // registered at 0, never heartbeats: dead at 30 s
  const auto l = fetch(w, 1);
  rt.run_until(30 * kSecond);
  EXPECT_EQ(state(l[0]), std::nullopt);
  EXPECT_EQ(backend->live_jobs(), 0u);
  recorder.finish(*backend);
  EXPECT_EQ(recorder.totals().discarded, 1);
  EXPECT_EQ(recorder.totals().discarded_by_shutdown, 1);
}

TEST_F(BackendTest, ALateAckAfterAHeartbeatTimeoutRecoveryLeavesTheJobOneFate) {
  // What a real-time engine whose worker strand fell behind produces: the worker fetches
  // job 0 at 0 s and never heartbeats (heartbeat_timeout 30 s, max_attempts 1), so at 30 s
  // the backend recovers the job and, its one attempt used, discards it: its ledger entry
  // is settled and freed. At 31 s the worker's reports of that attempt arrive: started,
  // completed, then the ACK. The ACK is refused (the lease was recovered), the attempt's
  // two reports are late reports that change nothing, and job 0 keeps its one fate:
  // enqueued 1 = discarded 1, completed 0, audit ok (it was "discarded 2" before).
  config.heartbeat_timeout = 30 * kSecond;
  config.retry.max_attempts = 1;
  make();
  enqueue();
  const WorkerId w = add_worker();
  const auto l = fetch(w, 1);
  ASSERT_EQ(l.size(), 1u);
  rt.run_until(31 * kSecond);
  EXPECT_EQ(state(l[0]), std::nullopt);  // discarded at 30 s
  complete_attempt(l[0], w);
  EXPECT_FALSE(backend->ack(w, l[0]));
  EXPECT_EQ(recorder.late_reports(), 2);
  EXPECT_EQ(recorder.totals().completions_rejected, 1);
  expect_audit_ok();
  const JobTotals& t = recorder.totals();
  EXPECT_EQ(t.enqueued, 1);
  EXPECT_EQ(t.discarded, 1);
  EXPECT_EQ(t.completed, 0);
  EXPECT_EQ(t.attempts[static_cast<int>(Outcome::kCompleted)], 0);  // not the ledger's
  ASSERT_EQ(recorder.warnings().size(), 1u);
  EXPECT_EQ(recorder.warnings()[0].code, "late_reports");
  EXPECT_EQ(recorder.warnings()[0].figures.at(0).second, 2.0);
}

TEST_F(BackendTest, ALateReportNeverLandsOnTheJobThatReusedTheLedgerSlot) {
  // As above, but job 1 is enqueued at 30.5 s, after job 0 was discarded: it takes job 0's
  // freed backend record and ledger slot. Job 0's late reports at 31 s must not touch job
  // 1: job 1 stays queued with no attempt (pending at the end), job 0 discarded.
  config.heartbeat_timeout = 30 * kSecond;
  config.retry.max_attempts = 1;
  make();
  enqueue();
  const WorkerId w = add_worker();
  const auto l = fetch(w, 1);
  rt.run_until(30 * kSecond + 500 * kMillisecond);
  enqueue();
  rt.run_until(31 * kSecond);
  complete_attempt(l[0], w);
  EXPECT_FALSE(backend->ack(w, l[0]));
  EXPECT_EQ(recorder.late_reports(), 2);
  expect_audit_ok();
  const JobTotals& t = recorder.totals();
  EXPECT_EQ(t.enqueued, 2);
  EXPECT_EQ(t.discarded, 1);
  EXPECT_EQ(t.completed, 0);
  EXPECT_EQ(t.pending, 1);
  EXPECT_EQ(t.duplicate_executions, 0);
}

TEST_F(BackendTest, AStaleRunsLateAckAfterARecoveryCountsTheJobCompletedOnce) {
  // max_attempts 2: the job recovered from the dead worker w1 at 30 s is fetched again by
  // w2 (attempt 2). w1's run reports late, at 31 s: it started and completed, but its ACK is
  // refused (w1 no longer holds the lease). w2 then completes and ACKs: the job completes
  // once; w1's finished run is a duplicate execution, as on the virtual engine.
  config.heartbeat_timeout = 30 * kSecond;
  config.retry.max_attempts = 2;
  make();
  enqueue();
  const WorkerId w1 = add_worker();
  const auto l1 = fetch(w1, 1);
  rt.run_until(30 * kSecond);
  const WorkerId w2 = add_worker();
  const auto l2 = fetch(w2, 1);
  ASSERT_EQ(l2.size(), 1u);
  EXPECT_EQ(l2[0].attempt, 2);
  rt.run_until(31 * kSecond);
  complete_attempt(l1[0], w1);
  EXPECT_FALSE(backend->ack(w1, l1[0]));
  complete_attempt(l2[0], w2);
  EXPECT_TRUE(backend->ack(w2, l2[0]));
  EXPECT_EQ(recorder.late_reports(), 0);  // the job was not settled yet: a real run
  expect_audit_ok();
  const JobTotals& t = recorder.totals();
  EXPECT_EQ(t.enqueued, 1);
  EXPECT_EQ(t.completed, 1);
  EXPECT_EQ(t.discarded, 0);
  EXPECT_EQ(t.completions_rejected, 1);
  EXPECT_EQ(t.duplicate_executions, 1);
}

TEST_F(BackendTest, NoDeadWorkerRecoveryWithoutHeartbeatDetection) {
  config.heartbeat_timeout = 30 * kSecond;
  make(detection_and_lease(false,
                           true));  // lease expiry only, with the default 30 min visibility timeout
  enqueue();
  const WorkerId w = add_worker();
  const auto l = fetch(w, 1);
  rt.run_until(10 * kMinute);  // 20 heartbeat timeouts without a heartbeat
  EXPECT_EQ(state(l[0]), JobState::kActive);
  EXPECT_EQ(backend->heartbeat(w, Directive::kRunning, {}), Directive::kRunning);
  EXPECT_TRUE(backend->ack(w, l[0]));
}

TEST_F(BackendTest, NoLeaseExpiryWithoutTheMechanism) {
  config.visibility_timeout = 10 * kSecond;
  make(detection_and_lease(false, false));
  enqueue();
  const WorkerId w = add_worker();
  const auto l = fetch(w, 1);
  rt.run_until(kMinute);
  EXPECT_EQ(state(l[0]), JobState::kActive);
  EXPECT_TRUE(backend->ack(w, l[0]));
}

TEST_F(BackendTest, QuietOrTerminateHeartbeatStateFetchesNothing) {
  make();
  enqueue();
  const WorkerId w = add_worker();
  EXPECT_EQ(backend->heartbeat(w, Directive::kQuiet, {}), Directive::kRunning);
  EXPECT_TRUE(fetch(w, 1).empty());
  EXPECT_EQ(backend->heartbeat(w, Directive::kTerminate, {}), Directive::kRunning);
  EXPECT_TRUE(fetch(w, 1).empty());
  // Reporting running again (SIGCONT) lets it fetch.
  backend->heartbeat(w, Directive::kRunning, {});
  EXPECT_EQ(fetch(w, 1).size(), 1u);
}

TEST_F(BackendTest, DirectivesOnlyEscalate) {
  make();
  enqueue();
  const WorkerId w = add_worker();
  const WorkerId other = add_worker();
  EXPECT_EQ(backend->heartbeat(w, Directive::kRunning, {}), Directive::kRunning);
  backend->set_directive(w, Directive::kQuiet);
  EXPECT_EQ(backend->heartbeat(w, Directive::kRunning, {}), Directive::kQuiet);
  EXPECT_TRUE(fetch(w, 1).empty());  // told to be quiet: no jobs
  backend->set_directive(w, Directive::kRunning);
  EXPECT_EQ(backend->heartbeat(w, Directive::kRunning, {}), Directive::kQuiet);
  backend->set_directive(w, Directive::kTerminate);
  EXPECT_EQ(backend->heartbeat(w, Directive::kQuiet, {}), Directive::kTerminate);
  backend->set_directive(w, Directive::kQuiet);
  EXPECT_EQ(backend->heartbeat(w, Directive::kQuiet, {}), Directive::kTerminate);
  backend->set_directive(w, Directive::kRunning);
  EXPECT_EQ(backend->heartbeat(w, Directive::kQuiet, {}), Directive::kTerminate);
  // Directives are per worker.
  EXPECT_EQ(backend->heartbeat(other, Directive::kRunning, {}), Directive::kRunning);
  EXPECT_EQ(fetch(other, 1).size(), 1u);
}

TEST_F(BackendTest, DeregisterRequeuesHeldJobs) {
  make();
  enqueue();
  enqueue();
  enqueue();
  const WorkerId w1 = add_worker();
  const auto l = fetch(w1, 2);
  ASSERT_EQ(l.size(), 2u);
  backend->deregister(w1);
  EXPECT_EQ(state(l[0]), JobState::kAvailable);
  EXPECT_EQ(state(l[1]), JobState::kAvailable);
  EXPECT_EQ(backend->live_jobs(), 3u);
  const WorkerId w2 = add_worker();
  auto again = fetch(w2, 3);
  ASSERT_EQ(again.size(), 3u);
  // Job 2 was never fetched; jobs 0 and 1 run their second attempt (in either order).
  std::sort(again.begin(), again.end(), [](const Lease& a, const Lease& b) { return a.id < b.id; });
  EXPECT_EQ(again[0].attempt, 2);
  EXPECT_EQ(again[1].attempt, 2);
  EXPECT_EQ(again[2].attempt, 1);
  // The deregistered worker holds nothing and gets nothing.
  EXPECT_FALSE(backend->ack(w1, l[0]));
  EXPECT_EQ(backend->heartbeat(w1, Directive::kRunning, {}), Directive::kTerminate);
  enqueue();
  EXPECT_TRUE(fetch(w1, 1).empty());
}

TEST_F(BackendTest, WaitForJobsWakesOneWaiterPerJobInFifoOrder) {
  make(detection_and_lease(false, false));
  std::vector<char> order;
  Wakeups a, b, c;
  a.name = 'A';
  b.name = 'B';
  c.name = 'C';
  a.order = b.order = c.order = &order;
  const WorkerId wa = add_worker(&a);
  const WorkerId wb = add_worker(&b);
  const WorkerId wc = add_worker(&c);
  // Waiting order B, A, C (not registration order); A asks twice but waits once.
  backend->wait_for_jobs(wb);
  backend->wait_for_jobs(wa);
  backend->wait_for_jobs(wa);
  backend->wait_for_jobs(wc);
  EXPECT_TRUE(order.empty());
  enqueue();
  EXPECT_EQ(order, (std::vector<char>{'B'}));
  enqueue();
  EXPECT_EQ(order, (std::vector<char>{'B', 'A'}));
  enqueue();
  EXPECT_EQ(order, (std::vector<char>{'B', 'A', 'C'}));
  enqueue();  // nobody is waiting any more
  EXPECT_EQ(order.size(), 3u);
  EXPECT_EQ(a.count, 1);
  EXPECT_EQ(b.count, 1);
  EXPECT_EQ(c.count, 1);
  // A job that becomes available again after a retry backoff wakes a waiter too.
  const auto l = fetch(wc, 1);
  ASSERT_EQ(l.size(), 1u);
  backend->fail(wc, l[0], ErrorKind::kHandler, true, 0);
  backend->wait_for_jobs(wa);
  EXPECT_EQ(a.count, 1);  // not yet: the job is waiting out its 1 s backoff
  rt.run_until(kSecond);
  EXPECT_EQ(a.count, 2);
  EXPECT_EQ(order.back(), 'A');
}

TEST_F(BackendTest, AFetchEndsTheWaitSoTheNextJobWakesAnIdleWorker) {
  // A waits, then gets a job by polling (its slots are now full); B waits. The next job
  // must wake B, not A.
  make(detection_and_lease(false, false));
  Wakeups a, b;
  const WorkerId wa = add_worker(&a);
  const WorkerId wb = add_worker(&b);
  backend->wait_for_jobs(wa);
  backend->wait_for_jobs(wb);
  enqueue();  // wakes A (first in line)
  ASSERT_EQ(a.count, 1);
  backend->wait_for_jobs(wa);  // A fetched nothing in time and waits again, behind B
  enqueue();                   // wakes B
  ASSERT_EQ(b.count, 1);
  backend->wait_for_jobs(wb);
  ASSERT_EQ(fetch(wa, 1).size(), 1u);  // A's poll takes a job: its wait is over
  enqueue();
  EXPECT_EQ(a.count, 1);
  EXPECT_EQ(b.count, 2);
}

TEST_F(BackendTest, AnIdleWorkerPollingForAnHourHoldsOnePlaceInTheWaitList) {
  make(detection_and_lease(false, false));
  Wakeups a;
  const WorkerId wa = add_worker(&a);
  for (int poll = 0; poll < 3600; ++poll) {
    EXPECT_TRUE(fetch(wa, 1).empty());
    backend->wait_for_jobs(wa);
  }
  EXPECT_EQ(backend->wait_list_size(), 1u);
  enqueue();
  EXPECT_EQ(a.count, 1);
  EXPECT_EQ(backend->wait_list_size(), 0u);
}

TEST_F(BackendTest, QuietOrCancelledWaitersAreSkipped) {
  // A waits first but goes quiet; B waits, then cancels (its process died); C waits.
  // The job wakes C at once.
  make(detection_and_lease(false, false));
  Wakeups a, b, c;
  const WorkerId wa = add_worker(&a);
  const WorkerId wb = add_worker(&b);
  const WorkerId wc = add_worker(&c);
  backend->wait_for_jobs(wa);
  backend->wait_for_jobs(wb);
  backend->wait_for_jobs(wc);
  backend->heartbeat(wa, Directive::kQuiet, {});
  backend->cancel_wait(wb);
  enqueue();
  EXPECT_EQ(a.count, 0);
  EXPECT_EQ(b.count, 0);
  EXPECT_EQ(c.count, 1);
}

TEST_F(BackendTest, ALateFetchTakesOneJobEachUntilItReturns) {
  // A waits, then at 10 s stops fetching with three fetches still blocked, returning at
  // 10.5 s, 11 s and 11 s. B waits from 10 s, behind A. The job at 10.2 s goes to A's
  // fetch returning at 10.5 s (A is told, and takes its place again at the back); the one
  // at 10.3 s to B, which collects it and waits again, behind A; the one at 10.4 s to A's
  // next fetch. A's last fetch returns at 11 s unused: the job at 11 s goes to B.
  make(detection_and_lease(false, false));
  Wakeups a, b;
  const WorkerId wa = add_worker(&a);
  const WorkerId wb = add_worker(&b);
  backend->wait_for_jobs(wa);
  rt.run_until(10 * kSecond);
  backend->heartbeat(wa, Directive::kQuiet, {});
  const Time late[] = {10500 * kMillisecond, 11 * kSecond, 11 * kSecond};
  backend->cancel_wait(wa, late);
  backend->wait_for_jobs(wb);
  rt.run_until(10200 * kMillisecond);
  enqueue();
  EXPECT_EQ(a.count, 1);
  rt.run_until(10300 * kMillisecond);
  enqueue();
  EXPECT_EQ(a.count, 1);
  EXPECT_EQ(b.count, 1);
  EXPECT_EQ(fetch(wb, 5).size(), 1u);
  backend->wait_for_jobs(wb);
  rt.run_until(10400 * kMillisecond);
  enqueue();
  EXPECT_EQ(a.count, 2);
  EXPECT_EQ(b.count, 1);
  // A collects both, though it takes no jobs; each claim counts its attempt.
  const auto taken = fetch(wa, 5);
  ASSERT_EQ(taken.size(), 2u);
  EXPECT_EQ(taken[0].id, 0u);
  EXPECT_EQ(taken[1].id, 2u);
  EXPECT_EQ(taken[0].attempt, 1);
  rt.run_until(11 * kSecond);
  enqueue();
  EXPECT_EQ(a.count, 2);
  EXPECT_EQ(b.count, 2);
}

TEST_F(BackendTest, ReSentBlockingFetchesAreServedByWhenTheCurrentOneWasSent) {
  // Seed 5 of celery-rolling-restart on real Redis, where kombu sends its BRPOP again every
  // 1 s. Workers 1 and 0 wait from 5.72 s and 5.85 s, worker 2 from 12.31 s, so their
  // fetches are sent at x.72, x.85 and x.31 s. Worker 2 stops fetching at 17.5 s (its TERM)
  // with the fetch it sent at 17.31 s blocked until 18.31 s. The job at 17.9 s goes to that
  // late fetch, the oldest BRPOP (the real run lost the task there); by when they began to
  // wait, worker 1 would have had it. The one at 18.0 s goes to worker 1 (17.72 s before
  // 17.85 s), which collects it and waits again from 18.0 s; the one at 18.5 s to worker 0,
  // whose fetch was sent at 17.85 s, before worker 1's at 18.0 s.
  make(detection_and_lease(false, false));
  Wakeups w0, w1, w2;
  const WorkerId id0 = add_worker(&w0);
  const WorkerId id1 = add_worker(&w1);
  const WorkerId id2 = add_worker(&w2);
  rt.run_until(5720 * kMillisecond);
  backend->wait_for_jobs(id1, kSecond);
  rt.run_until(5850 * kMillisecond);
  backend->wait_for_jobs(id0, kSecond);
  rt.run_until(12310 * kMillisecond);
  backend->wait_for_jobs(id2, kSecond);
  rt.run_until(17500 * kMillisecond);
  backend->heartbeat(id2, Directive::kQuiet, {});
  const Time late[] = {18310 * kMillisecond};
  backend->cancel_wait(id2, late);
  rt.run_until(17900 * kMillisecond);
  enqueue();
  EXPECT_EQ(w2.count, 1);
  EXPECT_EQ(w1.count + w0.count, 0);
  rt.run_until(18 * kSecond);
  enqueue();
  EXPECT_EQ(w1.count, 1);
  EXPECT_EQ(w0.count, 0);
  EXPECT_EQ(fetch(id1, 1).size(), 1u);
  backend->wait_for_jobs(id1, kSecond);
  rt.run_until(18500 * kMillisecond);
  enqueue();
  EXPECT_EQ(w0.count, 1);
  EXPECT_EQ(w1.count, 1);
  EXPECT_EQ(w2.count, 1);
}

TEST_F(BackendTest, WaitsWithoutReSentFetchesKeepTheirPlacesBesideOnesWithThem) {
  // A waits from 1 s with no re-sent fetch; B from 2 s with a 1 s BRPOP, so at 5.5 s B's
  // current fetch was sent at 5 s and A has waited since 1 s: A first, then B.
  make(detection_and_lease(false, false));
  Wakeups a, b;
  const WorkerId wa = add_worker(&a);
  const WorkerId wb = add_worker(&b);
  rt.run_until(kSecond);
  backend->wait_for_jobs(wa);
  rt.run_until(2 * kSecond);
  backend->wait_for_jobs(wb, kSecond);
  rt.run_until(5500 * kMillisecond);
  enqueue();
  EXPECT_EQ(a.count, 1);
  EXPECT_EQ(b.count, 0);
  enqueue();
  EXPECT_EQ(b.count, 1);
}

TEST_F(BackendTest, AJobALateFetchTookAndTheWorkerKeptIsLostWithItsProcessWhateverTheMode) {
  // Reliable fetch with a lease: a job the stopped worker's late fetch took (at 1 s) and
  // kept is out of the lease's recovery (its 30 s lease passes at 31 s unseen) and lost when
  // the process ends, at 40 s.
  config.visibility_timeout = 30 * kSecond;
  make(detection_and_lease(false, true));
  Wakeups a;
  const WorkerId wa = add_worker(&a);
  backend->wait_for_jobs(wa);
  backend->heartbeat(wa, Directive::kQuiet, {});
  const Time late[] = {2 * kSecond};
  backend->cancel_wait(wa, late);
  rt.run_until(kSecond);
  enqueue();
  ASSERT_EQ(a.count, 1);
  const auto taken = fetch(wa, 1);
  ASSERT_EQ(taken.size(), 1u);
  backend->strand(wa, taken[0]);
  rt.run_until(35 * kSecond);
  EXPECT_EQ(state(taken[0]), JobState::kActive);
  rt.run_until(40 * kSecond);
  backend->deregister(wa);
  backend->process_ended(wa);
  EXPECT_EQ(state(taken[0]), std::nullopt);
  EXPECT_EQ(backend->unfinished(), 0u);
  expect_audit_ok();
  EXPECT_EQ(recorder.totals().lost, 1);
}

TEST_F(BackendTest, DeadOrDeregisteredWorkersAreNotWoken) {
  config.heartbeat_timeout = 30 * kSecond;
  make();
  Wakeups a, b, c;
  const WorkerId wa = add_worker(&a);  // registered at 0: dead at 30 s
  backend->wait_for_jobs(wa);
  const WorkerId wc = add_worker(&c);
  backend->wait_for_jobs(wc);
  backend->deregister(wc);
  rt.run_until(20 * kSecond);
  const WorkerId wb = add_worker(&b);  // registered at 20 s: alive until 50 s
  backend->wait_for_jobs(wb);
  rt.run_until(31 * kSecond);
  enqueue();
  EXPECT_EQ(a.count, 0);
  EXPECT_EQ(c.count, 0);
  EXPECT_EQ(b.count, 1);
}

TEST_F(BackendTest, AWaitingWorkerIsHandedTheJobAndAWorkerThatJustFinishedGetsNone) {
  // Dispatch::kLongestWaiting (Redis BRPOP). A has waited since 0 s; B runs a job and acks
  // it at 5 s, the instant job 1 arrives. Whichever comes first at 5 s, A gets job 1: pushed
  // first, it is claimed for A at once (B's fetch finds nothing); fetched first, B's fetch
  // finds nothing and B waits behind A.
  for (const bool push_first : {true, false}) {
    SCOPED_TRACE(push_first ? "push first" : "fetch first");
    make(detection_and_lease(false, false));
    Wakeups a, b;
    const WorkerId wa = add_worker(&a);
    const WorkerId wb = add_worker(&b);
    enqueue();
    const auto running = fetch(wb, 1);
    ASSERT_EQ(running.size(), 1u);
    backend->wait_for_jobs(wa);
    rt.run_until(5 * kSecond);
    complete_attempt(running[0], wb);
    ASSERT_TRUE(backend->ack(wb, running[0]));
    if (push_first) {
      enqueue();
      EXPECT_TRUE(fetch(wb, 1).empty());
    } else {
      EXPECT_TRUE(fetch(wb, 1).empty());
      backend->wait_for_jobs(wb);
      enqueue();
    }
    EXPECT_EQ(a.count, 1);
    EXPECT_EQ(b.count, 0);
    const auto got = fetch(wa, 1);  // A collects what it was handed
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].id, 1u);
    EXPECT_EQ(got[0].attempt, 1);
    complete_attempt(got[0], wa);
    EXPECT_TRUE(backend->ack(wa, got[0]));
    expect_audit_ok();
  }
}

TEST_F(BackendTest, AJobHandedToAWorkerThatGoesQuietBeforeFetchingGoesBackToTheFront) {
  // A is handed job 0 at 1 s, then goes quiet at the same instant (a TSTP) before it
  // fetched: job 0 goes back to the front of the queue, attempt given back, ahead of job 1;
  // B's fetch takes it as attempt 1, and nothing counts as a retry. The backend hears it
  // either way: the worker cancels its wait, or its heartbeat says quiet.
  for (const bool heartbeat : {false, true}) {
    SCOPED_TRACE(heartbeat ? "quiet heartbeat" : "wait cancelled");
    make(detection_and_lease(false, false));
    Wakeups a;
    const WorkerId wa = add_worker(&a);
    backend->wait_for_jobs(wa);
    rt.run_until(kSecond);
    enqueue();
    ASSERT_EQ(a.count, 1);
    EXPECT_TRUE(backend->has_jobs_for(wa));
    if (heartbeat) {
      backend->heartbeat(wa, Directive::kQuiet, {});
    } else {
      backend->cancel_wait(wa);
    }
    enqueue();
    const WorkerId wb = add_worker();
    const auto l = fetch(wb, 2);
    ASSERT_EQ(l.size(), 2u);
    EXPECT_EQ(l[0].id, 0u);
    EXPECT_EQ(l[0].attempt, 1);
    EXPECT_EQ(l[1].id, 1u);
    backend->heartbeat(wa, Directive::kQuiet, {});
    EXPECT_FALSE(backend->has_jobs_for(wa));
    EXPECT_TRUE(fetch(wa, 1).empty());
    for (const Lease& lease : l) {
      complete_attempt(lease, wb);
      EXPECT_TRUE(backend->ack(wb, lease));
    }
    expect_audit_ok();
    EXPECT_EQ(recorder.totals().shutdown_retries, 0);
  }
}

// Three workers wait; each job goes to one of them under `dispatch`, which is told, fetches
// it, starts it at once and waits again: how many of 300 jobs each got.
std::vector<int> share_of_300_jobs(Dispatch dispatch, std::uint64_t seed) {
  VirtualRuntime rt{seed};
  Recorder recorder{false};
  BackendMechanisms m = detection_and_lease(false, false);
  m.dispatch = dispatch;
  Backend backend(rt, BackendConfig{}, m, recorder);
  const int queue = backend.queue("default");
  const int queues[] = {queue};
  Wakeups w[3];
  WorkerId ids[3];
  for (int i = 0; i < 3; ++i) {
    ids[i] = backend.register_worker(queues, &w[i]);
    backend.wait_for_jobs(ids[i]);
  }
  std::vector<int> got(3, 0);
  std::vector<Lease> out;
  for (int job = 0; job < 300; ++job) {
    backend.enqueue(queue, JobSpec{kSecond, 0, true});
    for (int i = 0; i < 3; ++i) {
      if (w[i].count == got[static_cast<std::size_t>(i)]) continue;  // not told
      out.clear();
      backend.fetch(ids[i], 1, out);
      EXPECT_EQ(out.size(), 1u);
      ++got[static_cast<std::size_t>(i)];
      backend.wait_for_jobs(ids[i]);
    }
  }
  return got;
}

TEST(Dispatch, LongestWaitingServesTheWaitersInTurn) {
  EXPECT_EQ(share_of_300_jobs(Dispatch::kLongestWaiting, 1), (std::vector<int>{100, 100, 100}));
}

TEST(Dispatch, RandomWaiterDrawsTheWinnerFromTheSeed) {
  // Each job goes to one of three waiters with probability 1/3: 100 each on average, with
  // a standard deviation of sqrt(300 / 3 * 2 / 3) = 8.2 jobs, so 65..135 holds at over 4
  // standard deviations. The same seed gives the same shares, another seed other ones.
  const std::vector<int> first = share_of_300_jobs(Dispatch::kRandomWaiter, 1);
  EXPECT_EQ(first[0] + first[1] + first[2], 300);
  for (int n : first) {
    EXPECT_GE(n, 65);
    EXPECT_LE(n, 135);
  }
  EXPECT_NE(first, (std::vector<int>{100, 100, 100}));
  EXPECT_EQ(share_of_300_jobs(Dispatch::kRandomWaiter, 1), first);
  EXPECT_NE(share_of_300_jobs(Dispatch::kRandomWaiter, 2), first);
}

TEST_F(BackendTest, PollDispatchWakesNobody) {
  // pg-boss: a waiting worker is not told; it finds the job at its next poll.
  BackendMechanisms m = detection_and_lease(false, false);
  m.dispatch = Dispatch::kPoll;
  make(m);
  Wakeups a;
  const WorkerId wa = add_worker(&a);
  backend->wait_for_jobs(wa);
  EXPECT_EQ(backend->wait_list_size(), 0u);
  enqueue();
  EXPECT_EQ(a.count, 0);
  EXPECT_TRUE(backend->has_jobs_for(wa));
  fetch_and_complete(wa);
  expect_audit_ok();
}

// --- requeue at shutdown

TEST_F(BackendTest, RequeueToTheFrontGivesTheAttemptBackAndCountsAShutdownRetry) {
  make(detection_and_lease(false, true));
  enqueue();
  enqueue();
  enqueue();
  const WorkerId w = add_worker();
  const auto l = fetch(w, 1);  // job 0; jobs 1 and 2 wait
  ASSERT_EQ(l.size(), 1u);
  start_attempt(l[0]);
  rt.run_until(5 * kSecond);
  // Another worker cannot hand it back.
  EXPECT_FALSE(backend->requeue(add_worker(), l[0], true));
  EXPECT_EQ(recorder.totals().rejected_fails, 1);
  // The shutdown deadline at 5 s: the attempt ends interrupted, then the job goes back.
  end_attempt(l[0], w, Outcome::kInterrupted);
  EXPECT_TRUE(backend->requeue(w, l[0], true));
  EXPECT_EQ(state(l[0]), JobState::kAvailable);
  EXPECT_EQ(rt.pending(), 0u);  // no backoff, and its lease timer is gone
  // It runs next, ahead of jobs 1 and 2, with the same attempt number.
  const WorkerId w2 = add_worker();
  const auto again = fetch(w2, 1);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].id, l[0].id);
  EXPECT_EQ(again[0].attempt, 1);
  start_attempt(again[0]);
  EXPECT_EQ(recorder.totals().shutdown_retries, 1);
  EXPECT_EQ(recorder.orphan_recovery().count(), 1u);  // requeued at once: 0 s
  EXPECT_EQ(recorder.orphan_recovery().max(), 0.0);
  // The first claim's lease is stale although its attempt number matches.
  EXPECT_FALSE(backend->ack(w, l[0]));
  end_attempt(again[0], w2, Outcome::kCompleted);
  EXPECT_TRUE(backend->ack(w2, again[0]));
  fetch_and_complete(w2);
  fetch_and_complete(w2);
  expect_audit_ok();
  EXPECT_EQ(recorder.totals().completed, 3);
  EXPECT_EQ(recorder.totals().interrupted, 1);
}

TEST_F(BackendTest, RequeueToTheBackQueuesBehindTheOthers) {
  config.retry.max_attempts = 1;  // a requeue never uses one up
  make(detection_and_lease(false, false));
  enqueue();
  enqueue();
  const WorkerId w = add_worker();
  auto l = fetch(w, 1);
  ASSERT_EQ(l.size(), 1u);
  const Lease first = l[0];
  EXPECT_TRUE(backend->requeue(w, l[0], false));
  l = fetch(w, 2);
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[0].id, 1u);
  EXPECT_EQ(l[1].id, 0u);
  EXPECT_EQ(l[1].attempt, 1);
  // Same job, worker and attempt number, but another claim: the old lease is stale.
  EXPECT_FALSE(backend->ack(w, first));
  EXPECT_FALSE(backend->requeue(w, first, false));
  EXPECT_TRUE(backend->requeue(w, l[1], false));  // and again: still attempt 1
  l = fetch(w, 1);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].attempt, 1);
}

// --- singleton classes (pg-boss singletonKey)

TEST_F(BackendTest, ASingletonClassRefusesPushesWhileItsJobIsQueuedOrHeld) {
  // Class 0 is a singleton, class 1 is not. While job 0 (class 0) is queued, then held,
  // pushes of class 0 are refused: no job, no id used. Class 1 is not held back. Once job 0
  // is acked, the next push of class 0 is taken, as job 2.
  config.class_singleton = {true, false};
  make();
  const JobSpec singleton{kSecond, 0, true, 0}, plain{kSecond, 0, true, 1};
  EXPECT_EQ(backend->enqueue(queue, singleton), JobId{0});
  EXPECT_EQ(backend->enqueue(queue, singleton), std::nullopt);  // queued
  EXPECT_EQ(backend->enqueue(queue, plain), JobId{1});
  const WorkerId w = add_worker();
  const auto l = fetch(w, 1);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].id, 0u);
  EXPECT_EQ(backend->enqueue(queue, singleton), std::nullopt);  // active
  EXPECT_EQ(recorder.totals().pushes_refused, 2);
  complete_attempt(l[0], w);
  ASSERT_TRUE(backend->ack(w, l[0]));
  EXPECT_EQ(backend->enqueue(queue, singleton), JobId{2});  // released at the ack
  EXPECT_EQ(backend->unfinished(), 2u);
  expect_audit_ok();  // a refused push is no job: enqueued 2 = pending 2 + completed 1
  EXPECT_EQ(recorder.totals().enqueued, 3);
  EXPECT_EQ(recorder.totals().completed, 1);
  EXPECT_EQ(recorder.totals().pending, 2);
  EXPECT_EQ(recorder.totals().pushes_refused, 2);
}

TEST_F(BackendTest, ASingletonJobKeepsItsKeyWhileItWaitsForARetryAndFreesItWhenDiscarded) {
  // Two attempts, 1 s backoff. Job 0 FAILs at 0 s: scheduled until 1 s, then queued again,
  // holding its key throughout (pg-boss's retry state is < completed). Its second FAIL uses
  // up its attempts: discarded (pg-boss: failed), and the next push is taken.
  config.class_singleton = {true};
  config.retry = RetryPolicy{2, kSecond, 2.0, kMinute, false};
  make(detection_and_lease(false, false));
  ASSERT_EQ(enqueue(), JobId{0});
  const WorkerId w = add_worker();
  for (int attempt = 1; attempt <= 2; ++attempt) {
    const auto l = fetch(w, 1);
    ASSERT_EQ(l.size(), 1u);
    start_attempt(l[0]);
    end_attempt(l[0], w, Outcome::kFailed);
    ASSERT_TRUE(backend->fail(w, l[0], ErrorKind::kHandler, true, 0));
    if (attempt == 1) {
      EXPECT_EQ(state(l[0]), JobState::kScheduled);
      EXPECT_EQ(enqueue(), std::nullopt);  // waiting out the backoff
      rt.run_until(kSecond);
      EXPECT_EQ(state(l[0]), JobState::kAvailable);
      EXPECT_EQ(enqueue(), std::nullopt);  // queued for its retry
    }
  }
  EXPECT_EQ(enqueue(), JobId{1});
  expect_audit_ok();
  EXPECT_EQ(recorder.totals().enqueued, 2);
  EXPECT_EQ(recorder.totals().discarded, 1);
  EXPECT_EQ(recorder.totals().pending, 1);
  EXPECT_EQ(recorder.totals().pushes_refused, 2);
}

TEST_F(BackendTest, ASingletonJobLostWithItsProcessFreesItsKey) {
  // At-most-once fetch: the held job dies with its process at 5 s (lost); until then a
  // push is refused, after it one is taken.
  config.class_singleton = {true};
  BackendMechanisms m;
  m.fetch = FetchMode::kAtMostOnce;
  make(m);
  ASSERT_EQ(enqueue(), JobId{0});
  const WorkerId w = add_worker();
  const auto l = fetch(w, 1);
  ASSERT_EQ(l.size(), 1u);
  start_attempt(l[0]);
  EXPECT_EQ(enqueue(), std::nullopt);
  rt.run_until(5 * kSecond);  // SIGKILL
  end_attempt(l[0], w, Outcome::kKilled);
  backend->process_ended(w);
  EXPECT_EQ(enqueue(), JobId{1});
  expect_audit_ok();
  EXPECT_EQ(recorder.totals().lost, 1);
  EXPECT_EQ(recorder.totals().pushes_refused, 1);
}

// --- FetchMode::kAtMostOnce

BackendMechanisms at_most_once() {
  BackendMechanisms m;
  m.fetch = FetchMode::kAtMostOnce;
  return m;
}

TEST_F(BackendTest, AtMostOnceFetchLosesHeldJobsWhenTheProcessEnds) {
  make(at_most_once());
  enqueue();
  enqueue();
  const WorkerId w = add_worker();
  const auto l = fetch(w, 2);
  ASSERT_EQ(l.size(), 2u);
  for (const Lease& lease : l) start_attempt(lease);
  rt.run_until(5 * kSecond);  // SIGKILL
  for (const Lease& lease : l) end_attempt(lease, w, Outcome::kKilled);
  backend->process_ended(w);
  EXPECT_EQ(state(l[0]), std::nullopt);
  EXPECT_EQ(state(l[1]), std::nullopt);
  EXPECT_EQ(backend->unfinished(), 0u);
  EXPECT_FALSE(backend->ack(w, l[0]));
  expect_audit_ok();
  EXPECT_EQ(recorder.totals().enqueued, 2);
  EXPECT_EQ(recorder.totals().lost, 2);
  EXPECT_EQ(recorder.totals().pending, 0);
  EXPECT_EQ(recorder.totals().stuck_at_end, 0);
  EXPECT_EQ(recorder.totals().interrupted, 2);
  EXPECT_EQ(recorder.orphan_recovery().count(), 0u);
}

TEST_F(BackendTest, AKilledProcesssLingeringFetcherTakesAJobPushedInItsTeardown) {
  // At-most-once, a 5 ms teardown window. w1 and w2 wait (w1 first in line); w1's process
  // is killed at 10 s. A job pushed at 10.002 s goes to w1's lingering fetcher and is lost;
  // one pushed at 10.006 s, after the window, wakes w2.
  BackendMechanisms m;
  m.heartbeat_detection = false;
  m.lease.enabled = false;
  m.fetch = FetchMode::kAtMostOnce;
  m.teardown_window = 5 * kMillisecond;
  make(m);
  Wakeups first, second;
  const WorkerId w1 = add_worker(&first);
  const WorkerId w2 = add_worker(&second);
  backend->wait_for_jobs(w1);
  backend->wait_for_jobs(w2);
  rt.run_until(10 * kSecond);
  backend->process_ended(w1);
  backend->cancel_wait(w1);
  rt.run_until(10002 * kMillisecond);
  enqueue();
  EXPECT_EQ(first.count, 0);
  EXPECT_EQ(second.count, 0);
  EXPECT_EQ(backend->live_jobs(), 0u);
  rt.run_until(10006 * kMillisecond);
  enqueue();
  EXPECT_EQ(second.count, 1);
  fetch_and_complete(w2);
  expect_audit_ok();
  EXPECT_EQ(recorder.totals().lost, 1);
  EXPECT_EQ(recorder.totals().completed, 1);
}

TEST_F(BackendTest, AtMostOnceJobsAreOutOfReachOfTheStoreMechanisms) {
  // Dead-worker detection, lease expiry and a rescuer are all on, but the jobs are no
  // longer in the store: the worker is dead at 30 s, its lease ends at 10 s, a rescue would
  // come at 60 s; the job stays with the process until it ends.
  config.visibility_timeout = 10 * kSecond;
  config.heartbeat_timeout = 30 * kSecond;
  BackendMechanisms m = at_most_once();
  m.lease.check_interval = 5 * kSecond;
  m.rescuer.enabled = true;
  m.rescuer.after = kMinute;
  make(m);
  enqueue();
  const WorkerId w = add_worker();
  const auto l = fetch(w, 1);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(rt.pending(), 1u);  // the dead-worker deadline; no sweeps
  rt.run_until(10 * kMinute);
  EXPECT_EQ(state(l[0]), JobState::kActive);
  EXPECT_EQ(rt.pending(), 0u);
  backend->process_ended(w);
  EXPECT_EQ(state(l[0]), std::nullopt);
  expect_audit_ok();
  EXPECT_EQ(recorder.totals().lost, 1);
}

TEST_F(BackendTest, AtMostOnceDeregisterLeavesJobsWithTheProcessUnlessRequeued) {
  // Sidekiq's shutdown: the job it requeued survives, the one it did not is lost.
  make(at_most_once());
  enqueue();
  enqueue();
  const WorkerId w = add_worker();
  const auto l = fetch(w, 2);
  ASSERT_EQ(l.size(), 2u);
  EXPECT_TRUE(backend->requeue(w, l[0], true));
  backend->deregister(w);
  EXPECT_EQ(state(l[1]), JobState::kActive);  // still in the process's memory
  backend->process_ended(w);
  EXPECT_EQ(state(l[1]), std::nullopt);
  EXPECT_EQ(state(l[0]), JobState::kAvailable);
  const WorkerId w2 = add_worker();
  const auto again = fetch(w2, 2);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].id, l[0].id);
  EXPECT_EQ(again[0].attempt, 1);
  complete_attempt(again[0], w2);
  EXPECT_TRUE(backend->ack(w2, again[0]));
  expect_audit_ok();
  EXPECT_EQ(recorder.totals().completed, 1);
  EXPECT_EQ(recorder.totals().lost, 1);
}

// --- FetchMode::kPrivateList

TEST_F(BackendTest, PrivateListJobsComeBackOnlyAtAProcessStartAfterTheTtl) {
  // Sidekiq Pro super_fetch: cleanup at most once a minute, process TTL 60 s.
  BackendMechanisms m;
  m.heartbeat_detection = false;
  m.lease.enabled = false;
  m.fetch = FetchMode::kPrivateList;
  m.cleanup_interval = kMinute;
  m.process_ttl = 60 * kSecond;
  make(m);
  for (int i = 0; i < 4; ++i) enqueue();
  const WorkerId a = add_worker();  // the first start cleans up (nothing parked): at 0 s
  const auto la = fetch(a, 2);      // jobs 0 and 1
  const WorkerId b = add_worker();  // 0 s since the last cleanup: none
  const auto lb = fetch(b, 1);      // job 2
  ASSERT_EQ(la.size(), 2u);
  ASSERT_EQ(lb.size(), 1u);
  for (const Lease& l : la) start_attempt(l);
  start_attempt(lb[0]);
  rt.run_until(50 * kSecond);
  backend->heartbeat(b, Directive::kRunning, lb);
  rt.run_until(70 * kSecond);
  backend->heartbeat(a, Directive::kRunning, la);  // A's last heartbeat
  rt.run_until(75 * kSecond);                      // A is SIGKILLed
  for (const Lease& l : la) end_attempt(l, a, Outcome::kKilled);
  backend->process_ended(a);  // its jobs stay parked
  EXPECT_EQ(state(la[0]), JobState::kActive);
  rt.run_until(100 * kSecond);
  add_worker();  // cleanup at 100 s: A's heartbeat is only 30 s old, B's 50 s
  EXPECT_EQ(state(la[0]), JobState::kActive);
  EXPECT_EQ(state(la[1]), JobState::kActive);
  rt.run_until(105 * kSecond);
  backend->heartbeat(b, Directive::kRunning, lb);  // B's last heartbeat
  end_attempt(lb[0], b, Outcome::kKilled);         // B is SIGKILLed
  backend->process_ended(b);
  rt.run_until(135 * kSecond);
  add_worker();  // A's heartbeat is 65 s old, but the last cleanup was 35 s ago
  EXPECT_EQ(state(la[0]), JobState::kActive);
  rt.run_until(160 * kSecond);
  const WorkerId e = add_worker();  // cleanup: A (90 s) is recovered; B (55 s) is not
  EXPECT_EQ(state(la[0]), JobState::kAvailable);
  EXPECT_EQ(state(la[1]), JobState::kAvailable);
  EXPECT_EQ(state(lb[0]), JobState::kActive);
  EXPECT_EQ(recorder.orphan_recovery().count(), 2u);
  EXPECT_EQ(recorder.orphan_recovery().max(), 85.0);  // killed at 75 s, back at 160 s
  // At the end of the queue, behind job 3, with the same attempt number.
  auto again = fetch(e, 3);
  ASSERT_EQ(again.size(), 3u);
  EXPECT_EQ(again[0].id, 3u);
  for (const Lease& l : again) {
    EXPECT_EQ(l.attempt, 1);
    complete_attempt(l, e);
    EXPECT_TRUE(backend->ack(e, l));
  }
  EXPECT_EQ(recorder.totals().shutdown_retries, 2);
  rt.run_until(170 * kSecond);
  add_worker();  // B's heartbeat is 65 s old, but the last cleanup was 10 s ago
  EXPECT_EQ(state(lb[0]), JobState::kActive);
  rt.run_until(220 * kSecond);
  const WorkerId g = add_worker();  // cleanup: B is recovered
  EXPECT_EQ(state(lb[0]), JobState::kAvailable);
  again = fetch(g, 1);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].attempt, 1);
  complete_attempt(again[0], g);
  EXPECT_TRUE(backend->ack(g, again[0]));
  expect_audit_ok();
  EXPECT_EQ(recorder.totals().completed, 4);
  EXPECT_EQ(recorder.totals().shutdown_retries, 3);
  EXPECT_EQ(recorder.totals().duplicate_executions, 0);
}

TEST_F(BackendTest, PrivateListDeregisterPushesParkedJobsBack) {
  BackendMechanisms m;
  m.fetch = FetchMode::kPrivateList;
  config.retry.max_attempts = 1;
  make(m);
  enqueue();
  enqueue();
  const WorkerId a = add_worker();
  const auto l = fetch(a, 2);
  ASSERT_EQ(l.size(), 2u);
  backend->deregister(a);  // holds nothing now: no later cleanup finds anything of it
  backend->process_ended(a);
  EXPECT_EQ(state(l[0]), JobState::kAvailable);
  EXPECT_EQ(state(l[1]), JobState::kAvailable);
  const WorkerId b = add_worker();
  const auto again = fetch(b, 2);
  ASSERT_EQ(again.size(), 2u);
  for (const Lease& lease : again) EXPECT_EQ(lease.attempt, 1);
}

// --- LeaseExpiry variants

TEST_F(BackendTest, StalledJobGoesBackWithoutAnAttemptThenIsDiscardedAtTheSecondStall) {
  // A stall check on a clock from t=0 every 30 s, lock 30 s renewed by heartbeats,
  // maxStalledCount 1: the second stall sends the job back, to be failed when next fetched.
  config.visibility_timeout = 30 * kSecond;
  config.retry.max_attempts = 1;  // stalls use no attempt
  BackendMechanisms m;
  m.heartbeat_detection = false;
  m.lease.check_interval = 30 * kSecond;
  m.lease.fate = LeaseExpiry::Fate::kStall;
  m.lease.max_stalls = 1;
  make(m);
  enqueue();
  const WorkerId w1 = add_worker();
  const auto l = fetch(w1, 1);  // at 0: the lock runs to 30 s
  ASSERT_EQ(l.size(), 1u);
  start_attempt(l[0]);
  rt.run_until(15 * kSecond);
  backend->heartbeat(w1, Directive::kRunning, l);  // renewed to 45 s; then w1 dies
  end_attempt(l[0], w1, Outcome::kKilled);
  rt.run_until(20 * kSecond);
  enqueue();                       // job 1 waits
  rt.run_until(60 * kSecond - 1);  // the check at 30 s found the lock alive
  EXPECT_EQ(state(l[0]), JobState::kActive);
  rt.run_until(60 * kSecond);  // expired at 45 s, found at 60 s
  EXPECT_EQ(state(l[0]), JobState::kAvailable);
  EXPECT_FALSE(backend->ack(w1, l[0]));
  const WorkerId w2 = add_worker();
  const auto again = fetch(w2, 1);  // at the front, ahead of job 1
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].id, l[0].id);
  EXPECT_EQ(again[0].attempt, 1);
  start_attempt(again[0]);
  EXPECT_EQ(recorder.totals().shutdown_retries, 1);
  EXPECT_EQ(recorder.orphan_recovery().max(), 45.0);  // killed at 15 s, back at 60 s
  end_attempt(again[0], w2, Outcome::kKilled);        // w2 dies at once: lock ends at 90 s
  rt.run_until(90 * kSecond - 1);
  EXPECT_EQ(state(again[0]), JobState::kActive);
  rt.run_until(90 * kSecond);  // the second stall: back to wait, failed when next fetched
  EXPECT_EQ(state(again[0]), JobState::kAvailable);
  fetch_and_complete(w2);  // discards it on the way to job 1
  EXPECT_EQ(state(again[0]), std::nullopt);
  expect_audit_ok();
  EXPECT_EQ(recorder.totals().discarded, 1);
  EXPECT_EQ(recorder.totals().discarded_by_shutdown, 1);
  EXPECT_EQ(recorder.totals().completed, 1);
}

TEST_F(BackendTest, StallChecksRunInLiveWorkersAndTakeOnlyJobsSeenAtThePreviousOne) {
  // BullMQ: lock 30 s; each running worker tries a check at its start and every 30 s, the
  // check runs at most once per 30 s across workers, and takes back only an expired job it
  // marked at the previous check with no renewal since.
  config.visibility_timeout = 30 * kSecond;
  BackendMechanisms m;
  m.heartbeat_detection = false;
  m.lease.check_interval = 30 * kSecond;
  m.lease.checked_by_workers = true;
  m.lease.fate = LeaseExpiry::Fate::kStall;
  make(m);
  const WorkerId w1 = add_worker();  // its check at 0 finds nothing active
  enqueue();
  const auto l = fetch(w1, 1);
  ASSERT_EQ(l.size(), 1u);
  start_attempt(l[0]);
  rt.run_until(10 * kSecond);
  backend->heartbeat(w1, Directive::kRunning, l);  // lock to 40 s
  rt.run_until(12 * kSecond);
  end_attempt(l[0], w1, Outcome::kKilled);
  backend->process_ended(w1);  // its checker dies with it: nothing checks from here
  rt.run_until(100 * kSecond);
  EXPECT_EQ(state(l[0]), JobState::kActive);  // a clock from t=0 would have taken it at 60 s
  const WorkerId w2 = add_worker();           // checks at 100 s: the job is new to it
  rt.run_until(110 * kSecond);
  const WorkerId w3 = add_worker();  // tries at 110 s and 140 s: too soon after w2's, each
  rt.run_until(130 * kSecond - 1);
  EXPECT_EQ(state(l[0]), JobState::kActive);
  rt.run_until(130 * kSecond);  // w2's check: marked at 100 s, expired at 40 s
  EXPECT_EQ(state(l[0]), JobState::kAvailable);
  EXPECT_EQ(recorder.orphan_recovery().max(), 118.0);  // killed at 12 s
  // The job runs again on w3; then w2 and w3 go quiet (closing), so neither checks any
  // more, and the job w3 is killed with stays active.
  const auto again = fetch(w3, 1);
  ASSERT_EQ(again.size(), 1u);
  start_attempt(again[0]);
  backend->heartbeat(w2, Directive::kQuiet, {});
  backend->heartbeat(w3, Directive::kQuiet, again);
  end_attempt(again[0], w3, Outcome::kKilled);
  backend->process_ended(w3);
  rt.run_until(1000 * kSecond);
  EXPECT_EQ(state(again[0]), JobState::kActive);
}

TEST_F(BackendTest, ALapsedLockIsNotExtendedAgain) {
  // BullMQ: lock 3 s from the fetch at 0; the worker's heartbeat at 5 s comes after the
  // lock lapsed at 3 s, and extendLocks no longer finds its token: the lock stays lapsed,
  // and the run's ACK at 6 s is refused.
  // The stalled checks (w1's, every 4 s from 0) mark the job at 4 s and take it back at
  // 8 s, though w1 still runs it. Without the rule the 5 s heartbeat would have renewed it
  // to 8 s and the 8 s check would have left it.
  config.visibility_timeout = 3 * kSecond;
  BackendMechanisms m;
  m.heartbeat_detection = false;
  m.lease.check_interval = 4 * kSecond;
  m.lease.checked_by_workers = true;
  m.lease.fate = LeaseExpiry::Fate::kStall;
  m.lease.token_lapses_with_lease = true;
  make(m);
  const WorkerId w1 = add_worker();
  enqueue();
  const auto l = fetch(w1, 1);
  ASSERT_EQ(l.size(), 1u);
  start_attempt(l[0]);
  rt.run_until(5 * kSecond);
  backend->heartbeat(w1, Directive::kRunning, l);  // too late: not renewed
  rt.run_until(6 * kSecond);
  EXPECT_FALSE(backend->ack(w1, l[0]));  // moveToFinished: "Missing lock"
  EXPECT_EQ(recorder.totals().completions_rejected, 1);
  rt.run_until(8 * kSecond - 1);
  EXPECT_EQ(state(l[0]), JobState::kActive);
  rt.run_until(8 * kSecond);
  EXPECT_EQ(state(l[0]), JobState::kAvailable);
}

TEST_F(BackendTest, RestoresRunInEachWorkerAtItsStartThen90sThenEvery100s) {
  // kombu on Redis: visibility timeout 5 s from the delivery, not renewed; every worker
  // restores on its own (no key across workers), at its start, 90 s later, then every
  // 100 s, and takes back every expired message whoever holds it, seen before or not.
  config.visibility_timeout = 5 * kSecond;
  BackendMechanisms m;
  m.heartbeat_detection = false;
  m.lease.renewed_by_heartbeat = false;
  m.lease.check_interval = 100 * kSecond;
  m.lease.checked_by_workers = true;
  m.lease.one_check_across_workers = false;
  m.lease.seen_at_previous_check = false;
  m.lease.second_check_after = 90 * kSecond;
  m.lease.counts_attempt = false;  // Celery counts no redelivery
  make(m);
  const WorkerId w1 = add_worker();  // restores at 0, 90, 190 s
  enqueue();
  const auto l = fetch(w1, 1);
  ASSERT_EQ(l.size(), 1u);
  start_attempt(l[0]);
  rt.run_until(8 * kSecond);
  EXPECT_EQ(state(l[0]), JobState::kActive);  // expired at 5 s: nobody restored since
  add_worker();                               // its start restores it, though w1 still runs it
  EXPECT_EQ(state(l[0]), JobState::kAvailable);
  const auto again = fetch(w1, 1);  // delivered again at 8 s: expires at 13 s
  ASSERT_EQ(again.size(), 1u);
  start_attempt(again[0]);
  rt.run_until(90 * kSecond - 1);
  EXPECT_EQ(state(again[0]), JobState::kActive);
  rt.run_until(90 * kSecond);  // w1's second restore (w2's comes at 98 s)
  EXPECT_EQ(state(again[0]), JobState::kAvailable);
  const auto third = fetch(w1, 1);  // delivered at 90 s: expires at 95 s
  ASSERT_EQ(third.size(), 1u);
  start_attempt(third[0]);
  rt.run_until(98 * kSecond - 1);
  EXPECT_EQ(state(third[0]), JobState::kActive);
  rt.run_until(98 * kSecond);  // w2's, 90 s after its start and 8 s after w1's
  EXPECT_EQ(state(third[0]), JobState::kAvailable);
}

TEST_F(BackendTest, ExpiryFoundByAPeriodicCheckIsRetriedThroughTheRetryPolicy) {
  // pg-boss: expiry 15 min from the fetch, not renewed, checked every 60 s; a retry.
  config.visibility_timeout = 15 * kMinute;
  config.retry = RetryPolicy{2, 10 * kSecond, 2.0, 5 * kMinute, false};
  BackendMechanisms m;
  m.heartbeat_detection = false;
  m.lease.renewed_by_heartbeat = false;
  m.lease.check_interval = 60 * kSecond;
  m.lease.fate = LeaseExpiry::Fate::kRetry;
  make(m);
  enqueue();
  const WorkerId w = add_worker();
  rt.run_until(30 * kSecond);
  auto l = fetch(w, 1);  // expires at 930 s
  ASSERT_EQ(l.size(), 1u);
  rt.run_until(10 * kMinute);
  backend->heartbeat(w, Directive::kRunning, l);  // renews nothing
  rt.run_until(960 * kSecond - 1);                // the check at 900 s was too early
  EXPECT_EQ(state(l[0]), JobState::kActive);
  rt.run_until(960 * kSecond);  // found at 960 s: a retry after 10 s (attempt 1)
  EXPECT_EQ(state(l[0]), JobState::kScheduled);
  EXPECT_FALSE(backend->ack(w, l[0]));
  rt.run_until(970 * kSecond - 1);
  EXPECT_EQ(state(l[0]), JobState::kScheduled);
  rt.run_until(970 * kSecond);
  EXPECT_EQ(state(l[0]), JobState::kAvailable);
  l = fetch(w, 1);  // expires at 1870 s
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].attempt, 2);
  rt.run_until(1920 * kSecond - 1);  // checks at 1860 s (too early), then 1920 s
  EXPECT_EQ(state(l[0]), JobState::kActive);
  rt.run_until(1920 * kSecond);  // attempts used up
  EXPECT_EQ(state(l[0]), std::nullopt);
  EXPECT_EQ(rt.pending(), 0u);
  expect_audit_ok();
  EXPECT_EQ(recorder.totals().discarded_by_shutdown, 1);
}

TEST_F(BackendTest, ExpiryThatDoesNotCountAnAttemptLoopsForever) {
  // The OJS reference backends: a visibility deadline from the fetch; expiry requeues
  // without counting an attempt or checking max attempts.
  config.visibility_timeout = 10 * kSecond;
  config.retry.max_attempts = 2;
  BackendMechanisms m;
  m.heartbeat_detection = false;
  m.lease.renewed_by_heartbeat = false;
  m.lease.counts_attempt = false;
  make(m);
  enqueue();
  const WorkerId w = add_worker();
  for (int round = 0; round < 5; ++round) {
    const Time fetched = rt.now();
    const auto l = fetch(w, 1);
    ASSERT_EQ(l.size(), 1u);
    EXPECT_EQ(l[0].attempt, 1) << "round " << round;
    rt.run_until(fetched + 5 * kSecond);
    backend->heartbeat(w, Directive::kRunning, l);  // does not renew
    rt.run_until(fetched + 10 * kSecond - 1);
    EXPECT_EQ(state(l[0]), JobState::kActive);
    rt.run_until(fetched + 10 * kSecond);
    EXPECT_EQ(state(l[0]), JobState::kAvailable);
  }
  expect_audit_ok();
  EXPECT_EQ(recorder.totals().discarded, 0);
  EXPECT_EQ(recorder.totals().pending, 1);
}

TEST_F(BackendTest, AStaleAttemptEndingLateLeavesNoOrphanBehind) {
  // With the attempt given back, two claims share attempt number 1: the late end of the
  // first (its lease long expired) must not pass for the end of the second.
  config.visibility_timeout = 10 * kSecond;
  BackendMechanisms m;
  m.heartbeat_detection = false;
  m.lease.renewed_by_heartbeat = false;
  m.lease.counts_attempt = false;
  make(m);
  enqueue();
  const WorkerId w1 = add_worker();
  const auto first = fetch(w1, 1);
  ASSERT_EQ(first.size(), 1u);
  start_attempt(first[0]);
  rt.run_until(10 * kSecond);  // w1's lease expires while its attempt runs on
  const WorkerId w2 = add_worker();
  const auto second = fetch(w2, 1);
  ASSERT_EQ(second.size(), 1u);
  ASSERT_EQ(second[0].attempt, first[0].attempt);
  start_attempt(second[0]);
  rt.run_until(12 * kSecond);
  end_attempt(first[0], w1, Outcome::kKilled);  // w1 is killed: it held nothing any more
  rt.run_until(20 * kSecond);                   // w2's lease expires; w2 still runs it
  EXPECT_EQ(state(second[0]), JobState::kAvailable);
  EXPECT_EQ(recorder.orphan_recovery().count(), 0u);
}

// --- Completion fence

// Celery on Redis with acks_late: a 1 h visibility timeout from the fetch, no attempt counted
// on a restore.
BackendMechanisms visibility_timeout_only(CompletionFence fence) {
  BackendMechanisms m;
  m.heartbeat_detection = false;
  m.lease.renewed_by_heartbeat = false;
  m.lease.counts_attempt = false;
  m.ack_fence = m.fail_fence = fence;
  return m;
}

TEST_F(BackendTest, JobIdWhileHeldFenceTakesTheFirstRunToFinish) {
  // A 3.5 h task, a 1 h visibility timeout, a free worker for each restore: runs start at
  // 0, 1 h, 2 h and 3 h. The first run finishes at 3.5 h while the fourth holds the job: its
  // ack (by delivery tag) completes the job; the other three finish at 4.5, 5.5 and 6.5 h,
  // duplicates whose acks find nothing.
  config.visibility_timeout = kHour;
  make(visibility_timeout_only(CompletionFence::kJobIdWhileActive));
  enqueue(210 * kMinute);
  std::vector<std::pair<WorkerId, Lease>> runs;
  for (int hour = 0; hour < 4; ++hour) {
    rt.run_until(hour * kHour);
    if (!runs.empty()) {
      ASSERT_EQ(state(runs.back().second), JobState::kAvailable);
    }
    const WorkerId w = add_worker();
    const auto l = fetch(w, 1);
    ASSERT_EQ(l.size(), 1u) << "hour " << hour;
    start_attempt(l[0]);
    runs.emplace_back(w, l[0]);
  }
  for (int i = 0; i < 4; ++i) {
    rt.run_until(210 * kMinute + i * kHour);
    end_attempt(runs[i].second, runs[i].first, Outcome::kCompleted);
    EXPECT_EQ(backend->ack(runs[i].first, runs[i].second), i == 0) << "run " << i + 1;
    EXPECT_EQ(backend->live_jobs(), 0u) << "run " << i + 1;  // no fifth run
  }
  expect_audit_ok();
  const JobTotals& t = recorder.totals();
  EXPECT_EQ(t.completed, 1);
  EXPECT_EQ(t.duplicate_executions, 3);
  EXPECT_EQ(t.redeliveries, 3);  // each restore took the job from a live worker
  EXPECT_EQ(t.shutdown_retries, 0);
  EXPECT_EQ(t.completions_rejected, 3);
  EXPECT_DOUBLE_EQ(recorder.job_latency().quantile(0.5), 3.5 * 3600);
}

TEST_F(BackendTest, LeaseFenceRefusesEveryLateRunSoTheJobNeverCompletes) {
  // The same task under the OJS rule: each run's ack comes after its lease went to the next
  // run, so every ack is refused and a new run starts every hour, for as long as it lasts.
  config.visibility_timeout = kHour;
  make(visibility_timeout_only(CompletionFence::kLease));
  enqueue(210 * kMinute);
  std::vector<std::pair<WorkerId, Lease>> runs;
  for (int hour = 0; hour < 8; ++hour) {
    rt.run_until(hour * kHour);
    const WorkerId w = add_worker();
    const auto l = fetch(w, 1);
    ASSERT_EQ(l.size(), 1u) << "hour " << hour;
    start_attempt(l[0]);
    runs.emplace_back(w, l[0]);
    // Runs fetched 3.5 h ago finish now-ish: the one started at hour - 4 ended at hour - 0.5.
    if (hour >= 4) {
      auto& [worker, lease] = runs[static_cast<std::size_t>(hour - 4)];
      end_attempt(lease, worker, Outcome::kCompleted);
      EXPECT_FALSE(backend->ack(worker, lease)) << "run started at " << hour - 4 << " h";
    }
  }
  const JobTotals& t = recorder.totals();
  EXPECT_EQ(t.completions_rejected, 4);
  EXPECT_EQ(backend->live_jobs(), 1u);
}

// A rescuer as Oban's Lifeline (every minute, after 1 h, no backoff) under `fence`: a
// 90 min run is made available at the 1 h sweep though it still runs, then finishes at
// 1 h 30 m. Returns the backend's answer to its ack; `lease` is the run's.
class RescuedRunTest : public BackendTest {
 protected:
  bool ack_of_a_rescued_run(CompletionFence fence) {
    BackendMechanisms m;
    m.heartbeat_detection = false;
    m.lease.enabled = false;
    m.rescuer = Rescuer{true, kMinute, kHour, false};
    m.ack_fence = m.fail_fence = fence;
    make(m);
    enqueue(90 * kMinute);
    const WorkerId w = add_worker();
    const auto l = fetch(w, 1);
    EXPECT_EQ(l.size(), 1u);
    lease = l.at(0);
    start_attempt(lease);
    rt.run_until(kHour);
    EXPECT_EQ(state(lease), JobState::kAvailable);
    rt.run_until(90 * kMinute);
    end_attempt(lease, w, Outcome::kCompleted);
    return backend->ack(w, lease);
  }
  Lease lease;
};

TEST_F(RescuedRunTest, JobIdFenceCompletesAJobWaitingInTheQueue) {
  // Completion by id takes the job out of the queue: nothing runs again.
  EXPECT_TRUE(ack_of_a_rescued_run(CompletionFence::kJobId));
  EXPECT_EQ(backend->live_jobs(), 0u);
  EXPECT_FALSE(backend->has_jobs_for(add_worker()));
  expect_audit_ok();
  EXPECT_EQ(recorder.totals().completed, 1);
  EXPECT_EQ(recorder.totals().completions_rejected, 0);
  EXPECT_DOUBLE_EQ(recorder.job_latency().quantile(0.5), 90 * 60);
}

TEST_F(RescuedRunTest, JobIdWhileHeldFenceRefusesAJobWaitingInTheQueue) {
  // River's rule on the same run: the row is no longer `running`, so the completion is
  // refused and the job waits to run again; the body's work counts for nothing.
  EXPECT_FALSE(ack_of_a_rescued_run(CompletionFence::kJobIdWhileActive));
  EXPECT_EQ(state(lease), JobState::kAvailable);
  EXPECT_TRUE(backend->has_jobs_for(add_worker()));
  expect_audit_ok();
  EXPECT_EQ(recorder.totals().completed, 0);
  EXPECT_EQ(recorder.totals().pending, 1);
  EXPECT_EQ(recorder.totals().completions_rejected, 1);
  EXPECT_EQ(recorder.job_latency().count(), 0u);  // not a completed job
}

// --- Rescuer

BackendMechanisms rescuer_only(Duration interval, bool backoff) {
  BackendMechanisms m;
  m.heartbeat_detection = false;
  m.lease.enabled = false;
  m.rescuer.enabled = true;
  m.rescuer.interval = interval;
  m.rescuer.after = kHour;
  m.rescuer.backoff = backoff;
  return m;
}

TEST_F(BackendTest, RescuerWithBackoffRetriesJobsHeldTooLong) {
  // River: JobRescuer every 30 s, RescueStuckJobsAfter 1 h, rescued jobs are retryable.
  config.retry = RetryPolicy{2, 5 * kSecond, 2.0, 5 * kMinute, false};
  make(rescuer_only(30 * kSecond, true));
  enqueue();
  const WorkerId w = add_worker();
  rt.run_until(10 * kSecond);
  auto l = fetch(w, 1);  // its worker dies without a word
  ASSERT_EQ(l.size(), 1u);
  start_attempt(l[0]);
  end_attempt(l[0], w, Outcome::kKilled);
  rt.run_until(3630 * kSecond - 1);  // 3610 s > 3600 s at the sweep before
  EXPECT_EQ(state(l[0]), JobState::kActive);
  rt.run_until(3630 * kSecond);  // 3610 s <= 3630 s: rescued, retry in 5 s
  EXPECT_EQ(state(l[0]), JobState::kScheduled);
  rt.run_until(3635 * kSecond);
  EXPECT_EQ(state(l[0]), JobState::kAvailable);
  EXPECT_EQ(recorder.orphan_recovery().max(), 3625.0);  // backoff included
  l = fetch(w, 1);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].attempt, 2);
  // Held by a live worker all the same: rescued at the first sweep 1 h after 3635 s, and
  // discarded, its attempts used up.
  rt.run_until(7260 * kSecond - 1);
  EXPECT_EQ(state(l[0]), JobState::kActive);
  rt.run_until(7260 * kSecond);
  EXPECT_EQ(state(l[0]), std::nullopt);
  EXPECT_FALSE(backend->ack(w, l[0]));
  EXPECT_EQ(rt.pending(), 0u);
  expect_audit_ok();
  EXPECT_EQ(recorder.totals().discarded_by_shutdown, 1);
}

TEST_F(BackendTest, RescuerWithoutBackoffMakesJobsAvailableAtOnce) {
  // Oban's Lifeline: every minute, executing jobs attempted over an hour ago go back.
  make(rescuer_only(kMinute, false));
  enqueue();
  enqueue();
  const WorkerId w = add_worker();
  rt.run_until(10 * kSecond);
  const auto l = fetch(w, 1);
  ASSERT_EQ(l.size(), 1u);
  rt.run_until(3660 * kSecond - 1);
  EXPECT_EQ(state(l[0]), JobState::kActive);
  rt.run_until(3660 * kSecond);  // 3610 s <= 3660 s
  EXPECT_EQ(state(l[0]), JobState::kAvailable);
  const auto again = fetch(add_worker(), 2);
  ASSERT_EQ(again.size(), 2u);
  EXPECT_EQ(again[1].id, l[0].id);  // behind the job that was waiting
  EXPECT_EQ(again[1].attempt, 2);
}

TEST_F(BackendTest, SweepsRunOnlyWhileAJobIsActive) {
  config.visibility_timeout = kMinute;
  BackendMechanisms m;
  m.heartbeat_detection = false;
  m.lease.check_interval = 30 * kSecond;
  m.rescuer.enabled = true;
  make(m);
  enqueue();
  enqueue();
  EXPECT_EQ(rt.pending(), 0u);
  const WorkerId w = add_worker();
  rt.run_until(10 * kSecond);
  auto l = fetch(w, 1);
  EXPECT_EQ(rt.pending(), 2u);  // one lease check and one rescuer sweep
  EXPECT_EQ(rt.next_time(), 30 * kSecond);
  rt.run_until(65 * kSecond);  // sweeps at 30 s and 60 s; each arms the next
  EXPECT_EQ(rt.pending(), 2u);
  EXPECT_EQ(rt.next_time(), 90 * kSecond);
  complete_attempt(l[0], w);
  EXPECT_TRUE(backend->ack(w, l[0]));
  EXPECT_EQ(rt.pending(), 0u);  // nothing to sweep: an idle run ends
  EXPECT_FALSE(rt.step());
  // The next active job brings them back, at the same multiples of the interval.
  rt.run_until(100 * kSecond);
  l = fetch(w, 1);  // lease to 160 s
  EXPECT_EQ(rt.next_time(), 120 * kSecond);
  rt.run_until(180 * kSecond);  // found by the check at 180 s
  EXPECT_EQ(state(l[0]), JobState::kAvailable);
  EXPECT_EQ(rt.pending(), 0u);
}

}  // namespace
}  // namespace drainsim
