// `drainsim run` (one scenario, a summary, the results file) and `drainsim fidelity` (the
// scenario on the virtual, real-time and process engines, metrics side by side).
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "analysis/fidelity.h"
#include "cli/common.h"
#include "io/atomic_file.h"
#include "io/results.h"
#include "io/scenario_reader.h"
#include "run/simulation.h"

namespace drainsim::cli {
namespace {

using nlohmann::json;

struct RunArgs {
  std::string scenario;
  std::vector<std::string> sets;
  std::optional<std::uint64_t> seed;
  bool timeline = false;
  std::string out;
  std::string fault;
  Engine engine = Engine::kVirtual;
  double time_scale = 100;
  JobBody job_body = JobBody::kSleep;
  std::string worker_cmd;
  std::string worker_log;
  ModelAccess access = ModelAccess::kLock;
};

// What to run: the scenario, its seed and overrides.
void add_scenario_options(CLI::App* cmd, RunArgs& args) {
  add_scenario_argument(cmd, args.scenario);
  add_seed_option(cmd, args.seed, "Seed (overrides the scenario's)");
  add_set_option(cmd, args.sets);
}

// How the real-time and process engines run it.
void add_engine_options(CLI::App* cmd, RunArgs& args) {
  cmd->add_option("--time-scale", args.time_scale,
                  "realtime, process: simulated seconds per real second (default 100)")
      ->check(CLI::PositiveNumber);
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
}

std::string fmt_seconds(const json& v) {
  if (v.is_null()) return "-";
  return fmt::format("{:.3f}s", v.get<double>());
}

std::string fmt_dist(const json& d) {
  if (d.is_null()) return "none";
  return fmt::format("p50 {}  p99 {}  max {}  (n={})", fmt_seconds(d["p50"]), fmt_seconds(d["p99"]),
                     fmt_seconds(d["max"]), d["count"].get<long>());
}

void print_summary(const json& r, const std::string& path, double wall_s) {
  const json& s = r["summary"];
  const json& e = s["exits"];
  fmt::print("drainsim {} — scenario {} (seed {}), engine {}\n",
             r["drainsim_version"].get<std::string>(), r["scenario"]["name"].get<std::string>(),
             r["seed"].get<std::uint64_t>(), r["engine"].get<std::string>());
  fmt::print("  simulated {:.1f}s{}\n", r["run"]["ended_at_s"].get<double>(),
             r["run"]["ended_early"].get<bool>() ? " (ended once nothing was left to do)" : "");
  fmt::print("jobs\n");
  fmt::print("  enqueued {}  completed {}  pending {}  discarded {}  lost {}\n",
             s["jobs_enqueued"].get<long>(), s["jobs_completed"].get<long>(),
             s["jobs_pending"].get<long>(), s["jobs_discarded"].get<long>(),
             s["jobs_lost"].get<long>());
  fmt::print("  job loss {} (lost {} + discarded by shutdown {})\n", s["job_loss"].get<long>(),
             s["jobs_lost"].get<long>(), s["jobs_discarded_by_shutdown"].get<long>());
  fmt::print("  interrupted jobs {} ({:.3f}%)  shutdown retries {}  duplicate executions {}\n",
             s["interrupted_jobs"].get<long>(), 100 * s["interrupted_fraction"].get<double>(),
             s["shutdown_retries"].get<long>(), s["duplicate_executions"].get<long>());
  fmt::print("  wasted work {:.1f}s  stuck at end {}\n", s["wasted_work_s"].get<double>(),
             s["stuck_at_end"].get<long>());
  fmt::print("  job latency {}\n",
             s["job_latency_s"].is_null()
                 ? std::string("none")
                 : fmt::format("p50 {}  p99 {}", fmt_seconds(s["job_latency_s"]["p50"]),
                               fmt_seconds(s["job_latency_s"]["p99"])));
  fmt::print("shutdown\n");
  fmt::print("  drain latency          {}\n", fmt_dist(s["drain_latency_s"]));
  fmt::print("  orphan recovery delay  {}\n", fmt_dist(s["orphan_recovery_delay_s"]));
  fmt::print(
      "  exits: clean {}  died on TERM {}  killed at deadline {}  OOM killed {}  "
      "exited with error {}  killed by signal {}  (still running at the end: {})\n",
      e["clean"].get<long>(), e["died_on_term"].get<long>(), e["killed_at_deadline"].get<long>(),
      e["oom_killed"].get<long>(), e["exited_with_error"].get<long>(),
      e["killed_by_signal"].get<long>(), s["processes_running_at_end"].get<long>());
  const json& d = s["deploy_duration_s"];
  fmt::print("  deploys: {}\n",
             d.is_null() ? std::string("none")
                         : fmt::format("{} finished, mean {}  max {}", d["count"].get<long>(),
                                       fmt_seconds(d["mean"]), fmt_seconds(d["max"])));
  for (const auto& w : r["warnings"]) fmt::print("warning: {}\n", w.get<std::string>());
  const json& a = s["audit"];
  if (a["ok"].get<bool>()) {
    fmt::print("audit: ok ({})\n", a["balance"].get<std::string>());
  } else {
    fmt::print("audit: FAILED, {} errors ({})\n", a["error_count"].get<long>(),
               a["balance"].get<std::string>());
    for (const auto& err : a["errors"]) fmt::print("  {}\n", err.get<std::string>());
  }
  fmt::print("result hash {}  written to {}  ({:.3f}s wall)\n", r["result_hash"].get<std::string>(),
             path, wall_s);
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
  options.timeline = args.timeline;
  options.stream_timeline = args.timeline;
  options.engine = args.engine;
  options.access = args.access;
  options.worker_cmd = args.worker_cmd;
  options.worker_log = args.worker_log;
  options.time_scale = args.time_scale;
  options.job_body = args.job_body;
  return true;
}

// Runs the scenario; false (the error printed) when the run could not be done: its
// worker program cannot start, or the user interrupted it.
bool run_or_explain(const Scenario& s, const RunOptions& options, RunOutput& out, int& status) {
  try {
    out = run_scenario(s, options);
  } catch (const RunError& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    status = kBadInput;
    return false;
  }
  if (out.interrupted) {
    fmt::print(stderr,
               "interrupted at {:.1f}s (simulated); {} worker process(es) killed and reaped\n",
               to_seconds(out.ended_at), out.processes_left);
    status = kInterrupted;
    return false;
  }
  return true;
}

int run(const RunArgs& args) {
  Scenario s;
  RunOptions options;
  if (!prepare(args, s, options)) return kBadInput;
  if ((!args.worker_cmd.empty() || !args.worker_log.empty()) &&
      options.engine != Engine::kProcess) {
    fmt::print(stderr, "error: --worker-cmd and --worker-log need --engine process\n");
    return kBadInput;
  }
  if (!parse_fault(args.fault, options.faults)) return kBadInput;
  const auto t0 = std::chrono::steady_clock::now();
  RunOutput out;
  int status = 0;
  if (!run_or_explain(s, options, out, status)) return status;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::string path = args.out;
  if (path.empty()) {
    std::filesystem::create_directories("results");
    path = fmt::format("results/{}-{}.json", s.name, s.seed);
  }
  const bool written = write_whole(path, [&](std::ostream& f) {
    if (out.timeline) {  // compact, streamed: an indented timeline would be far larger
      write_results(out.results, out.timeline.get(), [&](std::string_view piece) { f << piece; });
    } else {
      f << out.results.dump(2);
    }
    f << '\n';
  });
  if (!written) {
    fmt::print(stderr, "error: {}: cannot write the results file\n", path);
    return kBadInput;
  }
  print_summary(out.results, path, wall);
  if (!out.audit.ok) {
    fmt::print(stderr, "error: the audit failed: {} jobs or totals do not balance\n",
               out.audit.error_count);
    for (const std::string& e : out.audit.errors) fmt::print(stderr, "  {}\n", e);
    return kAuditFailed;
  }
  return 0;
}

int fidelity(const RunArgs& args) {
  Scenario s;
  RunOptions options;
  if (!prepare(args, s, options)) return kBadInput;
  std::vector<json> results;
  std::vector<std::string> engines;
  bool audits_ok = true;
  for (Engine e : {Engine::kVirtual, Engine::kRealtime, Engine::kProcess}) {
    options.engine = e;
    RunOutput out;
    int status = 0;
    if (!run_or_explain(s, options, out, status)) return status;
    if (!out.audit.ok) {
      audits_ok = false;
      fmt::print(stderr, "error: the {} engine's audit failed:\n", to_string(e));
      for (const std::string& err : out.audit.errors) fmt::print(stderr, "  {}\n", err);
    }
    engines.push_back(to_string(e));
    results.push_back(std::move(out.results));
  }
  fmt::print(
      "fidelity of scenario {} (seed {}), realtime and process at time scale {}, realtime with {} "
      "job bodies, process with {}\n",
      s.name, s.seed, options.time_scale, to_string(options.job_body),
      options.worker_cmd.empty() ? std::string("drainsim-worker") : options.worker_cmd);
  fmt::print("{}", fidelity_table(engines, fidelity_rows(results)));
  return audits_ok ? 0 : kAuditFailed;
}

void declare_run(CLI::App* cmd, RunArgs& args) {
  add_scenario_options(cmd, args);
  cmd->add_flag("--timeline", args.timeline, "Record the timeline in the results");
  cmd->add_option("--out", args.out, "Results file (default results/<name>-<seed>.json)");
  add_enum_option(cmd, "--engine", args.engine, "virtual (default), realtime or process");
  add_engine_options(cmd, args);
  add_fault_option(cmd, args.fault);
}

void declare_fidelity(CLI::App* cmd, RunArgs& args) {
  add_scenario_options(cmd, args);
  add_engine_options(cmd, args);
}

}  // namespace

Command add_run_command(CLI::App& app) {
  return subcommand(app, "run", "Run one scenario (in virtual time unless --engine says otherwise)",
                    declare_run, run);
}

Command add_fidelity_command(CLI::App& app) {
  return subcommand(app, "fidelity",
                    "Run a scenario on the virtual and real-time engines and compare the metrics",
                    declare_fidelity, fidelity);
}

}  // namespace drainsim::cli
