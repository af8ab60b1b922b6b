// The viewer's model of one drainsim run, read from a results file (results/README.md,
// docs/results.schema.json): one lane per pod with its state bands, signal markers, preStop
// span and grace deadline; every attempt with its outcome, on per-slot tracks; the job
// counts over time with the fleet's capacity and completions per second; deploy and chaos
// windows; the summary metrics and the audit. No drawing here: the widgets only draw what
// this gives them.
//
// The timeline tables are streamed (a SAX reader, no JSON DOM for their rows), so a run
// with a million attempts loads in well under a second per 100 MB of file.
//
// Loading never throws: a file that cannot be read, is not JSON, is truncated, is of an
// unknown schema MAJOR or is not a results file gives a message naming the file and what is
// wrong. Thread-safety: free functions with no shared state; a loaded Results is an immutable
// value that may be read from several threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace drainsim::viewer {

// Pod states as the results file names them (timeline.pod_states).
enum class PodState : std::uint8_t {
  kStarting,
  kReady,
  kQuiet,
  kDraining,
  kTerminating,  // deleted, worker not draining yet (preStop running, TERM swallowed)
  kCrashed,      // killed or exited outside a deletion; container restart pending
  kGone,
};
inline constexpr int kPodStateCount = 7;
const char* to_string(PodState s);

// Markers on a lane. kOom is a SIGKILL whose source is an oom_kill event.
enum class MarkerKind : std::uint8_t { kTerm, kInt, kTstp, kCont, kKill, kQuit, kOom };
const char* to_string(MarkerKind k);  // "TERM", "INT", "TSTP", "CONT", "KILL", "QUIT", "OOM"

// Attempt outcomes; kDuplicate is a completed attempt of a job that had completed before.
enum class Outcome : std::uint8_t {
  kCompleted,
  kFailed,
  kInterrupted,
  kKilled,
  kAbandoned,
  kCancelled,
  kDuplicate,
};
inline constexpr int kOutcomeCount = 7;
const char* to_string(Outcome o);

struct Band {
  double start = 0, end = 0;  // seconds; end is the next change, or the run's end
  PodState state = PodState::kStarting;
};

struct Marker {
  double t = 0;
  MarkerKind kind = MarkerKind::kTerm;
  bool delivered = true;  // false when a shell as PID 1 swallowed it
  std::string source;     // deletion, prestop, deadline, oom, event
};

struct Span {
  double start = 0, end = 0;
};

struct Attempt {
  std::int64_t job = 0;
  std::int32_t attempt = 0;
  std::int32_t pod = 0;
  std::int32_t worker = 0;
  std::int32_t slot = 0;
  double start = 0, end = 0;
  Outcome outcome = Outcome::kCompleted;
};

// The attempts that ran in one slot of one pod, by start time, as indices into
// Results::attempts; `max_end[i]` is the largest end among the first i + 1 (so the attempts
// that reach into a time range are found by binary search even if some overlap).
struct Track {
  int slot = 0;
  std::vector<std::uint32_t> attempts;
  std::vector<double> max_end;
  // The same attempts' start, end and outcome, side by side in this order, for drawing.
  std::vector<double> start, end;
  std::vector<Outcome> outcome;
};

struct Lane {
  int pod = 0;
  std::string id;  // "pod-N"
  int generation = 0;
  int node = 0;
  double created = 0;
  std::optional<double> deleted, gone;
  std::vector<Band> bands;      // in time order, no zero-length bands
  std::vector<Marker> markers;  // in time order
  std::optional<Span> prestop;  // deletion to the TERM (or kill) that ends the hook
  // When the platform SIGKILLs a deleted pod: deletion + termination_grace_period
  // (kubernetes) or + stop_grace_period (docker).
  std::optional<double> grace_deadline;
  std::vector<Track> tracks;  // one per slot used, by slot
  // Attempts that did not simply complete (interrupted, killed, duplicate, ...), by start,
  // as indices into Results::attempts: drawn on top when the slots are merged into one row.
  std::vector<std::uint32_t> notable;
};

// A step function or samples over time: values[i] holds from t[i] until t[i + 1].
struct Steps {
  std::vector<double> t;
  std::vector<double> values;
  double at(double time) const;  // the value in force at `time` (0 before the first)
};

struct Series {
  Steps queued, scheduled, in_flight;  // timeline.series
  Steps capacity;                      // concurrency x pods in state ready
  // Completed (and duplicate) attempts per second, in bins of `bin_s` from 0: bin i
  // covers [i * bin_s, (i + 1) * bin_s).
  double bin_s = 1;
  std::vector<double> completions_per_s;
};

// A stretch of time to shade: a rollout, or a chaos event (oom_kill, signal, scale_down,
// node_drain, directive, ...) until the fleet is settled again: every pod that is not
// gone ready, nothing starting, quiet, draining, terminating or crashed. Ends at the run's
// end when it never settles.
struct Window {
  double start = 0, end = 0;
  bool deploy = false;  // rolling_restart; otherwise chaos
  std::string label;    // "rolling_restart", "oom_kill pod-3", ...
};

