// `drainsim real`: a scenario on a real job system, over repeats, each repeat's results in
// a file of its own, with the check of the profile's rule.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/common.h"
#include "cli/run_common.h"

namespace drainsim::cli {
namespace {

struct RealArgs {
  ScenarioArgs what;
  SystemArgs system;
  std::size_t repeats = 1;
  bool timeline = false;
  std::string out_dir = "results/real";
  std::string keep;
};

// "rule check: N attempts running at a TERM or kill, M as the profile's rule predicts; not: ..."
void print_rule_check(const RuleCheck& rules) {
  std::string jobs;
  for (const FateCheck& m : rules.mismatches) {
    jobs += fmt::format("{}job {} ({} predicted, {})", jobs.empty() ? "" : ", ", m.job, m.predicted,
                        m.actual);
  }
  fmt::print(
      "rule check: {} attempts running at a TERM or kill, {} as the profile's rule "
      "predicts{}{}\n",
      rules.checked, rules.checked - rules.mismatches.size(), jobs.empty() ? "" : "; not: ", jobs);
}

// Repeat r runs seed SEED + r; its results go to --out-dir as NAME-SYSTEM-SEED.json.
int real(const RealArgs& args) {
  Scenario s;
  RunOptions options;
  if (!prepare(args.what, {}, args.system, Engine::kReal, s, options)) return kBadInput;
  options.timeline = args.timeline;
  options.stream_timeline = args.timeline;
  options.real.keep = args.keep;
  std::error_code ec;
  try {  // libstdc++ throws here even given `ec` when a component is a file
    std::filesystem::create_directories(args.out_dir, ec);
  } catch (const std::filesystem::filesystem_error&) {
  }
  const auto path_of = [&](std::uint64_t seed) {
    return fmt::format("{}/{}-{}-{}.json", args.out_dir, s.name, args.system.system, seed);
  };
  // Each repeat's results file can be written: checked on the first before any run.
  if (!outputs_ok({{"--out-dir", path_of(s.seed), "the results file"}}, {args.what.file})) {
    return kBadInput;
  }
  const std::uint64_t first = s.seed;
  int status = 0;
  for (std::size_t r = 0; r < args.repeats; ++r) {
    s.seed = first + r;
    options.real.repeat = static_cast<int>(r);
    const auto t0 = std::chrono::steady_clock::now();
    RunOutput out;
    int failed = 0;
    if (!run_or_explain(s, options, out, failed, /*partial=*/true)) return failed;
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::string path = path_of(s.seed);
    status = std::max(status, report(s, options, out, path, wall));
    if (status == kBadInput) return status;
    print_rule_check(*out.rule_check);
    if (out.interrupted) {  // the repeats after it are not run
      fmt::print(stderr, "partial results written to {} (run.interrupted)\n", path);
      return kInterrupted;
    }
  }
  return status;
}

void declare_real(CLI::App* cmd, RealArgs& args) {
  add_scenario_options(cmd, args.what);
  add_system_options(cmd, args.system);
  cmd->get_option("--system")->required();
  cmd->add_option("--repeats", args.repeats, "Runs, repeat r with seed SEED+r (default 1)")
      ->check(CLI::Range(1, 1000));
  cmd->add_flag("--timeline", args.timeline, "Record the timeline in the results");
  cmd->add_option("--out-dir", args.out_dir,
                  "Folder for the results, one file per repeat: NAME-SYSTEM-SEED.json (default "
                  "results/real)");
  cmd->add_option("--keep", args.keep,
                  "Copy each run's adapter events and program logs into this folder");
}

}  // namespace

void add_real_commands(CLI::App& app, std::vector<Command>& out) {
  out.push_back(subcommand(app, "real",
                           "Run a scenario on a real job system (its real library on a throwaway "
                           "broker, in real time), over repeats",
                           declare_real, real));
}

}  // namespace drainsim::cli
