// In-process job store with Open Job Spec semantics: named queues; enqueue; fetch with an
// atomic claim and a lease (visibility timeout); ack; fail with an error kind and a
// retryable flag through the retry policy (exponential backoff with jitter, cap, then
// discarded); requeue at shutdown; heartbeats that renew the listed jobs' leases and answer
// with a directive; a worker registry. Which recovery mechanisms run is the profile's choice
// (BackendMechanisms, backend_mechanisms.h): dead-worker detection after heartbeat_timeout;
// lease expiry at its deadline or found by a periodic check, with a requeue, retry or stall
// fate; a rescuer sweep; at-most-once fetch; private reservation lists recovered when a
// process starts.
//
// An ack or fail is taken as the profile's fences say (lease holder, job id, or job id while
// held); a requeue only from the lease holder; a report refused is recorded. A singleton
// class's push is refused while a job of its class is unfinished. Job
// records are freed as soon as a job completes, is discarded or is lost. Periodic sweeps are timers
// that exist only while some job is active. Event-driven: time and randomness come from the
// Runtime. Not thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <queue>
#include <span>
#include <string>
#include <vector>

#include "base/job.h"
#include "base/slab.h"
#include "engine/runtime.h"
#include "model/backend_faults.h"
#include "model/backend_mechanisms.h"
#include "model/recorder.h"
#include "model/scenario.h"

namespace drainsim {

// How a worker hears that jobs became available while it waits (a long-poll answering).
// Implementations must not call back into the backend from inside this call.
class WorkerListener {
 public:
  virtual void on_jobs_available() = 0;

 protected:
  ~WorkerListener() = default;
};

class Backend final : public TimerTarget, public BackendView {
 public:
  Backend(Runtime& runtime, const BackendConfig& config, BackendMechanisms mechanisms,
          Recorder& recorder, BackendFaults faults = {});

  // The index of a named queue, created on first use.
  int queue(const std::string& name);

  // Creates the job, available at the back of the queue. A job of a singleton class
  // (BackendConfig::singleton) while another of its class is unfinished (queued, waiting
  // out a backoff, or held by any worker, alive or dead) is refused: no job is created, the
  // refusal is recorded, and the result is nullopt.
  std::optional<JobId> enqueue(int queue, const JobSpec& spec);

  // A new worker id for a process start; its queues in priority order. Under
  // FetchMode::kPrivateList the start also runs the dead-process cleanup when none ran in
  // the last `cleanup_interval`: every job parked by a worker whose last heartbeat (or
  // registration) is at least `process_ttl` old goes back to the end of its queue at once,
  // its attempt given back. `pod` is where its process runs (loss by cause), -1 if none.
  WorkerId register_worker(std::span<const int> queues, WorkerListener* listener, int pod = -1);
  // A clean goodbye: the worker is no longer watched. Jobs it still holds: kReliable,
  // requeued as if it had died (error worker_death, the attempt counts); kPrivateList,
  // pushed back to the end of their queues with the attempt given back, so the worker
  // holds nothing; kAtMostOnce, left with the process (lost at process_ended); kUntilStarted,
  // as kReliable for the jobs not started, the started ones left with the process.
  void deregister(WorkerId worker);
  // The worker's process is gone (killed, or exited for any reason); call it after any
  // deregister and before cancel_wait. A waiting worker's long-poll lingers for
  // mechanisms.teardown_window: a job made available meanwhile is handed to it. kAtMostOnce: every
  // job the worker still holds is lost (recorded with the worker named) and freed; so is every
  // started one under kUntilStarted, whose others are as under kReliable. kPrivateList:
  // its jobs stay parked for a later cleanup. kReliable: nothing (dead-worker detection, lease
  // expiry or a rescuer bring jobs back; with mechanisms.returns_on_disconnect, back at once).
  void process_ended(WorkerId worker);

