// Celery 5.2-5.6 with its prefork pool, on Redis or RabbitMQ (docs/profiles.md): TERM warm
// shutdown, a second TERM/INT cold (5.2; option warm_ignores_term: 5.5+).
#include <fmt/format.h>

#include "profiles/profiles.h"
#include "profiles/system_settings.h"

namespace drainsim::profiles {

namespace {
void apply(const ProfileOptions& options, ShutdownBehaviour& b, BackendMechanisms& m) {
  const bool acks_late = option_bool(options, "acks_late");
  const bool rabbitmq = option_bool(options, "rabbitmq");
  // 5.5+ (documented; 5.3-5.4 likely, PR #7339 stopped the handler raising): a TERM during
  // the warm shutdown does nothing, an INT starts the cold one.
  if (option_bool(options, "warm_ignores_term")) {
    b.second_term = ShutdownBehaviour::SecondTerm::kIntEscalates;
  }
  // The broker delivers up to concurrency x prefetch_multiplier unacknowledged messages
  // (0: no limit). An early-acked task is acknowledged as it starts, so every one of them
  // may wait reserved; with acks_late the running tasks count among them.
  const int multiplier = option_count(options, "prefetch_multiplier");
  b.reserve_per_slot = option_bool(options, "disable_prefetch") ? 0
                       : multiplier == 0                        ? ShutdownBehaviour::kNoReserveLimit
                       : acks_late                              ? multiplier - 1
                                                                : multiplier;
  // An unacknowledged message of a killed worker comes back, no attempt counted (Celery
  // does not count redeliveries): on Redis after the visibility timeout, on RabbitMQ when
  // the killed worker's connection closes (RabbitMQ has no visibility timeout).
  m.lease.enabled = !rabbitmq;
  m.returns_on_disconnect = rabbitmq;
  // kombu's Redis channel waits in BRPOP with a 1 s timeout whenever it may take a message
  // (redis.py _brpop_start), sent again as each one returns; Redis serves the oldest.
  if (!rabbitmq) b.consumer_fetch_timeout = kSecond;
  if (!rabbitmq && option_bool(options, "drops_late_fetch")) {
    // A warm shutdown stops the event loop with one BRPOP outstanding; a message Redis pops
    // for it then is never read, and before kombu 5.3.2 the channel's close drops it: lost,
    // with no attempt (celery#4354). 5.3.2 (PR #1733) reads the reply at close and the
    // message goes back to its queue.
    b.late_fetch = ShutdownBehaviour::LateFetch::kKeep;
  }
  if (!acks_late) {
    // Early ack: a started task is the process's alone; a reserved one is still unacked.
    m.fetch = b.reserve_per_slot > 0 ? FetchMode::kUntilStarted : FetchMode::kAtMostOnce;
    return;
  }
  // The message is acknowledged after the task: a cold shutdown restores it.
  b.at_deadline = ShutdownBehaviour::AtDeadline::kRequeue;
  m.fetch = FetchMode::kReliable;
  // A pool child's death (WorkerLostError): acked and failed, unless
  // task_reject_on_worker_lost rejects the message back to the queue.
  if (option_bool(options, "reject_on_worker_lost")) {
    b.child_lost = ShutdownBehaviour::ChildLost::kRequeue;
  }
}

using namespace snippet;

// Its settings for tune's snippet (profiles/system_settings.h; docs/tune.md, "The snippet").
System settings(const Input& in) {
  System w;
  w.name = "Celery";
  w.command = {"celery", "-A", "proj", "worker"};
  w.command_note = "-A proj: your Celery app";
  if (in.grace == kNever) {
    w.settings =
        "# --- Celery: TERM starts the warm shutdown, which waits for the running tasks\n"
        "# however long (Workers Guide, \"Warm Shutdown\"): nothing to set; only the\n"
        "# platform's SIGKILL ends it\n";
    return w;
  }
  w.env = {{"REMAP_SIGTERM", "SIGQUIT"}};
  if (in.grace == 0) {
    w.settings =
        "# --- Celery: a grace of 0 is the cold shutdown at once, which TERM starts with\n"
        "# REMAP_SIGTERM=SIGQUIT (below; Workers Guide, \"Cold Shutdown\"): the running tasks\n"
        "# are terminated\n";
    return w;
  }
  w.settings = fmt::format(
      "# --- celeryconfig.py: Celery's only warm shutdown with a time limit is the soft\n"
      "# shutdown (5.5+; Workers Guide, \"Soft Shutdown\"): worker_soft_shutdown_timeout\n"
      "# seconds for the running tasks, then the cold shutdown. It comes before a cold\n"
      "# shutdown (QUIT), so REMAP_SIGTERM=SIGQUIT (below) makes TERM start it. It waits its\n"
      "# whole timeout when any task is running (worker.py, wait_for_soft_shutdown), not\n"
      "# only until they end. Before 5.5 there is no timeout: the warm shutdown waits\n"
      "# forever (a grace of \"forever\"), and REMAP_SIGTERM=SIGQUIT would make TERM a cold\n"
      "# shutdown at once: leave it out there\n"
      "worker_soft_shutdown_timeout = {}\n",
      python_seconds(in.grace));
  return w;
}
}  // namespace

Profile celery() {
  Profile p = base("celery",
                   "Celery: TERM warm shutdown waits forever, a second signal is cold; early ack "
                   "(default) loses a killed task, acks_late redelivers it after the 1 h "
                   "visibility timeout; tasks fetched ahead (prefetch 4) wait for it too",
                   kNever);
  // Python importing celery and the app, the worker connecting to its broker and starting
  // its prefork pool (docs/profiles.md, Program start-up).
  p.worker.startup = startup_between(1300 * kMillisecond, 1900 * kMillisecond);
  ShutdownBehaviour& b = p.worker.shutdown;
  b.logs_remaining = false;  // no remaining-count log (profiles.h)
  b.handles_tstp = false;
  // 5.2: a second TERM or INT ends the warm shutdown, the running tasks terminated
  // (measured on 5.2.6: the worker exited 1.6 s after a second TERM, its task lost).
  b.second_term = ShutdownBehaviour::SecondTerm::kDeadline;
  b.at_deadline = ShutdownBehaviour::AtDeadline::kLeave;  // cold: tasks terminated
  // Tasks run in prefork pool children; one killed fails its task (WorkerLostError).
  b.child_lost = ShutdownBehaviour::ChildLost::kFail;
  // The warm shutdown ends 1.95 s after the last task (measured 1.81-2.15 s on both
  // brokers, c = 1-8, and an idle worker 1.81 s after TERM), all of it in the prefork pool's
  // teardown (billiard 4.1 / 3.6.4 pool.py Worker._do_exit: time.sleep(1) in the last child,
  // which nobody cuts short; then at interpreter exit the pool's finalizer
  // _terminate_pool -> AsynPool._help_stuff_finish selects on the inqueues with a 0.5 s
  // timeout that always runs out; the result drain's polls and Python's teardown ~0.45 s).
  b.drain_linger = 1950 * kMillisecond;
  p.backend.visibility_timeout = kHour;  // Redis
  p.backend.retry.max_attempts = 1;      // a failed task is not retried unless it asks to be
  p.mechanisms.heartbeat_detection = false;
  // apply sets the fetch mode, the reserve and whether the lease runs from the options.
  // On Redis each worker's own event loop restores the messages delivered longer than the
  // visibility timeout ago, whoever holds them: at its consumer's start, 90 s later, then
  // every 100 s (kombu 5.2 redis.py: restore_visible at on_poll_init and on every 10th of
  // its calls, maybe_restore_messages every 10 s and once more during start-up; measured:
  // the second restore came 89 s after the worker was ready), not at each message's
  // deadline.
  LeaseExpiry& lease = p.mechanisms.lease;
  lease.enabled = true;
  lease.renewed_by_heartbeat = false;
  lease.check_interval = 100 * kSecond;
  lease.fate = LeaseExpiry::Fate::kRequeue;
  lease.counts_attempt = false;
  lease.checked_by_workers = true;
  lease.one_check_across_workers = false;
  lease.seen_at_previous_check = false;
  lease.second_check_after = 90 * kSecond;
  // acks_late: the ack names the delivery tag, which a restored message keeps, so the first
  // run to finish acks the message wherever it is now held (kombu QoS.ack).
  p.mechanisms.ack_fence = p.mechanisms.fail_fence = CompletionFence::kJobIdWhileActive;
  p.options = {
      {"acks_late", false, "acknowledge after the task instead of as it starts"},
      {"rabbitmq", false,
       "the broker is RabbitMQ: a killed worker's unacknowledged tasks (all with acks_late, "
       "else those fetched ahead) come back when its connection closes (false: Redis, after "
       "the visibility timeout)"},
      {"prefetch_multiplier", 4,
       "worker_prefetch_multiplier: a process holds up to concurrency x this many "
       "unacknowledged messages, those not running reserved in the process; they go back "
       "when it exits by itself and wait for their recovery when it is killed (0: no limit)"},
      {"disable_prefetch", false,
       "worker_disable_prefetch (Celery 5.6, Redis): fetch only for a free pool process, "
       "reserving nothing"},
      {"drops_late_fetch", false,
       "kombu before 5.3.2 on Redis (Debian 12 ships 5.2.4): a warm shutdown drops the message "
       "its outstanding 1 s BRPOP pops, never reading it (false: kombu 5.3.2+ reads it at close "
       "and puts it back)"},
      {"warm_ignores_term", false,
       "Celery 5.5+ (and likely 5.3-5.4): a TERM during the warm shutdown is ignored and only "
       "an INT goes cold (false: 5.2, as the adapters run it, where a second TERM goes cold "
       "too)"},
      {"reject_on_worker_lost", false,
       "task_reject_on_worker_lost: with acks_late, a task whose pool child died goes back to "
       "the queue instead of failing"},
  };
  p.apply = apply;
  p.settings = settings;
  p.adapters = {"celery-redis", "celery-rabbitmq"};
  return p;
}

}  // namespace drainsim::profiles
