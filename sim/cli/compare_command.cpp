// `drainsim compare`: the scenario against several profiles over several seeds.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "analysis/compare.h"
#include "cli/common.h"
#include "io/scenario_reader.h"

namespace drainsim::cli {
namespace {

struct CompareArgs {
  std::string scenario;
  std::string profiles = "all";
  std::size_t seeds = 10;
  std::optional<std::uint64_t> seed;
  CompareFormat format = CompareFormat::kTable;
  std::vector<std::string> sets;
  std::string out;
  std::string fault;
  bool keep_grace = false;
};

int compare(const CompareArgs& args) {
  const ProfileSelection selection = select_profiles(args.profiles);
  if (!selection.error.empty()) {
    fmt::print(stderr, "error: {}\n", selection.error);
    return kBadInput;
  }
  CompareSpec spec;
  spec.scenario = args.scenario;
  spec.overrides = args.sets;
  spec.profiles = selection.names;
  spec.seeds = args.seeds;
  spec.first_seed = args.seed;
  spec.keep_grace = args.keep_grace;
  if (!parse_fault(args.fault, spec.faults)) return kBadInput;
  if (!outputs_ok({{"--out", args.out}}, {args.scenario})) return kBadInput;
  Comparison c;
  try {
    c = compare_profiles(spec);
  } catch (const ScenarioError& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return kBadInput;
  }
  if (!emit(format_comparison(c, args.format), args.out)) return kBadInput;
  for (const ProfileComparison& p : c.profiles) {
    for (const SeedRun& r : p.runs) {
      if (!r.audit_ok) report_audit_failure("profile " + p.profile, r);
    }
  }
  return c.audits_ok() ? 0 : kAuditFailed;
}

void declare_compare(CLI::App* cmd, CompareArgs& args) {
  add_scenario_argument(cmd, args.scenario);
  cmd->add_option("--profiles", args.profiles,
                  "all (default, in registry order) or a comma-separated list");
  add_seeds_option(cmd, args.seeds, "Runs per profile (default 10)");
  add_seed_option(cmd, args.seed, "First seed (default: the scenario's); then +1, +2, ...");
  add_enum_option(cmd, "--format", args.format, "table (default), md, json or csv");
  add_set_option(cmd, args.sets);
  cmd->add_flag("--keep-grace", args.keep_grace,
                "Run every profile with the scenario's worker.grace_period (default: each "
                "profile's own, unless --set worker.grace_period=... pins one)");
  path_option(cmd->add_option("--out", args.out, "Write the comparison here (default stdout)"));
  add_fault_option(cmd, args.fault);
}

}  // namespace

void add_compare_commands(CLI::App& app, std::vector<Command>& out) {
  out.push_back(subcommand(
      app, "compare",
      "Run a scenario against several worker profiles over several seeds; each metric's mean "
      "and 95% interval per profile",
      declare_compare, compare));
}

}  // namespace drainsim::cli
