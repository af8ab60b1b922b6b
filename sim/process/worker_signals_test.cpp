// drainsim-worker as a real process: the process engine starts it against the backend
// and the scenario's `signal` events reach it through kill(2). One pod of concurrency 4,
// time scale 50 (a simulated second is 20 ms); every number below is worked out by hand
// from the scenario, with a tolerance of up to 2 poll intervals (2 s) for real latency.
// The measured inputs are when the worker came up (its process start, and its first
// fetch r0): a real process takes a while to start (longer under ThreadSanitizer), and
// its heartbeats (every 5 s) count from its registration, in between.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/scenario_reader.h"
#include "run/run_scenario.h"
#include "testing/sanitizers.h"
#include "testing/test_scenarios.h"

namespace drainsim {
namespace {

using nlohmann::json;
using test::one_pod;

constexpr double kSlack = 2.0;  // simulated seconds: 2 poll intervals
// A simulated second is 20 ms of real time, 100 ms under ThreadSanitizer or
// AddressSanitizer, which slow drainsim and drainsim-worker several times over (a clean
// exit is six HTTP round trips). Measured on the drain below, from the jobs' end at r0 +
// 20 s to the process's end: 2-5 ms in the normal build, 15 ms under AddressSanitizer on
// an idle machine and 22-26 ms with both cores busy; once 41 ms under `ctest -j2`, past
// the 2 s (40 ms) of slack at scale 50.
constexpr double kScale = test::kThreadSanitizer || test::kAddressSanitizer ? 10 : 50;

struct Attempt {
  std::uint64_t job;
  int attempt;
  double start, end;
  std::string outcome;
};

RunOutput run_process(const std::string& text) {
  RunOptions options;
  options.timeline = true;
  options.engine = Engine::kProcess;
  options.paced.time_scale = kScale;
  RunOutput out = run_scenario(parse_scenario(text, "case"), options);
  EXPECT_TRUE(out.summary.audit.ok)
      << (out.summary.audit.errors.empty() ? "" : out.summary.audit.errors.front());
  return out;
}

std::vector<Attempt> attempts(const RunOutput& r, int attempt) {
  std::vector<Attempt> out;
  for (const json& a : r.results["timeline"]["attempts"]["rows"]) {
    if (a[1].get<int>() != attempt) continue;
    out.push_back({a[0].get<std::uint64_t>(), a[1].get<int>(), a[5].get<double>(),
                   a[6].get<double>(), a[7].get<std::string>()});
  }
  return out;
}

const json& first_process(const RunOutput& r) { return r.results["pods"][0]["processes"][0]; }

// The first time the pod showed `state`, or -1.
double state_at(const RunOutput& r, const std::string& state, double after = 0) {
  for (const json& row : r.results["timeline"]["pod_states"]["rows"]) {
    if (row[2] == state && row[0].get<double>() >= after) return row[0].get<double>();
  }
  return -1;
}

// The worker's last heartbeat before `t`: the periodic ones at `from` + 5k, or one sent
// at `extra` (going quiet or draining), whichever is later. The true one is bounded by
// the earliest the worker can have registered and the heartbeats that can have gone out
// before a signal took effect (up to kSlack late).
double last_heartbeat(double from, double t, double extra) {
  double last = from;
  while (last + 5.0 < t) last += 5.0;
  return std::max(last, extra);
}

std::string signal_event(const std::string& at, const std::string& signal) {
  return R"({"at": ")" + at + R"(", "kind": "signal", "pod": "pod-0", "signal": ")" + signal +
         R"("})";
}

