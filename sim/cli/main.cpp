// drainsim command line: run, compare, sweep (and merge sharded sweeps), tune and validate
// scenarios; check a profile's conformance.
// Exit codes: 0 ok, 2 bad input (file, JSON path and what was expected on stderr),
// 3 audit failure (which jobs, and why), 130 interrupted (Ctrl+C); `conformance`: 1 when a
// required check fails.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include "analysis/compare.h"
#include "analysis/conformance.h"
#include "analysis/fidelity.h"
#include "analysis/sweep.h"
#include "analysis/sweep_part.h"
#include "analysis/tune.h"
#include "cli/progress.h"
#include "io/results.h"
#include "io/scenario_loader.h"
#include "io/trace_export.h"
#include "profiles/profile.h"
#include "run/simulation.h"

namespace {

using drainsim::all_profiles;
using drainsim::find_profile;
using drainsim::Profile;
using drainsim::profile_json;
using drainsim::Scenario;
using nlohmann::json;

constexpr int kBadInput = 2;
constexpr int kAuditFailed = 3;
constexpr int kInterrupted = 130;

// Writes `path` whole or not at all: `write` writes into a temporary file beside it, renamed
// over it once complete, so that an interrupted or failed write never leaves a truncated
// results or part file where a reader expects a complete one. A path that exists and is
// not a regular file itself (a symbolic link such as /dev/stdout, a device, a pipe) is
// written directly, so that it is never replaced. False when it cannot be written.
bool write_whole(const std::string& path, const std::function<void(std::ostream&)>& write) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(path, ec);
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    std::ofstream f(path, std::ios::binary);
    write(f);
    return static_cast<bool>(f << std::flush);
  }
  const std::string tmp = fmt::format("{}.tmp-{}", path, getpid());
  bool written;
  {
    std::ofstream f(tmp, std::ios::binary);
    if (f) write(f);
    written = static_cast<bool>(f << std::flush);
  }
  if (written) fs::rename(tmp, path, ec);
  if (!written || ec) {
    fs::remove(tmp, ec);
    return false;
  }
  return true;
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

struct RunArgs {
  std::string scenario;
  std::vector<std::string> sets;
  std::optional<std::uint64_t> seed;
  bool timeline = false;
  std::string out;
  std::string fault;
  std::string engine = "virtual";
  double time_scale = 100;
  std::string job_body = "sleep";
  std::string worker_cmd;
  std::string worker_log;
  std::string access = "lock";
};

// Loads the scenario and options of `run` and `fidelity`; false (the error printed) on bad
// input.
bool prepare(const RunArgs& args, Scenario& s, drainsim::RunOptions& options) {
  try {
    s = drainsim::load_scenario_file(args.scenario, args.sets);
  } catch (const drainsim::ScenarioError& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return false;
  }
  if (args.seed) s.seed = *args.seed;
  options.timeline = args.timeline;
  options.stream_timeline = args.timeline;
  options.engine = args.engine == "realtime"  ? drainsim::Engine::kRealtime
                   : args.engine == "process" ? drainsim::Engine::kProcess
                                              : drainsim::Engine::kVirtual;
  options.access =
      args.access == "lock" ? drainsim::ModelAccess::kLock : drainsim::ModelAccess::kStrand;
  options.worker_cmd = args.worker_cmd;
  options.worker_log = args.worker_log;
  options.time_scale = args.time_scale;
  options.job_body = args.job_body == "spin"    ? drainsim::JobBody::kSpin
                     : args.job_body == "timer" ? drainsim::JobBody::kTimer
                                                : drainsim::JobBody::kSleep;
  return true;
}

// Runs the scenario; false (the error printed) when the run could not be done: its
// worker program cannot start, or the user interrupted it.
bool run_or_explain(const Scenario& s, const drainsim::RunOptions& options,
                    drainsim::RunOutput& out, int& status) {
  try {
    out = drainsim::run_scenario(s, options);
  } catch (const drainsim::RunError& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    status = kBadInput;
    return false;
  }
  if (out.interrupted) {
    fmt::print(stderr,
               "interrupted at {:.1f}s (simulated); {} worker process(es) killed and reaped\n",
               drainsim::to_seconds(out.ended_at), out.processes_left);
    status = kInterrupted;
    return false;
  }
  return true;
}

