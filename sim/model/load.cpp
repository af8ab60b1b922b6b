#include "model/load.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace drainsim {

namespace {

constexpr double kZ99 = 2.3263478740408408;  // the standard normal's 99th percentile

double us_to_s(double us) { return us / static_cast<double>(kSecond); }

std::int64_t fleet_slots(const Scenario& s) {
  return static_cast<std::int64_t>(s.platform.replicas) * s.worker.concurrency;
}

}  // namespace

double mean_seconds(const DurationDistribution& d) {
  using Kind = DurationDistribution::Kind;
  switch (d.kind) {
    case Kind::kConstant:
      return to_seconds(d.value);
    case Kind::kUniform:
      return us_to_s((static_cast<double>(d.min) + static_cast<double>(std::max(d.max, d.min))) /
                     2);
    case Kind::kExponential:
      return to_seconds(d.mean);
    case Kind::kLognormal: {
      // As the sampler draws it: exp(N(ln median, sigma)), sigma from the p99.
      if (d.median <= 0) return 0;
      const double ratio = static_cast<double>(d.p99) / static_cast<double>(d.median);
      const double sigma = ratio > 1 ? std::log(ratio) / kZ99 : 0;
      return to_seconds(d.median) * std::exp(sigma * sigma / 2);
    }
    case Kind::kPareto:
      if (d.shape <= 0) return 0;
      if (d.shape <= 1) return std::numeric_limits<double>::infinity();
      return to_seconds(d.scale) * d.shape / (d.shape - 1);
    case Kind::kEmpirical:
    case Kind::kSequence: {
      if (!d.values.empty()) {
        double sum = 0;
        for (Duration v : d.values) sum += static_cast<double>(v);
        return us_to_s(sum / static_cast<double>(d.values.size()));
      }
      // A histogram bucket is drawn uniformly over (previous le, le].
      double total = 0, sum = 0;
      Duration low = 0;
      for (const auto& b : d.histogram) {
        const double w = std::max(b.weight, 0.0);
        total += w;
        sum += w * (static_cast<double>(low) + static_cast<double>(b.le)) / 2;
        low = b.le;
      }
      return total > 0 ? us_to_s(sum / total) : 0;
    }
  }
  return 0;
}

std::optional<OfferedLoad> offered_load(const Scenario& s) {
  const ArrivalProcess& a = s.workload.arrival;
  if (a.kind != ArrivalProcess::Kind::kPoisson && a.kind != ArrivalProcess::Kind::kConstant) {
    return std::nullopt;
  }
  OfferedLoad load;
  load.rate_per_s = a.rate_per_s;
  const auto& classes = s.workload.classes;
  if (classes.empty()) {
    load.mean_job_s = mean_seconds(s.workload.job_duration);
  } else {
    double weights = 0, sum = 0;
    for (const JobClass& c : classes) {
      weights += c.weight;
      sum += c.weight * mean_seconds(c.job_duration);
    }
    load.mean_job_s = weights > 0 ? sum / weights : 0;
  }
  load.busy_slots = load.rate_per_s * load.mean_job_s;
  load.slots = fleet_slots(s);
  return load;
}

std::optional<Warning> overload_warning(const Scenario& s, std::optional<std::int64_t> max_queue) {
  const std::optional<OfferedLoad> load = offered_load(s);
  if (!load || !load->over()) return std::nullopt;
  Warning w;
  w.code = "overload";
  const double percent = load->slots > 0 ? 100 * load->busy_slots / static_cast<double>(load->slots)
                                         : std::numeric_limits<double>::infinity();
  // JSON has no infinity: an unbounded figure (no slots, or a mean job that is infinite,
  // e.g. pareto shape <= 1) is said in words and left out of the figures.
  const auto count = [](double v, const char* unit) {
    return std::isfinite(v) ? fmt::format("{:.0f}{}", v, unit) : std::string("unbounded");
  };
  w.message = fmt::format(
      "offered load ≈ {} busy slots > {} slots ({}): {:g} jobs/s × {} mean job, "
      "so the queue grows without bound and every figure reflects the backlog",
      count(load->busy_slots, ""), load->slots, count(percent, " %"), load->rate_per_s,
      std::isfinite(load->mean_job_s) ? format_seconds(load->mean_job_s) : "an infinite");
  for (const auto& [name, value] :
       {std::pair<const char*, double>{"offered_busy_slots", load->busy_slots},
        {"slots", static_cast<double>(load->slots)},
        {"load_percent", percent},
        {"arrival_rate_per_s", load->rate_per_s},
        {"mean_job_duration_s", load->mean_job_s}}) {
    if (std::isfinite(value)) w.figures.emplace_back(name, value);
  }
  if (max_queue) {
    w.message += fmt::format(" (max queue {})", *max_queue);
    w.figures.emplace_back("max_queue", static_cast<double>(*max_queue));
  }
  return w;
}

QueueWatch::QueueWatch(Time arrivals_end)
    : end_(std::max<Time>(arrivals_end, 0)),
      start_{end_ / 2, end_ / 4 * 3},
      next_start_(end_ > 0 ? start_[0] : kNever) {}

void QueueWatch::enter(Time now) {
  while (entered_ < 2 && now >= start_[entered_]) {
    least_[entered_] = depth_;  // the depth held as the quarter began
    ++entered_;
  }
  quarter_ = now < end_ ? entered_ - 1 : -1;
  next_start_ = entered_ < 2 ? start_[entered_] : now < end_ ? end_ : kNever;
}

std::array<std::int64_t, 2> QueueWatch::least() const {
  std::array<std::int64_t, 2> l = least_;
  for (int k = entered_; k < 2; ++k) l[k] = depth_;  // not reached by a change: held
  return l;
}

bool QueueWatch::kept_growing(std::int64_t slots, Time run_end) const {
  if (end_ <= 0 || run_end < end_) return false;
  const std::array<std::int64_t, 2> l = least();
  return l[1] > slots && l[1] > l[0];
}

std::optional<Warning> queue_growth_warning(const Scenario& s, const QueueWatch& queue,
                                            Time run_end) {
  const std::int64_t slots = fleet_slots(s);
  if (!queue.kept_growing(slots, run_end)) return std::nullopt;
  const std::array<std::int64_t, 2> l = queue.least();
  Warning w;
  w.code = "queue_growth";
  w.message = fmt::format(
      "the queue kept growing while jobs arrived: never below {} jobs in the last quarter of "
      "the arrivals (above the fleet's {} slots), up from {} in the quarter before; max queue "
      "{}: the fleet cannot keep up, and every figure reflects the backlog",
      l[1], slots, l[0], queue.max());
  w.figures = {{"least_queue_last_quarter", static_cast<double>(l[1])},
               {"slots", static_cast<double>(slots)},
               {"least_queue_quarter_before", static_cast<double>(l[0])},
               {"max_queue", static_cast<double>(queue.max())}};
  return w;
}

}  // namespace drainsim
