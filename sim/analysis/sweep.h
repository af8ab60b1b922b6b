// Sweep: one scenario run over a grid of field values (the cartesian product of axes such
// as worker.grace_period=5s..120s/5s) and several seeds per grid point on the virtual
// engine, each numeric summary metric reported per point as its mean over the seeds with a
// Student-t 95 % interval (docs/design.md, Metrics). The runs are spread over a pool of
// threads, but results are stored by index: the output does not depend on the thread
// count. A sweep can be cut into shards (run_sweep_part) whose raw runs are later joined
// (sweep_part.h) and aggregated by the same code as an unsharded sweep (sweep_of). A sweep
// is written as a text or Markdown table, JSON or a wide CSV (sweep_report.cpp).
// parse_axis and parse_shard are pure; run_sweep and run_sweep_part are thread-safe to
// call but use threads of their own.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/compare.h"
#include "base/stats.h"
#include "model/metrics.h"

namespace drainsim {

// One `--grid` axis: a field and the values it takes, in order.
struct SweepAxis {
  std::string spec;                    // as the user wrote it, for messages
  std::string path;                    // e.g. "worker.grace_period"
  std::vector<nlohmann::json> values;  // as reported: "5s" for durations, numbers, JSON
  std::vector<std::string> overrides;  // one "PATH=VALUE" override per value
};

// Parses `PATH=START..END/STEP` (durations like 5s..120s/5s, or numbers like 1..10/1;
// END is included when it lands on a step) or `PATH=V1,V2,...` (each value as a --set
// value: JSON if it parses, else a string). On a malformed axis, an empty list or value, a
// range that mixes durations and numbers, has no step, goes backwards or has a step
// <= 0, `axis` is empty and `error` says why, naming the axis as written.
struct AxisParse {
  std::optional<SweepAxis> axis;
  std::string error;
};
AxisParse parse_axis(std::string_view spec);

// A deterministic slice of a sweep's runs: shard `index` of `count` (0 <= index < count)
// takes the runs whose task number t (point * seeds + seed position, the grid in order)
// has t % count == index, so that every shard gets a share of every part of the grid even
// when the run time grows along an axis. {0, 1} is the whole sweep.
struct SweepShard {
  std::size_t index = 0, count = 1;
  friend bool operator==(const SweepShard&, const SweepShard&) = default;
};

// Parses `I/N` (decimal, 0 <= I < N; I as Kubernetes' JOB_COMPLETION_INDEX gives it). On
// anything else `shard` is empty and `error` says why, quoting the text.
struct ShardParse {
  std::optional<SweepShard> shard;
  std::string error;
};
ShardParse parse_shard(std::string_view text);

struct SweepSpec {
  std::string scenario;                     // the scenario file
  std::vector<std::string> overrides;       // the user's "PATH=VALUE" overrides
  std::vector<SweepAxis> axes;              // REQUIRES: at least one, from parse_axis
  std::size_t seeds = 10;                   // REQUIRES: >= 1
  std::optional<std::uint64_t> first_seed;  // default: the scenario's seed
  unsigned threads = 0;                     // 0: std::thread::hardware_concurrency()
  // Called on the calling thread when the runs start, at most once per progress_interval
  // while they go (0: after every finished run), and at the end, with the runs done and
  // the total (the shard's when sharded); empty: no reports.
  std::function<void(std::size_t done, std::size_t total)> progress;
  std::chrono::milliseconds progress_interval{1000};
  // When set and it becomes true, no new run starts; the runs under way finish and the
  // sweep returns what was done (incomplete). Not owned; may be set from a signal handler.
  const std::atomic<bool>* stop = nullptr;
  BackendFaults faults;  // test-only: injected into every run
};

// One (point, seed) run's raw outcome: what a part file keeps of it.
struct SweepRunResult {
  std::size_t task = 0;  // point * seeds.size() + the seed's position
  SeedRun run;           // seed, result hash, audit
  // Every numeric leaf of the run's summary by dotted path (the audit left out); nullopt
  // for a null leaf (drain_latency_s when nothing drained).
  std::map<std::string, std::optional<double>> metrics;
};

// The raw runs of a sweep or of one shard of it, with what identifies the sweep.
struct SweepPart {
  std::string drainsim_version;
  std::string scenario;       // the scenario's name
  std::string scenario_file;  // the path it was read from (informative only)
  std::string scenario_hash;  // FNV-1a 64 of the scenario file's bytes, 16 hex digits
  std::vector<std::string> overrides;
  std::vector<SweepAxis> axes;
  std::vector<std::uint64_t> seeds;
  SweepShard shard;
  std::vector<SweepRunResult> runs;  // in task order; the whole slice when complete

