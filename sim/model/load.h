// The load a scenario offers its fleet, and what a run's queue did with it: the figures
// behind the "overload" and "queue_growth" warnings (docs/semantics.md, "Warnings").
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "base/duration.h"
#include "model/scenario.h"
#include "model/warning.h"

namespace drainsim {

// The mean of a duration distribution, in seconds: +inf for a pareto whose shape is at
// most 1, which has none.
double mean_seconds(const DurationDistribution& d);

// Arrivals per second times the mean job duration (over the job classes by weight): the
// busy worker slots the arrivals keep occupied on average, first attempts only (retries add
// to it), against the fleet's slots (platform.replicas × worker.concurrency).
struct OfferedLoad {
  double rate_per_s = 0;
  double mean_job_s = 0;
  double busy_slots = 0;
  std::int64_t slots = 0;
  bool over() const { return busy_slots > static_cast<double>(slots); }
};

// nullopt unless the arrivals have a rate (poisson, constant): a burst or a list of times
// is a backlog by design, which the queue watch judges instead.
std::optional<OfferedLoad> offered_load(const Scenario& s);

// The "overload" warning when the offered load exceeds the slots; `max_queue`, when a run
// measured it, goes in the message and the figures.
std::optional<Warning> overload_warning(const Scenario& s,
                                        std::optional<std::int64_t> max_queue = std::nullopt);

// The queue's depth (jobs available to fetch) through a run: its maximum, and its least
// depth over the third and the fourth quarter of the arrival window [0, arrivals_end).
// The queue kept growing when the least depth over the last quarter exceeds both the
// fleet's slots and the least depth over the quarter before.
class QueueWatch {
 public:
  explicit QueueWatch(Time arrivals_end = 0);
  // The depth from `now` on; `now` never decreases.
  void note(Time now, std::int64_t depth) {
    if (depth > max_) max_ = depth;
    if (now >= next_start_) enter(now);
    if (quarter_ >= 0 && now < end_ && depth < least_[quarter_]) least_[quarter_] = depth;
    depth_ = depth;
  }
  std::int64_t max() const { return max_; }
  // REQUIRES: the run got to `arrivals_end`; false otherwise.
  bool kept_growing(std::int64_t slots, Time run_end) const;
  // The least depths over the two quarters, as far as the run got.
  std::array<std::int64_t, 2> least() const;

 private:
  void enter(Time now);

  Time end_ = 0;
  std::array<Time, 2> start_{};  // of the third and the fourth quarter
  Time next_start_;              // start_ of the next quarter not yet entered, or kNever
  int entered_ = 0;              // quarters begun
  int quarter_ = -1;             // 0, 1: the quarter of the last change; -1 outside them
  std::array<std::int64_t, 2> least_{};
  std::int64_t depth_ = 0, max_ = 0;
};

// The "queue_growth" warning when the queue kept growing.
std::optional<Warning> queue_growth_warning(const Scenario& s, const QueueWatch& queue,
                                            Time run_end);

}  // namespace drainsim
