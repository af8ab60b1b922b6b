// pg-boss 12 with the app calling stop() on TERM (docs/profiles.md).
#include "profiles/profiles.h"

namespace drainsim::profiles {

namespace {
void apply(const ProfileOptions& options, ShutdownBehaviour& b, BackendMechanisms&) {
  // pg-boss 9: stop() never fails the active jobs; they stay active until they expire.
  if (!option_bool(options, "fails_active_at_stop")) {
    b.at_deadline = ShutdownBehaviour::AtDeadline::kLeave;
  }
}
}  // namespace

Profile pg_boss() {
  Profile p = base("pg-boss",
                   "pg-boss: stop() waits 30 s then fails active jobs, retried at once up to "
                   "retryLimit 2; a dead worker's jobs expire after 15 min (checked every minute)",
                   30 * kSecond);
  ShutdownBehaviour& b = p.worker.shutdown;
  b.logs_remaining = false;  // no remaining-count log (profiles.h)
  b.handles_tstp = false;
  b.second_term = ShutdownBehaviour::SecondTerm::kIgnore;
  p.backend.visibility_timeout = 15 * kMinute;  // expireInSeconds
  p.backend.retry = RetryPolicy{3, 0, 1.0, 0, false};
  p.mechanisms.heartbeat_detection = false;
  // No notification: each work() loop polls every newJobCheckInterval, 2 s (src/worker.js,
  // src/attorney.js).
  p.mechanisms.dispatch = Dispatch::kPoll;
  p.worker.poll_interval = 2 * kSecond;
  p.mechanisms.lease.renewed_by_heartbeat = false;
  p.mechanisms.lease.check_interval = kMinute;
  p.mechanisms.lease.fate = LeaseExpiry::Fate::kRetry;
  // plans: completeJobs needs state = 'active', failJobsById any state before 'completed';
  // neither asks which worker holds the job.
  p.mechanisms.ack_fence = CompletionFence::kJobIdWhileActive;
  p.mechanisms.fail_fence = CompletionFence::kJobId;
  p.options = {{"fails_active_at_stop", true,
                "pg-boss 10+: stop() fails the jobs still active at its timeout; false: pg-boss 9, "
                "which leaves them active until they expire (set backend.retry.max_attempts 1 "
                "for 9's retryLimit 0)"}};
  p.apply = apply;
  return p;
}

}  // namespace drainsim::profiles
