// The recovery mechanisms a backend runs: how jobs come back from a worker that stopped
// reporting, and where a fetched job lives until it is acknowledged (docs/design.md,
// Semantics/Backend; docs/profiles.md). A profile chooses them; scenario fields such as
// backend.visibility_timeout, backend.heartbeat_timeout and backend.retry only tune the
// mechanisms it has. Plain data: the Backend implements each mechanism.
//
// Heartbeat detection, lease expiry and the rescuer act on jobs the backend keeps while
// they run (FetchMode::kReliable; under kUntilStarted, until they start). Under kAtMostOnce and
// kPrivateList a fetched job is out of the shared store, and only the fetch mode's own rule brings
// it back (or loses it).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "base/duration.h"
#include "base/names.h"

namespace drainsim {

// Lease / visibility timeout / lock / reservation expiry. The lease runs for
// backend.visibility_timeout from the fetch (and from each renewing heartbeat).
struct LeaseExpiry {
  bool enabled = true;
  // A heartbeat listing the job renews it (OJS, BullMQ's lock renewal); false: it runs from
  // the fetch (OJS reference backends, Celery, Faktory, pg-boss, graphile-worker).
  bool renewed_by_heartbeat = true;
  // true (BullMQ: the lock is a Redis key with an expiry that holds the worker's token):
  // once the lease lapses the token is gone, though the job stays active until a check takes
  // it back: a heartbeat no longer renews it (extendLocks.lua) and the run's ACK or FAIL is
  // refused under the lease fence (moveToFinished: "Missing lock"). false: the holder keeps
  // its claim until a check takes the job back.
  bool token_lapses_with_lease = false;
  // 0: found at the exact deadline; else found by a periodic check at multiples of this from
  // t=0 (Faktory reaper 15 s, pg-boss 60 s, BullMQ stalled checker 30 s): the first check at
  // or after the deadline takes the job back.
  Duration check_interval = 0;
  enum class Fate : std::uint8_t {
    // Back to available at once, no backoff; the attempt (counted at fetch) stands;
    // discarded when attempts are used up (OJS, error visibility_timeout).
    kRequeue,
    // As a FAIL with a retryable error: through the retry policy with backoff, discarded
    // when attempts are used up (Faktory, pg-boss; error visibility_timeout).
    kRetry,
    // BullMQ: stalled counter +1; back to the front of the wait list without using an
    // attempt. A job whose counter exceeds max_stalls is discarded for good (error
    // "stalled"), whatever attempts are left, when it is next fetched.
    kStall,
  };
  Fate fate = Fate::kRequeue;
  // kRequeue only: false = the requeue gives the attempt back and never discards (reference
  // backends, Celery redelivery: a job that keeps killing workers loops forever).
  bool counts_attempt = true;
  int max_stalls = 1;  // kStall
  // BullMQ, kombu: the periodic check runs inside the workers, not on a clock from t=0.
  // Each running worker tries at its start and then every check_interval; a worker that is
  // closing (reported quiet or terminate), gone or dead tries no more. REQUIRES:
  // check_interval > 0.
  bool checked_by_workers = false;
  // checked_by_workers only. true (BullMQ's 'stalled-check' key): a try runs the check only
  // if none ran in the last check_interval, whichever worker ran it; false (kombu's
  // restore_visible, in each worker's own event loop): every try runs it.
  bool one_check_across_workers = true;
  // checked_by_workers only. true (BullMQ's stalled set): a check takes back only the
  // expired jobs it saw active at the previous check with no renewal since, then marks every
  // active job; false (kombu): it takes back every expired job.
  bool seen_at_previous_check = true;
  // checked_by_workers only: the second try comes this long after the one at the worker's
  // start (0: check_interval). kombu counts one more call during the consumer's start-up, so
  // its every-10th-call restore first comes 90 s after the start, then every 100 s.
  Duration second_check_after = 0;
};

// A periodic sweep that takes back jobs held too long, whatever their holder (River's
// JobRescuer, Oban's Lifeline): a holder still running the job makes it a duplicate.
struct Rescuer {
  bool enabled = false;
  Duration interval = 30 * kSecond;  // sweeps at multiples of this from t=0; REQUIRES: > 0
  Duration after = kHour;            // rescues active jobs fetched at least this long ago
  // true: through the retry policy (River: retryable, the attempt counts); false: available
  // at once (Oban Lifeline). Either way discarded when attempts are used up (error "rescued").
  bool backoff = false;
};

// A job taken back from a dead or departed holder (heartbeat detection, a deregister) counts
// a crash, apart from its attempts, which it gives back (Ductwork 1.0's Execution#crashed!):
// it is available again at once for its first `immediate` crashes, then `step` x its crash
// count later, and its crash after the `max`-th fails it for good (error worker_death).
struct CrashCount {
  bool enabled = false;
  int max = 10;                  // job_worker.max_crash
  int immediate = 3;             // max_crash / 3
  Duration step = 10 * kSecond;  // FAILED_EXECUTION_TIMEOUT
};

constexpr std::array<std::string_view, 3> names(LeaseExpiry::Fate) {
  return {"requeue", "retry", "stall"};
}

// Where a fetched job lives until its holder acknowledges it.
enum class FetchMode : std::uint8_t {
  // The backend keeps the job until ack/fail; recovery is by the mechanisms above (OJS).
  kReliable,
  // The job leaves the store when fetched and lives only in the process: when the holding
  // process ends (killed or exits) with it, it is lost (Sidekiq BasicFetch, Celery early
  // ack). A clean deregister leaves held jobs with the process: the worker must requeue
  // them first.
  kAtMostOnce,
  // Sidekiq Pro super_fetch: fetched jobs are parked in a per-process list; they come back
  // only when some process starts (register_worker), at most once per `cleanup_interval`,
  // and only from processes whose last heartbeat is at least `process_ttl` old. A clean
  // deregister pushes the worker's parked jobs back to the queue.
  kPrivateList,
  // As kReliable until the worker starts the job, then as kAtMostOnce: the job leaves the
  // store and its lease when it starts (Celery's early ack, sent as a pool child takes the
  // task: Request.on_accepted), so a job fetched ahead and not started comes back by the
  // lease or at disconnect, and a started one dies with its process.
  kUntilStarted,
};
constexpr std::array<std::string_view, 4> names(FetchMode) {
  return {"reliable", "at_most_once", "private_list", "until_started"};
}

// Which report of a job's end (an ACK, or a FAIL) the backend takes; a report it refuses is
// recorded as rejected and changes nothing (docs/profiles.md, "Completion fence").
enum class CompletionFence : std::uint8_t {
  // Only the run holding the job's current lease: once a recovery has handed the job to
  // another run, the old run is told no (OJS, BullMQ's lock token, Temporal's attempt in
  // the task token, graphile-worker's FAIL by locked_by).
  kLease,
  // Any run of the job, while the backend keeps it unfinished, wherever it waits (Oban:
  // UPDATE ... WHERE id; graphile-worker's completion, a DELETE by id; pg-boss's FAIL): the
  // job leaves its queue, its backoff or its current holder.
  kJobId,
  // Any run of the job while some worker holds it (River: the row is `running`; Celery on
  // Redis: the delivery tag is in the unacked hash; Faktory: the jid is reserved; pg-boss's
  // completion: state = 'active'); refused while it waits to run again.
  kJobIdWhileActive,
};
constexpr std::array<std::string_view, 3> names(CompletionFence) {
  return {"lease", "job_id", "job_id_while_active"};
}

// How a job that becomes available reaches the workers waiting for one (each waiting worker
// holds one place per queue in its wait list, oldest first).
enum class Dispatch : std::uint8_t {
  // The store hands the job at once to the worker that has waited longest (Redis BRPOP and
  // BZPOPMIN serve the longest-blocked client; Faktory's and Temporal's long polls alike). A
  // worker that was not waiting, such as one that just finished a job and must make a round
  // trip to fetch again, never takes it from a waiting one.
  kLongestWaiting,
  // Waiting workers race for it and one of them, drawn at random, wins (Postgres: NOTIFY
  // wakes the pollers, SELECT ... FOR UPDATE SKIP LOCKED lets one have it).
  kRandomWaiter,
  // Nobody is woken: a waiting worker finds it at its next poll (pg-boss polls every
  // newJobCheckInterval, 2 s, and listens for nothing).
  kPoll,
};
constexpr std::array<std::string_view, 3> names(Dispatch) {
  return {"longest_waiting", "random_waiter", "poll"};
}

struct BackendMechanisms {
  bool heartbeat_detection = true;  // dead worker after heartbeat_timeout (OJS)
  Dispatch dispatch = Dispatch::kLongestWaiting;
  CompletionFence ack_fence = CompletionFence::kLease;
  CompletionFence fail_fence = CompletionFence::kLease;
  LeaseExpiry lease;
  Rescuer rescuer;
  CrashCount crashes;
  FetchMode fetch = FetchMode::kReliable;
  // kReliable: when a worker's process ends, every job it still holds goes back to the front
  // of its queue at once, its attempt given back (RabbitMQ requeues a consumer's unacked
  // deliveries when its connection closes).
  bool returns_on_disconnect = false;
  // A killed process's blocked fetchers stay registered with the store this long, until
  // the kernel tears the process down: a job pushed meanwhile is handed to the dead process
  // (lost under kAtMostOnce). Sidekiq OSS on Redis: a few ms (BRPOP clients). 0: none.
  Duration teardown_window = 0;
  Duration cleanup_interval = kMinute;  // kPrivateList
  Duration process_ttl = 60 * kSecond;  // kPrivateList
  // A retry that comes due waits in the scheduled set until a process's poller moves it to
  // its queue (Sidekiq's Scheduled::Poller, scheduled.rb). Each live process that reports
  // running polls first `poll_initial_wait` + U(0, `poll_initial_jitter`) after it
  // registers, then every U(A/2, 3A/2) (U(0, A) with 10 or more live processes), A being
  // `poll_per_process` x the live processes at its first poll, kept from then on (6.4
  // memoizes it). A process that stopped running polls no more. 0: a retry is available
  // the moment it comes due.
  Duration poll_per_process = 0;
  Duration poll_initial_wait = 10 * kSecond;
  Duration poll_initial_jitter = 5 * kSecond;
};

}  // namespace drainsim