  // Appends to `out` the jobs handed to the worker while it waited, then claims more, in
  // queue priority order, up to `count` in all. A quiet, terminating, dead or deregistered
  // worker gets no more than was handed to it; a handed job beyond `count` goes back.
  void fetch(WorkerId worker, int count, std::vector<Lease>& out);
  // A long-poll: the worker waits for a job in its queues. As mechanisms.dispatch says, a
  // job that becomes available is handed to the worker that waited longest, or to a waiting
  // one drawn at random (claimed for it at once; its next fetch collects it), and the
  // worker is told once; under Dispatch::kPoll nobody waits. The wait ends when the worker
  // is handed a job, fetches, cancels it, stops running (quiet, terminating) or dies. Each
  // worker holds at most one place per queue. REQUIRES: the worker has at most 64 queues.
  // `reissue` > 0: the wait is a blocking fetch that times out and is sent again every
  // `reissue` from now (kombu's 1 s BRPOP on Redis). Redis serves the client whose current
  // BRPOP began first, so under kLongestWaiting such a worker ranks by when its current
  // fetch began (a stopped worker's late fetch: when the one still blocked began), not by
  // when it began to wait; a worker with none ranks by when it took its place.
  void wait_for_jobs(WorkerId worker, Duration reissue = 0);
  // Whether a fetch by the worker now would get a job.
  bool has_jobs_for(WorkerId worker) const;
  // The worker no longer waits (it went quiet, or its process died and its long-poll
  // connection with it). A job handed to a live worker that it has not fetched goes back to
  // the front of its queue, its attempt given back. `late`: when the fetches the worker
  // still has blocked in the store return, soonest first (ShutdownBehaviour::late_fetch);
  // while one has not, the worker keeps its places in the wait lists though it takes no
  // jobs, and a job offered to it is handed to the soonest of them (one job each) and the
  // worker told, as to a waiting worker; its next fetch collects the job, whose attempt
  // counts as at any claim. Cleared at deregister, at process_ended and by the next call.
  void cancel_wait(WorkerId worker, std::span<const Time> late = {});

  // True when accepted; false when the completion fence refuses it.
  bool ack(WorkerId worker, const Lease& lease);
  // `progress` is the work checkpointed so far (kept for the next attempt).
  bool fail(WorkerId worker, const Lease& lease, ErrorKind error, bool retryable,
            Duration progress);
  // The worker hands an unfinished job back at shutdown without it counting as an attempt
  // (Sidekiq's requeue at the shutdown deadline; Celery acks_late restore): available at
  // once, at the front of its queue when `front` (else the back); its next fetch carries
  // the same attempt number, and its next execution counts as a shutdown retry. As with ack
  // and fail, report the attempt's end to the recorder first. True when accepted; false
  // (recorded as a rejected fail) when the worker no longer holds the lease.
  bool requeue(WorkerId worker, const Lease& lease, bool front);
  // The worker started the job. FetchMode::kUntilStarted: it leaves the store's recovery
  // (no lease, no rescue) and lives only in the process; otherwise nothing.
  void started(WorkerId worker, const Lease& lease);
  // The worker hands back a job it fetched ahead and never started: to the front of its
  // queue, its attempt given back. Nothing when it no longer holds the lease.
  void release(WorkerId worker, const Lease& lease);
  // The worker keeps a job a late fetch took and never runs it (ShutdownBehaviour::
  // late_fetch): out of the store's recovery, lost (recorded with the worker named) when its
  // process ends; under kPrivateList it stays parked for a later cleanup. Nothing when the
  // worker no longer holds the lease.
  void strand(WorkerId worker, const Lease& lease);

  // Records a heartbeat in `state` ("running", "quiet", "terminate"), renews the leases
  // of `active` that the worker holds (when lease.renewed_by_heartbeat), and answers with
  // the directive for the worker. A worker no longer running gives back the jobs handed to
  // it that it has not fetched (as cancel_wait).
  Directive heartbeat(WorkerId worker, Directive state, std::span<const Lease> active);
  // Answers the worker's following heartbeats with `directive` (directives only escalate).
  void set_directive(WorkerId worker, Directive directive);

  // Stores progress checkpointed by a running attempt.
  void checkpoint(const Lease& lease, Duration progress);

  // Jobs queued, waiting out a backoff, or active.
  std::size_t unfinished() const { return jobs_.live(); }
  std::size_t live_jobs() const override { return jobs_.live(); }
  std::optional<JobState> job_state(std::uint32_t handle, JobId id) const override;
  // Places held in all queues' wait lists (for tests: bounded by workers x queues).
  std::size_t wait_list_size() const;

