// Property test: random scenarios (events of every kind, every duration distribution,
// random settings) must all pass the conservation audit, and the OJS profile never loses
// a job outright.
#include <gtest/gtest.h>

#include <cstdio>

#include "base/rng.h"
#include "run/run_scenario.h"

namespace drainsim {
namespace {

Duration pick(Rng& r, Duration lo, Duration hi) {
  return lo + static_cast<Duration>(r.below(static_cast<std::uint64_t>(hi - lo + 1)));
}

DurationDistribution random_durations(Rng& r) {
  DurationDistribution d;
  d.kind = static_cast<DurationDistribution::Kind>(r.below(7));
  switch (d.kind) {
    case DurationDistribution::Kind::kConstant:
      d.value = pick(r, 0, 40 * kSecond);
      break;
    case DurationDistribution::Kind::kUniform:
      d.min = pick(r, 0, 5 * kSecond);
      d.max = d.min + pick(r, 0, 40 * kSecond);
      break;
    case DurationDistribution::Kind::kExponential:
      d.mean = pick(r, kMillisecond, 20 * kSecond);
      break;
    case DurationDistribution::Kind::kLognormal:
      d.median = pick(r, 10 * kMillisecond, 5 * kSecond);
      d.p99 = d.median + pick(r, kMillisecond, 60 * kSecond);
      break;
    case DurationDistribution::Kind::kPareto:
      d.scale = pick(r, 10 * kMillisecond, 2 * kSecond);
      d.shape = r.uniform(1.1, 3.0);
      break;
    case DurationDistribution::Kind::kEmpirical:
      if (r.bernoulli(0.5)) {
        for (int i = 0; i < 3; ++i) d.values.push_back(pick(r, 0, 30 * kSecond));
      } else {
        Duration le = 0;
        for (int i = 0; i < 3; ++i) {
          le += pick(r, kMillisecond, 20 * kSecond);
          d.histogram.push_back({le, r.uniform(0.1, 1.0)});
        }
      }
      break;
    case DurationDistribution::Kind::kSequence:
      for (int i = 0; i < 4; ++i) d.values.push_back(pick(r, 0, 50 * kSecond));
      break;
  }
  return d;
}

Scenario random_scenario(std::uint64_t seed) {
  Rng r(seed);
  Scenario s;
  s.name = "random";
  s.seed = seed;
  s.duration = pick(r, 10 * kSecond, 2 * kMinute);
  s.settle = pick(r, kMinute, 10 * kMinute);
  WorkloadConfig& w = s.workload;
  switch (r.below(3)) {
    case 0:
      w.arrival.kind = ArrivalProcess::Kind::kPoisson;
      w.arrival.rate_per_s = r.uniform(0.2, 6);
      break;
    case 1:
      w.arrival.kind = ArrivalProcess::Kind::kConstant;
      w.arrival.rate_per_s = r.uniform(0.2, 4);
      break;
    default:
      w.arrival.kind = ArrivalProcess::Kind::kBurst;
      w.arrival.count = static_cast<std::int64_t>(1 + r.below(40));
      w.arrival.at = pick(r, 0, s.duration - 1);
  }
  w.job_duration = random_durations(r);
  w.cancel.cooperative_fraction = r.uniform();
  w.checkpointing = r.bernoulli(0.3);
  w.checkpoint_interval = pick(r, 500 * kMillisecond, 10 * kSecond);
  w.failure_rate = r.bernoulli(0.3) ? r.uniform(0, 0.3) : 0;
  s.backend.visibility_timeout = pick(r, 5 * kSecond, 30 * kMinute);
  s.backend.heartbeat_timeout = pick(r, 2 * kSecond, 60 * kSecond);
  s.backend.retry.max_attempts = static_cast<int>(1 + r.below(5));
  s.backend.retry.jitter = r.bernoulli(0.5);
  s.worker.concurrency = static_cast<int>(1 + r.below(5));
  s.worker.grace_period = pick(r, 0, 60 * kSecond);
  s.worker.heartbeat_interval = pick(r, 500 * kMillisecond, 10 * kSecond);
  s.worker.poll_interval = pick(r, 500 * kMillisecond, 3 * kSecond);
  PlatformConfig& p = s.platform;
  p.kind = r.bernoulli(0.2) ? PlatformConfig::Kind::kDocker : PlatformConfig::Kind::kKubernetes;
  p.replicas = static_cast<int>(1 + r.below(4));
  p.nodes = static_cast<int>(1 + r.below(3));
  p.termination_grace_period = pick(r, kSecond, 90 * kSecond);
  p.stop_grace_period = pick(r, kSecond, 30 * kSecond);
  p.pod_start_delay = pick(r, 0, 20 * kSecond);
  p.restart_delay = pick(r, 0, 20 * kSecond);
  p.pid1_shell = r.bernoulli(0.2);
  if (p.kind == PlatformConfig::Kind::kKubernetes) {
    p.pre_stop.kind = static_cast<PreStop::Kind>(r.below(4));
    p.pre_stop.duration = pick(r, 0, 40 * kSecond);
    p.pre_stop.poll = pick(r, kSecond, 10 * kSecond);
    p.pre_stop.timeout = pick(r, kSecond, 120 * kSecond);
  }
  const int events = static_cast<int>(r.below(7));
  for (int i = 0; i < events; ++i) {
    ScenarioEvent e;
    e.at = pick(r, 0, s.duration + s.settle / 2);
    e.kind = static_cast<ScenarioEvent::Kind>(r.below(8));
    if (p.kind == PlatformConfig::Kind::kDocker && e.kind == ScenarioEvent::Kind::kNodeDrain) {
      e.kind = ScenarioEvent::Kind::kOomKill;
    }
    e.max_surge = Amount{r.bernoulli(0.5), static_cast<double>(r.below(3))};
    e.max_unavailable = Amount{false, static_cast<double>(1 + r.below(2))};
    e.count = static_cast<int>(1 + r.below(2));
    e.replicas =
        static_cast<int>(e.kind == ScenarioEvent::Kind::kScaleUp ? 1 + r.below(5) : r.below(5));
    e.pod = r.bernoulli(0.3) ? -1 : static_cast<int>(r.below(6));
    if (e.kind == ScenarioEvent::Kind::kSignal || e.kind == ScenarioEvent::Kind::kDirective ||
        e.kind == ScenarioEvent::Kind::kDeletePod) {
      if (e.pod < 0) e.pod = 0;
    }
    e.signal = static_cast<Signal>(r.below(6));
    e.node = static_cast<int>(r.below(static_cast<std::uint64_t>(p.nodes)));
    e.state = r.bernoulli(0.5) ? Directive::kQuiet : Directive::kTerminate;
    s.events.push_back(e);
  }
  std::stable_sort(s.events.begin(), s.events.end(),
                   [](const ScenarioEvent& a, const ScenarioEvent& b) { return a.at < b.at; });
  return s;
}

TEST(SimulationProperty, ThousandRandomScenariosBalance) {
  std::int64_t jobs = 0, interrupted = 0, kills = 0;
  for (std::uint64_t seed = 1; seed <= 1000; ++seed) {
    const Scenario s = random_scenario(seed);
    RunOptions options;
    options.timeline = seed % 10 == 0;
    const RunOutput out = run_scenario(s, options);
    ASSERT_TRUE(out.summary.audit.ok)
        << "seed " << seed << ": " << out.summary.audit.errors.front();
    const auto& sum = out.results["summary"];
    ASSERT_EQ(sum["jobs_lost"], 0) << "seed " << seed;
    ASSERT_EQ(sum["jobs_enqueued"].get<std::int64_t>(),
              sum["jobs_completed"].get<std::int64_t>() +
                  sum["jobs_discarded"].get<std::int64_t>() +
                  sum["jobs_pending"].get<std::int64_t>())
        << "seed " << seed;
    ASSERT_LE(out.ended_at, s.duration + s.settle);
    // A run that ended early left nothing running; exits plus processes still running
    // account for every process; stuck jobs are among the pending ones.
    const auto& run = out.results["run"];
    if (run["ended_early"].get<bool>()) {
      ASSERT_EQ(run["attempts_in_flight_at_end"], 0) << "seed " << seed;
    }
    std::int64_t processes = 0, ended = 0;
    for (const auto& pod : out.results["pods"])
      processes += static_cast<std::int64_t>(pod["processes"].size());
    for (const auto& [kind, n] : sum["exits"].items()) ended += n.get<std::int64_t>();
    ASSERT_EQ(ended + sum["processes_running_at_end"].get<std::int64_t>(), processes)
        << "seed " << seed;
    ASSERT_LE(sum["stuck_at_end"].get<std::int64_t>(), sum["jobs_pending"].get<std::int64_t>())
        << "seed " << seed;
    jobs += sum["jobs_enqueued"].get<std::int64_t>();
    interrupted += sum["interrupted_jobs"].get<std::int64_t>();
    kills += sum["forced_kills"].get<std::int64_t>();
  }
  std::printf("jobs %ld interrupted %ld forced kills %ld\n", static_cast<long>(jobs),
              static_cast<long>(interrupted), static_cast<long>(kills));
  // The generator must really exercise shutdowns, not just happy paths.
  EXPECT_GT(jobs, 10000);
  EXPECT_GT(interrupted, 100);
  EXPECT_GT(kills, 50);
}

}  // namespace
}  // namespace drainsim
