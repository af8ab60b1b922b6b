// The real engine on real systems and throwaway brokers, each case worked by hand from the
// events the adapter wrote: Sidekiq 6.4 (Debian's ruby-sidekiq), BullMQ 6.7 and 4.12 (npm),
// Celery 5.2 (Debian's python3-celery), pg-boss 9 and graphile-worker 0.16 (npm). Times are real:
// bounds allow for Ruby's start-up and the 20 ms event reader, nothing more.
#include "run/real_engine.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "io/json_reader.h"
#include "io/scenario_reader.h"
#include "run/run_scenario.h"

namespace drainsim {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

RunOptions sidekiq() {
  RunOptions o;
  o.engine = Engine::kReal;
  o.real.system = "sidekiq";
  o.timeline = true;
  return o;
}

// The attempts of the results' timeline: {job, attempt, pod, start, end, outcome} rows.
std::vector<json> attempts(const RunOutput& out) {
  std::vector<json> rows;
  for (const json& r : out.results.at("timeline").at("attempts").at("rows")) rows.push_back(r);
  return rows;
}

const json* process_of(const RunOutput& out, int pod) {
  return &out.results.at("pods").at(pod).at("processes").at(0);
}

TEST(RealSidekiq, TermInterruptsTheLongJobAtTheTimeoutAndItRunsAgainOnTheNewPod) {
  // One pod (-c 3, -t 2), jobs: 0.5 s at 0, 20 s at 0.5 s, 2 s at 1 s. The pod is deleted
  // at 4 s: Sidekiq quiets, waits -t 2 less its 0.5 s pause, requeues job 1 and interrupts
  // it at 5.5 s, exits; the replacement pod-1 (started at 4 s) runs job 1 again from 5.5 s
  // to 25.5 s. Jobs 0 and 2 completed before the TERM.
  const Scenario s = parse_scenario(R"({"name": "sk", "duration": "3s", "settle": "60s",
    "workload": {"arrival": {"kind": "list", "at": ["0s", "0.5s", "1s"]},
                 "job_duration": {"kind": "sequence", "values": ["0.5s", "20s", "2s"]}},
    "worker": {"profile": "sidekiq", "concurrency": 3, "grace_period": "2s"},
    "platform": {"replicas": 1, "termination_grace_period": "10s", "pod_start_delay": "0s"},
    "events": [{"at": "4s", "kind": "delete_pod", "pod": "pod-0"}]})",
                                    "sk.json");
  const RunOutput out = run_real(s, sidekiq());
  const JobTotals& j = out.summary.jobs;
  EXPECT_TRUE(out.summary.audit.ok);
  EXPECT_EQ(j.enqueued, 3);
  EXPECT_EQ(j.completed, 3);
  EXPECT_EQ(j.lost, 0);
  EXPECT_EQ(j.interrupted, 1);
  EXPECT_EQ(j.shutdown_retries, 1);
  EXPECT_EQ(j.duplicate_executions, 0);
  std::vector<json> rows = attempts(out);
  ASSERT_EQ(rows.size(), 4u);
  json interrupted, rerun;
  for (const json& r : rows) {
    if (r[0] == 1 && r[7] == "interrupted") interrupted = r;
    if (r[0] == 1 && r[7] == "completed") rerun = r;
  }
  ASSERT_FALSE(interrupted.is_null());
  ASSERT_FALSE(rerun.is_null());
  EXPECT_EQ(interrupted[2], 0);  // on pod-0
  EXPECT_NEAR(interrupted[6].get<double>(), 5.5, 0.3);
  EXPECT_EQ(rerun[2], 1);  // again on pod-1, where it ran its whole 20 s
  EXPECT_NEAR(rerun[5].get<double>(), 5.5, 0.3);
  EXPECT_NEAR(rerun[6].get<double>() - rerun[5].get<double>(), 20, 0.2);
  const json& p0 = *process_of(out, 0);
  EXPECT_EQ(p0.at("exit"), "clean");
  EXPECT_NEAR(p0.at("termination_s").get<double>(), 4, 0.1);
  EXPECT_NEAR(p0.at("drain_latency_s").get<double>(), 1.5, 1.0);  // and Ruby's exit
  EXPECT_EQ(out.results.at("engine"), "real");
  EXPECT_EQ(out.results.at("real").at("system"), "sidekiq");
  EXPECT_EQ(out.results.at("real").at("versions").at("sidekiq"), "6.4.1");
  // The rule: job 1 had 16.5 s left at the TERM, beyond -t 2: interrupted, as it was.
  EXPECT_EQ(out.results.at("real").at("rule_check").at("checked"), 1);
  EXPECT_TRUE(out.results.at("real").at("rule_check").at("mismatches").empty());
  // It ends once Redis holds no work, not at duration + settle.
  EXPECT_TRUE(out.summary.ended_early);
  EXPECT_LT(to_seconds(out.ended_at), 40);
}

TEST(RealSidekiq, AnOomKillLosesTheRunningJob) {
  // BasicFetch: a fetched job lives only in the process. Job 0 (10 s) starts at once; the
  // OOM kill at 2 s takes it with the process, and Redis holds it no more: lost. Job 1
  // (0.2 s, at 3 s) runs on the restarted container.
  const Scenario s = parse_scenario(R"({"name": "sk-oom", "duration": "4s", "settle": "30s",
    "workload": {"arrival": {"kind": "list", "at": ["0s", "3s"]},
                 "job_duration": {"kind": "sequence", "values": ["10s", "0.2s"]}},
    "worker": {"profile": "sidekiq", "concurrency": 2},
    "platform": {"replicas": 1, "pod_start_delay": "0s", "restart_delay": "0s"},
    "events": [{"at": "2s", "kind": "oom_kill", "pod": "pod-0"}]})",
                                    "sk-oom.json");
  const RunOutput out = run_real(s, sidekiq());
  const JobTotals& j = out.summary.jobs;
  EXPECT_TRUE(out.summary.audit.ok);
  EXPECT_EQ(j.enqueued, 2);
  EXPECT_EQ(j.completed, 1);
  EXPECT_EQ(j.lost, 1);
  EXPECT_EQ(out.summary.job_loss(), 1);
  std::vector<json> rows = attempts(out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][0], 0);
  EXPECT_EQ(rows[0][7], "killed");
  EXPECT_NEAR(rows[0][6].get<double>(), 2, 0.2);
  EXPECT_EQ(process_of(out, 0)->at("exit"), "oom_killed");
  EXPECT_EQ(out.results.at("real").at("rule_check").at("checked"), 1);  // job 0, killed
  EXPECT_TRUE(out.results.at("real").at("rule_check").at("mismatches").empty());
  EXPECT_TRUE(out.summary.ended_early);
}

