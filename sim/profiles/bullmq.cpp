// BullMQ (Node, Redis) with the docs' wiring of TERM/INT to worker.close() (docs/profiles.md;
// moveStalledJobsToWait, worker.ts).
#include "profiles/profiles.h"

namespace drainsim::profiles {

namespace {
void apply(const ProfileOptions& options, ShutdownBehaviour&, BackendMechanisms& m) {
  m.lease.check_interval = option_duration(options, "stalled_interval");
  m.lease.max_stalls = option_count(options, "max_stalled_count");
}
}  // namespace

Profile bullmq() {
  Profile p = base("bullmq",
                   "BullMQ: close() waits for active jobs forever; a dead worker's lock (30 s, "
                   "renewed every 15 s) lapses and the stalled checker requeues the job; the 2nd "
                   "stall fails it for good",
                   kNever);
  p.worker.heartbeat_interval = 15 * kSecond;  // lock renewal: lockDuration / 2
  ShutdownBehaviour& b = p.worker.shutdown;
  b.logs_remaining = false;  // no remaining-count log (profiles.h)
  b.handles_tstp = false;
  b.second_term = ShutdownBehaviour::SecondTerm::kIgnore;
  p.backend.visibility_timeout = 30 * kSecond;  // lockDuration
  p.backend.retry.max_attempts = 1;             // attempts: 1
  p.mechanisms.heartbeat_detection = false;
  p.mechanisms.lease.fate = LeaseExpiry::Fate::kStall;
  p.mechanisms.lease.check_interval = 30 * kSecond;
  p.mechanisms.lease.max_stalls = 1;
  p.options = {{"stalled_interval", 30 * kSecond, "how often the stalled checker runs"},
               {"max_stalled_count", 1, "stalls a job may have; the next one fails it for good"}};
  p.apply = apply;
  return p;
}

}  // namespace drainsim::profiles
