// A worker with no signal handlers, against an OJS backend: TERM's default action kills
// it at once.
#include "profiles/profiles.h"
#include "profiles/system_settings.h"

namespace drainsim::profiles {

namespace {

using namespace snippet;

// Its settings for tune's snippet (profiles/system_settings.h; docs/tune.md, "The snippet").
System settings(const Input&) {
  System w;
  w.name = "this worker";
  w.settings =
      "# --- naive: this worker handles no signal, so it has no grace to set: as PID 1 it\n"
      "# ignores TERM and runs until the platform's SIGKILL; under an init, TERM kills it\n"
      "# at once. The platform's grace below is its only setting\n";
  w.command_note = kCommandNote;
  return w;
}
}  // namespace

Profile naive() {
  Profile p = base("naive",
                   "No handler: as its container's PID 1 it ignores TERM until SIGKILL; under an "
                   "init TERM kills it at once; its jobs are left to dead-worker detection",
                   30 * kSecond);
  p.worker.shutdown.handles_term = false;
  p.worker.shutdown.handles_tstp = false;
  p.worker.shutdown.logs_remaining = false;  // no remaining-count log (profiles.h)
  p.settings = settings;
  return p;
}

}  // namespace drainsim::profiles
