// The commands that run no scenario of the user's: `validate` (check scenario files),
// `profiles` (the job systems modelled), `conformance` (a profile against the OJS
// graceful-shutdown requirements) and `export` (a run's timeline in another format).
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/conformance.h"
#include "base/input_file.h"
#include "cli/common.h"
#include "io/profile_json.h"
#include "io/results.h"
#include "io/scenario_reader.h"
#include "io/trace_export.h"
#include "model/config_warnings.h"
#include "model/load.h"

namespace drainsim::cli {
namespace {

using nlohmann::json;

struct ValidateArgs {
  std::vector<std::string> files, sets;
  std::optional<std::uint64_t> max_memory;
};

// `profiles --format`: the table, or the JSON of each profile.
enum class ProfilesFormat { kTable, kJson };
constexpr std::array<std::string_view, 2> names(ProfilesFormat) { return {"table", "json"}; }

struct ProfilesArgs {
  std::string name;
  ProfilesFormat format = ProfilesFormat::kTable;
};

struct ConformanceArgs {
  std::string profile, out;
  OutputFormat format = OutputFormat::kText;
};

struct ExportArgs {
  std::string format, results, out;
};

int validate(const ValidateArgs& args) {
  int status = 0;
  for (const std::string& f : args.files) {
    try {
      const Scenario s = load_scenario_file(f, args.sets);
      if (!fits_in_memory(s, f, args.max_memory)) {  // as `run` checks it
        status = kBadInput;
        continue;
      }
      fmt::print("{}: ok ({}, {} events)\n", f, s.name, s.events.size());
      for (const Warning& w : config_warnings(s)) fmt::print("{}: warning: {}\n", f, w.message);
      if (const auto w = overload_warning(s)) fmt::print("{}: warning: {}\n", f, w->message);
    } catch (const ScenarioError& e) {
      fmt::print(stderr, "error: {}\n", e.what());
      status = kBadInput;
    }
  }
  return status;
}

int profiles(const ProfilesArgs& args) {
  std::vector<const Profile*> chosen;
  if (args.name.empty()) {
    for (const Profile& p : all_profiles()) chosen.push_back(&p);
  } else if (const Profile* found = find_profile(args.name)) {
    chosen.push_back(found);
  } else {
    fmt::print(stderr, "drainsim profiles: {}\n", unknown_profile(args.name));
    return kBadInput;
  }
  if (args.format == ProfilesFormat::kJson) {
    json out = json::array();
    for (const Profile* p : chosen) out.push_back(profile_json(*p));
    fmt::print("{}\n", (args.name.empty() ? out : out[0]).dump(2));
    return 0;
  }
  if (!args.name.empty()) {  // one profile, every field
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

// 0 when every required check passes, 1 when one fails, 2 for an unknown profile.
int conformance(const ConformanceArgs& args) {
  const Profile* profile = find_profile(args.profile);
  if (profile == nullptr) {
    fmt::print(stderr, "drainsim conformance: {}\n", unknown_profile(args.profile));
    return kBadInput;
  }
  if (!outputs_ok({{"--out", args.out}}, {})) return kBadInput;
  const ConformanceReport report = check_conformance(*profile);
  const std::string text = args.format == OutputFormat::kJson
                               ? conformance_json(report).dump(2) + "\n"
                               : conformance_text(report);
  if (!emit(text, args.out)) return kBadInput;
  return report.required_passed() ? 0 : 1;
}

int export_trace(const ExportArgs& args) {
  if (!outputs_ok({{"--out", args.out}}, {args.results})) return kBadInput;
  TraceExport trace;
  try {
    const json doc = read_results_file(args.results);
    check_schema_version(doc, args.results);
    results_warnings(doc, args.results);
    trace = chrome_trace(doc);
  } catch (const InputError& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return kBadInput;
  } catch (const json::exception& e) {  // a field of the wrong type
    fmt::print(stderr, "error: {}: not a drainsim results file: {}\n", args.results, e.what());
    return kBadInput;
  }
  if (!trace.error.empty()) {
    fmt::print(stderr, "error: {}: {}\n", args.results, trace.error);
    return kBadInput;
  }
  return emit(trace.trace, args.out) ? 0 : kBadInput;
}

void declare_validate(CLI::App* cmd, ValidateArgs& args) {
  cmd->add_option("scenarios", args.files, "Scenario files")->required();
  add_set_option(cmd, args.sets);
  add_max_memory_option(cmd, args.max_memory);
}

void declare_profiles(CLI::App* cmd, ProfilesArgs& args) {
  cmd->add_option("name", args.name, "A profile to show in full");
  add_enum_option(cmd, "--format", args.format, "table (default) or json");
}

void declare_conformance(CLI::App* cmd, ConformanceArgs& args) {
  cmd->add_option("--profile", args.profile, "The profile to check")->required();
  add_enum_option(cmd, "--format", args.format, "text (default) or json");
  path_option(cmd->add_option("--out", args.out, "Write the report here (default stdout)"));
}

void declare_export(CLI::App* cmd, ExportArgs& args) {
  cmd->add_option("--format", args.format, "chrome-trace (Perfetto, chrome://tracing)")
      ->required()
      ->check(CLI::IsMember({"chrome-trace"}));
  cmd->add_option("results", args.results, "Results file with a timeline")->required();
  path_option(cmd->add_option("--out", args.out, "Write it here (default stdout)"));
}

}  // namespace

void add_catalog_commands(CLI::App& app, std::vector<Command>& out) {
  out.push_back(subcommand(app, "validate", "Check scenario files", declare_validate, validate));
  out.push_back(subcommand(
      app, "profiles", "List the worker profiles (job systems) with their defaults, or show one",
      declare_profiles, profiles));
  out.push_back(subcommand(
      app, "conformance",
      "Check a profile against the OJS graceful-shutdown conformance requirements (GS-001..005, "
      "GS-R001..R004); exit 1 when a required one fails",
      declare_conformance, conformance));
  out.push_back(subcommand(app, "export",
                           "Write a run's timeline (drainsim run --timeline) in another format",
                           declare_export, export_trace));
}

}  // namespace drainsim::cli
