// Celery 5.2-5.6 with its prefork pool, on Redis or RabbitMQ (docs/profiles.md): TERM warm
// shutdown, a second TERM/INT cold.
#include "profiles/profiles.h"

namespace drainsim::profiles {

namespace {
void apply(const ProfileOptions& options, ShutdownBehaviour& b, BackendMechanisms& m) {
  if (!option_bool(options, "acks_late")) return;
  // The message is acknowledged after the task: a cold shutdown restores it, and a
  // killed worker's message comes back, no attempt counted (Celery does not count
  // redeliveries): on Redis after the visibility timeout, on RabbitMQ when the killed
  // worker's connection closes (RabbitMQ has no visibility timeout).
  b.at_deadline = ShutdownBehaviour::AtDeadline::kRequeue;
  m.fetch = FetchMode::kReliable;
  const bool rabbitmq = option_bool(options, "rabbitmq");
  m.lease.enabled = !rabbitmq;
  m.returns_on_disconnect = rabbitmq;
  // A pool child's death (WorkerLostError): acked and failed, unless
  // task_reject_on_worker_lost rejects the message back to the queue.
  if (option_bool(options, "reject_on_worker_lost")) {
    b.child_lost = ShutdownBehaviour::ChildLost::kRequeue;
  }
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
  // Tasks run in prefork pool children; one killed fails its task (WorkerLostError).
  b.child_lost = ShutdownBehaviour::ChildLost::kFail;
  p.backend.visibility_timeout = kHour;  // Redis
  p.backend.retry.max_attempts = 1;      // a failed task is not retried unless it asks to be
  p.mechanisms.heartbeat_detection = false;
  p.mechanisms.fetch = FetchMode::kAtMostOnce;  // acked on receipt
  p.mechanisms.lease = LeaseExpiry{false, false, 0, LeaseExpiry::Fate::kRequeue, false, 1};
  // acks_late: the ack names the delivery tag, which a restored message keeps, so the first
  // run to finish acks the message wherever it is now held (kombu QoS.ack).
  p.mechanisms.ack_fence = p.mechanisms.fail_fence = CompletionFence::kJobIdWhileActive;
  p.options = {
      {"acks_late", false, "acknowledge after the task instead of on receipt"},
      {"rabbitmq", false,
       "the broker is RabbitMQ: with acks_late a killed worker's tasks come back when its "
       "connection closes (false: Redis, after the visibility timeout)"},
      {"reject_on_worker_lost", false,
       "task_reject_on_worker_lost: with acks_late, a task whose pool child died goes back to "
       "the queue instead of failing"},
  };
  p.apply = apply;
  return p;
}

}  // namespace drainsim::profiles