// The scenario on the virtual, real-time and process engines, metrics side by side.
int fidelity(const RunArgs& args) {
  Scenario s;
  drainsim::RunOptions options;
  if (!prepare(args, s, options)) return kBadInput;
  std::vector<nlohmann::json> results;
  std::vector<std::string> engines;
  bool audits_ok = true;
  for (drainsim::Engine e :
       {drainsim::Engine::kVirtual, drainsim::Engine::kRealtime, drainsim::Engine::kProcess}) {
    options.engine = e;
    drainsim::RunOutput out;
    int status = 0;
    if (!run_or_explain(s, options, out, status)) return status;
    if (!out.audit.ok) {
      audits_ok = false;
      fmt::print(stderr, "error: the {} engine's audit failed:\n", drainsim::to_string(e));
      for (const std::string& err : out.audit.errors) fmt::print(stderr, "  {}\n", err);
    }
    engines.push_back(drainsim::to_string(e));
    results.push_back(std::move(out.results));
  }
  fmt::print(
      "fidelity of scenario {} (seed {}), realtime and process at time scale {}, realtime with {} "
      "job bodies, process with {}\n",
      s.name, s.seed, options.time_scale, drainsim::to_string(options.job_body),
      options.worker_cmd.empty() ? std::string("drainsim-worker") : options.worker_cmd);
  fmt::print("{}", drainsim::fidelity_table(engines, drainsim::fidelity_rows(results)));
  return audits_ok ? 0 : kAuditFailed;
}

// --inject-fault drop-acked-job=JOB (testing only); false (the error printed) when malformed.
bool parse_fault(const std::string& fault, drainsim::BackendFaults& faults) {
  if (fault.empty()) return true;
  const std::string prefix = "drop-acked-job=";
  std::uint64_t job = 0;
  const bool prefixed = fault.rfind(prefix, 0) == 0;
  const char* const first = fault.data() + (prefixed ? prefix.size() : 0);
  const char* const last = fault.data() + fault.size();
  const auto [end, ec] = std::from_chars(first, last, job);
  if (!prefixed || first == last || ec != std::errc() || end != last) {
    fmt::print(stderr, "error: --inject-fault: expected drop-acked-job=JOB, got \"{}\"\n", fault);
    return false;
  }
  faults.drop_acked_job = job;
  return true;
}

