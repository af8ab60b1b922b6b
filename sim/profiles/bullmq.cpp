// BullMQ (Node, Redis) with the docs' wiring of TERM/INT to worker.close() (docs/profiles.md;
// moveStalledJobsToWait, worker.ts).
#include <fmt/format.h>

#include "profiles/profiles.h"
#include "profiles/system_settings.h"

namespace drainsim::profiles {

namespace {
void apply(const ProfileOptions& options, ShutdownBehaviour& b, BackendMechanisms& m) {
  m.lease.check_interval = option_duration(options, "stalled_interval");
  m.lease.max_stalls = option_count(options, "max_stalled_count");
  // BullMQ 4.0.0-4.12.7 stopped the lock extender when close() began (fixed in 4.12.8, PR
  // #2259): a job longer than the lock stalls while the closing worker still runs it.
  b.renews_leases_while_draining = option_bool(options, "renews_locks_while_closing");
}

using namespace snippet;

// Its settings for tune's snippet (profiles/system_settings.h; docs/tune.md, "The snippet").
System settings(const Input& in) {
  System w;
  w.name = "BullMQ";
  w.command = {"node", "worker.js"};
  if (in.grace == kNever) {
    w.settings =
        "# --- worker.js: BullMQ's close() waits for the active jobs however long (\"This\n"
        "# call will not timeout by itself\", its guide's \"Graceful shutdown\"); wired to the\n"
        "# signals as its \"Going to production\" guide does, only the platform's SIGKILL\n"
        "# ends it\n"
        "const shutdown = async () => {\n"
        "  await worker.close();\n"
        "  process.exit(0);\n"
        "};\n"
        "process.on('SIGTERM', shutdown);\n"
        "process.on('SIGINT', shutdown);\n";
    return w;
  }
  w.settings = fmt::format(
      "# --- worker.js: BullMQ's close() has no timeout (\"This call will not timeout by\n"
      "# itself\", its guide's \"Graceful shutdown\"): the grace is the app's timer. The jobs\n"
      "# still active when it fires die with the process and stall, to run again (as\n"
      "# drainsim models it)\n"
      "{}"
      "let closing = false;\n"
      "const shutdown = async () => {{\n"
      "  if (closing) return; // a second signal changes nothing\n"
      "  closing = true;\n"
      "  setTimeout(() => process.exit(1), {});\n"
      "  await worker.close();\n"
      "  process.exit(0);\n"
      "}};\n"
      "process.on('SIGTERM', shutdown);\n"
      "process.on('SIGINT', shutdown);\n",
      grace_note(in, "//", "setTimeout", kMillisecond, "milliseconds"),
      grouped(millis_up(in.grace)));
  return w;
}
}  // namespace

Profile bullmq() {
  Profile p = base("bullmq",
                   "BullMQ: close() waits for active jobs forever; a dead worker's lock (30 s, "
                   "extended every 7.5 s) lapses and a live worker's stalled check requeues the "
                   "job; a job stalled twice fails for good at its next fetch",
                   kNever);
  // The lock extender ticks every lockRenewTime / 2 (lockRenewTime = lockDuration / 2) and
  // extends the locks last extended at least that long ago (worker.ts startLockExtenderTimer).
  p.worker.heartbeat_interval = 7500 * kMillisecond;
  // Node loading bullmq, the Worker connecting to Redis (docs/profiles.md, Program start-up).
  p.worker.startup = startup_between(200 * kMillisecond, 500 * kMillisecond);
  ShutdownBehaviour& b = p.worker.shutdown;
  b.logs_remaining = false;  // no remaining-count log (profiles.h)
  // ... and only those: a job's lock is first extended one to two ticks after its fetch
  // (its `ts` is processedOn), so a lockDuration under lockRenewTime / 2 lapses under any
  // job longer than it.
  b.renews_only_aged_leases = true;
  b.handles_tstp = false;
  b.second_term = ShutdownBehaviour::SecondTerm::kIgnore;
  // No deadline action of its own: when an app gives close() a deadline and exits, the
  // jobs die with the process, stall and run again.
  b.at_deadline = ShutdownBehaviour::AtDeadline::kLeave;
  p.backend.visibility_timeout = 30 * kSecond;  // lockDuration
  p.backend.retry.max_attempts = 1;             // attempts: 1
  // With attempts > 1 and no backoff option a failed job goes back to wait at once
  // (job.ts moveToFailed: Backoffs.calculate gives undefined, "retry immediately").
  p.backend.retry.initial_interval = 0;
  p.backend.retry.jitter = false;
  p.mechanisms.heartbeat_detection = false;
  p.mechanisms.lease.fate = LeaseExpiry::Fate::kStall;
  p.mechanisms.lease.check_interval = 30 * kSecond;
  p.mechanisms.lease.checked_by_workers = true;  // startStalledCheckTimer, 'stalled-check' key
  // The lock is a key with an expiry holding the worker's token: once it lapses (a
  // lockDuration shorter than the extender's period, or no extension while closing in 4.x)
  // extendLocks.lua does not extend it and moveToFinished refuses the run's completion.
  p.mechanisms.lease.token_lapses_with_lease = true;
  p.mechanisms.lease.max_stalls = 1;
  p.options = {{"stalled_interval", 30 * kSecond, "how often the stalled checker runs"},
               {"max_stalled_count", 1, "stalls a job may have; the next one fails it for good"},
               {"renews_locks_while_closing", true,
                "false: BullMQ 4.0.0-4.12.7, whose close() stopped extending the locks of the "
                "jobs it waits for"}};
  p.apply = apply;
  p.settings = settings;
  p.adapters = {"bullmq", "bullmq-4"};
  return p;
}

}  // namespace drainsim::profiles
