// graphile-worker 0.17 (docs/profiles.md): a first signal is graceful (aborts job signals after
// 5 s, waits on), a second is forceful (unlocks the jobs as failed).
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
  w.name = "graphile-worker";
  if (in.grace == kNever) {
    w.settings =
        "# --- graphile-worker: its own signal handling (the CLI's, or run()'s without\n"
        "# noHandleSignals) waits for the jobs however long, aborting their signals after\n"
        "# gracefulShutdownAbortTimeout (5_000 ms): nothing to set; only the platform's\n"
        "# SIGKILL ends it\n";
    w.command_note =
        "command: graphile-worker (the CLI) or your program calling run(), in exec form";
    return w;
  }
  // Runner.kill() turns forceful 0.5 s after it is called (runner.ts).
  const Duration early = std::max<Duration>(in.grace - 500 * kMillisecond, 0);
  w.settings = fmt::format(
      "# --- worker.js: graphile-worker has no graceful-shutdown timeout: its own handlers\n"
      "# wait for the jobs however long, and only a second signal forces a stop. So handle\n"
      "# the signals yourself and, when the grace ends, call runner.kill() (0.17+; 0.16 has\n"
      "# no forceful call): the forceful shutdown fails the jobs, to be retried. kill() turns\n"
      "# forceful 0.5s after it is called (runner.ts), so it is called 0.5s early\n"
      "const runner = await run({{\n"
      "  noHandleSignals: true,\n"
      "  gracefulShutdownAbortTimeout: 5_000, // aborts the jobs' signals 5s in (the default)\n"
      "  // connectionString, concurrency, taskDirectory: yours\n"
      "}});\n"
      "let stopping = false;\n"
      "for (const signal of ['SIGTERM', 'SIGINT']) {{\n"
      "  process.on(signal, async () => {{\n"
      "    if (stopping) return;\n"
      "    stopping = true;\n"
      "    setTimeout(() => runner.kill('grace period over').finally(() => process.exit(1)), {});\n"
      "    await runner.stop();\n"
      "    process.exit(0);\n"
      "  }});\n"
      "}}\n",
      grouped(millis_up(early)));
  w.command = {"node", "worker.js"};
  return w;
}
}  // namespace

Profile graphile_worker() {
  Profile p = base("graphile-worker",
                   "graphile-worker: graceful stop waits, aborting jobs after 5 s; a 2nd signal "
                   "fails them (retry after e^attempts s); a killed worker's jobs stay locked 4 h",
                   kNever);
  // Node loading graphile-worker, its pool connecting and checking its migrations
  // (docs/profiles.md, Program start-up).
  p.worker.startup = startup_between(100 * kMillisecond, 300 * kMillisecond);
  ShutdownBehaviour& b = p.worker.shutdown;
  b.logs_remaining = false;  // no remaining-count log (profiles.h)
  b.handles_tstp = false;
  // A second signal within 5 s of the first is ignored; a later one is the forceful
  // shutdown: failJobs on the running jobs (retried after e^attempts s), then the self-kill
  // (0.16.6 dist/main.js; the job code is not stopped and dies with the process).
  b.second_term = ShutdownBehaviour::SecondTerm::kDeadline;
  b.second_term_quiet_for = 5 * kSecond;
  b.cancel_after = 5 * kSecond;  // gracefulShutdownAbortTimeout: the AbortSignals fire
  // Once its workers are released, run()'s handler removes itself and kills the process with
  // the signal it got (0.16.6 dist/main.js gracefulHandler's finally: "killing self via
  // SIGTERM"): the process dies of it (measured: returncode -15).
  b.exits_by_signal = true;
  p.backend.visibility_timeout = 4 * kHour;  // lock expiry
  // exp(min(attempts, 10)) seconds: e^1 first, x e each time, e^10 at most.
  p.backend.retry =
      RetryPolicy{25, from_seconds(2.718282), 2.718282, from_seconds(22026.466), false};
  p.mechanisms.heartbeat_detection = false;
  // LISTEN jobs:insert nudges an idle worker in every process; get_job uses SKIP LOCKED.
  p.mechanisms.dispatch = Dispatch::kRandomWaiter;
  p.mechanisms.lease.renewed_by_heartbeat = false;
  // completeJob deletes by id alone; failJob needs locked_by = the worker's id.
  p.mechanisms.ack_fence = CompletionFence::kJobId;
  p.settings = settings;
  p.adapters = {"graphile-worker"};
  return p;
}

}  // namespace drainsim::profiles
