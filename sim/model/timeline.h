// The timeline of a run: what happened when, one record per attempt, pod state change,
// signal, drain count, queue sample, heartbeat and job report (results/README.md,
// "timeline"). The Recorder makes the records and hands each to a TimelineSink as it goes:
// Timeline keeps them in memory; io/timeline_spill writes them out as the run goes, so a
// long run's timeline costs no memory. Not thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/duration.h"
#include "base/job.h"
#include "base/names.h"
#include "base/pod_state.h"
#include "model/signals.h"

namespace drainsim {

struct AttemptRecord {
  JobId job = 0;
  int attempt = 0;
  int pod = -1;
  WorkerId worker = kNoWorker;
  int slot = -1;
  Time start = 0;
  Time end = 0;
  Outcome outcome = Outcome::kCompleted;
  bool duplicate = false;  // a completed attempt of a job that had completed before
};

// An attempt's outcome as the timeline names it: "duplicate" for a duplicate execution.
inline const char* outcome_name(const AttemptRecord& a) {
  return a.duplicate ? "duplicate" : to_string(a.outcome);
}

struct PodStateRecord {
  Time at;
  int pod;
  PodState state;
};
struct SignalRecord {
  Time at;
  int pod;
  Signal signal;
  bool delivered;      // false when a shell as PID 1 swallowed it
  std::string source;  // "deletion", "prestop", "deadline", "oom", "oom_child", "event"
};
struct RemainingRecord {
  Time at;
  int pod;
  WorkerId worker;
  int remaining;
};
struct SeriesPoint {
  Time at;
  std::int64_t queued;     // available to fetch
  std::int64_t scheduled;  // waiting out a retry backoff
  std::int64_t in_flight;  // attempts running
};

// What a worker told the backend about a job (timeline only).
enum class ReportKind : std::uint8_t { kAck, kFail, kRequeue };
constexpr std::array<std::string_view, 3> names(ReportKind) { return {"ack", "fail", "requeue"}; }
inline const char* to_string(ReportKind v) { return name_of(v).data(); }

struct HeartbeatRecord {
  Time at;
  int pod;
  WorkerId worker;
  Directive state;  // the state the worker reported: running, quiet or terminate
};
struct ReportRecord {
  Time at;
  int pod;
  WorkerId worker;
  JobId job;
  int attempt;
  ReportKind kind;
  ErrorKind error;  // kFail only
  bool accepted;    // the backend took it (the worker still held the job)
};
// A report's error as the timeline names it: "" unless it is a FAIL.
inline const char* error_name(const ReportRecord& r) {
  return r.kind == ReportKind::kFail ? to_string(r.error) : "";
}

// Takes the timeline's records as the run makes them, each table's in the order of its
// rows.
class TimelineSink {
 public:
  virtual ~TimelineSink() = default;
  virtual void add(const AttemptRecord& r) = 0;
  virtual void add(const PodStateRecord& r) = 0;
  virtual void add(const SignalRecord& r) = 0;
  virtual void add(const RemainingRecord& r) = 0;
  virtual void add(const SeriesPoint& r) = 0;
  virtual void add(const HeartbeatRecord& r) = 0;
  virtual void add(const ReportRecord& r) = 0;
};

// The timeline's records in memory (about 150 bytes per job: for short runs and tests).
struct Timeline final : TimelineSink {
  std::vector<AttemptRecord> attempts;
  std::vector<PodStateRecord> pod_states;
  std::vector<SignalRecord> signals;
  std::vector<RemainingRecord> remaining;
  std::vector<SeriesPoint> series;
  std::vector<HeartbeatRecord> heartbeats;
  std::vector<ReportRecord> reports;

  void add(const AttemptRecord& r) override { attempts.push_back(r); }
  void add(const PodStateRecord& r) override { pod_states.push_back(r); }
  void add(const SignalRecord& r) override { signals.push_back(r); }
  void add(const RemainingRecord& r) override { remaining.push_back(r); }
  void add(const SeriesPoint& r) override { series.push_back(r); }
  void add(const HeartbeatRecord& r) override { heartbeats.push_back(r); }
  void add(const ReportRecord& r) override { reports.push_back(r); }
};

}  // namespace drainsim
