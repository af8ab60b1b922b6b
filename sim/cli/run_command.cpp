// `drainsim run`: one scenario on an engine, a summary, the results file.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "analysis/thresholds.h"
#include "analysis/tune.h"
#include "cli/common.h"
#include "cli/manifest_patch.h"
#include "cli/progress.h"
#include "cli/run_common.h"
#include "cli/stop_signal.h"

namespace drainsim::cli {
namespace {

struct RunArgs {
  ScenarioArgs what;
  Engine engine = Engine::kVirtual;
  EngineArgs engine_args;
  SystemArgs system;
  bool timeline = false;
  std::string out;
  std::string fault;
  // virtual: a limit of events (0: none), and when a run shows its progress
  std::vector<std::string> fail_on;  // thresholds (analysis/thresholds.h)
  std::string suggest;               // the patch file of --suggest
  double deploys_per_day = 0;
  std::uint64_t max_events = 0;
  std::uint64_t progress_events = 100'000'000;
  Duration progress_time = 24 * kHour;
};

// How long a virtual run may go, and when it says how far it got.
void add_limit_options(CLI::App* cmd, RunArgs& args) {
  cmd->add_option("--max-events", args.max_events,
                  "virtual: stop after N events, the results partial and marked interrupted "
                  "(exit 130; default 0: no limit)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--progress-events", args.progress_events,
                  "virtual: show progress on stderr once the run has run N events (default "
                  "100000000)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option_function<std::string>(
         "--progress-time",
         [&args](const std::string& text) { args.progress_time = *parse_duration(text); },
         "virtual: show progress on stderr once the run has simulated this long (default 24h)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            if (parse_duration(text)) return "";
            return fmt::format("expected a duration like \"24h\", got \"{}\"", text.substr(0, 40));
          },
          "DURATION"));
}

// results/NAME-SEED.json, or results/NAME-SEED.ENGINE.json for an engine other than the
// virtual one, so a realtime or process run never overwrites the virtual run's file.
std::string default_results_path(const Scenario& s, Engine engine) {
  if (engine == Engine::kVirtual) return fmt::format("results/{}-{}.json", s.name, s.seed);
  return fmt::format("results/{}-{}.{}.json", s.name, s.seed, to_string(engine));
}

// --suggest: tune's search with its defaults on the scenario, its answer, and the patch of
// the imported manifest when it recommends a setting. False when the patch cannot be
// written.
bool suggest(const RunArgs& args, const K8sImport& manifest) {
  std::optional<TuneSpec> spec = default_tune_spec(args.what.file, args.what.sets);
  if (!spec) return false;
  const ProgressReport progress("tune", isatty(STDERR_FILENO));
  spec->progress = tune_progress(progress);
  Tune t;
  try {
    t = run_tune(*spec);
  } catch (const InputError& e) {
    fmt::print(stderr, "{}error: --suggest: {}\n", progress.clear(), e.what());
    return false;
  }
  fmt::print(stderr, "{}", progress.clear());
  // The answer's lines (recommendation, paired grace, preStop, or why none): the first of
  // tune's report, up to its targets.
  const std::string text = tune_text(t);
  const std::size_t targets = text.find("\ntargets:");
  std::string command = "drainsim tune " + args.what.file;
  for (const std::string& set : args.what.sets) command += " --set '" + set + "'";
  fmt::print("\nsuggested by tune's search with its defaults ({} for the whole report):\n{}\n",
             command, text.substr(0, targets));
  if (!t.recommended()) {
    fmt::print("no patch written: nothing on tune's grid meets its targets\n");
    return true;
  }
  try {
    return write_manifest_patch(t, false, manifest, args.suggest, stdout);
  } catch (const InputError& e) {
    fmt::print(stderr, "error: --suggest: {}\n", e.what());
    return false;
  }
}

