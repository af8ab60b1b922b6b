// The summary of a run (docs/design.md, Metrics; results/README.md), computed once from
// the recorder, the platform and the audit at the end of the run. The results writer
// serializes it; everything that picks a metric by name goes through model/metrics.h.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/causes.h"
#include "model/platform.h"
#include "model/recorder.h"
#include "model/warning.h"

namespace drainsim {

// A sample of durations in seconds: its count, median, 99th percentile and maximum.
struct Spread {
  std::int64_t count = 0;
  double p50 = 0, p99 = 0, max = 0;
};

// The durations of the finished rollouts, in seconds.
struct DeployDurations {
  std::int64_t count = 0;
  double mean = 0, max = 0;
};

// Enqueue to completion, in seconds.
struct JobLatency {
  double p50 = 0, p99 = 0;
};

// Why a run stopped before its end: "signal" (SIGINT or SIGTERM), "event_limit" (a limit
// of events run), "failure" (drainsim real: a process of the run failed, `component` and
// `reason` say which and why); empty when it did not. Its figures are then partial.
struct Interruption {
  std::string by;
  std::uint64_t events = 0;  // events run when it stopped
  std::string component;     // failure: "broker", "enqueuer", "inspector" or "worker"
  Time at = 0;               // failure: when it was seen
  std::string reason;        // failure: what happened, its cause first
};

struct RunSummary {
  JobTotals jobs;
  double interrupted_fraction = 0;  // interrupted / enqueued (0 when nothing was enqueued)
  // Processes by how they ended; exits[kRunning] counts the ones still running at the end.
  std::array<std::int64_t, std::size(names(ExitKind{}))> exits = {};
  std::int64_t forced_kills = 0;        // every SIGKILL: at the deadline, OOM, signal or preStop
  std::optional<Spread> drain_latency;  // TERM to exit, OOM kills left out
  std::optional<Spread> orphan_recovery_delay;  // an orphaned job's death to its recovery
  // The same split: jobs the worker handed back itself, jobs the backend recovered.
  std::optional<Spread> requeue_delay, backend_recovery_delay;
  std::optional<DeployDurations> deploy_duration;
  std::int64_t deploys_superseded = 0, deploys_unfinished = 0;
  std::optional<JobLatency> job_latency;
  // Interrupted, lost, discarded and duplicated jobs and shutdown retries by the event that
  // caused them (model/causes.h): one row per event that acts on pods, then "none"; and the
  // same added up by class. Each figure sums to its total in `jobs`.
  std::vector<CauseRow> by_cause;
  std::array<CauseCounts, kCauseClasses> by_class = {};
  AuditResult audit;
  std::string balance;  // "enqueued N = completed N + lost N + discarded N + pending N"

  // The run itself.
  Time ended_at = 0;
  bool ended_early = false;  // nothing was left to happen before duration + settle
  std::int64_t attempts_in_flight_at_end = 0;
  Interruption interrupted;
  // The recorder's, then the run's own: overload or queue_growth, settle_reached or
  // interrupted.
  std::vector<Warning> warnings;

  std::int64_t exit_count(ExitKind k) const { return exits[static_cast<std::size_t>(k)]; }
  std::int64_t job_loss() const { return jobs.lost + jobs.discarded_by_shutdown; }
};

// The "settle_reached" warning: the run ended at duration + settle with jobs pending or
// attempts running.
std::optional<Warning> settle_warning(const Scenario& scenario, const RunSummary& s);

// The "interrupted" warning (or "run_failed", for a failure): the run stopped before its
// end (s.interrupted), so jobs not finished are pending and attempts running are in no
// outcome.
std::optional<Warning> interrupted_warning(const Scenario& scenario, const RunSummary& s);

// The summary of a finished run of `scenario`: `audit` is what Recorder::finish returned.
RunSummary summarize(const Scenario& scenario, const Recorder& recorder, const Platform& platform,
                     const AuditResult& audit, Time ended_at, bool ended_early,
                     Interruption interrupted = {});

}  // namespace drainsim
