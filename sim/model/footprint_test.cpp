// The run's memory estimate, worked out by hand from the per-item costs of footprint.h.
#include "model/footprint.h"

#include <gtest/gtest.h>

#include <string>

namespace drainsim {
namespace {

Scenario one_class(ArrivalProcess arrival, Duration job, int replicas, int concurrency) {
  Scenario s;
  s.duration = 100 * kSecond;
  s.workload.arrival = arrival;
  s.workload.job_duration.kind = DurationDistribution::Kind::kConstant;
  s.workload.job_duration.value = job;
  s.platform.replicas = replicas;
  s.worker.concurrency = concurrency;
  return s;
}

double part(const MemoryEstimate& m, const std::string& what) {
  for (const MemoryPart& p : m.parts) {
    if (p.what == what) return p.count;
  }
  ADD_FAILURE() << "no part " << what;
  return -1;
}

TEST(Footprint, AHugeBurstIsHeldAtOnce) {
  // The reproducer valid-huge-burst.json: 2^31 - 1 jobs at 0 s, one pod of 10 slots.
  ArrivalProcess burst;
  burst.kind = ArrivalProcess::Kind::kBurst;
  burst.count = 2147483647;
  const MemoryEstimate m = estimate_memory(one_class(burst, kSecond, 1, 10));
  ASSERT_EQ(m.parts.size(), 4u);
  EXPECT_EQ(m.parts[0].what, "jobs held at once");  // largest first
  EXPECT_EQ(m.parts[0].count, 2147483647);
  EXPECT_EQ(part(m, "worker slots"), 10);       // 1 pod x 10
  EXPECT_EQ(part(m, "pods and processes"), 1);  // no events
  // (2^31 - 1) x 256 + 10 x 384 + 8 KiB + 16 MiB.
  EXPECT_DOUBLE_EQ(m.total(), 2147483647.0 * 256 + 3840 + 8192 + 16 * 1048576);
  EXPECT_EQ(m.explain(),
            "512 GiB for 2147483647 jobs held at once (workload.arrival.count), 16 MiB for the "
            "program, 8 KiB for 1 pods and processes (platform.replicas, scale_up, "
            "rolling_restart, oom_kill), 3.75 KiB for 10 worker slots (platform.replicas at "
            "their most, with a rollout's surge, × worker.concurrency)");
}

TEST(Footprint, ARateBeyondTheFleetBuildsABacklog) {
  // 100 jobs/s of 1 s on 2 x 10 slots: 20 finish a second, 80 a second pile up over the
  // 100 s of arrivals (8000), 20 run and a second of arrivals is in hand: 8120 of 10000.
  ArrivalProcess rate;
  rate.kind = ArrivalProcess::Kind::kPoisson;
  rate.rate_per_s = 100;
  EXPECT_EQ(part(estimate_memory(one_class(rate, kSecond, 2, 10)), "jobs held at once"), 8120);
  // 10 jobs/s on the same fleet: no backlog; 10 running and 10 in hand.
  rate.rate_per_s = 10;
  EXPECT_EQ(part(estimate_memory(one_class(rate, kSecond, 2, 10)), "jobs held at once"), 20);
  // A list holds its times.
  ArrivalProcess list;
  list.kind = ArrivalProcess::Kind::kList;
  list.times = {0, kSecond, 2 * kSecond};
  EXPECT_EQ(part(estimate_memory(one_class(list, kSecond, 2, 10)), "jobs held at once"), 3);
}

TEST(Footprint, ScaleUpsAndRolloutsAddPodsAndSlots) {
  ArrivalProcess burst;
  burst.kind = ArrivalProcess::Kind::kBurst;
  burst.count = 1;
  Scenario s = one_class(burst, kSecond, 4, 10);
  ScenarioEvent up;
  up.kind = ScenarioEvent::Kind::kScaleUp;
  up.replicas = 10;
  ScenarioEvent rollout;  // max_surge 25% of 10, rounded up: 3
  rollout.kind = ScenarioEvent::Kind::kRollingRestart;
  s.events = {up, rollout};
  const MemoryEstimate m = estimate_memory(s);
  EXPECT_EQ(part(m, "worker slots"), 130);  // (10 + 3) x 10
  // 10 pods, replaced once by the rollout, and one per event: 10 x 2 + 2.
  EXPECT_EQ(part(m, "pods and processes"), 22);
}

}  // namespace
}  // namespace drainsim