int run(const RunArgs& args) {
  std::vector<Threshold> thresholds;
  for (const std::string& text : args.fail_on) {
    auto t = parse_threshold(text);
    if (const auto* why = std::get_if<std::string>(&t)) {
      fmt::print(stderr, "error: {}\n", *why);
      return kBadInput;
    }
    thresholds.push_back(std::get<Threshold>(std::move(t)));
  }
  if (!time_scale_applies(args.engine_args.time_scale, {args.engine},
                          fmt::format("use --engine realtime or process; this run's engine is {}",
                                      to_string(args.engine)))) {
    return kBadInput;
  }
  Scenario s;
  RunOptions options;
  if (!prepare(args.what, args.engine_args, args.system, args.engine, s, options)) {
    return kBadInput;
  }
  options.timeline = args.timeline;
  options.stream_timeline = args.timeline;
  if ((args.engine_args.worker_cmd || !args.engine_args.worker_log.empty()) &&
      options.engine != Engine::kProcess) {
    fmt::print(stderr, "error: --worker-cmd and --worker-log need --engine process\n");
    return kBadInput;
  }
  if (args.engine_args.worker_log_max && args.engine_args.worker_log.empty()) {
    fmt::print(stderr, "error: --worker-log-max caps --worker-log, which is not given\n");
    return kBadInput;
  }
  if (!parse_fault(args.fault, options.faults)) return kBadInput;
  // The results file can be written, before the run rather than after it.
  std::string path = args.out;
  if (path.empty()) {
    if (::mkdir("results", 0777) != 0 && errno != EEXIST) {
      const int error = errno;
      fmt::print(stderr,
                 "error: {}: cannot write the results file (cannot create the folder results: "
                 "{}); give --out FILE\n",
                 default_results_path(s, options.engine), std::strerror(error));
      return kBadInput;
    }
    path = default_results_path(s, options.engine);
  }
  if (!outputs_ok({{args.out.empty() ? "" : "--out", path, "the results file"},
                   {"--suggest", args.suggest, "the patch"}},
                  {args.what.file})) {
    return kBadInput;
  }
  std::optional<K8sImport> manifest;
  if (!args.suggest.empty()) {
    try {
      manifest = imported_manifests(args.what.file, s, "--suggest");
    } catch (const InputError& e) {
      fmt::print(stderr, "error: {}\n", e.what());
      return kBadInput;
    }
  }
  // A run on the wall clock says how far it got, on a terminal (a CI log gets no bar).
  const ProgressReport progress("run", isatty(STDERR_FILENO));
  if (paced(options.engine)) {
    options.paced.on_time = [&progress](Time now, Time end) {
      fmt::print(
          stderr, "{}",
          progress.status(fmt::format("simulated {} / {} at most", format_seconds(to_seconds(now)),
                                      format_duration(end))));
    };
  }
  const auto t0 = std::chrono::steady_clock::now();
  // A virtual run past its limits of events or simulated time says how far it got, and
  // stops on Ctrl+C with partial results.
  ProgressReport long_run("run", isatty(STDERR_FILENO), 10, "simulated s");
  std::optional<StopSignal> stop;
  double drawn_s = -1;  // when the bar was last drawn: 5 times a second at most
  if (options.engine == Engine::kVirtual) {
    stop.emplace();
    options.limits.max_events = args.max_events;
    options.limits.keep_going = [&](Time now, Time end, std::uint64_t events) {
      if (StopSignal::stop_requested()) return false;
      if (events >= args.progress_events || now >= args.progress_time) {
        const double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (drawn_s >= 0 && wall - drawn_s < 0.2) return true;
        drawn_s = wall;
        fmt::print(stderr, "{}",
                   long_run.update(static_cast<std::size_t>(to_seconds(now)),
                                   static_cast<std::size_t>(to_seconds(end)), wall));
      }
      return true;
    };
  } else if (args.max_events > 0) {
    fmt::print(stderr, "error: --max-events applies only to the virtual engine\n");
    return kBadInput;
  }
  RunOutput out;
  int status = 0;
  // On a terminal the bar ends with a newline; plain lines need no last one.
  const bool ran = run_or_explain(s, options, out, status, /*partial=*/true, [&] {
    return (options.paced.on_time ? progress.clear() : "") +
           (isatty(STDERR_FILENO) ? long_run.finish() : "");
  });
  stop.reset();
  if (!ran) return status;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  const int reported = report(s, options, out, path, wall, args.deploys_per_day);
  if ((out.interrupted || out.failed) && reported != kBadInput) {
    fmt::print(stderr, "partial results written to {} ({})\n", path,
               out.failed ? "run.failed" : "run.interrupted");
    return out.failed ? kRunFailed : kInterrupted;
  }
  if (manifest && reported != kBadInput && !suggest(args, *manifest)) return kBadInput;
  if (reported != 0 || thresholds.empty()) return reported;
  const std::vector<std::string> broken = broken_thresholds(thresholds, out.summary);
  if (broken.empty()) {
    fmt::print("thresholds: all {} hold\n", thresholds.size());
    return 0;
  }
  fmt::print(stderr, "error: {} of {} --fail-on thresholds broken:\n", broken.size(),
             thresholds.size());
  for (const std::string& b : broken) fmt::print(stderr, "  {}\n", b);
  return kThresholdsBroken;
}

void declare_run(CLI::App* cmd, RunArgs& args) {
  add_scenario_options(cmd, args.what);
  cmd->add_flag("--timeline", args.timeline, "Record the timeline in the results");
  path_option(
      cmd->add_option("--out", args.out, "Results file (default results/<name>-<seed>.json)"));
  add_enum_option(cmd, "--engine", args.engine,
                  "virtual (default), realtime, process, or real (a real system, --system; as "
                  "drainsim real with one repeat)");
  add_limit_options(cmd, args);
  add_engine_options(cmd, args.engine_args);
  add_system_options(cmd, args.system);
  add_fault_option(cmd, args.fault);
  cmd->add_option("--deploys-per-day", args.deploys_per_day,
                  "Also say what the scenario's deploys cost a day at this many deploys (their "
                  "figures per deploy, times N)")
      ->check(CLI::PositiveNumber);
  path_option(cmd->add_option(
      "--suggest", args.suggest,
      "For a scenario from drainsim import k8s: after the run, search the settings as "
      "drainsim tune does with its defaults, and write its recommendation here as a "
      "strategic-merge patch of the manifest"));
  cmd->add_option("--fail-on", args.fail_on,
                  "Exit 1 when the run breaks this threshold, METRIC OP VALUE over any summary "
                  "metric (results/README.md), OP one of > >= < <= == !=; repeatable, e.g. "
                  "--fail-on 'job_loss>0' --fail-on 'drain_latency_s.p99>25s'");
}

}  // namespace

void add_run_commands(CLI::App& app, std::vector<Command>& out) {
  out.push_back(subcommand(app, "run",
                           "Run one scenario (in virtual time unless --engine says otherwise)",
                           declare_run, run));
}

}  // namespace drainsim::cli
