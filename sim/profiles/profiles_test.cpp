// One distinctive case per profile, worked by hand (docs/profiles.md): one pod (two where a
// second process start matters), a few jobs of known durations, one deploy event.
// Kubernetes: a pod is ready 5 s after it is created, a crashed container 10 + 5 s after
// it died; a deleted pod gets a replacement at once (pod-1, pod-2, ...).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/scenario_reader.h"
#include "run/run_scenario.h"

namespace drainsim {
namespace {

using nlohmann::json;

// `jobs` durations (sequence), all arriving at 0; `worker`, `platform` and `backend` are
// spliced into those objects; retry jitter is off so backoffs are exact, and the worker
// programs start at once (kNoStartup: their start-up has its own cases below).
std::string scenario(const std::string& profile, const std::string& jobs, int concurrency,
                     const std::string& events, const std::string& worker = "",
                     const std::string& platform = "", int count = -1) {
  const int n = count >= 0 ? count : static_cast<int>(json::parse(jobs).size());
  return R"({"name": "case", "duration": "1s", "settle": "3h",
    "workload": {"arrival": {"kind": "burst", "count": )" +
         std::to_string(n) + R"(, "at": "0s"},
                 "job_duration": {"kind": "sequence", "values": )" +
         jobs + R"(}},
    "backend": {"retry": {"jitter": false}},
    "worker": {"startup": {"kind": "constant", "value": "0s"}, "profile": ")" +
         profile + R"(", "concurrency": )" + std::to_string(concurrency) + worker + R"(},
    "platform": {"replicas": 1, "pod_start_delay": "5s", "restart_delay": "10s")" +
         platform + R"(},
    "events": )" +
         events + "}";
}

// `text` (a scenario()) with its workload's fields preceded by `fields` (`"name": value, `).
std::string with_workload(std::string text, const std::string& fields) {
  return text.replace(text.find(R"("workload": {)"), 13, R"("workload": {)" + fields);
}
constexpr const char* kUncooperative = R"("cancel": {"cooperative_fraction": 0}, )";

struct Attempt {
  std::uint64_t job;
  int attempt, pod;
  double start, end;
  std::string outcome;
  bool operator==(const Attempt&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Attempt& a) {
  return os << "{job " << a.job << " #" << a.attempt << " pod-" << a.pod << " " << a.start << "-"
            << a.end << " " << a.outcome << "}";
}

struct Replay {
  json summary;
  std::vector<Attempt> attempts;
};

Replay run(const std::string& text) {
  RunOptions options;
  options.timeline = true;
  const RunOutput out = run_scenario(parse_scenario(text, "case"), options);
  EXPECT_TRUE(out.summary.audit.ok)
      << (out.summary.audit.errors.empty() ? "" : out.summary.audit.errors.front());
  Replay r{out.results["summary"], {}};
  for (const json& row : out.results["timeline"]["attempts"]["rows"]) {
    r.attempts.push_back({row[0].get<std::uint64_t>(), row[1].get<int>(), row[2].get<int>(),
                          row[5].get<double>(), row[6].get<double>(), row[7].get<std::string>()});
  }
  return r;
}

constexpr const char* kOomAt20s = R"([{"at": "20s", "kind": "oom_kill", "pod": "pod-0"}])";
constexpr const char* kDeleteAt10s = R"([{"at": "10s", "kind": "delete_pod", "pod": "pod-0"}])";

TEST(Profiles, SidekiqLosesTheJobsOfAnOomKilledProcess) {
  // BasicFetch: two 60 s jobs fetched at 0 live only in pod-0's memory; the OOM kill at
  // 20 s loses both. The third waits in Redis and runs on the restarted container (ready
  // at 35 s) until 95 s.
  const Replay r = run(scenario("sidekiq", R"(["60s", "60s", "60s"])", 2, kOomAt20s));
  EXPECT_EQ(r.summary["jobs_lost"], 2);
  EXPECT_EQ(r.summary["job_loss"], 2);
  EXPECT_EQ(r.summary["jobs_completed"], 1);
  EXPECT_EQ(r.attempts, (std::vector<Attempt>{{0, 1, 0, 0, 20, "killed"},
                                              {1, 1, 0, 0, 20, "killed"},
                                              {2, 1, 0, 35, 95, "completed"}}));
}

TEST(Profiles, SidekiqLosesAJobPushedWhileItsKilledProcessIsTornDown) {
  // An idle Sidekiq (its fetcher in BRPOP) is OOM-killed at 10 s. Its BRPOP stays
  // registered for the 3.4 ms teardown: the job pushed at 10.001 s is handed to the dead
  // process and lost; the one at 10.02 s waits for the restarted container (crashed for
  // 1 s, starting for 1 s: up at 12 s) and runs then.
  const Replay r = run(R"({"name": "case", "duration": "11s", "settle": "1m",
    "workload": {"arrival": {"kind": "list", "at": ["10001ms", "10020ms"]},
                 "job_duration": {"kind": "constant", "value": "1s"}},
    "worker": {"profile": "sidekiq", "concurrency": 1, "startup": {"kind": "constant", "value": "0s"}},
    "platform": {"replicas": 1, "pod_start_delay": "1s", "restart_delay": "1s"},
    "events": [{"at": "10s", "kind": "oom_kill", "pod": "pod-0"}]})");
  EXPECT_EQ(r.summary["jobs_lost"], 1);
  EXPECT_EQ(r.attempts, (std::vector<Attempt>{{1, 1, 0, 12, 13, "completed"}}));
}

TEST(Profiles, SidekiqRequeuesToTheFrontAtTheTimeoutWithoutCountingAnAttempt) {
  // One slot. TERM at 10 s; pod-1 (ready at 15 s) takes job 1. Once no more than 0.5 s of
  // the 25 s timeout is left (34.5 s), pod-0 pushes job 0 back to the FRONT, ahead of job 2,
  // as the same attempt 1; the push lands 1 ms later (requeue_cost). pod-1 runs it at 75 s
  // (after job 1), then job 2 at 135 s. pod-0 exits at the timeout, 35 s.
  const Replay r = run(scenario("sidekiq", R"(["60s", "60s", "5s"])", 1, kDeleteAt10s));
  EXPECT_EQ(r.summary["drain_latency_s"]["max"], 25.0);
  EXPECT_EQ(r.attempts, (std::vector<Attempt>{{0, 1, 0, 0, 34.501, "interrupted"},
                                              {1, 1, 1, 15, 75, "completed"},
                                              {0, 1, 1, 75, 135, "completed"},
                                              {2, 1, 1, 135, 140, "completed"}}));
  EXPECT_EQ(r.summary["shutdown_retries"], 1);
  EXPECT_EQ(r.summary["job_loss"], 0);
  EXPECT_EQ(r.summary["drain_latency_s"]["max"], 25.0);
}

TEST(Profiles, SidekiqLosesAJobItRequeuesToAProcessorStillInBrpopAtTheHardShutdown) {
  // Two processors, -t 1 s. Job 0 (60 s) runs from 0 s; the other processor is idle from
  // 0 s, in BRPOPs of 2 s: 0-2, 2-4, ... s. pod-1 (created at the TERM) is ready 5 s after.
  auto with = [](const std::string& term, const std::string& arrivals, int seed) {
    return run(R"({"name": "case", "seed": )" + std::to_string(seed) +
               R"(, "duration": "20s", "settle": "1m",
      "workload": {"arrival": {"kind": "list", "at": )" +
               arrivals + R"(}, "job_duration": {"kind": "sequence", "values": ["60s", "5s"]}},
      "worker": {"profile": "sidekiq", "concurrency": 2, "grace_period": "1s",
                 "startup": {"kind": "constant", "value": "0s"}},
      "platform": {"replicas": 1, "pod_start_delay": "5s"},
      "events": [{"at": ")" +
               term + R"(", "kind": "delete_pod", "pod": "pod-0"}]})");
  };
  // TERM at 11 s: the idle processor's BRPOP runs until 12 s. hard_shutdown at 11.5 s
  // pushes job 0 back (landing at 11.501 s); that BRPOP pops it, and the processor is killed
  // at once: before it reads the job (lost when pod-0 exits at 12 s) with probability
  // late_fetch_killed, 0.35; else it pushes it back first and pod-1 runs it at 16 s. Over
  // 200 seeds: 70 lost expected, sd 6.7; both fates seen.
  int lost = 0;
  for (int seed = 1; seed <= 200; ++seed) {
    const Replay r = with("11s", R"(["0s"])", seed);
    ASSERT_GE(r.attempts.size(), 1u);
    EXPECT_EQ(r.attempts[0], (Attempt{0, 1, 0, 0, 11.501, "interrupted"}));
    if (r.summary["jobs_lost"] == 1) {
      ++lost;
      EXPECT_EQ(r.attempts.size(), 1u);
    } else {
      EXPECT_EQ(r.attempts, (std::vector<Attempt>{{0, 1, 0, 0, 11.501, "interrupted"},
                                                  {0, 1, 1, 16, 76, "completed"}}));
    }
  }
  EXPECT_GE(lost, 50);
  EXPECT_LE(lost, 90);
  // TERM at 10 s: that BRPOP returned at 10 s, and the processor stopped. Job 0, pushed
  // back at 10.501 s, waits for pod-1 (ready at 15 s), whatever the seed.
  for (int seed = 1; seed <= 20; ++seed) {
    const Replay kept = with("10s", R"(["0s"])", seed);
    EXPECT_EQ(kept.summary["jobs_lost"], 0);
    EXPECT_EQ(kept.attempts, (std::vector<Attempt>{{0, 1, 0, 0, 10.501, "interrupted"},
                                                   {0, 1, 1, 15, 75, "completed"}}));
  }
  // TERM at 11 s, job 1 pushed at 11.2 s: the blocked BRPOP pops it and the processor,
  // stopping, pushes it back (the next one popped) and ends: no kill yet to race. Nothing is
  // blocked at 11.5 s: job 0 goes back ahead of job 1, and pod-1 runs both from 16 s.
  for (int seed = 1; seed <= 20; ++seed) {
    const Replay handed_back = with("11s", R"(["0s", "11200ms"])", seed);
    EXPECT_EQ(handed_back.summary["jobs_lost"], 0);
    EXPECT_EQ(handed_back.attempts, (std::vector<Attempt>{{0, 1, 0, 0, 11.501, "interrupted"},
                                                          {1, 1, 1, 16, 21, "completed"},
                                                          {0, 1, 1, 16, 76, "completed"}}));
  }
}

TEST(Profiles, SidekiqProGetsOrphansBackOnlyWhenAProcessStarts) {
  // super_fetch: the OOM kill at 20 s parks both jobs in pod-0's private list (its last
  // heartbeat at 10 s; heartbeats every 10 s). Cleanup runs when a process starts, at most
  // once a minute: pod-0's own start at 0 s was one, so the restarted container (35 s)
  // does none. No process starts again until the scale-up at 100 s: pod-1 starts at
  // 105 s, finds pod-0's first process silent for 95 s (TTL 60 s) and puts both jobs back,
  // not counted as attempts.
  const std::string events = R"([{"at": "20s", "kind": "oom_kill", "pod": "pod-0"},
                                  {"at": "100s", "kind": "scale_up", "replicas": 2}])";
  const Replay r = run(scenario("sidekiq-pro", R"(["60s", "60s"])", 2, events));
  EXPECT_EQ(r.summary["jobs_lost"], 0);
  EXPECT_EQ(r.summary["jobs_completed"], 2);
  ASSERT_EQ(r.attempts.size(), 4u);
  EXPECT_EQ(r.attempts[2].start, 105);
  EXPECT_EQ(r.attempts[2].attempt, 1);
  EXPECT_EQ(r.attempts[3].start, 105);
  EXPECT_EQ(r.summary["orphan_recovery_delay_s"]["max"], 85.0);
  // Without that start they stay parked to the end.
  const Replay stuck = run(scenario("sidekiq-pro", R"(["60s", "60s"])", 2, kOomAt20s));
  EXPECT_EQ(stuck.summary["stuck_at_end"], 2);
}

