// Summary statistics for results (docs/semantics.md, Metrics; io/stats_json.h writes them):
// deterministic percentiles over any number of samples in bounded memory, and Student-t 95 %
// intervals over seeds. Not thread-safe, const methods included (quantile() sorts lazily).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace drainsim {

// Percentiles of non-negative samples (seconds in drainsim's use).
// Up to kExactLimit samples it keeps them all and quantile(q) is the exact nearest rank:
// the smallest sample v with at least q*n samples <= v. Past that it moves to a fixed
// histogram: a bucket for 0 and log buckets at ratio 1.02 over [1e-6, 1e9], reported at
// the bucket's geometric midpoint clamped to [min, max], so within 1 % of the exact
// nearest rank for samples in that range (about 14 KB, whatever the count).
// q <= 1/n gives min() and q >= 1 gives max() exactly, in both modes.
// The result depends only on the multiset of samples, not their order, and merge(b) gives
// the same count, quantiles, min and max as adding b's samples one by one, in both modes
// (mean() may differ in the last bits: floating-point addition is not associative).
// An empty Percentiles reports 0 for quantile, min, max and mean.
class Percentiles {
 public:
  static constexpr std::size_t kExactLimit = 4096;

  // REQUIRES: v is finite and >= 0 (negative values count as 0 in histogram mode).
  void add(double v);
  void merge(const Percentiles& other);

  std::size_t count() const { return n_; }
  // REQUIRES: 0 <= q <= 1.
  double quantile(double q) const;
  double min() const { return n_ ? min_ : 0; }
  double max() const { return n_ ? max_ : 0; }
  double mean() const { return n_ ? sum_ / static_cast<double>(n_) : 0; }
  bool exact() const { return buckets_.empty(); }

 private:
  void add_to_bucket(double v);
  void to_histogram();

  std::size_t n_ = 0;
  double sum_ = 0, min_ = 0, max_ = 0;
  mutable std::vector<double> exact_;  // exact mode: the samples
  mutable bool sorted_ = true;
  std::vector<std::uint64_t> buckets_;  // histogram mode: [0] counts zeros
};

// The mean and Student-t 95 % two-sided interval mean ± t(0.975, n-1) * s / sqrt(n), s the
// sample standard deviation. n == 1 gives half_width 0; n == 0 gives all zeros.
struct Interval {
  double mean = 0, half_width = 0, low = 0, high = 0;
  std::size_t n = 0;
};
Interval student_t_95(const std::vector<double>& samples);

// The least upper end (student_t_95(...).high) that n samples, all >= 0, can have when
// `first` are the first of them (REQUIRES: every value >= 0, 1 <= first.size() <= n). The
// upper end is convex in the samples and symmetric in the ones not yet seen, so the rest do
// best all equal, to the c >= 0 that minimises it (worked out in closed form). With
// first.size() == n it is the samples' own upper end. What a sequential test needs to stop
// once no further samples can bring the upper end down to a target.
double least_student_t_95_high(const std::vector<double>& first, std::size_t n);

// The 0.975 quantile of Student's t with `df` degrees of freedom: exact to 10 digits for
// df <= 30 (table), Cornish-Fisher beyond (error < 3e-8); df == 0 gives 0.
double t_quantile_975(std::size_t df);
// The 0.95 quantile likewise (a one-sided test at 5 %, as each of the two of an
// equivalence test is).
double t_quantile_95(std::size_t df);

}  // namespace drainsim
