// drainsim real's reduction on hand-made adapter reports and inspections: which jobs end
// the run completed, pending, in flight or lost, and when the audit fails.
#include "run/real_replay.h"

#include <set>

#include <gtest/gtest.h>

#include "run/run_scenario.h"
#include "testing/test_attempts.h"

namespace drainsim {
namespace {

using test::attempt;

// Jobs 1..n pushed at 0.1 s, 0.2 s, ...; the run ended at 10 s.
struct Replayed {
  Recorder recorder{false};
  Inspection audited;  // the broker's view replay() gave the audit
  AuditResult audit;
};

void play(Replayed& r, int jobs, const AdapterReport& report, const Inspection& inspection,
          bool availability_reported = true, const std::set<JobId>& refused = {}) {
  std::vector<Pushed> pushed;
  for (int i = 1; i <= jobs; ++i) {
    pushed.push_back({static_cast<JobId>(i), from_seconds(0.1 * i), JobSpec{kSecond, 0, true}});
    pushed.back().refused = refused.contains(static_cast<JobId>(i));
  }
  // The audit takes the broker's view replay() gives, as the real engine does.
  r.audited =
      replay(r.recorder, pushed, {}, report, inspection, 10 * kSecond, availability_reported);
  r.audit = r.recorder.finish(InspectedBackend(r.audited));
}

// Orphan recovery, like for like with the model: to when the system made the job
// available again, not to its next start. Job 1 is killed at 2 s with its process; BullMQ's
// stalled check moves it back at 4.5 s (available) and it runs again from 5 s. Job 2 is
// interrupted at 3 s by Sidekiq's shutdown, which pushed it back at 2.8 s, before its body
// heard of it: available when that attempt ended, 3 s (recovery 0, as the model counts a
// requeue); it runs again from 3.2 s. Recoveries: 2.5 s and 0.
TEST(RealReplay, OrphanRecoveryEndsWhenTheSystemSaysTheJobIsAvailable) {
  AdapterReport report;
  report.attempts = {attempt(1, 1, 2, Outcome::kKilled), attempt(2, 1, 3, Outcome::kInterrupted),
                     attempt(2, 3.2, 4, Outcome::kCompleted),
                     attempt(1, 5, 6, Outcome::kCompleted)};
  report.available = {{from_seconds(2.8), 2}, {from_seconds(4.5), 1}};
  Replayed r;
  play(r, 2, report, Inspection{});
  EXPECT_TRUE(r.audit.ok) << (r.audit.errors.empty() ? "" : r.audit.errors[0]);
  const Percentiles& recovery = r.recorder.orphan_recovery();
  ASSERT_EQ(recovery.count(), 2u);
  EXPECT_DOUBLE_EQ(recovery.min(), 0);
  EXPECT_DOUBLE_EQ(recovery.max(), 2.5);
  EXPECT_TRUE(r.recorder.warnings().empty());

  // Without job 1's word it is counted to its next start (5 s: 3 s), and a warning says so.
  report.available = {{from_seconds(2.8), 2}};
  Replayed unsaid;
  play(unsaid, 2, report, Inspection{});
  EXPECT_DOUBLE_EQ(unsaid.recorder.orphan_recovery().max(), 3);
  ASSERT_EQ(unsaid.recorder.warnings().size(), 1u);
  EXPECT_EQ(unsaid.recorder.warnings()[0].code, "recovery_unreported");
  EXPECT_NE(unsaid.recorder.warnings()[0].message.find("jobs 1:"), std::string::npos);

  // A system that cannot say: orphan recovery is not measured at all.
  Replayed silent;
  play(silent, 2, report, Inspection{}, /*availability_reported=*/false);
  EXPECT_EQ(silent.recorder.orphan_recovery().count(), 0u);
  EXPECT_TRUE(silent.recorder.warnings().empty());
}

// A run whose completion the system refused (BullMQ's lapsed lock) and which its stalled
// check then moved back: the next run is a shutdown retry (caused by orphan recovery) as in
// the model, and its work is done twice. Job 1 runs 1-4 s, completed but refused; the check
// says available at 5 s; it runs again 5.5-8 s. Job 2 is moved back at 3 s while its first
// run (2-6 s) still runs, and runs again from 4 s: a redelivery, not a shutdown retry.
TEST(RealReplay, ARunAfterARecoveryIsAShutdownRetryEvenWhenTheRunBeforeItCompleted) {
  AdapterReport report;
  report.attempts = {attempt(1, 1, 4, Outcome::kCompleted), attempt(1, 5.5, 8, Outcome::kCompleted),
                     attempt(2, 2, 6, Outcome::kCompleted), attempt(2, 4, 7, Outcome::kCompleted)};
  report.available = {{from_seconds(5), 1}, {from_seconds(3), 2}};
  Replayed r;
  play(r, 2, report, Inspection{});
  EXPECT_TRUE(r.audit.ok) << (r.audit.errors.empty() ? "" : r.audit.errors[0]);
  EXPECT_EQ(r.recorder.totals().shutdown_retries, 1);
  EXPECT_EQ(r.recorder.totals().redeliveries, 1);
  EXPECT_EQ(r.recorder.totals().duplicate_executions, 2);
  EXPECT_EQ(r.recorder.orphan_recovery().count(), 0u);  // no run of theirs was cut short
}

TEST(RealReplay, AJobThatEndsWhileTheBrokerIsInspectedWasStillRunning) {
  // Job 1 ran 1-3 s. Job 2 started at 2 s and its end, completed, was reported at 10.3 s,
  // after the run ended at 10 s; the inspector (which takes a second or two) still saw it
  // active: it was in flight at the end, not completed while the broker held it.
  AdapterReport report;
  report.attempts = {attempt(1, 1, 3, Outcome::kCompleted),
                     attempt(2, 2, 10.3, Outcome::kCompleted)};
  Inspection inspection;
  inspection.jobs = {{2, "active"}};
  Replayed r;
  play(r, 2, report, inspection);
  EXPECT_TRUE(r.audit.ok) << (r.audit.errors.empty() ? "" : r.audit.errors[0]);
  EXPECT_EQ(r.recorder.totals().completed, 1);
  EXPECT_EQ(r.recorder.totals().pending, 1);
  EXPECT_EQ(r.recorder.in_flight(), 1);
}

TEST(RealReplay, AJobThatEndedBeforeTheBrokerWasLookedAtCompleted) {
  // The same late end, but the broker no longer holds job 2: it completed (at 10.3 s).
  AdapterReport report;
  report.attempts = {attempt(1, 1, 3, Outcome::kCompleted),
                     attempt(2, 2, 10.3, Outcome::kCompleted)};
  Replayed r;
  play(r, 2, report, Inspection{});
  EXPECT_TRUE(r.audit.ok);
  EXPECT_EQ(r.recorder.totals().completed, 2);
  EXPECT_EQ(r.recorder.in_flight(), 0);
}

TEST(RealReplay, AJobTheBrokerFailedForGoodIsDiscardedThoughRunsOfItCompleted) {
  // BullMQ with a lock shorter than its renewal: job 1 runs from 0.5 s to 3 s on process 1
  // and, moved back to wait by a stalled check, from 2 s to 4.5 s on process 2; both runs
  // complete, but their locks had lapsed, so BullMQ took neither ACK and failed the job at
  // its second stall. The broker's word stands: discarded by the shutdown's recoveries (a
  // job loss), not completed; the second completed run is still work done twice.
  AdapterReport report;
  AttemptRecord second = attempt(1, 2, 4.5, Outcome::kCompleted, 2);
  second.duplicate = true;
  report.attempts = {attempt(1, 0.5, 3, Outcome::kCompleted), second};
  Inspection inspection;
  inspection.jobs = {{1, "discarded"}};
  Replayed r;
  play(r, 1, report, inspection);
  EXPECT_TRUE(r.audit.ok);
  EXPECT_EQ(r.recorder.totals().completed, 0);
  EXPECT_EQ(r.recorder.totals().discarded, 1);
  EXPECT_EQ(r.recorder.totals().discarded_by_shutdown, 1);
  EXPECT_EQ(r.recorder.totals().duplicate_executions, 1);
}

TEST(RealReplay, ACompletionTheBrokerStillHoldsBeforeTheEndFailsTheAudit) {
  // Job 1 completed at 3 s, long before the end, yet the broker says a worker holds it.
  AdapterReport report;
  report.attempts = {attempt(1, 1, 3, Outcome::kCompleted)};
  Inspection inspection;
  inspection.jobs = {{1, "active"}};
  Replayed r;
  play(r, 1, report, inspection);
  EXPECT_FALSE(r.audit.ok);
  ASSERT_FALSE(r.audit.errors.empty());
  EXPECT_EQ(r.audit.errors[0], "job 1: completed at 3s but the broker still holds it (active)");
}

TEST(RealReplay, ACompletionJustBeforeTheEndIsFinalThoughTheBrokersListLags) {
  // Interrupted right after completions, as Ctrl+C does: the inspector asks at once, and
  // Sidekiq's list still names jobs 1 and 2 as running until the next heartbeat. Job 1
  // completed at 9.9 s and job 2 at 6 s (4 s before the end of 10 s): the adapter's word is
  // final, both completed, the audit balances and the broker's view for it no longer
  // holds them. (A job completed 7 s before the end and still held is no lag: see
  // ACompletionTheBrokerStillHoldsBeforeTheEndFailsTheAudit.)
  AdapterReport report;
  report.attempts = {attempt(1, 8, 9.9, Outcome::kCompleted),
                     attempt(2, 1, 6, Outcome::kCompleted)};
  Inspection inspection;
  inspection.jobs = {{1, "active"}, {2, "active"}};
  Replayed r;
  play(r, 2, report, inspection);
  EXPECT_TRUE(r.audit.ok) << (r.audit.errors.empty() ? "" : r.audit.errors[0]);
  EXPECT_EQ(r.recorder.totals().completed, 2);
  EXPECT_EQ(r.recorder.in_flight(), 0);
  EXPECT_EQ(r.audited.jobs, (std::map<JobId, std::string>{{1, "completed"}, {2, "completed"}}));
}

TEST(RealReplay, HeldUnstartedJobsArePendingAndNamedAndVanishedOnesLost) {
  // Job 1 was killed at 4 s and is gone from the broker (acknowledged early): lost. Jobs 2
  // and 3 never started, and the broker says a worker holds them (fetched ahead): pending,
  // named in a warning. Job 4 never started and the broker holds it no more: lost.
  AdapterReport report;
  report.attempts = {attempt(1, 1, 4, Outcome::kKilled)};
  Inspection inspection;
  inspection.jobs = {{2, "active"}, {3, "active"}};
  Replayed r;
  play(r, 4, report, inspection);
  EXPECT_TRUE(r.audit.ok);
  EXPECT_EQ(r.recorder.totals().lost, 2);
  EXPECT_EQ(r.recorder.totals().pending, 2);
  ASSERT_EQ(r.recorder.warnings().size(), 1u);
  EXPECT_EQ(r.recorder.warnings()[0].code, "prefetched_unstarted");
  EXPECT_EQ(r.recorder.warnings()[0].message,
            "jobs 2, 3: held by a worker at the end (the broker says active) though none of "
            "their attempts was running: fetched ahead (prefetched), not started");
}

TEST(RealReplay, AJobTheAdapterSaysWasFailedForGoodIsDiscardedWhereTheBrokerKeepsNoRecord) {
  // Celery without a result backend: job 1's pool child was killed at 4 s and Celery failed
  // the task (WorkerLostError), which only the adapter saw: discarded by the kill, not
  // lost. Job 2's process was killed too, and nobody said more: lost. Job 3, which the
  // adapter also named, is still held by the broker (a later run): the broker's word wins.
  AdapterReport report;
  report.attempts = {attempt(1, 1, 4, Outcome::kKilled), attempt(2, 1, 4, Outcome::kKilled),
                     attempt(3, 1, 4, Outcome::kKilled)};
  report.discarded = {1, 3};
  Inspection inspection;
  inspection.jobs = {{3, "available"}};
  Replayed r;
  play(r, 3, report, inspection);
  EXPECT_TRUE(r.audit.ok) << (r.audit.errors.empty() ? "" : r.audit.errors[0]);
  EXPECT_EQ(r.recorder.totals().discarded, 1);
  EXPECT_EQ(r.recorder.totals().discarded_by_shutdown, 1);
  EXPECT_EQ(r.recorder.totals().lost, 1);
  EXPECT_EQ(r.recorder.totals().pending, 1);
}

TEST(RealReplay, APushTheSystemRefusedIsNoJob) {
  // pg-boss refused job 2's push (its singleton key was taken): a refused push, not a job
  // enqueued, lost or pending. Jobs 1 and 3 completed.
  AdapterReport report;
  report.attempts = {attempt(1, 1, 2, Outcome::kCompleted), attempt(3, 4, 5, Outcome::kCompleted)};
  Replayed r;
  play(r, 3, report, Inspection{}, true, {2});
  EXPECT_TRUE(r.audit.ok) << (r.audit.errors.empty() ? "" : r.audit.errors[0]);
  EXPECT_EQ(r.recorder.totals().enqueued, 2);
  EXPECT_EQ(r.recorder.totals().completed, 2);
  EXPECT_EQ(r.recorder.totals().pushes_refused, 1);
  EXPECT_EQ(r.recorder.totals().lost, 0);
}

TEST(RealReplay, AJobRunningAtTheEndIsHeldByItsWorkerWhateverTheBrokersListSays) {
  // Job 1 started at 9.5 s on a process alive at the end; the broker's list lags (Sidekiq
  // lists a job at its process's next heartbeat) and does not name it: in flight, pending,
  // not lost. Job 2 never started and the broker holds it no more: lost.
  AdapterReport report;
  report.in_flight = {attempt(1, 9.5, 9.5, Outcome::kCompleted)};
  Replayed r;
  play(r, 2, report, Inspection{});
  EXPECT_TRUE(r.audit.ok) << (r.audit.errors.empty() ? "" : r.audit.errors[0]);
  EXPECT_EQ(r.recorder.totals().pending, 1);
  EXPECT_EQ(r.recorder.totals().lost, 1);
  EXPECT_EQ(r.recorder.in_flight(), 1);
}

TEST(RealReplay, WithoutTheBrokersWordUnsettledJobsStayPendingAndAreNamed) {
  // The run interrupted twice, the broker never asked. Job 1 completed at 3 s: settled by
  // its attempt. Job 2 started at 5 s and was still running; job 3 never started; job 4 was
  // killed at 6 s. Asked, an empty broker would make jobs 3 and 4 lost (as in
  // HeldUnstartedJobsArePendingAndNamedAndVanishedOnesLost); not asked, nothing says so:
  // they are pending, as their attempts left them, and named.
  AdapterReport report;
  report.attempts = {attempt(1, 1, 3, Outcome::kCompleted), attempt(4, 2, 6, Outcome::kKilled)};
  report.in_flight = {attempt(2, 5, 5, Outcome::kCompleted)};
  Inspection inspection;
  inspection.taken = false;
  Replayed r;
  play(r, 4, report, inspection);
  EXPECT_EQ(r.audited.jobs,
            (std::map<JobId, std::string>{{2, "active"}, {3, "available"}, {4, "active"}}));
  EXPECT_TRUE(r.audit.ok) << (r.audit.errors.empty() ? "" : r.audit.errors[0]);
  EXPECT_EQ(r.recorder.totals().completed, 1);
  EXPECT_EQ(r.recorder.totals().pending, 3);
  EXPECT_EQ(r.recorder.totals().lost, 0);
  EXPECT_EQ(r.recorder.in_flight(), 1);
  ASSERT_EQ(r.recorder.warnings().size(), 1u);
  EXPECT_EQ(r.recorder.warnings()[0].code, "broker_not_asked");
  EXPECT_EQ(r.recorder.warnings()[0].message,
            "jobs 2, 3, 4: not settled by their attempts, and the run ended (a second SIGINT or "
            "SIGTERM) before the broker was asked where they are: counted as pending, as their "
            "attempts left them");
}

TEST(RealReplay, WithoutTheBrokersWordTheWarningSaysWhyItWasNotAsked) {
  // A run that failed with its broker dead: job 1 never started, pending and named, with
  // the reason the run gave.
  Inspection inspection;
  inspection.taken = false;
  inspection.not_taken = "its broker failed";
  Replayed r;
  play(r, 1, AdapterReport{}, inspection);
  EXPECT_TRUE(r.audit.ok);
  EXPECT_EQ(r.recorder.totals().pending, 1);
  ASSERT_EQ(r.recorder.warnings().size(), 1u);
  EXPECT_EQ(r.recorder.warnings()[0].message,
            "jobs 1: not settled by their attempts, and the run ended (its broker failed) before "
            "the broker was asked where they are: counted as pending, as their attempts left "
            "them");
}

TEST(RealReplay, AnInspectionThatIsNotTheContractNamesWhatItExpected) {
  EXPECT_EQ(parse_inspection(R"({"versions": {"x": "1"}, "jobs": {"7": "scheduled"}})", "demo")
                .jobs.at(7),
            "scheduled");
  try {
    parse_inspection(R"({"jobs": {"7": "running"}})", "demo");
    FAIL() << "accepted a state that is not one";
  } catch (const RunError& e) {
    EXPECT_NE(std::string(e.what()).find("the demo inspector's output: jobs.7: expected"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace drainsim
