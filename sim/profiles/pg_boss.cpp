// pg-boss 12 with the app calling stop() on TERM (docs/profiles.md).
#include <fmt/format.h>

#include "profiles/profiles.h"
#include "profiles/system_settings.h"

namespace drainsim::profiles {

namespace {
void apply(const ProfileOptions& options, ShutdownBehaviour& b, BackendMechanisms& m) {
  // pg-boss 9: stop() never fails the active jobs; they stay active until they expire. It
  // looks for running jobs once a second, and once it finds none it stops its maintenance,
  // waits a second more and looks again (src/index.js stop(), 9.0.3).
  if (!option_bool(options, "fails_active_at_stop")) {
    b.at_deadline = ShutdownBehaviour::AtDeadline::kLeave;
    b.drain_poll = kSecond;
    b.drain_linger = kSecond;
  }
  m.lease.check_interval = option_duration(options, "expiry_check_interval");
}

using namespace snippet;

// Its settings for tune's snippet (profiles/system_settings.h; docs/tune.md, "The snippet").
System settings(const Input& in) {
  System w;
  w.name = "pg-boss";
  const Duration g = bounded(in);
  std::string stop;
  std::string note = grace_note(in, "//", "pg-boss", kMillisecond, "milliseconds");
  if (g == 0) {
    stop = "{ graceful: false }";
    note = "// A grace of 0: no graceful wait.\n";
  } else {
    stop = fmt::format("{{ graceful: true, timeout: {} }}", grouped(millis_up(g)));
    if (g < kSecond) note += "// stop() raises a timeout below 1_000 to 1_000 (index.ts).\n";
  }
  const bool v9 =
      in.s.worker.options.contains("fails_active_at_stop") && !flag(in.s, "fails_active_at_stop");
  w.settings = fmt::format(
      "# --- worker.js: pg-boss's stop({{ graceful, timeout }}), the timeout in ms (default\n"
      "# 30_000). pg-boss handles no signal: call it on TERM.\n"
      "# At the timeout {}.\n"
      "{}"
      "let stopping = false;\n"
      "{}"
      "const shutdown = async () => {{\n"
      "  if (stopping) return;\n"
      "  stopping = true;\n"
      "  await boss.stop({});\n"
      "{}"
      "}};\n"
      "process.on('SIGTERM', shutdown);\n"
      "process.on('SIGINT', shutdown);\n",
      v9 ? "pg-boss 9 leaves the jobs still active until they expire"
         : "pg-boss 10+ fails the jobs still active",
      note,
      // 9's stop() returns at once and drains in the background (src/index.js, 9.0.3):
      // exiting when it returns would kill the running jobs.
      v9 ? "// pg-boss 9's stop() returns at once and emits 'stopped' when its drain ends.\n"
           "boss.on('stopped', () => process.exit(0));\n"
         : "",
      stop, v9 ? "" : "  process.exit(0);\n");
  w.command = {"node", "worker.js"};
  return w;
}
}  // namespace

Profile pg_boss() {
  Profile p = base("pg-boss",
                   "pg-boss: stop() waits 30 s then fails active jobs, retried at once up to "
                   "retryLimit 2; a dead worker's jobs expire after 15 min (checked every minute)",
                   30 * kSecond);
  ShutdownBehaviour& b = p.worker.shutdown;
  b.logs_remaining = false;  // no remaining-count log (profiles.h)
  b.handles_tstp = false;
  b.second_term = ShutdownBehaviour::SecondTerm::kIgnore;
  // work() races each handler against the job's expireIn and fails the job when that comes
  // first (retried as its retryLimit says), freeing the subscription while the handler runs
  // on (9-12: manager.js resolveWithinSeconds; adapters/pg-boss/README.md measured it).
  b.fails_at_lease_expiry = true;
  // stop() looks for running jobs at once and then every 500 ms, and stops at the first
  // look that finds none (src/index.js stop(), 10.4.2).
  b.drain_poll = 500 * kMillisecond;
  b.drain_looks_at_start = true;
  p.backend.visibility_timeout = 15 * kMinute;  // expireInSeconds
  p.backend.retry = RetryPolicy{3, 0, 1.0, 0, false};
  p.mechanisms.heartbeat_detection = false;
  // No notification: each work() loop polls every newJobCheckInterval, 2 s (src/worker.js,
  // src/attorney.js).
  p.mechanisms.dispatch = Dispatch::kPoll;
  p.worker.poll_interval = 2 * kSecond;
  // Node loading pg-boss, start() connecting and checking its schema (docs/profiles.md,
  // Program start-up).
  p.worker.startup = startup_between(100 * kMillisecond, 400 * kMillisecond);
  p.mechanisms.lease.renewed_by_heartbeat = false;
  p.mechanisms.lease.check_interval = kMinute;  // apply: expiry_check_interval
  p.mechanisms.lease.fate = LeaseExpiry::Fate::kRetry;
  // plans: completeJobs needs state = 'active', failJobsById any state before 'completed';
  // neither asks which worker holds the job.
  p.mechanisms.ack_fence = CompletionFence::kJobIdWhileActive;
  p.mechanisms.fail_fence = CompletionFence::kJobId;
  p.options = {{"fails_active_at_stop", true,
                "pg-boss 10+: stop() fails the jobs still active at its timeout; false: pg-boss 9, "
                "which leaves them active until they expire (set backend.retry.max_attempts 1 "
                "for 9's retryLimit 0)"},
               {"expiry_check_interval", kMinute,
                "how often the jobs active longer than their expireIn (backend.visibility_timeout) "
                "are expired: 11-12 every superviseIntervalSeconds (60 s); 10 in its "
                "maintenance, every maintenanceIntervalSeconds (120 s unless set); 9 in its "
                "maintenance too, a queued job that runs about every 2-3 min"}};
  p.apply = apply;
  p.settings = settings;
  p.adapters = {"pg-boss", "pg-boss-10"};
  return p;
}

}  // namespace drainsim::profiles
