// The OJS JS SDK 0.4 with the spec's §12.2 wiring: process.on('SIGTERM') → worker.stop()
// (docs/profiles.md, "What the public OJS SDKs actually do"), against an OJS reference backend.
#include <fmt/format.h>

#include "profiles/profiles.h"
#include "profiles/system_settings.h"

namespace drainsim::profiles {

namespace {

using namespace snippet;

// Its settings for tune's snippet (profiles/system_settings.h; docs/tune.md, "The snippet").
System settings(const Input& in) {
  System w;
  w.name = "the OJS JS SDK";
  w.settings = fmt::format(
      "# --- worker.js: the OJS JS SDK (0.4) reads no environment variable; its grace is\n"
      "# shutdownTimeout, in ms (worker.ts, default 25_000). With handleSignals (the\n"
      "# default) it calls stop() on SIGTERM and SIGINT itself\n"
      "{}"
      "const worker = new OJSWorker({{ url, shutdownTimeout: {} }});\n",
      grace_note(in, "//", "the SDK", kMillisecond, "milliseconds"),
      grouped(millis_up(bounded(in))));
  w.command = {"node", "worker.js"};
  return w;
}
}  // namespace

Profile ojs_js_sdk() {
  Profile p = base("ojs-js-sdk",
                   "OJS JS SDK 0.4: TERM/INT stop(), grace 25 s, heartbeats stop at drain, "
                   "jobs aborted at the deadline: those that stop are NACKed as handler_error, "
                   "the others run on to their ACK; a second TERM kills",
                   25 * kSecond);
  ShutdownBehaviour& b = p.worker.shutdown;
  b.logs_remaining = false;  // no remaining-count log (profiles.h)
  b.handles_tstp = false;
  // stop() removes the SDK's TERM and INT listeners (worker.ts stop()): Node's default
  // action then kills the process.
  b.second_term = ShutdownBehaviour::SecondTerm::kDefaultAction;
  // At shutdownTimeout stop() aborts each job's AbortSignal and returns; a handler that
  // rejects is NACKed (retryable handler_error), one that ignores the signal runs on and is
  // ACKed, and Node exits when nothing is left pending.
  b.at_deadline = ShutdownBehaviour::AtDeadline::kCancelAndWait;
  b.deadline_error = ErrorKind::kHandler;
  b.heartbeats_while_draining = false;
  b.deregisters = false;
  p.mechanisms = ojs_reference_backend();
  p.settings = settings;
  return p;
}

}  // namespace drainsim::profiles
