// `drainsim real`: a scenario on a real job system, over repeats (a number, or as many as
// its verdicts against the profile's prediction need), each repeat's results in a file of
// its own, with the check of the profile's rule.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "base/parse.h"
#include "cli/common.h"
#include "cli/run_common.h"

namespace drainsim::cli {
namespace {

struct RealArgs {
  ScenarioArgs what;
  SystemArgs system;
  std::size_t repeats = 1;
  std::optional<std::size_t> auto_max;  // --repeats auto[:MAX]
  std::size_t seeds = 30;               // auto: the virtual runs of the prediction
  std::string tolerances;               // auto: as drainsim fidelity's
  std::string case_name;
  bool timeline = false;
  std::string out_dir;  // "": results/real
  std::string out;      // one repeat's results file, instead of out_dir
  std::string keep;
};

constexpr std::size_t kAutoMax = 20;   // --repeats auto without a MAX
constexpr std::size_t kAutoFirst = 5;  // the runs auto makes before it first looks

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

// Repeat r runs seed SEED + r; its results go to --out-dir as NAME-SYSTEM-SEED.json. With
// --repeats auto, the profile's prediction (the virtual engine over --seeds seeds) is run
// first, and repeats are added until every metric's verdict against it is conclusive
// (analysis/fidelity.h), or MAX: first kAutoFirst, then as many as the inconclusive rows
// ask for, so that the verdicts are looked at a few times only (each look is a chance to
// stop on a verdict that more runs would overturn).
int real(const RealArgs& args) {
  Scenario s;
  RunOptions options;
  if (!prepare(args.what, {}, args.system, Engine::kReal, s, options)) return kBadInput;
  options.timeline = args.timeline;
  options.stream_timeline = args.timeline;
  options.real.keep = args.keep;
  const std::string case_name = !args.case_name.empty() ? args.case_name : s.name;
  Tolerances tolerances;
  if (args.auto_max && !load_tolerances(args.tolerances, args.case_name, tolerances)) {
    return kBadInput;
  }
  if (!args.out.empty() && (args.repeats != 1 || args.auto_max || !args.out_dir.empty())) {
    fmt::print(stderr,
               "error: --out names one results file, for a single repeat: it takes neither "
               "--repeats {} nor --out-dir (give --out-dir for several repeats)\n",
               args.auto_max ? "auto" : std::to_string(args.repeats));
    return kBadInput;
  }
  const std::string dir = args.out_dir.empty() ? "results/real" : args.out_dir;
  if (args.out.empty()) {
    std::error_code ec;
    try {  // libstdc++ throws here even given `ec` when a component is a file
      std::filesystem::create_directories(dir, ec);
    } catch (const std::filesystem::filesystem_error&) {
    }
  }
  const auto path_of = [&](std::uint64_t seed) {
    if (!args.out.empty()) return args.out;
    return fmt::format("{}/{}-{}-{}.json", dir, s.name, args.system.system, seed);
  };
  // Each repeat's results file can be written: checked on the first before any run.
  if (!outputs_ok({{args.out.empty() ? "--out-dir" : "--out", path_of(s.seed), "the results file"}},
                  {args.what.file})) {
    return kBadInput;
  }
  const std::uint64_t first = s.seed;
  std::vector<FidelitySource> sources;  // auto: the prediction, then the real runs
  if (args.auto_max && args.seeds < *args.auto_max) {
    fmt::print(stderr,
               "error: --seeds {} is fewer than the --repeats auto:{} allows: the later repeats "
               "would have no prediction of their seed to be paired with\n",
               args.seeds, *args.auto_max);
    return kBadInput;
  }
  if (args.auto_max) {
    RunOptions predict;
    predict.engine = Engine::kVirtual;
    FidelitySource& model = sources.emplace_back(FidelitySource{"virtual", {}, {}});
    bool audits_ok = true;
    int failed = 0;
    if (!run_seeds(s, predict, args.seeds, model, audits_ok, failed)) return failed;
    if (!audits_ok) return kAuditFailed;
    sources.push_back({args.system.system, {}, {}});
  }
  int status = 0;
  std::size_t target = args.auto_max ? std::min(kAutoFirst, *args.auto_max) : args.repeats;
  for (std::size_t r = 0; r < target; ++r) {
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
    if (out.interrupted || out.failed) {  // the repeats after it are not run
      fmt::print(stderr, "partial results written to {} ({})\n", path,
                 out.failed ? "run.failed" : "run.interrupted");
      return out.failed ? kRunFailed : kInterrupted;
    }
    if (!args.auto_max) continue;
    sources[1].runs.push_back(metric_values(out.summary));
    sources[1].seeds.push_back(s.seed);
    sources[1].not_measured.insert(out.not_measured.begin(), out.not_measured.end());
    if (r + 1 < target) continue;
    const std::vector<FidelityRow> rows = fidelity_rows(sources, tolerances, case_name);
    const std::size_t next = runs_before_next_look(rows, target, *args.auto_max);
    if (next == 0) {
      const std::size_t open = count_verdicts(rows, Verdict::kInconclusive);
      fmt::print("\n");
      print_fidelity(sources, rows, tolerances, case_name);
      fmt::print("repeats: {}, {}\n", target,
                 open == 0 ? "every verdict conclusive"
                           : fmt::format("the most --repeats auto:{} allows; {} inconclusive",
                                         *args.auto_max, open));
      break;
    }
    target = next;
  }
  return status;
}

// --repeats N or auto[:MAX]: into `args`, or a message for CLI11.
std::string parse_repeats(const std::string& text, RealArgs& args) {
  const std::string bad = fmt::format(
      "expected a number of repeats from 1 to 1000, or auto, or auto:MAX (MAX from 2 to 1000), "
      "got \"{}\"",
      text.substr(0, 40));
  if (text == "auto") {
    args.auto_max = kAutoMax;
    return "";
  }
  if (text.rfind("auto:", 0) == 0) {
    const std::optional<std::size_t> most = parse_number<std::size_t>(text.substr(5));
    if (!most || *most < 2 || *most > 1000) return bad;
    args.auto_max = *most;
    return "";
  }
  const std::optional<std::size_t> n = parse_number<std::size_t>(text);
  if (!n || *n < 1 || *n > 1000) return bad;
  args.repeats = *n;
  args.auto_max.reset();
  return "";
}

void declare_real(CLI::App* cmd, RealArgs& args) {
  add_scenario_options(cmd, args.what);
  add_system_options(cmd, args.system);
  cmd->get_option("--system")->required();
  cmd->add_option_function<std::string>(
         "--repeats", [&args](const std::string& text) { parse_repeats(text, args); },
         "Runs, repeat r with seed SEED+r (default 1); auto[:MAX]: until the verdict of every "
         "metric against the profile's prediction (drainsim fidelity) is conclusive, at most MAX "
         "runs (default 20)")
      ->check(CLI::Validator(
          [&args](std::string& text) {
            RealArgs probe = args;
            return parse_repeats(text, probe);
          },
          "N|auto[:MAX]"));
  add_seeds_option(cmd, args.seeds,
                   "--repeats auto: the prediction's virtual runs, seeds SEED, SEED+1, ... "
                   "(default 30)");
  path_option(cmd->add_option(
      "--tolerances", args.tolerances,
      "--repeats auto: a tolerances file, as drainsim fidelity's (default: drainsim's "
      "defaults)"));
  cmd->add_option("--case", args.case_name,
                  "--repeats auto: the case of --tolerances whose own tolerances hold (default: "
                  "the scenario's name)");
  cmd->add_flag("--timeline", args.timeline, "Record the timeline in the results");
  path_option(
      cmd->add_option("--out-dir", args.out_dir,
                      "Folder for the results, one file per repeat: NAME-SYSTEM-SEED.json (default "
                      "results/real)"));
  path_option(cmd->add_option("--out", args.out,
                              "With a single repeat: its results file, instead of --out-dir's"));
  path_option(cmd->add_option("--keep", args.keep,
                              "Copy each run's adapter events and program logs into this folder"));
}

}  // namespace

void add_real_commands(CLI::App& app, std::vector<Command>& out) {
  out.push_back(subcommand(app, "real",
                           "Run a scenario on a real job system (its real library on a throwaway "
                           "broker, in real time), over repeats",
                           declare_real, real));
}

}  // namespace drainsim::cli
