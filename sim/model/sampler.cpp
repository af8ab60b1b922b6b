#include "model/sampler.h"

#include <algorithm>
#include <cmath>

namespace drainsim {

namespace {

// z such that P(N < z) = 0.99 for a standard normal N.
constexpr double kZ99 = 2.3263478740408408;
// Times at or beyond this are reported as kNever (far past any run, far below INT64_MAX).
constexpr double kTimeLimitUs = 9.0e18;

Duration round_duration(double us) {
  if (!(us > 0)) return 0;  // also NaN
  if (us >= static_cast<double>(kMaxSampledDuration)) return kMaxSampledDuration;
  return static_cast<Duration>(us + 0.5);
}

}  // namespace

DurationSampler::DurationSampler(const DurationDistribution& d) : kind_(d.kind) {
  const auto constant = [this](double v) {
    kind_ = Kind::kConstant;
    a_ = v;
  };
  switch (d.kind) {
    case Kind::kConstant:
      a_ = static_cast<double>(d.value);
      break;
    case Kind::kUniform:
      a_ = static_cast<double>(d.min);
      b_ = static_cast<double>(std::max<Duration>(d.max - d.min, 0)) + 1;  // values in range
      break;
    case Kind::kExponential:
      a_ = static_cast<double>(d.mean);
      break;
    case Kind::kLognormal:
      if (d.median <= 0) {
        constant(0);
      } else {
        a_ = std::log(static_cast<double>(d.median));
        const double ratio = static_cast<double>(d.p99) / static_cast<double>(d.median);
        b_ = ratio > 1 ? std::log(ratio) / kZ99 : 0;
      }
      break;
    case Kind::kPareto:
      if (d.shape <= 0) {
        constant(0);
      } else {
        a_ = static_cast<double>(d.scale);
        b_ = -1.0 / d.shape;
      }
      break;
    case Kind::kEmpirical:
      if (!d.values.empty()) {
        values_ = d.values;
        break;
      }
      histogram_ = true;
      {
        double total = 0;
        for (const auto& bucket : d.histogram) {
          total += std::max(bucket.weight, 0.0);
          values_.push_back(bucket.le);
          cumulative_.push_back(total);
        }
        if (!(total > 0)) constant(0);
      }
      break;
    case Kind::kSequence:
      values_ = d.values;
      if (values_.empty()) constant(0);
      break;
  }
}

Duration DurationSampler::sample(Rng& rng) {
  switch (kind_) {
    case Kind::kConstant:
      return round_duration(a_);
    case Kind::kUniform:
      return round_duration(a_ + std::floor(rng.uniform() * b_));
    case Kind::kExponential:
      return round_duration(rng.exponential(a_));
    case Kind::kLognormal:
      return round_duration(std::exp(a_ + b_ * rng.normal()));
    case Kind::kPareto:
      return round_duration(a_ * std::pow(1.0 - rng.uniform(), b_));
    case Kind::kEmpirical: {
      if (!histogram_) {
        return round_duration(static_cast<double>(values_[rng.below(values_.size())]));
      }
      // The first bucket whose running total exceeds u: zero-weight buckets are never hit.
      const double u = rng.uniform() * cumulative_.back();
      const std::size_t i = std::min<std::size_t>(
          std::upper_bound(cumulative_.begin(), cumulative_.end(), u) - cumulative_.begin(),
          cumulative_.size() - 1);
      const Duration low = i == 0 ? 0 : values_[i - 1];
      const Duration width = values_[i] - low;
      if (width <= 0) return round_duration(static_cast<double>(values_[i]));
      return round_duration(static_cast<double>(low + 1) +
                            std::floor(rng.uniform() * static_cast<double>(width)));
    }
    case Kind::kSequence: {
      const Duration v = values_[next_];
      next_ = next_ + 1 == values_.size() ? 0 : next_ + 1;
      return round_duration(static_cast<double>(v));
    }
  }
  return 0;
}

ArrivalSampler::ArrivalSampler(const ArrivalProcess& p)
    : kind_(p.kind), rate_(p.rate_per_s), count_(p.count), at_(p.at), times_(p.times) {
  if (kind_ == Kind::kList) std::sort(times_.begin(), times_.end());
}

Time ArrivalSampler::next(Rng& rng) {
  switch (kind_) {
    case Kind::kPoisson:
      if (!(rate_ > 0)) return kNever;
      if (clock_us_ < kTimeLimitUs) clock_us_ += rng.exponential(1e6 / rate_);
      return clock_us_ < kTimeLimitUs ? static_cast<Time>(clock_us_ + 0.5) : kNever;
    case Kind::kConstant: {
      if (!(rate_ > 0)) return kNever;
      const double t = static_cast<double>(n_) * 1e6 / rate_;
      if (t >= kTimeLimitUs) return kNever;
      ++n_;
      return static_cast<Time>(t + 0.5);
    }
    case Kind::kBurst:
      if (n_ >= count_) return kNever;
      ++n_;
      return at_;
    case Kind::kList:
      if (n_ >= static_cast<std::int64_t>(times_.size())) return kNever;
      return times_[n_++];
  }
  return kNever;
}

}  // namespace drainsim
