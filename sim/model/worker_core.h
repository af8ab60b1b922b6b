// WorkerCore: one worker process's shutdown state machine, sans I/O.
// It is driven by events (signals, its timers, fetch replies, jobs finishing, heartbeat
// replies) and acts only through a WorkerPort and the Runtime's timers, so the same core
// runs in virtual time, on real threads, or inside a real process.
//
//   running ──TSTP/quiet directive──► quiet ──CONT──► running
//   running/quiet ──TERM/INT/terminate directive──► draining ──all done or grace──► stopped
//   draining ──second TERM/INT──► stopped (force stop: exit 1, jobs abandoned)
//
// With the OJS behaviour, at the grace deadline every active job is FAILed with
// ShutdownError (retryable), a final heartbeat says "terminate", the worker deregisters
// and exits 0, without waiting for job bodies to return. Heartbeats continue through
// quiet and drain; while draining the remaining count is logged every 5 s. Other
// implementations differ where WorkerConfig::shutdown says (shutdown_behaviour.h).
// Not thread-safe: one strand per worker.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <span>
#include <string_view>
#include <vector>

#include "base/job.h"
#include "base/names.h"
#include "engine/runtime.h"
#include "model/scenario.h"

namespace drainsim {

// kStarting: the process runs but its worker has not registered yet (real processes).
enum class WorkerState : std::uint8_t { kRunning, kQuiet, kDraining, kStopped, kStarting };
constexpr std::array<std::string_view, 5> names(WorkerState) {
  return {"running", "quiet", "draining", "stopped", "starting"};
}
inline const char* to_string(WorkerState v) { return name_of(v).data(); }

// What a finished job body reports.
// How a job body ended: by itself, failing, returning on cancellation, or with its pool
// child process killed (ShutdownBehaviour::child_lost says what follows).
enum class JobResult : std::uint8_t { kSucceeded, kFailed, kCancelled, kChildLost };

// The effects a WorkerCore asks for. Replies come back through the core's on_* methods
// and may arrive before the call returns (an in-process backend answers at once).
class WorkerPort {
 public:
  virtual void fetch(int count) = 0;  // reply: on_fetched
  virtual void wait_for_jobs() = 0;   // reply, later and at most once: on_jobs_available
  virtual void ack(int slot, const Lease& lease) = 0;
  virtual void fail(int slot, const Lease& lease, ErrorKind error, bool retryable) = 0;
  // Hands an unfinished job back to the front of its queue, no attempt counted.
  virtual void requeue(int slot, const Lease& lease) = 0;
  // Hands a job fetched ahead and never started back to the front of its queue, its
  // attempt given back (ShutdownBehaviour::reserve_per_slot).
  virtual void release(const Lease& lease) = 0;
  // A job that a fetch still blocked after the worker stopped fetching took, and that the
  // worker keeps and never runs (ShutdownBehaviour::late_fetch): it dies with the process.
  virtual void keep(const Lease& lease) = 0;
  virtual void heartbeat(Directive state, std::span<const Lease> active) = 0;  // on_directive
  // Says goodbye: the backend takes back what the worker still holds. Bodies still running
  // end first, killed (ShutdownBehaviour::leave_deregisters kills its threads, then says it).
  virtual void deregister() = 0;
  virtual void start_job(int slot, const Lease& lease) = 0;  // reply: on_job_finished
  // Asks the job's body to stop. A cooperative body stops after its cancel latency
  // (reply: on_job_finished with kCancelled, unless it finishes first); an uncooperative
  // one runs on.
  virtual void cancel_job(int slot) = 0;
  // The slot lets go of its job while the body runs on (ShutdownBehaviour::
  // fails_at_lease_expiry): the body ends by itself later, reported to nobody, and the slot
  // may start another job at once. A fail() for the job follows.
  virtual void detach_job(int slot) = 0;
  virtual void state_changed(WorkerState state) = 0;
  virtual void log_remaining(int active) = 0;
  // The process ends; nothing is called after this. Bodies still running end with it as
  // `leftover` (abandoned, or killed when their threads are killed at exit). `code` is 0
  // (stopped), 1 (forced to stop) or 128 + n: it kills itself with signal n
  // (ShutdownBehaviour::exits_by_signal), the signal's default action ending it.
  virtual void exit(int code, Outcome leftover) = 0;