TEST(RealSidekiq, AScenarioFieldSidekiqIsNotGivenIsRefusedByItsPath) {
  const Scenario s = parse_scenario(R"({"name": "sk-bad", "duration": "1s",
    "workload": {"arrival": {"kind": "list", "at": ["0s"]},
                 "job_duration": {"kind": "constant", "value": "1s"}, "checkpointing": true},
    "worker": {"profile": "sidekiq", "heartbeat_interval": "1s"},
    "backend": {"visibility_timeout": "5m"},
    "platform": {"replicas": 1},
    "events": [{"at": "0.5s", "kind": "directive", "pod": "pod-0", "state": "quiet"}]})",
                                    "sk-bad.json");
  try {
    run_real(s, sidekiq());
    FAIL() << "ran";
  } catch (const RunError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("worker.heartbeat_interval: the real sidekiq is not given this setting, so "
                     "it must be the profile's \"10s\", got \"1s\""),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("backend.visibility_timeout:"), std::string::npos) << m;
    EXPECT_NE(m.find("workload.checkpointing:"), std::string::npos) << m;
    EXPECT_NE(m.find("events[0].kind: a directive"), std::string::npos) << m;
    EXPECT_EQ(m.find("worker.concurrency"), std::string::npos) << m;  // given to it: -c
  }
}

TEST(RealSidekiq, AnUnknownSystemNamesTheSystemsThereAre) {
  RunOptions o = sidekiq();
  o.real.system = "resque";
  try {
    find_system(o.real);
    FAIL();
  } catch (const RunError& e) {
    EXPECT_NE(std::string(e.what()).find("no real system \"resque\""), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("sidekiq"), std::string::npos) << e.what();
  }
}

// The real engine on the named system, with the timeline.
RunOptions real_system(const char* name) {
  RunOptions o = sidekiq();
  o.real.system = name;
  return o;
}

TEST(RealBullmq, AnOomKilledJobRunsAgainOnceItsLockLapses) {
  // BullMQ 6.7 on Redis: job 0 (10 s) starts at once and takes a 30 s lock; the OOM kill
  // at 2 s leaves it active and locked. The restarted worker's stalled checker (every 5 s
  // here, stalled_interval) finds the lapsed lock at 30-35 s and moves the job back to
  // wait; it runs again, 10 s, to completion: nothing lost, one shutdown retry.
  const Scenario s = parse_scenario(R"({"name": "bq-oom", "duration": "3s", "settle": "90s",
    "workload": {"arrival": {"kind": "list", "at": ["0s"]},
                 "job_duration": {"kind": "constant", "value": "10s"}},
    "worker": {"profile": "bullmq", "concurrency": 2, "options": {"stalled_interval": "5s"}},
    "platform": {"replicas": 1, "pod_start_delay": "0s", "restart_delay": "0s"},
    "events": [{"at": "2s", "kind": "oom_kill", "pod": "pod-0"}]})",
                                    "bq-oom.json");
  const RunOutput out = run_real(s, real_system("bullmq"));
  const JobTotals& j = out.summary.jobs;
  EXPECT_TRUE(out.summary.audit.ok);
  EXPECT_EQ(j.completed, 1);
  EXPECT_EQ(j.lost, 0);
  EXPECT_EQ(j.shutdown_retries, 1);
  EXPECT_EQ(j.duplicate_executions, 0);
  const std::vector<json> rows = attempts(out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][7], "killed");
  EXPECT_NEAR(rows[0][6].get<double>(), 2, 0.2);
  EXPECT_EQ(rows[1][7], "completed");
  EXPECT_GE(rows[1][5].get<double>(), 30);
  EXPECT_LE(rows[1][5].get<double>(), 36);
  EXPECT_NEAR(rows[1][6].get<double>() - rows[1][5].get<double>(), 10, 0.2);
  EXPECT_EQ(out.results.at("real").at("versions").at("bullmq"), "6.7.0");
  EXPECT_TRUE(out.summary.ended_early);
}

// One 12 s job under a 3 s lock (lockDuration) extended every 1 s (lockRenewTime 2 s), a
// stalled check every 2 s, and a rolling restart at 1 s that TERMs pod-0 once pod-1 is ready,
// with a 60 s grace: close() waits for the job. `options` is the worker's.
Scenario close_outlasts_the_lock(const std::string& options) {
  return parse_scenario(R"({"name": "bq-close", "duration": "2s", "settle": "60s",
    "workload": {"arrival": {"kind": "list", "at": ["0s"]},
                 "job_duration": {"kind": "constant", "value": "12s"}},
    "worker": {"profile": "bullmq", "concurrency": 1, "heartbeat_interval": "1s",
               "options": )" +
                            options + R"(},
    "backend": {"visibility_timeout": "3s"},
    "platform": {"replicas": 1, "pod_start_delay": "0s", "restart_delay": "0s",
                 "termination_grace_period": "60s"},
    "events": [{"at": "1s", "kind": "rolling_restart", "max_surge": 1, "max_unavailable": 0}]})",
                        "bq-close.json");
}

TEST(RealBullmq, CloseKeepsExtendingTheLockSoTheJobRunsOnce) {
  // BullMQ 6.7: the closing pod-0 still extends job 0's lock every second, so pod-1's stalled
  // checks never find it lapsed: one attempt, from Node's start-up (about 1 s) to 12 s
  // later; pod-0 exits once it is done, about 11 s after its TERM.
  const RunOutput out =
      run_real(close_outlasts_the_lock(R"({"stalled_interval": "2s"})"), real_system("bullmq"));
  const JobTotals& j = out.summary.jobs;
  EXPECT_TRUE(out.summary.audit.ok);
  EXPECT_EQ(j.completed, 1);
  EXPECT_EQ(j.duplicate_executions, 0);
  const std::vector<json> rows = attempts(out);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][2], 0);
  EXPECT_EQ(rows[0][7], "completed");
  EXPECT_NEAR(rows[0][6].get<double>() - rows[0][5].get<double>(), 12, 0.2);
  ASSERT_TRUE(out.summary.drain_latency);
  EXPECT_EQ(out.summary.drain_latency->count, 1);
  EXPECT_NEAR(out.summary.drain_latency->max, 11, 1);
}