int run(const RunArgs& args) {
  Scenario s;
  drainsim::RunOptions options;
  if (!prepare(args, s, options)) return kBadInput;
  if ((!args.worker_cmd.empty() || !args.worker_log.empty()) &&
      options.engine != drainsim::Engine::kProcess) {
    fmt::print(stderr, "error: --worker-cmd and --worker-log need --engine process\n");
    return kBadInput;
  }
  if (!parse_fault(args.fault, options.faults)) return kBadInput;
  const auto t0 = std::chrono::steady_clock::now();
  drainsim::RunOutput out;
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
      drainsim::write_results(out.results, out.timeline.get(),
                              [&](std::string_view piece) { f << piece; });
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

struct CompareArgs {
  std::string scenario;
  std::string profiles = "all";
  std::size_t seeds = 10;
  std::optional<std::uint64_t> seed;
  std::string format = "table";
  std::vector<std::string> sets;
  std::string out;
  std::string fault;
};

// A command's output: to stdout, or to `path` when one is given. False (said) when the
// file cannot be written.
bool emit(const std::string& text, const std::string& path) {
  if (path.empty()) {
    fmt::print("{}", text);
    return true;
  }
  if (write_whole(path, [&](std::ostream& f) { f << text; })) return true;
  fmt::print(stderr, "error: {}: cannot write it\n", path);
  return false;
}

// Says which run's audit failed and how.
void report_audit_failure(const std::string& where, const drainsim::CompareRun& r) {
  fmt::print(stderr, "error: the audit failed for {}, seed {}: {} jobs or totals do not balance\n",
             where, r.seed, r.audit_error_count);
  for (const std::string& e : r.audit_errors) fmt::print(stderr, "  {}\n", e);
}

// The scenario against several profiles over several seeds (sim/analysis/compare.h).
int compare(const CompareArgs& args) {
  const drainsim::ProfileSelection selection = drainsim::select_profiles(args.profiles);
  if (!selection.error.empty()) {
    fmt::print(stderr, "error: {}\n", selection.error);
    return kBadInput;
  }
  drainsim::CompareSpec spec;
  spec.scenario = args.scenario;
  spec.overrides = args.sets;
  spec.profiles = selection.names;
  spec.seeds = args.seeds;
  spec.first_seed = args.seed;
  if (!parse_fault(args.fault, spec.faults)) return kBadInput;
  drainsim::Comparison c;
  try {
    c = drainsim::compare_profiles(spec);
  } catch (const drainsim::ScenarioError& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return kBadInput;
  }
  const auto format = args.format == "md"     ? drainsim::CompareFormat::kMarkdown
                      : args.format == "json" ? drainsim::CompareFormat::kJson
                      : args.format == "csv"  ? drainsim::CompareFormat::kCsv
                                              : drainsim::CompareFormat::kTable;
  const std::string text = drainsim::format_comparison(c, format);
  if (!emit(text, args.out)) return kBadInput;
  for (const drainsim::ProfileComparison& p : c.profiles) {
    for (const drainsim::CompareRun& r : p.runs) {
      if (!r.audit_ok) report_audit_failure("profile " + p.profile, r);
    }
  }
  return c.audits_ok() ? 0 : kAuditFailed;
}

void add_access_option(CLI::App* cmd, RunArgs& args) {
  cmd->add_option("--model-access", args.access,
                  "realtime: worker strands reach the backend under a lock (default) or by "
                  "posting to its strand")
      ->check(CLI::IsMember({"strand", "lock"}));
}

void add_worker_options(CLI::App* cmd, RunArgs& args) {
  cmd->add_option("--worker-cmd", args.worker_cmd,
                  "process: a shell command that runs a worker (docs/worker-protocol.md) "
                  "instead of drainsim-worker");
  cmd->add_option("--worker-log", args.worker_log,
                  "process: append the workers' output to this file (default: discarded)");
}

int validate(const std::vector<std::string>& files, const std::vector<std::string>& sets) {
  int status = 0;
  for (const std::string& f : files) {
    try {
      const Scenario s = drainsim::load_scenario_file(f, sets);
      fmt::print("{}: ok ({}, {} events)\n", f, s.name, s.events.size());
    } catch (const drainsim::ScenarioError& e) {
      fmt::print(stderr, "error: {}\n", e.what());
      status = kBadInput;
    }
  }
  return status;
}

// `drainsim profiles [NAME] [--format table|json]`.
int profiles(const std::string& name, const std::string& format) {
  std::vector<const Profile*> chosen;
  if (name.empty()) {
    for (const Profile& p : all_profiles()) chosen.push_back(&p);
  } else if (const Profile* found = find_profile(name)) {
    chosen.push_back(found);
  } else {
    std::vector<std::string> names;
    for (const Profile& p : all_profiles()) names.emplace_back(p.name);
    fmt::print(stderr, "drainsim profiles: unknown profile \"{}\", expected one of {}\n", name,
               fmt::join(names, ", "));
    return kBadInput;
  }
  if (format == "json") {
    json out = json::array();
    for (const Profile* p : chosen) out.push_back(profile_json(*p));
    fmt::print("{}\n", (name.empty() ? out : out[0]).dump(2));
    return 0;
  }
  if (!name.empty()) {  // one profile, every field
    const json j = profile_json(*chosen[0]);
    fmt::print("{}: {}\n", j["name"].get<std::string>(), j["summary"].get<std::string>());
    for (const char* part : {"worker", "backend", "shutdown", "backend_mechanisms"}) {
      fmt::print("  {}: {}\n", part, j[part].dump());
    }
    for (const json& o : j["options"]) {
      fmt::print("  option {} (default {}): {}\n", o["name"].get<std::string>(),
                 o["default"].dump(), o["doc"].get<std::string>());
    }
    return 0;
  }
  fmt::print("{:<16} {:>7} {:>9} {:>5}  {}\n", "profile", "grace", "heartbeat", "slots", "summary");
  for (const Profile* p : chosen) {
    const json j = profile_json(*p);
    fmt::print(
        "{:<16} {:>7} {:>9} {:>5}  {}\n", p->name, j["worker"]["grace_period"].get<std::string>(),
        j["worker"]["heartbeat_interval"].get<std::string>(), p->worker.concurrency, p->summary);
  }
  fmt::print(
      "\n`drainsim profiles NAME` shows one profile's defaults, behaviour, recovery "
      "mechanisms and options.\n");
  return 0;
}

// `drainsim conformance --profile NAME [--format text|json] [--out FILE]`: 0 when every
// required OJS graceful-shutdown check passes, 1 when one fails, 2 for an unknown profile.
int conformance(const std::string& name, const std::string& format, const std::string& out) {
  const Profile* profile = find_profile(name);
  if (profile == nullptr) {
    std::vector<std::string> names;
    for (const Profile& p : all_profiles()) names.emplace_back(p.name);
    fmt::print(stderr, "drainsim conformance: unknown profile \"{}\", expected one of {}\n", name,
               fmt::join(names, ", "));
    return kBadInput;
  }
  const drainsim::ConformanceReport report = drainsim::check_conformance(*profile);
  const std::string text = format == "json" ? drainsim::conformance_json(report).dump(2) + "\n"
                                            : drainsim::conformance_text(report);
  if (!emit(text, out)) return kBadInput;
  return report.required_passed() ? 0 : 1;
}

// `drainsim export --format chrome-trace RESULTS [--out FILE]` (sim/io/trace_export.h).
int export_trace(const std::string& path, const std::string& out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    fmt::print(stderr, "error: {}: cannot open the results file\n", path);
    return kBadInput;
  }
  drainsim::TraceExport trace;
  try {
    trace = drainsim::chrome_trace(json::parse(f));
  } catch (const json::exception& e) {
    fmt::print(stderr, "error: {}: not a drainsim results file: {}\n", path, e.what());
    return kBadInput;
  }
  if (!trace.error.empty()) {
    fmt::print(stderr, "error: {}: {}\n", path, trace.error);
    return kBadInput;
  }
  return emit(trace.trace, out) ? 0 : kBadInput;
}

}  // namespace

