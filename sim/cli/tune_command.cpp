// `drainsim tune`: the cheapest grace period (and preStop) that meets the targets.
#include <unistd.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "analysis/sweep.h"
#include "analysis/tune.h"
#include "base/parse.h"
#include "cli/common.h"
#include "cli/manifest_patch.h"
#include "cli/progress.h"
#include "io/k8s_import.h"
#include "io/scenario_reader.h"

namespace drainsim::cli {
namespace {

using nlohmann::json;

struct TuneArgs {
  std::string scenario;
  std::string max_job_loss, max_interrupted, max_deploy_duration;
  std::string grace_range = "0s..10m/1s", platform_range = "1s..10m/1s",
              timeout_range = "10s..1h/10s";
  std::vector<std::string> pre_stops;
  PlatformGrace platform_grace = PlatformGrace::kPaired;
  TuneCauses causes = TuneCauses::kChangeable;
  std::string margin = "10s", safety_margin = "10s";
  std::size_t seeds = 30;
  std::optional<std::uint64_t> seed;
  unsigned threads = 0;
  std::vector<std::string> sets;
  OutputFormat format = OutputFormat::kText;
  std::string out;
  std::string patch;
};

// The search the options ask for; nullopt (said) for a bad option.
std::optional<TuneSpec> tune_spec(const TuneArgs& args) {
  const auto bad = [](const std::string& what) -> std::optional<TuneSpec> {
    fmt::print(stderr, "error: {}\n", what);
    return std::nullopt;
  };
  const auto duration = [](const std::string& text) { return parse_duration(text); };
  TuneSpec spec;
  spec.scenario = args.scenario;
  spec.overrides = args.sets;
  spec.seeds = args.seeds;
  spec.first_seed = args.seed;
  spec.threads = args.threads;
  spec.platform_grace = args.platform_grace;
  spec.causes = args.causes;
  // No job lost and none interrupted unless the user sets those targets otherwise, or
  // removes one with "none": another target given alone does not drop them.
  spec.targets.max_job_loss = 0;
  spec.targets.max_interrupted = 0;
  if (args.max_job_loss == "none") {
    spec.targets.max_job_loss.reset();
  } else if (!args.max_job_loss.empty()) {
    const std::optional<double> v = parse_number<double>(args.max_job_loss);
    if (!v || *v < 0) {
      return bad(fmt::format("--max-job-loss {}: expected a number of jobs >= 0, or none",
                             args.max_job_loss));
    }
    spec.targets.max_job_loss = *v;
  }
  if (args.max_interrupted == "none") {
    spec.targets.max_interrupted.reset();
  } else if (!args.max_interrupted.empty()) {
    // A bare number other than 0 reads two ways (0.1: 10 % or 0.1 %): it must say which.
    const std::optional<double> bare = parse_number<double>(args.max_interrupted);
    if (bare && *bare != 0) {
      return bad(fmt::format(
          "--max-interrupted {0}: a bare number reads two ways ({0} as a fraction is {1}%, as a "
          "percentage {0}%): write the percentage with its sign, e.g. {1}% or {0}%",
          args.max_interrupted, fmt::format("{:g}", *bare * 100)));
    }
    spec.targets.max_interrupted = parse_fraction(args.max_interrupted);
    if (!spec.targets.max_interrupted) {
      return bad(fmt::format(
          "--max-interrupted {}: expected a percentage in [0%, 100%] (e.g. 0.1%), 0, or none",
          args.max_interrupted));
    }
  }
  if (!args.max_deploy_duration.empty()) {
    spec.targets.max_deploy_duration = duration(args.max_deploy_duration);
    if (!spec.targets.max_deploy_duration) {
      return bad(fmt::format("--max-deploy-duration {}: expected a duration such as 10m",
                             args.max_deploy_duration));
    }
  }
  if (!spec.targets.any()) {
    return bad(
        "no target left: --max-job-loss none and --max-interrupted none remove the "
        "defaults, so give --max-deploy-duration or keep one of them");
  }
  const bool search_platform = spec.platform_grace == PlatformGrace::kSearched;
  const std::string& grid = search_platform ? args.platform_range : args.grace_range;
  const AxisParse range = parse_axis("worker.grace_period=" + grid);
  if (!range.axis || grid.find("..") == std::string::npos ||
      !range.axis->values.front().is_string()) {
    return bad(fmt::format("{} {}: expected durations START..END/STEP, e.g. 0s..10m/1s{}",
                           search_platform ? "--platform-range" : "--grace-range", grid,
                           range.axis ? "" : " (" + range.error + ")"));
  }
  for (const json& v : range.axis->values) spec.grid.push_back(*duration(v.get<std::string>()));
  const AxisParse timeouts = parse_axis("platform.pre_stop.timeout=" + args.timeout_range);
  if (!timeouts.axis || args.timeout_range.find("..") == std::string::npos ||
      !timeouts.axis->values.front().is_string()) {
    return bad(
        fmt::format("--timeout-range {}: expected durations START..END/STEP, e.g. "
                    "10s..1h/10s{}",
                    args.timeout_range, timeouts.axis ? "" : " (" + timeouts.error + ")"));
  }
  for (const json& v : timeouts.axis->values) {
    spec.timeout_grid.push_back(*duration(v.get<std::string>()));
  }
  if (spec.timeout_grid.front() <= 0) {
    return bad(
        fmt::format("--timeout-range {}: a preStop timeout must be above 0", args.timeout_range));
  }
  for (const std::string& p : args.pre_stops) {
    const auto d = duration(p);
    if (!d) return bad(fmt::format("--pre-stop {}: expected a duration such as 5s", p));
    spec.pre_stops.push_back(*d);
  }
  const auto margin = duration(args.margin), safety = duration(args.safety_margin);
  if (!margin) return bad(fmt::format("--margin {}: expected a duration such as 10s", args.margin));
  if (!safety) {
    return bad(
        fmt::format("--safety-margin {}: expected a duration such as 10s", args.safety_margin));
  }
  spec.margin = *margin;
  spec.safety_margin = *safety;
  return spec;
}

// 0 when a setting meets the targets, 1 when none on the grid does.
int tune(const TuneArgs& args) {
  const auto bad = [](const std::string& what) {
    fmt::print(stderr, "error: {}\n", what);
    return kBadInput;
  };
  std::optional<TuneSpec> parsed = tune_spec(args);
  if (!parsed) return kBadInput;
  TuneSpec& spec = *parsed;
  const ProgressReport progress("tune", isatty(STDERR_FILENO));
  spec.progress = tune_progress(progress);
  if (!outputs_ok({{"--out", args.out}, {"--patch", args.patch, "the patch"}}, {args.scenario})) {
    return kBadInput;
  }
  std::optional<K8sImport> manifest;
  if (!args.patch.empty()) {
    try {
      manifest = imported_manifests(args.scenario, load_scenario_file(args.scenario, args.sets),
                                    "--patch");
    } catch (const InputError& e) {
      return bad(e.what());
    }
  }
  Tune result;
  try {
    result = run_tune(spec);
  } catch (const ScenarioError& e) {
    fmt::print(stderr, "{}", progress.clear());
    return bad(e.what());
  }
  fmt::print(stderr, "{}", progress.clear());
  const std::string text =
      args.format == OutputFormat::kJson ? tune_json(result).dump(2) + '\n' : tune_text(result);
  if (!emit(text, args.out)) return kBadInput;
  for (const TuneSetting* e : result.settings()) {
    for (const SeedRun& r : e->runs) {
      if (!r.audit_ok) {
        report_audit_failure(
            result.knob == TuneKnob::kPreStopTimeout
                ? fmt::format("platform.pre_stop.timeout={}", format_duration(e->pre_stop_timeout))
                : fmt::format("worker.grace_period={}", format_duration(e->grace)),
            r);
      }
    }
  }
  if (!result.audits_ok()) return kAuditFailed;
  if (manifest && result.recommended()) {
    try {
      // Beside the report on stdout, or on stderr when stdout carries JSON.
      std::FILE* to = args.format == OutputFormat::kJson && args.out.empty() ? stderr : stdout;
      if (!write_manifest_patch(result, !spec.pre_stops.empty(), *manifest, args.patch, to)) {
        return kBadInput;
      }
    } catch (const InputError& e) {
      return bad(e.what());
    }
  } else if (manifest) {
    fmt::print(stderr, "--patch: nothing recommended, so no patch written\n");
  }
  return result.recommended() ? 0 : 1;
}

void declare_tune(CLI::App* cmd, TuneArgs& args) {
  add_scenario_argument(cmd, args.scenario);
  cmd->add_option("--max-job-loss", args.max_job_loss,
                  "Target: mean jobs lost per run (default 0; none: no such target)");
  cmd->add_option("--max-interrupted", args.max_interrupted,
                  "Target: mean share of jobs interrupted, a percentage such as 0.1% (default "
                  "0; none: no such target)");
  cmd->add_option("--max-deploy-duration", args.max_deploy_duration,
                  "Target: mean longest rollout per run, e.g. 10m");
  add_enum_option(cmd, "--causes", args.causes,
                  "What the job-loss and interrupted targets count: changeable (default: what "
                  "deploys, scale-downs, node drains and pod deletions cost, which a grace can "
                  "change), deploys (rolling restarts only) or all (OOM kills, signal events and "
                  "the rest too)");
  cmd->add_option("--grace-range", args.grace_range,
                  "The worker grace periods searched, START..END/STEP (default 0s..10m/1s)");
  cmd->add_option("--pre-stop", args.pre_stops,
                  "Also try these preStop durations (0s: none; e.g. --pre-stop 0s,5s,10s)")
      ->delimiter(',');
  add_enum_option(cmd, "--platform-grace", args.platform_grace,
                  "paired (default): preStop + grace + margin; scenario: keep the scenario's; "
                  "search: search it on --platform-range, keeping the worker's grace");
  cmd->add_option("--platform-range", args.platform_range,
                  "With --platform-grace search: the platform graces searched, "
                  "START..END/STEP (default 1s..10m/1s)");
  cmd->add_option("--timeout-range", args.timeout_range,
                  "When the scenario's preStop is quiet_then_wait: the hook timeouts searched, "
                  "START..END/STEP, above 0 (default 10s..1h/10s)");
  cmd->add_option("--margin", args.margin,
                  "Platform grace beyond preStop + worker grace (default 10s, spec §6.3)");
  cmd->add_option("--safety-margin", args.safety_margin,
                  "The safety_margin of the spec's §6.2 rule of thumb (default 10s)");
  add_seeds_option(cmd, args.seeds, "Runs per setting (default 30)");
  add_seed_option(cmd, args.seed, "First seed (default: the scenario's)");
  add_threads_option(cmd, args.threads);
  add_set_option(cmd, args.sets);
  add_enum_option(cmd, "--format", args.format, "text (default) or json");
  path_option(cmd->add_option("--out", args.out, "Write the report here (default stdout)"));
  path_option(cmd->add_option(
      "--patch", args.patch,
      "For a scenario from drainsim import k8s: write the recommendation here as a "
      "strategic-merge patch of its manifest, and print the kubectl patch command"));
}

}  // namespace

std::optional<TuneSpec> default_tune_spec(const std::string& scenario,
                                          const std::vector<std::string>& sets) {
  TuneArgs args;
  args.scenario = scenario;
  args.sets = sets;
  return tune_spec(args);
}

std::function<void(Duration, std::size_t, std::size_t)> tune_progress(
    const ProgressReport& progress) {
  return [&progress](Duration pre_stop, std::size_t settings, std::size_t runs) {
    fmt::print(stderr, "{}",
               progress.status(fmt::format("preStop {}: {} settings evaluated, {} runs",
                                           format_duration(pre_stop), settings, runs)));
  };
}

void add_tune_commands(CLI::App& app, std::vector<Command>& out) {
  out.push_back(subcommand(
      app, "tune",
      "Find the shortest worker grace period (and preStop) that meets your targets, with the "
      "platform grace to pair with it; exit 1 when no setting on the grid does",
      declare_tune, tune));
}

}  // namespace drainsim::cli