TEST(RealBullmq4, CloseStopsExtendingTheLockAndTheJobRunsTwice) {
  // BullMQ 4.12.7 (renews_locks_while_closing false): pod-0's lock extender stops at its
  // TERM (about 1.5 s) after at most one more tick, so the lock lapses 3 s after its last
  // extension, at about 4-5 s; pod-1's stalled check (every 2 s) moves the job back to wait
  // at the first check after that (one that saw it active before) and pod-1 runs it again,
  // 12 s, while pod-0 finishes its own: work done twice, nothing lost. BullMQ 4 counts the
  // new start as attempt 2.
  const RunOutput out = run_real(
      close_outlasts_the_lock(R"({"stalled_interval": "2s", "renews_locks_while_closing": false})"),
      real_system("bullmq-4"));
  const JobTotals& j = out.summary.jobs;
  EXPECT_TRUE(out.summary.audit.ok);
  EXPECT_EQ(j.completed, 1);
  EXPECT_EQ(j.lost, 0);
  EXPECT_EQ(j.duplicate_executions, 1);
  const std::vector<json> rows = attempts(out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][2], 0);
  EXPECT_EQ(rows[0][7], "completed");
  EXPECT_NEAR(rows[0][6].get<double>() - rows[0][5].get<double>(), 12, 0.2);
  EXPECT_EQ(rows[1][1], 2);
  EXPECT_EQ(rows[1][2], 1);
  EXPECT_EQ(rows[1][7], "duplicate");
  EXPECT_GE(rows[1][5].get<double>(), 4);
  EXPECT_LE(rows[1][5].get<double>(), 9);
  EXPECT_NEAR(rows[1][6].get<double>() - rows[1][5].get<double>(), 12, 0.2);
  ASSERT_TRUE(out.summary.drain_latency);
  EXPECT_NEAR(out.summary.drain_latency->max, 11, 1);
  EXPECT_EQ(out.results.at("real").at("versions").at("bullmq"), "4.12.7");
}

TEST(RealCelery, ATermWaitsForTheTaskAndTheKillLosesItWhenAckedEarly) {
  // Celery 5.2 on Redis, acknowledging on receipt (its default): one pod (-c 3), jobs
  // 0.5 s at 0, 20 s at 0.5 s, 2 s at 1 s (they start once the worker is up, ~1.5 s). The
  // pod is deleted at 6 s: the warm shutdown waits for job 1 without a deadline, so the
  // platform's SIGKILL at 6 + 8 s ends it; its message was acknowledged when it was
  // received, so it is lost. Jobs 0 and 2 completed before the TERM.
  const Scenario s = parse_scenario(R"({"name": "cel-term", "duration": "3s", "settle": "60s",
    "workload": {"arrival": {"kind": "list", "at": ["0s", "0.5s", "1s"]},
                 "job_duration": {"kind": "sequence", "values": ["0.5s", "20s", "2s"]}},
    "worker": {"profile": "celery", "concurrency": 3, "options": {"drops_late_fetch": true}},
    "platform": {"replicas": 1, "termination_grace_period": "8s", "pod_start_delay": "0s"},
    "events": [{"at": "6s", "kind": "delete_pod", "pod": "pod-0"}]})",
                                    "cel-term.json");
  const RunOutput out = run_real(s, real_system("celery-redis"));
  const JobTotals& j = out.summary.jobs;
  EXPECT_TRUE(out.summary.audit.ok);
  EXPECT_EQ(j.completed, 2);
  EXPECT_EQ(j.lost, 1);
  EXPECT_EQ(j.shutdown_retries, 0);
  const std::vector<json> rows = attempts(out);
  ASSERT_EQ(rows.size(), 3u);
  for (const json& r : rows) {
    if (r[0] != 1) continue;
    EXPECT_EQ(r[7], "killed");
    EXPECT_NEAR(r[6].get<double>(), 14, 0.2);
  }
  EXPECT_EQ(process_of(out, 0)->at("exit"), "killed_at_deadline");
  EXPECT_EQ(out.results.at("real").at("versions").at("celery"), "5.2.6");
}

TEST(RealCelery, TasksAKilledWorkerFetchedAheadStayHeldAndAreNamed) {
  // Celery 5.2 on Redis, one pod with one prefork process: job 0 (20 s) starts when the
  // worker is up (~1.5 s); jobs 1 and 2 (0.5 s, 1 s) are fetched ahead (prefetch 4 per
  // process) and wait, unacknowledged. The OOM kill at 4 s loses job 0 (acknowledged when
  // it started); jobs 1 and 2 stay in kombu's unacked hash until the 1 h visibility
  // timeout, so the broker says active with no attempt of them: pending, and named.
  const Scenario s = parse_scenario(R"({"name": "cel-prefetch", "duration": "5s", "settle": "3s",
    "workload": {"arrival": {"kind": "list", "at": ["0s", "0.5s", "1s"]},
                 "job_duration": {"kind": "sequence", "values": ["20s", "0.5s", "1s"]}},
    "worker": {"profile": "celery", "concurrency": 1, "options": {"drops_late_fetch": true}},
    "platform": {"replicas": 1, "pod_start_delay": "0s", "restart_delay": "1s"},
    "events": [{"at": "4s", "kind": "oom_kill", "pod": "pod-0"}]})",
                                    "cel-prefetch.json");
  const RunOutput out = run_real(s, real_system("celery-redis"));
  const JobTotals& j = out.summary.jobs;
  EXPECT_TRUE(out.summary.audit.ok);
  EXPECT_EQ(j.completed, 0);
  EXPECT_EQ(j.lost, 1);
  EXPECT_EQ(j.pending, 2);
  const std::vector<json> rows = attempts(out);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0], 0);
  EXPECT_EQ(rows[0][7], "killed");
  const json& warnings = out.results.at("warnings");
  ASSERT_GE(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].at("code"), "prefetched_unstarted");
  EXPECT_EQ(warnings[0].at("message"),
            "jobs 1, 2: held by a worker at the end (the broker says active) though none of "
            "their attempts was running: fetched ahead (prefetched), not started");
}

