// The real-time engine (both ways of reaching the models) and the process engine against
// the virtual one on the hand-worked cases a)-e) of the simulation-core issue: the same
// fates (which job was retried, lost, completed; clean exit or SIGKILL) and drain
// latencies within 5 % or 2 poll intervals (simulated time). Time scale 50 (20 for the
// process engine): the longest case lasts about 3.4 s (8.5 s) of wall time per engine;
// under ThreadSanitizer the clocks run slower (below).
// The process engine runs drainsim-worker processes, real signals and HTTP.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "io/scenario_reader.h"
#include "run/run_scenario.h"
#include "testing/test_scenarios.h"

namespace drainsim {
namespace {

using nlohmann::json;

using test::kRollingRestartAt10s;
using test::one_pod;

struct Fates {
  std::map<std::uint64_t, std::vector<std::string>> jobs;  // job -> attempt outcomes
  std::vector<std::string> exits;                          // per process, in pod order
  std::vector<double> drains;
};

Fates fates(const RunOutput& r) {
  Fates f;
  for (const json& a : r.results["timeline"]["attempts"]["rows"]) {
    f.jobs[a[0].get<std::uint64_t>()].push_back(a[7].get<std::string>());
  }
  for (const json& pod : r.results["pods"]) {
    for (const json& p : pod["processes"]) {
      f.exits.push_back(p["exit"].get<std::string>());
      if (!p["drain_latency_s"].is_null()) f.drains.push_back(p["drain_latency_s"].get<double>());
    }
  }
  return f;
}

void compare(const Scenario& s, const RunOutput& v, Engine engine, double time_scale,
             ModelAccess access = ModelAccess::kStrand) {
  SCOPED_TRACE(std::string(to_string(engine)) +
               (access == ModelAccess::kLock ? " (models under a lock)" : ""));
  RunOptions options;
  options.timeline = true;
  options.engine = engine;
  options.paced.time_scale = time_scale;
  options.realtime.access = access;
  const RunOutput r = run_scenario(s, options);
  ASSERT_TRUE(r.summary.audit.ok) << r.summary.audit.errors.front();
  EXPECT_EQ(r.results["engine"], to_string(engine));
  const Fates fv = fates(v), fr = fates(r);
  EXPECT_EQ(fr.jobs, fv.jobs);
  EXPECT_EQ(fr.exits, fv.exits);
  ASSERT_EQ(fr.drains.size(), fv.drains.size());
  const double poll = to_seconds(s.worker.poll_interval);
  for (std::size_t i = 0; i < fv.drains.size(); ++i) {
    EXPECT_NEAR(fr.drains[i], fv.drains[i], std::max(0.05 * fv.drains[i], 2 * poll))
        << "process " << i;
  }
  for (const char* key :
       {"jobs_enqueued", "jobs_completed", "job_loss", "shutdown_retries", "forced_kills"}) {
    EXPECT_EQ(r.results["summary"][key], v.results["summary"][key]) << key;
  }
}

// A real process takes milliseconds to start, and every job costs a fetch and an ACK over
// HTTP (a shutdown: a NACK per job, a heartbeat and a deregistration, one after another),
// so the process engine runs on a slower clock than the real-time one: at 20, the 2 s
// tolerance is 100 ms of real time. ThreadSanitizer slows drainsim and drainsim-worker
// several times over (a thread per job body takes 10-15 ms to create, a strand hop
// milliseconds), so both clocks slow down with it: the tolerance stays 2 s of simulated
// time, which is then 200 ms (250 ms) of real time.
#ifdef __SANITIZE_THREAD__
constexpr double kRealtimeScale = 10;
constexpr double kProcessScale = 8;
#else
constexpr double kRealtimeScale = 50;
constexpr double kProcessScale = 20;
#endif

void compare_engines(const std::string& text, double process_scale = kProcessScale) {
  const Scenario s = parse_scenario(text, "case");
  RunOptions options;
  options.timeline = true;
  const RunOutput v = run_scenario(s, options);
  ASSERT_TRUE(v.summary.audit.ok);
  compare(s, v, Engine::kRealtime, kRealtimeScale, ModelAccess::kStrand);
  compare(s, v, Engine::kRealtime, kRealtimeScale, ModelAccess::kLock);
  compare(s, v, Engine::kProcess, process_scale);
}

TEST(EngineFidelity, A_RollingRestartWithinGrace) { compare_engines(one_pod("20s")); }

TEST(EngineFidelity, B_ShortGrace) { compare_engines(one_pod("20s", R"(, "grace_period": "2s")")); }

TEST(EngineFidelity, C_OomKill) {
  compare_engines(one_pod("20s", "", "", R"([{"at": "10s", "kind": "oom_kill"}])"));
}

TEST(EngineFidelity, D_PlatformGraceShorterThanWorkerGrace) {
  compare_engines(
      one_pod("100s", R"(, "grace_period": "60s")", R"(, "termination_grace_period": "30s")"));
}

TEST(EngineFidelity, PoissonArrivalsStopAtTheDurationThoughTimersFireLate) {
  // A late arrival timer must not enqueue arrivals drawn past the duration: the same jobs
  // arrive on both engines.
  compare_engines(R"({"name": "arrivals", "duration": "20s", "settle": "1m",
    "workload": {"arrival": {"kind": "poisson", "rate_per_s": 50},
                 "job_duration": {"kind": "constant", "value": "100ms"}},
    "worker": {"concurrency": 20}, "platform": {"replicas": 2}})",
                  kProcessScale / 2);
}

TEST(EngineFidelity, E_Pid1Shell) {
  compare_engines(one_pod("30s", "", R"(, "pid1_shell": true)", kRollingRestartAt10s, 12));
}

}  // namespace
}  // namespace drainsim