TEST(Profiles, RiverLeavesAKilledJobRunningUntilTheHourlyRescueThenRetriesIt) {
  // The job (fetched at 0) dies with pod-0 at 20 s and stays `running`. The rescuer runs
  // every 30 s and takes jobs attempted an hour ago: at 3600 s. Retryable, attempt
  // counted, backoff 1 s (attempt 1, no jitter): the restarted pod runs attempt 2 at 3601 s.
  const Replay r = run(scenario("river", R"(["60s"])", 1, kOomAt20s));
  EXPECT_EQ(r.attempts,
            (std::vector<Attempt>{{0, 1, 0, 0, 20, "killed"}, {0, 2, 0, 3601, 3661, "completed"}}));
  EXPECT_EQ(r.summary["orphan_recovery_delay_s"]["max"], 3581.0);
  EXPECT_EQ(r.summary["shutdown_retries"], 1);
}

TEST(Profiles, BullmqFailsAJobForGoodOnItsSecondStall) {
  // Lock 30 s, extended every 7.5 s; the stalled check runs in the live workers, at their
  // start and every 30 s, at most once per 30 s, and takes back only a job it saw at the
  // previous check with no extension since. OOM at 20 s: the lock (extended at 15 s) lapses
  // at 45 s; nobody checks until the restarted container starts at 35 s: that check sees the
  // job for the first time (marks it); its next, at 65 s, takes it back (stall 1) and the
  // same worker runs it again at once. The second OOM at 70 s: the lock (from 65 s) lapses
  // at 95 s; the third process starts at 85 s, too soon after the check at 65 s to run one;
  // at 115 s it marks the job, at 145 s takes it back (stall 2) and, fetching it, fails it
  // for good.
  const std::string events = R"([{"at": "20s", "kind": "oom_kill", "pod": "pod-0"},
                                  {"at": "70s", "kind": "oom_kill", "pod": "pod-0"}])";
  const Replay r = run(scenario("bullmq", R"(["120s"])", 1, events));
  EXPECT_EQ(r.attempts,
            (std::vector<Attempt>{{0, 1, 0, 0, 20, "killed"}, {0, 1, 0, 65, 70, "killed"}}));
  // Back in wait at 65 s (killed at 20 s) and at 145 s (killed at 70 s), failed only then.
  EXPECT_EQ(r.summary["orphan_recovery_delay_s"]["count"], 2);
  EXPECT_EQ(r.summary["orphan_recovery_delay_s"]["max"], 75.0);
  EXPECT_EQ(r.summary["jobs_discarded"], 1);
  EXPECT_EQ(r.summary["job_loss"], 1);
}

