// Sidekiq OSS with BasicFetch (docs/profiles.md; Sidekiq wiki "Deployment", manager.rb,
// fetch.rb).
#include "profiles/profiles.h"

namespace drainsim::profiles {

Profile sidekiq() {
  Profile p = base("sidekiq",
                   "Sidekiq OSS (BasicFetch): TERM waits -t 25 s then requeues unfinished jobs to "
                   "the front, no retry counted; a SIGKILLed process loses its jobs",
                   25 * kSecond);
  p.worker.concurrency = 5;
  p.worker.heartbeat_interval = 10 * kSecond;
  ShutdownBehaviour& b = p.worker.shutdown;
  b.logs_remaining = false;  // no remaining-count log (profiles.h)
  b.second_term = ShutdownBehaviour::SecondTerm::kIgnore;
  b.at_deadline = ShutdownBehaviour::AtDeadline::kRequeue;
  p.backend.retry.max_attempts = 26;  // the first run and 25 retries
  // A fetched job lives only in the process: no lease, no dead-worker detection.
  p.mechanisms.heartbeat_detection = false;
  p.mechanisms.lease.enabled = false;
  p.mechanisms.fetch = FetchMode::kAtMostOnce;
  return p;
}

}  // namespace drainsim::profiles