TEST(RealCelery, AcksLateRedeliversAnOomKilledTaskWhenTheRestartedWorkerStarts) {
  // acks_late with a 10 s visibility timeout: job 0 (8 s) is fetched when the worker is up
  // and OOM-killed at 5 s, its message still unacknowledged. kombu restores the messages
  // older than the timeout only from inside a worker: at its start and 90 s later, not at
  // the timeout. The worker restarts 8 s after the kill (13 s, up a few seconds later) and
  // its start restores the 13 s old message; it runs again, 8 s, as attempt 1 (Celery
  // counts no redelivery): nothing lost, one shutdown retry.
  const Scenario s = parse_scenario(R"({"name": "cel-oom", "duration": "3s", "settle": "40s",
    "workload": {"arrival": {"kind": "list", "at": ["0s"]},
                 "job_duration": {"kind": "constant", "value": "8s"}},
    "worker": {"profile": "celery", "concurrency": 2,
               "options": {"acks_late": true, "drops_late_fetch": true}},
    "backend": {"visibility_timeout": "10s"},
    "platform": {"replicas": 1, "pod_start_delay": "0s", "restart_delay": "8s"},
    "events": [{"at": "5s", "kind": "oom_kill", "pod": "pod-0"}]})",
                                    "cel-oom.json");
  const RunOutput out = run_real(s, real_system("celery-redis"));
  const JobTotals& j = out.summary.jobs;
  EXPECT_TRUE(out.summary.audit.ok);
  EXPECT_EQ(j.completed, 1);
  EXPECT_EQ(j.lost, 0);
  EXPECT_EQ(j.shutdown_retries, 1);
  EXPECT_EQ(j.duplicate_executions, 0);
  const std::vector<json> rows = attempts(out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][7], "killed");
  EXPECT_NEAR(rows[0][6].get<double>(), 5, 0.2);
  EXPECT_EQ(rows[1][1], 1);
  EXPECT_EQ(rows[1][7], "completed");
  EXPECT_GE(rows[1][5].get<double>(), 13);
  EXPECT_LE(rows[1][5].get<double>(), 18);
  EXPECT_NEAR(rows[1][6].get<double>() - rows[1][5].get<double>(), 8, 0.2);
}

TEST(RealCelery, ANewWorkersStartRestoresARunningTaskOlderThanTheVisibilityTimeout) {
  // acks_late with a 5 s visibility timeout: job 0 (20 s) runs on pod-0 from its start. The
  // rolling restart at 8 s starts pod-1, whose consumer's start restores every message
  // delivered more than 5 s ago, job 0's included, though pod-0 still runs it: a free pool
  // process (pod-0's, or pod-1's once it consumes) runs it again from about 9-12 s, 20 s,
  // while pod-0's warm shutdown waits for both of its: the work is done twice, nothing lost.
  const Scenario s = parse_scenario(R"({"name": "cel-restore", "duration": "1s", "settle": "60s",
    "workload": {"arrival": {"kind": "list", "at": ["0s"]},
                 "job_duration": {"kind": "constant", "value": "20s"}},
    "worker": {"profile": "celery", "concurrency": 2,
               "options": {"acks_late": true, "drops_late_fetch": true}},
    "backend": {"visibility_timeout": "5s"},
    "platform": {"replicas": 1, "pod_start_delay": "1s", "restart_delay": "0s",
                 "termination_grace_period": "60s"},
    "events": [{"at": "8s", "kind": "rolling_restart", "max_surge": 1, "max_unavailable": 0}]})",
                                    "cel-restore.json");
  const RunOutput out = run_real(s, real_system("celery-redis"));
  const JobTotals& j = out.summary.jobs;
  EXPECT_TRUE(out.summary.audit.ok);
  EXPECT_EQ(j.completed, 1);
  EXPECT_EQ(j.lost, 0);
  EXPECT_EQ(j.duplicate_executions, 1);
  const std::vector<json> rows = attempts(out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][2], 0);
  EXPECT_EQ(rows[0][7], "completed");
  EXPECT_NEAR(rows[0][6].get<double>() - rows[0][5].get<double>(), 20, 0.2);
  EXPECT_EQ(rows[1][1], 1);
  EXPECT_EQ(rows[1][7], "duplicate");
  EXPECT_GE(rows[1][5].get<double>(), 9);
  EXPECT_LE(rows[1][5].get<double>(), 14);
  EXPECT_NEAR(rows[1][6].get<double>() - rows[1][5].get<double>(), 20, 0.2);
}

TEST(RealCelery, OnRabbitmqAnOomKilledTaskComesBackWhenItsConnectionDrops) {
  // The same kill on RabbitMQ 3.10: the broker requeues an unacknowledged message the
  // moment its consumer's connection closes, so job 0 (8 s) runs again as soon as the
  // restarted worker (up at 5 + 1 s restart delay + its start-up, ~1.5-3 s) consumes.
  const Scenario s = parse_scenario(R"({"name": "cel-oom-rmq", "duration": "3s", "settle": "90s",
    "workload": {"arrival": {"kind": "list", "at": ["0s"]},
                 "job_duration": {"kind": "constant", "value": "8s"}},
    "worker": {"profile": "celery", "concurrency": 2, "options": {"acks_late": true, "rabbitmq": true}},
    "platform": {"replicas": 1, "pod_start_delay": "0s", "restart_delay": "1s"},
    "events": [{"at": "5s", "kind": "oom_kill", "pod": "pod-0"}]})",
                                    "cel-oom-rmq.json");
  const RunOutput out = run_real(s, real_system("celery-rabbitmq"));
  const JobTotals& j = out.summary.jobs;
  EXPECT_TRUE(out.summary.audit.ok);
  EXPECT_EQ(j.completed, 1);
  EXPECT_EQ(j.lost, 0);
  EXPECT_EQ(j.shutdown_retries, 1);
  const std::vector<json> rows = attempts(out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][7], "killed");
  EXPECT_NEAR(rows[0][6].get<double>(), 5, 0.2);
  EXPECT_EQ(rows[1][7], "completed");
  EXPECT_GE(rows[1][5].get<double>(), 6);
  EXPECT_LE(rows[1][5].get<double>(), 11);
  EXPECT_EQ(out.results.at("real").at("versions").at("rabbitmq"), "3.10.8");
}

