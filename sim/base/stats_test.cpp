#include "base/stats.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "base/rng.h"

namespace drainsim {
namespace {

Percentiles of(const std::vector<double>& values) {
  Percentiles p;
  for (double v : values) p.add(v);
  return p;
}

// 100k lognormal samples in seconds: median 4 s, sigma 1.339 (p99 90 s).
std::vector<double> lognormal_samples(std::size_t n, std::uint64_t seed = 3) {
  Rng rng(seed);
  std::vector<double> v(n);
  for (auto& x : v) x = std::exp(std::log(4.0) + 1.339 * rng.normal());
  return v;
}

void expect_same(const Percentiles& a, const Percentiles& b) {
  EXPECT_EQ(a.count(), b.count());
  EXPECT_EQ(a.exact(), b.exact());
  EXPECT_EQ(a.min(), b.min());
  EXPECT_EQ(a.max(), b.max());
  EXPECT_NEAR(a.mean(), b.mean(), 1e-9 * std::abs(b.mean()));
  for (double q : {0.0, 0.001, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1.0}) {
    EXPECT_EQ(a.quantile(q), b.quantile(q)) << q;
  }
}

TEST(Percentiles, NearestRankOnSmallSets) {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);  // added out of order
  const Percentiles p = of(v);
  EXPECT_TRUE(p.exact());
  EXPECT_EQ(p.count(), 100u);
  EXPECT_EQ(p.quantile(0.5), 50);   // 50 of 100 samples are <= 50
  EXPECT_EQ(p.quantile(0.99), 99);  // 99 of 100 are <= 99
  EXPECT_EQ(p.quantile(0.011), 2);  // 1.1 samples needed: rank 2
  EXPECT_EQ(p.quantile(0.0), 1);
  EXPECT_EQ(p.quantile(1.0), 100);
  EXPECT_EQ(p.min(), 1);
  EXPECT_EQ(p.max(), 100);
  EXPECT_DOUBLE_EQ(p.mean(), 50.5);
  // {1, 3, 5}: p50 needs 1.5 samples, so rank 2 -> 3; p99 needs 2.97 -> 5.
  const Percentiles three = of({5, 1, 3});
  EXPECT_EQ(three.quantile(0.5), 3);
  EXPECT_EQ(three.quantile(0.99), 5);
}

TEST(Percentiles, EmptyReportsZero) {
  EXPECT_EQ(Percentiles().quantile(0.5), 0);
  EXPECT_EQ(Percentiles().count(), 0u);
}

TEST(Percentiles, HistogramWithinOnePercentOfExact) {
  auto v = lognormal_samples(100000);
  const Percentiles p = of(v);
  EXPECT_FALSE(p.exact());
  std::sort(v.begin(), v.end());
  EXPECT_EQ(p.min(), v.front());
  EXPECT_EQ(p.max(), v.back());
  for (double q : {0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999}) {
    const double exact = v[static_cast<std::size_t>(std::llround(q * 100000)) - 1];
    EXPECT_NEAR(p.quantile(q), exact, 0.01 * exact) << q;
  }
}

TEST(Percentiles, SwitchesModeAfterTheExactLimit) {
  Percentiles p;
  for (std::size_t i = 1; i <= Percentiles::kExactLimit; ++i) p.add(static_cast<double>(i));
  EXPECT_TRUE(p.exact());
  EXPECT_EQ(p.quantile(0.5), 2048);
  p.add(0);
  EXPECT_FALSE(p.exact());
  EXPECT_EQ(p.min(), 0);
  EXPECT_NEAR(p.quantile(0.5), 2048, 0.01 * 2048);  // rank 2049 of {0, 1..4096}: 2048
}

TEST(Percentiles, ZerosAndHugeValuesInHistogramMode) {
  Percentiles p;
  for (int i = 0; i < 5000; ++i) p.add(0);
  for (int i = 0; i < 5000; ++i) p.add(1);
  EXPECT_EQ(p.quantile(0.5), 0);  // the zero bucket reports 0 exactly
  EXPECT_NEAR(p.quantile(0.51), 1, 0.01);
  p.add(1e12);  // beyond the histogram: still the exact max
  EXPECT_EQ(p.quantile(1.0), 1e12);
}

TEST(Percentiles, EveryEdgeAndItsNeighboursFallInTheirBucket) {
  // The buckets are [e[i-1], e[i]) for e[0] = 1e-6, e[i] = e[i-1] * 1.02 (1,745 of them),
  // and a histogram reports a bucket by its geometric middle. One value at a time among
  // zeros and two huge values, so the rank below the two is the value's own bucket: an
  // edge opens its bucket, the double just below it is in the one before.
  Percentiles base;
  for (std::size_t i = 0; i <= Percentiles::kExactLimit; ++i) base.add(0);
  base.add(1e30);
  base.add(1e30);
  ASSERT_FALSE(base.exact());
  const auto bucket_of = [&](double v) {
    Percentiles p = base;
    p.add(v);
    const double n = static_cast<double>(p.count());
    return p.quantile((n - 2) / n);
  };
  std::vector<double> e{1e-6};
  for (int i = 1; i <= 1745; ++i) e.push_back(e.back() * 1.02);
  for (std::size_t i = 1; i + 1 < e.size(); ++i) {
    const double middle = std::sqrt(e[i - 1] * e[i]);
    EXPECT_EQ(bucket_of(e[i - 1]), middle) << i;
    EXPECT_EQ(bucket_of(std::nextafter(e[i - 1], 1.0e300)), middle) << i;
    EXPECT_EQ(bucket_of(std::nextafter(e[i], 0.0)), middle) << i;
    EXPECT_EQ(bucket_of(std::sqrt(e[i - 1] * e[i])), middle) << i;
  }
}

TEST(Percentiles, MergeEqualsAddingEverything) {
  const auto v = lognormal_samples(100000, 11);
  const auto part = [&](std::size_t from, std::size_t to) {
    return std::vector<double>(v.begin() + static_cast<std::ptrdiff_t>(from),
                               v.begin() + static_cast<std::ptrdiff_t>(to));
  };
  // exact + exact staying exact; exact + exact crossing the limit; exact into histogram;
  // histogram into exact; histogram + histogram.
  for (auto [a, b] : {std::pair<std::size_t, std::size_t>{10, 30},
                      {3000, 6000},
                      {100, 100000},
                      {99000, 100000},
                      {40000, 100000}}) {
    Percentiles left = of(part(0, a));
    left.merge(of(part(a, b)));
    expect_same(left, of(part(0, b)));
  }
  // Order does not matter either.
  auto sorted = v;
  std::sort(sorted.begin(), sorted.end());
  expect_same(of(sorted), of(v));
  // Merging into an empty one and with itself.
  Percentiles empty;
  empty.merge(of(part(0, 5000)));
  expect_same(empty, of(part(0, 5000)));
  Percentiles twice = of(part(0, 3000));
  twice.merge(twice);
  auto doubled = part(0, 3000);
  doubled.insert(doubled.end(), doubled.begin(), doubled.end());
  expect_same(twice, of(doubled));
}

TEST(StudentT, HandWorkedSample) {
  // {1,2,3,4,5}: mean 3; squares 4+1+0+1+4 = 10, s = sqrt(10/4) = 1.581139;
  // t(0.975, 4) = 2.776445; half width = 2.776445 * 1.581139 / sqrt(5) = 1.963243.
  const Interval r = student_t_95({1, 2, 3, 4, 5});
  EXPECT_EQ(r.n, 5u);
  EXPECT_DOUBLE_EQ(r.mean, 3);
  EXPECT_NEAR(r.half_width, 1.963243, 1e-6);
  EXPECT_NEAR(r.low, 1.036757, 1e-6);
  EXPECT_NEAR(r.high, 4.963243, 1e-6);
  // {0, 2}: s = sqrt(2), half width = t(1) * sqrt(2) / sqrt(2) = 12.706205.
  EXPECT_NEAR(student_t_95({0, 2}).half_width, 12.706205, 1e-6);
}

TEST(StudentT, DegenerateSamples) {
  const Interval one = student_t_95({7});
  EXPECT_EQ(one.n, 1u);
  EXPECT_EQ(one.mean, 7);
  EXPECT_EQ(one.half_width, 0);
  EXPECT_EQ(one.low, 7);
  EXPECT_EQ(one.high, 7);
  const Interval none = student_t_95({});
  EXPECT_EQ(none.n, 0u);
  EXPECT_EQ(none.mean, 0);
  EXPECT_EQ(none.half_width, 0);
  EXPECT_EQ(none.low, 0);
  EXPECT_EQ(none.high, 0);
}

TEST(StudentT, Quantiles) {
  // Reference values of the 0.975 quantile (high-precision incomplete beta inversion).
  EXPECT_NEAR(t_quantile_975(1), 12.706204736, 1e-8);
  EXPECT_NEAR(t_quantile_975(4), 2.776445105, 1e-8);
  EXPECT_NEAR(t_quantile_975(30), 2.042272456, 1e-8);
  EXPECT_NEAR(t_quantile_975(31), 2.039513446, 1e-7);
  EXPECT_NEAR(t_quantile_975(40), 2.021075390, 1e-7);
  EXPECT_NEAR(t_quantile_975(60), 2.000297822, 1e-7);
  EXPECT_NEAR(t_quantile_975(120), 1.979930405, 1e-7);
  EXPECT_NEAR(t_quantile_975(1000000), 1.959963985, 1e-5);
  for (std::size_t df = 1; df < 200; ++df) EXPECT_GT(t_quantile_975(df), t_quantile_975(df + 1));
}

TEST(StudentT, OneSidedQuantiles) {
  // The 0.95 quantile, by the same inversion: the table, then Cornish-Fisher.
  EXPECT_NEAR(t_quantile_95(1), 6.313751515, 1e-8);
  EXPECT_NEAR(t_quantile_95(4), 2.131846786, 1e-8);
  EXPECT_NEAR(t_quantile_95(29), 1.699127027, 1e-8);
  EXPECT_NEAR(t_quantile_95(30), 1.697260887, 1e-8);
  EXPECT_NEAR(t_quantile_95(31), 1.695518783, 1e-7);
  EXPECT_NEAR(t_quantile_95(40), 1.683851013, 1e-7);
  EXPECT_NEAR(t_quantile_95(60), 1.670648865, 1e-7);
  EXPECT_NEAR(t_quantile_95(120), 1.657650899, 1e-7);
  EXPECT_NEAR(t_quantile_95(1000000), 1.644853627, 1e-5);
  EXPECT_EQ(t_quantile_95(0), 0);
  for (std::size_t df = 1; df < 200; ++df) EXPECT_GT(t_quantile_95(df), t_quantile_95(df + 1));
}

TEST(LeastStudentTHigh, OneNonZeroSampleOfThirty) {
  // {1} then 29 samples to come: the least upper end has them all 0 (mean 1/30,
  // s = sqrt((1 - 1/30) / 29) = 1/sqrt(30), half width t(29) / 30): (1 + 2.045230) / 30.
  EXPECT_NEAR(least_student_t_95_high({1}, 30), 0.1015077, 1e-7);
  const std::vector<double> zeros(29, 0.0);
  std::vector<double> all{1};
  all.insert(all.end(), zeros.begin(), zeros.end());
  EXPECT_NEAR(least_student_t_95_high({1}, 30), student_t_95(all).high, 1e-12);
  // Nothing but zeros so far: the rest can be zeros too.
  EXPECT_EQ(least_student_t_95_high({0, 0, 0}, 30), 0);
}

TEST(LeastStudentTHigh, TheRestEqualToTheSamplesSoFarWhenTheIntervalIsWide) {
  // {1} of 2: t(1) = 12.7 makes any spread cost more than the mean gains, so the second
  // sample does best equal to the first: upper end 1.
  EXPECT_DOUBLE_EQ(least_student_t_95_high({1}, 2), 1);
  // {3, 5} of 4: a = 4, ss = 2, r = 1/2, g = 1, b = t(3) / sqrt(12) = 0.918693;
  // u = r sqrt(ss / (g (b^2 g - r^2))) = 0.917475 (the rest at c = 3.082525) and
  // f = 4 - 0.458738 + 0.918693 sqrt(2 + 0.841760) = 5.089951 (a scan of c agrees).
  EXPECT_NEAR(least_student_t_95_high({3, 5}, 4), 5.089951, 1e-6);
  for (double c = 0; c < 6; c += 0.01) {
    EXPECT_GE(student_t_95({3, 5, c, c}).high, least_student_t_95_high({3, 5}, 4) - 1e-12) << c;
  }
  // Unequal rest does worse than the best equal one.
  EXPECT_GT(student_t_95({3, 5, 2.5, 3.6}).high, least_student_t_95_high({3, 5}, 4));
}

TEST(LeastStudentTHigh, AllSamplesSeenIsTheirOwnUpperEnd) {
  EXPECT_DOUBLE_EQ(least_student_t_95_high({1, 2, 3, 4, 5}, 5), student_t_95({1, 2, 3, 4, 5}).high);
  EXPECT_EQ(least_student_t_95_high({7}, 1), 7);
}

}  // namespace
}  // namespace drainsim
