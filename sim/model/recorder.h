// The Recorder sees every observable event of a run: job state changes from the backend,
// attempts from worker processes, pod changes and signals from the platform. It keeps a
// ledger entry per live job (freed once the job is done, so memory follows the jobs in
// flight, not the jobs finished), folds finished jobs into the metrics, makes the
// timeline's records when asked (model/timeline.h), and runs the conservation audit. Not
// thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/job.h"
#include "base/names.h"
#include "base/pod_state.h"
#include "base/slab.h"
#include "base/stats.h"
#include "model/causes.h"
#include "model/load.h"
#include "model/scenario.h"
#include "model/timeline.h"
#include "model/warning.h"

namespace drainsim {

// What the audit asks of the backend at the end of a run.
class BackendView {
 public:
  // The state of the job the backend keeps in `handle`, nullopt if it has no such job.
  virtual std::optional<JobState> job_state(std::uint32_t handle, JobId id) const = 0;
  virtual std::size_t live_jobs() const = 0;

 protected:
  ~BackendView() = default;
};

struct JobTotals {
  std::int64_t enqueued = 0, completed = 0, discarded = 0, discarded_by_shutdown = 0, pending = 0,
               lost = 0, stuck_at_end = 0, interrupted = 0, duplicate_executions = 0,
               shutdown_retries = 0, redeliveries = 0, completions_rejected = 0, rejected_fails = 0,
               pushes_refused = 0;  // not jobs: a refused push creates none
  std::int64_t attempts[6] = {};    // by Outcome
  Duration wasted_work = 0;
};

struct AuditResult {
  bool ok = true;
  std::vector<std::string> errors;  // the first few, each naming its job
  std::int64_t error_count = 0;
};

class Recorder {
 public:
  // Makes the timeline when `timeline`: hands its records to `sink` when given (it must
  // outlive the recorder), keeps them in memory otherwise (the accessors, take_timeline).
  explicit Recorder(bool timeline, TimelineSink* sink = nullptr);
  Recorder(const Recorder&) = delete;  // the sink may be its own memory
  Recorder& operator=(const Recorder&) = delete;

  // Whether a job made available after an orphaning (job_available) is an orphan-recovery
  // sample (on by default). The real engine turns it off for a system that cannot say
  // when it makes a job available again: the metric is then not measured at all, rather
  // than measured as something else.
  void count_recovery(bool on) { count_recovery_ = on; }

  // --- from the backend; `ledger` is what job_enqueued returned.
  std::uint32_t job_enqueued(JobId id, Time now, std::uint32_t backend_handle);
  void job_available(std::uint32_t ledger, Time now);
  void job_scheduled(std::uint32_t ledger, Time now);
  void job_claimed(std::uint32_t ledger, Time now);
  void job_completed(std::uint32_t ledger, Time now);
  // `progress` is work checkpointed and now never reused.
  void job_discarded(std::uint32_t ledger, Time now, ErrorKind cause, Duration progress);
  // A recovery mechanism (dead worker, lease expiry, stall check, rescuer, private-list
  // cleanup) took the job from its holder, or the holder handed it back unfinished
  // (requeue). Its next execution counts as a shutdown retry when the run that held it had
  // ended (interrupted, killed, abandoned), as a redelivery when it was still running.
  void job_recovered(std::uint32_t ledger, Time now);
  // A job gone from the backend by design (e.g. at-most-once fetch); `why` names the
  // event that lost it, `pod` the pod whose process held it (-1: unknown).
  void job_lost(std::uint32_t ledger, Time now, std::string why, int pod = -1);
  void report_rejected(std::uint32_t ledger, bool ack);
  // A push the backend refused (a singleton class's key was taken): no job was created.
  void push_refused();

  // --- from worker processes
  // A report of an attempt whose job the ledger has settled already (completed,
  // discarded or lost, its entry freed, perhaps reused by another job) is a late report:
  // on a real-time engine a worker's start or end can reach the models after a recovery
  // settled the job. It changes nothing but late_reports(), so no job gets a second fate;
  // finish() warns `late_reports` when there were any.
  void attempt_started(const Lease& lease, Time now);
  // `saved` is the work this attempt checkpointed.
  void attempt_ended(const Lease& lease, const AttemptRecord& record, Duration saved);
  std::int64_t late_reports() const { return late_reports_; }

  // --- from the platform
  // The event acting on `pod` from `at` on (model/causes.h); kNoCause when a new process
  // starts in it.
  void pod_cause(int pod, Time at, CauseId cause) { pod_causes_.mark(pod, at, cause); }
  // (timeline only)
  void pod_state(Time now, int pod, PodState state);
  void signal(Time now, int pod, Signal signal, bool delivered, const char* source);
  void remaining(Time now, int pod, WorkerId worker, int remaining);
  // A warning with its stable code (model/warning.h) and no figures.
  void warning(std::string code, std::string message) {
    warnings_.push_back({std::move(code), std::move(message), {}});
  }
  void warning(Warning w) { warnings_.push_back(std::move(w)); }
  // As warning(), unless a warning with this code was given already.
  void warning_once(std::string code, std::string message) {
    for (const Warning& w : warnings_) {
      if (w.code == code) return;
    }
    warning(std::move(code), std::move(message));
  }
  // An imbalance found outside the recorder (a real broker's word against the attempts):
  // fails the audit, naming its job.
  void audit_error(std::string text);

