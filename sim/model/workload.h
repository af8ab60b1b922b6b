// Workload: creates the scenario's jobs at their arrival times (until the scenario's
// duration) and hands them to a JobSink, each with its sampled duration and cancel
// behaviour: the in-process backend's queue, or a real system's enqueuer.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine/runtime.h"
#include "model/backend.h"
#include "model/sampler.h"
#include "model/scenario.h"

namespace drainsim {

// Takes one arriving job.
using JobSink = std::function<void(const JobSpec&)>;

// Enqueues onto `queue` of `backend`.
JobSink enqueue_into(Backend& backend, const std::string& queue);

class Workload final : public TimerTarget {
 public:
  // Arrivals fall in [0, until).
  Workload(Runtime& runtime, const WorkloadConfig& config, Time until, JobSink sink);

  void start();
  // No arrival is left to come.
  bool done() const { return done_; }

  void on_timer(std::uint32_t tag, std::uint64_t arg) override;

 private:
  void arm();

  Runtime& rt_;
  // The streams, looked up once (Runtime::rng: the references stay valid).
  Rng& arrival_rng_;
  Rng& behaviour_rng_;
  Rng& duration_rng_;
  const WorkloadConfig& config_;
  Time until_;
  JobSink sink_;
  ArrivalSampler arrivals_;
  DurationSampler durations_;
  std::vector<DurationSampler> class_durations_;  // per workload.classes entry
  double total_weight_ = 0;
  Time next_ = kNever;
  bool done_ = false;
};

}  // namespace drainsim
