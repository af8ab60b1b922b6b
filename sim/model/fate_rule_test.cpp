// The per-job rule check, worked by hand: a pod deleted at 10 s (TERM then), the worker's
// grace 8 s (its deadline at 18 s), the platform's SIGKILL at 10 + 15 = 25 s.
#include "model/fate_rule.h"

#include <gtest/gtest.h>

#include "testing/test_attempts.h"

namespace drainsim {
namespace {

Scenario sidekiq_like(Duration grace) {
  Scenario s;
  s.worker.grace_period = grace;
  s.worker.shutdown.at_deadline = ShutdownBehaviour::AtDeadline::kRequeue;
  s.platform.termination_grace_period = 15 * kSecond;
  return s;
}

using test::attempt;

TEST(FateRule, EachRunningJobIsPredictedFromItsRemainingWork) {
  const std::vector<PodRecord> pods = {{0, 0, 0, 0, 0, from_seconds(10), from_seconds(25), {0}}};
  ProcessRecord p;
  p.pod = 0;
  p.worker = 7;
  p.termination = from_seconds(10);
  p.ended = from_seconds(25);
  p.exit = ExitKind::kKilledAtDeadline;
  // Job durations: 0: 10 s, 1: 20 s, 2: 6 s, 3: 3 s (done before the TERM).
  const std::map<JobId, Duration> work = {
      {0, 10 * kSecond}, {1, 20 * kSecond}, {2, 6 * kSecond}, {3, 3 * kSecond}};
  const std::vector<AttemptRecord> attempts = {
      attempt(0, 5, 15, Outcome::kCompleted),      // 5 s left: done at 15 s, before 18 s
      attempt(1, 9, 17.5, Outcome::kInterrupted),  // 19 s left: at the deadline, requeued
      attempt(2, 9.5, 15.5, Outcome::kKilled),     // 5.5 s left: predicted completed
      attempt(3, 1, 4, Outcome::kCompleted),       // over before the TERM: not checked
  };
  const auto fates = check_fates(sidekiq_like(8 * kSecond), pods, {p}, attempts,
                                 [&](JobId j) { return work.at(j); });
  ASSERT_EQ(fates.size(), 3u);
  EXPECT_EQ(fates[0].predicted, "completed");
  EXPECT_EQ(fates[0].remaining, 5 * kSecond);
  EXPECT_EQ(fates[1].predicted, "interrupted");
  EXPECT_EQ(fates[1].actual, "interrupted");
  EXPECT_EQ(fates[2].predicted, "completed");
  EXPECT_EQ(fates[2].actual, "killed");  // the mismatch a report lists
  // A grace beyond the kill: the 19 s job is killed at 25 s.
  const auto late = check_fates(sidekiq_like(30 * kSecond), pods, {p}, attempts,
                                [&](JobId j) { return work.at(j); });
  EXPECT_EQ(late[1].predicted, "killed");
}

TEST(FateRule, ARunLetGoAtItsLeasesExpiryEndsByItselfOrWithItsProcess) {
  // pg-boss: the lease (expireIn) 6 s from the start, a 30 s stop() timeout (deadline at
  // 40 s). The pod is deleted at 10 s and its process exits by itself at 14 s, once its
  // slots are free. Job 0 (started at 5 s, 12 s long) was let go at 11 s and ends at 17 s:
  // after its process, so it dies with it (abandoned). Job 1 (started at 3 s, 10 s long)
  // was let go at 9 s and ends at 13 s: completed. Job 2 (started at 9 s, 4 s long) ends
  // at 13 s, before its lease's expiry at 15 s: completed as any other.
  Scenario s;
  s.worker.grace_period = 30 * kSecond;
  s.worker.shutdown.at_deadline = ShutdownBehaviour::AtDeadline::kLeave;
  s.worker.shutdown.fails_at_lease_expiry = true;
  s.backend.visibility_timeout = 6 * kSecond;
  s.platform.termination_grace_period = 60 * kSecond;
  const std::vector<PodRecord> pods = {{0, 0, 0, 0, 0, from_seconds(10), from_seconds(14), {0}}};
  ProcessRecord p;
  p.pod = 0;
  p.worker = 7;
  p.termination = from_seconds(10);
  p.ended = from_seconds(14);
  p.exit = ExitKind::kClean;
  const std::map<JobId, Duration> work = {{0, 12 * kSecond}, {1, 10 * kSecond}, {2, 4 * kSecond}};
  const std::vector<AttemptRecord> attempts = {
      attempt(0, 5, 14, Outcome::kAbandoned),
      attempt(1, 3, 13, Outcome::kCompleted),
      attempt(2, 9, 13, Outcome::kCompleted),
  };
  const auto fates = check_fates(s, pods, {p}, attempts, [&](JobId j) { return work.at(j); });
  ASSERT_EQ(fates.size(), 3u);
  EXPECT_EQ(fates[0].predicted, "abandoned");
  EXPECT_EQ(fates[1].predicted, "completed");
  EXPECT_EQ(fates[2].predicted, "completed");
  // Without the behaviour the rule waits for job 0 at the deadline: it predicts completed.
  s.worker.shutdown.fails_at_lease_expiry = false;
  EXPECT_EQ(check_fates(s, pods, {p}, attempts, [&](JobId j) { return work.at(j); })[0].predicted,
            "completed");
}

TEST(FateRule, AnOomKillKillsEveryJobStillRunning) {
  ProcessRecord p;
  p.pod = 0;
  p.worker = 7;
  p.ended = from_seconds(12);
  p.exit = ExitKind::kOomKilled;
  const std::vector<AttemptRecord> attempts = {attempt(0, 10, 12, Outcome::kKilled)};
  const auto fates =
      check_fates(sidekiq_like(8 * kSecond), {}, {p}, attempts, [](JobId) { return 60 * kSecond; });
  ASSERT_EQ(fates.size(), 1u);
  EXPECT_EQ(fates[0].predicted, "killed");
  EXPECT_EQ(fates[0].remaining, 58 * kSecond);
}

}  // namespace
}  // namespace drainsim
