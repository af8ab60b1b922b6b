// Open Job Spec graceful shutdown (the seed spec; docs/profiles.md, "Open Job Spec").
#include "profiles/profiles.h"

namespace drainsim::profiles {

Profile ojs() {
  // Grace 30 s: graceful-shutdown spec §6.1 (GS-003). Everything else is the default
  // ShutdownBehaviour and BackendMechanisms: TERM/INT drain, TSTP quiet, a second TERM
  // forces a stop, FAIL with ShutdownError at the deadline; heartbeat dead-worker
  // detection and heartbeat-renewed leases.
  return base("ojs",
              "Open Job Spec: TERM/INT quiet then drain, FAIL the rest with ShutdownError at the "
              "grace deadline; dead workers found by heartbeat",
              30 * kSecond);
}

}  // namespace drainsim::profiles