TEST(DrainsimWorker, TermMakesItDrainFinishItsJobsAndExitClean) {
  // Four 20 s jobs start when the worker comes up, at r0. TERM at 10 s: the worker stops
  // fetching and drains; the jobs complete at r0 + 20 s; it exits 0 then, a drain of
  // r0 + 10 s.
  const RunOutput r =
      run_process(one_pod("20s", "", "", fmt::format("[{}]", signal_event("10s", "TERM"))));
  const std::vector<Attempt> first = attempts(r, 1);
  ASSERT_EQ(first.size(), 4u);
  const double r0 = first.front().start;
  EXPECT_LT(r0, 5.0);
  const json& p = first_process(r);
  EXPECT_EQ(p["exit"], "clean");
  EXPECT_EQ(p["exit_code"], 0);
  EXPECT_NEAR(p["termination_s"].get<double>(), 10.0, 0.5);
  EXPECT_GE(p["ended_s"].get<double>(), r0 + 20.0);
  EXPECT_LT(p["ended_s"].get<double>(), r0 + 20.0 + kSlack);
  EXPECT_NEAR(p["drain_latency_s"].get<double>(), r0 + 10.0, kSlack);
  const double draining = state_at(r, "draining");
  EXPECT_GE(draining, 10.0);
  EXPECT_LT(draining, 10.0 + kSlack);
  for (const Attempt& a : first) {
    EXPECT_EQ(a.outcome, "completed") << a.job;
    EXPECT_NEAR(a.start, r0, kSlack) << a.job;
    EXPECT_NEAR(a.end, a.start + 20.0, kSlack) << a.job;
  }
  EXPECT_TRUE(attempts(r, 2).empty());
  EXPECT_EQ(r.results["summary"]["shutdown_retries"], 0);
}

TEST(DrainsimWorker, SecondTermWhileDrainingForcesItOut) {
  // TERM at 10 s, TERM again at 12 s: the worker exits 1 at once, its four jobs
  // abandoned. It never deregistered, so its jobs wait for dead-worker detection: its
  // last heartbeat was the one that said "quiet" at 10 s (or a periodic one at r0 + 5k
  // if later), so it is dead 30 s after that, about 40 s, when the restarted container
  // (up at 12 + 10 + 5 = 27 s) fetches them again.
  const RunOutput r = run_process(
      one_pod("20s", "", "",
              fmt::format("[{}, {}]", signal_event("10s", "TERM"), signal_event("12s", "TERM"))));
  const json& p = first_process(r);
  EXPECT_EQ(p["exit"], "exited_with_error");
  EXPECT_EQ(p["exit_code"], 1);
  EXPECT_GE(p["ended_s"].get<double>(), 12.0);
  EXPECT_LT(p["ended_s"].get<double>(), 12.0 + kSlack);
  const std::vector<Attempt> first = attempts(r, 1), second = attempts(r, 2);
  ASSERT_EQ(first.size(), 4u);
  ASSERT_EQ(second.size(), 4u);
  // Heartbeats count from the registration, between the process start and r0.
  const double started = p["started_s"].get<double>(), r0 = first.front().start;
  const double dead_from = last_heartbeat(started, 12.0 - kSlack, 10.0) + 30;
  const double dead_by = last_heartbeat(r0, 12.0 + kSlack, 10.0 + kSlack) + 30;
  for (const Attempt& a : first) EXPECT_EQ(a.outcome, "abandoned") << a.job;
  for (const Attempt& a : second) {
    EXPECT_EQ(a.outcome, "completed") << a.job;
    EXPECT_GE(a.start, dead_from) << a.job;
    EXPECT_LT(a.start, dead_by + kSlack) << a.job;
  }
  EXPECT_EQ(r.results["summary"]["jobs_completed"], 4);
}