// Jobs 0 and 1 (8 s each) at 0 s and 4 s on one Celery pod (-c 2): job 0 starts when the
// worker is up (~1.5-3 s), job 1 at 4 s. At 6 s the OOM killer takes one pool child: the
// one that has run its task the longest, job 0's.
constexpr const char* kChildKill = R"({"name": "cel-child", "duration": "5s", "settle": "40s",
    "workload": {"arrival": {"kind": "list", "at": ["0s", "4s"]},
                 "job_duration": {"kind": "constant", "value": "8s"}},
    "worker": {"profile": "celery", "concurrency": 2, "options": OPTIONS},
    "platform": {"replicas": 1, "pod_start_delay": "0s"},
    "events": [{"at": "6s", "kind": "oom_kill_child", "pod": "pod-0"}]})";

Scenario child_kill(const std::string& options) {
  std::string text = kChildKill;
  text.replace(text.find("OPTIONS"), 7, options);
  return parse_scenario(text, "cel-child.json");
}

TEST(RealCelery, AnOomKillOfAPoolChildFailsItsTaskForGood) {
  // Acknowledged on receipt (Celery's default): the main process sees the child die and
  // fails job 0 for good (WorkerLostError), which the adapter says (no result backend
  // keeps it): discarded, a job loss, as the model has it. The worker lives on: job 1
  // completes 8 s after its start, nothing is retried.
  const Scenario s = child_kill(R"({"drops_late_fetch": true})");
  const RunOutput out = run_real(s, real_system("celery-redis"));
  const JobTotals& j = out.summary.jobs;
  EXPECT_TRUE(out.summary.audit.ok);
  EXPECT_EQ(j.completed, 1);
  EXPECT_EQ(j.discarded, 1);
  EXPECT_EQ(j.lost, 0);
  EXPECT_EQ(out.summary.job_loss(), 1);
  EXPECT_EQ(j.shutdown_retries, 0);
  const std::vector<json> rows = attempts(out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][0], 0);
  EXPECT_EQ(rows[0][7], "killed");
  EXPECT_NEAR(rows[0][6].get<double>(), 6, 0.2);
  EXPECT_EQ(rows[1][0], 1);
  EXPECT_EQ(rows[1][7], "completed");
  EXPECT_NEAR(rows[1][5].get<double>(), 4, 0.3);
  EXPECT_NEAR(rows[1][6].get<double>() - rows[1][5].get<double>(), 8, 0.2);
  const json& p0 = *process_of(out, 0);
  EXPECT_EQ(p0.at("exit"), "running_at_end");  // one child died, not the worker
  EXPECT_EQ(out.results.at("pods").at(0).at("processes").size(), 1u);
  // The model says the same of the same scenario.
  const RunOutput model = run_scenario(s, RunOptions{});
  EXPECT_EQ(model.summary.jobs.completed, 1);
  EXPECT_EQ(model.summary.jobs.discarded, 1);
  EXPECT_EQ(model.summary.jobs.shutdown_retries, 0);
}

TEST(RealCelery, ATaskWhoseRetriesRunOutIsDiscardedNotLost) {
  // Every attempt fails (failure_rate 1) within its 1 s, and the task has 2 attempts: the
  // first fails, autoretry sends it back after 1 s (retry_backoff), the second fails and
  // Celery fails it for good; no result backend keeps that, and the adapter says it
  // (task_failure): discarded by its own error, not lost and not a job loss, as the model.
  const Scenario s = parse_scenario(R"({"name": "cel-errors", "duration": "1s", "settle": "30s",
    "workload": {"arrival": {"kind": "list", "at": ["0s"]}, "failure_rate": 1,
                 "job_duration": {"kind": "constant", "value": "1s"}},
    "backend": {"retry": {"max_attempts": 2}},
    "worker": {"profile": "celery", "concurrency": 1, "options": {"drops_late_fetch": true}},
    "platform": {"replicas": 1, "pod_start_delay": "0s"}, "events": []})",
                                    "cel-errors.json");
  const RunOutput out = run_real(s, real_system("celery-redis"));
  const JobTotals& j = out.summary.jobs;
  EXPECT_TRUE(out.summary.audit.ok);
  EXPECT_EQ(j.discarded, 1);
  EXPECT_EQ(j.lost, 0);
  EXPECT_EQ(out.summary.job_loss(), 0);
  const std::vector<json> rows = attempts(out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][1], 1);
  EXPECT_EQ(rows[0][7], "failed");
  EXPECT_EQ(rows[1][1], 2);
  EXPECT_EQ(rows[1][7], "failed");
  // The retry waits 1 s after the first attempt's failure.
  EXPECT_NEAR(rows[1][5].get<double>() - rows[0][6].get<double>(), 1, 0.3);
  const RunOutput model = run_scenario(s, RunOptions{});
  EXPECT_EQ(model.summary.jobs.discarded, 1);
  EXPECT_EQ(model.summary.job_loss(), 0);
}