  // --- from worker processes (timeline only): heartbeats sent and job reports made
  void heartbeat(Time now, int pod, WorkerId worker, Directive state);
  void report(const ReportRecord& record) {
    if (sink_ != nullptr) add_report(record);  // inline: no call without the timeline
  }

  // Ends the run: classifies the jobs still in the ledger against the backend and
  // audits the whole run, and hands the timeline's last series point to its sink. Call
  // once.
  AuditResult finish(const BackendView& backend);

  const JobTotals& totals() const { return totals_; }
  const Percentiles& job_latency() const { return job_latency_; }
  // From the end of an attempt that left its job (interrupted, killed, abandoned) to the
  // job's being available again: every such return; those the worker handed back itself
  // (its attempt interrupted: a requeue, a FAIL at the deadline, a cancelled body's FAIL);
  // those the backend recovered (killed or abandoned: dead-worker detection, lease expiry,
  // a rescuer, a redelivery on disconnect).
  const Percentiles& orphan_recovery() const { return orphan_recovery_; }
  const Percentiles& requeues() const { return requeue_; }
  const Percentiles& backend_recoveries() const { return backend_recovery_; }
  // The jobs' figures by CauseId (model/causes.h); complete after finish().
  const std::vector<CauseCounts>& cause_counts() const { return cause_counts_; }
  bool timeline() const { return sink_ != nullptr; }
  // The records kept in memory (none when they go to a sink). The series lacks its
  // latest instant until finish().
  const std::vector<AttemptRecord>& attempts() const { return memory_.attempts; }
  const std::vector<PodStateRecord>& pod_states() const { return memory_.pod_states; }
  const std::vector<SignalRecord>& signals() const { return memory_.signals; }
  const std::vector<RemainingRecord>& remaining_log() const { return memory_.remaining; }
  const std::vector<SeriesPoint>& series() const { return memory_.series; }
  const std::vector<HeartbeatRecord>& heartbeats() const { return memory_.heartbeats; }
  const std::vector<ReportRecord>& reports() const { return memory_.reports; }
  // Moves the records kept in memory out; the accessors above are empty afterwards.
  Timeline take_timeline();
  const std::vector<Warning>& warnings() const { return warnings_; }
  // Watch the queue's depth over the arrival window [0, arrivals_end) (model/load.h).
  void watch_queue(Time arrivals_end) { queue_ = QueueWatch(arrivals_end); }
  const QueueWatch& queue() const { return queue_; }
  std::int64_t in_flight() const { return in_flight_; }

 private:
  struct Entry {
    JobId id = 0;
    Time enqueued = 0;
    Time orphaned_at = -1;      // end of the last killed/abandoned/interrupted attempt, or -1
    Time first_completed = -1;  // -1 until an attempt completes (counted only if the backend
                                // accepts a completion)
    Duration saved = 0;         // progress checkpointed by its attempts so far
    std::uint32_t backend_handle = 0;
    std::uint16_t completed_attempts = 0;
    std::uint16_t open_attempts = 0;
    std::uint32_t current_claim = 0;    // Lease::claim of the latest execution
    CauseId cause = kNoCause;           // the event of its latest trouble (model/causes.h)
    CauseId interrupted_by = kNoCause;  // the event of its first interruption
    JobState state = JobState::kScheduled;
    bool live = true;
    bool interrupted = false;         // some attempt was interrupted, killed or abandoned
    bool holder_running = false;      // the run of the latest claim has started and not ended
    bool claim_ran = false;           // the run of the latest claim has started (a job fetched
                                      // ahead and recovered unstarted is not retried by its
                                      // next run)
    bool shutdown_retry_due = false;  // the next execution is caused by a shutdown or a kill
    bool redelivery_due = false;      // ... by a recovery while its holder still ran it
    bool discarded_by_shutdown = false;
    bool lost = false;
    bool handed_back = false;  // the attempt that left it was interrupted (the worker's word)
  };

  Entry& entry(std::uint32_t ledger) { return entries_[ledger]; }
  // Whether the lease's job is no longer in the ledger (counted as a late report).
  bool settled(const Lease& lease);
  void set_state(Entry& e, JobState s, Time now);
  void maybe_finalize(std::uint32_t ledger);
  void count_job(const Entry& e);
  CauseCounts& counts_of(CauseId cause);
  void release(std::uint32_t ledger);
  // Inline, so that a run without the timeline pays a test, not a call, at every change.
  void sample_series(Time now) {
    if (sink_ != nullptr) add_series_point(now);
  }
  void add_series_point(Time now);
  void add_report(const ReportRecord& record);
  void flush_series();

  Timeline memory_;            // the records, when kept in memory
  TimelineSink* sink_;         // where the records go: &memory_, another sink, or null (none)
  SeriesPoint series_last_{};  // the latest series point, not yet handed to the sink
  bool series_pending_ = false;
  Slab<Entry> entries_;
  std::unordered_map<std::uint32_t, std::string> lost_reasons_;  // by ledger slot (rare)
  JobTotals totals_;
  Percentiles job_latency_;
  Percentiles orphan_recovery_;
  Percentiles requeue_, backend_recovery_;
  PodCauses pod_causes_;
  std::vector<CauseCounts> cause_counts_;
  bool count_recovery_ = true;
  std::int64_t queued_ = 0, scheduled_ = 0, in_flight_ = 0;
  std::vector<Warning> warnings_;
  QueueWatch queue_;
  AuditResult audit_;
  std::int64_t late_reports_ = 0;
};

}  // namespace drainsim