TEST(DrainsimWorker, WithoutATermHandlerItDiesOnTermUnlessItIsPid1) {
  // The naive profile has no TERM handler. Under an init (not PID 1) the TERM at 10 s
  // kills it (exit 143) with its four 20 s jobs. As its container's PID 1 the kernel
  // ignores that TERM: the jobs complete at r0 + 20 s and it is still running at the end.
  const std::string events = fmt::format("[{}]", signal_event("10s", "TERM"));
  const RunOutput init =
      run_process(one_pod("20s", R"(, "profile": "naive")", R"(, "init": true)", events));
  EXPECT_EQ(first_process(init)["exit"], "died_on_term");
  EXPECT_NEAR(first_process(init)["ended_s"].get<double>(), 10.0, kSlack);
  ASSERT_EQ(attempts(init, 1).size(), 4u);
  for (const Attempt& a : attempts(init, 1)) EXPECT_EQ(a.outcome, "killed") << a.job;
  const RunOutput pid1 = run_process(one_pod("20s", R"(, "profile": "naive")", "", events));
  EXPECT_EQ(first_process(pid1)["exit"], "running_at_end");
  const std::vector<Attempt> first = attempts(pid1, 1);
  ASSERT_EQ(first.size(), 4u);
  for (const Attempt& a : first) {
    EXPECT_EQ(a.outcome, "completed") << a.job;
    EXPECT_NEAR(a.end, a.start + 20.0, kSlack) << a.job;
  }
}

TEST(DrainsimWorker, ItTakesJobsOnlyOnceItsStartUpIsOverAndATermBeforeKillsIt) {
  // A start-up of 8 s (worker.startup; the process engine hands it to drainsim-worker as
  // DRAINSIM_STARTUP): the four 20 s jobs start at 8 s at the earliest and complete, the
  // pod ready no sooner. Under an init, a TERM at 4 s finds no handler yet: it kills the
  // program at once (143), with no job started, and the pod's restarted container (up
  // 4 + 10 + 5 s later, 19 s, then its own 8 s) runs them from 27 s.
  const std::string startup = R"(, "startup": {"kind": "constant", "value": "8s"})";
  const RunOutput r = run_process(one_pod("20s", startup, "", "[]"));
  const std::vector<Attempt> first = attempts(r, 1);
  ASSERT_EQ(first.size(), 4u);
  for (const Attempt& a : first) {
    EXPECT_EQ(a.outcome, "completed") << a.job;
    EXPECT_GE(a.start, 8.0) << a.job;
    EXPECT_LT(a.start, 8.0 + kSlack) << a.job;
  }
  EXPECT_GE(r.results["pods"][0]["first_ready_s"].get<double>(), 8.0);
  const RunOutput term = run_process(one_pod("20s", startup, R"(, "init": true)",
                                             fmt::format("[{}]", signal_event("4s", "TERM"))));
  const json& p = first_process(term);
  EXPECT_EQ(p["exit"], "died_on_term");
  EXPECT_EQ(p["exit_code"], 143);
  EXPECT_NEAR(p["ended_s"].get<double>(), 4.0, kSlack);
  const std::vector<Attempt> after = attempts(term, 1);
  ASSERT_EQ(after.size(), 4u);
  for (const Attempt& a : after) {
    EXPECT_GE(a.start, 27.0) << a.job;
    EXPECT_LT(a.start, 27.0 + 2 * kSlack) << a.job;
  }
}

TEST(DrainsimWorker, AsGraphileWorkerItKillsItselfWithItsTermAfterTheDrain) {
  // graphile-worker's profile (exits_by_signal): the TERM at 10 s drains (it aborts the
  // jobs 5 s in; they return at once and are failed) and then the process kills itself
  // with that TERM: it dies of it, 143. As PID 1 the kernel drops its own signal and it
  // exits 0.
  const std::string worker = R"(, "profile": "graphile-worker",
      "startup": {"kind": "constant", "value": "0s"})";
  const std::string events = fmt::format("[{}]", signal_event("10s", "TERM"));
  const RunOutput init = run_process(one_pod("20s", worker, R"(, "init": true)", events));
  EXPECT_EQ(first_process(init)["exit"], "died_on_term");
  EXPECT_EQ(first_process(init)["exit_code"], 143);
  EXPECT_NEAR(first_process(init)["ended_s"].get<double>(), 15.0, kSlack);
  const RunOutput pid1 = run_process(one_pod("20s", worker, "", events));
  EXPECT_EQ(first_process(pid1)["exit"], "clean");
  EXPECT_NEAR(first_process(pid1)["ended_s"].get<double>(), 15.0, kSlack);
}

