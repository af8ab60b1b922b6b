// Tune: the cheapest shutdown settings that meet a user's targets for a scenario. For each
// preStop asked for, it searches the worker grace period on a grid (START..END/STEP), each
// setting run over several seeds on the virtual engine (through run_sweep), and pairs each
// grace with the platform grace `preStop + grace + margin` (spec §6.3) unless told to keep
// the scenario's; or, for workers whose grace is not theirs to set (or is "forever"), it
// searches the platform grace with the worker's grace kept; or, when the scenario's preStop
// is quiet_then_wait (which SIGKILLs the worker at its own timeout, so no worker grace
// matters), it searches that timeout with the worker's grace kept. A setting meets a target
// when the upper end of its 95 % interval over the seeds does (conservative about noise); its
// seeds run in order and stop as soon as no remaining seeds could bring a job-loss or
// interrupted upper end down to its target, so that the verdict is the full evaluation's. Job loss
// and interrupted jobs can only fall as the grace rises and deploys can only lengthen, so the
// search looks for the smallest grace from which on every evaluated grace meets the job-loss and
// interrupted targets: first every ~1/16 of the grid, then by bisection between the last miss and
// the first hit; that grace is recommended when its deploys also meet the deploy target. Among
// preStops, the least preStop + grace wins (the least platform grace when that is what is
// searched). run_tune uses threads of its own (analysis/seed_schedule.h); the formatters are
// pure.
#pragma once

#include <array>
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
#include "analysis/warning_tally.h"
#include "base/duration.h"
#include "base/names.h"
#include "base/stats.h"
#include "model/scenario.h"