struct SummaryRow {
  std::string key;    // dotted path, e.g. "drain_latency_s.p99"
  std::string value;  // as shown: integers as is, seconds to 3 decimals, null as "–"
  std::optional<double> number = std::nullopt;  // the value when it is a number
};

// A row of summary.by_cause (schema 3.3 on): what one scripted event that acts on pods, or
// no event ("none", the last row), cost: the jobs it interrupted and lost, and so on. Each
// figure's rows add up to the run's total.
struct CauseFigures {
  std::string cause;          // "events[2]" or "none"
  std::string kind;           // the event's kind ("oom_kill"); empty for "none"
  std::optional<double> at;   // the event's time in seconds; nullopt for "none"
  std::optional<int> deploy;  // rolling restarts: 1 for the scenario's first
  std::string cause_class;    // deploys, scale_downs, node_drains, pod_deletions, oom_kills,
                              // signals or none
  std::string label;          // "deploy 1 at 3m", "oom_kill at 2m", "no event"
  std::int64_t interrupted = 0, job_loss = 0, lost = 0, discarded_by_shutdown = 0,
               duplicate_executions = 0, shutdown_retries = 0;
};

struct Results {
  std::string path;
  std::string schema_version, drainsim_version, scenario_name, profile, engine, result_hash;
  std::uint64_t seed = 0;
  double ended_at = 0;
  int concurrency = 1;
  std::string platform_kind;  // kubernetes or docker

  // Empty when the file has a timeline with something in it; otherwise why the timeline
  // and series views have nothing to show.
  std::string timeline_missing;
  std::vector<Lane> lanes;  // one per pod, pods[i] is lanes[i]
  std::vector<Attempt> attempts;
  Series series;
  std::vector<Window> windows;

  std::vector<SummaryRow> summary;  // every summary metric except the audit, in file order
  // summary.by_cause, in the file's order; nullopt for a file written before schema 3.3.
  std::optional<std::vector<CauseFigures>> by_cause;
  bool audit_ok = true;
  std::string audit_balance;
  std::vector<std::string> audit_errors;
  std::vector<std::string> warnings;
};

// Mean and Student-t 95 % interval of a metric over seeds (sweep and compare files).
struct Interval {
  double mean = 0, half_width = 0, low = 0, high = 0;
  int n = 0;  // runs where the metric was not null; 0: no value at all
};

struct NamedInterval {
  std::string metric;
  Interval value;
};

// `drainsim sweep` output (sim/analysis/sweep.h): one point per grid value.
struct SweepPointData {
  std::vector<double> x;            // per axis: seconds for durations, the number, or the index
  std::vector<std::string> labels;  // per axis, as written ("5s", "10", "true")
  std::vector<NamedInterval> metrics;
  const Interval* metric(std::string_view name) const;
};
struct Sweep {
  std::string path, scenario;
  std::vector<std::string> axes;  // field paths, first axis outermost
  int seeds = 0;
  std::vector<std::string> metrics;  // every metric some point has, sorted
  std::vector<SweepPointData> points;
  // False for a sweep stopped early (Ctrl+C) or one shard's part: `points` holds
  // points_done of points_total.
  bool complete = true;
  int points_total = 0;
};

// `drainsim compare --format json` output (sim/analysis/compare.h): one row per profile.
struct ProfileRow {
  std::string profile;
  std::vector<NamedInterval> metrics;
  const Interval* metric(std::string_view name) const;
};
struct Comparison {
  std::string path, scenario;
  int seeds = 0;
  std::vector<std::string> metrics;  // in the file's order
  std::vector<ProfileRow> profiles;
};

// What a file turned out to be. Exactly one of run, sweep, comparison is set, or error.
struct Document {
  std::optional<Results> run;
  std::optional<Sweep> sweep;
  std::optional<Comparison> comparison;
  std::string error;  // "FILE: what is wrong"
  bool ok() const { return error.empty(); }
};

// Reads a results, sweep or compare file, telling them apart by their keys.
Document load_document(const std::string& path);
// The same from text already in memory (`path` names it in messages).
Document parse_document(std::string_view text, const std::string& path);

// The results schema MAJORs this reader understands (1.x differs from 2.x only in summary
// keys, which the summary view lists as they come).
inline constexpr int kOldestSchemaMajor = 1;
inline constexpr int kSchemaMajor = 3;

// Min/max downsampling of a step function for drawing: [t0, t1] split into `buckets`, at
// most 4 points per bucket (its first, lowest, highest and last, in time order), after the
// value in force at t0. Points outside [t0, t1] are dropped.
Steps downsample(const Steps& s, double t0, double t1, int buckets);

// The attempts of `track` that overlap [t0, t1] are those with index in [first, last):
// first is the first whose running max end reaches t0, last the first that starts after t1.
struct IndexRange {
  std::size_t first = 0, last = 0;
};
IndexRange visible(const Track& track, const std::vector<Attempt>& attempts, double t0, double t1);

}  // namespace drainsim::viewer
