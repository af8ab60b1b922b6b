// Temporal activity workers: the Go SDK with InterruptCh passed, or (option
// waits_for_activities) the Python and TypeScript SDKs (docs/profiles.md).
#include <climits>

#include <fmt/format.h>

#include "profiles/profiles.h"
#include "profiles/system_settings.h"

namespace drainsim::profiles {

namespace {
void apply(const ProfileOptions& options, ShutdownBehaviour& b, BackendMechanisms& m) {
  // A heartbeating activity is found by its heartbeat timeout; otherwise only its
  // start-to-close timeout (the visibility timeout here) recovers it.
  m.heartbeat_detection = option_bool(options, "activity_heartbeats");
  // The Python and TypeScript SDKs (sdk-core's graceful_shutdown_period) cancel the
  // activities when the grace ends and wait for every one to return: one that returns is
  // reported failed (WorkerShutdown, retryable), one that ignores the cancellation holds the
  // worker until it is killed.
  if (option_bool(options, "waits_for_activities")) {
    b.at_deadline = ShutdownBehaviour::AtDeadline::kCancelAndWait;
  }
}

using namespace snippet;

// Its settings for tune's snippet (profiles/system_settings.h; docs/tune.md, "The snippet").
System settings(const Input& in) {
  System w;
  const Duration g = bounded(in);
  if (!flag(in.s, "waits_for_activities")) {
    w.name = "the Temporal Go SDK";
    w.settings = fmt::format(
        "# --- main.go: the Temporal Go SDK's worker.Options.WorkerStopTimeout (default 0);\n"
        "# Run stops the worker when InterruptCh delivers INT or TERM\n"
        "{}"
        "w := worker.New(c, \"your-task-queue\", worker.Options{{\n"
        "\tWorkerStopTimeout: {},\n"
        "}})\n"
        "// register your workflows and activities\n"
        "if err := w.Run(worker.InterruptCh()); err != nil {{\n"
        "\tlog.Fatalln(err)\n"
        "}}\n",
        grace_note(in, "//", "WorkerStopTimeout", 1, ""), go_duration(g));
    w.command_note = kCommandNote;
    return w;
  }
  w.name = "the Temporal SDK";
  w.settings = fmt::format(
      "# --- worker.py: the Temporal Python SDK's graceful_shutdown_timeout (default 0).\n"
      "# The SDK handles no signal: shut the worker down on TERM\n"
      "{}"
      "worker = Worker(client, task_queue=\"your-task-queue\", activities=[...],\n"
      "                graceful_shutdown_timeout=timedelta(seconds={}))\n"
      "stop = asyncio.Event()\n"
      "for sig in (signal.SIGTERM, signal.SIGINT):\n"
      "    asyncio.get_running_loop().add_signal_handler(sig, stop.set)\n"
      "async with worker:  # leaving the block calls worker.shutdown()\n"
      "    await stop.wait()\n"
      "# --- worker.ts: or the TypeScript SDK's shutdownGraceTime (ms, default 0; without\n"
      "# shutdownForceTime it waits for every activity). The Runtime's shutdownSignals\n"
      "# (SIGINT, SIGTERM, SIGQUIT, SIGUSR2) shut it down\n"
      "const worker = await Worker.create({{\n"
      "  connection, taskQueue: 'your-task-queue', activities,\n"
      "  shutdownGraceTime: {},\n"
      "}});\n"
      "await worker.run();\n",
      grace_note(in, "#", "the SDK", 1, ""), python_seconds(g), grouped(millis_up(g)));
  w.command_note = "command: your worker (python worker.py, node worker.js), in exec form";
  return w;
}
}  // namespace

Profile temporal() {
  Profile p = base("temporal",
                   "Temporal (Go SDK): WorkerStopTimeout 0, so TERM stops the worker at once and "
                   "its activities die with the process, found by their heartbeat or "
                   "start-to-close timeout and retried (1 s x2, cap 100 s, unlimited)",
                   0);
  ShutdownBehaviour& b = p.worker.shutdown;
  b.logs_remaining = false;  // no remaining-count log (profiles.h)
  b.handles_tstp = false;
  b.second_term = ShutdownBehaviour::SecondTerm::kIgnore;
  // baseWorker.Stop (internal/internal_worker_base.go) waits WorkerStopTimeout for the
  // activities, cancels their contexts and returns without waiting again; worker.Run
  // returns and the program exits, so the activities still running die with the process
  // and wait for their start-to-close (or heartbeat) timeout.
  b.at_deadline = ShutdownBehaviour::AtDeadline::kLeave;
  p.backend.visibility_timeout = 10 * kMinute;  // start-to-close
  p.backend.retry = RetryPolicy{INT_MAX, kSecond, 2.0, 100 * kSecond, false};
  p.mechanisms.heartbeat_detection = false;
  p.mechanisms.lease.renewed_by_heartbeat = false;
  p.mechanisms.lease.fate = LeaseExpiry::Fate::kRetry;
  p.options = {
      {"activity_heartbeats", false,
       "activities heartbeat, so a dead worker is found after backend.heartbeat_timeout"},
      {"waits_for_activities", false,
       "the Python and TypeScript SDKs: when the grace (graceful_shutdown_timeout, "
       "shutdownGraceTime) ends, cancel the activities and wait for all of them; false: the "
       "Go SDK, which cancels them and exits"},
  };
  p.apply = apply;
  p.settings = settings;
  return p;
}

}  // namespace drainsim::profiles
