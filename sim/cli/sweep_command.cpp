// `drainsim sweep` (a grid of field values, several seeds per point; with --shard one
// slice written as a part file) and `drainsim merge` (the part files joined).
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "analysis/sweep.h"
#include "analysis/sweep_part.h"
#include "base/input_file.h"
#include "cli/common.h"
#include "cli/progress.h"
#include "io/scenario_reader.h"

namespace drainsim::cli {
namespace {

using nlohmann::json;

struct SweepArgs {
  std::string scenario;
  std::vector<std::string> grid;
  std::size_t seeds = 10;
  std::optional<std::uint64_t> seed;
  unsigned threads = 0;
  std::vector<std::string> sets;
  std::optional<SweepFormat> format;
  std::string out, csv;
  std::string shard;
  std::string fault;
};

struct MergeArgs {
  std::vector<std::string> files;
  std::optional<SweepFormat> format;
  std::string out, csv;
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
std::string point_text(const std::vector<SweepAxis>& axes, const std::vector<json>& values) {
  std::string out;
  for (std::size_t a = 0; a < values.size(); ++a) {
    out += fmt::format("{}{}={}", a ? " " : "", axes[a].path,
                       values[a].is_string() ? values[a].get<std::string>() : values[a].dump());
  }
  return out;
}

// Names each failed audit of a sweep's points (the point's values, the seed, the jobs).
void report_sweep_audits(const Sweep& sweep) {
  for (const SweepPoint& p : sweep.points) {
    for (const SeedRun& r : p.runs) {
      if (!r.audit_ok) report_audit_failure(point_text(sweep.axes, p.values), r);
    }
  }
}

// A sweep in `format` to `out` (stdout when empty) and its wide CSV to `csv` if given;
// false (said) when one cannot be written. Without a format: a table when the output is a
// terminal, JSON otherwise (a file, a pipe).
bool emit_sweep(const Sweep& sweep, std::optional<SweepFormat> format, const std::string& out,
                const std::string& csv) {
  if (!format) {
    format = out.empty() && isatty(STDOUT_FILENO) == 1 ? SweepFormat::kTable : SweepFormat::kJson;
  }
  if (!emit(format_sweep(sweep, *format), out)) return false;
  return csv.empty() || emit(sweep_csv(sweep), csv);
}

// Ctrl+C stops taking new runs, writes what finished and exits 130.
int sweep(const SweepArgs& args) {
  SweepSpec spec;
  spec.scenario = args.scenario;
  spec.overrides = args.sets;
  spec.seeds = args.seeds;
  spec.first_seed = args.seed;
  spec.threads = args.threads;
  for (const std::string& g : args.grid) {
    AxisParse axis = parse_axis(g);
    if (!axis.axis) {
      fmt::print(stderr, "error: {}\n", axis.error);
      return kBadInput;
    }
    spec.axes.push_back(std::move(*axis.axis));
  }
  std::optional<SweepShard> shard;
  if (!args.shard.empty()) {
    const ShardParse parsed = parse_shard(args.shard);
    if (!parsed.shard) {
      fmt::print(stderr, "error: {}\n", parsed.error);
      return kBadInput;
    }
    if (!args.csv.empty()) {
      fmt::print(stderr,
                 "error: --csv: a shard writes a part file; `drainsim merge` writes the CSV\n");
      return kBadInput;
    }
    if (args.format) {
      fmt::print(stderr,
                 "error: --format: a shard writes a part file; `drainsim merge` formats the "
                 "sweep\n");
      return kBadInput;
    }
    shard = parsed.shard;
  }
  if (!parse_fault(args.fault, spec.faults)) return kBadInput;
  if (!outputs_ok({{"--out", args.out}, {"--csv", args.csv}}, {args.scenario})) return kBadInput;

  const auto t0 = std::chrono::steady_clock::now();
  ProgressReport report("sweep", isatty(STDERR_FILENO) == 1);
  spec.progress = [&](std::size_t done, std::size_t total) {
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - t0;
    fmt::print(stderr, "{}", report.update(done, total, elapsed.count()));
  };
  g_sweep_stop = false;
  spec.stop = &g_sweep_stop;
  SweepPart part;
  try {
    const SweepSigint sigint;
    part = run_sweep_part(spec, shard.value_or(SweepShard{}));
  } catch (const ScenarioError& e) {
    fmt::print(stderr, "{}error: {}\n", report.finish(), e.what());
    return kBadInput;
  }
  fmt::print(stderr, "{}", report.finish());

  if (shard) {
    if (!emit(sweep_part_json(part).dump(2) + '\n', args.out)) return kBadInput;
    if (!part.complete()) {
      fmt::print(stderr,
                 "interrupted: shard {}/{} wrote {} of its {} runs, marked \"complete\": false "
                 "(merge refuses it; run the shard again)\n",
                 shard->index, shard->count, part.runs.size(), part.slice_size());
      return kInterrupted;
    }
    bool audits_ok = true;
    for (const SweepRunResult& r : part.runs) {
      if (r.run.audit_ok) continue;
      audits_ok = false;
      report_audit_failure(point_text(part.axes, part.point_values(r.task / part.seeds.size())),
                           r.run);
    }
    return audits_ok ? 0 : kAuditFailed;
  }

  const Sweep result = sweep_of(part);
  if (!emit_sweep(result, args.format, args.out, args.csv)) return kBadInput;
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

int merge(const MergeArgs& args) {
  if (!outputs_ok({{"--out", args.out}, {"--csv", args.csv}}, args.files)) return kBadInput;
  std::vector<NamedPart> parts;
  for (const std::string& file : args.files) {
    std::string text;
    try {
      text = read_input_file(file, kMaxResultsBytes, "a sweep part file");
    } catch (const InputError& e) {
      fmt::print(stderr, "error: merge: {}\n", e.what());
      return kBadInput;
    }
    PartParse parsed = parse_sweep_part(text, file);
    if (!parsed.part) {
      fmt::print(stderr, "error: merge: {}\n", parsed.error);
      return kBadInput;
    }
    parts.push_back({file, std::move(*parsed.part)});
  }
  const PartMerge merged = merge_sweep_parts(parts);
  if (!merged.whole) {
    fmt::print(stderr, "error: merge: {}\n", merged.error);
    return kBadInput;
  }
  const Sweep result = sweep_of(*merged.whole);
  if (!emit_sweep(result, args.format, args.out, args.csv)) return kBadInput;
  report_sweep_audits(result);
  return result.audits_ok() ? 0 : kAuditFailed;
}

// --format, --out and --csv, alike for sweep and merge.
void add_output_options(CLI::App* cmd, std::optional<SweepFormat>& format, std::string& out,
                        std::string& csv) {
  cmd->add_option_function<std::string>(
         "--format", [&format](const std::string& text) { format = from_name<SweepFormat>(text); },
         "table, md, json or csv (default: table when the output is a terminal, json otherwise)")
      ->check(CLI::IsMember(all_names<SweepFormat>()));
  path_option(cmd->add_option("--out", out, "Write the sweep here (default stdout)"));
  path_option(
      cmd->add_option("--csv", csv,
                      "Also write the wide CSV here: a row per point, the axes then each metric's "
                      "mean, low, high and n"));
}

void declare_sweep(CLI::App* cmd, SweepArgs& args) {
  add_scenario_argument(cmd, args.scenario);
  cmd->add_option("--grid", args.grid,
                  "An axis: PATH=START..END/STEP (5s..120s/5s, 1..10/1) or PATH=V1,V2,... "
                  "(repeatable; the grid is their product, first axis outermost)")
      ->required();
  add_seeds_option(cmd, args.seeds, "Runs per point (default 10)");
  add_seed_option(cmd, args.seed, "First seed (default: the scenario's); then +1, +2, ...");
  add_threads_option(cmd, args.threads);
  add_set_option(cmd, args.sets);
  add_output_options(cmd, args.format, args.out, args.csv);
  cmd->add_option("--shard", args.shard,
                  "Run only slice I of N (I from 0, e.g. $JOB_COMPLETION_INDEX/16) and "
                  "write it as a part file for `drainsim merge`");
  add_fault_option(cmd, args.fault);
}

void declare_merge(CLI::App* cmd, MergeArgs& args) {
  cmd->add_option("parts", args.files, "Part files, one per shard, in any order")->required();
  add_output_options(cmd, args.format, args.out, args.csv);
}

}  // namespace

void add_sweep_commands(CLI::App& app, std::vector<Command>& out) {
  out.push_back(subcommand(
      app, "sweep",
      "Run a scenario over a grid of field values and several seeds per point; each metric's "
      "mean and 95% interval per point",
      declare_sweep, sweep));
  out.push_back(
      subcommand(app, "merge",
                 "Join the part files of a sharded sweep (sweep --shard) into the sweep's output",
                 declare_merge, merge));
}

}  // namespace drainsim::cli
