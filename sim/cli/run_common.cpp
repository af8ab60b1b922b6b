#include "cli/run_common.h"

#include <fmt/format.h>

#include "io/atomic_file.h"
#include "io/json_reader.h"
#include "io/results.h"
#include "io/scenario_reader.h"
#include "process/child_process.h"
#include "run/real_engine.h"

namespace drainsim::cli {

namespace {

std::string fmt_spread(const std::optional<Spread>& d) {
  if (!d) return "none";
  return fmt::format("p50 {}  p99 {}  max {}  (n={})", format_seconds(d->p50),
                     format_seconds(d->p99), format_seconds(d->max), d->count);
}

// The run's trouble by the event that caused it: a row per event with any, what the
// deploys cost each, and a day's cost at `deploys_per_day` (0: not given).
void print_causes(const RunSummary& s, double deploys_per_day) {
  std::vector<const CauseRow*> shown;
  std::size_t width = 0;
  for (const CauseRow& r : s.by_cause) {
    const CauseCounts& c = r.counts;
    if (c.interrupted + c.job_loss() + c.duplicate_executions + c.shutdown_retries == 0) continue;
    shown.push_back(&r);
    width = std::max(width, r.label().size());
  }
  const CauseCounts& deploys = s.by_class[static_cast<std::size_t>(CauseClass::kDeploys)];
  const auto n = std::count_if(s.by_cause.begin(), s.by_cause.end(), [](const CauseRow& r) {
    return r.cause_class == CauseClass::kDeploys;
  });
  const auto per_day = [&] {
    if (deploys_per_day <= 0) return;
    if (n == 0) {
      fmt::print("  --deploys-per-day {:g}: the scenario has no deploy to scale\n",
                 deploys_per_day);
      return;
    }
    const auto day = [&](std::int64_t v) {
      return fmt::format("{:.3g}",
                         static_cast<double>(v) / static_cast<double>(n) * deploys_per_day);
    };
    fmt::print("  a day at {:g} deploys: job loss {}  interrupted {}  duplicates {}\n",
               deploys_per_day, day(deploys.job_loss()), day(deploys.interrupted),
               day(deploys.duplicate_executions));
  };
  if (shown.empty()) {
    fmt::print("by cause: no job interrupted, lost or run twice\n");
    per_day();
    return;
  }
  fmt::print("by cause\n");
  for (const CauseRow* r : shown) {
    const CauseCounts& c = r->counts;
    fmt::print(
        "  {:<{}}  job loss {} (lost {} + discarded {})  interrupted {}  retries {}  "
        "duplicates {}\n",
        r->label(), width, c.job_loss(), c.lost, c.discarded_by_shutdown, c.interrupted,
        c.shutdown_retries, c.duplicate_executions);
  }
  if (n > 1) {
    const auto each = [&](std::int64_t v) {
      return fmt::format("{:.3g}", static_cast<double>(v) / static_cast<double>(n));
    };
    fmt::print("  per deploy ({} deploys): job loss {}  interrupted {}\n", n,
               each(deploys.job_loss()), each(deploys.interrupted));
  }
  per_day();
}

void print_summary(const Scenario& scenario, Engine engine, const RunOutput& out,
                   const std::string& path, double wall_s, double deploys_per_day) {
  const RunSummary& s = out.summary;
  const JobTotals& j = s.jobs;
  fmt::print("drainsim {} — scenario {} (seed {}), engine {}\n", DRAINSIM_VERSION, scenario.name,
             scenario.seed, to_string(engine));
  // A real run is not simulated: it ran on the wall clock.
  fmt::print("  {} {}{}\n", engine == Engine::kReal ? "ran" : "simulated",
             format_seconds(to_seconds(s.ended_at)),
             !s.interrupted.by.empty() ? " (interrupted: the figures are partial)"
             : s.ended_early           ? " (ended once nothing was left to do)"
                                       : " (cut off at duration + settle)");
  // The paced engines say how well they kept to their time scale, kept up or not.
  if (const auto run = out.results.find("run");
      run != out.results.end() && run->contains("pacing")) {
    const nlohmann::json& p = (*run)["pacing"];
    std::string bodies;
    if (p["bodies"].get<std::uint64_t>() > 0) {
      bodies = fmt::format(", job bodies {:.2f} % late", p["bodies_late_percent"].get<double>());
    }
    fmt::print(
        "  paced at {}x: timers and handlers late p50 {}  p99 {} ({:.3g} ms real; timers {:.3g}, "
        "handlers {:.3g}){}: {}\n",
        p["time_scale"].get<double>(), format_seconds(p["late_p50_s"].get<double>()),
        format_seconds(p["late_p99_s"].get<double>()), p["late_p99_real_ms"].get<double>(),
        p["timers_late_p99_real_ms"].get<double>(), p["handlers_late_p99_real_ms"].get<double>(),
        bodies, p["behind"].get<bool>() ? "fell behind (engine_behind)" : "kept up");
  }
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
  print_causes(s, deploys_per_day);
  fmt::print("shutdown\n");
  fmt::print("  drain latency          {}\n", fmt_spread(s.drain_latency));
  // A job the worker handed back is no orphan: said apart from what the backend recovered.
  fmt::print("  requeued by the worker {}\n", fmt_spread(s.requeue_delay));
  fmt::print("  recovered by backend   {}\n", fmt_spread(s.backend_recovery_delay));
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
  // The engine's own lag first: it is why the other figures cannot be read as the fleet's.
  for (bool behind : {true, false}) {
    for (const Warning& w : s.warnings) {
      if ((w.code == "engine_behind") == behind) fmt::print("warning: {}\n", w.message);
    }
  }
  if (s.audit.ok) {
    fmt::print("audit: ok ({})\n", s.balance);
  } else {
    fmt::print("audit: FAILED, {} errors ({})\n", s.audit.error_count, s.balance);
    for (const std::string& err : s.audit.errors) fmt::print("  {}\n", err);
  }
  fmt::print("result hash {}  written to {}  ({} wall)\n", out.hash, path, format_seconds(wall_s));
}

}  // namespace

void add_scenario_options(CLI::App* cmd, ScenarioArgs& args) {
  add_scenario_argument(cmd, args.file);
  add_seed_option(cmd, args.seed, "Seed (overrides the scenario's)");
  add_set_option(cmd, args.sets);
  add_max_memory_option(cmd, args.max_memory);
}

void add_engine_options(CLI::App* cmd, EngineArgs& args) {
  add_time_scale_option(cmd, args.time_scale);
  add_enum_option(cmd, "--job-body", args.job_body,
                  "realtime: job bodies sleep (default) or spin on real threads, or are timers");
  add_enum_option(cmd, "--model-access", args.access,
                  "realtime: worker strands reach the backend under a lock (default) or by "
                  "posting to its strand");
  cmd->add_option("--worker-cmd", args.worker_cmd,
                  "process: a shell command that runs a worker (docs/worker-protocol.md) "
                  "instead of drainsim-worker");
  path_option(
      cmd->add_option("--worker-log", args.worker_log,
                      "process: append the workers' output to this file (default: discarded)"));
  cmd->add_option("--worker-log-max", args.worker_log_max,
                  "process: the most of the workers' output --worker-log gets per run, e.g. "
                  "1MiB, 10GB (KB = 1024 bytes; default 64MiB; 0: no cap); the rest is "
                  "dropped, and a line in the log says so")
      ->transform(CLI::AsSizeValue(false));
}

void add_system_options(CLI::App* cmd, SystemArgs& args) {
  cmd->add_option("--system", args.system,
                  "real: the system (an adapter's name: sidekiq, bullmq, celery-redis, ...)");
  path_option(
      cmd->add_option("--adapters", args.adapters,
                      "real: the adapters' folder (default $DRAINSIM_ADAPTERS, else the installed "
                      "share/drainsim/adapters, else the source tree's adapters/)"));
}

bool prepare(const ScenarioArgs& what, const EngineArgs& engine, const SystemArgs& system,
             Engine engine_kind, Scenario& s, RunOptions& options) {
  try {
    s = load_scenario_file(what.file, what.sets);
  } catch (const ScenarioError& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return false;
  }
  if (what.seed) s.seed = *what.seed;
  if (!fits_in_memory(s, what.file, what.max_memory)) return false;
  options.engine = engine_kind;
  if (engine.time_scale) options.paced.time_scale = *engine.time_scale;
  options.realtime.job_body = engine.job_body;
  options.realtime.access = engine.access;
  if (engine.worker_cmd) {
    if (const std::string why = shell_command_error(*engine.worker_cmd); !why.empty()) {
      fmt::print(stderr, "error: --worker-cmd \"{}\": {}\n", *engine.worker_cmd, why);
      return false;
    }
  }
  options.process.worker_cmd = engine.worker_cmd.value_or("");
  options.process.worker_log = engine.worker_log;
  if (engine.worker_log_max) options.process.worker_log_max = *engine.worker_log_max;
  options.process.on_warning = [](const std::string& message) {
    fmt::print(stderr, "warning: {}\n", message);
  };
  options.real.system = system.system;
  options.real.adapters = system.adapters;
  options.real.progress = [](const std::string& line) { fmt::print(stderr, "real: {}\n", line); };
  if (engine_kind == Engine::kReal || !system.system.empty()) {
    if (system.system.empty()) {
      fmt::print(stderr, "error: the real engine needs --system NAME\n");
      return false;
    }
    try {
      const std::vector<std::string> bad = not_honoured(s, find_system(options.real));
      for (const std::string& line : bad) fmt::print(stderr, "error: {}: {}\n", what.file, line);
      if (!bad.empty()) return false;
    } catch (const std::exception& e) {  // RunError, InputError
      fmt::print(stderr, "error: {}\n", e.what());
      return false;
    }
  }
  return true;
}

bool run_or_explain(const Scenario& s, const RunOptions& options, RunOutput& out, int& status,
                    bool partial, const std::function<std::string()>& lead) {
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
  if (out.failed) {  // the cause first, before the summary
    const Interruption& f = out.summary.interrupted;
    fmt::print(stderr, "error: the run failed at {} ({}): {}\n", format_seconds(to_seconds(f.at)),
               f.component, f.reason);
    status = kRunFailed;
    return partial;
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

int report(const Scenario& s, const RunOptions& options, const RunOutput& out,
           const std::string& path, double wall_s, double deploys_per_day) {
  std::string why;         // the timeline's temporary files could not be read back
  std::string system_why;  // what the system said, when it did
  const bool written = write_whole(
      path,
      [&](std::ostream& f) {
        if (out.timeline) {  // compact, streamed: an indented timeline would be far larger
          try {
            write_results_once(out.results, *out.timeline,
                               [&](std::string_view piece) { f << piece; });
          } catch (const std::runtime_error& e) {
            why = fmt::format(" ({})", e.what());
            f.setstate(std::ios::badbit);  // not written: no partial file
          }
        } else {
          f << out.results.dump(2);
        }
        f << '\n';
      },
      &system_why);
  if (!written) {
    if (why.empty() && !system_why.empty()) why = " (" + system_why + ")";
    fmt::print(stderr, "error: {}: cannot write the results file{}\n", path, why);
    return kBadInput;
  }
  print_summary(s, options.engine, out, path, wall_s, deploys_per_day);
  if (!out.summary.audit.ok) {
    fmt::print(stderr, "error: the audit failed: {} jobs or totals do not balance\n",
               out.summary.audit.error_count);
    for (const std::string& e : out.summary.audit.errors) fmt::print(stderr, "  {}\n", e);
    return kAuditFailed;
  }
  return 0;
}

bool run_seeds(Scenario s, const RunOptions& options, std::size_t runs, FidelitySource& source,
               bool& audits_ok, int& status) {
  const std::uint64_t first = s.seed;
  for (std::size_t r = 0; r < runs; ++r) {
    s.seed = first + r;
    RunOutput out;
    if (!run_or_explain(s, options, out, status)) return false;
    if (!out.summary.audit.ok) {
      audits_ok = false;
      fmt::print(stderr, "error: the {} engine's audit failed for seed {}:\n",
                 to_string(options.engine), s.seed);
      for (const std::string& err : out.summary.audit.errors) fmt::print(stderr, "  {}\n", err);
    }
    source.runs.push_back(metric_values(out.summary));
    source.seeds.push_back(s.seed);
  }
  return true;
}

bool load_tolerances(const std::string& path, const std::string& case_name, Tolerances& out) {
  if (path.empty()) return true;
  try {
    out = read_tolerances(path);
  } catch (const InputError& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return false;
  }
  if (!case_name.empty() && !out.cases.contains(case_name)) {
    fmt::print(stderr, "error: --case {}: {} declares no tolerances for it\n", case_name, path);
    return false;
  }
  return true;
}

void print_fidelity(const std::vector<FidelitySource>& sources,
                    const std::vector<FidelityRow>& rows, const Tolerances& tolerances,
                    const std::string& case_name) {
  fmt::print(
      "mean ±half-width of the Student-t 95 % interval over the runs; verdicts by equivalence "
      "test (TOST at 95 %: the difference's 90 % interval against ±tolerance) against {}, "
      "paired over the seeds both ran where they share any, Welch's otherwise; tolerances: "
      "{}{}\n\n",
      sources.front().name, tolerances.source,
      tolerances.cases.contains(case_name) ? fmt::format(" (case {})", case_name) : "");
  fmt::print("{}", fidelity_table(sources, rows));
  const std::size_t runs = runs_to_decide(rows);
  const std::size_t unmeasured = count_verdicts(rows, Verdict::kNotMeasured);
  fmt::print("\n{} comparisons: {} equivalent, {} differ, {} inconclusive{}{}\n",
             rows.size() * (sources.size() - 1), count_verdicts(rows, Verdict::kEquivalent),
             count_verdicts(rows, Verdict::kDiffers), count_verdicts(rows, Verdict::kInconclusive),
             runs > 0 ? fmt::format(" (the most runs asked for: ~{})", runs) : "",
             unmeasured > 0 ? fmt::format(", {} not measured", unmeasured) : "");
}

}  // namespace drainsim::cli
