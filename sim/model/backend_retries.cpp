// Backend, continued (backend.cpp has the rest): a failed job's retry or discard, the
// retry schedules (RetryPolicy::Schedule), a crashed job's own schedule (CrashCount), and
// Sidekiq's scheduled-set pollers (BackendMechanisms::poll_per_process).
#include "model/backend.h"

#include <algorithm>
#include <cmath>

namespace drainsim {

void Backend::retry_or_discard(std::uint32_t handle, ErrorKind error, bool retryable) {
  Job& job = jobs_[handle];
  const RetryPolicy& retry = config_.retry_of(job.spec.job_class);
  if (!retryable || job.attempt >= retry.max_attempts) {
    discard(handle, error);
    return;
  }
  available_after(handle, retry_delay(retry, job.attempt));
}

void Backend::available_after(std::uint32_t handle, Duration delay) {
  Job& job = jobs_[handle];
  const Time now = rt_.now();
  if (delay <= 0 && mechanisms_.poll_per_process == 0) {
    // No backoff (pg-boss's retryDelay 0): fetchable at once, by the fetch that may follow
    // this very report at the same instant.
    make_available(handle, false);
    return;
  }
  job.state = JobState::kScheduled;
  job.holder = kNoWorker;
  recorder_.job_scheduled(job.ledger, now);
  if (mechanisms_.poll_per_process > 0) {
    scheduled_.push(Due{now + delay, job.id, handle});  // for a poller to move
    return;
  }
  job.timer = rt_.schedule(now + delay, Priority::kBackend, this, kRetryDue, handle);
}

void Backend::crashed(std::uint32_t handle) {
  const CrashCount& crashes = mechanisms_.crashes;
  Job& job = jobs_[handle];
  --job.attempt;  // a crash uses no attempt
  if (job.crashes >= crashes.max) {
    discard(handle, ErrorKind::kWorkerDeath);
    return;
  }
  ++job.crashes;
  available_after(handle, job.crashes <= crashes.immediate ? 0 : job.crashes * crashes.step);
}

Duration Backend::retry_delay(const RetryPolicy& retry, int attempt) {
  using Schedule = RetryPolicy::Schedule;
  Rng& rng = rt_.rng(Stream::kBackend);
  double seconds = 0;
  switch (retry.schedule) {
    case Schedule::kExponential:
      break;
    case Schedule::kSidekiq:
    case Schedule::kFaktory: {
      const double count = attempt - 1;  // their retry count: 0 at the first failure
      const std::uint64_t range = retry.schedule == Schedule::kSidekiq ? 10 : 30;
      const double jitter = retry.jitter ? static_cast<double>(rng.below(range)) : 0;
      seconds = std::pow(count, 4) + 15 + jitter * (count + 1);
      break;
    }
    case Schedule::kRiver:
      seconds = std::pow(attempt, 4) * (retry.jitter ? rng.uniform(0.9, 1.1) : 1.0);
      break;
    case Schedule::kOban: {
      const double n = retry.max_attempts > 20 ? std::round(attempt * 20.0 / retry.max_attempts)
                                               : static_cast<double>(attempt);
      const double base = std::trunc(15 + std::pow(2, std::min(n, 100.0)));
      seconds = base + (retry.jitter ? std::trunc(rng.uniform() * 0.1 * base) : 0);
      break;
    }
  }
  if (retry.schedule != Schedule::kExponential) {
    return from_seconds(std::min(seconds, 1e9));  // far past any run, and no overflow
  }
  double delay = static_cast<double>(retry.initial_interval) *
                 std::pow(retry.backoff_coefficient, attempt - 1);
  if (retry.jitter) delay *= rt_.rng(Stream::kBackend).uniform(0.5, 1.5);
  return static_cast<Duration>(std::min(delay, static_cast<double>(retry.max_interval)));
}

void Backend::poll_scheduled(WorkerId worker) {
  Worker& w = workers_[worker];
  w.poll = TimerId{};
  if (w.status != WorkerStatus::kAlive || w.reported != Directive::kRunning) return;  // stopped
  const Time now = rt_.now();
  while (!scheduled_.empty() && scheduled_.top().at <= now) {
    const Due due = scheduled_.top();
    scheduled_.pop();
    const Job& job = jobs_[due.handle];
    if (job.live && job.id == due.id && job.state == JobState::kScheduled) {
      make_available(due.handle, false);
    }
  }
  int alive = 0;
  for (const Worker& other : workers_) alive += other.status == WorkerStatus::kAlive;
  if (w.poll_average == 0) w.poll_average = mechanisms_.poll_per_process * alive;
  const double a = static_cast<double>(w.poll_average);
  const double next = alive < 10 ? rt_.rng(Stream::kBackend).uniform(0.5 * a, 1.5 * a)
                                 : rt_.rng(Stream::kBackend).uniform(0, a);
  w.poll = rt_.schedule(now + std::max<Duration>(1, static_cast<Duration>(next)),
                        Priority::kBackend, this, kPoll, worker);
}

}  // namespace drainsim
