#include "model/workload.h"

namespace drainsim {

JobSink enqueue_into(Backend& backend, const std::string& queue) {
  return [&backend, q = backend.queue(queue)](const JobSpec& spec) { backend.enqueue(q, spec); };
}

Workload::Workload(Runtime& runtime, const WorkloadConfig& config, Time until, JobSink sink)
    : rt_(runtime),
      arrival_rng_(runtime.rng(Stream::kArrivals)),
      behaviour_rng_(runtime.rng(Stream::kJobBehaviour)),
      duration_rng_(runtime.rng(Stream::kDurations)),
      config_(config),
      until_(until),
      sink_(std::move(sink)),
      arrivals_(config.arrival),
      durations_(config.job_duration) {
  for (const JobClass& c : config.classes) {
    class_durations_.emplace_back(c.job_duration);
    total_weight_ += c.weight;
  }
}

void Workload::start() {
  next_ = arrivals_.next(arrival_rng_);
  arm();
}

void Workload::arm() {
  if (next_ >= until_) {  // kNever included
    done_ = true;
    return;
  }
  rt_.schedule(next_, Priority::kScripted, this, 0);
}

void Workload::on_timer(std::uint32_t /*tag*/, std::uint64_t /*arg*/) {
  // Every arrival due by now (on a real-time engine timers fire a little late), then
  // the next one.
  const Time now = rt_.now();
  Rng& behaviour = behaviour_rng_;
  Rng& durations = duration_rng_;
  while (next_ <= now && next_ < until_) {
    JobSpec spec;
    if (config_.classes.size() > 1) {  // its class, by weight
      double pick = behaviour.uniform() * total_weight_;
      while (spec.job_class + 1u < config_.classes.size() &&
             pick >= config_.classes[spec.job_class].weight) {
        pick -= config_.classes[spec.job_class].weight;
        ++spec.job_class;
      }
    }
    spec.work = config_.classes.empty() ? durations_.sample(durations)
                                        : class_durations_[spec.job_class].sample(durations);
    spec.cooperative = config_.cancel.cooperative_fraction >= 1.0 ||
                       behaviour.bernoulli(config_.cancel.cooperative_fraction);
    spec.cancel_latency = config_.cancel.latency;
    sink_(spec);
    next_ = arrivals_.next(arrival_rng_);
  }
  arm();
}

}  // namespace drainsim
