// The OJS JS SDK 0.4 with the spec's §12.2 wiring: process.on('SIGTERM') → worker.stop()
// (docs/profiles.md, "What the public OJS SDKs actually do"), against an OJS reference backend.
#include "profiles/profiles.h"

namespace drainsim::profiles {

Profile ojs_js_sdk() {
  Profile p = base("ojs-js-sdk",
                   "OJS JS SDK 0.4: TERM/INT stop(), grace 25 s, heartbeats stop at drain, jobs "
                   "aborted and NACKed as handler_error at the deadline",
                   25 * kSecond);
  ShutdownBehaviour& b = p.worker.shutdown;
  b.logs_remaining = false;  // no remaining-count log (profiles.h)
  b.handles_tstp = false;
  b.second_term = ShutdownBehaviour::SecondTerm::kIgnore;  // stop() again: already stopping
  b.deadline_error = ErrorKind::kHandler;
  b.heartbeats_while_draining = false;
  b.deregisters = false;
  p.mechanisms = ojs_reference_backend();
  return p;
}

}  // namespace drainsim::profiles
