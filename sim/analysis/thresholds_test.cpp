// run --fail-on: thresholds parsed per the metric's unit, and broken when their comparison
// holds on the run's summary.
#include "analysis/thresholds.h"

#include <gtest/gtest.h>

namespace drainsim {
namespace {

Threshold parsed(std::string_view text) {
  auto t = parse_threshold(text);
  if (const auto* why = std::get_if<std::string>(&t)) {
    ADD_FAILURE() << text << ": " << *why;
    return {};
  }
  return std::get<Threshold>(t);
}

std::string refused(std::string_view text) {
  auto t = parse_threshold(text);
  const auto* why = std::get_if<std::string>(&t);
  return why == nullptr ? "accepted" : *why;
}

TEST(Thresholds, EachUnitTakesItsOwnValues) {
  const Threshold loss = parsed("job_loss>0");
  EXPECT_EQ(loss.metric->name, "job_loss");
  EXPECT_EQ(loss.op, ThresholdOp::kGreater);
  EXPECT_EQ(loss.value, 0);
  const Threshold drain = parsed(" drain_latency_s.p99 >= 1m30s ");
  EXPECT_EQ(drain.text, "drain_latency_s.p99>=1m30s");
  EXPECT_EQ(drain.op, ThresholdOp::kGreaterEqual);
  EXPECT_EQ(drain.value, 90);
  EXPECT_EQ(parsed("drain_latency_s.p99>25").value, 25);  // bare seconds
  EXPECT_DOUBLE_EQ(parsed("interrupted_fraction>0.5%").value, 0.005);
  EXPECT_EQ(parsed("interrupted_fraction!=0").op, ThresholdOp::kNotEqual);
  EXPECT_EQ(parsed("jobs_completed<=10").op, ThresholdOp::kLessEqual);
}

TEST(Thresholds, BadOnesAreRefusedSayingWhy) {
  EXPECT_EQ(refused("job_los>0"),
            "--fail-on 'job_los>0': no metric named \"job_los\", did you mean \"job_loss\"? "
            "(the metrics are results/README.md's summary keys)");
  EXPECT_EQ(refused("job_loss"),
            "--fail-on 'job_loss': expected METRIC OP VALUE, OP one of > >= < <= == != (e.g. "
            "'job_loss>0')");
  EXPECT_EQ(refused(">3"), refused("job_loss").replace(11, 8, ">3"));
  EXPECT_EQ(refused("job_loss>"), "--fail-on 'job_loss>': no value after the operator");
  EXPECT_EQ(refused("job_loss>-1"),
            "--fail-on 'job_loss>-1': job_loss is a count: expected a number >= 0");
  EXPECT_EQ(refused("interrupted_fraction>0.1"),
            "--fail-on 'interrupted_fraction>0.1': interrupted_fraction is a share of the jobs: "
            "0.1 reads two ways: write 10% for that share, or 0.1% for 0.1 %");
  EXPECT_EQ(refused("drain_latency_s.p99>soon"),
            "--fail-on 'drain_latency_s.p99>soon': drain_latency_s.p99 is in seconds: expected "
            "a duration such as 25s or 1m30s (or a number of seconds)");
}

TEST(Thresholds, BrokenWhenTheComparisonHoldsAndNeverOnANullMetric) {
  RunSummary s;
  s.jobs.lost = 2;
  s.jobs.discarded_by_shutdown = 1;  // job_loss 3
  s.drain_latency = Spread{4, 10, 31.5, 40};
  const std::vector<Threshold> t = {
      parsed("job_loss>0"), parsed("job_loss>3"), parsed("drain_latency_s.p99>25s"),
      parsed("orphan_recovery_delay_s.p99>0"), parsed("interrupted_fraction==0")};
  EXPECT_EQ(broken_thresholds(t, s),
            (std::vector<std::string>{"job_loss>0: job_loss is 3",
                                      "drain_latency_s.p99>25s: drain_latency_s.p99 is 31.5s",
                                      "interrupted_fraction==0: interrupted_fraction is 0%"}));
}

}  // namespace
}  // namespace drainsim
