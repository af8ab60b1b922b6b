// `drainsim import k8s`: a scenario from the worker's Kubernetes manifests
// (io/k8s_import.h, docs/import.md), and its jobs from real durations and rates when given
// (io/duration_data.h). The scenario goes to --out (or stdout), checked by the scenario
// reader first; the report of where each field came from goes to stdout beside a file, to
// stderr beside the scenario on stdout.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/duration.h"
#include "base/input_file.h"
#include "base/parse.h"
#include "cli/common.h"
#include "io/duration_data.h"
#include "io/k8s_import.h"
#include "io/scenario_reader.h"

namespace drainsim::cli {
namespace {

struct ImportK8sArgs {
  std::vector<std::string> files;
  std::string workload, container, profile, out;
  bool hpa = false;
  std::string durations, metric, match;
  ArrivalOptions arrival;
};

// The scenario's origin (docs/scenario.md): the manifests relative to the directory the
// scenario is written to (the current one for stdout), so that tune --patch finds them from
// the scenario wherever it is run.
nlohmann::json origin(const ImportK8sArgs& args, const K8sImport& imported) {
  namespace fs = std::filesystem;
  const fs::path base =
      args.out.empty() ? fs::current_path() : fs::absolute(args.out).parent_path();
  std::vector<std::string> files;
  for (const std::string& f : args.files) {
    const fs::path p(f);
    files.push_back(p.is_absolute() ? p.lexically_normal().string()
                                    : fs::absolute(p)
                                          .lexically_normal()
                                          .lexically_relative(base.lexically_normal())
                                          .string());
  }
  nlohmann::json o = {{"kind", "kubernetes"},
                      {"files", files},
                      {"workload", imported.anchors.name},
                      {"container", imported.anchors.container}};
  if (!args.profile.empty()) o["profile"] = args.profile;
  return o;
}

// The queues the imported worker reads (its worker.queues, else the workload's queue;
// none when the manifest does not say).
std::vector<std::string> queues_of(const nlohmann::json& scenario) {
  const nlohmann::json worker = scenario.value("worker", nlohmann::json::object());
  if (worker.contains("queues")) return worker["queues"].get<std::vector<std::string>>();
  const nlohmann::json workload = scenario.value("workload", nlohmann::json::object());
  if (workload.contains("queue")) return {workload["queue"].get<std::string>()};
  return {};
}

int import_k8s_files(const ImportK8sArgs& args) {
  std::vector<std::string> inputs = args.files;
  if (!args.durations.empty()) inputs.push_back(args.durations);
  if (!outputs_ok({{"--out", args.out, "the scenario"}}, inputs)) return kBadInput;
  std::string text, report;
  try {
    std::vector<ManifestFile> files;
    for (const std::string& f : args.files) {
      files.push_back({f, read_input_file(f, kMaxManifestBytes, "a manifest")});
    }
    K8sImport imported = import_k8s(files, {args.workload, args.container, args.profile, args.hpa});
    if (args.durations.empty() && (!args.metric.empty() || !args.match.empty())) {
      throw InputError(fmt::format("{}: expected --durations FILE, a Prometheus histogram",
                                   args.metric.empty() ? "--match" : "--metric"));
    }
    std::optional<DurationData> durations;
    if (!args.durations.empty()) {
      durations = read_durations(
          args.durations, read_input_file(args.durations, kMaxDurationsBytes, "a durations file"),
          {args.metric, args.match, queues_of(imported.scenario)});
    }
    apply_durations(imported, durations ? &*durations : nullptr, args.arrival);
    const K8sAnchors& a = imported.anchors;
    // A strategic-merge patch finds the workload and its container by name.
    const bool named = !a.name.empty() && !a.container.empty();
    if (named) imported.scenario["origin"] = origin(args, imported);
    text = imported.scenario.dump(2) + "\n";
    report = import_report(imported);
    report += named ? fmt::format(
                          "  origin: {} {} in {}, container {}: what tune --patch "
                          "writes its recommendation back into\n",
                          a.kind, a.name, fmt::join(args.files, ", "), a.container)
                    : "  no origin: the workload or its container has no name, so tune --patch "
                      "cannot write a patch of it\n";
    // What the import wrote must load: a manifest past drainsim's limits (replicas x
    // concurrency) is said here, with the scenario's path.
    parse_scenario(text, args.out.empty() ? "the imported scenario" : args.out);
  } catch (const InputError& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return kBadInput;
  }
  if (!emit(text, args.out)) return kBadInput;
  fmt::print(args.out.empty() ? stderr : stdout, "{}", report);
  return 0;
}

void declare_import_k8s(CLI::App* cmd, ImportK8sArgs& args) {
  cmd->add_option("files", args.files,
                  "Manifest files: YAML, several documents or a List (kubectl get -o yaml, "
                  "helm template)")
      ->required();
  cmd->add_option("--workload", args.workload,
                  "The Deployment or StatefulSet to read, by name (default: the only one)");
  cmd->add_option("--container", args.container,
                  "The worker's container, by name (default: the pod's only one)");
  cmd->add_option("--profile", args.profile,
                  "The job system (drainsim profiles lists them; default: read from the "
                  "container's command)");
  cmd->add_flag("--hpa", args.hpa,
                "Replay the HorizontalPodAutoscaler that targets the workload: start at its "
                "maxReplicas, scale down to its minReplicas (an error when none does)");
  path_option(cmd->add_option(
      "--durations", args.durations,
      "Real job durations: a Prometheus histogram (text exposition, e.g. "
      "sidekiq_job_runtime_seconds_bucket), a CSV or JSON list of seconds, or a Sidekiq or "
      "Celery log; they become workload.job_duration"));
  cmd->add_option("--metric", args.metric,
                  "The histogram in --durations to read, by name (default: the only one)");
  cmd->add_option("--match", args.match,
                  "The histogram's series to read: label=\"value\",... all of which it has "
                  "(default: the only one)");
  cmd->add_option_function<std::string>(
         "--window",
         [&args](const std::string& text) { args.arrival.window = *parse_duration(text); },
         "How long the histogram's _count covers (the exporter's uptime): arrivals at "
         "count/window per second")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            const std::optional<Duration> d = parse_duration(text);
            if (d && *d > 0) return "";
            return fmt::format("expected a duration > 0 like \"1h\", got \"{}\"",
                               text.substr(0, 40));
          },
          "DURATION"));
  cmd->add_option_function<double>(
         "--rate", [&args](const double& rate) { args.arrival.rate = rate; },
         "Arrivals per second, Poisson (default: from --window or a log's timestamps, else half "
         "the slots busy)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            const std::optional<double> rate = parse_number<double>(text);
            if (rate && *rate > 0) return "";
            return fmt::format("expected a number of jobs per second > 0, got \"{}\"",
                               text.substr(0, 40));
          },
          "N"));
  path_option(cmd->add_option("-o,--out", args.out, "Write the scenario here (default stdout)"));
}

}  // namespace

void add_import_commands(CLI::App& app, std::vector<Command>& out) {
  CLI::App* import = app.add_subcommand(
      "import", "Write a scenario from a deployment's own files (k8s: Kubernetes manifests)");
  import->require_subcommand(1);
  out.push_back(subcommand(*import, "k8s",
                           "A scenario from the worker's Deployment or StatefulSet, each field "
                           "with the YAML path it came from",
                           declare_import_k8s, import_k8s_files));
}

}  // namespace drainsim::cli
