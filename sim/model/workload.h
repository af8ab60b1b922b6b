// Workload: creates the scenario's jobs at their arrival times (until the scenario's
// duration) and enqueues them, each with its sampled duration and cancel behaviour.
#pragma once

#include "engine/runtime.h"
#include "model/backend.h"
#include "model/sampler.h"
#include "model/scenario.h"

namespace drainsim {

class Workload final : public TimerTarget {
 public:
  // Arrivals fall in [0, until).
  Workload(Runtime& runtime, const WorkloadConfig& config, Time until, Backend& backend);

  void start();
  // No arrival is left to come.
  bool done() const { return done_; }

  void on_timer(std::uint32_t tag, std::uint64_t arg) override;

 private:
  void arm();

  Runtime& rt_;
  const WorkloadConfig& config_;
  Time until_;
  Backend& backend_;
  int queue_;
  ArrivalSampler arrivals_;
  DurationSampler durations_;
  Time next_ = kNever;
  bool done_ = false;
};

}  // namespace drainsim
