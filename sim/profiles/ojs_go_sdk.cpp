// The OJS Go SDK as wired in the spec's §12.1 example: signal.NotifyContext(TERM, INT)
// cancels the context worker.Start runs under (docs/profiles.md, "What the public OJS SDKs
// actually do"), against an OJS reference backend.
#include <fmt/format.h>

#include "profiles/profiles.h"
#include "profiles/system_settings.h"

namespace drainsim::profiles {

namespace {

using namespace snippet;

// Its settings for tune's snippet (profiles/system_settings.h; docs/tune.md, "The snippet").
System settings(const Input& in) {
  System w;
  w.name = "the OJS Go SDK";
  w.settings = fmt::format(
      "# --- main.go: the OJS Go SDK reads no environment variable; its grace is the option\n"
      "# WithGracePeriod (options.go, default 25s). It handles no signal: TERM must cancel\n"
      "# the context Start runs under (spec §12.1)\n"
      "{}"
      "worker := ojs.NewWorker(url, ojs.WithGracePeriod({}))\n"
      "ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)\n"
      "defer cancel()\n"
      "if err := worker.Start(ctx); err != nil {{\n"
      "\tlog.Fatal(err)\n"
      "}}\n",
      grace_note(in, "//", "the SDK", 1, ""), go_duration(bounded(in)));
  w.command_note = kCommandNote;
  return w;
}
}  // namespace

Profile ojs_go_sdk() {
  Profile p = base("ojs-go-sdk",
                   "OJS Go SDK: grace 25 s, the TERM cancels the jobs' context, heartbeats stop "
                   "at drain, ACKs and FAILs during drain are lost (redelivered at the "
                   "visibility timeout: duplicates), nothing sent at the deadline",
                   25 * kSecond);
  ShutdownBehaviour& b = p.worker.shutdown;
  b.logs_remaining = false;  // no remaining-count log (profiles.h)
  b.handles_tstp = false;    // NotifyContext catches TERM and INT only
  b.second_term = ShutdownBehaviour::SecondTerm::kIgnore;  // still caught, context already done
  b.at_deadline = ShutdownBehaviour::AtDeadline::kLeave;
  b.heartbeats_while_draining = false;
  // Jobs run under the context Start was given (worker.go processJob: JobContext.ctx), the
  // one the TERM cancels, and ackJob/nackJob post on it.
  b.cancel_after = 0;
  b.acks_fail_while_draining = true;
  b.nacks_fail_while_draining = true;
  b.deregisters = false;
  p.mechanisms = ojs_reference_backend();
  p.settings = settings;
  return p;
}

}  // namespace drainsim::profiles