  void on_timer(std::uint32_t tag, std::uint64_t arg) override;

 private:
  static constexpr std::uint32_t kNil = UINT32_MAX;  // no job: the end of an active list
  enum Tag : std::uint32_t {
    kLeaseExpiry,
    kWorkerDeadline,
    kRetryDue,
    kLeaseSweep,
    kRescueSweep,
    kWorkerCheck,  // LeaseExpiry::checked_by_workers: a worker's try
    kUnlock,       // a serial class's lock was released: offer its next job
    kLeaseDue,     // the earliest listed lease deadline (lease_due_)
    kPoll,         // BackendMechanisms::poll_per_process: a process's scheduled-set poll
  };
  enum class WorkerStatus : std::uint8_t { kAlive, kDead, kGone };

  struct Job {
    JobId id;
    JobSpec spec;
    Time lease_deadline;
    Time fetched_at;
    Duration progress;
    TimerId timer;  // lease expiry while active, retry promotion while scheduled
    std::uint32_t ledger;
    std::uint32_t prev, next;  // the holder's list of active jobs, or the free list
    WorkerId holder;
    int attempt;
    std::uint32_t claims;  // fetches so far (Lease::claim of the latest)
    int stalls;            // LeaseExpiry::Fate::kStall
    int crashes;           // CrashCount
    bool marked;           // LeaseExpiry::checked_by_workers: seen active at the last check
    std::int16_t queue;
    JobState state;
    bool live;
    bool in_process;  // FetchMode::kUntilStarted: started, out of the store's recovery
    bool stranded;    // strand(): kept unrun by its holder, out of the store's recovery
  };
  // A claim's lease deadline, due in the place its own timer would have taken. Listed while
  // lease_ticket_[handle] is its ticket.
  struct LeaseDue {
    Time at;
    std::uint64_t place;
    std::uint64_t ticket;
    std::uint32_t handle;
  };
  // A registered worker; the defaults are its state at registration.
  struct Worker {
    std::uint32_t queues_at = 0;  // its queues: worker_queues_[queues_at, + queue_count)
    std::uint32_t queue_count = 0;
    WorkerListener* listener = nullptr;
    int pod = -1;
    Time last_heartbeat = 0;
    TimerId deadline;
    TimerId check;              // LeaseExpiry::checked_by_workers: its next try
    TimerId poll;               // poll_per_process: its poller's next look at the scheduled set
    Duration poll_average = 0;  // its poller's A, fixed at its first poll; 0: not yet
    std::uint32_t active_head = kNil;
    std::uint64_t listed = 0;  // bit i: has a place in the wait list of queues[i]
    Directive directive = Directive::kRunning;
    Directive reported = Directive::kRunning;
    WorkerStatus status = WorkerStatus::kAlive;
    bool waiting = false;
    Time teardown_until = -1;   // -1 while its process lives; then its long-poll lingers until
    std::vector<Lease> handed;  // while it waited, not yet fetched
    std::vector<Time> late;     // cancel_wait's late fetches not yet returned or used
    bool late_handed = false;   // a late fetch was handed a job since cancel_wait
    Time wait_since = 0;        // its wait began (wait_for_jobs)
    Duration reissue = 0;       // wait_for_jobs's: its blocking fetch is sent again this often
  };
  struct Waiter {
    WorkerId worker;
    std::uint32_t index;  // of the queue in the worker's queues
    Time listed_at;
  };
  struct Queue {
    std::string name;
    std::deque<std::uint32_t> available;  // job handles, front first
    std::deque<Waiter> waiting;
  };

