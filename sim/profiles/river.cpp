// River (Go, Postgres) with the seed's signal wiring: a first signal → Stop (soft), a
// second → StopAndCancel, a third → exit (docs/profiles.md; client.go, job_rescuer.go).
#include "profiles/profiles.h"

namespace drainsim::profiles {

namespace {
void apply(const ProfileOptions& options, ShutdownBehaviour&, BackendMechanisms& m) {
  m.rescuer.after = option_duration(options, "rescue_stuck_jobs_after");
}
}  // namespace

Profile river() {
  Profile p = base("river",
                   "River: a soft Stop waits for jobs forever; a second signal cancels them "
                   "(retried, attempt counted); a killed worker's jobs stay running until the "
                   "1 h rescuer",
                   kNever);
  ShutdownBehaviour& b = p.worker.shutdown;
  b.logs_remaining = false;  // no remaining-count log (profiles.h)
  b.handles_tstp = false;
  b.second_term = ShutdownBehaviour::SecondTerm::kDeadline;
  b.at_deadline = ShutdownBehaviour::AtDeadline::kCancelAndWait;
  p.backend.retry.max_attempts = 25;
  p.mechanisms.heartbeat_detection = false;
  // Producers woken by the insert notification fetch with FOR UPDATE SKIP LOCKED: one wins.
  p.mechanisms.dispatch = Dispatch::kRandomWaiter;
  p.mechanisms.lease.enabled = false;
  p.mechanisms.rescuer = Rescuer{true, 30 * kSecond, kHour, true};  // JobRescuer
  // The completer sets the final state by id while the row is `running` (JobSetStateIfRunning).
  p.mechanisms.ack_fence = p.mechanisms.fail_fence = CompletionFence::kJobIdWhileActive;
  p.options = {{"rescue_stuck_jobs_after", kHour,
                "RescueStuckJobsAfter: running jobs attempted this long ago are rescued"}};
  p.apply = apply;
  return p;
}

}  // namespace drainsim::profiles
