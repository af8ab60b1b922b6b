// `drainsim run` (one scenario, a summary, the results file), `drainsim real` (the scenario
// on a real job system, over repeats) and `drainsim fidelity` (the scenario on several
// engines and results files, metrics side by side as statistics).
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <chrono>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "analysis/fidelity.h"
#include "base/input_file.h"
#include "cli/common.h"
#include "cli/progress.h"
#include "cli/stop_signal.h"
#include "io/atomic_file.h"
#include "io/json_reader.h"
#include "io/results.h"
#include "io/scenario_reader.h"
#include "run/real_run.h"
#include "run/simulation.h"

namespace drainsim::cli {
namespace {

using nlohmann::json;

struct RunArgs {
  std::string scenario;
  std::vector<std::string> sets;
  std::optional<std::uint64_t> seed;
  std::optional<std::uint64_t> max_memory;  // unset: default_max_memory()
  // virtual: a limit of events (0: none), and when a run shows its progress
  std::uint64_t max_events = 0;
  std::uint64_t progress_events = 100'000'000;
  Duration progress_time = 24 * kHour;
  bool timeline = false;
  std::string out;
  std::string fault;
  Engine engine = Engine::kVirtual;
  std::optional<double> time_scale;  // unset: the engines' default
  JobBody job_body = JobBody::kSleep;
  std::string worker_cmd;
  std::string worker_log;
  std::optional<std::uint64_t> worker_log_max;  // unset: RunOptions' default
  ModelAccess access = ModelAccess::kLock;
  // real
  std::string system;
  std::string adapters;
  std::string keep;
  std::string out_dir = "results/real";
  // real, fidelity
  std::vector<std::string> from;
  std::size_t seeds = 10, repeats = 3;
  std::vector<Engine> engines = {Engine::kVirtual, Engine::kRealtime, Engine::kProcess};
};

// What to run: the scenario, its seed and overrides.
void add_scenario_options(CLI::App* cmd, RunArgs& args) {
  add_scenario_argument(cmd, args.scenario);
  add_seed_option(cmd, args.seed, "Seed (overrides the scenario's)");
  add_set_option(cmd, args.sets);
  add_max_memory_option(cmd, args.max_memory);
}

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

// How the real-time and process engines run it.
void add_engine_options(CLI::App* cmd, RunArgs& args) {
  add_time_scale_option(cmd, args.time_scale);
  add_enum_option(cmd, "--job-body", args.job_body,
                  "realtime: job bodies sleep (default) or spin on real threads, or are timers");
  add_enum_option(cmd, "--model-access", args.access,
                  "realtime: worker strands reach the backend under a lock (default) or by "
                  "posting to its strand");
  cmd->add_option("--worker-cmd", args.worker_cmd,
                  "process: a shell command that runs a worker (docs/worker-protocol.md) "
                  "instead of drainsim-worker");
  cmd->add_option("--worker-log", args.worker_log,
                  "process: append the workers' output to this file (default: discarded)");
  cmd->add_option("--worker-log-max", args.worker_log_max,
                  "process: the most of the workers' output --worker-log gets per run, e.g. "
                  "1MiB, 10GB (KB = 1024 bytes; default 64MiB; 0: no cap); the rest is "
                  "dropped, and a line in the log says so")
      ->transform(CLI::AsSizeValue(false));
}

std::string fmt_spread(const std::optional<Spread>& d) {
  if (!d) return "none";
  return fmt::format("p50 {}  p99 {}  max {}  (n={})", format_seconds(d->p50),
                     format_seconds(d->p99), format_seconds(d->max), d->count);
}

void print_summary(const Scenario& scenario, Engine engine, const RunOutput& out,
                   const std::string& path, double wall_s) {
  const RunSummary& s = out.summary;
  const JobTotals& j = s.jobs;
  fmt::print("drainsim {} — scenario {} (seed {}), engine {}\n", DRAINSIM_VERSION, scenario.name,
             scenario.seed, to_string(engine));
  fmt::print("  simulated {}{}\n", format_seconds(to_seconds(s.ended_at)),
             !s.interrupted.by.empty() ? " (interrupted: the figures are partial)"
             : s.ended_early           ? " (ended once nothing was left to do)"
                                       : " (cut off at duration + settle)");
  fmt::print("jobs\n");
  fmt::print("  enqueued {}  completed {}  pending {}  discarded {}  lost {}\n", j.enqueued,
             j.completed, j.pending, j.discarded, j.lost);
  if (j.pushes_refused > 0) {
    fmt::print("  pushes refused {} (a singleton class's job was unfinished: no job created)\n",
               j.pushes_refused);
  }
  fmt::print("  job loss {} (lost {} + discarded by shutdown {})\n", s.job_loss(), j.lost,
             j.discarded_by_shutdown);
  fmt::print("  interrupted jobs {} ({:.3f}%)  shutdown retries {}  duplicate executions {}\n",
             j.interrupted, 100 * s.interrupted_fraction, j.shutdown_retries,
             j.duplicate_executions);
  if (j.redeliveries > 0 || j.completions_rejected > 0) {
    fmt::print(
        "  redeliveries {} (a recovery while the worker still ran the job)  "
        "completions rejected {}\n",
        j.redeliveries, j.completions_rejected);
  }
  fmt::print("  wasted work {}  stuck at end {}\n", format_seconds(to_seconds(j.wasted_work)),
             j.stuck_at_end);
  fmt::print("  job latency {}\n",
             s.job_latency ? fmt::format("p50 {}  p99 {}", format_seconds(s.job_latency->p50),
                                         format_seconds(s.job_latency->p99))
                           : std::string("none"));
  fmt::print("shutdown\n");
  fmt::print("  drain latency          {}\n", fmt_spread(s.drain_latency));
  fmt::print("  orphan recovery delay  {}\n", fmt_spread(s.orphan_recovery_delay));
  fmt::print(
      "  exits: clean {}  died on TERM {}  killed at deadline {}  OOM killed {}  "
      "exited with error {}  killed by signal {}  (still running at the end: {})\n",
      s.exit_count(ExitKind::kClean), s.exit_count(ExitKind::kDiedOnTerm),
      s.exit_count(ExitKind::kKilledAtDeadline), s.exit_count(ExitKind::kOomKilled),
      s.exit_count(ExitKind::kExitedWithError), s.exit_count(ExitKind::kKilledBySignal),
      s.exit_count(ExitKind::kRunning));
  const auto& d = s.deploy_duration;
  fmt::print("  deploys: {}\n", d ? fmt::format("{} finished, mean {}  max {}", d->count,
                                                format_seconds(d->mean), format_seconds(d->max))
                                  : std::string("none"));
  for (const Warning& w : s.warnings) fmt::print("warning: {}\n", w.message);
  if (s.audit.ok) {
    fmt::print("audit: ok ({})\n", s.balance);
  } else {
    fmt::print("audit: FAILED, {} errors ({})\n", s.audit.error_count, s.balance);
    for (const std::string& err : s.audit.errors) fmt::print("  {}\n", err);
  }
  fmt::print("result hash {}  written to {}  ({} wall)\n", out.hash, path, format_seconds(wall_s));
}

// results/NAME-SEED.json, or results/NAME-SEED.ENGINE.json for an engine other than the
// virtual one, so a realtime or process run never overwrites the virtual run's file.
std::string default_results_path(const Scenario& s, Engine engine) {
  if (engine == Engine::kVirtual) return fmt::format("results/{}-{}.json", s.name, s.seed);
  return fmt::format("results/{}-{}.{}.json", s.name, s.seed, to_string(engine));
}

// Loads the scenario and options of `run` and `fidelity`; false (the error printed) on bad
// input.
bool prepare(const RunArgs& args, Scenario& s, RunOptions& options) {
  try {
    s = load_scenario_file(args.scenario, args.sets);
  } catch (const ScenarioError& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return false;
  }
  if (args.seed) s.seed = *args.seed;
  if (!fits_in_memory(s, args.scenario, args.max_memory)) return false;
  options.timeline = args.timeline;
  options.stream_timeline = args.timeline;
  options.engine = args.engine;
  options.access = args.access;
  options.worker_cmd = args.worker_cmd;
  options.worker_log = args.worker_log;
  if (args.worker_log_max) options.worker_log_max = *args.worker_log_max;
  options.on_warning = [](const std::string& message) {
    fmt::print(stderr, "warning: {}\n", message);
  };
  if (args.time_scale) options.time_scale = *args.time_scale;
  options.job_body = args.job_body;
  options.system = args.system;
  options.adapters = args.adapters;
  options.keep = args.keep;
  options.progress = [](const std::string& line) { fmt::print(stderr, "real: {}\n", line); };
  if (options.engine == Engine::kReal || !args.system.empty()) {
    if (args.system.empty()) {
      fmt::print(stderr, "error: the real engine needs --system NAME\n");
      return false;
    }
    try {
      const SystemManifest system = find_system(options);
      const std::vector<std::string> bad = not_honoured(s, system);
      for (const std::string& line : bad)
        fmt::print(stderr, "error: {}: {}\n", args.scenario, line);
      if (!bad.empty()) return false;
    } catch (const std::exception& e) {  // RunError, InputError
      fmt::print(stderr, "error: {}\n", e.what());
      return false;
    }
  }
  return true;
}

// Runs the scenario; false (the error printed) when the run could not be done: its
// worker program cannot start, or (unless `partial`) the user interrupted it.
// `lead` goes to stderr first, once the run returns (the newline after a progress bar).
bool run_or_explain(const Scenario& s, const RunOptions& options, RunOutput& out, int& status,
                    bool partial = false, const std::function<std::string()>& lead = {}) {
  std::string error;
  try {
    out = run_scenario(s, options);
  } catch (const std::exception& e) {  // RunError, SystemMissing, InputError
    error = e.what();
  }
  if (lead) fmt::print(stderr, "{}", lead());
  if (!error.empty()) {
    fmt::print(stderr, "error: {}\n", error);
    status = kBadInput;
    return false;
  }
  if (out.interrupted) {
    const bool workers = options.engine == Engine::kProcess || options.engine == Engine::kReal;
    fmt::print(stderr, "interrupted at {} ({}) after {} events{}{}\n",
               format_seconds(to_seconds(out.ended_at)),
               options.engine == Engine::kReal ? "real" : "simulated", out.events,
               out.summary.interrupted.by == "event_limit" ? " (--max-events)" : "",
               workers
                   ? fmt::format("; {} worker process(es) killed and reaped", out.processes_left)
                   : "");
    status = kInterrupted;
    return partial;
  }
  return true;
}

// Writes the results file and prints the summary; the exit status: the audit's, or
// kBadInput when the file cannot be written.
int report(const Scenario& s, const RunOptions& options, const RunOutput& out,
           const std::string& path, double wall) {
  std::string why;  // the timeline's temporary files could not be read back
  const bool written = write_whole(path, [&](std::ostream& f) {
    if (out.timeline) {  // compact, streamed: an indented timeline would be far larger
      try {
        write_results_once(out.results, *out.timeline, [&](std::string_view piece) { f << piece; });
      } catch (const std::runtime_error& e) {
        why = fmt::format(" ({})", e.what());
        f.setstate(std::ios::badbit);  // not written: no partial file
      }
    } else {
      f << out.results.dump(2);
    }
    f << '\n';
  });
  if (!written) {
    fmt::print(stderr, "error: {}: cannot write the results file{}\n", path, why);
    return kBadInput;
  }
  print_summary(s, options.engine, out, path, wall);
  if (!out.summary.audit.ok) {
    fmt::print(stderr, "error: the audit failed: {} jobs or totals do not balance\n",
               out.summary.audit.error_count);
    for (const std::string& e : out.summary.audit.errors) fmt::print(stderr, "  {}\n", e);
    return kAuditFailed;
  }
  return 0;
}

int run(const RunArgs& args) {
  if (!time_scale_applies(args.time_scale, {args.engine},
                          fmt::format("use --engine realtime or process; this run's engine is {}",
                                      to_string(args.engine)))) {
    return kBadInput;
  }
  Scenario s;
  RunOptions options;
  if (!prepare(args, s, options)) return kBadInput;
  if ((!args.worker_cmd.empty() || !args.worker_log.empty()) &&
      options.engine != Engine::kProcess) {
    fmt::print(stderr, "error: --worker-cmd and --worker-log need --engine process\n");
    return kBadInput;
  }
  if (args.worker_log_max && args.worker_log.empty()) {
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
  if (!outputs_ok({{args.out.empty() ? "" : "--out", path, "the results file"}}, {args.scenario})) {
    return kBadInput;
  }
  // A run on the wall clock says how far it got, on a terminal (a CI log gets no bar).
  const ProgressReport progress("run", isatty(STDERR_FILENO));
  if (options.engine == Engine::kRealtime || options.engine == Engine::kProcess) {
    options.on_time = [&progress](Time now, Time end) {
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
    options.max_events = args.max_events;
    options.keep_going = [&](Time now, Time end, std::uint64_t events) {
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
    return (options.on_time ? progress.clear() : "") +
           (isatty(STDERR_FILENO) ? long_run.finish() : "");
  });
  stop.reset();
  if (!ran) return status;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  const int reported = report(s, options, out, path, wall);
  if (out.interrupted && reported != kBadInput) {
    fmt::print(stderr, "partial results written to {} (run.interrupted)\n", path);
    return kInterrupted;
  }
  return reported;
}

// `drainsim real`: the scenario on a real system, repeat r with seed SEED + r, each run's
// results in --out-dir.
int real(const RunArgs& args) {
  Scenario s;
  RunOptions options;
  RunArgs with_engine = args;
  with_engine.engine = Engine::kReal;
  if (!prepare(with_engine, s, options)) return kBadInput;
  std::error_code ec;
  try {  // libstdc++ throws here even given `ec` when a component is a file
    std::filesystem::create_directories(args.out_dir, ec);
  } catch (const std::filesystem::filesystem_error&) {
  }
  // Each repeat's results file can be written: checked on the first before any run.
  if (!outputs_ok(
          {{"--out-dir", fmt::format("{}/{}-{}-{}.json", args.out_dir, s.name, args.system, s.seed),
            "the results file"}},
          {args.scenario})) {
    return kBadInput;
  }
  const std::uint64_t first = s.seed;
  int status = 0;
  for (std::size_t r = 0; r < args.repeats; ++r) {
    s.seed = first + r;
    options.repeat = static_cast<int>(r);
    const auto t0 = std::chrono::steady_clock::now();
    RunOutput out;
    int failed = 0;
    if (!run_or_explain(s, options, out, failed, /*partial=*/true)) return failed;
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::string path =
        fmt::format("{}/{}-{}-{}.json", args.out_dir, s.name, args.system, s.seed);
    status = std::max(status, report(s, options, out, path, wall));
    if (status == kBadInput) return status;
    const json& rules = out.results["real"]["rule_check"];
    std::string jobs;
    for (const json& m : rules["mismatches"]) {
      jobs += fmt::format("{}job {} ({} predicted, {})", jobs.empty() ? "" : ", ",
                          m["job"].get<std::uint64_t>(), m["predicted"].get<std::string>(),
                          m["actual"].get<std::string>());
    }
    fmt::print(
        "rule check: {} attempts running at a TERM or kill, {} as the profile's rule "
        "predicts{}{}\n",
        rules["checked"].get<std::size_t>(),
        rules["checked"].get<std::size_t>() - rules["mismatches"].size(),
        jobs.empty() ? "" : "; not: ", jobs);
    if (out.interrupted) {  // the repeats after it are not run
      fmt::print(stderr, "partial results written to {} (run.interrupted)\n", path);
      return kInterrupted;
    }
  }
  return status;
}

// A --from source: NAME=FILE[,FILE...], each file a results document.
std::optional<FidelitySource> read_source(const std::string& spec) {
  const std::size_t eq = spec.find('=');
  if (eq == 0 || eq == std::string::npos || eq + 1 == spec.size()) {
    fmt::print(stderr, "error: --from {}: expected NAME=FILE[,FILE...]\n", spec);
    return std::nullopt;
  }
  FidelitySource source{spec.substr(0, eq), {}, {}};
  std::string_view files = std::string_view(spec).substr(eq + 1);
  while (!files.empty()) {
    const std::string file(files.substr(0, files.find(',')));
    files.remove_prefix(std::min(files.size(), file.size() + 1));
    try {
      const json doc = parse_json(read_input_file(file, kMaxResultsBytes, "a results file"), file);
      if (!doc.is_object()) {
        throw InputError(fmt::format("{}: not a drainsim results file (not a JSON object)", file));
      }
      source.runs.push_back(summary_values(doc, file));
      const json seed = doc.value("seed", json());
      if (!seed.is_number_unsigned()) {
        throw InputError(
            fmt::format("{}: seed: expected the run's seed (a whole number >= 0)", file));
      }
      source.seeds.push_back(seed.get<std::uint64_t>());
    } catch (const InputError& e) {
      fmt::print(stderr, "error: {}\n", e.what());
      return std::nullopt;
    }
  }
  return source;
}

// The engines on the scenario (virtual over --seeds seeds, realtime and process over
// --repeats runs each; repeat r runs seed SEED + r, so every engine samples the same
// workloads), then the --from sources.
int fidelity(const RunArgs& args) {
  // Without a scenario no engine runs: only --from files are compared.
  if (!time_scale_applies(
          args.time_scale, args.scenario.empty() ? std::vector<Engine>{} : args.engines,
          args.scenario.empty() ? "without a scenario no engine runs" : "--engines has neither")) {
    return kBadInput;
  }
  std::vector<FidelitySource> sources;
  Scenario s;
  RunOptions options;
  bool audits_ok = true;
  if (!args.scenario.empty()) {
    if (!prepare(args, s, options)) return kBadInput;
    const std::uint64_t first = s.seed;
    for (Engine e : args.engines) {
      options.engine = e;
      FidelitySource& source = sources.emplace_back(FidelitySource{to_string(e), {}, {}});
      const std::size_t runs = e == Engine::kVirtual ? args.seeds : args.repeats;
      for (std::size_t r = 0; r < runs; ++r) {
        s.seed = first + r;
        RunOutput out;
        int status = 0;
        if (!run_or_explain(s, options, out, status)) return status;
        if (!out.summary.audit.ok) {
          audits_ok = false;
          fmt::print(stderr, "error: the {} engine's audit failed for seed {}:\n", to_string(e),
                     s.seed);
          for (const std::string& err : out.summary.audit.errors) {
            fmt::print(stderr, "  {}\n", err);
          }
        }
        source.runs.push_back(metric_values(out.summary));
        source.seeds.push_back(s.seed);
      }
    }
    fmt::print(
        "fidelity of scenario {}: virtual over seeds {}.., realtime and process over repeats "
        "(repeat r runs seed {} + r) at time scale {}, realtime with {} job bodies, process with "
        "{}\n",
        s.name, first, first, options.time_scale, to_string(options.job_body),
        options.worker_cmd.empty() ? std::string("drainsim-worker") : options.worker_cmd);
  }
  for (const std::string& spec : args.from) {
    std::optional<FidelitySource> source = read_source(spec);
    if (!source) return kBadInput;
    fmt::print("{}: {} results files\n", source->name, source->runs.size());
    sources.push_back(std::move(*source));
  }
  if (sources.size() < 2) {
    fmt::print(stderr,
               "error: fidelity compares at least two sources: a scenario with two engines or "
               "more, or --from\n");
    return kBadInput;
  }
  const std::vector<FidelityRow> rows = fidelity_rows(sources);
  fmt::print(
      "mean ±half-width of the Student-t 95 % interval over the runs; verdicts from Welch's t "
      "test at 95 % against {}; \"same N seeds\": the paired t test at 95 % of the "
      "differences, seed by seed, over the seeds both ran\n\n",
      sources.front().name);
  fmt::print("{}", fidelity_table(sources, rows));
  std::size_t paired = 0;
  for (std::size_t i = 1; i < sources.size(); ++i) {
    paired += shared_seeds(sources.front(), sources[i]) >= 2 ? rows.size() : 0;
  }
  fmt::print("\n{} of {} comparisons differ", count_differences(rows),
             rows.size() * (sources.size() - 1));
  if (paired > 0) {
    fmt::print("; {} of {} on the same seeds", count_paired_differences(rows), paired);
  }
  fmt::print("\n");
  return audits_ok ? 0 : kAuditFailed;
}

// The real system: which, and where its adapter is.
void add_system_options(CLI::App* cmd, RunArgs& args) {
  cmd->add_option("--system", args.system,
                  "real: the system (an adapter's name: sidekiq, bullmq, celery-redis, ...)");
  cmd->add_option("--adapters", args.adapters,
                  "real: the adapters' folder (default $DRAINSIM_ADAPTERS, else the installed "
                  "share/drainsim/adapters, else the source tree's adapters/)");
}

void declare_run(CLI::App* cmd, RunArgs& args) {
  add_scenario_options(cmd, args);
  cmd->add_flag("--timeline", args.timeline, "Record the timeline in the results");
  cmd->add_option("--out", args.out, "Results file (default results/<name>-<seed>.json)");
  add_enum_option(cmd, "--engine", args.engine, "virtual (default), realtime or process");
  add_limit_options(cmd, args);
  add_engine_options(cmd, args);
  add_system_options(cmd, args);
  add_fault_option(cmd, args.fault);
}

void declare_real(CLI::App* cmd, RunArgs& args) {
  add_scenario_options(cmd, args);
  add_system_options(cmd, args);
  cmd->get_option("--system")->required();
  args.repeats = 1;
  cmd->add_option("--repeats", args.repeats, "Runs, repeat r with seed SEED+r (default 1)")
      ->check(CLI::Range(1, 1000));
  cmd->add_flag("--timeline", args.timeline, "Record the timeline in the results");
  cmd->add_option("--out-dir", args.out_dir,
                  "Folder for the results, one file per repeat: NAME-SYSTEM-SEED.json (default "
                  "results/real)");
  cmd->add_option("--keep", args.keep,
                  "Copy each run's adapter events and program logs into this folder");
}

void declare_fidelity(CLI::App* cmd, RunArgs& args) {
  cmd->add_option("scenario", args.scenario, "Scenario file (JSON) to run on the --engines");
  add_seed_option(cmd, args.seed, "Seed (overrides the scenario's)");
  add_set_option(cmd, args.sets);
  add_max_memory_option(cmd, args.max_memory);
  add_engine_options(cmd, args);
  add_system_options(cmd, args);
  cmd->add_option("--from", args.from,
                  "A source read from results files: NAME=FILE[,FILE...] (repeatable; after the "
                  "engines)")
      ->allow_extra_args(false);
  add_seeds_option(cmd, args.seeds, "virtual: runs over seeds SEED, SEED+1, ... (default 10)");
  cmd->add_option("--repeats", args.repeats,
                  "realtime, process, real: runs each, repeat r with seed SEED+r (default 3)")
      ->check(CLI::Range(1, 1000));
  add_enum_list_option(cmd, "--engines", args.engines,
                       "The engines compared, the first the reference (default "
                       "virtual,realtime,process)");
}

}  // namespace

void add_run_commands(CLI::App& app, std::vector<Command>& out) {
  out.push_back(subcommand(app, "run",
                           "Run one scenario (in virtual time unless --engine says otherwise)",
                           declare_run, run));
  out.push_back(subcommand(app, "real",
                           "Run a scenario on a real job system (its real library on a throwaway "
                           "broker, in real time), over repeats",
                           declare_real, real));
  out.push_back(subcommand(app, "fidelity",
                           "Run a scenario on several engines, over several seeds or repeats each, "
                           "and compare the metrics as statistics",
                           declare_fidelity, fidelity));
}

}  // namespace drainsim::cli
