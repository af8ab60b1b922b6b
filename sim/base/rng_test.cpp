#include "base/rng.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

namespace drainsim {
namespace {

std::vector<std::uint64_t> draw(Rng rng, int n) {
  std::vector<std::uint64_t> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = rng.next();
  return v;
}

// Values the two sequences share at the same position; two independent 64-bit streams
// share one with probability ~n / 2^64, i.e. never.
int same_positions(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  int same = 0;
  for (std::size_t i = 0; i < a.size(); ++i) same += a[i] == b[i];
  return same;
}

TEST(Rng, SameSeedSameSequence) {
  EXPECT_EQ(draw(Rng(42), 1000), draw(Rng(42), 1000));
  EXPECT_EQ(same_positions(draw(Rng(42), 1000), draw(Rng(43), 1000)), 0);
  // Seed 0 is a valid seed (splitmix64 never leaves xoshiro's state all zero).
  const auto zero = draw(Rng(0), 1000);
  EXPECT_GT(std::count_if(zero.begin(), zero.end(), [](std::uint64_t x) { return x != 0; }), 990);
}

TEST(Rng, ForkedStreamsDifferFromEachOtherAndTheParent) {
  const Rng parent(7);
  const auto p = draw(parent, 1000);
  const auto s1 = draw(parent.fork(1), 1000);
  const auto s2 = draw(parent.fork(2), 1000);
  const auto s0 = draw(parent.fork(0), 1000);
  EXPECT_EQ(same_positions(s1, s2), 0);
  EXPECT_EQ(same_positions(s1, p), 0);
  EXPECT_EQ(same_positions(s2, p), 0);
  EXPECT_EQ(same_positions(s0, p), 0);  // stream 0 is not the parent itself
  EXPECT_EQ(same_positions(s0, s1), 0);
  // The same stream of the same seed is the same sequence.
  EXPECT_EQ(draw(parent.fork(1), 1000), s1);
  // Another seed's stream 1 is different.
  EXPECT_EQ(same_positions(draw(Rng(8).fork(1), 1000), s1), 0);
}

TEST(Rng, ForkDependsOnTheSeedNotOnDrawsSoFar) {
  // Common random numbers: drawing from the parent must not shift its forked streams.
  Rng parent(99);
  const auto before = draw(parent.fork(3), 100);
  for (int i = 0; i < 17; ++i) parent.next();
  EXPECT_EQ(draw(parent.fork(3), 100), before);
}

TEST(Rng, BelowStaysInRange) {
  Rng rng(5);
  for (std::uint64_t n : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{3}, std::uint64_t{7},
                          std::uint64_t{1000}, (std::uint64_t{1} << 63) + 1, UINT64_MAX}) {
    std::uint64_t max_seen = 0;
    for (int i = 0; i < 10000; ++i) {
      const std::uint64_t x = rng.below(n);
      ASSERT_LT(x, n) << "n=" << n;
      max_seen = std::max(max_seen, x);
    }
    if (n == 1) {
      EXPECT_EQ(max_seen, 0u);
    }
    // 10000 draws from [0, 7) all miss 6 with probability (6/7)^10000 ~ 0.
    if (n == 7) {
      EXPECT_EQ(max_seen, 6u);
    }
  }
}

TEST(Rng, BelowIsRoughlyUniform) {
  // 100k draws over 10 buckets: 10000 expected each. Chi-square with 9 degrees of freedom
  // exceeds 27.88 with probability 0.001; the seed is fixed, so the test is deterministic.
  Rng rng(2024);
  constexpr int kDraws = 100000;
  for (std::uint64_t n : {std::uint64_t{10}, std::uint64_t{6}}) {
    std::vector<int> counts(n, 0);
    for (int i = 0; i < kDraws; ++i) ++counts[rng.below(n)];
    const double expected = static_cast<double>(kDraws) / static_cast<double>(n);
    double chi2 = 0;
    for (int c : counts) chi2 += (c - expected) * (c - expected) / expected;
    // 99.9 % quantiles: 27.88 (9 dof), 20.52 (5 dof).
    EXPECT_LT(chi2, n == 10 ? 27.88 : 20.52) << "n=" << n;
  }
}

TEST(Rng, BelowHasNoModuloBiasForLargeN) {
  // n = 3 * 2^62. `next() % n` would give [0, 2^62) half the time (2^64 mod n = 2^62 values
  // are hit twice); exactly uniform gives it 1/3. 100k draws: sd = sqrt(1e5 * 2/9) = 149.
  Rng rng(31);
  const std::uint64_t n = std::uint64_t{3} << 62;
  int low = 0;
  for (int i = 0; i < 100000; ++i) low += rng.below(n) < (std::uint64_t{1} << 62);
  EXPECT_NEAR(low, 33333, 1000);
}

TEST(Rng, UniformIsInUnitInterval) {
  Rng rng(77);
  double lo = 1, hi = 0, sum = 0;
  std::array<int, 10> counts{};
  constexpr int kDraws = 100000;
  for (int i = 0; i < kDraws; ++i) {
    const double u = rng.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    lo = std::min(lo, u);
    hi = std::max(hi, u);
    sum += u;
    ++counts[static_cast<std::size_t>(u * 10)];
  }
  // Mean 0.5, sd of the mean 0.2887 / sqrt(1e5) = 0.00091.
  EXPECT_NEAR(sum / kDraws, 0.5, 0.005);
  EXPECT_LT(lo, 0.001);
  EXPECT_GT(hi, 0.999);
  double chi2 = 0;
  for (int c : counts) chi2 += (c - 10000.0) * (c - 10000.0) / 10000.0;
  EXPECT_LT(chi2, 27.88);
  // The ranged overload maps [0, 1) onto [lo, hi).
  for (int i = 0; i < 1000; ++i) {
    const double x = rng.uniform(0.5, 1.5);
    ASSERT_GE(x, 0.5);
    ASSERT_LT(x, 1.5);
  }
}

TEST(Rng, ExponentialMeanWithinTwoPercent) {
  // sd of the mean of 200k exponentials = mean / sqrt(2e5) = 0.22 % of the mean.
  Rng rng(123);
  constexpr int kDraws = 200000;
  for (double mean : {1.0, 4.0, 0.25}) {
    double sum = 0;
    for (int i = 0; i < kDraws; ++i) {
      const double x = rng.exponential(mean);
      ASSERT_GE(x, 0.0);
      sum += x;
    }
    EXPECT_NEAR(sum / kDraws, mean, 0.02 * mean) << "mean=" << mean;
  }
}

TEST(Rng, NormalHasUnitVariance) {
  // Mean 0 (sd of the mean 1/sqrt(2e5) = 0.0022), variance 1 (sd ~ sqrt(2/2e5) = 0.003).
  Rng rng(321);
  constexpr int kDraws = 200000;
  double sum = 0, sq = 0;
  for (int i = 0; i < kDraws; ++i) {
    const double x = rng.normal();
    ASSERT_TRUE(std::isfinite(x));
    sum += x;
    sq += x * x;
  }
  const double mean = sum / kDraws;
  EXPECT_NEAR(mean, 0.0, 0.015);
  EXPECT_NEAR(sq / kDraws - mean * mean, 1.0, 0.02);
}

TEST(Rng, BernoulliMatchesProbability) {
  Rng rng(9);
  int hits = 0;
  for (int i = 0; i < 100000; ++i) hits += rng.bernoulli(0.3);
  EXPECT_NEAR(hits, 30000, 1000);  // sd = sqrt(1e5 * 0.21) = 145
  EXPECT_FALSE(Rng(1).bernoulli(0.0));
  EXPECT_TRUE(Rng(1).bernoulli(1.0));
}

}  // namespace
}  // namespace drainsim
