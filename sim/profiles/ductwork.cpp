// Ductwork's job worker (seed: its signal-handling page): INT/TERM forwarded by the
// supervisor; threads get job_worker.shutdown_timeout (20 s), then are killed. From 1.0.0
// the executions of killed threads and of dead processes are crashed and run again
// (docs/profiles.md, Ductwork; read at ductwork/ductwork v1.0.0).
#include <algorithm>

#include <fmt/format.h>

#include "profiles/profiles.h"
#include "profiles/system_settings.h"

namespace drainsim::profiles {

namespace {

// 1.0's process reaper (`reaper`, the default): the job worker runner heartbeats every 5 s
// (job_worker_runner.rb run); a supervisor reaps a process whose heartbeat is older than
// supervisor.reaper_timeout (300 s) and crashes its unfinished executions
// (process.rb reap_all!, recover_crashed_claims!); the runner reaps its own record once
// it has killed its threads (shutdown! → reap_process_record!, force: true). A crash does
// not use a retry (execution.rb crashed!, crash_backoff_at).
void apply(const ProfileOptions& options, ShutdownBehaviour& b, BackendMechanisms& m) {
  if (!option_bool(options, "reaper")) return;
  b.leave_deregisters = true;
  m.heartbeat_detection = true;
  m.crashes.enabled = true;
}

using namespace snippet;

// Its settings for tune's snippet (profiles/system_settings.h; docs/tune.md, "The snippet").
System settings(const Input& in) {
  System w;
  w.name = "Ductwork";
  const std::int64_t job = seconds_up(bounded(in));
  // Above the job worker's (the seed's "Signal Handling": the supervisor's must be longer),
  // by 10 s as Ductwork's defaults are (20 and 30), but below the platform's SIGKILL.
  const Duration after_term = in.platform - pre_stop_time(in.pre_stop);
  const std::int64_t supervisor =
      std::max(job + 1, std::min(job + 10, (after_term - kMicrosecond) / kSecond));
  w.settings = fmt::format(
      "# --- config/ductwork.yml (your environment's section): the job worker's threads get\n"
      "# job_worker.shutdown_timeout seconds (default 20), then are killed; the\n"
      "# supervisor's shutdown_timeout must be longer (Ductwork's \"Signal Handling\")\n"
      "{}"
      "production:\n"
      "  job_worker:\n"
      "    shutdown_timeout: {}\n"
      "  supervisor:\n"
      "    shutdown_timeout: {}\n",
      grace_note(in, "#", "Ductwork", kSecond, "whole seconds"), job, supervisor);
  w.command = {"bin/ductwork"};
  return w;
}
}  // namespace

Profile ductwork() {
  Profile p = base("ductwork",
                   "Ductwork 1.0: job worker threads get 20 s after INT/TERM, then are killed "
                   "and their jobs run again at once; a dead process's jobs after 300 s",
                   20 * kSecond);
  ShutdownBehaviour& b = p.worker.shutdown;
  b.logs_remaining = false;  // no remaining-count log (profiles.h)
  b.handles_tstp = false;
  b.second_term = ShutdownBehaviour::SecondTerm::kIgnore;
  b.at_deadline = ShutdownBehaviour::AtDeadline::kLeave;
  p.mechanisms.heartbeat_detection = false;  // before 1.0 (`reaper` false): no recovery at all
  p.mechanisms.lease.enabled = false;
  p.backend.heartbeat_timeout = 300 * kSecond;  // supervisor.reaper_timeout
  // An error retries after FAILED_EXECUTION_TIMEOUT (10 s), job_worker.max_retry (3) times,
  // in 0.x and 1.x alike (execution.rb errored!).
  p.backend.retry.max_attempts = 4;
  p.backend.retry.initial_interval = 10 * kSecond;
  p.backend.retry.backoff_coefficient = 1;
  p.backend.retry.jitter = false;
  p.options = {{"reaper", true,
                "Ductwork 1.0+: a supervisor reaps processes silent for 300 s and the runner "
                "its own after killing its threads, and their jobs run again (each crash apart "
                "from the retries: at once for the first 3, then 10 s x the crash count, failed "
                "after 10); false: 0.x, which never runs a dead worker's job again"}};
  p.apply = apply;
  p.settings = settings;
  return p;
}

}  // namespace drainsim::profiles