  std::span<const int> queues_of(const Worker& w) const {
    return {worker_queues_.data() + w.queues_at, w.queue_count};
  }
  bool holds(WorkerId worker, const Lease& lease) const;
  // Writes the job's lease in place, field by field (a Lease built and then copied whole
  // stalls on store forwarding).
  void lease_of(std::uint32_t handle, Lease& out) const;
  // Whether `fence` takes the worker's report of the lease's job.
  bool accepts(CompletionFence fence, WorkerId worker, const Lease& lease) const;
  // Takes an accepted report's job out of wherever it is (a holder, the queue, a backoff).
  void withdraw(std::uint32_t handle);
  // The store keeps fetched jobs and recovers them (FetchMode::kReliable, kUntilStarted).
  bool reliable() const {
    return mechanisms_.fetch == FetchMode::kReliable ||
           mechanisms_.fetch == FetchMode::kUntilStarted;
  }
  // Hands the job (out of its queue) to the worker: active, attempt and claim counted,
  // leased, on the worker's list.
  void claim(std::uint32_t handle, WorkerId worker);
  void make_available(std::uint32_t handle, bool front);
  // The available job to a waiting worker, as mechanisms.dispatch says (none for a locked
  // job, or under Dispatch::kPoll).
  void offer(std::uint32_t handle);
  // Out of the available list of its queue.
  void unqueue(std::uint32_t handle);
  // A job of a serial class while another of its class is held (BackendConfig::serial).
  bool locked(const Job& job) const {
    return config_.serial(job.spec.job_class) && class_held_[job.spec.job_class] > 0;
  }
  // The first available job of `job_class`, handed to a waiter as make_available does: its
  // class's lock was just released.
  void offer_next(std::uint16_t job_class);
  // The next waiter of the queue that mechanisms.dispatch serves, out of the wait list.
  std::optional<Waiter> next_waiter(Queue& q);
  // The available job goes to the waiting worker: claimed for it, collected at its next
  // fetch. A dead process's lingering long-poll (mechanisms.teardown_window) takes it too.
  void hand(std::uint32_t handle, WorkerId worker);
  // A handed job its worker stopped waiting for: back to the front, attempt given back.
  void give_back(std::uint32_t handle);
  // Every job handed to the live worker that it still holds unfetched.
  void give_back_handed(WorkerId worker);
  // Lease expiry at the deadline (LeaseExpiry::check_interval 0) has a timer per claim in
  // effect: every claim's deadline is the claim's time plus the visibility timeout, so
  // they come in order, and one timer (lease_timer_) is armed at the earliest still
  // listed, in the place its claim reserved. Equal to a timer per claim, event for event,
  // without scheduling and cancelling one for every job.
  bool lease_timers() const {
    return reliable() && mechanisms_.lease.enabled && mechanisms_.lease.check_interval == 0;
  }
  bool listed(const LeaseDue& due) const { return lease_ticket_[due.handle] == due.ticket; }
  void list_lease(std::uint32_t handle);
  void unlist_lease(std::uint32_t handle);
  void arm_lease_timer();                   // at the earliest listed deadline, unless armed
  void on_lease_due(std::uint32_t handle);  // a lease timer fired
  void detach(std::uint32_t handle);        // from its holder's active list
  void take_back(std::uint32_t handle);     // detach and cancel its lease timer
  void finish(std::uint32_t handle);        // free the record (and its singleton key)
  void discard(std::uint32_t handle, ErrorKind why);
  // A FAIL's fate (the job already taken back): a retry after backoff, or discarded when
  // not retryable or its attempts are used up.
  void retry_or_discard(std::uint32_t handle, ErrorKind error, bool retryable);
  // The job (taken back) is fetchable again after `delay`: at once when it is 0 and no
  // poller moves retries, else scheduled, for its timer or the pollers
  // (BackendMechanisms::poll_per_process).
  void available_after(std::uint32_t handle, Duration delay);
  // A job taken back from a dead or departed holder under CrashCount: its attempt given
  // back, available again at once or after its crash backoff, or discarded. REQUIRES: taken
  // back (take_back) and recorded as recovered.
  void crashed(std::uint32_t handle);
  // Takes the job from its holder for a recovery: back to available with no backoff, or
  // discarded with `why` when the attempt counts and attempts are used up. When it does
  // not count, the attempt is given back. Under CrashCount a worker death is a crash
  // (crashed) instead.
  void recover(std::uint32_t handle, ErrorKind why, bool counts_attempt = true, bool front = false);
  void expire_lease(std::uint32_t handle);  // LeaseExpiry::fate
  void rescue(std::uint32_t handle);        // Rescuer
  void worker_died(WorkerId worker);
  // Recovers (error worker_death) every job the worker holds that is not in its process.
  void recover_held(WorkerId worker);
  void arm_deadline(WorkerId worker);
  void clean_up_parked();  // FetchMode::kPrivateList, at a process start
  // LeaseExpiry::token_lapses_with_lease: the job's lease has lapsed and its token with it.
  bool token_gone(const Job& job) const {
    return mechanisms_.lease.token_lapses_with_lease && job.lease_deadline <= rt_.now();
  }
  // LeaseExpiry::checked_by_workers: a worker's try; `first`: the one at its start.
  void worker_check(WorkerId worker, bool first = false);
  // poll_per_process: a process's poller moves the retries due to their queues and looks
  // again later (or stops, once its process has stopped running).
  void poll_scheduled(WorkerId worker);
  // The delay before the retry of a job that has run `attempt` times.
  Duration retry_delay(const RetryPolicy& retry, int attempt);
  void check_leases();  // the check itself
  // Arms the periodic sweeps the mechanisms have while a job is active.
  void arm_sweeps() {
    if (sweeps_ && active_ > 0) arm_sweep_timers();
  }
  void arm_sweep_timers();
  Time next_tick(Duration interval) const { return (rt_.now() / interval + 1) * interval; }
  // The worker stopped fetching but a fetch of its is still blocked (cancel_wait's `late`).
  bool late_fetching(const Worker& w) const {
    return w.status == WorkerStatus::kAlive && !w.late.empty() && w.late.back() > rt_.now();
  }
  // Lists the worker's places in its queues' wait lists (those it does not hold yet).
  void list_places(WorkerId worker);
  // Under kLongestWaiting, when the waiter's claim to the next job began: when its current
  // blocking fetch was sent (Worker::reissue; a stopped worker's late fetch is the one it
  // sent last), else when it took its place.
  Time waiting_rank(const Waiter& x) const;
  bool takes_jobs(const Worker& w) const {
    return w.status == WorkerStatus::kAlive && w.directive == Directive::kRunning &&
           w.reported == Directive::kRunning;
  }

