// Ductwork's job worker (seed: its signal-handling page): INT/TERM forwarded by the
// supervisor; threads get job_worker.shutdown_timeout (20 s), then are killed.
#include <algorithm>

#include <fmt/format.h>

#include "profiles/profiles.h"
#include "profiles/system_settings.h"

namespace drainsim::profiles {

namespace {

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
  p.settings = settings;
  return p;
}

}  // namespace drainsim::profiles
