// pg-boss 12 with the app calling stop() on TERM (docs/profiles.md).
#include "profiles/profiles.h"

namespace drainsim::profiles {

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
  p.mechanisms.lease.renewed_by_heartbeat = false;
  p.mechanisms.lease.check_interval = kMinute;
  p.mechanisms.lease.fate = LeaseExpiry::Fate::kRetry;
  // plans: completeJobs needs state = 'active', failJobsById any state before 'completed';
  // neither asks which worker holds the job.
  p.mechanisms.ack_fence = CompletionFence::kJobIdWhileActive;
  p.mechanisms.fail_fence = CompletionFence::kJobId;
  return p;
}

}  // namespace drainsim::profiles
