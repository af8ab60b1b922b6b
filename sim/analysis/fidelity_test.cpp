#include "analysis/fidelity.h"

#include <gtest/gtest.h>

namespace drainsim {
namespace {

// Equivalence tests (TOST at 95 %) worked by hand: the difference's interval is
// difference ± t(0.95, df) × standard error, and the verdict compares it with ±margin.
// t(0.95, 2) = 2.919986, t(0.95, 4) = 2.131847.

// a = {10, 12, 14}: mean 12, variance 4; b = {11, 13, 15}: mean 13, variance 4. Standard
// error sqrt(4/3 + 4/3) = 1.632993, df = (8/3)^2 / (2 (4/3)^2 / 2) = 4: the interval is
// 1 ± 3.481291 = [-2.481291, 4.481291], inside ±5.
TEST(Welch, AnIntervalInsideTheMarginIsEquivalent) {
  const FidelityVerdict v = welch_verdict({10, 12, 14}, {11, 13, 15}, 5);
  EXPECT_EQ(v.verdict, Verdict::kEquivalent);
  EXPECT_DOUBLE_EQ(v.difference, 1);
  EXPECT_NEAR(v.low, 1 - 2.1318468 * 1.6329932, 1e-6);
  EXPECT_NEAR(v.high, 1 + 2.1318468 * 1.6329932, 1e-6);
  EXPECT_DOUBLE_EQ(v.margin, 5);
}

// b = {20, 22, 24}: the interval 10 ± 3.481 = [6.519, 13.481] lies wholly above +2.
TEST(Welch, AnIntervalOutsideTheMarginDiffers) {
  const FidelityVerdict v = welch_verdict({10, 12, 14}, {20, 22, 24}, 2);
  EXPECT_EQ(v.verdict, Verdict::kDiffers);
  EXPECT_NEAR(v.low, 10 - 2.1318468 * 1.6329932, 1e-6);
}

// [-2.481, 4.481] against ±3: neither inside nor outside. Adding runs of b alone cannot
// decide: the reference's own three runs keep the standard error above sqrt(4/3) = 1.155,
// and t(0.95, 2 or more) × 1.155 stays above the 2 the interval would have to shrink by.
TEST(Welch, AnIntervalAcrossTheMarginIsInconclusive) {
  const FidelityVerdict v = welch_verdict({10, 12, 14}, {11, 13, 15}, 3);
  EXPECT_EQ(v.verdict, Verdict::kInconclusive);
  EXPECT_EQ(v.runs_to_decide, 0u);
  EXPECT_TRUE(v.why.empty());
}

// The model loses no job in any of 30 seeds; the real system loses {0, 1, 0, 2, 0}: mean
// 0.6, variance 0.8. Welch takes each side's own variance: standard error sqrt(0.8 / 5) =
// 0.4, df 4 (the model's side adds none), interval 0.6 ± 0.853 = [-0.253, 1.453]: it
// reaches past +1, so the runs cannot say the loss is within a job: inconclusive. Pooling
// the variances would have let the model's 30 zeros lend the real side their certainty:
// pooled variance 3.2 / 33 = 0.097, standard error 0.150, df 33, interval [0.345, 0.855],
// inside ±1: "equivalent" by accident.
TEST(Welch, ASideThatNeverVariesLendsTheOtherNoCertainty) {
  const std::vector<double> model(30, 0.0);
  const FidelityVerdict v = welch_verdict(model, {0, 1, 0, 2, 0}, 1);
  EXPECT_EQ(v.verdict, Verdict::kInconclusive);
  EXPECT_NEAR(v.difference, 0.6, 1e-12);
  EXPECT_NEAR(v.high, 0.6 + 2.1318468 * 0.4, 1e-6);
  // More real runs would decide: with variance 0.8, n runs give 0.6 + t(0.95, n-1)
  // sqrt(0.8/n), below 1 first at n = 16 (t(15) = 1.753050 × 0.223607 = 0.392 < 0.4; at
  // 15, t(14) = 1.761310 × 0.230940 = 0.407).
  EXPECT_EQ(v.runs_to_decide, 16u);
}

// Both sides never vary: a difference without an interval, equivalent within the margin
// and differing beyond it. A side of one run has an unknown spread: inconclusive, never
// "differs" by a test that needs the spread.
TEST(Welch, NoSpreadAndOneRun) {
  EXPECT_EQ(welch_verdict({0, 0, 0}, {1, 1, 1}, 1).verdict, Verdict::kEquivalent);
  EXPECT_EQ(welch_verdict({0, 0, 0}, {1, 1, 1}, 0.5).verdict, Verdict::kDiffers);
  const FidelityVerdict one = welch_verdict({4, 4, 4}, {9}, 1);
  EXPECT_EQ(one.verdict, Verdict::kInconclusive);
  EXPECT_EQ(one.why, "one run: its spread is unknown");
  EXPECT_EQ(welch_verdict({5}, {5, 5, 6}, 1).why,
            "the reference has one run: its spread is unknown");
  EXPECT_EQ(welch_verdict({5}, {5}, 1).verdict, Verdict::kInconclusive);
}

TEST(Welch, NullOnOneSideOnlyDiffers) {
  EXPECT_EQ(welch_verdict({}, {}, 1).verdict, Verdict::kEquivalent);
  EXPECT_EQ(welch_verdict({}, {2.5}, 1).verdict, Verdict::kDiffers);
  EXPECT_EQ(welch_verdict({2.5}, {}, 1).why, "a value on one side only");
}

// Paired by seed, d = b - a = {1, 2, 3}: mean 2, sd 1, standard error 0.577350, df 2,
// interval 2 ± 1.685854 = [0.314, 3.686] against ±3: inconclusive. With the same spread,
// n pairs give 2 + t(n-1)/sqrt(n) below 3 first at n = 5 (t(4)/sqrt(5) = 0.953; at 4,
// t(3)/2 = 1.177): five runs would decide. And they do: d = {1, 2, 3, 2, 2}, mean 2,
// variance 0.5, standard error 0.316228, interval 2 ± 0.674 = [1.326, 2.674]: equivalent.
TEST(Paired, AnInconclusiveRowBecomesConclusiveWithTheRunsItAskedFor) {
  using V = std::vector<std::optional<double>>;
  const FidelityVerdict three = paired_verdict(V{0, 0, 0}, V{1, 2, 3}, 3);
  EXPECT_EQ(three.verdict, Verdict::kInconclusive);
  EXPECT_NEAR(three.high, 2 + 2.9199856 * 0.5773503, 1e-6);
  EXPECT_EQ(three.runs_to_decide, 5u);
  const FidelityVerdict five = paired_verdict(V{0, 0, 0, 0, 0}, V{1, 2, 3, 2, 2}, 3);
  EXPECT_EQ(five.verdict, Verdict::kEquivalent);
  EXPECT_NEAR(five.low, 2 - 2.1318468 * 0.3162278, 1e-6);
}

// a = {1, 3, 0, 2, 2}, b = {2, 4, 1, 3, 2}: differences {1, 1, 1, 1, 0}, mean 0.8, variance
// 0.2, standard error 0.2, df 4: interval 0.8 ± 0.426 = [0.374, 1.226]. Against ±0.3 it
// differs. Unpaired, the seeds' own spread hides it: both variances 1.3, standard error
// 0.721, df 8, t(0.95, 8) = 1.859548: 0.8 ± 1.341, inconclusive.
TEST(Paired, ASteadyDifferenceTheSeedsSpreadHidesDiffers) {
  const std::vector<std::optional<double>> a = {1, 3, 0, 2, 2}, b = {2, 4, 1, 3, 2};
  const FidelityVerdict v = paired_verdict(a, b, 0.3);
  EXPECT_EQ(v.verdict, Verdict::kDiffers);
  EXPECT_NEAR(v.difference, 0.8, 1e-12);
  EXPECT_NEAR(v.low, 0.8 - 2.1318468 * 0.2, 1e-6);
  EXPECT_EQ(welch_verdict({1, 3, 0, 2, 2}, {2, 4, 1, 3, 2}, 0.3).verdict, Verdict::kInconclusive);
}

TEST(Paired, NullsAndNoSpread) {
  using V = std::vector<std::optional<double>>;
  EXPECT_EQ(paired_verdict(V{4, 4}, V{4, 4}, 0).verdict, Verdict::kEquivalent);
  EXPECT_EQ(paired_verdict(V{4, 4}, V{5, 5}, 0.5).verdict, Verdict::kDiffers);  // no spread
  // Null on both sides is left out; on one side only, differs; one pair left is too few.
  EXPECT_EQ(paired_verdict(V{std::nullopt, 4, 4}, V{std::nullopt, 4, 4}, 0).verdict,
            Verdict::kEquivalent);
  const FidelityVerdict one_sided = paired_verdict(V{std::nullopt, 4, 4}, V{7, 4, 4}, 1);
  EXPECT_EQ(one_sided.verdict, Verdict::kDiffers);
  EXPECT_EQ(one_sided.why, "a value on one side only, 1 of 3 seeds");
  EXPECT_EQ(paired_verdict(V{std::nullopt}, V{std::nullopt}, 0).verdict, Verdict::kEquivalent);
  EXPECT_EQ(paired_verdict(V{std::nullopt, 3}, V{std::nullopt, 4}, 1).verdict,
            Verdict::kInconclusive);
}

MetricValues with_loss(std::int64_t lost, std::optional<double> drain_p99) {
  RunSummary s;
  s.jobs.enqueued = 10;
  s.jobs.lost = lost;
  if (drain_p99) s.drain_latency = Spread{1, *drain_p99, *drain_p99, *drain_p99};
  return metric_values(s);
}

const FidelityRow& row_of(const std::vector<FidelityRow>& rows, const std::string& metric) {
  for (const FidelityRow& r : rows) {
    if (r.metric == metric) return r;
  }
  throw std::runtime_error(metric);
}

// Virtual over three seeds loses 0, 1 and 2 jobs (mean 1, s 1, half-width 4.303/sqrt(3) =
// 2.484); the process engine loses 3 every time. The default count tolerance at a mean of
// 1 is ±max(1, 0.1) = 1; Welch: standard error 1/sqrt(3) = 0.577, df 2, interval 2 ± 1.686
// = [0.314, 3.686]: inconclusive. Its drains are null in one run (n=2 of 3): against 5.0
// thrice, 5.5 twice never varies on either side, a difference of 0.5 within ±0.25: no,
// beyond it: differs.
TEST(Fidelity, RowsHoldIntervalsRangesToleranceAndVerdicts) {
  const std::vector<FidelitySource> sources = {
      {"virtual", {with_loss(0, 5.0), with_loss(1, 5.0), with_loss(2, 5.0)}, {}},
      {"process", {with_loss(3, 5.5), with_loss(3, std::nullopt), with_loss(3, 5.5)}, {}},
  };
  const auto rows = fidelity_rows(sources);
  const FidelityRow& loss = row_of(rows, "job_loss");
  EXPECT_DOUBLE_EQ(loss.cells[0].interval.mean, 1);
  EXPECT_NEAR(loss.cells[0].interval.half_width, 2.484, 1e-3);
  EXPECT_EQ(loss.cells[0].min, 0);
  EXPECT_EQ(loss.cells[0].max, 2);
  EXPECT_DOUBLE_EQ(loss.margin, 1);
  ASSERT_EQ(loss.verdicts.size(), 1u);
  EXPECT_EQ(loss.verdict(1).verdict, Verdict::kInconclusive);
  EXPECT_DOUBLE_EQ(loss.verdicts[0].difference, 2);
  EXPECT_FALSE(loss.paired[0]);  // no seeds known: no pairs

  const FidelityRow& drain = row_of(rows, "drain_latency_s.p99");
  EXPECT_EQ(drain.cells[1].interval.n, 2u);
  EXPECT_DOUBLE_EQ(drain.margin, 0.25);
  EXPECT_EQ(drain.verdict(1).verdict, Verdict::kDiffers);
  EXPECT_EQ(row_of(rows, "jobs_enqueued").verdict(1).verdict, Verdict::kEquivalent);
  EXPECT_EQ(row_of(rows, "deploy_duration_s.mean").cells[0].interval.n, 0u);
  EXPECT_EQ(count_verdicts(rows, Verdict::kDiffers), 3u);  // the drains' p50, p99 and max
  EXPECT_EQ(count_verdicts(rows, Verdict::kInconclusive), 1u);
  EXPECT_EQ(count_verdicts(rows, Verdict::kEquivalent), 14u);

  const std::string table = fidelity_table(sources, rows);
  EXPECT_NE(table.find("virtual (n=3)"), std::string::npos) << table;
  EXPECT_NE(table.find("process vs virtual (Welch)"), std::string::npos) << table;
  EXPECT_NE(table.find("1 [0..2]"), std::string::npos) << table;  // 3 runs: the range
  EXPECT_NE(table.find("inconclusive +2 [+0.314, +3.686]"), std::string::npos) << table;
  EXPECT_NE(table.find("5.500 (n=2)"), std::string::npos) << table;
  EXPECT_NE(table.find("DIFFERS +0.500 (+10.0%)"), std::string::npos) << table;
  EXPECT_NE(table.find("±0.250"), std::string::npos) << table;
}

// A case's own tolerance holds over the metric's, which holds over its unit's.
TEST(Fidelity, TheMostSpecificToleranceHolds) {
  Tolerances t;
  t.metrics["job_loss"] = {0.5, 0, "a loss is what users fear"};
  t.cases["celery-oom-kill"].metrics["job_loss"] = {3, 0, "this case's"};
  const std::vector<FidelitySource> sources = {
      {"virtual", {with_loss(0, std::nullopt), with_loss(0, std::nullopt)}, {}},
      {"real", {with_loss(2, std::nullopt), with_loss(2, std::nullopt)}, {}},
  };
  EXPECT_DOUBLE_EQ(row_of(fidelity_rows(sources), "job_loss").margin, 1);
  EXPECT_DOUBLE_EQ(row_of(fidelity_rows(sources, t), "job_loss").margin, 0.5);
  const std::vector<FidelityRow> rows = fidelity_rows(sources, t, "celery-oom-kill");
  const FidelityRow& own = row_of(rows, "job_loss");
  EXPECT_DOUBLE_EQ(own.margin, 3);
  EXPECT_EQ(own.verdict(1).verdict, Verdict::kEquivalent);  // 2 without spread, within 3
  EXPECT_EQ(own.tolerance.reason, "this case's");
}

// A real system that cannot say when it makes a job available again does not measure
// orphan recovery: no verdict on it, "not measured", not a difference.
TEST(Fidelity, WhatASourceCannotMeasureHasNoVerdict) {
  RunSummary s;
  s.jobs.enqueued = 10;
  s.orphan_recovery_delay = Spread{1, 30, 30, 30};
  const FidelitySource model{"virtual", {metric_values(s), metric_values(s)}, {}};
  s.orphan_recovery_delay.reset();
  FidelitySource real{"real", {metric_values(s), metric_values(s)}, {}};
  real.not_measured = {"orphan_recovery_delay_s"};
  EXPECT_FALSE(real.measures("orphan_recovery_delay_s.p99"));
  EXPECT_TRUE(real.measures("drain_latency_s.p99"));
  const std::vector<FidelityRow> rows = fidelity_rows({model, real});
  const FidelityRow& p99 = row_of(rows, "orphan_recovery_delay_s.p99");
  EXPECT_EQ(p99.verdict(1).verdict, Verdict::kNotMeasured);
  EXPECT_FALSE(p99.cells[1].measured);
  EXPECT_EQ(count_verdicts(rows, Verdict::kNotMeasured), 2u);  // p50 and p99
  EXPECT_EQ(count_verdicts(rows, Verdict::kDiffers), 0u);
  const std::string table = fidelity_table({model, real}, rows);
  // The cell, the tolerance (seconds: ±max(0.25, 5 % of 30)) and the verdict.
  EXPECT_NE(table.find("30  not measured     ±1.500             not measured"), std::string::npos)
      << table;
}

// From five runs up a cell shows the t interval: losses 0..4 have mean 2, s = 1.581,
// half-width t(0.975, 4) * 1.581 / sqrt(5) = 2.776 * 0.7071 = 1.963.
TEST(Fidelity, FiveRunsShowTheInterval) {
  FidelitySource a{"virtual", {}, {}};
  for (int lost = 0; lost < 5; ++lost) a.runs.push_back(with_loss(lost, std::nullopt));
  const FidelitySource b{"real", a.runs, {}};
  const std::string table = fidelity_table({a, b}, fidelity_rows({a, b}));
  EXPECT_NE(table.find("2 ±1.963"), std::string::npos) << table;
  EXPECT_EQ(table.find("DIFFERS"), std::string::npos) << table;
}

// The reference ran seeds 1..6, the other source seeds 4, 2 and 3 (in that order) and a
// seed 9 the reference did not: three pairs, matched by seed, not by position. Losses:
// reference seed s loses s jobs; the other loses 2 more on every seed: d = {2, 2, 2}, no
// spread, beyond the margin of ±max(1, 0.35) = 1: the paired verdict, which stands,
// differs by +2; Welch (reference spread 1.87 over 6 runs) is inconclusive beside it.
TEST(Fidelity, SourcesThatShareSeedsArePairedAndWelchIsTheDetail) {
  FidelitySource a{"virtual", {}, {}};
  for (int seed = 1; seed <= 6; ++seed) {
    a.runs.push_back(with_loss(seed, std::nullopt));
    a.seeds.push_back(static_cast<std::uint64_t>(seed));
  }
  const FidelitySource b{"real",
                         {with_loss(6, std::nullopt), with_loss(4, std::nullopt),
                          with_loss(5, std::nullopt), with_loss(0, std::nullopt)},
                         {4, 2, 3, 9}};
  EXPECT_EQ(shared_seeds(a, b), 3u);
  const auto rows = fidelity_rows({a, b});
  const FidelityRow& loss = row_of(rows, "job_loss");
  EXPECT_EQ(loss.verdicts[0].verdict, Verdict::kInconclusive);
  ASSERT_TRUE(loss.paired[0]);
  EXPECT_EQ(loss.verdict(1).verdict, Verdict::kDiffers);
  EXPECT_DOUBLE_EQ(loss.verdict(1).difference, 2);
  const std::string table = fidelity_table({a, b}, rows);
  EXPECT_NE(table.find("real vs virtual, same 3 seeds"), std::string::npos) << table;
  EXPECT_NE(table.find("real vs virtual, Welch"), std::string::npos) << table;
  EXPECT_NE(table.find("DIFFERS +2 (+57.1%)"), std::string::npos) << table;

  // A seed run twice by a side pairs nothing: fewer than 2 pairs, no paired verdict.
  const FidelitySource twice{
      "real",
      {with_loss(6, std::nullopt), with_loss(6, std::nullopt), with_loss(5, std::nullopt)},
      {4, 4, 3}};
  EXPECT_EQ(shared_seeds(a, twice), 1u);
  EXPECT_FALSE(row_of(fidelity_rows({a, twice}), "job_loss").paired[0]);
  EXPECT_EQ(fidelity_table({a, twice}, fidelity_rows({a, twice})).find("same"), std::string::npos);
}

// --repeats auto, worked by hand: the model loses no job on seeds 1..30; the real system
// loses 1, 2 and 3 on seeds 1..3. Paired, d = {1, 2, 3}: inconclusive against ±3 with five
// runs asked for (Paired.AnInconclusiveRow...), so after 3 runs the next look is at 5 (at
// most MAX); after 5 runs losing 1, 2, 3, 2, 2 the row is equivalent and nothing more runs.
TEST(Fidelity, RepeatsAutoAddsTheRunsTheInconclusiveRowsAskFor) {
  FidelitySource model{"virtual", {}, {}};
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    model.runs.push_back(with_loss(0, std::nullopt));
    model.seeds.push_back(seed);
  }
  Tolerances t;
  t.metrics["job_loss"] = {3, 0, "wide, for the test"};
  FidelitySource real{"real", {}, {}};
  for (const int lost : {1, 2, 3}) {
    real.runs.push_back(with_loss(lost, std::nullopt));
    real.seeds.push_back(real.seeds.size() + 1);
  }
  const std::vector<FidelityRow> three = fidelity_rows({model, real}, t);
  EXPECT_EQ(count_verdicts(three, Verdict::kInconclusive), 1u);
  EXPECT_EQ(runs_before_next_look(three, 3, 20), 5u);
  EXPECT_EQ(runs_before_next_look(three, 3, 4), 4u);  // at most MAX
  EXPECT_EQ(runs_before_next_look(three, 4, 4), 0u);  // MAX had: stop, inconclusive
  for (const int lost : {2, 2}) {
    real.runs.push_back(with_loss(lost, std::nullopt));
    real.seeds.push_back(real.seeds.size() + 1);
  }
  const std::vector<FidelityRow> five = fidelity_rows({model, real}, t);
  EXPECT_EQ(row_of(five, "job_loss").verdict(1).verdict, Verdict::kEquivalent);
  EXPECT_EQ(count_verdicts(five, Verdict::kInconclusive), 0u);
  EXPECT_EQ(runs_before_next_look(five, 5, 20), 0u);
}

}  // namespace
}  // namespace drainsim
