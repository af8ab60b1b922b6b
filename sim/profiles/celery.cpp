// Celery with the Redis broker (docs/profiles.md): TERM warm shutdown, a second TERM/INT cold.
#include "profiles/profiles.h"

namespace drainsim::profiles {

namespace {
void apply(const ProfileOptions& options, ShutdownBehaviour& b, BackendMechanisms& m) {
  if (!option_bool(options, "acks_late")) return;
  // The message is acknowledged after the task: a cold shutdown restores it, and a
  // killed worker's message is redelivered after the visibility timeout, no attempt
  // counted (Celery does not count redeliveries).
  b.at_deadline = ShutdownBehaviour::AtDeadline::kRequeue;
  m.fetch = FetchMode::kReliable;
  m.lease.enabled = true;
}
}  // namespace

Profile celery() {
  Profile p = base("celery",
                   "Celery: TERM warm shutdown waits forever, a second signal is cold; early ack "
                   "(default) loses a killed task, acks_late redelivers it after the 1 h "
                   "visibility timeout",
                   kNever);
  ShutdownBehaviour& b = p.worker.shutdown;
  b.logs_remaining = false;  // no remaining-count log (profiles.h)
  b.handles_tstp = false;
  b.second_term = ShutdownBehaviour::SecondTerm::kDeadline;
  b.at_deadline = ShutdownBehaviour::AtDeadline::kLeave;  // cold: tasks terminated
  p.backend.visibility_timeout = kHour;                   // Redis
  p.backend.retry.max_attempts = 1;  // a failed task is not retried unless it asks to be
  p.mechanisms.heartbeat_detection = false;
  p.mechanisms.fetch = FetchMode::kAtMostOnce;  // acked on receipt
  p.mechanisms.lease = LeaseExpiry{false, false, 0, LeaseExpiry::Fate::kRequeue, false, 1};
  // acks_late: the ack names the delivery tag, which a restored message keeps, so the first
  // run to finish acks the message wherever it is now held (kombu QoS.ack).
  p.mechanisms.ack_fence = p.mechanisms.fail_fence = CompletionFence::kJobIdWhileActive;
  p.options = {{"acks_late", false, "acknowledge after the task instead of on receipt"}};
  p.apply = apply;
  return p;
}

}  // namespace drainsim::profiles