TEST(Profiles, CeleryEarlyAckLosesAKilledTaskAndAcksLateRedeliversIt) {
  // Early ack (default): the task was acknowledged as it started, so the OOM kill loses it.
  const Replay early = run(scenario("celery", R"(["60s"])", 1, kOomAt20s));
  EXPECT_EQ(early.summary["jobs_lost"], 1);
  // acks_late: the message comes back once it is older than its 1 h visibility timeout
  // (from the delivery at 0), at a restore of the restarted container's (started at 35 s:
  // restores at 35 s, 125 s, then every 100 s): at 3625 s, with no attempt counted.
  const Replay late =
      run(scenario("celery", R"(["60s"])", 1, kOomAt20s, R"(, "options": {"acks_late": true})"));
  EXPECT_EQ(late.summary["jobs_lost"], 0);
  EXPECT_EQ(late.attempts,
            (std::vector<Attempt>{{0, 1, 0, 0, 20, "killed"}, {0, 1, 0, 3625, 3685, "completed"}}));
  // On RabbitMQ the message is requeued when the killed worker's connection closes, at
  // 20 s: the restarted container (ready at 35 s) runs it at once, attempt 1 still.
  const Replay rabbit = run(scenario("celery", R"(["60s"])", 1, kOomAt20s,
                                     R"(, "options": {"acks_late": true, "rabbitmq": true})"));
  EXPECT_EQ(rabbit.attempts,
            (std::vector<Attempt>{{0, 1, 0, 0, 20, "killed"}, {0, 1, 0, 35, 95, "completed"}}));
  EXPECT_EQ(rabbit.summary["orphan_recovery_delay_s"]["max"], 0.0);
  EXPECT_EQ(rabbit.summary["shutdown_retries"], 1);
  // Early ack on RabbitMQ: acknowledged before it ran, so lost all the same.
  const Replay rabbit_early =
      run(scenario("celery", R"(["60s"])", 1, kOomAt20s, R"(, "options": {"rabbitmq": true})"));
  EXPECT_EQ(rabbit_early.summary["jobs_lost"], 1);
}

TEST(Profiles, CeleryTasksFetchedAheadWaitForTheVisibilityTimeoutWhenTheWorkerIsKilled) {
  // One pool process, prefetch multiplier 4 (the default): at 0 it starts job 0 (60 s),
  // acknowledging it, and reserves jobs 1-4 unacknowledged; job 5 stays queued. The OOM kill
  // at 20 s loses job 0. On Redis jobs 1-4 sit in the unacked hash until a restore finds
  // them older than their visibility timeout, 1 h from the delivery at 0; the restarted
  // container (ready at 35 s) runs job 5 (35-45 s) and restores at 35 s, 125 s, then every
  // 100 s: at 3625 s it takes 1-4 back, attempt 1 still, and runs them in turn.
  const std::string jobs = R"(["60s", "10s", "10s", "10s", "10s", "10s"])";
  const Replay redis = run(scenario("celery", jobs, 1, kOomAt20s));
  EXPECT_EQ(redis.attempts, (std::vector<Attempt>{{0, 1, 0, 0, 20, "killed"},
                                                  {5, 1, 0, 35, 45, "completed"},
                                                  {1, 1, 0, 3625, 3635, "completed"},
                                                  {2, 1, 0, 3635, 3645, "completed"},
                                                  {3, 1, 0, 3645, 3655, "completed"},
                                                  {4, 1, 0, 3655, 3665, "completed"}}));
  EXPECT_EQ(redis.summary["jobs_lost"], 1);
  EXPECT_EQ(redis.summary["jobs_completed"], 5);
  // On RabbitMQ they come back to the front when the connection closes at 20 s: the
  // restarted container runs 1-4 from 35 s, then job 5.
  const Replay rabbit =
      run(scenario("celery", jobs, 1, kOomAt20s, R"(, "options": {"rabbitmq": true})"));
  EXPECT_EQ(rabbit.attempts, (std::vector<Attempt>{{0, 1, 0, 0, 20, "killed"},
                                                   {1, 1, 0, 35, 45, "completed"},
                                                   {2, 1, 0, 45, 55, "completed"},
                                                   {3, 1, 0, 55, 65, "completed"},
                                                   {4, 1, 0, 65, 75, "completed"},
                                                   {5, 1, 0, 75, 85, "completed"}}));
  // prefetch_multiplier 1: job 1 alone is reserved; 2-5 wait in Redis for the restart.
  const Replay one =
      run(scenario("celery", jobs, 1, kOomAt20s, R"(, "options": {"prefetch_multiplier": 1})"));
  EXPECT_EQ(one.attempts, (std::vector<Attempt>{{0, 1, 0, 0, 20, "killed"},
                                                {2, 1, 0, 35, 45, "completed"},
                                                {3, 1, 0, 45, 55, "completed"},
                                                {4, 1, 0, 55, 65, "completed"},
                                                {5, 1, 0, 65, 75, "completed"},
                                                {1, 1, 0, 3625, 3635, "completed"}}));
  // disable_prefetch (Celery 5.6): nothing reserved, all five run from 35 s.
  const Replay none =
      run(scenario("celery", jobs, 1, kOomAt20s, R"(, "options": {"disable_prefetch": true})"));
  EXPECT_EQ(none.attempts.back(), (Attempt{5, 1, 0, 75, 85, "completed"}));
  EXPECT_EQ(none.summary["jobs_completed"], 5);
}

TEST(Profiles, CeleryHandsItsReservedTasksBackWhenAWarmShutdownEnds) {
  // One pool process runs job 0 (20 s) and reserves jobs 1 and 2. The TERM at 10 s starts
  // a warm shutdown: the reserved tasks are not started; job 0 ends at 20 s, the pool's
  // teardown takes 1.95 s more, and as the worker exits, at 21.95 s, it closes its
  // connection and the unacked messages go back. The replacement pod-1, waiting since
  // 15 s, runs job 1 (21.95-31.95 s) and job 2 (31.95-41.95 s).
  const Replay r = run(scenario("celery", R"(["20s", "10s", "10s"])", 1, kDeleteAt10s));
  EXPECT_EQ(r.attempts, (std::vector<Attempt>{{0, 1, 0, 0, 20, "completed"},
                                              {1, 1, 1, 21.95, 31.95, "completed"},
                                              {2, 1, 1, 31.95, 41.95, "completed"}}));
  EXPECT_EQ(r.summary["drain_latency_s"]["max"], 11.95);
  EXPECT_EQ(r.summary["job_loss"], 0);
}

