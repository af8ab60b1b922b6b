// Deterministic randomness. One generator per run is seeded from the scenario seed; each
// consumer draws from its own stream forked from it, so changing, say, the grace period
// does not shift the job durations (common random numbers across a sweep). The
// distributions are our own code: std:: distributions differ between standard libraries.
// Not thread-safe; one Rng per thread of use.
#pragma once

#include <cstddef>
#include <cstdint>

namespace drainsim {

// xoshiro256** seeded through splitmix64.
class Rng {
 public:
  explicit Rng(std::uint64_t seed = 0);

  // An independent generator for stream `stream` of this generator's seed.
  Rng fork(std::uint64_t stream) const;

  std::uint64_t next();
  // Uniform in [0, 1) with 53 random bits.
  double uniform();
  // Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  // Uniform integer in [0, n). REQUIRES: n > 0.
  std::uint64_t below(std::uint64_t n);
  bool bernoulli(double p) { return uniform() < p; }
  // Exponential with the given mean.
  double exponential(double mean);
  // Standard normal (Box-Muller, one value per call).
  double normal();

 private:
  std::uint64_t seed_;
  std::uint64_t s_[4];
};

// The streams a run draws from. Append only: renumbering changes every result.
enum class Stream : std::uint64_t {
  kArrivals = 1,
  kDurations = 2,
  kJobBehaviour = 3,
  kBackend = 4,
  kPlatform = 5,
  kWorkers = 6,
  kDispatch = 7,    // which waiting worker a job goes to (Dispatch::kRandomWaiter)
  kNetwork = 8,     // fetch round trips (worker.fetch_latency)
  kStartup = 9,     // worker programs' start-up (worker.startup)
  kLateFetch = 10,  // whether a thread kill beats a late fetch's hand-back
};
// How many streams a runtime keeps: one more than the largest Stream.
inline constexpr std::size_t kStreamCount = 11;

}  // namespace drainsim