struct SweepArgs {
  std::string scenario;
  std::vector<std::string> grid;
  std::size_t seeds = 10;
  std::optional<std::uint64_t> seed;
  unsigned threads = 0;
  std::vector<std::string> sets;
  std::string out, csv;
  std::string shard;
  std::string fault;
};

// Set by SIGINT while a sweep runs (SweepSigint).
std::atomic<bool> g_sweep_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void on_sweep_sigint(int) { g_sweep_stop.store(true); }

// While alive, SIGINT sets g_sweep_stop instead of killing the process; the handler
// resets itself, so a second Ctrl+C kills at once. The previous disposition comes back at
// the end.
class SweepSigint {
 public:
  SweepSigint() {
    struct sigaction sa = {};
    sa.sa_handler = on_sweep_sigint;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &previous_);
  }
  ~SweepSigint() { sigaction(SIGINT, &previous_, nullptr); }
  SweepSigint(const SweepSigint&) = delete;
  SweepSigint& operator=(const SweepSigint&) = delete;

 private:
  struct sigaction previous_ = {};
};

// A grid point as "PATH=VALUE PATH=VALUE", for messages.
std::string point_text(const std::vector<drainsim::SweepAxis>& axes,
                       const std::vector<json>& values) {
  std::string out;
  for (std::size_t a = 0; a < values.size(); ++a) {
    out += fmt::format("{}{}={}", a ? " " : "", axes[a].path,
                       values[a].is_string() ? values[a].get<std::string>() : values[a].dump());
  }
  return out;
}

// Names each failed audit of a sweep's points (the point's values, the seed, the jobs).
void report_sweep_audits(const drainsim::Sweep& sweep) {
  for (const drainsim::SweepPoint& p : sweep.points) {
    for (const drainsim::CompareRun& r : p.runs) {
      if (!r.audit_ok) report_audit_failure(point_text(sweep.axes, p.values), r);
    }
  }
}

// A sweep's JSON (--out or stdout) and CSV (--csv); false (said) when one cannot be written.
bool emit_sweep(const drainsim::Sweep& sweep, const std::string& out, const std::string& csv) {
  if (!emit(drainsim::sweep_json(sweep).dump(2) + '\n', out)) return false;
  return csv.empty() || emit(drainsim::sweep_csv(sweep), csv);
}