  std::size_t grid_points() const;  // the product of the axes' sizes
  // Point p's value on each axis, in axis order (REQUIRES: p < grid_points()).
  std::vector<nlohmann::json> point_values(std::size_t p) const;
  std::size_t tasks() const;       // the runs of the whole sweep: grid_points() * seeds
  std::size_t slice_size() const;  // the runs of this shard
  bool complete() const { return runs.size() == slice_size(); }
};

struct SweepPoint {
  std::vector<nlohmann::json> values;  // one per axis, in axis order
  // Every numeric summary metric by dotted path ("drain_latency_s.p99"), the audit left
  // out, over the runs where it is not null (n == 0: null in every run).
  std::map<std::string, Interval> metrics;
  std::vector<SeedRun> runs;  // one per seed, in seed order
};

struct Sweep {
  std::string scenario;  // the scenario's name
  std::vector<std::string> overrides;
  std::vector<SweepAxis> axes;
  std::vector<std::uint64_t> seeds;
  // The grid, first axis outermost; when the sweep was stopped early, only the points
  // whose every seed ran.
  std::vector<SweepPoint> points;
  std::size_t points_total = 0;  // the grid's size
  bool complete = true;          // every point is there

  bool audits_ok() const;
};

// Checks every axis before running anything: the scenario is loaded with the user's
// overrides and then each distinct value of each axis; a field the loader refuses is a
// ScenarioError whose message starts with "--grid SPEC: " and names the path. Then runs
// every point and seed: each point's scenario is loaded with spec.overrides followed by
// the point's axis values (so the axes win), and the seed set on it. Every run is done even
// when an audit fails; the failures are in the runs. When spec.stop becomes true during
// the sweep, the points not finished are left out and the result is not complete.
// The same as sweep_of(run_sweep_part(spec)).
Sweep run_sweep(const SweepSpec& spec);

// Checks the axes as run_sweep does, then runs only the shard's slice of the runs. The
// scenario file is read once: its hash is of the bytes every run used. Stopped early
// (spec.stop), the part holds the runs that finished, a prefix of the slice, and is not
// complete().
SweepPart run_sweep_part(const SweepSpec& spec, SweepShard shard = {});

// The sweep a part of the whole grid stands for (REQUIRES: part.shard is {0, 1}, tasks
// within the grid): each point whose every seed has a run, with its values and its
// metrics' intervals over those runs; complete when every point is there. The one
// aggregation of sweep results, for run_sweep and merge alike.
Sweep sweep_of(const SweepPart& part);

// One point over the runs given, in seed order (REQUIRES: not empty): the runs' records
// and each metric's interval over the runs where it is not null, as sweep_of gives a
// point (values left empty). For callers that run a point's seeds themselves (tune).
SweepPoint sweep_point(const std::vector<const SweepRunResult*>& runs);

// The formats a sweep is written in (sweep and merge --format).
enum class SweepFormat { kTable, kMarkdown, kJson, kCsv };
constexpr std::array<std::string_view, 4> names(SweepFormat) {
  return {"table", "md", "json", "csv"};
}

// The metrics the text formats show, in order: job_loss, interrupted_fraction,
// duplicate_executions, shutdown_retries, stuck_at_end, wasted_work_s, drain_latency_s.p99,
// orphan_recovery_delay_s.p99, deploy_duration_s.max.
const std::vector<const Metric*>& sweep_table_metrics();

// `table`: a heading (scenario, overrides, points and seeds; "interrupted" and failed
// audits when there are any) and aligned text, a row per point: its axis values, then each
// of sweep_table_metrics() as "mean ±half" (a fraction as a percentage; "(n=k)" added when
// only k runs had it, "–" when none did). `md`: the same as a GitHub Markdown table.
// `json`: sweep_json(s) indented by 2. `csv`: sweep_csv(s). Every format ends with a
// newline.
std::string format_sweep(const Sweep& s, SweepFormat format);

// {"drainsim_version", "engine": "virtual", "scenario", "overrides",
//  "axes": [{"path", "values"}], "seeds", "complete", "points_total", "points_done",
//  "points": [{"values": {PATH: VALUE}, "metrics": {KEY: {"mean", "half_width", "low",
//              "high", "n"}}, "result_hashes", "audit_failures": [{"seed", "error_count",
//              "errors"}], "warnings": [tally_json, ...]}]}
nlohmann::json sweep_json(const Sweep& s);

// The wide CSV: a header row (the axes' paths, then KEY.mean,KEY.low,KEY.high,KEY.n for
// every summary metric KEY of metrics(), in that order) and one row per point: its axis
// values, then each metric's mean and 95 % interval over the runs that had it and their
// number; mean, low and high are empty when no run had it (n 0). Numbers in shortest
// round-trip form.
std::string sweep_csv(const Sweep& s);

}  // namespace drainsim
