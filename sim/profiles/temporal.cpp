// Temporal Go SDK activity workers, with InterruptCh passed (docs/profiles.md).
#include "profiles/profiles.h"

#include <climits>

namespace drainsim::profiles {

namespace {
void apply(const ProfileOptions& options, ShutdownBehaviour&, BackendMechanisms& m) {
  // A heartbeating activity is found by its heartbeat timeout; otherwise only its
  // start-to-close timeout (the visibility timeout here) recovers it.
  m.heartbeat_detection = option_bool(options, "activity_heartbeats");
}
}  // namespace

Profile temporal() {
  Profile p = base("temporal",
                   "Temporal (Go SDK): WorkerStopTimeout 0 cancels activities at TERM, the failed "
                   "attempt retries (1 s x2, cap 100 s, unlimited); orphans by heartbeat or "
                   "start-to-close timeout",
                   0);
  ShutdownBehaviour& b = p.worker.shutdown;
  b.logs_remaining = false;  // no remaining-count log (profiles.h)
  b.handles_tstp = false;
  b.second_term = ShutdownBehaviour::SecondTerm::kIgnore;
  // At WorkerStopTimeout the activities' contexts are cancelled: one that returns is
  // failed (and retried); one that ignores its context runs on until the process is killed
  // and waits for its start-to-close (or heartbeat) timeout.
  b.at_deadline = ShutdownBehaviour::AtDeadline::kCancelAndWait;
  p.backend.visibility_timeout = 10 * kMinute;  // start-to-close
  p.backend.retry = RetryPolicy{INT_MAX, kSecond, 2.0, 100 * kSecond, false};
  p.mechanisms.heartbeat_detection = false;
  p.mechanisms.lease.renewed_by_heartbeat = false;
  p.mechanisms.lease.fate = LeaseExpiry::Fate::kRetry;
  p.options = {{"activity_heartbeats", false,
                "activities heartbeat, so a dead worker is found after backend.heartbeat_timeout"}};
  p.apply = apply;
  return p;
}

}  // namespace drainsim::profiles
