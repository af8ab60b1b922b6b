// Open Job Spec graceful shutdown (the seed spec; docs/profiles.md, "Open Job Spec").
#include "profiles/profiles.h"
#include "profiles/system_settings.h"

namespace drainsim::profiles {

namespace {

using namespace snippet;

// Its settings for tune's snippet (profiles/system_settings.h; docs/tune.md, "The snippet").
System settings(const Input& in) {
  System w;
  w.name = "the OJS worker";
  w.settings =
      "# --- Open Job Spec: the worker's shutdown_grace_period (graceful-shutdown spec\n"
      "# §6.1), passed as OJS_SHUTDOWN_GRACE_PERIOD as in the spec's §8.1 pod spec (the\n"
      "# OJS website's page names it OJS_GRACE_PERIOD: use the name your worker reads)\n" +
      grace_note(in, "#", "the spec", 1, "");
  w.command = {"/app/ojs-worker"};
  w.command_note = "your worker in exec form, not through a shell (spec §4.3, the PID 1 problem)";
  w.env = {{"OJS_SHUTDOWN_GRACE_PERIOD", format_duration(bounded(in))}};
  w.quiet = "TSTP";
  return w;
}
}  // namespace

Profile ojs() {
  // Grace 30 s: graceful-shutdown spec §6.1 (GS-003). Everything else is the default
  // ShutdownBehaviour and BackendMechanisms: TERM/INT drain, TSTP quiet, a second TERM
  // forces a stop, FAIL with ShutdownError at the deadline; heartbeat dead-worker
  // detection and heartbeat-renewed leases.
  Profile p = base("ojs",
                   "Open Job Spec: TERM/INT quiet then drain, FAIL the rest with ShutdownError at "
                   "the grace deadline; dead workers found by heartbeat",
                   30 * kSecond);
  p.settings = settings;
  return p;
}

}  // namespace drainsim::profiles