TEST(Profiles, CeleryOnRedisLosesATaskPoppedByTheBrpopOutstandingAtItsWarmShutdown) {
  // An idle worker waits in kombu's BRPOPs of 1 s from 0 s: 0-1, 1-2, ... s. The TERM at
  // 10.5 s stops its event loop with the BRPOP of 10-11 s outstanding. Job 0, pushed at
  // 10.7 s, is popped for it and never read: lost as the worker exits, its pool torn down,
  // at 12.45 s. Job 1, pushed at 11.2 s, waits in Redis for pod-1 (ready at 15.5 s).
  // kombu 5.2.4 (drops_late_fetch); on kombu 5.3.2+ or RabbitMQ pod-1 runs both.
  auto with = [](const std::string& options) {
    return run(R"({"name": "case", "duration": "20s", "settle": "1m",
      "workload": {"arrival": {"kind": "list", "at": ["10700ms", "11200ms"]},
                   "job_duration": {"kind": "constant", "value": "1s"}},
      "worker": {"profile": "celery", "concurrency": 1, "options": )" +
               options + R"(, "startup": {"kind": "constant", "value": "0s"}},
      "platform": {"replicas": 1, "pod_start_delay": "5s"},
      "events": [{"at": "10500ms", "kind": "delete_pod", "pod": "pod-0"}]})");
  };
  const Replay redis = with(R"({"drops_late_fetch": true})");
  EXPECT_EQ(redis.summary["jobs_lost"], 1);
  EXPECT_EQ(redis.summary["drain_latency_s"]["max"], 1.95);
  EXPECT_EQ(redis.attempts, (std::vector<Attempt>{{1, 1, 1, 15.5, 16.5, "completed"}}));
  for (const char* options : {"{}", R"({"drops_late_fetch": true, "rabbitmq": true})"}) {
    const Replay kept = with(options);
    EXPECT_EQ(kept.summary["jobs_lost"], 0) << options;
    EXPECT_EQ(kept.attempts, (std::vector<Attempt>{{0, 1, 1, 15.5, 16.5, "completed"},
                                                   {1, 1, 1, 16.5, 17.5, "completed"}}))
        << options;
  }
}

TEST(Profiles, CeleryOnRedisHandsATaskToTheWorkerWhoseBrpopWasSentFirst) {
  // Two pods of one pool process that reserves nothing, ready at 5 s; kombu sends a 1 s
  // BRPOP whenever a worker may take a task, and again as each returns. Job 0 (2.2 s),
  // pushed at 5.1 s, goes to pod-0; pod-0 waits again from 7.3 s, its BRPOPs sent at x.3 s.
  // Job 1 (1 s), pushed at 7.2 s, goes to pod-1, which waits again from 8.2 s (x.2 s). Job
  // 2, pushed at 10.9 s, goes to pod-1, whose BRPOP was sent at 10.2 s, before pod-0's at
  // 10.3 s, though pod-0 has waited longer (since 7.3 s).
  const Replay r = run(R"({"name": "case", "duration": "20s", "settle": "1m",
      "workload": {"arrival": {"kind": "list", "at": ["5100ms", "7200ms", "10900ms"]},
                   "job_duration": {"kind": "sequence", "values": ["2200ms", "1s", "1s"]}},
      "worker": {"profile": "celery", "concurrency": 1, "options": {"disable_prefetch": true},
                 "startup": {"kind": "constant", "value": "0s"}},
      "platform": {"replicas": 2, "pod_start_delay": "5s"}})");
  EXPECT_EQ(r.attempts, (std::vector<Attempt>{{0, 1, 0, 5.1, 7.3, "completed"},
                                              {1, 1, 1, 7.2, 8.2, "completed"},
                                              {2, 1, 1, 10.9, 11.9, "completed"}}));
}

TEST(Profiles, CeleryFailsTheTaskOfAnOomKilledPoolChildUnlessItRejectsItBack) {
  // One pod of two pool children runs a 60 s and a 30 s task from 0 s. At 10 s the OOM
  // killer takes one child, the one whose task has run longest (both from 0 s: the first,
  // job 0); the worker replaces it and goes on, and the 30 s task completes at 30 s.
  const std::string child = R"([{"at": "10s", "kind": "oom_kill_child", "pod": "pod-0"}])";
  // Early ack (the default) and acks_late alike: WorkerLostError, the task fails for good.
  for (const char* options : {"", R"(, "options": {"acks_late": true})"}) {
    SCOPED_TRACE(options);
    const Replay r = run(scenario("celery", R"(["60s", "30s"])", 2, child, options));
    EXPECT_EQ(r.attempts,
              (std::vector<Attempt>{{0, 1, 0, 0, 10, "killed"}, {1, 1, 0, 0, 30, "completed"}}));
    EXPECT_EQ(r.summary["jobs_discarded_by_shutdown"], 1);
    EXPECT_EQ(r.summary["job_loss"], 1);
    EXPECT_EQ(r.summary["exits"]["oom_killed"], 0);  // the worker process lived on
  }
  // acks_late with task_reject_on_worker_lost: back to the front of the queue at 10 s and
  // run again at once in the replaced child (attempt 1 still): done at 70 s.
  const Replay reject =
      run(scenario("celery", R"(["60s", "30s"])", 2, child,
                   R"(, "options": {"acks_late": true, "reject_on_worker_lost": true})"));
  EXPECT_EQ(reject.attempts, (std::vector<Attempt>{{0, 1, 0, 0, 10, "killed"},
                                                   {1, 1, 0, 0, 30, "completed"},
                                                   {0, 1, 0, 10, 70, "completed"}}));
  EXPECT_EQ(reject.summary["job_loss"], 0);
  EXPECT_EQ(reject.summary["shutdown_retries"], 1);
}