TEST(RealCelery, OnRabbitmqAPoolChildsTaskGoesBackToItsQueueWithRejectOnWorkerLost) {
  // acks_late with task_reject_on_worker_lost on RabbitMQ: the main process rejects job 0's
  // message back to its queue when its child dies at 6 s, and the replaced child runs it
  // again at once, 8 s, as attempt 1 (a requeue counts no retry in Celery): nothing lost,
  // one shutdown retry, as the model has it.
  const Scenario s =
      child_kill(R"({"acks_late": true, "reject_on_worker_lost": true, "rabbitmq": true})");
  const RunOutput out = run_real(s, real_system("celery-rabbitmq"));
  const JobTotals& j = out.summary.jobs;
  EXPECT_TRUE(out.summary.audit.ok);
  EXPECT_EQ(j.completed, 2);
  EXPECT_EQ(j.discarded, 0);
  EXPECT_EQ(j.lost, 0);
  EXPECT_EQ(j.shutdown_retries, 1);
  EXPECT_EQ(j.duplicate_executions, 0);
  const std::vector<json> rows = attempts(out);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0][0], 0);
  EXPECT_EQ(rows[0][7], "killed");
  EXPECT_NEAR(rows[0][6].get<double>(), 6, 0.2);
  EXPECT_EQ(rows[2][0], 0);
  EXPECT_EQ(rows[2][1], 1);
  EXPECT_EQ(rows[2][7], "completed");
  EXPECT_GE(rows[2][5].get<double>(), 6);
  EXPECT_LE(rows[2][5].get<double>(), 8);
  EXPECT_NEAR(rows[2][6].get<double>() - rows[2][5].get<double>(), 8, 0.2);
  const RunOutput model = run_scenario(s, RunOptions{});
  EXPECT_EQ(model.summary.jobs.completed, 2);
  EXPECT_EQ(model.summary.jobs.shutdown_retries, 1);
}

TEST(RealPgBoss, StopWaitsItsTimeoutThenLeavesTheRunningJobActive) {
  // pg-boss 9 on PostgreSQL 15, two work() subscriptions (each polls every 2 s): job 0
  // (1 s) at 0 runs at once; job 1 (30 s) at 0.5 s is taken on the next poll. The pod is
  // deleted at 5 s: stop({timeout: 3 s}) waits for job 1, checking every second, and
  // stops at TERM + 3 s; the process exits 0 at 8 s, leaving job 1 active in pgboss.job
  // (pg-boss 9 does not fail it; it waits out its 15 min expiry). At the end it is
  // pending, stuck, and nobody's: its one attempt was abandoned.
  const Scenario s = parse_scenario(R"({"name": "pgb-term", "duration": "3s", "settle": "15s",
    "workload": {"arrival": {"kind": "list", "at": ["0s", "0.5s"]},
                 "job_duration": {"kind": "sequence", "values": ["1s", "30s"]}},
    "worker": {"profile": "pg-boss", "concurrency": 2, "grace_period": "3s",
               "options": {"fails_active_at_stop": false}},
    "platform": {"replicas": 1, "termination_grace_period": "10s", "pod_start_delay": "0s"},
    "events": [{"at": "5s", "kind": "delete_pod", "pod": "pod-0"}]})",
                                    "pgb-term.json");
  const RunOutput out = run_real(s, real_system("pg-boss"));
  const JobTotals& j = out.summary.jobs;
  EXPECT_TRUE(out.summary.audit.ok);
  EXPECT_EQ(j.completed, 1);
  EXPECT_EQ(j.pending, 1);
  EXPECT_EQ(j.stuck_at_end, 1);
  EXPECT_EQ(j.lost, 0);
  const json* p0 = process_of(out, 0);
  EXPECT_EQ(p0->at("exit"), "clean");
  EXPECT_NEAR(p0->at("drain_latency_s").get<double>(), 3, 0.4);
  const std::vector<json> rows = attempts(out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1][0], 1);
  EXPECT_EQ(rows[1][7], "abandoned");
  EXPECT_NEAR(rows[1][6].get<double>(), 8, 0.4);
  EXPECT_EQ(out.results.at("real").at("versions").at("pg-boss"), "9.0.3");
}

TEST(RealPgBoss, AJobLongerThanItsExpireInRunsTwiceEachRunToItsEnd) {
  // expireIn 6 s is also the handler's time limit in work(): job 0 (10 s), fetched at the
  // worker's start, is failed by its own worker 6 s later and retried at once (retryLimit
  // 1); the subscription, free again, takes it straight back while the first run goes on to
  // its end. The second run is failed 6 s after its fetch too: the job fails for good, and
  // both runs complete their work: one duplicate, one redelivery, and a job discarded by
  // its leases' expiry (a loss). The model says the same.
  const Scenario s = parse_scenario(R"({"name": "pgb-expire", "duration": "1s", "settle": "25s",
    "workload": {"arrival": {"kind": "list", "at": ["0s"]},
                 "job_duration": {"kind": "constant", "value": "10s"}},
    "backend": {"visibility_timeout": "6s", "retry": {"max_attempts": 2}},
    "worker": {"profile": "pg-boss", "concurrency": 1, "options": {"fails_active_at_stop": false}},
    "platform": {"replicas": 1, "pod_start_delay": "0s"}})",
                                    "pgb-expire.json");
  const RunOutput out = run_real(s, real_system("pg-boss"));
  const JobTotals& j = out.summary.jobs;
  EXPECT_TRUE(out.summary.audit.ok);
  EXPECT_EQ(j.completed, 0);
  EXPECT_EQ(j.discarded, 1);
  EXPECT_EQ(j.duplicate_executions, 1);
  EXPECT_EQ(j.redeliveries, 1);
  EXPECT_EQ(out.summary.job_loss(), 1);
  const std::vector<json> rows = attempts(out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][7], "completed");
  EXPECT_EQ(rows[1][7], "duplicate");
  // The second run starts at the first one's timeout, while the first goes on 4 s more.
  EXPECT_NEAR(rows[1][5].get<double>() - rows[0][5].get<double>(), 6, 0.5);
  EXPECT_NEAR(rows[0][6].get<double>() - rows[0][5].get<double>(), 10, 0.5);
  const RunOutput model = run_scenario(s, RunOptions{});
  EXPECT_EQ(model.summary.jobs.duplicate_executions, 1);
  EXPECT_EQ(model.summary.jobs.redeliveries, 1);
  EXPECT_EQ(model.summary.job_loss(), 1);
}