namespace drainsim {

struct TuneTargets {
  std::optional<double> max_job_loss;           // mean job_loss per run
  std::optional<double> max_interrupted;        // mean interrupted_fraction, in [0, 1]
  std::optional<Duration> max_deploy_duration;  // mean of each run's longest rollout
  bool any() const { return max_job_loss || max_interrupted || max_deploy_duration; }
};

// "0.1%" is 0.001; "0.001" is 0.001. nullopt for anything else or outside [0, 1].
std::optional<double> parse_fraction(std::string_view text);

// The causes (model/causes.h) the job-loss and interrupted targets are judged on.
enum class TuneCauses {
  kChangeable,  // what a shutdown setting can change: deploys, scale-downs, node drains and
                // pod deletions (not OOM kills, signal events or no event)
  kDeploys,     // rolling restarts only
  kAll,         // every cause: the run's totals
};
constexpr std::array<std::string_view, 3> names(TuneCauses) {
  return {"changeable", "deploys", "all"};
}

enum class PlatformGrace {
  kPaired,    // preStop + worker grace + margin
  kScenario,  // the scenario's, kept
  kSearched,  // searched on the grid, the scenario's worker grace kept
};

// What the grid's values set.
enum class TuneKnob {
  kWorkerGrace,     // worker.grace_period
  kPlatformGrace,   // the platform grace (PlatformGrace::kSearched)
  kPreStopTimeout,  // a quiet_then_wait preStop's timeout
};
constexpr std::array<std::string_view, 3> names(PlatformGrace) {
  return {"paired", "scenario", "search"};
}

struct TuneSpec {
  std::string scenario;                // the scenario file
  std::vector<std::string> overrides;  // the user's "PATH=VALUE" overrides
  TuneTargets targets;                 // REQUIRES: any()
  // REQUIRES: ascending, not empty: the worker graces searched, or the platform graces
  // when platform_grace is kSearched.
  std::vector<Duration> grid;
  // REQUIRES: ascending, not empty: the preStop timeouts searched when the scenario's
  // preStop is quiet_then_wait (and no pre_stops are asked).
  std::vector<Duration> timeout_grid;
  // The preStop durations to try (0: none; others keep the scenario's sleep kind or use
  // quiet_then_sleep, the spec's `kill -TSTP 1 && sleep N`); empty: the scenario's own.
  std::vector<Duration> pre_stops;
  PlatformGrace platform_grace = PlatformGrace::kPaired;
  TuneCauses causes = TuneCauses::kChangeable;
  Duration margin = 10 * kSecond;         // platform grace - preStop - worker grace
  Duration safety_margin = 10 * kSecond;  // in the spec's §6.2 rule
  std::size_t seeds = 30;                 // REQUIRES: >= 1
  std::optional<std::uint64_t> first_seed;
  unsigned threads = 0;  // 0: the cores
  // The sequential test (docs/tune.md): stop a setting's seeds once it cannot meet a
  // job-loss or interrupted target. false: every setting runs every seed, as before it
  // (the same verdicts and recommendation, more runs; for benchmarks and tests).
  bool sequential = true;
  // Called on the calling thread as runs finish: the preStop searched, the settings
  // evaluated before the ones now running, and the runs done (dropped ones included);
  // empty: no reports.
  std::function<void(Duration pre_stop, std::size_t settings, std::size_t runs)> progress;
};

// One setting, run over the seeds.
struct TuneSetting {
  Duration grace = 0;
  Duration platform_grace = 0;
  Duration pre_stop_timeout = 0;            // the quiet_then_wait hook's, when searched
  std::map<std::string, Interval> metrics;  // every summary metric, over the seeds run
  // One per seed run: every seed, or the first k when the sequential test stopped it
  // (then it misses a job-loss or interrupted target whatever the other seeds give).
  std::vector<SeedRun> runs;
  // The targets it misses, by the upper end of the 95 % interval, e.g.
  // "job_loss 2.3 > 0 (mean 2)"; when stopped, by the least upper end the seeds not run
  // could give, e.g. "job_loss ≥0.102 > 0 (mean 1)".
  std::vector<std::string> misses;
  bool meets_quality = false;  // the job-loss and interrupted targets
  bool meets() const { return misses.empty(); }
};

// The search for one preStop.
struct TuneSearch {
  PreStop pre_stop;
  std::vector<TuneSetting> evaluated;        // by grace, ascending
  std::optional<std::size_t> recommended;    // into evaluated: meets every target
  std::optional<std::size_t> least_quality;  // into evaluated: the smallest grace from which
                                             // on the job-loss and interrupted targets hold
};

// The spec's rule of thumb (§6.2): max_job_duration + heartbeat_interval + safety_margin.
// For an unbounded distribution max_job_duration is its 99.9th percentile.
struct SpecRule {
  Duration max_job_duration = 0;
  std::string basis;  // e.g. "constant", "p99.9 of lognormal"
  Duration heartbeat_interval = 0, safety_margin = 0;
  Duration grace() const { return max_job_duration + heartbeat_interval + safety_margin; }
};
SpecRule spec_rule(const Scenario& s, Duration safety_margin);

struct Tune {
  std::string scenario;  // its name
  std::vector<std::string> overrides;
  std::vector<std::uint64_t> seeds;
  TuneTargets targets;
  TuneCauses causes = TuneCauses::kChangeable;
  Scenario base;  // the scenario as loaded with the overrides
  PlatformGrace platform_grace = PlatformGrace::kPaired;
  TuneKnob knob = TuneKnob::kWorkerGrace;
  Duration margin = 0;
  SpecRule rule;
  TuneSetting current;               // the scenario's own grace, platform grace, preStop
  std::vector<TuneSearch> searches;  // one per preStop, in the order asked
  std::optional<std::size_t> best;   // into searches
  // When nothing is recommended: why, in one line ("" when the trade-off table says it).
  std::string why_none;
  // What the causes left out of the judgement cost (tune's --causes): e.g. "OOM kills lose
  // 8.05 jobs a run whatever the grace; ...", one line per class with a cost, measured on
  // the largest setting of the first search; empty when they cost nothing.
  std::vector<std::string> left_out;
  std::vector<Warning> warnings;           // tune's own, about the settings
  std::vector<WarningTally> run_warnings;  // its runs', over every setting evaluated
  // Every run done, those dropped included (a seed under way when its setting was stopped).
  std::size_t runs_done = 0;

  const TuneSetting* recommended() const;
  std::vector<const TuneSetting*> settings() const;  // current, then every search's
  bool audits_ok() const;
};

// Throws ScenarioError when the scenario or an override does not load, or preStops are
// asked for a quiet_then_wait preStop or a Docker platform.
Tune run_tune(const TuneSpec& spec);

// First line "recommended grace_period: <duration>" ("none" when no setting on the grid
// meets the targets), then the paired platform grace, the targets, the trade-off table
// around the recommendation, the spec's rule of thumb beside it, warnings and a snippet.
std::string tune_text(const Tune& t);

// {"drainsim_version", "engine": "virtual", "scenario", "overrides", "seeds", "targets",
//  "recommended": {"grace_period", "grace_period_s", "termination_grace_period_s",
//                  "pre_stop", "pre_stop_s", "metrics"} or null, "spec_rule", "warnings",
//  "current": the scenario's own setting,
//  "searches": [{"pre_stop", "pre_stop_s", "recommended_grace_period_s",
//                "settings": [...]}], "snippet"}
nlohmann::json tune_json(const Tune& t);

// The recommendation as the settings to paste, in the job system's own terms
// (analysis/settings_snippet.h). Empty when nothing is recommended.
std::string settings_snippet(const Tune& t);

}  // namespace drainsim
