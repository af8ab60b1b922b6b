#include "io/adapter_events.h"

#include <sstream>
#include <stdexcept>

#include <gtest/gtest.h>

#include "io/json_reader.h"

namespace drainsim {
namespace {

// A Sidekiq-like run worked by hand, times in unix seconds from 1000. pod-0 (pid 11) runs
// jobs 0 and 1; TERM at 3 s interrupts job 1, which pod-0 pushes back to the queue at
// 3.25 s (available) and pod-1 (pid 12) runs again (attempt 1 again: a requeue counts no
// attempt) and completes at 10.1 s. pid 12 also runs job 2
// (fails) and job 0 again (completes: a duplicate), and still runs job 4 at the end.
// pod-2 (pid 13) is SIGKILLed at 7 s under job 3's second attempt.
constexpr const char* kEvents = R"({"t":1000.5,"pid":11,"worker":"pod-0","event":"ready"}
{"t":1001.0,"pid":11,"worker":"pod-0","event":"start","job":0,"attempt":1}
{"t":1001.0,"pid":11,"worker":"pod-0","event":"start","job":1,"attempt":1}
{"t":1001.2,"pid":11,"worker":"pod-0","event":"end","job":0,"attempt":1,"outcome":"completed"}
{"t":1003.0,"pid":11,"worker":"pod-0","event":"quiet"}
{"t":1003.0,"pid":11,"worker":"pod-0","event":"shutdown"}
{"t":1003.25,"pid":11,"worker":"pod-0","event":"available","job":1}
{"t":1003.5,"pid":11,"worker":"pod-0","event":"end","job":1,"attempt":1,"outcome":"interrupted"}
{"t":1004.0,"pid":12,"worker":"pod-1","event":"ready"}
{"t":1004.1,"pid":12,"worker":"pod-1","event":"start","job":1,"attempt":1}
{"t":1004.1,"pid":12,"worker":"pod-1","event":"start","job":2,"attempt":1}
{"t":1004.6,"pid":12,"worker":"pod-1","event":"end","job":2,"attempt":1,"outcome":"failed"}
{"t":1005.0,"pid":12,"worker":"pod-1","event":"start","job":0,"attempt":1}
{"t":1005.2,"pid":12,"worker":"pod-1","event":"end","job":0,"attempt":1,"outcome":"completed"}
{"t":1006.0,"pid":13,"worker":"pod-2","event":"start","job":3,"attempt":2}
{"t":1010.1,"pid":12,"worker":"pod-1","event":"end","job":1,"attempt":1,"outcome":"completed"}
{"t":1011.0,"pid":12,"worker":"pod-1","event":"start","job":4,"attempt":1}
)";

AdapterReport read(const std::string& text) {
  std::istringstream in(text);
  return read_adapter_events(in, "events.jsonl", 1000.0, {{13, {1007.0, true}}});
}

std::string error_of(const std::string& text) {
  try {
    read(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(AdapterEvents, AttemptsAreReducedAsTheRecorderKeepsThem) {
  const AdapterReport r = read(kEvents);
  struct Want {
    JobId job;
    int attempt, pod;
    Time start, end;
    Outcome outcome;
    bool duplicate;
  };
  const std::vector<Want> want = {
      {0, 1, 0, 1000 * kMillisecond, 1200 * kMillisecond, Outcome::kCompleted, false},
      {1, 1, 0, 1000 * kMillisecond, 3500 * kMillisecond, Outcome::kInterrupted, false},
      {2, 1, 1, 4100 * kMillisecond, 4600 * kMillisecond, Outcome::kFailed, false},
      {0, 1, 1, 5000 * kMillisecond, 5200 * kMillisecond, Outcome::kCompleted, true},
      {3, 2, 2, 6000 * kMillisecond, 7000 * kMillisecond, Outcome::kKilled, false},
      {1, 1, 1, 4100 * kMillisecond, 10100 * kMillisecond, Outcome::kCompleted, false},
  };
  ASSERT_EQ(r.attempts.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(i);
    const AttemptRecord& a = r.attempts[i];
    EXPECT_EQ(a.job, want[i].job);
    EXPECT_EQ(a.attempt, want[i].attempt);
    EXPECT_EQ(a.pod, want[i].pod);
    EXPECT_EQ(a.start, want[i].start);
    EXPECT_EQ(a.end, want[i].end);
    EXPECT_EQ(a.outcome, want[i].outcome);
    EXPECT_EQ(a.duplicate, want[i].duplicate);
    EXPECT_EQ(a.slot, -1);
  }
  EXPECT_EQ(r.attempts[0].worker, 11u);
  ASSERT_EQ(r.in_flight.size(), 1u);
  EXPECT_EQ(r.in_flight[0].job, 4u);
  EXPECT_EQ(r.in_flight[0].start, 11 * kSecond);
  ASSERT_EQ(r.lifecycle.size(), 4u);
  EXPECT_EQ(r.lifecycle[1].event, "quiet");
  EXPECT_EQ(r.lifecycle[1].at, 3 * kSecond);
  EXPECT_EQ(r.lifecycle[3].pod, 1);
  ASSERT_EQ(r.available.size(), 1u);
  EXPECT_EQ(r.available[0].job, 1u);
  EXPECT_EQ(r.available[0].at, 3250 * kMillisecond);
}

TEST(AdapterEvents, AProcessThatExitedAbandonsItsOpenAttempts) {
  std::istringstream in(
      R"({"t":1001,"pid":5,"worker":"pod-0","event":"start","job":7,"attempt":1})");
  const AdapterReport r = read_adapter_events(in, "e", 1000.0, {{5, {1002.5, false}}});
  ASSERT_EQ(r.attempts.size(), 1u);
  EXPECT_EQ(r.attempts[0].outcome, Outcome::kAbandoned);
  EXPECT_EQ(r.attempts[0].end, 2500 * kMillisecond);
}

TEST(AdapterEvents, TwoRunsOfOneAttemptInOneWorkerAreToldApartByTheirRun) {
  // Celery on Redis: pod-0 (pid 5) runs job 7 in pool child 6 (run 6) from 1 s; its
  // message, restored at 8 s, is fetched by pod-0 again and runs in child 9, attempt 1 again
  // (a restore counts no attempt). Both complete, run 6 first at 21 s: run 9, at 28 s, is
  // the duplicate.
  std::istringstream in(
      R"({"t":1001,"pid":5,"worker":"pod-0","event":"start","job":7,"attempt":1,"run":6}
{"t":1008,"pid":5,"worker":"pod-0","event":"start","job":7,"attempt":1,"run":9}
{"t":1021,"pid":5,"worker":"pod-0","event":"end","job":7,"attempt":1,"run":6,"outcome":"completed"}
{"t":1028,"pid":5,"worker":"pod-0","event":"end","job":7,"attempt":1,"run":9,"outcome":"completed"}
)");
  const AdapterReport r = read_adapter_events(in, "e", 1000.0, {});
  ASSERT_EQ(r.attempts.size(), 2u);
  EXPECT_EQ(r.attempts[0].start, 1 * kSecond);
  EXPECT_EQ(r.attempts[0].end, 21 * kSecond);
  EXPECT_FALSE(r.attempts[0].duplicate);
  EXPECT_EQ(r.attempts[1].start, 8 * kSecond);
  EXPECT_EQ(r.attempts[1].end, 28 * kSecond);
  EXPECT_TRUE(r.attempts[1].duplicate);
  EXPECT_EQ(error_of(R"({"t":1,"pid":1,"worker":"pod-0","event":"start","job":3,"attempt":1,"run":2}
{"t":1,"pid":1,"worker":"pod-0","event":"start","job":3,"attempt":1,"run":2})"),
            "events.jsonl: line 2: job 3 attempt 1 started twice in process 1 (run 2)");
}

TEST(AdapterEvents, BadLinesAreNamedWithTheirNumber) {
  EXPECT_EQ(error_of("{\"t\":1,\"pid\":1,\"worker\":\"pod-0\",\"event\":\"ready\"}\nnot json\n"),
            "events.jsonl: line 2: expected one JSON object");
  EXPECT_EQ(
      error_of(
          R"({"t":1,"pid":1,"worker":"pod-0","event":"end","job":3,"attempt":1,"outcome":"completed"})"),
      "events.jsonl: line 1: job 3 attempt 1 ends in process 1 without a start");
  EXPECT_EQ(error_of(R"({"t":1,"pid":1,"worker":"web-1","event":"ready"})"),
            "events.jsonl: line 1: \"worker\": expected \"pod-N\", got \"web-1\"");
  EXPECT_EQ(error_of(R"({"t":"soon","pid":1,"worker":"pod-0","event":"ready"})"),
            "events.jsonl: line 1: \"t\": expected a number");
  EXPECT_EQ(error_of(R"({"t":1,"pid":1,"worker":"pod-0","event":"nap"})"),
            "events.jsonl: line 1: \"event\": expected ready, quiet, shutdown, start, end, "
            "available or discarded, got \"nap\"");
  EXPECT_EQ(error_of(R"({"t":1,"pid":1,"worker":"pod-0","event":"available"})"),
            "events.jsonl: line 1: \"job\": expected a number");
  EXPECT_EQ(error_of(R"({"t":1,"pid":1,"worker":"pod-0","event":"discarded","job":"x"})"),
            "events.jsonl: line 1: \"job\": expected a number");
  EXPECT_EQ(
      error_of(
          R"({"t":1,"pid":1,"worker":"pod-0","event":"start","job":3,"attempt":1,"child":"x"})"),
      "events.jsonl: line 1: \"child\": expected a number");
}

TEST(AdapterEvents, AnAttemptWhosePoolChildWasKilledEndsThenThoughItsWorkerLivesOn) {
  // Celery's prefork pool: pod-0 (pid 5) runs job 7 in child 6 and job 8 in child 9 from
  // 1 s. Child 6 is SIGKILLed at 4.5 s (the OOM killer): job 7's attempt is killed then;
  // Celery fails the task for good (WorkerLostError) and the adapter says so at 5 s. Job 8
  // still runs at the end, in its live child of a live worker.
  std::istringstream in(
      R"({"t":1001,"pid":5,"worker":"pod-0","event":"start","job":7,"attempt":1,"run":6,"child":6}
{"t":1001,"pid":5,"worker":"pod-0","event":"start","job":8,"attempt":1,"run":9,"child":9}
{"t":1005,"pid":5,"worker":"pod-0","event":"discarded","job":7}
)");
  const AdapterReport r = read_adapter_events(in, "e", 1000.0, {{6, {1004.5, true}}});
  ASSERT_EQ(r.attempts.size(), 1u);
  EXPECT_EQ(r.attempts[0].job, 7u);
  EXPECT_EQ(r.attempts[0].worker, 5u);
  EXPECT_EQ(r.attempts[0].start, 1 * kSecond);
  EXPECT_EQ(r.attempts[0].end, 4500 * kMillisecond);
  EXPECT_EQ(r.attempts[0].outcome, Outcome::kKilled);
  ASSERT_EQ(r.in_flight.size(), 1u);
  EXPECT_EQ(r.in_flight[0].job, 8u);
  EXPECT_EQ(r.discarded, std::set<JobId>{7});
}

}  // namespace
}  // namespace drainsim