TEST(DrainsimWorker, TstpPausesFetchingAndContResumesIt) {
  // Two 5 s jobs at 0 s and two more at 12 s. TSTP at 10 s makes the worker quiet, so the
  // jobs of 12 s wait until CONT at 20 s; they run 20-25 s. No drain, no exit.
  const std::string text = R"({"name": "case", "duration": "13s", "settle": "1m",
    "workload": {"arrival": {"kind": "list", "at": ["0s", "0s", "12s", "12s"]},
                 "job_duration": {"kind": "constant", "value": "5s"}},
    "worker": {"concurrency": 4}, "platform": {"replicas": 1},
    "events": [)" + signal_event("10s", "TSTP") +
                           ", " + signal_event("20s", "CONT") + "]}";
  const RunOutput r = run_process(text);
  const double quiet = state_at(r, "quiet");
  EXPECT_GE(quiet, 10.0);
  EXPECT_LT(quiet, 10.0 + kSlack);
  const double ready_again = state_at(r, "ready", quiet);
  EXPECT_GE(ready_again, 20.0);
  EXPECT_LT(ready_again, 20.0 + kSlack);
  const std::vector<Attempt> first = attempts(r, 1);
  ASSERT_EQ(first.size(), 4u);
  for (const Attempt& a : first) {
    EXPECT_EQ(a.outcome, "completed") << a.job;
    if (a.job < 2) {
      EXPECT_LT(a.start, 10.0) << a.job;  // when the worker came up
    } else {
      EXPECT_GE(a.start, 20.0) << a.job;
      EXPECT_LT(a.start, 20.0 + kSlack) << a.job;
    }
  }
  EXPECT_EQ(first_process(r)["exit"], "running_at_end");
}

TEST(DrainsimWorker, SigkillLeavesItsJobsToDeadWorkerDetection) {
  // SIGKILL at 12 s: the four attempts are killed. The last heartbeat was the periodic
  // one at r0 + 5k before 12 s (about 10 s), so the worker is declared dead 30 s later and
  // its jobs run again then on the restarted container: an orphan recovery delay of
  // about 40 - 12 = 28 s each.
  const RunOutput r =
      run_process(one_pod("20s", "", "", fmt::format("[{}]", signal_event("12s", "KILL"))));
  const json& p = first_process(r);
  EXPECT_EQ(p["exit"], "killed_by_signal");
  EXPECT_EQ(p["exit_code"], 137);
  EXPECT_GE(p["ended_s"].get<double>(), 12.0);
  EXPECT_LT(p["ended_s"].get<double>(), 12.0 + kSlack);
  const std::vector<Attempt> first = attempts(r, 1), second = attempts(r, 2);
  ASSERT_EQ(first.size(), 4u);
  ASSERT_EQ(second.size(), 4u);
  // Heartbeats count from the registration, between the process start and r0.
  const double started = p["started_s"].get<double>(), r0 = first.front().start;
  const double dead_from = last_heartbeat(started, 12.0 - kSlack, 0) + 30;
  const double dead_by = last_heartbeat(r0, 12.0 + kSlack, 0) + 30;
  for (const Attempt& a : first) EXPECT_EQ(a.outcome, "killed") << a.job;
  for (const Attempt& a : second) {
    EXPECT_GE(a.start, dead_from) << a.job;
    EXPECT_LT(a.start, dead_by + kSlack) << a.job;
  }
  const double ended = p["ended_s"].get<double>();
  const double recovery = r.results["summary"]["orphan_recovery_delay_s"]["p50"].get<double>();
  EXPECT_GE(recovery, dead_from - ended);
  EXPECT_LT(recovery, dead_by + kSlack - ended);
}

}  // namespace
}  // namespace drainsim