  Runtime& rt_;
  BackendConfig config_;
  BackendMechanisms mechanisms_;
  Recorder& recorder_;
  BackendFaults faults_;
  Slab<Job> jobs_;
  JobId next_id_ = 0;
  std::vector<Worker> workers_;
  // Every worker's queues, one after another: the few bytes each fetch reads stay in cache
  // (a vector per worker was a cache miss at every fetch).
  std::vector<int> worker_queues_;
  std::vector<Queue> queues_;
  std::size_t active_ = 0;                 // jobs held by workers
  std::vector<std::uint32_t> class_held_;  // held jobs per job class (serial classes)
  std::vector<std::uint32_t> class_live_;  // unfinished jobs per job class (singleton classes)
  bool sweeps_;                            // the mechanisms have a periodic sweep
  bool reissued_waits_ = false;            // a wait_for_jobs had a reissue > 0
  TimerId lease_sweep_;                    // LeaseExpiry::check_interval > 0
  TimerId rescue_sweep_;                   // Rescuer
  std::deque<LeaseDue> lease_due_;         // in claim order; unlisted ones dropped lazily
  // poll_per_process: retries waiting in the scheduled set, earliest due first; an entry
  // whose job is no longer scheduled under that id is dropped when seen.
  struct Due {
    Time at;
    JobId id;
    std::uint32_t handle;
    bool operator>(const Due& o) const { return at != o.at ? at > o.at : id > o.id; }
  };
  std::priority_queue<Due, std::vector<Due>, std::greater<Due>> scheduled_;
  // By job handle: the ticket of its listed lease, 0 when none. A few bytes a job, so the
  // test of whether an entry is listed reads no job record.
  std::vector<std::uint64_t> lease_ticket_;
  std::uint64_t tickets_ = 0;
  std::size_t leases_listed_ = 0;
  TimerId lease_timer_;     // at lease_due_.front(), which is listed
  Time last_cleanup_ = -1;  // FetchMode::kPrivateList; -1: none yet
  Time last_check_ = -1;    // LeaseExpiry::checked_by_workers; -1: none yet
};

}  // namespace drainsim
