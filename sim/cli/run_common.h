// What `drainsim run`, `real` and `fidelity` share: the options that say what to run and
// how the engines run it, loading the scenario and options from them, running it with a
// clear error, and writing a run's results file with its summary.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "analysis/fidelity.h"
#include "cli/common.h"
#include "io/tolerances.h"
#include "model/scenario.h"
#include "run/run_scenario.h"

namespace drainsim::cli {

// What to run: the scenario, its seed and overrides, the memory it may take.
struct ScenarioArgs {
  std::string file;
  std::vector<std::string> sets;
  std::optional<std::uint64_t> seed;
  std::optional<std::uint64_t> max_memory;  // unset: default_max_memory()
};
// The scenario argument, --seed, --set, --max-memory.
void add_scenario_options(CLI::App* cmd, ScenarioArgs& args);

// How the realtime and process engines run it.
struct EngineArgs {
  std::optional<double> time_scale;  // unset: the engines' default
  JobBody job_body = JobBody::kSleep;
  ModelAccess access = ModelAccess::kLock;
  std::optional<std::string> worker_cmd;  // unset: drainsim-worker
  std::string worker_log;
  std::optional<std::uint64_t> worker_log_max;  // unset: ProcessOptions' default
};
void add_engine_options(CLI::App* cmd, EngineArgs& args);

// The real system: which, and where its adapter is.
struct SystemArgs {
  std::string system;
  std::string adapters;
};
void add_system_options(CLI::App* cmd, SystemArgs& args);

// Loads the scenario (its seed and overrides applied) and sets the options every engine
// takes from `engine` and `system`; with a --system, or on the real engine, checks that
// the system can run the scenario. False (the error printed) on bad input.
bool prepare(const ScenarioArgs& what, const EngineArgs& engine, const SystemArgs& system,
             Engine engine_kind, Scenario& s, RunOptions& options);

// Runs the scenario; false (the error printed, `status` set) when the run could not be
// done: its worker program cannot start, or (unless `partial`) the user interrupted it or
// a process of a real run failed (its cause printed first; status kRunFailed).
// `lead` goes to stderr first, once the run returns (the newline after a progress bar).
bool run_or_explain(const Scenario& s, const RunOptions& options, RunOutput& out, int& status,
                    bool partial = false, const std::function<std::string()>& lead = {});

// Writes the results file and prints the summary (with what the deploys cost a day at
// `deploys_per_day`, when above 0); the exit status: the audit's, or kBadInput when the
// file cannot be written.
int report(const Scenario& s, const RunOptions& options, const RunOutput& out,
           const std::string& path, double wall_s, double deploys_per_day = 0);

// `runs` runs of `s` on `options.engine`, seeds SEED, SEED + 1, ...: each run's metrics and
// seed appended to `source`. A failed audit is said on stderr and clears `audits_ok`; false
// (the error printed, `status` set) when a run could not be done or was interrupted.
bool run_seeds(Scenario s, const RunOptions& options, std::size_t runs, FidelitySource& source,
               bool& audits_ok, int& status);

// The tolerances file `path` ("" for drainsim's defaults) into `out`; false (the error
// printed) when it cannot be read. With a `case_name`, the file must declare that case.
bool load_tolerances(const std::string& path, const std::string& case_name, Tolerances& out);

// Prints the fidelity table of `sources` (analysis/fidelity.h): how the verdicts are made,
// the table, and the count of each verdict.
void print_fidelity(const std::vector<FidelitySource>& sources,
                    const std::vector<FidelityRow>& rows, const Tolerances& tolerances,
                    const std::string& case_name);

}  // namespace drainsim::cli
