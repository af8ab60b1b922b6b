#include "model/sampler.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace drainsim {
namespace {

using Kind = DurationDistribution::Kind;

DurationDistribution dist(Kind kind) {
  DurationDistribution d;
  d.kind = kind;
  return d;
}

std::vector<Duration> draw(const DurationDistribution& d, int n, std::uint64_t seed = 7) {
  DurationSampler s(d);
  Rng rng(seed);
  std::vector<Duration> out(n);
  for (auto& v : out) v = s.sample(rng);
  return out;
}

// The nearest-rank quantile of an already sorted vector.
double quantile(const std::vector<Duration>& sorted, double q) {
  const auto rank = std::llround(q * static_cast<double>(sorted.size()));
  return static_cast<double>(sorted[static_cast<std::size_t>(rank) - 1]);
}

double mean(const std::vector<Duration>& v) {
  double sum = 0;
  for (Duration x : v) sum += static_cast<double>(x);
  return sum / static_cast<double>(v.size());
}

TEST(DurationSampler, SequenceCyclesInOrderWithoutDrawing) {
  auto d = dist(Kind::kSequence);
  d.values = {3 * kSecond, 1 * kSecond, 2 * kSecond};
  DurationSampler s(d);
  Rng rng(1);
  std::vector<Duration> got;
  for (int i = 0; i < 7; ++i) got.push_back(s.sample(rng));
  EXPECT_EQ(got, (std::vector<Duration>{3 * kSecond, kSecond, 2 * kSecond, 3 * kSecond, kSecond,
                                        2 * kSecond, 3 * kSecond}));
  Rng untouched(1);
  EXPECT_EQ(rng.next(), untouched.next());
}

TEST(DurationSampler, ConstantAndClamping) {
  auto d = dist(Kind::kConstant);
  d.value = 250 * kMillisecond;
  EXPECT_EQ(draw(d, 3), (std::vector<Duration>(3, 250 * kMillisecond)));
  d.value = 2000 * kHour;
  EXPECT_EQ(draw(d, 1)[0], 1000 * kHour);
  d.value = -5;
  EXPECT_EQ(draw(d, 1)[0], 0);
}

TEST(DurationSampler, UniformCoversBothEndsEqually) {
  auto d = dist(Kind::kUniform);
  d.min = 1;
  d.max = 3;  // microseconds 1, 2, 3 with 1/3 each
  int counts[4] = {};
  for (Duration v : draw(d, 300000)) {
    ASSERT_GE(v, 1);
    ASSERT_LE(v, 3);
    ++counts[v];
  }
  for (int v = 1; v <= 3; ++v) EXPECT_NEAR(counts[v] / 300000.0, 1.0 / 3, 0.01) << v;
}

TEST(DurationSampler, ExponentialMean) {
  auto d = dist(Kind::kExponential);
  d.mean = 2 * kSecond;
  EXPECT_NEAR(mean(draw(d, 200000)), 2e6, 0.02 * 2e6);
}

TEST(DurationSampler, LognormalHitsMedianAndP99) {
  // mu = ln(4e6 us), sigma = ln(90/4) / 2.3263 = 1.339.
  auto d = dist(Kind::kLognormal);
  d.median = 4 * kSecond;
  d.p99 = 90 * kSecond;
  auto v = draw(d, 200000);
  std::sort(v.begin(), v.end());
  EXPECT_NEAR(quantile(v, 0.5), 4e6, 0.02 * 4e6);
  EXPECT_NEAR(quantile(v, 0.99), 90e6, 0.05 * 90e6);
}

TEST(DurationSampler, ParetoMedian) {
  // P(X > x) = (scale / x)^shape = 1/2 at x = scale * 2^(1/shape) = 1.41421 s for shape 2.
  auto d = dist(Kind::kPareto);
  d.scale = kSecond;
  d.shape = 2;
  auto v = draw(d, 200000);
  std::sort(v.begin(), v.end());
  EXPECT_GE(v.front(), kSecond);
  EXPECT_NEAR(quantile(v, 0.5), 1.41421356e6, 0.02 * 1.41421356e6);
  // A heavy tail (shape 0.05) stays within the clamp.
  d.shape = 0.05;
  for (Duration x : draw(d, 10000)) ASSERT_LE(x, kMaxSampledDuration);
}

TEST(DurationSampler, EmpiricalValuesUniformChoice) {
  auto d = dist(Kind::kEmpirical);
  d.values = {kSecond, 2 * kSecond, 5 * kSecond, 10 * kSecond};
  std::vector<int> counts(11);
  for (Duration v : draw(d, 200000)) ++counts[v / kSecond];
  for (int s : {1, 2, 5, 10}) EXPECT_NEAR(counts[s] / 200000.0, 0.25, 0.01) << s;
  EXPECT_EQ(counts[0] + counts[3] + counts[4] + counts[6], 0);
}

TEST(DurationSampler, HistogramRespectsWeightsAndEdges) {
  // Weights 1, 0, 3: a quarter in (0, 1s], none in (1s, 2s], three quarters in (2s, 5s].
  auto d = dist(Kind::kEmpirical);
  d.histogram = {{kSecond, 1}, {2 * kSecond, 0}, {5 * kSecond, 3}};
  int counts[3] = {};
  double upper_sum = 0;
  for (Duration v : draw(d, 200000)) {
    ASSERT_GT(v, 0);
    ASSERT_LE(v, 5 * kSecond);
    const int bucket = v <= kSecond ? 0 : v <= 2 * kSecond ? 1 : 2;
    ++counts[bucket];
    if (bucket == 2) upper_sum += static_cast<double>(v);
  }
  EXPECT_NEAR(counts[0] / 200000.0, 0.25, 0.01);
  EXPECT_EQ(counts[1], 0);
  EXPECT_NEAR(counts[2] / 200000.0, 0.75, 0.01);
  EXPECT_NEAR(upper_sum / counts[2], 3.5e6, 0.01 * 3.5e6);  // uniform in (2s, 5s]
}

TEST(DurationSampler, SameSeedSameSequence) {
  auto d = dist(Kind::kLognormal);
  d.median = 4 * kSecond;
  d.p99 = 90 * kSecond;
  EXPECT_EQ(draw(d, 1000, 42), draw(d, 1000, 42));
  EXPECT_NE(draw(d, 1000, 42), draw(d, 1000, 43));
}

std::vector<Time> arrivals(const ArrivalProcess& p, int n, std::uint64_t seed = 7) {
  ArrivalSampler s(p);
  Rng rng(seed);
  std::vector<Time> out(n);
  for (auto& t : out) t = s.next(rng);
  return out;
}

TEST(ArrivalSampler, ConstantRateWithoutDrift) {
  // round(n * 1e6 / 3): 0, 333333, 666667, 1000000, 1333333, ...
  ArrivalProcess p;
  p.kind = ArrivalProcess::Kind::kConstant;
  p.rate_per_s = 3;
  EXPECT_EQ(arrivals(p, 7),
            (std::vector<Time>{0, 333333, 666667, 1000000, 1333333, 1666667, 2000000}));
  ArrivalSampler s(p);
  Rng rng(1);
  Time t = 0;
  for (int i = 0; i <= 3 * 3600; ++i) t = s.next(rng);
  EXPECT_EQ(t, kHour);  // the 10800th gap lands exactly on the hour
  p.rate_per_s = 0;
  EXPECT_EQ(arrivals(p, 1)[0], kNever);
}

TEST(ArrivalSampler, BurstAndList) {
  ArrivalProcess p;
  p.kind = ArrivalProcess::Kind::kBurst;
  p.count = 3;
  p.at = 5 * kSecond;
  EXPECT_EQ(arrivals(p, 5),
            (std::vector<Time>{5 * kSecond, 5 * kSecond, 5 * kSecond, kNever, kNever}));
  p.kind = ArrivalProcess::Kind::kList;
  p.times = {0, 1500 * kMillisecond, 1500 * kMillisecond, 4 * kSecond};
  EXPECT_EQ(arrivals(p, 6), (std::vector<Time>{0, 1500 * kMillisecond, 1500 * kMillisecond,
                                               4 * kSecond, kNever, kNever}));
}

TEST(ArrivalSampler, PoissonGapsAndDeterminism) {
  ArrivalProcess p;
  p.kind = ArrivalProcess::Kind::kPoisson;
  p.rate_per_s = 50;  // mean gap 20 ms
  const auto t = arrivals(p, 200000);
  Rng rng(7);
  EXPECT_EQ(t[0], static_cast<Time>(rng.exponential(20000) + 0.5));  // after one gap
  EXPECT_TRUE(std::is_sorted(t.begin(), t.end()));
  EXPECT_NEAR(static_cast<double>(t.back()) / static_cast<double>(t.size()), 20000, 0.02 * 20000);
  EXPECT_EQ(t, arrivals(p, 200000));
  p.rate_per_s = 0;
  EXPECT_EQ(arrivals(p, 1)[0], kNever);
}

}  // namespace
}  // namespace drainsim