TEST(Profiles, CeleryAcksLateTaskLongerThanTheVisibilityTimeoutCompletesAtItsFirstAck) {
  // A 3.5 h task on one pod with four slots, acks_late, the 1 h visibility timeout from each
  // delivery. The worker restores at its start (0), at 90 s, then every 100 s: the first
  // restore to find the message older than 1 h is at 3690 s, the next ones at 7290 and
  // 10890 s (exactly 1 h after each new delivery, both restore times), while the earlier
  // runs go on, and a free slot runs it each time. The first run finishes at 12600 s; its
  // ack names the delivery tag, which the restored message kept, so it completes the task
  // though the fourth run holds it. Nothing is restored after that; the other runs finish
  // 3.5 h after their starts as duplicates whose acks find nothing.
  std::string text =
      scenario("celery", R"(["210m"])", 4, "[]", R"(, "options": {"acks_late": true})");
  text.replace(text.find(R"("settle": "3h")"), 14, R"("settle": "7h")");
  const Replay r = run(text);
  EXPECT_EQ(r.attempts, (std::vector<Attempt>{{0, 1, 0, 0, 12600, "completed"},
                                              {0, 1, 0, 3690, 16290, "duplicate"},
                                              {0, 1, 0, 7290, 19890, "duplicate"},
                                              {0, 1, 0, 10890, 23490, "duplicate"}}));
  EXPECT_EQ(r.summary["jobs_completed"], 1);
  EXPECT_EQ(r.summary["duplicate_executions"], 3);
  EXPECT_EQ(r.summary["redeliveries"], 3);  // each restore came while a run was going on
  EXPECT_EQ(r.summary["shutdown_retries"], 0);
  EXPECT_EQ(r.summary["completions_rejected"], 3);
  EXPECT_EQ(r.summary["job_latency_s"]["p50"], 12600.0);
}

TEST(Profiles, GraphileWorkerNamedQueueWaitsOutACrashedJobsFourHourLock) {
  // Three 10 s jobs at 0 s in one named queue (a serial class), one pod of four slots. They
  // run one at a time: 0-10, 10-20, 20-30 s.
  auto with_classes = [](std::string text) {
    const std::string jobs = R"(["10s"]}})";
    text.replace(text.find(jobs), jobs.size(),
                 R"(["10s"]}, "classes": [{"name": "emails", "serial": true}]})");
    text.replace(text.find(R"("settle": "3h")"), 14, R"("settle": "5h")");
    return text;
  };
  const Replay calm =
      run(with_classes(scenario("graphile-worker", R"(["10s"])", 4, "[]", "", "", 3)));
  EXPECT_EQ(calm.attempts, (std::vector<Attempt>{{0, 1, 0, 0, 10, "completed"},
                                                 {1, 1, 0, 10, 20, "completed"},
                                                 {2, 1, 0, 20, 30, "completed"}}));
  // An OOM kill at 5 s takes job 0 with its process. Its row stays locked for 4 h from its
  // fetch at 0 s, and the queue with it: the restarted container (up at 20 s) waits, job 0
  // runs again at 14400 s (attempt 2), then jobs 1 and 2.
  const Replay crashed = run(
      with_classes(scenario("graphile-worker", R"(["10s"])", 4,
                            R"([{"at": "5s", "kind": "oom_kill", "pod": "pod-0"}])", "", "", 3)));
  EXPECT_EQ(crashed.attempts, (std::vector<Attempt>{{0, 1, 0, 0, 5, "killed"},
                                                    {0, 2, 0, 14400, 14410, "completed"},
                                                    {1, 1, 0, 14410, 14420, "completed"},
                                                    {2, 1, 0, 14420, 14430, "completed"}}));
  EXPECT_EQ(crashed.summary["job_latency_s"]["p99"], 14430.0);
}

TEST(Profiles, PgBossFailsAJobForGoodOnItsThirdInterruption) {
  // stop() gives active jobs 30 s, then fails them; retried at once up to retryLimit 2
  // (3 runs). Nothing wakes an idle worker: each polls every 2 s from its start, so the job
  // (enqueued at 0 s, just after pod-0's first fetch) starts at pod-0's poll at 2 s, and
  // each retry at the next poll of the replacement pod (started at 15 s and 55 s: 41 s and
  // 81 s). Each pod holding the 100 s job is deleted: TERM at 10, 50, 90 s; the job is
  // failed at 40, 80 and 120 s, and the third time it is discarded.
  const std::string events = R"([{"at": "10s", "kind": "delete_pod", "pod": "pod-0"},
                                  {"at": "50s", "kind": "delete_pod", "pod": "pod-1"},
                                  {"at": "90s", "kind": "delete_pod", "pod": "pod-2"}])";
  const Replay r = run(
      scenario("pg-boss", R"(["100s"])", 1, events, "", R"(, "termination_grace_period": "40s")"));
  EXPECT_EQ(r.attempts, (std::vector<Attempt>{{0, 1, 0, 2, 40, "interrupted"},
                                              {0, 2, 1, 41, 80, "interrupted"},
                                              {0, 3, 2, 81, 120, "interrupted"}}));
  EXPECT_EQ(r.summary["jobs_discarded_by_shutdown"], 1);
  EXPECT_EQ(r.summary["job_loss"], 1);
}

TEST(Profiles, GoSdkCancelsItsJobsAtTheTermAndLeavesThemToTheVisibilityTimeout) {
  // The TERM at 10 s cancels the context both 20 s jobs run under: they stop 100 ms later
  // (workload.cancel.latency) and their FAILs go out on that context and never arrive; the
  // worker, with no job left, returns and the process exits at 10.1 s. The reference
  // backend's visibility deadline (30 min from the start) requeues them without counting an
  // attempt: pod-1 runs both from 1800 s. Nothing lost or run twice, 20.2 s of work wasted.
  const Replay r = run(scenario("ojs-go-sdk", R"(["20s", "20s"])", 2, kDeleteAt10s));
  EXPECT_EQ(r.attempts, (std::vector<Attempt>{{0, 1, 0, 0, 10.1, "interrupted"},
                                              {1, 1, 0, 0, 10.1, "interrupted"},
                                              {0, 1, 1, 1800, 1820, "completed"},
                                              {1, 1, 1, 1800, 1820, "completed"}}));
  EXPECT_EQ(r.summary["drain_latency_s"]["max"], 0.1);
  EXPECT_EQ(r.summary["duplicate_executions"], 0);
  EXPECT_EQ(r.summary["wasted_work_s"], 20.2);
}

TEST(Profiles, GoSdkRedeliversJobsThatIgnoreTheirCancellationAndFinishInTheDrain) {
  // The same with jobs that ignore their cancellation (cooperative_fraction 0): both finish
  // at 20 s, but their ACKs go out on the cancelled context and never arrive; the worker
  // exits. At 1800 s pod-1 runs both again: two executions done twice.
  std::string text = scenario("ojs-go-sdk", R"(["20s", "20s"])", 2, kDeleteAt10s);
  text = with_workload(text, kUncooperative);
  const Replay r = run(text);
  EXPECT_EQ(r.summary["duplicate_executions"], 2);
  EXPECT_EQ(r.attempts, (std::vector<Attempt>{{0, 1, 0, 0, 20, "completed"},
                                              {1, 1, 0, 0, 20, "completed"},
                                              {0, 1, 1, 1800, 1820, "duplicate"},
                                              {1, 1, 1, 1800, 1820, "duplicate"}}));
}

