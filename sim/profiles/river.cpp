// River (Go, Postgres) with the seed's signal wiring: a first signal → Stop (soft), a
// second → StopAndCancel, a third → exit (docs/profiles.md; client.go, job_rescuer.go).
#include <fmt/format.h>

#include "profiles/profiles.h"
#include "profiles/system_settings.h"

namespace drainsim::profiles {

namespace {
void apply(const ProfileOptions& options, ShutdownBehaviour&, BackendMechanisms& m) {
  m.rescuer.after = option_duration(options, "rescue_stuck_jobs_after");
}

using namespace snippet;

// Its settings for tune's snippet (profiles/system_settings.h; docs/tune.md, "The snippet").
System settings(const Input& in) {
  System w;
  w.name = "River";
  w.command_note = kCommandNote;
  if (in.grace == kNever) {
    w.settings =
        "# --- main.go: without Config.SoftStopTimeout (the default) River's soft stop waits\n"
        "# for the jobs however long; only the platform's SIGKILL ends it. Without that field,\n"
        "# cancelling Start's context is a hard stop (client.go), so call Stop on TERM\n"
        "if err := riverClient.Start(context.Background()); err != nil {\n"
        "\tpanic(err)\n"
        "}\n"
        "sig := make(chan os.Signal, 1)\n"
        "signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)\n"
        "<-sig\n"
        "if err := riverClient.Stop(context.Background()); err != nil {\n"
        "\tpanic(err)\n"
        "}\n";
    return w;
  }
  if (in.grace == 0) {
    w.settings =
        "# --- main.go: a grace of 0 is River's hard stop at once. Without\n"
        "# Config.SoftStopTimeout, cancelling Start's context cancels the jobs' contexts\n"
        "# and waits for them, as StopAndCancel (client.go)\n";
  } else {
    w.settings = fmt::format(
        "# --- main.go: River 0.38+ limits the soft stop with Config.SoftStopTimeout, then\n"
        "# cancels the jobs' contexts and waits for them to return (a hard stop, as\n"
        "# StopAndCancel; client.go). Before 0.38, time it yourself (River's \"Graceful\n"
        "# shutdown\" page): on TERM, riverClient.Stop under a context.WithTimeout of {1};\n"
        "# when that times out, riverClient.StopAndCancel\n"
        "riverClient, err := river.NewClient(riverpgxv5.New(dbPool), &river.Config{{\n"
        "\tSoftStopTimeout: {0},\n"
        "\t// Queues, Workers: yours\n"
        "}})\n"
        "if err != nil {{\n"
        "\tpanic(err)\n"
        "}}\n",
        go_duration(in.grace), format_duration(in.grace));
  }
  w.settings +=
      "ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)\n"
      "defer stop()\n"
      "if err := riverClient.Start(ctx); err != nil {\n"
      "\tpanic(err)\n"
      "}\n"
      "<-riverClient.Stopped()\n";
  return w;
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
  // (errors + 1)^4 s, +-10 % (internal/retrypolicy/default.go, 0.43; the same since 0.0.1).
  p.backend.retry.schedule = RetryPolicy::Schedule::kRiver;
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
  p.settings = settings;
  return p;
}

}  // namespace drainsim::profiles
