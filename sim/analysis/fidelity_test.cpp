#include "analysis/fidelity.h"

#include <gtest/gtest.h>

namespace drainsim {
namespace {

// Welch's test worked by hand. a = {10, 12, 14}: mean 12, variance 4; b = {20, 22, 24}:
// mean 22, variance 4. Standard error sqrt(4/3 + 4/3) = 1.633, df = (8/3)^2 /
// (2 * (4/3)^2 / 2) = 4, t(0.975, 4) = 2.776: noise 4.533.
TEST(Welch, MeansTenApartWithSpreadTwoDiffer) {
  const FidelityVerdict v = welch_verdict({10, 12, 14}, {20, 22, 24});
  EXPECT_EQ(v.verdict, Verdict::kDiffers);
  EXPECT_DOUBLE_EQ(v.difference, 10);
  EXPECT_NEAR(v.noise, 2.7764451 * 1.6329932, 1e-6);
}

TEST(Welch, MeansOneApartWithSpreadTwoAgree) {
  const FidelityVerdict v = welch_verdict({10, 12, 14}, {11, 13, 15});
  EXPECT_EQ(v.verdict, Verdict::kAgrees);
  EXPECT_DOUBLE_EQ(v.difference, 1);
}

// One reference run of 5 against {5, 5, 6}: only b varies (variance 1/3), standard error
// sqrt(1/9) = 1/3, df = n(b) - 1 = 2, t(0.975, 2) = 4.303: noise 1.434 > 0.333.
TEST(Welch, ASingleReferenceRunAddsNoVariance) {
  const FidelityVerdict v = welch_verdict({5}, {5, 5, 6});
  EXPECT_EQ(v.verdict, Verdict::kAgrees);
  EXPECT_NEAR(v.difference, 1.0 / 3, 1e-12);
  EXPECT_NEAR(v.noise, 4.3026527 / 3, 1e-6);
}

TEST(Welch, WithoutSpreadAnyDifferenceDiffers) {
  EXPECT_EQ(welch_verdict({0, 0, 0}, {1, 1, 1}).verdict, Verdict::kDiffers);
  EXPECT_EQ(welch_verdict({4}, {4, 4}).verdict, Verdict::kAgrees);
  EXPECT_EQ(welch_verdict({4}, {4}).verdict, Verdict::kAgrees);
}

TEST(Welch, NullOnOneSideOnlyDiffers) {
  EXPECT_EQ(welch_verdict({}, {}).verdict, Verdict::kAgrees);
  EXPECT_EQ(welch_verdict({}, {2.5}).verdict, Verdict::kDiffers);
  EXPECT_EQ(welch_verdict({2.5}, {}).verdict, Verdict::kDiffers);
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
// 2.484); the process engine loses 3 every time: standard error 1/sqrt(3) = 0.577, df 2,
// noise 2.484 > 2: agrees. Its drains are null in one run (n=2 of 3).
TEST(Fidelity, RowsHoldIntervalsRangesAndVerdicts) {
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
  ASSERT_EQ(loss.verdicts.size(), 1u);
  EXPECT_EQ(loss.verdicts[0].verdict, Verdict::kAgrees);
  EXPECT_DOUBLE_EQ(loss.verdicts[0].difference, 2);

  const FidelityRow& drain = row_of(rows, "drain_latency_s.p99");
  EXPECT_EQ(drain.cells[1].interval.n, 2u);
  EXPECT_EQ(drain.verdicts[0].verdict, Verdict::kDiffers);  // 5.5 twice against 5.0 thrice
  EXPECT_EQ(row_of(rows, "jobs_enqueued").verdicts[0].verdict, Verdict::kAgrees);
  EXPECT_EQ(row_of(rows, "deploy_duration_s.mean").cells[0].interval.n, 0u);
  EXPECT_EQ(count_differences(rows), 3u);  // the drains' p50, p99 and max
  EXPECT_FALSE(loss.paired[0]);            // no seeds known: no pairs

  const std::string table = fidelity_table(sources, rows);
  EXPECT_NE(table.find("virtual (n=3)"), std::string::npos) << table;
  EXPECT_NE(table.find("process vs virtual"), std::string::npos) << table;
  EXPECT_NE(table.find("1 [0..2]"), std::string::npos) << table;  // 3 runs: the range
  EXPECT_NE(table.find("agrees (+2)"), std::string::npos) << table;
  EXPECT_NE(table.find("5.500 (n=2)"), std::string::npos) << table;
  EXPECT_NE(table.find("DIFFERS (+0.500, +10.0%)"), std::string::npos) << table;
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

// Paired by seed. a = {1, 3, 0, 2, 2}, b = {2, 4, 1, 3, 2}: differences {1, 1, 1, 1, 0},
// mean 0.8, variance 0.2, standard error sqrt(0.2 / 5) = 0.2, t(0.975, 4) = 2.776: noise
// 0.555 < 0.8, they differ. Unpaired, the seeds' own spread hides it: both variances 1.3,
// standard error sqrt(2 * 1.3 / 5) = 0.721, df 8, t = 2.306: noise 1.663 > 0.8, agrees.
TEST(Paired, ASteadyDifferenceTheSeedsSpreadHidesDiffers) {
  const std::vector<std::optional<double>> a = {1, 3, 0, 2, 2}, b = {2, 4, 1, 3, 2};
  const FidelityVerdict v = paired_verdict(a, b);
  EXPECT_EQ(v.verdict, Verdict::kDiffers);
  EXPECT_NEAR(v.difference, 0.8, 1e-12);
  EXPECT_NEAR(v.noise, 2.7764451 * 0.2, 1e-6);
  EXPECT_EQ(welch_verdict({1, 3, 0, 2, 2}, {2, 4, 1, 3, 2}).verdict, Verdict::kAgrees);
}

TEST(Paired, NullsSpreadAndNoSpread) {
  using V = std::vector<std::optional<double>>;
  // d = {1, -1, 2, 0}: mean 0.5, variance 5/3, noise t(3) 3.182 * 0.645 = 2.054: agrees.
  EXPECT_EQ(paired_verdict(V{1, 2, 3, 4}, V{2, 1, 5, 4}).verdict, Verdict::kAgrees);
  EXPECT_EQ(paired_verdict(V{4, 4}, V{4, 4}).verdict, Verdict::kAgrees);
  EXPECT_EQ(paired_verdict(V{4, 4}, V{5, 5}).verdict, Verdict::kDiffers);  // no spread
  // Null on both sides is left out; on one side only, differs.
  EXPECT_EQ(paired_verdict(V{std::nullopt, 4, 4}, V{std::nullopt, 4, 4}).verdict, Verdict::kAgrees);
  EXPECT_EQ(paired_verdict(V{std::nullopt, 4, 4}, V{7, 4, 4}).verdict, Verdict::kDiffers);
  EXPECT_EQ(paired_verdict(V{std::nullopt}, V{std::nullopt}).verdict, Verdict::kAgrees);
}

// The reference ran seeds 1..6, the other source seeds 4, 2 and 3 (in that order) and a
// seed 9 the reference did not: three pairs, matched by seed, not by position. Losses:
// reference seed s loses s jobs; the other loses 2 more on every seed: d = {2, 2, 2},
// no spread, so it differs by +2 in the paired column while Welch (reference spread 1.87
// over 6 runs) agrees.
TEST(Fidelity, SourcesThatShareSeedsGetAPairedColumn) {
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
  EXPECT_EQ(loss.verdicts[0].verdict, Verdict::kAgrees);
  ASSERT_TRUE(loss.paired[0]);
  EXPECT_EQ(loss.paired[0]->verdict, Verdict::kDiffers);
  EXPECT_DOUBLE_EQ(loss.paired[0]->difference, 2);
  EXPECT_EQ(count_paired_differences(rows), 1u);
  const std::string table = fidelity_table({a, b}, rows);
  EXPECT_NE(table.find("same 3 seeds"), std::string::npos) << table;
  EXPECT_NE(table.find("DIFFERS (+2, +57.1%)"), std::string::npos) << table;

  // A seed run twice by a side pairs nothing: fewer than 2 pairs, no paired verdict.
  const FidelitySource twice{
      "real",
      {with_loss(6, std::nullopt), with_loss(6, std::nullopt), with_loss(5, std::nullopt)},
      {4, 4, 3}};
  EXPECT_EQ(shared_seeds(a, twice), 1u);
  EXPECT_FALSE(row_of(fidelity_rows({a, twice}), "job_loss").paired[0]);
  EXPECT_EQ(fidelity_table({a, twice}, fidelity_rows({a, twice})).find("same"), std::string::npos);
}

}  // namespace
}  // namespace drainsim
