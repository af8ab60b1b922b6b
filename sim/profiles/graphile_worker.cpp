// graphile-worker 0.17 (docs/profiles.md): a first signal is graceful (aborts job signals after
// 5 s, waits on), a second is forceful (unlocks the jobs as failed).
#include "profiles/profiles.h"

namespace drainsim::profiles {

Profile graphile_worker() {
  Profile p = base("graphile-worker",
                   "graphile-worker: graceful stop waits, aborting jobs after 5 s; a 2nd signal "
                   "fails them (retry after e^attempts s); a killed worker's jobs stay locked 4 h",
                   kNever);
  ShutdownBehaviour& b = p.worker.shutdown;
  b.logs_remaining = false;  // no remaining-count log (profiles.h)
  b.handles_tstp = false;
  b.second_term = ShutdownBehaviour::SecondTerm::kDeadline;
  b.cancel_after = 5 * kSecond;
  p.backend.visibility_timeout = 4 * kHour;  // lock expiry
  // exp(min(attempts, 10)) seconds: e^1 first, x e each time, e^10 at most.
  p.backend.retry =
      RetryPolicy{25, from_seconds(2.718282), 2.718282, from_seconds(22026.466), false};
  p.mechanisms.heartbeat_detection = false;
  // LISTEN jobs:insert nudges an idle worker in every process; get_job uses SKIP LOCKED.
  p.mechanisms.dispatch = Dispatch::kRandomWaiter;
  p.mechanisms.lease.renewed_by_heartbeat = false;
  // completeJob deletes by id alone; failJob needs locked_by = the worker's id.
  p.mechanisms.ack_fence = CompletionFence::kJobId;
  return p;
}

}  // namespace drainsim::profiles