TEST(RealPgBoss, ASingletonClassRefusesAPushWhileItsJobIsUnfinished) {
  // pg-boss 9's singletonKey: every job of the class "report" shares one key. Job 0 (5 s)
  // at 0 runs from the worker's first fetch (the model's first poll is at 2 s); the push of
  // job 1 at 1 s finds the key taken and creates no job (send() returns null); job 2 at
  // 10 s, after job 0 completed (by 7 s), is created and runs. The model says the same.
  const Scenario s = parse_scenario(R"({"name": "pgb-single", "duration": "11s", "settle": "15s",
    "workload": {"arrival": {"kind": "list", "at": ["0s", "1s", "10s"]},
                 "job_duration": {"kind": "sequence", "values": ["5s", "1s", "1s"]},
                 "classes": [{"name": "report", "singleton": true, "retry": {"max_attempts": 1}}]},
    "worker": {"profile": "pg-boss", "concurrency": 2, "options": {"fails_active_at_stop": false}},
    "platform": {"replicas": 1, "pod_start_delay": "0s"}})",
                                    "pgb-single.json");
  const RunOutput out = run_real(s, real_system("pg-boss"));
  const JobTotals& j = out.summary.jobs;
  EXPECT_TRUE(out.summary.audit.ok);
  EXPECT_EQ(j.enqueued, 2);
  EXPECT_EQ(j.pushes_refused, 1);
  EXPECT_EQ(j.completed, 2);
  EXPECT_EQ(j.lost, 0);
  const std::vector<json> rows = attempts(out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][0], 0);
  EXPECT_EQ(rows[1][0], 2);
  EXPECT_GE(rows[1][5].get<double>(), 10);
  const RunOutput model = run_scenario(s, RunOptions{});
  EXPECT_EQ(model.summary.jobs.enqueued, 2);
  EXPECT_EQ(model.summary.jobs.pushes_refused, 1);
}

TEST(RealPgBoss10, StopFailsTheJobStillActiveAtItsTimeoutAndItRunsAgainAtOnce) {
  // The same TERM on pg-boss 10 (fails_active_at_stop, the profile's default): job 1 (10 s
  // here) still runs when stop()'s 3 s timeout ends at 8 s, so pg-boss fails it ("shut
  // down while active") and the worker exits 0, its body ending interrupted. retryLimit 2
  // retries it at once: the replacement pod-1 (up since ~6 s) takes it within its 2 s poll
  // and runs it, as attempt 2 (pg-boss 10 counts a retry when it fetches the job again),
  // to completion. Nothing pending, nothing lost, one shutdown retry.
  const Scenario s = parse_scenario(R"({"name": "pgb10-term", "duration": "3s", "settle": "30s",
    "workload": {"arrival": {"kind": "list", "at": ["0s", "0.5s"]},
                 "job_duration": {"kind": "sequence", "values": ["1s", "10s"]}},
    "worker": {"profile": "pg-boss", "concurrency": 2, "grace_period": "3s"},
    "platform": {"replicas": 1, "termination_grace_period": "10s", "pod_start_delay": "0s"},
    "events": [{"at": "5s", "kind": "delete_pod", "pod": "pod-0"}]})",
                                    "pgb10-term.json");
  const RunOutput out = run_real(s, real_system("pg-boss-10"));
  const JobTotals& j = out.summary.jobs;
  EXPECT_TRUE(out.summary.audit.ok);
  EXPECT_EQ(j.completed, 2);
  EXPECT_EQ(j.pending, 0);
  EXPECT_EQ(j.lost, 0);
  EXPECT_EQ(j.shutdown_retries, 1);
  const json* p0 = process_of(out, 0);
  EXPECT_EQ(p0->at("exit"), "clean");
  EXPECT_NEAR(p0->at("drain_latency_s").get<double>(), 3, 0.4);
  const std::vector<json> rows = attempts(out);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1][0], 1);
  EXPECT_EQ(rows[1][2], 0);
  EXPECT_EQ(rows[1][7], "interrupted");
  EXPECT_NEAR(rows[1][6].get<double>(), 8, 0.4);
  EXPECT_EQ(rows[2][0], 1);
  EXPECT_EQ(rows[2][1], 2);
  EXPECT_EQ(rows[2][2], 1);
  EXPECT_EQ(rows[2][7], "completed");
  EXPECT_GE(rows[2][5].get<double>(), 8);
  EXPECT_LE(rows[2][5].get<double>(), 10.5);
  EXPECT_NEAR(rows[2][6].get<double>() - rows[2][5].get<double>(), 10, 0.2);
  EXPECT_EQ(out.results.at("real").at("versions").at("pg-boss"), "10.4.2");
}

TEST(RealGraphileWorker, ASerialClassRunsItsJobsOneAtATimeInItsNamedQueue) {
  // graphile-worker's named job queues: every job of the class "ledger" goes to the queue
  // "drainsim-ledger", which runs one job at a time though the worker has 3 slots. Jobs
  // 0-2 (2 s each) at 0, 0.2 s and 0.4 s: each starts once the one before it has
  // completed (within the worker's 2 s poll), never beside it. Without the class they would
  // all run at once.
  const Scenario s = parse_scenario(R"({"name": "gw-serial", "duration": "1s", "settle": "20s",
    "workload": {"arrival": {"kind": "list", "at": ["0s", "0.2s", "0.4s"]},
                 "job_duration": {"kind": "constant", "value": "2s"},
                 "classes": [{"name": "ledger", "serial": true}]},
    "worker": {"profile": "graphile-worker", "concurrency": 3},
    "platform": {"replicas": 1, "pod_start_delay": "0s"}})",
                                    "gw-serial.json");
  const RunOutput out = run_real(s, real_system("graphile-worker"));
  const JobTotals& j = out.summary.jobs;
  EXPECT_TRUE(out.summary.audit.ok);
  EXPECT_EQ(j.completed, 3);
  const std::vector<json> rows = attempts(out);
  ASSERT_EQ(rows.size(), 3u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i][0], static_cast<int>(i));  // in queue order
    EXPECT_NEAR(rows[i][6].get<double>() - rows[i][5].get<double>(), 2, 0.2);
    if (i == 0) continue;
    EXPECT_GE(rows[i][5].get<double>(), rows[i - 1][6].get<double>()) << "job " << i;
    EXPECT_LE(rows[i][5].get<double>(), rows[i - 1][6].get<double>() + 2.3) << "job " << i;
  }
}

