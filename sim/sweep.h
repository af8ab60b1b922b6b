// Sweep: one scenario run over a grid of field values (the cartesian product of axes such
// as worker.grace_period=5s..120s/5s) and several seeds per grid point on the virtual
// engine, each numeric summary metric reported per point as its mean over the seeds with a
// Student-t 95 % interval (DESIGN.md, Metrics). The runs are spread over a pool of
// threads, but results are stored by index: the output does not depend on the thread
// count. parse_axis is pure; run_sweep is thread-safe to call but uses threads of its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "compare.h"
#include "stats.h"

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

struct SweepSpec {
  std::string scenario;                     // the scenario file
  std::vector<std::string> overrides;       // the user's "PATH=VALUE" overrides
  std::vector<SweepAxis> axes;              // REQUIRES: at least one, from parse_axis
  std::size_t seeds = 10;                   // REQUIRES: >= 1
  std::optional<std::uint64_t> first_seed;  // default: the scenario's seed
  unsigned threads = 0;                     // 0: std::thread::hardware_concurrency()
  // Called on the calling thread about once a second while runs are going, with the runs
  // done and the total; empty: no reports.
  std::function<void(std::size_t done, std::size_t total)> progress;
};

struct SweepPoint {
  std::vector<nlohmann::json> values;  // one per axis, in axis order
  // Every numeric summary metric by dotted path ("drain_latency_s.p99"), the audit left
  // out, over the runs where it is not null (n == 0: null in every run).
  std::map<std::string, Interval> metrics;
  std::vector<CompareRun> runs;  // one per seed, in seed order
};

struct Sweep {
  std::string scenario;  // the scenario's name
  std::vector<std::string> overrides;
  std::vector<SweepAxis> axes;
  std::vector<std::uint64_t> seeds;
  std::vector<SweepPoint> points;  // the grid, first axis outermost

  bool audits_ok() const;
};

// Checks every axis before running anything: the scenario is loaded with the user's
// overrides and then each distinct value of each axis; a field the loader refuses is a
// ScenarioError whose message starts with "--grid SPEC: " and names the path. Then runs
// every point and seed: each point's scenario is loaded with spec.overrides followed by
// the point's axis values (so the axes win), and the seed set on it. Every run is done even
// when an audit fails; the failures are in the runs.
Sweep run_sweep(const SweepSpec& spec);

// {"drainsim_version", "engine": "virtual", "scenario", "overrides",
//  "axes": [{"path", "values"}], "seeds",
//  "points": [{"values": {PATH: VALUE}, "metrics": {KEY: {"mean", "half_width", "low",
//              "high", "n"}}, "result_hashes", "audit_failures": [{"seed", "error_count",
//              "errors"}]}]}
nlohmann::json sweep_json(const Sweep& s);

// A header row (the axes' paths, then metric,n,mean,half_width,low,high) and a row per
// point and metric; numbers in shortest round-trip form, empty where null.
std::string sweep_csv(const Sweep& s);

}  // namespace drainsim