// The scenario over a grid of field values and several seeds per point (sim/analysis/sweep.h); with
// --shard, one slice of the runs written as a part file (sim/analysis/sweep_part.h). Ctrl+C stops
// taking new runs, writes what finished and exits 130.
int sweep(const SweepArgs& args) {
  drainsim::SweepSpec spec;
  spec.scenario = args.scenario;
  spec.overrides = args.sets;
  spec.seeds = args.seeds;
  spec.first_seed = args.seed;
  spec.threads = args.threads;
  for (const std::string& g : args.grid) {
    drainsim::AxisParse axis = drainsim::parse_axis(g);
    if (!axis.axis) {
      fmt::print(stderr, "error: {}\n", axis.error);
      return kBadInput;
    }
    spec.axes.push_back(std::move(*axis.axis));
  }
  std::optional<drainsim::SweepShard> shard;
  if (!args.shard.empty()) {
    const drainsim::ShardParse parsed = drainsim::parse_shard(args.shard);
    if (!parsed.shard) {
      fmt::print(stderr, "error: {}\n", parsed.error);
      return kBadInput;
    }
    if (!args.csv.empty()) {
      fmt::print(stderr,
                 "error: --csv: a shard writes a part file; `drainsim merge` writes the CSV\n");
      return kBadInput;
    }
    shard = parsed.shard;
  }
  if (!parse_fault(args.fault, spec.faults)) return kBadInput;

  const auto t0 = std::chrono::steady_clock::now();
  drainsim::ProgressReport report("sweep", isatty(STDERR_FILENO) == 1);
  spec.progress = [&](std::size_t done, std::size_t total) {
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - t0;
    fmt::print(stderr, "{}", report.update(done, total, elapsed.count()));
  };
  g_sweep_stop = false;
  spec.stop = &g_sweep_stop;
  drainsim::SweepPart part;
  try {
    const SweepSigint sigint;
    part = drainsim::run_sweep_part(spec, shard.value_or(drainsim::SweepShard{}));
  } catch (const drainsim::ScenarioError& e) {
    fmt::print(stderr, "{}error: {}\n", report.finish(), e.what());
    return kBadInput;
  }
  fmt::print(stderr, "{}", report.finish());

  if (shard) {
    if (!emit(drainsim::sweep_part_json(part).dump(2) + '\n', args.out)) return kBadInput;
    if (!part.complete()) {
      fmt::print(stderr,
                 "interrupted: shard {}/{} wrote {} of its {} runs, marked \"complete\": false "
                 "(merge refuses it; run the shard again)\n",
                 shard->index, shard->count, part.runs.size(), part.slice_size());
      return kInterrupted;
    }
    bool audits_ok = true;
    for (const drainsim::SweepRunResult& r : part.runs) {
      if (r.run.audit_ok) continue;
      audits_ok = false;
      report_audit_failure(point_text(part.axes, part.point_values(r.task / part.seeds.size())),
                           r.run);
    }
    return audits_ok ? 0 : kAuditFailed;
  }

  const drainsim::Sweep result = drainsim::sweep_of(part);
  if (!emit_sweep(result, args.out, args.csv)) return kBadInput;
  report_sweep_audits(result);
  if (!result.complete) {
    fmt::print(stderr,
               "interrupted: {} of {} runs done; wrote the {} of {} points whose every seed ran, "
               "marked \"complete\": false\n",
               part.runs.size(), part.tasks(), result.points.size(), result.points_total);
    return kInterrupted;
  }
  return result.audits_ok() ? 0 : kAuditFailed;
}

// `drainsim merge PART... [--out F] [--csv F]`: joins the part files of one sharded sweep
// and writes what the unsharded sweep writes.
int merge(const std::vector<std::string>& files, const std::string& out, const std::string& csv) {
  std::vector<drainsim::NamedPart> parts;
  for (const std::string& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      fmt::print(stderr, "error: merge: {}: cannot read: {}\n", file, std::strerror(errno));
      return kBadInput;
    }
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    drainsim::PartParse parsed = drainsim::parse_sweep_part(text, file);
    if (!parsed.part) {
      fmt::print(stderr, "error: merge: {}\n", parsed.error);
      return kBadInput;
    }
    parts.push_back({file, std::move(*parsed.part)});
  }
  const drainsim::PartMerge merged = drainsim::merge_sweep_parts(parts);
  if (!merged.whole) {
    fmt::print(stderr, "error: merge: {}\n", merged.error);
    return kBadInput;
  }
  const drainsim::Sweep result = drainsim::sweep_of(*merged.whole);
  if (!emit_sweep(result, out, csv)) return kBadInput;
  report_sweep_audits(result);
  return result.audits_ok() ? 0 : kAuditFailed;
}

struct TuneArgs {
  std::string scenario;
  std::string max_job_loss, max_interrupted, max_deploy_duration;
  std::string grace_range = "0s..10m/1s", platform_range = "1s..10m/1s";
  std::vector<std::string> pre_stops;
  std::string platform_grace = "paired";
  std::string margin = "10s", safety_margin = "10s";
  std::size_t seeds = 30;
  std::optional<std::uint64_t> seed;
  unsigned threads = 0;
  std::vector<std::string> sets;
  std::string format = "text", out;
};