TEST(RealGraphileWorker, AbortsTheJobFiveSecondsAfterTermAndRetriesItAfterItsBackoff) {
  // graphile-worker 0.16 on PostgreSQL 15, -c 3, its own signal handling: jobs 1 s at 0,
  // 10 s at 0.5 s, 7 s at 1 s; a job takes 1 s to return once cancelled. The pod is
  // deleted at 4 s: graceful shutdown; job 2 ends at 8 s; at TERM + 5 s
  // (gracefulShutdownAbortTimeout) job 1's abortSignal fires, the job returns 1 s later,
  // at 10 s, interrupted, and fails, and the process kills itself with SIGTERM. Its retry
  // is due e^1 = 2.72 s after the failure and is taken within the 2 s poll by the
  // replacement pod-1: it runs its 10 s there. Nothing lost, one shutdown retry.
  const Scenario s = parse_scenario(R"({"name": "gw-term", "duration": "3s", "settle": "40s",
    "workload": {"arrival": {"kind": "list", "at": ["0s", "0.5s", "1s"]},
                 "job_duration": {"kind": "sequence", "values": ["1s", "10s", "7s"]},
                 "cancel": {"latency": "1s"}},
    "worker": {"profile": "graphile-worker", "concurrency": 3},
    "platform": {"replicas": 1, "termination_grace_period": "20s", "pod_start_delay": "0s"},
    "events": [{"at": "4s", "kind": "delete_pod", "pod": "pod-0"}]})",
                                    "gw-term.json");
  const RunOutput out = run_real(s, real_system("graphile-worker"));
  const JobTotals& j = out.summary.jobs;
  EXPECT_TRUE(out.summary.audit.ok);
  EXPECT_EQ(j.completed, 3);
  EXPECT_EQ(j.lost, 0);
  EXPECT_EQ(j.interrupted, 1);
  EXPECT_EQ(j.shutdown_retries, 1);
  const json* p0 = process_of(out, 0);
  EXPECT_EQ(p0->at("exit"), "died_on_term");
  EXPECT_NEAR(p0->at("ended_s").get<double>(), 10, 0.4);
  json interrupted, rerun;
  for (const json& r : attempts(out)) {
    if (r[0] == 1 && r[7] == "interrupted") interrupted = r;
    if (r[0] == 1 && r[7] == "completed") rerun = r;
  }
  ASSERT_FALSE(interrupted.is_null());
  ASSERT_FALSE(rerun.is_null());
  EXPECT_NEAR(interrupted[6].get<double>(), 10, 0.3);
  EXPECT_EQ(rerun[1], 2);
  EXPECT_EQ(rerun[2], 1);  // on pod-1
  EXPECT_GE(rerun[5].get<double>(), interrupted[6].get<double>() + 2.7);
  EXPECT_LE(rerun[5].get<double>(), interrupted[6].get<double>() + 5.2);
  EXPECT_NEAR(rerun[6].get<double>() - rerun[5].get<double>(), 10, 0.2);
  EXPECT_EQ(out.results.at("real").at("versions").at("graphile-worker"), "0.16.6");
}

// Processes whose command line or environment mentions `text`.
std::vector<int> processes_mentioning(const std::string& text) {
  std::vector<int> out;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    for (const char* file : {"cmdline", "environ"}) {
      std::ifstream f(entry.path() / file, std::ios::binary);
      const std::string data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      if (data.find(text) != std::string::npos) {
        out.push_back(std::stoi(name));
        break;
      }
    }
  }
  return out;
}

TEST(RealSidekiq, CtrlCLeavesNoProcessAndNoBrokerBehind) {
  // `drainsim real` with a worker running a long job and the enqueuer waiting: SIGINT
  // ends it (exit 130), and nothing it started lives on: no process mentions the run's
  // folder (Redis's socket, the workers' events file) and the folder is gone. Its partial
  // results are written: job 0 (60 s from 0 s) was running, so the broker, asked before the
  // workers were killed, held it: pending, its attempt in flight, nothing lost.
  const fs::path dir = fs::temp_directory_path() / "drainsim_real_ctrl_c";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "s.json") << R"({"name": "sk-int", "duration": "60s", "settle": "60s",
    "workload": {"arrival": {"kind": "list", "at": ["0s", "30s"]},
                 "job_duration": {"kind": "constant", "value": "60s"}},
    "worker": {"profile": "sidekiq"},
    "platform": {"replicas": 2, "pod_start_delay": "0s"}})";
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string err = (dir / "err.txt").string();
    freopen(err.c_str(), "w", stderr);
    freopen((dir / "out.txt").c_str(), "w", stdout);
    execl(DRAINSIM_BINARY, DRAINSIM_BINARY, "real", (dir / "s.json").c_str(), "--system", "sidekiq",
          "--out-dir", dir.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait for the broker's folder and a job running in it.
  std::string folder;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < until) {
    std::ifstream err(dir / "err.txt");
    const std::string text((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>());
    const std::size_t at = text.find("(folder ");
    if (at != std::string::npos) {
      folder = text.substr(at + 8, text.find(')', at) - at - 8);
      std::ifstream events(folder + "/events.jsonl");
      const std::string ev((std::istreambuf_iterator<char>(events)),
                           std::istreambuf_iterator<char>());
      if (ev.find("\"start\"") != std::string::npos) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_FALSE(folder.empty());
  EXPECT_GE(processes_mentioning(folder).size(), 4u);  // redis, 2 workers, the enqueuer
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_TRUE(processes_mentioning(folder).empty());
  EXPECT_FALSE(fs::exists(folder));
  std::ifstream err(dir / "err.txt");
  const std::string text((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("partial results written to " + (dir / "sk-int-sidekiq-1.json").string() +
                      " (run.interrupted)"),
            std::string::npos)
      << text;
  const json doc = json::parse(std::ifstream(dir / "sk-int-sidekiq-1.json"));
  EXPECT_EQ(doc["run"]["interrupted"], true);
  EXPECT_EQ(doc["run"]["interrupted_by"], "signal");
  EXPECT_EQ(doc["run"]["attempts_in_flight_at_end"], 1);
  const json& summary = doc["summary"];
  EXPECT_EQ(summary["audit"]["ok"], true) << summary["audit"].dump();
  EXPECT_EQ(summary["jobs_enqueued"], 1);
  EXPECT_EQ(summary["jobs_pending"], 1);
  EXPECT_EQ(summary["jobs_lost"], 0);
  EXPECT_EQ(doc["warnings"].back()["code"], "interrupted");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace drainsim
