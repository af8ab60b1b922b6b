// Sidekiq OSS with BasicFetch (docs/profiles.md; Sidekiq wiki "Deployment", manager.rb,
// fetch.rb).
#include <fmt/format.h>

#include "profiles/profiles.h"
#include "profiles/system_settings.h"

namespace drainsim::profiles {

namespace {
void apply(const ProfileOptions& options, ShutdownBehaviour& b, BackendMechanisms&) {
  b.deadline_action_cost = option_duration(options, "requeue_cost");
}
}  // namespace

// Sidekiq's -t (profiles.h).
snippet::System sidekiq_settings(const snippet::Input& in) {
  snippet::System w;
  w.name = "Sidekiq";
  const std::int64_t t = snippet::ruby_timeout(in);
  w.settings = fmt::format(
      "# --- Sidekiq's shutdown timeout: -t {0} in the command below, or `:timeout: {0}`\n"
      "# in config/sidekiq.yml (cli.rb, whole seconds)\n"
      "{1}",
      t, snippet::ruby_note(in, "Sidekiq"));
  w.command = {"bundle", "exec", "sidekiq", "-t", std::to_string(t)};
  w.quiet = "TSTP";
  w.busy_title = true;
  return w;
}

Profile sidekiq() {
  Profile p = base("sidekiq",
                   "Sidekiq OSS (BasicFetch): TERM waits -t 25 s then requeues unfinished jobs to "
                   "the front, no retry counted; a SIGKILLed process loses its jobs",
                   25 * kSecond);
  p.worker.concurrency = 5;
  p.worker.heartbeat_interval = 10 * kSecond;
  // Ruby loading sidekiq and the app, connecting to Redis (docs/profiles.md, Program
  // start-up: measured here, one program starting at a time).
  p.worker.startup = startup_between(200 * kMillisecond, 500 * kMillisecond);
  ShutdownBehaviour& b = p.worker.shutdown;
  b.logs_remaining = false;  // no remaining-count log (profiles.h)
  b.second_term = ShutdownBehaviour::SecondTerm::kIgnore;
  b.at_deadline = ShutdownBehaviour::AtDeadline::kRequeue;
  // Manager#stop looks for finished processors every PAUSE_TIME 0.5 s (the first look 0.5 s
  // in) and runs hard_shutdown (bulk_requeue) once no more than 0.5 s of -t is left; the
  // process exits at -t. An idle processor is in BasicFetch's BRPOP (TIMEOUT 2 s).
  b.drain_poll = 500 * kMillisecond;
  b.idle_fetch_timeout = 2 * kSecond;
  // A processor whose BRPOP returns a job after it stopped fetching pushes it back (RPUSH:
  // the next one popped), processor.rb fetch; but hard_shutdown kills every processor right
  // after its bulk_requeue, and a processor still blocked then takes one of the requeued
  // jobs and dies before it reads the reply: the job is gone (manager.rb, 6.4.1).
  b.late_fetch = ShutdownBehaviour::LateFetch::kHandBack;
  // The kill beat the processor's read for 14 of 40 such jobs, measured here (6.4.1, Ruby
  // 3.1, fidelity case sidekiq-hard-shutdown-race, 20 runs).
  b.late_fetch_killed = 0.35;
  b.deadline_lead = 500 * kMillisecond;
  p.backend.retry.max_attempts = 26;  // the first run and 25 retries
  // A failed job waits retry_count^4 + 15 + rand(10) x (retry_count + 1) s in the retry set
  // (job_retry.rb delay_for, 6.4.1), and then for a process's scheduled-set poller
  // (scheduled.rb): each polls first 10-15 s after its start, then every U(A/2, 3A/2), A =
  // 5 s x the processes there at its first poll (average_scheduled_poll_interval 5).
  p.backend.retry.schedule = RetryPolicy::Schedule::kSidekiq;
  p.mechanisms.poll_per_process = 5 * kSecond;
  // A fetched job lives only in the process: no lease, no dead-worker detection.
  p.mechanisms.heartbeat_detection = false;
  p.mechanisms.lease.enabled = false;
  p.mechanisms.fetch = FetchMode::kAtMostOnce;
  // A SIGKILLed process's BRPOP clients stay registered until the kernel has torn it down:
  // 3.4 ms median, measured here (Sidekiq 6.4.1, Redis 7.0, docs/fidelity.md).
  p.mechanisms.teardown_window = 3400;
  p.options = {{"requeue_cost", kMillisecond,
                "how long bulk_requeue's round trip to Redis takes (an estimate, not measured): "
                "a SIGKILL within it finds the jobs still in the process"}};
  p.apply = apply;
  p.settings = sidekiq_settings;
  p.adapters = {"sidekiq"};
  return p;
}

}  // namespace drainsim::profiles