// The cheapest grace period (and preStop) that meets the targets (sim/analysis/tune.h). 0 when
// one does, 1 when no setting on the grid does.
int tune(const TuneArgs& args) {
  const auto bad = [](const std::string& what) {
    fmt::print(stderr, "error: {}\n", what);
    return kBadInput;
  };
  const auto duration = [](const std::string& text) { return drainsim::parse_duration(text); };
  drainsim::TuneSpec spec;
  spec.scenario = args.scenario;
  spec.overrides = args.sets;
  spec.seeds = args.seeds;
  spec.first_seed = args.seed;
  spec.threads = args.threads;
  spec.platform_grace = args.platform_grace == "paired"   ? drainsim::PlatformGrace::kPaired
                        : args.platform_grace == "search" ? drainsim::PlatformGrace::kSearched
                                                          : drainsim::PlatformGrace::kScenario;
  if (!args.max_job_loss.empty()) {
    double v = -1;
    const auto [end, ec] = std::from_chars(args.max_job_loss.data(),
                                           args.max_job_loss.data() + args.max_job_loss.size(), v);
    if (ec != std::errc() || end != args.max_job_loss.data() + args.max_job_loss.size() ||
        !(v >= 0)) {
      return bad(
          fmt::format("--max-job-loss {}: expected a number of jobs >= 0", args.max_job_loss));
    }
    spec.targets.max_job_loss = v;
  }
  if (!args.max_interrupted.empty()) {
    spec.targets.max_interrupted = drainsim::parse_fraction(args.max_interrupted);
    if (!spec.targets.max_interrupted) {
      return bad(
          fmt::format("--max-interrupted {}: expected a fraction in [0, 1] or a percentage (0.1%)",
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
    spec.targets.max_job_loss = 0;
    spec.targets.max_interrupted = 0;
  }
  const bool search_platform = spec.platform_grace == drainsim::PlatformGrace::kSearched;
  const std::string& grid = search_platform ? args.platform_range : args.grace_range;
  const drainsim::AxisParse range = drainsim::parse_axis("worker.grace_period=" + grid);
  if (!range.axis || grid.find("..") == std::string::npos ||
      !range.axis->values.front().is_string()) {
    return bad(fmt::format("{} {}: expected durations START..END/STEP, e.g. 0s..10m/1s{}",
                           search_platform ? "--platform-range" : "--grace-range", grid,
                           range.axis ? "" : " (" + range.error + ")"));
  }
  for (const json& v : range.axis->values) spec.grid.push_back(*duration(v.get<std::string>()));
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
  const bool terminal = isatty(STDERR_FILENO);
  if (terminal) {
    spec.progress = [](drainsim::Duration pre_stop, drainsim::Duration grace, std::size_t done) {
      fmt::print(stderr, "\r\033[Ktune: preStop {}, grace {} ({} settings run)",
                 drainsim::format_duration(pre_stop), drainsim::format_duration(grace), done);
    };
  }
  drainsim::Tune result;
  try {
    result = drainsim::run_tune(spec);
  } catch (const drainsim::ScenarioError& e) {
    if (terminal) fmt::print(stderr, "\n");
    return bad(e.what());
  }
  if (terminal) fmt::print(stderr, "\r\033[K");
  const std::string text = args.format == "json" ? drainsim::tune_json(result).dump(2) + '\n'
                                                 : drainsim::tune_text(result);
  if (!emit(text, args.out)) return kBadInput;
  for (const drainsim::TuneSetting* e : result.settings()) {
    for (const drainsim::CompareRun& r : e->runs) {
      if (!r.audit_ok) {
        report_audit_failure(
            fmt::format("worker.grace_period={}", drainsim::format_duration(e->grace)), r);
      }
    }
  }
  if (!result.audits_ok()) return kAuditFailed;
  return result.recommended() ? 0 : 1;
}

int main(int argc, char** argv) {
  CLI::App app{"drainsim: what will your workers' shutdown settings cost?"};
  app.require_subcommand(1);
  app.set_version_flag("--version", DRAINSIM_VERSION);

  RunArgs run_args;
  CLI::App* run_cmd = app.add_subcommand(
      "run", "Run one scenario (in virtual time unless --engine says otherwise)");
  run_cmd->add_option("scenario", run_args.scenario, "Scenario file (JSON)")->required();
  run_cmd->add_option("--seed", run_args.seed, "Seed (overrides the scenario's)");
  run_cmd->add_option("--set", run_args.sets, "Override a field: PATH=VALUE (repeatable)");
  run_cmd->add_flag("--timeline", run_args.timeline, "Record the timeline in the results");
  run_cmd->add_option("--out", run_args.out, "Results file (default results/<name>-<seed>.json)");
  run_cmd->add_option("--engine", run_args.engine, "virtual (default), realtime or process")
      ->check(CLI::IsMember({"virtual", "realtime", "process"}));
  run_cmd
      ->add_option("--time-scale", run_args.time_scale,
                   "realtime, process: simulated seconds per real second (default 100)")
      ->check(CLI::PositiveNumber);
  run_cmd
      ->add_option("--job-body", run_args.job_body,
                   "realtime: job bodies sleep (default) or spin on real threads, or are timers")
      ->check(CLI::IsMember({"sleep", "spin", "timer"}));
  add_access_option(run_cmd, run_args);
  add_worker_options(run_cmd, run_args);
  run_cmd->add_option("--inject-fault", run_args.fault, "Testing only: drop-acked-job=JOB")
      ->group("");

  RunArgs fidelity_args;
  CLI::App* fidelity_cmd = app.add_subcommand(
      "fidelity", "Run a scenario on the virtual and real-time engines and compare the metrics");
  fidelity_cmd->add_option("scenario", fidelity_args.scenario, "Scenario file (JSON)")->required();
  fidelity_cmd->add_option("--seed", fidelity_args.seed, "Seed (overrides the scenario's)");
  fidelity_cmd->add_option("--set", fidelity_args.sets, "Override a field: PATH=VALUE");
  fidelity_cmd
      ->add_option("--time-scale", fidelity_args.time_scale,
                   "realtime: simulated seconds per real second (default 100)")
      ->check(CLI::PositiveNumber);
  fidelity_cmd->add_option("--job-body", fidelity_args.job_body, "realtime: sleep, spin or timer")
      ->check(CLI::IsMember({"sleep", "spin", "timer"}));
  add_access_option(fidelity_cmd, fidelity_args);
  add_worker_options(fidelity_cmd, fidelity_args);

  CompareArgs compare_args;
  CLI::App* compare_cmd = app.add_subcommand(
      "compare",
      "Run a scenario against several worker profiles over several seeds; each metric's mean "
      "and 95% interval per profile");
  compare_cmd->add_option("scenario", compare_args.scenario, "Scenario file (JSON)")->required();
  compare_cmd->add_option("--profiles", compare_args.profiles,
                          "all (default, in registry order) or a comma-separated list");
  compare_cmd->add_option("--seeds", compare_args.seeds, "Runs per profile (default 10)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}));
  compare_cmd->add_option("--seed", compare_args.seed,
                          "First seed (default: the scenario's); then +1, +2, ...");
  compare_cmd->add_option("--format", compare_args.format, "table (default), md, json or csv")
      ->check(CLI::IsMember({"table", "md", "json", "csv"}));
  compare_cmd->add_option("--set", compare_args.sets, "Override a field: PATH=VALUE (repeatable)");
  compare_cmd->add_option("--out", compare_args.out, "Write the comparison here (default stdout)");
  compare_cmd->add_option("--inject-fault", compare_args.fault, "Testing only: drop-acked-job=JOB")
      ->group("");

  SweepArgs sweep_args;
  CLI::App* sweep_cmd = app.add_subcommand(
      "sweep",
      "Run a scenario over a grid of field values and several seeds per point; each metric's "
      "mean and 95% interval per point");
  sweep_cmd->add_option("scenario", sweep_args.scenario, "Scenario file (JSON)")->required();
  sweep_cmd
      ->add_option("--grid", sweep_args.grid,
                   "An axis: PATH=START..END/STEP (5s..120s/5s, 1..10/1) or PATH=V1,V2,... "
                   "(repeatable; the grid is their product, first axis outermost)")
      ->required();
  sweep_cmd->add_option("--seeds", sweep_args.seeds, "Runs per point (default 10)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}));
  sweep_cmd->add_option("--seed", sweep_args.seed,
                        "First seed (default: the scenario's); then +1, +2, ...");
  sweep_cmd->add_option("--threads", sweep_args.threads, "Runs at once (default: the cores)")
      ->check(CLI::Range(1u, 4096u));
  sweep_cmd->add_option("--set", sweep_args.sets, "Override a field: PATH=VALUE (repeatable)");
  sweep_cmd->add_option("--out", sweep_args.out, "Write the JSON here (default stdout)");
  sweep_cmd->add_option("--csv", sweep_args.csv, "Also write a row per point and metric here");
  sweep_cmd->add_option("--shard", sweep_args.shard,
                        "Run only slice I of N (I from 0, e.g. $JOB_COMPLETION_INDEX/16) and "
                        "write it as a part file for `drainsim merge`");
  sweep_cmd->add_option("--inject-fault", sweep_args.fault, "Testing only: drop-acked-job=JOB")
      ->group("");

  std::vector<std::string> merge_files;
  std::string merge_out, merge_csv;
  CLI::App* merge_cmd = app.add_subcommand(
      "merge", "Join the part files of a sharded sweep (sweep --shard) into the sweep's output");
  merge_cmd->add_option("parts", merge_files, "Part files, one per shard, in any order")
      ->required();
  merge_cmd->add_option("--out", merge_out, "Write the JSON here (default stdout)");
  merge_cmd->add_option("--csv", merge_csv, "Also write a row per point and metric here");

  TuneArgs tune_args;
  CLI::App* tune_cmd = app.add_subcommand(
      "tune",
      "Find the shortest worker grace period (and preStop) that meets your targets, with the "
      "platform grace to pair with it; exit 1 when no setting on the grid does");
  tune_cmd->add_option("scenario", tune_args.scenario, "Scenario file (JSON)")->required();
  tune_cmd->add_option("--max-job-loss", tune_args.max_job_loss,
                       "Target: mean jobs lost per run (default 0 when no target is given)");
  tune_cmd->add_option("--max-interrupted", tune_args.max_interrupted,
                       "Target: mean interrupted fraction, e.g. 0.1% or 0.001 (default 0 when "
                       "no target is given)");
  tune_cmd->add_option("--max-deploy-duration", tune_args.max_deploy_duration,
                       "Target: mean longest rollout per run, e.g. 10m");
  tune_cmd->add_option("--grace-range", tune_args.grace_range,
                       "The worker grace periods searched, START..END/STEP (default 0s..10m/1s)");
  tune_cmd
      ->add_option("--pre-stop", tune_args.pre_stops,
                   "Also try these preStop durations (0s: none; e.g. --pre-stop 0s,5s,10s)")
      ->delimiter(',');
  tune_cmd
      ->add_option("--platform-grace", tune_args.platform_grace,
                   "paired (default): preStop + grace + margin; scenario: keep the scenario's; "
                   "search: search it on --platform-range, keeping the worker's grace")
      ->check(CLI::IsMember({"paired", "scenario", "search"}));
  tune_cmd->add_option("--platform-range", tune_args.platform_range,
                       "With --platform-grace search: the platform graces searched, "
                       "START..END/STEP (default 1s..10m/1s)");
  tune_cmd->add_option("--margin", tune_args.margin,
                       "Platform grace beyond preStop + worker grace (default 10s, spec §6.3)");
  tune_cmd->add_option("--safety-margin", tune_args.safety_margin,
                       "The safety_margin of the spec's §6.2 rule of thumb (default 10s)");
  tune_cmd->add_option("--seeds", tune_args.seeds, "Runs per setting (default 30)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}));
  tune_cmd->add_option("--seed", tune_args.seed, "First seed (default: the scenario's)");
  tune_cmd->add_option("--threads", tune_args.threads, "Runs at once (default: the cores)")
      ->check(CLI::Range(1u, 4096u));
  tune_cmd->add_option("--set", tune_args.sets, "Override a field: PATH=VALUE (repeatable)");
  tune_cmd->add_option("--format", tune_args.format, "text (default) or json")
      ->check(CLI::IsMember({"text", "json"}));
  tune_cmd->add_option("--out", tune_args.out, "Write the report here (default stdout)");

  std::vector<std::string> files, validate_sets;
  CLI::App* validate_cmd = app.add_subcommand("validate", "Check scenario files");
  validate_cmd->add_option("scenarios", files, "Scenario files")->required();
  validate_cmd->add_option("--set", validate_sets, "Override a field: PATH=VALUE");

  std::string profile_name, profiles_format = "table";
  CLI::App* profiles_cmd = app.add_subcommand(
      "profiles", "List the worker profiles (job systems) with their defaults, or show one");
  profiles_cmd->add_option("name", profile_name, "A profile to show in full");
  profiles_cmd->add_option("--format", profiles_format, "table (default) or json")
      ->check(CLI::IsMember({"table", "json"}));

  std::string conformance_profile, conformance_format = "text", conformance_out;
  CLI::App* conformance_cmd = app.add_subcommand(
      "conformance",
      "Check a profile against the OJS graceful-shutdown conformance requirements (GS-001..005, "
      "GS-R001..R004); exit 1 when a required one fails");
  conformance_cmd->add_option("--profile", conformance_profile, "The profile to check")->required();
  conformance_cmd->add_option("--format", conformance_format, "text (default) or json")
      ->check(CLI::IsMember({"text", "json"}));
  conformance_cmd->add_option("--out", conformance_out, "Write the report here (default stdout)");

  std::string export_format, export_results, export_out;
  CLI::App* export_cmd = app.add_subcommand(
      "export", "Write a run's timeline (drainsim run --timeline) in another format");
  export_cmd->add_option("--format", export_format, "chrome-trace (Perfetto, chrome://tracing)")
      ->required()
      ->check(CLI::IsMember({"chrome-trace"}));
  export_cmd->add_option("results", export_results, "Results file with a timeline")->required();
  export_cmd->add_option("--out", export_out, "Write it here (default stdout)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kBadInput;
  }
  if (*run_cmd) return run(run_args);
  if (*fidelity_cmd) return fidelity(fidelity_args);
  if (*compare_cmd) return compare(compare_args);
  if (*sweep_cmd) return sweep(sweep_args);
  if (*merge_cmd) return merge(merge_files, merge_out, merge_csv);
  if (*tune_cmd) return tune(tune_args);
  if (*validate_cmd) return validate(files, validate_sets);
  if (*profiles_cmd) return profiles(profile_name, profiles_format);
  if (*export_cmd) return export_trace(export_results, export_out);
  if (*conformance_cmd) {
    return conformance(conformance_profile, conformance_format, conformance_out);
  }
  return kBadInput;
}
