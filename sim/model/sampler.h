// Samplers for the workload (docs/design.md, Semantics/Workload): job durations and arrival
// times drawn from a scenario's distributions with our own Rng, so results replay exactly.
// Parameters are worked out once at construction; sample()/next() never allocate.
// Not thread-safe (they keep a position: sequence index, arrival count).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/duration.h"
#include "base/rng.h"
#include "model/scenario.h"

namespace drainsim {

// Longest duration a sampler returns, to keep time arithmetic far from overflow.
inline constexpr Duration kMaxSampledDuration = 1000 * kHour;

// Job durations. Every result is rounded to the microsecond and lies in
// [0, kMaxSampledDuration]; degenerate parameters (empty lists, median <= 0, shape <= 0,
// zero total weight) give 0 rather than undefined behaviour.
//   constant     value; draws nothing
//   uniform      integer microseconds in [min, max], one draw
//   exponential  mean
//   lognormal    exp(mu + sigma*N), mu = ln(median), sigma = ln(p99/median) / z99
//   pareto       scale / U^(1/shape), U in (0, 1]; median scale * 2^(1/shape)
//   empirical    `values`: uniform choice; `histogram`: a bucket by weight, then uniform
//                integer microseconds in (previous le, le] (the first bucket from 0)
//   sequence     the n-th call returns values[n % size]; draws nothing
class DurationSampler {
 public:
  explicit DurationSampler(const DurationDistribution& d);
  Duration sample(Rng& rng);

 private:
  using Kind = DurationDistribution::Kind;
  Kind kind_;
  bool histogram_ = false;
  double a_ = 0, b_ = 0;            // value | min, width | mean | mu, sigma | scale, -1/shape
  std::vector<Duration> values_;    // empirical values, sequence, histogram upper edges
  std::vector<double> cumulative_;  // histogram: running weight totals
  std::size_t next_ = 0;            // sequence position
};

// Arrival times in non-decreasing order; kNever once the process is exhausted (a rate
// <= 0 gives none). The caller stops at the scenario's duration itself.
//   poisson   exponential gaps of mean 1/rate; the first arrival after one gap
//   constant  round(n * 1e6 / rate) microseconds for n = 0, 1, 2, ... (no drift)
//   burst     `count` arrivals, all at `at`
//   list      the given times (sorted here if they were not)
class ArrivalSampler {
 public:
  explicit ArrivalSampler(const ArrivalProcess& p);
  Time next(Rng& rng);

 private:
  using Kind = ArrivalProcess::Kind;
  Kind kind_;
  double rate_;
  double clock_us_ = 0;  // poisson: unrounded time of the last arrival
  std::int64_t n_ = 0;   // arrivals returned so far
  std::int64_t count_;
  Time at_;
  std::vector<Time> times_;
};

}  // namespace drainsim