TEST(Profiles, NaiveWorkerAsPid1IgnoresTermAndRunsUntilTheKill) {
  // No handler, and PID 1 of its container (no init): the kernel ignores the TERM at 10 s.
  // The worker runs on, its 20 s job completes at 20 s, and the kubelet SIGKILLs it when
  // the 30 s grace ends, at 40 s.
  const Replay r = run(scenario("naive", R"(["20s"])", 1, kDeleteAt10s));
  EXPECT_EQ(r.summary["exits"]["died_on_term"], 0);
  EXPECT_EQ(r.summary["exits"]["killed_at_deadline"], 1);
  EXPECT_EQ(r.summary["drain_latency_s"]["max"], 30.0);
  EXPECT_EQ(r.attempts, (std::vector<Attempt>{{0, 1, 0, 0, 20, "completed"}}));
}

TEST(Profiles, NaiveWorkerUnderAnInitDiesOnTermAtOnce) {
  // No handler, not PID 1 (tini forwards the TERM): TERM at 10 s kills it (exit 143), its
  // job with it. The OJS backend finds the worker dead 30 s after its last heartbeat (5 s;
  // the one due at 10 s never came): at 35 s, and pod-1 (ready at 15 s) runs the job again
  // as attempt 2.
  const Replay r = run(scenario("naive", R"(["60s"])", 1, kDeleteAt10s, "", R"(, "init": true)"));
  EXPECT_EQ(r.summary["exits"]["died_on_term"], 1);
  EXPECT_EQ(r.summary["drain_latency_s"]["max"], 0.0);
  EXPECT_EQ(r.attempts,
            (std::vector<Attempt>{{0, 1, 0, 0, 10, "killed"}, {0, 2, 1, 35, 95, "completed"}}));
}

TEST(Profiles, ObanLeavesKilledJobsExecutingUnlessLifelineRescuesThem) {
  // TERM at 10 s, 15 s of grace: at 25 s the job is killed and its row stays executing.
  const Replay stuck = run(scenario("oban", R"(["60s"])", 1, kDeleteAt10s));
  EXPECT_EQ(stuck.summary["stuck_at_end"], 1);
  // Lifeline runs every minute and frees jobs attempted more than an hour ago: at 3600 s,
  // available at once, attempt 2 on pod-1.
  const Replay rescued =
      run(scenario("oban", R"(["60s"])", 1, kDeleteAt10s, R"(, "options": {"lifeline": true})"));
  EXPECT_EQ(rescued.attempts,
            (std::vector<Attempt>{{0, 1, 0, 0, 25, "killed"}, {0, 2, 1, 3600, 3660, "completed"}}));
}

TEST(Profiles, FaktoryGoWorkerFailsOnlyTheJobsThatReturnOnCancellation) {
  // go_worker: at the 25 s timeout (TERM at 10 s: 35 s) the job's context is cancelled. A
  // job that returns (100 ms later) is FAILed and retried after 0^4 + 15 s (Faktory's first
  // retry, its rand(30) term off here): attempt 2 on pod-1 at 50.1 s. One that ignores it
  // runs on until the SIGKILL at 40 s, and comes back only when its 30 min reservation
  // expires (1800 s, a reaper tick), a failure retried 15 s later.
  const std::string go = R"(, "options": {"go_worker": true})";
  const Replay returns = run(scenario("faktory", R"(["60s"])", 1, kDeleteAt10s, go));
  EXPECT_EQ(returns.attempts, (std::vector<Attempt>{{0, 1, 0, 0, 35.1, "interrupted"},
                                                    {0, 2, 1, 50.1, 110.1, "completed"}}));
  std::string text = scenario("faktory", R"(["60s"])", 1, kDeleteAt10s, go);
  text = with_workload(text, kUncooperative);
  const Replay ignores = run(text);
  EXPECT_EQ(ignores.attempts,
            (std::vector<Attempt>{{0, 1, 0, 0, 40, "killed"}, {0, 2, 1, 1815, 1875, "completed"}}));
  // The Ruby worker (the default) FAILs it at 35 s whether or not it would return.
  const Replay ruby = run(text.replace(text.find(go), go.size(), ""));
  EXPECT_EQ(ruby.attempts, (std::vector<Attempt>{{0, 1, 0, 0, 35, "interrupted"},
                                                 {0, 2, 1, 50, 110, "completed"}}));
}

TEST(Profiles, PgBoss9LeavesTheJobActiveAtStopUntilItExpires) {
  // fails_active_at_stop false (pg-boss 9): stop()'s 30 s timeout (TERM at 10 s: 40 s)
  // ends the process with the job still active; it expires 15 min after its fetch at pod-0's
  // 2 s poll (902 s), found by the minute check at 960 s, and retried at once: attempt 2 at
  // pod-1's next 2 s poll (from its start at 15 s: 961 s).
  const Replay r = run(scenario("pg-boss", R"(["100s"])", 1, kDeleteAt10s,
                                R"(, "options": {"fails_active_at_stop": false})",
                                R"(, "termination_grace_period": "60s")"));
  EXPECT_EQ(r.attempts,
            (std::vector<Attempt>{{0, 1, 0, 2, 40, "killed"}, {0, 2, 1, 961, 1061, "completed"}}));
  EXPECT_EQ(r.summary["exits"]["clean"], 1);
}

