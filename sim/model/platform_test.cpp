// Platform behaviour, hand-worked on one pod (unless stated) through whole runs: preStop
// kinds and the one-off 2 s extension, PID 1 shells, docker stop, node drains,
// directives and TSTP/CONT. Defaults that matter: heartbeat 5 s, heartbeat timeout 30 s,
// worker grace 30 s, termination grace 30 s.
#include <gtest/gtest.h>

#include <string>

#include "io/scenario_reader.h"
#include "run/run_scenario.h"
#include "testing/test_scenarios.h"

namespace drainsim {
namespace {

using nlohmann::json;

// Four jobs of `job` at t=0 on one pod of concurrency 4; new pods start in 5 s.
// One pod, four jobs of `job` at t=0 (test::one_pod), with its timeline.
RunOutput run(const std::string& job, const std::string& platform, const std::string& events,
              const std::string& worker = "") {
  RunOptions options;
  options.timeline = true;
  RunOutput out =
      run_scenario(parse_scenario(test::one_pod(job, worker, platform, events), "test"), options);
  EXPECT_TRUE(out.summary.audit.ok);
  return out;
}

const char* const kRollAt10 = test::kRollingRestartAt10s;

const json& signals(const RunOutput& r) { return r.results["timeline"]["signals"]["rows"]; }
const json& first_process(const RunOutput& r) { return r.results["pods"][0]["processes"][0]; }
bool has_state(const RunOutput& r, double at, int pod, const char* state) {
  for (const json& s : r.results["timeline"]["pod_states"]["rows"]) {
    if (s == json({at, pod, state})) return true;
  }
  return false;
}

TEST(PreStop, SleepPastTheDeadlineGetsTermThenKillTwoSecondsLater) {
  // Deleted at 15 s; preStop would sleep to 55 s but the deadline is 45 s: TERM then,
  // SIGKILL at 47 s.
  const RunOutput r =
      run("100s", R"(, "pre_stop": {"kind": "sleep", "duration": "40s"})", kRollAt10);
  EXPECT_EQ(signals(r), json::parse(R"([[45.0, 0, "SIGTERM", true, "deadline"],
                                        [47.0, 0, "SIGKILL", true, "deadline"]])"));
  EXPECT_EQ(first_process(r)["exit"], "killed_at_deadline");
  EXPECT_EQ(first_process(r)["drain_latency_s"], 32.0);
}

TEST(PreStop, QuietThenSleepQuietsAtOnceAndTermsAfterTheSleep) {
  // TSTP at 15 s takes the pod out of readiness; the jobs end at 20 s (completions run
  // before timers), then the hook returns and TERM finds the worker idle: exit at 20 s.
  const RunOutput r =
      run("20s", R"(, "pre_stop": {"kind": "quiet_then_sleep", "duration": "5s"})", kRollAt10);
  EXPECT_EQ(signals(r), json::parse(R"([[15.0, 0, "SIGTSTP", true, "prestop"],
                                        [20.0, 0, "SIGTERM", true, "deletion"]])"));
  EXPECT_TRUE(has_state(r, 15.0, 0, "quiet"));
  EXPECT_EQ(first_process(r)["exit"], "clean");
  EXPECT_EQ(first_process(r)["ended_s"], 20.0);
  EXPECT_EQ(first_process(r)["drain_latency_s"], 5.0);
}

TEST(PreStop, QuietThenWaitPollsUntilIdle) {
  // TSTP at 15 s, polls at 25 s: idle since 20 s, so TERM at 25 s and a clean exit.
  const RunOutput r = run(
      "20s",
      R"(, "termination_grace_period": "90s", "pre_stop": {"kind": "quiet_then_wait", "poll": "10s", "timeout": "60s"})",
      kRollAt10);
  EXPECT_EQ(signals(r), json::parse(R"([[15.0, 0, "SIGTSTP", true, "prestop"],
                                        [25.0, 0, "SIGTERM", true, "deletion"]])"));
  EXPECT_EQ(first_process(r)["ended_s"], 25.0);
  EXPECT_EQ(first_process(r)["exit"], "clean");
}

TEST(PreStop, QuietThenWaitKillsAtItsOwnTimeout) {
  // 100 s jobs never let the hook return; it SIGKILLs the worker at 15 + 60 = 75 s.
  const RunOutput r = run(
      "100s",
      R"(, "termination_grace_period": "90s", "pre_stop": {"kind": "quiet_then_wait", "poll": "10s", "timeout": "60s"})",
      kRollAt10);
  EXPECT_EQ(signals(r).back(), json({75.0, 0, "SIGKILL", true, "prestop"}));
  EXPECT_EQ(first_process(r)["exit"], "killed_by_signal");
  EXPECT_EQ(r.results["summary"]["exits"]["killed_by_signal"], 1);
  EXPECT_EQ(r.results["summary"]["forced_kills"], 1);  // every SIGKILL is a forced kill
}

TEST(Pid1Shell, SwallowsThePreStopTstpAimedAtPid1) {
  const RunOutput r = run(
      "20s", R"(, "pid1_shell": true, "pre_stop": {"kind": "quiet_then_sleep", "duration": "5s"})",
      kRollAt10);
  EXPECT_EQ(signals(r)[0], json({15.0, 0, "SIGTSTP", false, "prestop"}));
  EXPECT_EQ(signals(r)[1], json({20.0, 0, "SIGTERM", false, "deletion"}));
  EXPECT_FALSE(has_state(r, 15.0, 0, "quiet"));
  EXPECT_EQ(first_process(r)["exit"], "killed_at_deadline");
  EXPECT_EQ(first_process(r)["ended_s"], 45.0);
}

TEST(Pid1Shell, ASwallowedTermEventStartsNoDrainClock) {
  // TERM to PID 1 at 5 s goes nowhere; the pod is deleted at 100 s and SIGKILLed at 130 s:
  // its drain took 30 s, not 125 s.
  const RunOutput r = run("200s", R"(, "pid1_shell": true)",
                          R"([{"at": "5s", "kind": "signal", "pod": "pod-0", "signal": "SIGTERM"},
              {"at": "100s", "kind": "delete_pod", "pod": "pod-0"}])");
  EXPECT_EQ(first_process(r)["termination_s"], 100.0);
  EXPECT_EQ(first_process(r)["drain_latency_s"], 30.0);
}

TEST(Docker, StopSendsTermThenKillsAfterStopGracePeriodThenStartsTheNewContainer) {
  // docker stop at 5 s; 20 s jobs outlive the 10 s stop_grace_period: SIGKILL at 15 s
  // (before that instant's heartbeat, so the last one was at 10 s: dead at 40 s). The new
  // container starts only once the old one is gone: created 15 s, ready 20 s.
  const RunOutput r = run("20s", R"(, "kind": "docker", "stop_grace_period": "10s")",
                          R"([{"at": "5s", "kind": "rolling_restart"}])");
  EXPECT_EQ(signals(r), json::parse(R"([[5.0, 0, "SIGTERM", true, "deletion"],
                                        [15.0, 0, "SIGKILL", true, "deadline"]])"));
  EXPECT_EQ(r.results["pods"][1]["created_s"], 15.0);
  EXPECT_EQ(r.results["pods"][1]["first_ready_s"], 20.0);
  EXPECT_EQ(r.results["summary"]["deploy_duration_s"]["max"], 15.0);
  EXPECT_EQ(r.results["summary"]["orphan_recovery_delay_s"]["p50"], 25.0);
  for (const json& a : r.results["timeline"]["attempts"]["rows"]) {
    if (a[7] == "completed") {
      EXPECT_EQ(a[5], 40.0);
    }
  }
}

TEST(NodeDrain, DeletesThePodsOfTheNodeAndReschedulesElsewhere) {
  // Two nodes, two replicas: pod-0 on node 0, pod-1 on node 1. Draining node 1 at 10 s
  // deletes pod-1; its replacement pod-2 goes to node 0.
  const RunOutput r = run("20s", R"(, "replicas": 2, "nodes": 2)",
                          R"([{"at": "10s", "kind": "node_drain", "node": 1}])");
  const json& pods = r.results["pods"];
  ASSERT_EQ(pods.size(), 3u);
  EXPECT_EQ(pods[1]["node"], 1);
  EXPECT_EQ(pods[1]["deleted_s"], 10.0);
  EXPECT_EQ(pods[2]["node"], 0);
  EXPECT_EQ(pods[2]["created_s"], 10.0);
  EXPECT_EQ(pods[0]["deleted_s"], nullptr);
}

TEST(Directive, QuietTakesEffectAtTheNextHeartbeat) {
  // Asked at 3 s, answered at the 5 s heartbeat: quiet from then on, no fetch after.
  const RunOutput r =
      run("20s", "", R"([{"at": "3s", "kind": "directive", "pod": "pod-0", "state": "quiet"}])");
  EXPECT_TRUE(has_state(r, 5.0, 0, "quiet"));
  EXPECT_EQ(r.results["summary"]["jobs_completed"], 4);
}

TEST(Directive, TerminateDrainsLikeTerm) {
  const RunOutput r = run(
      "20s", "", R"([{"at": "3s", "kind": "directive", "pod": "pod-0", "state": "terminate"}])");
  EXPECT_TRUE(has_state(r, 5.0, 0, "draining"));
  EXPECT_EQ(first_process(r)["ended_s"], 20.0);
  EXPECT_EQ(first_process(r)["exit"], "clean");
}

TEST(Signals, TstpQuietsAndContResumesFetching) {
  // Eight jobs, four slots: quiet at 10 s, so the 20 s jobs' slots stay empty until CONT
  // at 30 s, when the other four are fetched (and end at 50 s).
  const std::string text = R"({"name": "p", "duration": "1s", "settle": "10m",
    "workload": {"arrival": {"kind": "burst", "count": 8, "at": "0s"},
                 "job_duration": {"kind": "constant", "value": "20s"}},
    "worker": {"concurrency": 4}, "platform": {"replicas": 1},
    "events": [{"at": "10s", "kind": "signal", "pod": "pod-0", "signal": "SIGTSTP"},
               {"at": "30s", "kind": "signal", "pod": "pod-0", "signal": "SIGCONT"}]})";
  RunOptions options;
  options.timeline = true;
  const RunOutput r = run_scenario(parse_scenario(text, "test"), options);
  ASSERT_TRUE(r.summary.audit.ok);
  EXPECT_TRUE(has_state(r, 10.0, 0, "quiet"));
  EXPECT_TRUE(has_state(r, 30.0, 0, "ready"));
  int late = 0;
  for (const json& a : r.results["timeline"]["attempts"]["rows"]) {
    if (a[5] == 30.0 && a[6] == 50.0) ++late;
  }
  EXPECT_EQ(late, 4);
}

}  // namespace
}  // namespace drainsim
