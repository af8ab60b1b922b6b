// The offered load and the queue watch behind the overload and queue_growth warnings,
// with figures worked out by hand.
#include "model/load.h"

#include <gtest/gtest.h>

#include <cmath>

namespace drainsim {
namespace {

DurationDistribution constant(Duration v) {
  DurationDistribution d;
  d.value = v;
  return d;
}

TEST(MeanSeconds, EachDistributionAsTheSamplerDrawsIt) {
  using Kind = DurationDistribution::Kind;
  EXPECT_DOUBLE_EQ(mean_seconds(constant(2 * kSecond)), 2);
  DurationDistribution u;
  u.kind = Kind::kUniform;
  u.min = kSecond;
  u.max = 3 * kSecond;
  EXPECT_DOUBLE_EQ(mean_seconds(u), 2);
  DurationDistribution e;
  e.kind = Kind::kExponential;
  e.mean = 4 * kSecond;
  EXPECT_DOUBLE_EQ(mean_seconds(e), 4);
  // sigma = ln(120 / 2) / z99 = 4.0943 / 2.3263 = 1.7600; mean = 2 s × e^(sigma² / 2) = 9.411 s.
  DurationDistribution l;
  l.kind = Kind::kLognormal;
  l.median = 2 * kSecond;
  l.p99 = 2 * kMinute;
  EXPECT_NEAR(mean_seconds(l), 9.4114, 1e-4);
  // Pareto: scale × shape / (shape − 1); none for shape <= 1.
  DurationDistribution p;
  p.kind = Kind::kPareto;
  p.scale = kSecond;
  p.shape = 2;
  EXPECT_DOUBLE_EQ(mean_seconds(p), 2);
  p.shape = 1;
  EXPECT_TRUE(std::isinf(mean_seconds(p)));
  // Histogram buckets (0, 1s] and (1s, 3s], equal weights: (0.5 + 2) / 2.
  DurationDistribution h;
  h.kind = Kind::kEmpirical;
  h.histogram = {{kSecond, 1}, {3 * kSecond, 1}};
  EXPECT_DOUBLE_EQ(mean_seconds(h), 1.25);
  DurationDistribution v;
  v.kind = Kind::kSequence;
  v.values = {kSecond, 2 * kSecond, 6 * kSecond};
  EXPECT_DOUBLE_EQ(mean_seconds(v), 3);
}

Scenario sidekiq_deploy(double rate) {
  Scenario s;
  s.workload.arrival.rate_per_s = rate;
  s.workload.job_duration.kind = DurationDistribution::Kind::kLognormal;
  s.workload.job_duration.median = 2 * kSecond;
  s.workload.job_duration.p99 = 2 * kMinute;
  s.worker.concurrency = 10;
  s.platform.replicas = 10;
  return s;
}

TEST(OfferedLoad, TheIssuesSidekiqDeployOffers470SlotsOfWorkTo100) {
  const std::optional<OfferedLoad> load = offered_load(sidekiq_deploy(50));
  ASSERT_TRUE(load);
  EXPECT_NEAR(load->busy_slots, 470.57, 0.01);  // 50/s × 9.411 s
  EXPECT_EQ(load->slots, 100);
  EXPECT_TRUE(load->over());
  const std::optional<Warning> w = overload_warning(sidekiq_deploy(50), 21645);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->code, "overload");
  EXPECT_EQ(w->message.rfind("offered load ≈ 471 busy slots > 100 slots (471 %): 50 jobs/s × "
                             "9.411s mean job",
                             0),
            0u)
      << w->message;
  EXPECT_NE(w->message.find("(max queue 21645)"), std::string::npos) << w->message;
  ASSERT_EQ(w->figures.size(), 6u);
  EXPECT_EQ(w->figures[1], (std::pair<std::string, double>{"slots", 100}));
  EXPECT_EQ(w->figures[5], (std::pair<std::string, double>{"max_queue", 21645}));
  // 8/s × 9.411 s = 75 busy slots of 100: no warning.
  EXPECT_NEAR(offered_load(sidekiq_deploy(8))->busy_slots, 75.29, 0.01);
  EXPECT_FALSE(overload_warning(sidekiq_deploy(8)));
}

TEST(OfferedLoad, AnUnboundedLoadIsSaidInWordsAndLeftOutOfTheFigures) {
  // No slots: 5/s × 9.411 s = 47 busy slots of 0, an infinite percentage.
  Scenario none = sidekiq_deploy(5);
  none.platform.replicas = 0;
  const std::optional<Warning> w = overload_warning(none);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->message.rfind("offered load ≈ 47 busy slots > 0 slots (unbounded): 5 jobs/s × "
                             "9.411s mean job",
                             0),
            0u)
      << w->message;
  ASSERT_EQ(w->figures.size(), 4u);  // no load_percent
  EXPECT_EQ(w->figures[1], (std::pair<std::string, double>{"slots", 0}));
  EXPECT_EQ(w->figures[2].first, "arrival_rate_per_s");
  // Pareto shape 0.8: an infinite mean job, so infinite busy slots and percentage.
  Scenario pareto = sidekiq_deploy(5);
  pareto.workload.job_duration.kind = DurationDistribution::Kind::kPareto;
  pareto.workload.job_duration.scale = kSecond;
  pareto.workload.job_duration.shape = 0.8;
  const std::optional<Warning> p = overload_warning(pareto);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->message.rfind("offered load ≈ unbounded busy slots > 100 slots (unbounded): 5 "
                             "jobs/s × an infinite mean job",
                             0),
            0u)
      << p->message;
  ASSERT_EQ(p->figures.size(), 2u);
  EXPECT_EQ(p->figures[0], (std::pair<std::string, double>{"slots", 100}));
  EXPECT_EQ(p->figures[1], (std::pair<std::string, double>{"arrival_rate_per_s", 5}));
}

