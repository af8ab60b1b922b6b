#include "model/recorder.h"

#include <fmt/format.h>

namespace drainsim {

namespace {
constexpr std::size_t kMaxAuditMessages = 20;

bool is_terminal(JobState s) { return s == JobState::kCompleted || s == JobState::kDiscarded; }
bool is_shutdown_outcome(Outcome o) {
  return o == Outcome::kInterrupted || o == Outcome::kKilled || o == Outcome::kAbandoned;
}
}  // namespace

Recorder::Recorder(bool timeline, TimelineSink* sink)
    : sink_(!timeline         ? nullptr
            : sink != nullptr ? sink
                              : &memory_) {}

std::uint32_t Recorder::job_enqueued(JobId id, Time now, std::uint32_t backend_handle) {
  const std::uint32_t slot = entries_.acquire();
  Entry& e = entries_[slot];
  e = Entry{};
  e.id = id;
  e.enqueued = now;
  e.backend_handle = backend_handle;
  ++totals_.enqueued;
  ++scheduled_;  // counted as not yet available until job_available moves it
  return slot;
}

void Recorder::set_state(Entry& e, JobState s, Time now) {
  auto adjust = [&](JobState st, int d) {
    if (st == JobState::kAvailable) queued_ += d;
    if (st == JobState::kScheduled) scheduled_ += d;
  };
  adjust(e.state, -1);
  e.state = s;
  adjust(s, +1);
  queue_.note(now, queued_);
  sample_series(now);
}

void Recorder::job_available(std::uint32_t ledger, Time now) {
  Entry& e = entry(ledger);
  if (e.orphaned_at >= 0) {
    if (count_recovery_) {
      const double delay = to_seconds(now - e.orphaned_at);
      orphan_recovery_.add(delay);
      (e.handed_back ? requeue_ : backend_recovery_).add(delay);
    }
    e.orphaned_at = -1;
  }
  set_state(e, JobState::kAvailable, now);
}

void Recorder::job_scheduled(std::uint32_t ledger, Time now) {
  set_state(entry(ledger), JobState::kScheduled, now);
}

void Recorder::job_claimed(std::uint32_t ledger, Time now) {
  Entry& e = entry(ledger);
  e.claim_ran = false;
  set_state(e, JobState::kActive, now);
}

void Recorder::job_completed(std::uint32_t ledger, Time now) {
  Entry& e = entry(ledger);
  set_state(e, JobState::kCompleted, now);
  if (e.completed_attempts == 0) {
    audit_error(
        fmt::format("job {}: the backend marked it completed at {} without a completed "
                    "attempt",
                    e.id, format_seconds(to_seconds(now))));
  }
  maybe_finalize(ledger);
}

void Recorder::job_discarded(std::uint32_t ledger, Time now, ErrorKind cause, Duration progress) {
  Entry& e = entry(ledger);
  set_state(e, JobState::kDiscarded, now);
  e.discarded_by_shutdown = cause != ErrorKind::kHandler;
  e.orphaned_at = -1;  // never recovered: not an orphan-recovery sample
  totals_.wasted_work += progress;
  maybe_finalize(ledger);
}

void Recorder::job_recovered(std::uint32_t ledger, Time /*now*/) {
  Entry& e = entry(ledger);
  if (!e.claim_ran) return;  // never started: its next run is its first for this claim
  (e.holder_running ? e.redelivery_due : e.shutdown_retry_due) = true;
}

void Recorder::job_lost(std::uint32_t ledger, Time now, std::string why, int pod) {
  Entry& e = entry(ledger);
  e.lost = true;
  if (pod >= 0) e.cause = pod_causes_.at(pod, now);
  lost_reasons_[ledger] = fmt::format("{} at {}", why, format_seconds(to_seconds(now)));
  maybe_finalize(ledger);
}

void Recorder::push_refused() { ++totals_.pushes_refused; }

void Recorder::report_rejected(std::uint32_t /*ledger*/, bool ack) {
  ++(ack ? totals_.completions_rejected : totals_.rejected_fails);
}

bool Recorder::settled(const Lease& lease) {
  const bool gone = lease.ledger >= entries_.size() || !entries_[lease.ledger].live ||
                    entries_[lease.ledger].id != lease.id;
  if (gone) ++late_reports_;
  return gone;
}

void Recorder::attempt_started(const Lease& lease, Time now) {
  if (settled(lease)) return;
  Entry& e = entry(lease.ledger);
  ++e.open_attempts;
  e.claim_ran = true;
  // A run that starts while another still runs the job (the real engine sees no recovery)
  // is a redelivery unless a shutdown or kill caused it.
  if (e.shutdown_retry_due) {
    ++totals_.shutdown_retries;
    ++counts_of(e.cause).shutdown_retries;
  } else if (e.redelivery_due || e.holder_running) {
    ++totals_.redeliveries;
  }
  e.shutdown_retry_due = e.redelivery_due = false;
  e.current_claim = lease.claim;
  e.holder_running = true;
  ++in_flight_;
  sample_series(now);
}

void Recorder::attempt_ended(const Lease& lease, const AttemptRecord& record, Duration saved) {
  if (settled(lease)) return;
  Entry& e = entry(lease.ledger);
  --e.open_attempts;
  --in_flight_;
  const bool latest = lease.claim == e.current_claim;
  if (latest) e.holder_running = false;
  ++totals_.attempts[static_cast<int>(record.outcome)];
  bool duplicate = false;
  if (record.outcome == Outcome::kCompleted) {
    duplicate = e.completed_attempts > 0;
    if (e.completed_attempts == 0) e.first_completed = record.end;
    ++e.completed_attempts;
  } else {
    totals_.wasted_work += (record.end - record.start) - saved;
    e.saved += saved;
  }
  if (is_shutdown_outcome(record.outcome)) {
    e.cause = pod_causes_.at(record.pod, record.end);
    if (!e.interrupted) e.interrupted_by = e.cause;
    e.interrupted = true;
    // Only the run that held the job causes its next one: a stale run (its lease already
    // recovered, the job requeued or running elsewhere) leaves nothing to retry or recover.
    if (latest) e.shutdown_retry_due = true;
    if (e.state == JobState::kActive && latest) {
      e.orphaned_at = record.end;
      e.handed_back = record.outcome == Outcome::kInterrupted;
    }
  }
  if (sink_) {
    AttemptRecord r = record;
    r.duplicate = duplicate;
    sink_->add(r);
  }
  sample_series(record.end);
  maybe_finalize(lease.ledger);
}

void Recorder::pod_state(Time now, int pod, PodState state) {
  if (sink_) sink_->add(PodStateRecord{now, pod, state});
}

void Recorder::signal(Time now, int pod, Signal sig, bool delivered, const char* source) {
  if (sink_) sink_->add(SignalRecord{now, pod, sig, delivered, source});
}

void Recorder::remaining(Time now, int pod, WorkerId worker, int count) {
  if (sink_) sink_->add(RemainingRecord{now, pod, worker, count});
}

void Recorder::add_series_point(Time now) {
  const SeriesPoint p{now, queued_, scheduled_, in_flight_};
  const SeriesPoint& last = series_last_;
  if (series_pending_ && last.at == now) {
    series_last_ = p;  // one point per instant: the state after it
  } else if (!series_pending_ || last.queued != p.queued || last.scheduled != p.scheduled ||
             last.in_flight != p.in_flight) {
    flush_series();
    series_last_ = p;
    series_pending_ = true;
  }
}

void Recorder::flush_series() {
  if (series_pending_) sink_->add(series_last_);
  series_pending_ = false;
}

void Recorder::maybe_finalize(std::uint32_t ledger) {
  Entry& e = entry(ledger);
  if (e.open_attempts != 0 || !(is_terminal(e.state) || e.lost)) return;
  count_job(e);
  release(ledger);
}

CauseCounts& Recorder::counts_of(CauseId cause) {
  if (cause >= cause_counts_.size()) cause_counts_.resize(cause + 1);
  return cause_counts_[cause];
}

void Recorder::count_job(const Entry& e) {
  CauseCounts& by_cause = counts_of(e.cause);
  // Work done more than once, whatever the backend made of the reports.
  if (e.completed_attempts > 1) {
    totals_.duplicate_executions += e.completed_attempts - 1;
    by_cause.duplicate_executions += e.completed_attempts - 1;
  }
  if (e.state == JobState::kCompleted) {
    ++totals_.completed;
    job_latency_.add(to_seconds(e.first_completed - e.enqueued));
  } else if (e.state == JobState::kDiscarded) {
    ++totals_.discarded;
    if (e.discarded_by_shutdown) {
      ++totals_.discarded_by_shutdown;
      ++by_cause.discarded_by_shutdown;
    }
  } else if (e.lost) {
    ++totals_.lost;
    ++by_cause.lost;
  } else {
    ++totals_.pending;
  }
  if (e.interrupted) {
    ++totals_.interrupted;
    ++counts_of(e.interrupted_by).interrupted;
  }
}

void Recorder::release(std::uint32_t ledger) {
  Entry& e = entries_[ledger];
  if (e.state == JobState::kAvailable) --queued_;
  if (e.state == JobState::kScheduled) --scheduled_;
  e.live = false;
  entries_.release(ledger);
  lost_reasons_.erase(ledger);
}

void Recorder::audit_error(std::string text) {
  audit_.ok = false;
  ++audit_.error_count;
  if (audit_.errors.size() < kMaxAuditMessages) audit_.errors.push_back(std::move(text));
}

AuditResult Recorder::finish(const BackendView& backend) {
  if (sink_) flush_series();
  std::int64_t held_by_backend = 0;
  for (std::uint32_t i = 0; i < entries_.size(); ++i) {
    Entry& e = entries_[i];
    if (!e.live) continue;
    const std::optional<JobState> actual = backend.job_state(e.backend_handle, e.id);
    if (actual) ++held_by_backend;
    if (e.lost) {
      // Lost by design but an attempt was still open at the end: count it as lost.
      if (actual) {
        audit_error(fmt::format("job {}: recorded as lost ({}) but the backend still holds it",
                                e.id, lost_reasons_[i]));
      }
      count_job(e);
      continue;
    }
    if (!actual && !is_terminal(e.state)) {
      audit_error(
          fmt::format("job {}: vanished from the backend (last {} state: {}, {} "
                      "completed attempts) and no event explains it",
                      e.id, "reported", to_string(e.state), e.completed_attempts));
      e.lost = true;
      count_job(e);
      continue;
    }
    if (actual && *actual != e.state) {
      audit_error(fmt::format("job {}: the backend says {} but its reports said {}", e.id,
                              to_string(*actual), to_string(e.state)));
    }
    if (!is_terminal(e.state) && e.state == JobState::kActive && e.orphaned_at >= 0 &&
        e.open_attempts == 0) {
      ++totals_.stuck_at_end;
    }
    count_job(e);
  }
  if (static_cast<std::size_t>(held_by_backend) != backend.live_jobs()) {
    audit_error(fmt::format("the backend holds {} jobs but the ledger accounts for {}",
                            backend.live_jobs(), held_by_backend));
  }
  if (late_reports_ > 0) {
    warnings_.push_back(
        {"late_reports",
         fmt::format("{} reports of attempts reached the ledger after their job's fate was "
                     "settled (the engine fell behind the wall clock): ignored, no job counted "
                     "twice",
                     late_reports_),
         {{"late_reports", static_cast<double>(late_reports_)}}});
  }
  const JobTotals& t = totals_;
  if (t.enqueued != t.completed + t.lost + t.discarded + t.pending) {
    audit_error(fmt::format("enqueued {} != completed {} + lost {} + discarded {} + pending {}",
                            t.enqueued, t.completed, t.lost, t.discarded, t.pending));
  }
  return audit_;
}

// --- heartbeats and job reports (timeline only)

void Recorder::heartbeat(Time now, int pod, WorkerId worker, Directive state) {
  if (sink_) sink_->add(HeartbeatRecord{now, pod, worker, state});
}

void Recorder::add_report(const ReportRecord& record) { sink_->add(record); }

Timeline Recorder::take_timeline() {
  Timeline out = std::move(memory_);
  memory_ = Timeline();
  return out;
}

}  // namespace drainsim
