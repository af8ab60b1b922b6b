#include "model/metrics.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

namespace drainsim {
namespace {

using Values = std::map<std::string, std::optional<double>>;

// Three jobs enqueued, one completed, one lost, one discarded by shutdown; two processes,
// one drained in 4 s and exited cleanly, one killed at the deadline; nothing recovered.
RunSummary small_run() {
  RunSummary s;
  s.jobs.enqueued = 3;
  s.jobs.completed = 1;
  s.jobs.lost = 1;
  s.jobs.discarded_by_shutdown = 1;
  s.jobs.wasted_work = 2500 * kMillisecond;
  s.jobs.attempts[static_cast<int>(Outcome::kKilled)] = 2;
  s.exits[static_cast<int>(ExitKind::kClean)] = 1;
  s.exits[static_cast<int>(ExitKind::kKilledAtDeadline)] = 1;
  s.forced_kills = 1;
  s.drain_latency = Spread{1, 4.0, 4.0, 4.0};
  return s;
}

TEST(Metrics, NamesAreSortedAndUnique) {
  const auto all = metrics();
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end(),
                             [](const Metric& a, const Metric& b) { return a.name < b.name; }));
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end(),
                               [](const Metric& a, const Metric& b) { return a.name == b.name; }),
            all.end());
}

TEST(Metrics, ValuesByName) {
  const RunSummary s = small_run();
  EXPECT_EQ(metric("job_loss").value(s), 2.0);  // lost 1 + discarded by shutdown 1
  EXPECT_EQ(metric("jobs_enqueued").value(s), 3.0);
  EXPECT_EQ(metric("wasted_work_s").value(s), 2.5);
  EXPECT_EQ(metric("attempts.killed").value(s), 2.0);
  EXPECT_EQ(metric("exits.clean").value(s), 1.0);
  EXPECT_EQ(metric("graceful_exits").value(s), 1.0);
  EXPECT_EQ(metric("exits.killed_at_deadline").value(s), 1.0);
  EXPECT_EQ(metric("forced_kills").value(s), 1.0);
  EXPECT_EQ(metric("drain_latency_s.p99").value(s), 4.0);
  EXPECT_EQ(metric("drain_latency_s.count").value(s), 1.0);
  EXPECT_EQ(metric("orphan_recovery_delay_s.p99").value(s), std::nullopt);
  EXPECT_EQ(metric("deploy_duration_s.mean").value(s), std::nullopt);
}

TEST(Metrics, GroupsLeavesAndDecimals) {
  EXPECT_EQ(metric("drain_latency_s.p99").group(), "drain_latency_s");
  EXPECT_EQ(metric("drain_latency_s.p99").leaf(), "p99");
  EXPECT_EQ(metric("job_loss").group(), "");
  EXPECT_EQ(metric("job_loss").leaf(), "job_loss");
  EXPECT_EQ(metric("job_loss").decimals(), 1);
  EXPECT_EQ(metric("wasted_work_s").decimals(), 2);
  EXPECT_EQ(metric("interrupted_fraction").decimals(), 4);
}

TEST(Metrics, UnknownNameIsAnError) {
  EXPECT_THROW(metric("drain_latency_s.p95"), std::invalid_argument);
  EXPECT_THROW(metric(""), std::invalid_argument);
}

// As a sweep keeps them: a null group is one key mapped to nullopt, a present one its leaves.
TEST(Metrics, CollectMapsANullGroupToItsName) {
  Values v;
  collect_metrics(small_run(), v);
  EXPECT_EQ(v.at("drain_latency_s.p50"), 4.0);
  EXPECT_EQ(v.count("drain_latency_s"), 0u);
  EXPECT_EQ(v.at("orphan_recovery_delay_s"), std::nullopt);
  EXPECT_EQ(v.count("orphan_recovery_delay_s.p99"), 0u);
  EXPECT_EQ(v.at("job_loss"), 2.0);
  // Every metric of a present group, plus one key per null group.
  // orphan recovery and its two parts (requeues, backend recoveries), deploy duration, job
  // latency
  const std::size_t null_groups = 5;
  const std::size_t null_leaves = 4 + 4 + 4 + 3 + 2;
  EXPECT_EQ(v.size(), metrics().size() - null_leaves + null_groups);
}

}  // namespace
}  // namespace drainsim
