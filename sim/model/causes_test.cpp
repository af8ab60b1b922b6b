#include "model/causes.h"

#include <gtest/gtest.h>

namespace drainsim {
namespace {

TEST(PodCauses, AMarkHoldsFromItsTimeUntilTheNextOne) {
  PodCauses c;
  c.mark(1, 10 * kSecond, event_cause(0));
  c.mark(1, 40 * kSecond, kNoCause);
  c.mark(1, 70 * kSecond, event_cause(2));
  EXPECT_EQ(c.at(1, 9 * kSecond), kNoCause);
  EXPECT_EQ(c.at(1, 10 * kSecond), event_cause(0));
  EXPECT_EQ(c.at(1, 39 * kSecond), event_cause(0));
  EXPECT_EQ(c.at(1, 40 * kSecond), kNoCause);
  EXPECT_EQ(c.at(1, 100 * kSecond), event_cause(2));
  EXPECT_EQ(c.at(0, 100 * kSecond), kNoCause);  // never marked
  EXPECT_EQ(c.at(7, 100 * kSecond), kNoCause);  // beyond any pod seen
}

TEST(PodCauses, TheLatestMarkAtOneInstantWins) {
  PodCauses c;
  c.mark(0, 5 * kSecond, event_cause(1));
  c.mark(0, 5 * kSecond, event_cause(3));
  EXPECT_EQ(c.at(0, 5 * kSecond), event_cause(3));
}

TEST(CauseRows, OneRowPerEventActingOnPodsThenNoneWithDeploysNumbered) {
  Scenario s;
  using K = ScenarioEvent::Kind;
  auto event = [](Time at, K kind) {
    ScenarioEvent e;
    e.at = at;
    e.kind = kind;
    return e;
  };
  s.events = {event(60 * kSecond, K::kRollingRestart), event(90 * kSecond, K::kScaleUp),
              event(120 * kSecond, K::kOomKill), event(300 * kSecond, K::kRollingRestart)};
  std::vector<CauseCounts> counts(5);
  counts[kNoCause].lost = 1;
  counts[event_cause(0)].interrupted = 4;
  counts[event_cause(2)].lost = 3;
  counts[event_cause(2)].discarded_by_shutdown = 2;
  counts[event_cause(3)].duplicate_executions = 6;
  const std::vector<CauseRow> rows = cause_rows(s, counts);
  ASSERT_EQ(rows.size(), 4u);  // the scale_up acts on no job
  EXPECT_EQ(rows[0].id(), "events[0]");
  EXPECT_EQ(rows[0].label(), "deploy 1 at 1m");
  EXPECT_EQ(rows[0].counts.interrupted, 4);
  EXPECT_EQ(rows[1].id(), "events[2]");
  EXPECT_EQ(rows[1].label(), "oom_kill at 2m");
  EXPECT_EQ(rows[1].counts.job_loss(), 5);
  EXPECT_EQ(rows[2].label(), "deploy 2 at 5m");
  EXPECT_EQ(rows[3].id(), "none");
  EXPECT_EQ(rows[3].counts.lost, 1);
  const auto classes = by_class(rows);
  EXPECT_EQ(classes[static_cast<std::size_t>(CauseClass::kDeploys)].interrupted, 4);
  EXPECT_EQ(classes[static_cast<std::size_t>(CauseClass::kDeploys)].duplicate_executions, 6);
  EXPECT_EQ(classes[static_cast<std::size_t>(CauseClass::kOomKills)].job_loss(), 5);
  EXPECT_EQ(classes[static_cast<std::size_t>(CauseClass::kNone)].job_loss(), 1);
  EXPECT_TRUE(grace_can_change(CauseClass::kDeploys));
  EXPECT_FALSE(grace_can_change(CauseClass::kOomKills));
}

}  // namespace
}  // namespace drainsim
