// A worker with no signal handlers, against an OJS backend: TERM's default action kills
// it at once.
#include "profiles/profiles.h"

namespace drainsim::profiles {

Profile naive() {
  Profile p = base("naive",
                   "No handler: as its container's PID 1 it ignores TERM until SIGKILL; under an "
                   "init TERM kills it at once; its jobs are left to dead-worker detection",
                   30 * kSecond);
  p.worker.shutdown.handles_term = false;
  p.worker.shutdown.handles_tstp = false;
  p.worker.shutdown.logs_remaining = false;  // no remaining-count log (profiles.h)
  return p;
}

}  // namespace drainsim::profiles
