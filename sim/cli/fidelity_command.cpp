// `drainsim fidelity`: a scenario on several engines, and runs read from results files,
// metrics side by side as statistics, each judged equivalent, differing or inconclusive
// against its tolerance (analysis/fidelity.h, io/tolerances.h).
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/fidelity.h"
#include "cli/common.h"
#include "cli/run_common.h"
#include "io/json_reader.h"
#include "io/results.h"
#include "io/tolerances.h"

namespace drainsim::cli {
namespace {

struct FidelityArgs {
  ScenarioArgs what;
  EngineArgs engine_args;
  SystemArgs system;
  std::vector<std::string> from;
  std::string tolerances;  // a tolerances file; empty: drainsim's defaults
  std::string case_name;   // its case; empty: the scenario's name
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
      source.not_measured.insert(run.not_measured.begin(), run.not_measured.end());
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
  Tolerances tolerances;
  if (!load_tolerances(args.tolerances, args.case_name, tolerances)) return kBadInput;
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
      int status = 0;
      if (!run_seeds(s, options, e == Engine::kVirtual ? args.seeds : args.repeats, source,
                     audits_ok, status)) {
        return status;
      }
    }
    // What ran: each engine once, in the order given.
    std::vector<std::string> ran;
    for (Engine e : args.engines) {
      std::string what;
      if (e == Engine::kVirtual) {
        what = fmt::format("virtual over seeds {}..{}", first, first + args.seeds - 1);
      } else {
        what = fmt::format("{} over repeats (repeat r runs seed {} + r)", to_string(e), first);
        if (paced(e)) what += fmt::format(" at time scale {}", options.paced.time_scale);
        if (e == Engine::kRealtime) {
          what += fmt::format(" with {} job bodies", to_string(options.realtime.job_body));
        }
        if (e == Engine::kProcess) {
          what += " with " + (options.process.worker_cmd.empty() ? std::string("drainsim-worker")
                                                                 : options.process.worker_cmd);
        }
        if (e == Engine::kReal) what += " on the real " + options.real.system;
      }
      if (std::find(ran.begin(), ran.end(), what) == ran.end()) ran.push_back(what);
    }
    fmt::print("fidelity of scenario {}: {}\n", s.name, fmt::join(ran, "; "));
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
  const std::string case_name = !args.case_name.empty() ? args.case_name : s.name;
  print_fidelity(sources, fidelity_rows(sources, tolerances, case_name), tolerances, case_name);
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
  path_option(
      cmd->add_option("--tolerances", args.tolerances,
                      "A tolerances file (docs/fidelity.md): how far each metric may be from the "
                      "reference's and still be equivalent (default: counts ±max(1, 10%), seconds "
                      "±max(0.25s, 5%), fractions ±max(0.01, 10%))"));
  cmd->add_option("--case", args.case_name,
                  "The case of --tolerances whose own tolerances hold (default: the scenario's "
                  "name)");
}

}  // namespace

void add_fidelity_commands(CLI::App& app, std::vector<Command>& out) {
  out.push_back(subcommand(app, "fidelity",
                           "Run a scenario on several engines, over several seeds or repeats each, "
                           "and compare the metrics as statistics",
                           declare_fidelity, fidelity));
}

}  // namespace drainsim::cli