TEST(OfferedLoad, ClassesWeighTheirMeansAndABurstHasNoRate) {
  Scenario s;
  s.workload.arrival.rate_per_s = 2;
  s.workload.classes.resize(2);
  s.workload.classes[0].weight = 3;
  s.workload.classes[0].job_duration = constant(kSecond);
  s.workload.classes[1].weight = 1;
  s.workload.classes[1].job_duration = constant(5 * kSecond);
  // (3 × 1 s + 1 × 5 s) / 4 = 2 s mean; × 2/s = 4 busy slots against 1 × 10.
  EXPECT_DOUBLE_EQ(offered_load(s)->busy_slots, 4);
  s.workload.arrival.kind = ArrivalProcess::Kind::kBurst;
  EXPECT_FALSE(offered_load(s));
}

TEST(QueueWatch, GrowthIsTheLastQuartersLeastDepthAboveTheSlotsAndTheQuarterBefore) {
  // Arrivals end at 100 s: quarters [50 s, 75 s) and [75 s, 100 s).
  QueueWatch q(100 * kSecond);
  q.note(10 * kSecond, 5);
  q.note(60 * kSecond, 20);  // 5 held from 50 s to 60 s
  q.note(80 * kSecond, 30);  // 20 held from 75 s to 80 s
  EXPECT_EQ(q.least(), (std::array<std::int64_t, 2>{5, 20}));
  EXPECT_EQ(q.max(), 30);
  EXPECT_TRUE(q.kept_growing(10, 100 * kSecond));
  EXPECT_FALSE(q.kept_growing(20, 100 * kSecond));  // not above the slots
  EXPECT_FALSE(q.kept_growing(10, 90 * kSecond));   // the run stopped before the arrivals did
  q.note(95 * kSecond, 0);                          // drained: a backlog, not growth
  q.note(120 * kSecond, 50);                        // after the arrivals: only the maximum
  EXPECT_EQ(q.least(), (std::array<std::int64_t, 2>{5, 0}));
  EXPECT_EQ(q.max(), 50);
  EXPECT_FALSE(q.kept_growing(10, 200 * kSecond));
}

TEST(QueueWatch, AQuarterWithoutAChangeHoldsTheDepthBeforeIt) {
  QueueWatch q(100 * kSecond);
  q.note(40 * kSecond, 7);
  q.note(90 * kSecond, 12);  // both quarters begun at once: the first held 7 throughout
  EXPECT_EQ(q.least(), (std::array<std::int64_t, 2>{7, 7}));
  EXPECT_FALSE(q.kept_growing(1, 100 * kSecond));  // 7 is not above 7
  QueueWatch none(0);                              // no arrivals: nothing to judge
  none.note(kSecond, 100);
  EXPECT_FALSE(none.kept_growing(1, kHour));
}

}  // namespace
}  // namespace drainsim