// pg-boss 9 (fails_active_at_stop false), one pod of one slot, 60 s jobs of one singleton
// class (all sent with one singletonKey) arriving at `at`; `retry` is spliced into the class
// and `events` are the scenario's.
std::string pg_boss_singleton(const std::string& at, const std::string& events,
                              const std::string& retry = "") {
  return R"({"name": "case", "duration": "20m", "settle": "1h",
    "workload": {"arrival": {"kind": "list", "at": )" +
         at + R"(}, "job_duration": {"kind": "constant", "value": "60s"},
                 "classes": [{"name": "sync", "singleton": true)" +
         retry + R"(}]},
    "backend": {"retry": {"jitter": false}},
    "worker": {"profile": "pg-boss", "concurrency": 1, "startup": {"kind": "constant", "value": "0s"},
               "options": {"fails_active_at_stop": false}},
    "platform": {"replicas": 1, "pod_start_delay": "5s", "restart_delay": "10s"},
    "events": )" +
         events + "}";
}

TEST(Profiles, PgBossSingletonKeyIsFreedWhenItsJobCompletes) {
  // Job 0, sent at 0 s, runs from pod-0's poll at 2 s to 62 s. The send at 30 s finds the
  // key taken (job 0 active) and resolves null: no job. The one at 63 s is job 1, found by
  // the poll at 64 s.
  const Replay r = run(pg_boss_singleton(R"(["0s", "30s", "63s"])", "[]"));
  EXPECT_EQ(r.attempts,
            (std::vector<Attempt>{{0, 1, 0, 2, 62, "completed"}, {1, 1, 0, 64, 124, "completed"}}));
  EXPECT_EQ(r.summary["pushes_refused"], 1);
  EXPECT_EQ(r.summary["jobs_enqueued"], 2);
  EXPECT_EQ(r.summary["jobs_completed"], 2);
}

TEST(Profiles, PgBoss9SingletonKeyStaysTakenByAKilledWorkersJobUntilItExpires) {
  // Job 0 runs from pod-0's poll at 2 s; the OOM kill at 10 s leaves it active. It expires
  // 15 min after its fetch (902 s), found by the minute check at 960 s. A send at 16 min
  // (960 s) comes first (arrivals run before backend timers), so the sends at 20 s, 5 min
  // and 16 min are refused. Expired with a retry left (retryLimit 2), the job is in `retry`,
  // still holding the key: the restarted container (up at 25 s, polling every 2 s) runs it
  // from 961 s to 1021 s, so the send at 1000 s is refused too. The one at 1100 s is job 1,
  // polled at 1101 s.
  const char* oom = R"([{"at": "10s", "kind": "oom_kill", "pod": "pod-0"}])";
  const Replay r = run(pg_boss_singleton(R"(["0s", "20s", "5m", "16m", "1000s", "1100s"])", oom));
  EXPECT_EQ(r.attempts, (std::vector<Attempt>{{0, 1, 0, 2, 10, "killed"},
                                              {0, 2, 0, 961, 1021, "completed"},
                                              {1, 1, 0, 1101, 1161, "completed"}}));
  EXPECT_EQ(r.summary["pushes_refused"], 4);
  EXPECT_EQ(r.summary["jobs_enqueued"], 2);
  EXPECT_EQ(r.summary["jobs_completed"], 2);
  // retryLimit 0 (max_attempts 1): the expiry at 960 s ends the job (state expired) and
  // frees the key. The send at 16 min still comes before it; the one at 970 s is job 1,
  // polled at 971 s.
  const Replay once = run(pg_boss_singleton(R"(["0s", "20s", "5m", "16m", "970s"])", oom,
                                            R"(, "retry": {"max_attempts": 1})"));
  EXPECT_EQ(once.attempts,
            (std::vector<Attempt>{{0, 1, 0, 2, 10, "killed"}, {1, 1, 0, 971, 1031, "completed"}}));
  EXPECT_EQ(once.summary["pushes_refused"], 3);
  EXPECT_EQ(once.summary["jobs_enqueued"], 2);
  EXPECT_EQ(once.summary["jobs_discarded"], 1);
  EXPECT_EQ(once.summary["jobs_completed"], 1);
}

TEST(Profiles, BullmqBefore4128StopsExtendingLocksWhileClosingSoTheJobRunsTwice) {
  // renews_locks_while_closing false: the lock, last extended at 7.5 s, lapses at 37.5 s
  // while the closing pod-0 still runs the 100 s job. pod-1 (from 15 s) checks at 45 s
  // (30 s after pod-0's check at 0 s; its try at 15 s was too soon): it marks the job; at
  // 75 s it takes it back and runs it again. pod-0 finishes at 100 s, its ack refused; pod-1
  // at 175 s. With the fix (the default) the lock is extended and the job runs once.
  const std::string platform = R"(, "termination_grace_period": "300s")";
  const Replay old =
      run(scenario("bullmq", R"(["100s"])", 1, kDeleteAt10s,
                   R"(, "options": {"renews_locks_while_closing": false})", platform));
  EXPECT_EQ(old.attempts, (std::vector<Attempt>{{0, 1, 0, 0, 100, "completed"},
                                                {0, 1, 1, 75, 175, "duplicate"}}));
  EXPECT_EQ(old.summary["duplicate_executions"], 1);
  EXPECT_EQ(old.summary["redeliveries"], 1);
  EXPECT_EQ(old.summary["completions_rejected"], 1);
  EXPECT_EQ(old.summary["jobs_completed"], 1);
  const Replay fixed = run(scenario("bullmq", R"(["100s"])", 1, kDeleteAt10s, "", platform));
  EXPECT_EQ(fixed.attempts, (std::vector<Attempt>{{0, 1, 0, 0, 100, "completed"}}));
}

TEST(Profiles, FaktoryRetriesAKilledJobWhenItsReservationExpires) {
  // The 30 min reservation from the fetch at 0 expires at 1800 s, which the reaper (every
  // 15 s) finds at once: a failure, retried after 0^4 + 15 s (no jitter), attempt 2.
  const Replay r = run(scenario("faktory", R"(["60s"])", 1, kOomAt20s));
  EXPECT_EQ(r.attempts,
            (std::vector<Attempt>{{0, 1, 0, 0, 20, "killed"}, {0, 2, 0, 1815, 1875, "completed"}}));
}

TEST(Profiles, JsSdkNacksWithHandlerErrorAJobThatStopsAtItsDeadline) {
  // Grace 25 s from the TERM at 10 s: at 35 s stop() aborts the job, which rejects 100 ms
  // later (workload.cancel.latency) and is NACKed as a retryable handler_error; the backoff
  // of attempt 1 is 1 s: pod-1 runs attempt 2 at 36.1 s.
  const Replay r = run(scenario("ojs-js-sdk", R"(["60s"])", 1, kDeleteAt10s));
  EXPECT_EQ(r.attempts, (std::vector<Attempt>{{0, 1, 0, 0, 35.1, "interrupted"},
                                              {0, 2, 1, 36.1, 96.1, "completed"}}));
}

TEST(Profiles, JsSdkWaitsForAJobThatIgnoresTheAbortUntilTheKill) {
  // The same job ignoring the abort (cooperative_fraction 0): nothing is NACKed and Node
  // stays up for it, until the kubelet's SIGKILL at 40 s (TERM + 30 s). The reference
  // backend requeues it at its visibility deadline, 30 min from the start, without counting
  // an attempt: pod-1 runs attempt 1 again from 1800 s.
  std::string text = scenario("ojs-js-sdk", R"(["60s"])", 1, kDeleteAt10s);
  text = with_workload(text, kUncooperative);
  const Replay r = run(text);
  EXPECT_EQ(r.attempts,
            (std::vector<Attempt>{{0, 1, 0, 0, 40, "killed"}, {0, 1, 1, 1800, 1860, "completed"}}));
  EXPECT_EQ(r.summary["exits"]["killed_at_deadline"], 1);
}

TEST(Profiles, TemporalGoSdkExitsAtTheTermAndTheActivityWaitsForItsStartToCloseTimeout) {
  // WorkerStopTimeout 0: the TERM at 10 s cancels the activity and the program exits at
  // once, the activity dying with it (a clean exit, drain 0 s). The server finds it when
  // its 10 min start-to-close timeout from the start at 0 runs out: retried after 1 s,
  // at 601 s on pod-1.
  const Replay r = run(scenario("temporal", R"(["60s"])", 1, kDeleteAt10s));
  EXPECT_EQ(r.attempts,
            (std::vector<Attempt>{{0, 1, 0, 0, 10, "killed"}, {0, 2, 1, 601, 661, "completed"}}));
  EXPECT_EQ(r.summary["drain_latency_s"]["max"], 0.0);
  EXPECT_EQ(r.summary["exits"]["clean"], 1);
}

// The Python and TypeScript SDKs.
constexpr const char* kWaitsForActivities = R"(, "options": {"waits_for_activities": true})";

TEST(Profiles, TemporalPythonSdkCancelsActivitiesAtOnceAndRetriesTheOnesThatReturn) {
  // graceful_shutdown_timeout 0: the TERM at 10 s cancels the activity, which returns
  // 100 ms later (workload.cancel.latency): a failed attempt, retried after 1 s (11.1 s);
  // pod-1, ready at 15 s, runs attempt 2. The worker exits when it returned.
  const Replay r = run(scenario("temporal", R"(["60s"])", 1, kDeleteAt10s, kWaitsForActivities));
  EXPECT_EQ(r.attempts, (std::vector<Attempt>{{0, 1, 0, 0, 10.1, "interrupted"},
                                              {0, 2, 1, 15, 75, "completed"}}));
  EXPECT_EQ(r.summary["drain_latency_s"]["max"], 0.1);
}

TEST(Profiles, TemporalPythonSdkActivityThatIgnoresCancellationRunsUntilTheKill) {
  // The same with an activity that ignores its cancellation (cooperative_fraction 0): the
  // worker waits for it until the kubelet's SIGKILL at 40 s, and the server finds it only
  // when its 10 min start-to-close timeout (from the start at 0) runs out: retried at 601 s.
  std::string text = scenario("temporal", R"(["60s"])", 1, kDeleteAt10s, kWaitsForActivities);
  text = with_workload(text, kUncooperative);
  const Replay r = run(text);
  EXPECT_EQ(r.attempts,
            (std::vector<Attempt>{{0, 1, 0, 0, 40, "killed"}, {0, 2, 1, 601, 661, "completed"}}));
  EXPECT_EQ(r.summary["drain_latency_s"]["max"], 30.0);
  EXPECT_EQ(r.summary["exits"]["killed_at_deadline"], 1);
}

TEST(Profiles, GraphileAbortsAfterFiveSecondsAndRetriesAfterEToTheAttempt) {
  // TERM at 10 s; the abort fires at 15 s and the job (cooperative, 100 ms to stop) fails
  // at 15.1 s; attempt 1 waits e^1 = 2.718282 s: pod-1 runs attempt 2 from 17.818282 s.
  const Replay r = run(scenario("graphile-worker", R"(["60s"])", 1, kDeleteAt10s));
  EXPECT_EQ(r.attempts, (std::vector<Attempt>{{0, 1, 0, 0, 15.1, "interrupted"},
                                              {0, 2, 1, 17.818282, 77.818282, "completed"}}));
  EXPECT_EQ(r.summary["drain_latency_s"]["max"], 5.1);
}

TEST(Profiles, Ductwork0KillsItsThreadsAfterTwentySecondsAndNothingRecoversTheJob) {
  // 0.x (reaper false): TERM at 10 s; the job worker's 20 s shutdown_timeout ends at 30 s:
  // the thread is killed, the process exits, and no mechanism ever gives the job back.
  const Replay r =
      run(scenario("ductwork", R"(["60s"])", 1, kDeleteAt10s, R"(, "options": {"reaper": false})"));
  EXPECT_EQ(r.attempts, (std::vector<Attempt>{{0, 1, 0, 0, 30, "killed"}}));
  EXPECT_EQ(r.summary["stuck_at_end"], 1);
  EXPECT_EQ(r.summary["exits"]["clean"], 1);
}

TEST(Profiles, DuctworkRunsAgainAtOnceTheJobOfAThreadItKilled) {
  // 1.0: the same kill at 30 s, after which the runner reaps its own process record: the
  // execution crashes (crash 1 of 3 immediate ones, no retry used) and is available at once;
  // pod-1, ready since 15 s, runs it again as attempt 1 from 30 s to 90 s.
  const Replay r = run(scenario("ductwork", R"(["60s"])", 1, kDeleteAt10s));
  EXPECT_EQ(r.attempts,
            (std::vector<Attempt>{{0, 1, 0, 0, 30, "killed"}, {0, 1, 1, 30, 90, "completed"}}));
  EXPECT_EQ(r.summary["stuck_at_end"], 0);
  EXPECT_EQ(r.summary["exits"]["clean"], 1);
  // The killed attempt ended before the goodbye took its job back: recovered after 0 s.
  EXPECT_EQ(r.summary["orphan_recovery_delay_s"]["count"], 1);
  EXPECT_EQ(r.summary["orphan_recovery_delay_s"]["max"], 0.0);
}

TEST(Profiles, DuctworkReapsAKilledProcessThreeHundredSecondsAfterItsLastHeartbeat) {
  // The OOM kill at 22 s: the runner's last heartbeat was at 20 s (every 5 s from its start
  // at 0), so a supervisor reaps it at 320 s (reaper_timeout 300 s) and the job runs again
  // at once on the restarted container (ready at 22 + 10 + 5 = 37 s), 320 s to 380 s.
  const Replay r = run(scenario("ductwork", R"(["60s"])", 1,
                                R"([{"at": "22s", "kind": "oom_kill", "pod": "pod-0"}])"));
  EXPECT_EQ(r.attempts,
            (std::vector<Attempt>{{0, 1, 0, 0, 22, "killed"}, {0, 1, 0, 320, 380, "completed"}}));
  EXPECT_EQ(r.summary["orphan_recovery_delay_s"]["max"], 298.0);
}

TEST(Profiles, DuctworkRetriesAFailedJobAfterTenSecondsThreeTimes) {
  // job_worker.max_retry 3, FAILED_EXECUTION_TIMEOUT 10 s, no jitter: a job that always
  // fails (somewhere in its 1 s) runs four times, each start 10 s after the last failure,
  // and is discarded after the fourth.
  std::string text = scenario("ductwork", R"(["1s"])", 1, "[]");
  text = with_workload(text, R"("failure_rate": 1, )");
  const Replay r = run(text);
  ASSERT_EQ(r.attempts.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(r.attempts[i].attempt, static_cast<int>(i) + 1);
    EXPECT_EQ(r.attempts[i].outcome, "failed");
    if (i > 0) {
      EXPECT_NEAR(r.attempts[i].start - r.attempts[i - 1].end, 10.0, 1e-6);
    }
  }
  EXPECT_EQ(r.summary["jobs_discarded"], 1);
}

TEST(Profiles, EveryProfileRunsTheShippedScenariosWithABalancedAudit) {
  for (const char* file : {"rolling-restart", "oom-kill", "double-sigterm"}) {
    for (const char* profile :
         {"ojs", "ojs-go-sdk", "ojs-js-sdk", "sidekiq", "sidekiq-pro", "river", "bullmq", "oban",
          "faktory", "celery", "temporal", "graphile-worker", "pg-boss", "ductwork", "naive"}) {
      const Scenario s =
          load_scenario_file(std::string(DRAINSIM_SOURCE_DIR) + "/scenarios/" + file + ".json",
                             {std::string("worker.profile=") + profile});
      const RunOutput out = run_scenario(s);
      EXPECT_TRUE(out.summary.audit.ok)
          << file << " " << profile << ": " << out.summary.audit.errors.front();
    }
  }
}

}  // namespace
}  // namespace drainsim
