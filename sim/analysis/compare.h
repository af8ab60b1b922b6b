// Compare: one scenario replayed against several worker profiles over several seeds on
// the virtual engine, each summary metric reported per profile as its mean over the seeds
// with a Student-t 95 % interval (docs/design.md, Metrics), and formatters for the result as a
// text table, a Markdown table, JSON or CSV. Same inputs, same bytes: every run is
// deterministic and numbers are printed with fixed formats. Not thread-safe.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/seed_run.h"
#include "base/names.h"
#include "base/stats.h"
#include "model/backend_faults.h"
#include "model/causes.h"
#include "model/metrics.h"
#include "model/scenario.h"

namespace drainsim {

// The compared summary metrics (model/metrics.h): job_loss, interrupted_fraction,
// duplicate_executions,
// shutdown_retries, wasted_work_s, drain_latency_s.p99, orphan_recovery_delay_s.p99,
// stuck_at_end, deploy_duration_s.mean — in that order. The text formats show a metric
// with its decimals().
const std::vector<const Metric*>& compare_metrics();

// The profile names a `--profiles` value stands for: "all" is every registered profile in
// registry order, anything else a comma-separated list of names (spaces around a name
// ignored), in its order. On an empty, unknown or repeated name `names` is empty and
// `error` says which name, listing the known profiles.
struct ProfileSelection {
  std::vector<std::string> names;
  std::string error;
};
ProfileSelection select_profiles(std::string_view spec);

struct CompareSpec {
  std::string scenario;                     // the scenario file
  std::vector<std::string> overrides;       // the user's "PATH=VALUE" overrides
  std::vector<std::string> profiles;        // REQUIRES: registered names, at least one
  std::size_t seeds = 10;                   // REQUIRES: >= 1
  std::optional<std::uint64_t> first_seed;  // default: the scenario's seed
  // Keep the scenario's worker.grace_period for every profile; by default each profile
  // runs with its own default grace (the file's grace is one system's setting), unless
  // --set pins worker.grace_period.
  bool keep_grace = false;
  BackendFaults faults;  // test-only
};

struct ProfileComparison {
  std::string profile;
  Duration grace = 0;         // the worker grace it ran with (kNever: none)
  PreStop pre_stop;           // the preStop it ran with
  std::vector<SeedRun> runs;  // one per seed, in seed order
  // One per compare_metrics(), over the runs where the metric is not null: n counts them,
  // and n == 0 (all fields 0) means null in every run.
  std::vector<Interval> metrics;
  // The mean job_loss per run by cause class (model/causes.h).
  std::array<double, kCauseClasses> loss_by_class = {};
};

struct Comparison {
  std::string scenario;         // the scenario's name
  Duration platform_grace = 0;  // the scenario's, the same for every profile
  bool keep_grace = false;      // CompareSpec::keep_grace
  std::vector<std::string> overrides;
  std::vector<std::uint64_t> seeds;  // first, first + 1, ... (modulo 2^64)
  std::vector<ProfileComparison> profiles;

  bool audits_ok() const;
};

// Runs spec.scenario once per profile and seed on the virtual engine. Each profile's
// scenario is loaded with the overrides "worker.profile=<name>", then (unless keep_grace or
// spec.overrides set it) "worker.grace_period=<the profile's default>", then
// spec.overrides, so the other fields the scenario file or the user sets keep their
// values and the profile supplies the defaults of the rest; the seed is then set on the
// loaded scenario. Every run is
// done even when an audit fails; the failures are in the runs.
// Throws ScenarioError when the scenario does not load (the message names the file and
// the JSON path), or when spec.overrides replace the profile (worker.profile, worker).
Comparison compare_profiles(const CompareSpec& spec);

enum class CompareFormat { kTable, kMarkdown, kJson, kCsv };
constexpr std::array<std::string_view, 4> names(CompareFormat) {
  return {"table", "md", "json", "csv"};
}

// `table`: aligned text, a row per profile, each metric as "mean ±half" ("(n=k)" added
// when only k runs had it, "–" when none did), then the notes (compare_json's "notes").
// `md`: the same as a GitHub Markdown table.
// `json`: compare_json(c) indented by 2. `csv`: a header row
// "profile,metric,n,mean,half_width,low,high" and a row per profile and metric, numbers
// in shortest round-trip form, empty where null. Every format ends with a newline.
std::string format_comparison(const Comparison& c, CompareFormat format);

// {"drainsim_version", "engine": "virtual", "scenario", "overrides", "seeds", "metrics",
//  "profiles": [{"profile", "metrics": {KEY: {"mean", "half_width", "low", "high", "n"}},
//                "result_hashes": [one per seed], "audit_failures": [{"seed", "error_count",
//                "errors"}], "warnings": [tally_json, ...]}],
//  "notes": [a profile with job_loss 0 but jobs stuck at the end; the runs' warnings]}
// A metric null in every run has n 0 and null mean, half_width, low and high.
nlohmann::json compare_json(const Comparison& c);

}  // namespace drainsim
