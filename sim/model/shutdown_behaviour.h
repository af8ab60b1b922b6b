// ShutdownBehaviour: what a worker implementation does when it is told to stop — the
// hooks WorkerCore consults, one set per profile (docs/profiles.md). The defaults are the Open
// Job Spec's graceful shutdown.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

#include "base/duration.h"
#include "base/job.h"
#include "base/names.h"

namespace drainsim {

struct ShutdownBehaviour {
  // What a TERM or INT does while the worker is already draining.
  enum class SecondTerm : std::uint8_t {
    kForceStop,      // exit 1 at once, active jobs abandoned (OJS)
    kIgnore,         // already stopping (Sidekiq, the OJS SDKs' signal wiring)
    kDeadline,       // do the deadline action now (graphile-worker's forceful stop, River's
                     // StopAndCancel, Celery's cold shutdown); a third one forces a stop
    kDefaultAction,  // the first one removed the handler: the signal's default action
                     // kills the process, unless it is PID 1 (the OJS JS SDK's stop())
    kIntEscalates,   // a TERM is ignored, an INT does as kDeadline (Celery 5.3+: TERM is a
                     // warm shutdown every time, INT moves to the next stage)
  };
  // What happens to the jobs still running when the grace period ends.
  enum class AtDeadline : std::uint8_t {
    kFail,           // FAIL each with `deadline_error` (retryable), exit without waiting
    kRequeue,        // hand each back to the front of its queue, no attempt counted, exit
    kLeave,          // exit without a word: the jobs die with the process and are left to
                     // the backend's recovery (Oban, the Go SDK, Ductwork)
    kCancelAndWait,  // cancel the bodies and wait: a cooperative one FAILs (retryable) when
                     // it returns, an uncooperative one runs on (River)
  };

