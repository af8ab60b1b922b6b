#include "base/stats.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>

namespace drainsim {

namespace {

constexpr double kLowest = 1e-6, kRatio = 1.02;
constexpr std::size_t kLogBuckets = 1745;  // ceil(ln(1e9 / kLowest) / ln(kRatio)): up to 1e9

// Bucket edges by repeated IEEE multiplication (no libm), so histograms agree everywhere.
const std::array<double, kLogBuckets + 1>& edges() {
  static const auto table = [] {
    std::array<double, kLogBuckets + 1> e{};
    e[0] = kLowest;
    for (std::size_t i = 1; i < e.size(); ++i) e[i] = e[i - 1] * kRatio;
    return e;
  }();
  return table;
}

// The bucket search by table: positive doubles order like their bit patterns, and the top
// 17 bits (exponent and 6 mantissa bits) cut each octave into 64 cells narrower than
// kRatio, so a cell holds at most one edge. cells()[c] (c counted from the cell of kLowest)
// has `start`, the number of edges <= the smallest double of cell c, and `edge`, the edge
// that may follow in the cell (edges()[start]): upper_bound(edges, v) is start, plus one
// when edge <= v. Both in one entry, so that a sample costs one table load, not two in a
// row (bench/README.md, issue 19).
constexpr int kCellShift = 46;
std::uint64_t cell_of(double v) { return std::bit_cast<std::uint64_t>(v) >> kCellShift; }

struct Cell {
  double edge;
  std::uint32_t start;
};

const std::vector<Cell>& cells() {
  static const auto table = [] {
    const auto& e = edges();
    const std::uint64_t first = cell_of(e.front()), last = cell_of(e.back());
    std::vector<Cell> t(last - first + 1);
    for (std::uint64_t c = first; c <= last; ++c) {
      const double lowest = std::bit_cast<double>(c << kCellShift);
      const auto start =
          static_cast<std::uint32_t>(std::upper_bound(e.begin(), e.end(), lowest) - e.begin());
      t[c - first] = {start < e.size() ? e[start] : HUGE_VAL, start};
    }
    return t;
  }();
  return table;
}

// Nearest rank in 1..n; the slack absorbs rounding in q*n (0.99 * 100 must be 99).
std::size_t rank(double q, std::size_t n) {
  const double r = std::ceil(q * static_cast<double>(n) - 1e-9);
  return r < 1 ? 1 : r > static_cast<double>(n) ? n : static_cast<std::size_t>(r);
}

}  // namespace

void Percentiles::add(double v) {
  min_ = n_ ? std::min(min_, v) : v;
  max_ = n_ ? std::max(max_, v) : v;
  sum_ += v;
  ++n_;
  if (!buckets_.empty()) {
    add_to_bucket(v);
  } else if (n_ <= kExactLimit) {
    exact_.push_back(v);
    sorted_ = false;
  } else {
    to_histogram();
    add_to_bucket(v);
  }
}

void Percentiles::merge(const Percentiles& other) {
  if (&other == this) {
    const Percentiles copy = other;
    merge(copy);
    return;
  }
  if (other.n_ == 0) return;
  min_ = n_ ? std::min(min_, other.min_) : other.min_;
  max_ = n_ ? std::max(max_, other.max_) : other.max_;
  sum_ += other.sum_;
  n_ += other.n_;
  if (buckets_.empty() && other.buckets_.empty() && n_ <= kExactLimit) {
    exact_.insert(exact_.end(), other.exact_.begin(), other.exact_.end());
    sorted_ = false;
    return;
  }
  if (buckets_.empty()) to_histogram();
  if (other.buckets_.empty()) {
    for (double v : other.exact_) add_to_bucket(v);
  } else {
    for (std::size_t i = 0; i < buckets_.size(); ++i) buckets_[i] += other.buckets_[i];
  }
}

void Percentiles::add_to_bucket(double v) {
  if (!(v > 0)) {
    ++buckets_[0];
    return;
  }
  // buckets_[i] for i >= 1 holds [e[i-1], e[i]); the end buckets also take what lies beyond.
  const auto& e = edges();
  std::size_t above;  // upper_bound(e, v): the number of edges <= v
  if (v < e.front()) {
    above = 0;
  } else if (v >= e.back()) {
    above = e.size();
  } else {
    const Cell& cell = cells()[cell_of(v) - cell_of(e.front())];
    above = cell.start + (cell.edge <= v ? 1 : 0);  // the cell's one edge, if any (no branch)
  }
  ++buckets_[std::clamp<std::size_t>(above, 1, kLogBuckets)];
}

void Percentiles::to_histogram() {
  buckets_.assign(1 + kLogBuckets, 0);
  for (double v : exact_) add_to_bucket(v);
  std::vector<double>().swap(exact_);
  sorted_ = true;
}

double Percentiles::quantile(double q) const {
  if (n_ == 0) return 0;
  const std::size_t k = rank(q, n_);
  if (k == 1) return min_;
  if (k == n_) return max_;
  if (buckets_.empty()) {
    if (!sorted_) std::sort(exact_.begin(), exact_.end());
    sorted_ = true;
    return exact_[k - 1];
  }
  std::uint64_t seen = 0;
  std::size_t i = 0;
  while (i + 1 < buckets_.size() && (seen += buckets_[i]) < k) ++i;
  if (i == 0) return std::clamp(0.0, min_, max_);
  const auto& e = edges();
  return std::clamp(std::sqrt(e[i - 1] * e[i]), min_, max_);
}

namespace {

// Cornish-Fisher expansion of Student's t quantile around the normal quantile `z`, for
// `df` degrees of freedom (Abramowitz & Stegun 26.7.5).
double cornish_fisher(double z, std::size_t df) {
  const double v = static_cast<double>(df);
  const double z2 = z * z, z3 = z2 * z, z5 = z3 * z2, z7 = z5 * z2, z9 = z7 * z2;
  const double g1 = (z3 + z) / 4;
  const double g2 = (5 * z5 + 16 * z3 + 3 * z) / 96;
  const double g3 = (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / 384;
  const double g4 = (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / 92160;
  return z + (g1 + (g2 + (g3 + g4 / v) / v) / v) / v;
}

}  // namespace

double t_quantile_95(std::size_t df) {
  static constexpr double kTable[] = {
      6.3137515147, 2.9199855804, 2.3533634348, 2.1318467863, 2.0150483733, 1.9431802805,
      1.8945786051, 1.8595480375, 1.8331129327, 1.8124611228, 1.7958848187, 1.7822875556,
      1.7709333960, 1.7613101358, 1.7530503557, 1.7458836763, 1.7396067261, 1.7340636066,
      1.7291328115, 1.7247182429, 1.7207429028, 1.7171443744, 1.7138715277, 1.7108820799,
      1.7081407613, 1.7056179198, 1.7032884457, 1.7011309343, 1.6991270265, 1.6972608866};
  if (df == 0) return 0;
  if (df <= std::size(kTable)) return kTable[df - 1];
  return cornish_fisher(1.6448536269514722, df);
}

double t_quantile_975(std::size_t df) {
  static constexpr double kTable[] = {
      12.70620473617, 4.302652729749, 3.182446305284, 2.776445105198, 2.570581835636,
      2.446911851145, 2.364624251593, 2.306004135204, 2.262157162798, 2.228138851986,
      2.200985160092, 2.178812829667, 2.160368656463, 2.144786687918, 2.131449545560,
      2.119905299221, 2.109815577833, 2.100922040241, 2.093024054408, 2.085963447266,
      2.079613844728, 2.073873067904, 2.068657610419, 2.063898561628, 2.059538552753,
      2.055529438643, 2.051830516480, 2.048407141795, 2.045229642133, 2.042272456301};
  if (df == 0) return 0;
  if (df <= std::size(kTable)) return kTable[df - 1];
  return cornish_fisher(1.959963984540054, df);
}

Interval student_t_95(const std::vector<double>& samples) {
  Interval r;
  r.n = samples.size();
  if (r.n == 0) return r;
  double sum = 0;
  for (double x : samples) sum += x;
  r.mean = sum / static_cast<double>(r.n);
  if (r.n > 1) {
    double squares = 0;
    for (double x : samples) squares += (x - r.mean) * (x - r.mean);
    const double s = std::sqrt(squares / static_cast<double>(r.n - 1));
    r.half_width = t_quantile_975(r.n - 1) * s / std::sqrt(static_cast<double>(r.n));
  }
  r.low = r.mean - r.half_width;
  r.high = r.mean + r.half_width;
  return r;
}

double least_student_t_95_high(const std::vector<double>& first, std::size_t n) {
  const std::size_t k = first.size();
  if (k >= n) return student_t_95(first).high;
  // The rest all equal to c = a - u (a the mean of the first k, 0 <= u <= a). With the sum
  // of squares split into within and between the two groups, the upper end is
  //   f(u) = a - r u + b sqrt(ss + g u^2),  r = m / n, g = k m / n, b = t / sqrt(n (n - 1)),
  // m = n - k the samples to come and ss the first k's sum of squared deviations from a.
  // f is convex; f'(u) = 0 at u^2 = r^2 ss / (g (b^2 g - r^2)) when b^2 g > r^2, and f falls
  // all the way to u = a (c = 0) otherwise.
  const Interval seen = student_t_95(first);
  const double a = seen.mean;
  double ss = 0;
  for (double x : first) ss += (x - a) * (x - a);
  const double nd = static_cast<double>(n), m = static_cast<double>(n - k);
  const double r = m / nd, g = static_cast<double>(k) * m / nd;
  const double b = t_quantile_975(n - 1) / std::sqrt(nd * (nd - 1));
  double u = a;
  if (b * b * g > r * r) u = std::min(a, r * std::sqrt(ss / (g * (b * b * g - r * r))));
  return a - r * u + b * std::sqrt(ss + g * u * u);
}

}  // namespace drainsim