 protected:
  ~WorkerPort() = default;
};

class WorkerCore final : public TimerTarget {
 public:
  WorkerCore(Runtime& runtime, WorkerPort& port, const WorkerConfig& config);

  void start();
  // Returns false when the core has no handler for the signal (the process's default
  // action applies). SIGKILL never reaches the core.
  bool on_signal(Signal signal);
  void on_fetched(std::span<const Lease> leases);
  void on_jobs_available();
  void on_job_finished(int slot, JobResult result);
  void on_directive(Directive directive);
  // The process died under the core (SIGKILL): drop all timers, say nothing.
  void on_killed();

  WorkerState state() const { return state_; }
  int active() const { return active_; }
  int concurrency() const { return static_cast<int>(slots_.size()); }
  // Jobs fetched ahead, not started (ShutdownBehaviour::reserve_per_slot).
  int reserved() const { return reserve_.empty() ? 0 : static_cast<int>(reserve_.size()); }
  // The lease in a slot, nullptr when the slot is free.
  const Lease* lease(int slot) const;
  // When the fetches still blocked in the store since the worker stopped fetching return,
  // soonest first, those not yet returned: each may take one job before then
  // (ShutdownBehaviour::late_fetch). Empty while it runs, once stopped, or with kNone.
  std::vector<Time> late_fetches() const;

  void on_timer(std::uint32_t tag, std::uint64_t arg) override;

 private:
  enum Tag : std::uint32_t { kHeartbeat, kPoll, kGrace, kRemaining, kCancel, kFinish, kExpiry };

  void set_state(WorkerState s);
  // Starts reserved jobs in free slots, then fetches for the free slots and the reserve.
  void fill_slots();
  void start_in_free_slot(const Lease& lease);
  // The slot's job is no longer its (finished, failed, given up): the slot is idle.
  void free_slot(std::size_t slot);
  // After a slot went idle: the drain may be done, or the slot fetches again.
  void after_slot_freed();
  // The lease of the job in `slot` expired as fetched (fails_at_lease_expiry).
  void on_lease_expiry(std::size_t slot);
  // The process exits by itself: its reserved jobs go back (Celery restores its unacked
  // messages as its connection closes).
  void release_reserve();
  // A job a late fetch took while it no longer runs: handed back or kept (late_fetch).
  void late_fetched(const Lease& lease);
  // Jobs it may hold reserved: reserve_per_slot x concurrency, at most kNoReserveLimit.
  int reserve_limit() const { return reserve_limit_; }
  void enter_quiet();
  // The worker stops fetching: idle slots stop when their fetch in progress returns.
  void stop_idle_fetches();
  void begin_shutdown();
  void force_stop();
  void finish_shutdown();
  // The drain has no job left: finish now, or at the drain poll or idle fetch that ends it.
  void drain_done();
  void on_deadline();
  void cancel_all();
  void stop_timers();
  void send_heartbeat(Directive state);
  Directive reported_state() const;

  Runtime& rt_;
  WorkerPort& port_;
  WorkerConfig config_;
  WorkerState state_ = WorkerState::kRunning;
  std::vector<Lease> slots_;
  std::vector<std::uint8_t> busy_;  // per slot: 1 while it runs a job
  std::vector<Lease> scratch_;
  std::deque<Lease> reserve_;  // fetched ahead, oldest first
  int reserve_limit_;          // reserve_limit(), fixed by the config
  int active_ = 0;
  bool fetching_ = false;
  int terms_ = 0;                      // TERMs and INTs received
  Signal first_term_ = Signal::kTerm;  // the first of them
  Time first_term_at_ = 0;             // and when it came
  bool deadline_passed_ = false;       // the deadline action ran (kCancelAndWait waits on)
  TimerId heartbeat_, poll_, grace_, remaining_, cancel_, finish_;
  std::vector<Time> idle_since_;  // per slot: when it last went idle (its fetches count from)
  std::vector<Time> renewed_;     // per slot: its job's start or last listing in a heartbeat
  std::vector<TimerId> expiry_;   // per slot: its job's lease expiry (fails_at_lease_expiry)
  Time drain_start_ = 0;
  Time idle_release_ = 0;           // when the fetches in progress as it stopped fetching return
  std::vector<Time> late_fetches_;  // late_fetches(), as found when it stopped fetching
  bool waiting_ = false;            // it asked to wait for jobs and has not fetched since
  Time waiting_since_ = 0;
};

}  // namespace drainsim