  bool handles_term = true;  // TERM/INT start a drain; false: the default action kills the
                             // process at once (no handler)
  bool handles_tstp = true;  // TSTP quiets and CONT resumes; false: both are ignored
  SecondTerm second_term = SecondTerm::kForceStop;
  // A second TERM/INT this soon after the first is ignored, whatever second_term says
  // (graphile-worker 0.16-0.17: 5 s, run()'s "graceful shutdown already in progress").
  Duration second_term_quiet_for = 0;
  AtDeadline at_deadline = AtDeadline::kFail;
  ErrorKind deadline_error = ErrorKind::kShutdown;  // kFail's error, and a cancelled body's
                                                    // (the JS SDK: handler)
  Duration cancel_after = kNever;            // from the drain's start: cancel the bodies and keep
                                             // waiting (graphile-worker aborts after 5 s)
  bool heartbeats_while_draining = true;     // false: they stop when the drain starts
  bool renews_leases_while_draining = true;  // false: heartbeats while draining list no job
                                             // (BullMQ before 4.12.8: no lock extension)
  bool acks_fail_while_draining = false;     // an ACK sent while draining never reaches the
                                             // backend (the Go SDK's cancelled context)
  bool nacks_fail_while_draining = false;    // nor a FAIL (the Go SDK's nackJob, same context)
  bool logs_remaining = true;      // the worker logs its remaining job count every 5 s while
                                   // draining (OJS GS-R003)
  bool deregisters = true;         // says goodbye at a clean exit (OJS; a backend takes back what a
                                   // departed worker still holds)
  bool leave_deregisters = false;  // kLeave: says goodbye too, once the jobs are killed, so the
                                   // backend takes them back at once (Ductwork 1.0's
                                   // reap_process_record!)
  // A heartbeat lists only the jobs it has not listed (nor seen start) for one heartbeat
  // interval or more, so a job's first renewal comes one to two intervals after its start
  // (BullMQ's lock extender renews a lock once it is lockRenewTime / 2 old: worker.ts
  // startLockExtenderTimer). false: every running job, every time.
  bool renews_only_aged_leases = false;
  // The worker itself FAILs a job still running when its lease expires as fetched
  // (Lease::expires: backend.visibility_timeout after the fetch), with the lease-expiry error
  // and retryable, and frees its slot at once, while the body runs on to its end reported to
  // nobody (pg-boss's work(): expireIn is also the handler's time limit, and nothing stops the
  // handler: manager.js resolveWithinSeconds).
  bool fails_at_lease_expiry = false;
  // Sidekiq's manager (manager.rb stop): it looks for finished processors every
  // `drain_poll`, the first look one poll into the drain, so a drain ends on a look.
  // 0: the drain ends the moment its last job does.
  Duration drain_poll = 0;
  // pg-boss's stop() looks at its start and then every `drain_poll`, so a drain with no job
  // ends at its first look, where Sidekiq's first look is one poll in.
  bool drain_looks_at_start = false;
  // The process exits this long after the drain found no job left (pg-boss 9's stop() then
  // stops its maintenance, waits one more poll and looks again; Celery's prefork pool
  // teardown sleeps 1 s in the last child and 0.5 s in the parent's finalizer). It is still
  // running meanwhile: the platform's SIGKILL can find it there.
  Duration drain_linger = 0;
  // After its graceful shutdown the process kills itself with the signal that started it
  // (graphile-worker's run(): process.kill(process.pid, signal) once its handler is gone):
  // it dies of that TERM or INT (died_on_term, 128 + n), which a PID 1 survives and so
  // exits 0. A drain not started by a signal exits 0.
  bool exits_by_signal = false;
  // An idle slot blocks in a fetch of this timeout (Sidekiq's BRPOP, 2 s), fetch after
  // fetch from when it went idle, and stops only when the one in progress returns: a drain
  // ends no sooner. 0: an idle slot stops at once.
  Duration idle_fetch_timeout = 0;
  // One blocking fetch per process, not per slot, of this timeout, in progress while the
  // worker waits for jobs, fetch after fetch from when it began to wait (kombu's BRPOP on
  // Redis, 1 s). It does not hold the drain. Redis serves the oldest blocked BRPOP, so the
  // store ranks the worker by when its current fetch began (Backend::wait_for_jobs). 0: none.
  Duration consumer_fetch_timeout = 0;
  // What a fetch still blocked in the store when the worker stopped fetching (quiet or
  // draining: idle_fetch_timeout, consumer_fetch_timeout) does with a job it takes before it
  // returns. Each such fetch takes at most one.
  enum class LateFetch : std::uint8_t {
    kNone,      // it takes none: the store hands nothing to a worker that stopped fetching
    kHandBack,  // it hands the job back to the front of its queue, its attempt given back
                // (Sidekiq's processor.rb fetch: `requeue` when @done); once the deadline
                // action has run, the action's thread kill finds it still unread with
                // probability late_fetch_killed (hard_shutdown kills the processors right
                // after its bulk_requeue): then as kKeep
    kKeep,      // the job stays in the process, never run, out of the store's recovery, and
                // is lost when the process ends (kombu 5.2.4 on Redis)
  };
  LateFetch late_fetch = LateFetch::kNone;
  // kHandBack: the chance that a job a late fetch takes after the deadline action is lost to
  // the action's thread kill rather than handed back (Sidekiq 6.4.1: measured, see
  // docs/profiles.md, Late fetches).
  double late_fetch_killed = 0;
  // The deadline action starts this long before the grace ends, and the process exits at
  // the grace's end (Sidekiq's hard_shutdown once less than its 0.5 s pause is left).
  Duration deadline_lead = 0;
  // The deadline action's own time: its effect lands this long after it starts (a requeue's
  // round trip to the store); a SIGKILL in between finds the jobs still in the process.
  Duration deadline_action_cost = 0;
  // Jobs run in pool child processes (Celery's prefork pool), which the OOM killer can take
  // one at a time (event oom_kill_child); the worker replaces the child and goes on. What it
  // does with the job of a child that died:
  enum class ChildLost : std::uint8_t {
    kNone,     // no pool children: jobs run in the worker process (oom_kill_child is refused)
    kFail,     // FAIL for good (Celery's WorkerLostError)
    kRequeue,  // back to the front of its queue (acks_late with task_reject_on_worker_lost)
  };
  ChildLost child_lost = ChildLost::kNone;
  // Jobs a process fetches ahead per slot and keeps reserved, unstarted, until a slot is
  // free (Celery's worker_prefetch_multiplier); kNoReserveLimit: as many as are queued. A
  // process reserves kNoReserveLimit jobs at most, whatever its concurrency.
  // Reserved jobs never start once the worker stops running; they go back to the front of
  // their queue when the process exits by itself, and stay with the backend's recovery when
  // it is killed.
  int reserve_per_slot = 0;
  static constexpr int kNoReserveLimit = 1 << 16;

  // When the deadline action lands, from the drain's start (`grace`: the worker's grace).
  Duration action_delay(Duration grace) const {
    return grace == kNever ? kNever
                           : std::max<Duration>(0, grace - deadline_lead) + deadline_action_cost;
  }
};

constexpr std::array<std::string_view, 5> names(ShutdownBehaviour::SecondTerm) {
  return {"force_stop", "ignore", "deadline_now", "default_action", "int_escalates"};
}

constexpr std::array<std::string_view, 4> names(ShutdownBehaviour::AtDeadline) {
  return {"fail", "requeue_front", "leave", "cancel_and_wait"};
}

constexpr std::array<std::string_view, 3> names(ShutdownBehaviour::LateFetch) {
  return {"none", "hand_back", "keep"};
}

constexpr std::array<std::string_view, 3> names(ShutdownBehaviour::ChildLost) {
  return {"none", "fail", "requeue"};
}

}  // namespace drainsim
