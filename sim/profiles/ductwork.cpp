// Ductwork's job worker (seed: its signal-handling page): INT/TERM forwarded by the
// supervisor; threads get job_worker.shutdown_timeout (20 s), then are killed.
#include "profiles/profiles.h"

namespace drainsim::profiles {

Profile ductwork() {
  Profile p = base("ductwork",
                   "Ductwork: job worker threads get 20 s after INT/TERM, then are killed; no "
                   "recovery of the jobs they held",
                   20 * kSecond);
  ShutdownBehaviour& b = p.worker.shutdown;
  b.logs_remaining = false;  // no remaining-count log (profiles.h)
  b.handles_tstp = false;
  b.second_term = ShutdownBehaviour::SecondTerm::kIgnore;
  b.at_deadline = ShutdownBehaviour::AtDeadline::kLeave;
  p.mechanisms.heartbeat_detection = false;
  p.mechanisms.lease.enabled = false;
  return p;
}

}  // namespace drainsim::profiles
