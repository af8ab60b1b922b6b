// What every drainsim subcommand shares: exit codes, where output goes, how a failed audit
// is reported, and the options several subcommands declare alike.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "analysis/compare.h"
#include "base/names.h"
#include "run/run_scenario.h"

namespace drainsim::cli {

constexpr int kThresholdsBroken = 1;  // run --fail-on: a threshold broken
constexpr int kBadInput = 2;
constexpr int kAuditFailed = 3;
constexpr int kRunFailed = 4;  // drainsim real: a process of the run failed (run.failed)
constexpr int kInterrupted = 130;

// A report's --format (conformance, tune): its text, or its JSON document.
enum class OutputFormat { kText, kJson };
constexpr std::array<std::string_view, 2> names(OutputFormat) { return {"text", "json"}; }

// A subcommand: its CLI11 app, and what runs it once the command line is parsed; the
// result is the exit code.
struct Command {
  CLI::App* app;
  std::function<int()> run;
};

// Adds subcommand `name` to `app`: `declare` declares its options into a fresh Args, and
// `run` runs it with them once the command line is parsed.
template <class Args>
Command subcommand(CLI::App& app, const std::string& name, const std::string& description,
                   void (*declare)(CLI::App*, Args&), int (*run)(const Args&)) {
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(name, description);
  declare(cmd, *args);
  return {cmd, [args, run] { return run(*args); }};
}

// Each adds the subcommands of its file (sim/cli/NAME_command.cpp) to `app` and `out`,
// in the order `drainsim --help` lists them.
void add_run_commands(CLI::App& app, std::vector<Command>& out);       // run
void add_real_commands(CLI::App& app, std::vector<Command>& out);      // real
void add_fidelity_commands(CLI::App& app, std::vector<Command>& out);  // fidelity
void add_compare_commands(CLI::App& app, std::vector<Command>& out);   // compare
void add_sweep_commands(CLI::App& app, std::vector<Command>& out);     // sweep, merge
void add_tune_commands(CLI::App& app, std::vector<Command>& out);      // tune
void add_import_commands(CLI::App& app, std::vector<Command>& out);    // import k8s
// validate, profiles, conformance, export
void add_catalog_commands(CLI::App& app, std::vector<Command>& out);
// help [COMMAND]: added last, it shows the commands added before it.
void add_help_command(CLI::App& app, std::vector<Command>& out);

// Help texts wrapped at 100 columns; call before adding the commands, which take the
// formatter of their parent.
void use_wrapped_help(CLI::App& app);
// Says why the command line did not parse, each message starting "error:": an unknown
// option with the command's nearest one ("run: unknown option \"--seeds\" (did you mean
// \"--seed\"?)"), or CLI11's word with the command named; returns kBadInput.
int parse_failed(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv);

// The subcommand of `app` named `name`, or nullptr.
const CLI::App* find_command(const CLI::App& app, const std::string& name);
// Says that `typed` is no subcommand of `app`, suggesting the nearest one when it is near
// enough (`unknown command "runn" (did you mean "run"?)`); returns kBadInput.
int unknown_command(const CLI::App& app, const std::string& typed);

// A command's output: to stdout, or to `path` (written whole) when one is given. False
// (said) when the file cannot be written.
bool emit(const std::string& text, const std::string& path);

// An output file of a command: the option that names it ("" for a default path), the
// path ("" when not given: stdout), and what it is in messages ("it", "the results file").
struct Output {
  std::string option, path, what = "it";
};
// Checked before any work, so that none is lost: every output can be created
// (io/atomic_file.h, cannot_write) and none is one of `inputs` (the same file by device
// and inode, whatever the names). Otherwise says which and why ("error: --out x.json:
// cannot write it (No such file or directory)") and returns false (the caller exits 2).
bool outputs_ok(const std::vector<Output>& outputs, const std::vector<std::string>& inputs);

// A path option's check: an empty value ("--out ''") is refused rather than read as the
// option's default.
CLI::Option* path_option(CLI::Option* option);

// Says which run's audit failed and how.
void report_audit_failure(const std::string& where, const SeedRun& r);

// --inject-fault drop-acked-job=JOB (testing only); false (the error printed) when malformed.
bool parse_fault(const std::string& fault, BackendFaults& faults);

// The options several subcommands share.
void add_scenario_argument(CLI::App* cmd, std::string& scenario);
void add_set_option(CLI::App* cmd, std::vector<std::string>& sets,
                    const std::string& help = "Override a field: PATH=VALUE (repeatable)");
// --seed N: a whole number from 0 to 2^64-1; anything else (-1, 1.5, 7x) is exit 2.
void add_seed_option(CLI::App* cmd, std::optional<std::uint64_t>& seed, const std::string& help);
// --time-scale N: a number from kMinTimeScale to kMaxTimeScale (slower would never end, faster
// overflows the timers); unset when not given (the engines' default: kDefaultTimeScale).
constexpr double kMinTimeScale = 0.001, kMaxTimeScale = 1e6;
void add_time_scale_option(CLI::App* cmd, std::optional<double>& time_scale);
// True when --time-scale was not given or one of `engines` is paced to the wall clock
// (realtime, process); otherwise says that it does not apply, and `hint` (the caller
// exits 2).
bool time_scale_applies(const std::optional<double>& time_scale, const std::vector<Engine>& engines,
                        const std::string& hint);
void add_seeds_option(CLI::App* cmd, std::size_t& seeds, const std::string& help);
// --max-memory SIZE ("12G", "512M": io of base/byte_size.h); unset: the default,
// default_max_memory().
void add_max_memory_option(CLI::App* cmd, std::optional<std::uint64_t>& max_memory);
// Half of this machine's memory (or of its cgroup's limit, when lower); 0 when unknown.
std::uint64_t default_max_memory();
// True when a run of `s` fits in `max_memory` (unset: the default) by its estimate
// (model/footprint.h); otherwise says why on stderr, naming `source` (the caller exits 2).
// `validate` and `run` both ask it, so they accept the same scenarios.
bool fits_in_memory(const Scenario& s, const std::string& source,
                    const std::optional<std::uint64_t>& max_memory);
void add_threads_option(CLI::App* cmd, unsigned& threads);
void add_fault_option(CLI::App* cmd, std::string& fault);

// An option whose value is one of E's names (base/names.h), stored as the enum.
template <class E>
CLI::Option* add_enum_option(CLI::App* cmd, const std::string& name, E& value,
                             const std::string& help) {
  return cmd
      ->add_option_function<std::string>(
          name, [&value](const std::string& text) { value = *from_name<E>(text); }, help)
      ->check(CLI::IsMember(all_names<E>()));
}

// A comma-separated list of E's names (or the option repeated), stored as enums in order.
template <class E>
CLI::Option* add_enum_list_option(CLI::App* cmd, const std::string& name, std::vector<E>& values,
                                  const std::string& help) {
  return cmd
      ->add_option_function<std::vector<std::string>>(
          name,
          [&values](const std::vector<std::string>& texts) {
            values.clear();
            for (const std::string& t : texts) values.push_back(*from_name<E>(t));
          },
          help)
      ->delimiter(',')
      ->check(CLI::IsMember(all_names<E>()));
}

}  // namespace drainsim::cli
