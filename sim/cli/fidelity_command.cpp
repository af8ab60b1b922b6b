// `drainsim fidelity`: a scenario on several engines, and runs read from results files,
// metrics side by side as statistics.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "analysis/fidelity.h"
#include "cli/common.h"
#include "cli/run_common.h"
#include "io/json_reader.h"
#include "io/results.h"

namespace drainsim::cli {
namespace {

struct FidelityArgs {
  ScenarioArgs what;
  EngineArgs engine_args;
  SystemArgs system;
  std::vector<std::string> from;
  std::size_t seeds = 10, repeats = 3;
  std::vector<Engine> engines = {Engine::kVirtual, Engine::kRealtime, Engine::kProcess};
};

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
      RecordedRun run = read_recorded_run(file);
      source.runs.push_back(std::move(run.metrics));
      source.seeds.push_back(run.seed);
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
int fidelity(const FidelityArgs& args) {
  // Without a scenario no engine runs: only --from files are compared.
  const bool scenario = !args.what.file.empty();
  if (!time_scale_applies(
          args.engine_args.time_scale, scenario ? args.engines : std::vector<Engine>{},
          scenario ? "--engines has neither" : "without a scenario no engine runs")) {
    return kBadInput;
  }
  std::vector<FidelitySource> sources;
  Scenario s;
  RunOptions options;
  bool audits_ok = true;
  if (scenario) {
    if (!prepare(args.what, args.engine_args, args.system, Engine::kVirtual, s, options)) {
      return kBadInput;
    }
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
        s.name, first, first, options.paced.time_scale, to_string(options.realtime.job_body),
        options.process.worker_cmd.empty() ? std::string("drainsim-worker")
                                           : options.process.worker_cmd);
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

void declare_fidelity(CLI::App* cmd, FidelityArgs& args) {
  cmd->add_option("scenario", args.what.file, "Scenario file (JSON) to run on the --engines");
  add_seed_option(cmd, args.what.seed, "Seed (overrides the scenario's)");
  add_set_option(cmd, args.what.sets);
  add_max_memory_option(cmd, args.what.max_memory);
  add_engine_options(cmd, args.engine_args);
  add_system_options(cmd, args.system);
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

void add_fidelity_commands(CLI::App& app, std::vector<Command>& out) {
  out.push_back(subcommand(app, "fidelity",
                           "Run a scenario on several engines, over several seeds or repeats each, "
                           "and compare the metrics as statistics",
                           declare_fidelity, fidelity));
}

}  // namespace drainsim::cli
