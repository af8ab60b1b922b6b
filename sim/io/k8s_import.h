// A scenario from Kubernetes manifests (drainsim import k8s, docs/import.md): the worker's
// Deployment or StatefulSet, read from YAML as kubectl writes it (several documents, `List`
// objects, Helm's rendered output), mapped field by field onto a scenario, each field
// with the YAML path it came from or the reason drainsim chose it. Pure: the caller reads
// the files. Bad input is an InputError naming the file, the YAML path and what was
// expected.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace drainsim {

struct K8sImportOptions {
  std::string workload;   // the Deployment's or StatefulSet's name; empty: the only one
  std::string container;  // the worker container's name; empty: the pod's only one
  std::string profile;    // the job system; empty: read from the container's command
  // Replay the HorizontalPodAutoscaler whose scaleTargetRef names the workload: its
  // maxReplicas, then a scale_down to its minReplicas. Without: an HPA is only reported.
  bool hpa = false;
};

// A manifest file: its name in messages, and its text.
struct ManifestFile {
  std::string name;
  std::string text;
};

// One scenario field the import set, and why it has that value.
struct ImportedField {
  std::string path;  // in the scenario: "platform.termination_grace_period"
  nlohmann::json value;
  std::string source;  // "deploy.yaml: spec.replicas"; empty: drainsim chose it
  std::string note;    // how it was read, or why that default
};

// Where the settings a patch changes are written in the manifest (io/k8s_patch.h).
struct K8sAnchors {
  std::string kind, name, namespace_name;  // the workload's; namespace_name empty: not given
  bool helm = false;                       // labelled as Helm's (managed-by, helm.sh/chart)
  std::size_t container_index = 0;
  std::string container;                   // its name
  std::vector<std::string> command, args;  // as written
  std::string program;                     // the worker program the command runs: "sidekiq"
  std::string pre_stop;                    // its handler: "", "exec", "sleep", "httpGet"
  std::vector<std::string> pre_stop_exec;  // exec.command, as written
};

struct K8sImport {
  nlohmann::json scenario;            // a scenario document, for the scenario reader
  std::vector<ImportedField> fields;  // in the order the report gives them
  std::string workload;               // "Deployment sidekiq (deploy.yaml)"
  K8sAnchors anchors;
  // The slots drainsim's default arrival rate keeps half busy (for real durations without
  // a rate too), and what they are when not the pods' ("of the HorizontalPodAutoscaler's
  // minReplicas ...").
  std::int64_t default_slots = 0;
  std::string default_slots_what;
};

// The scenario of the worker the manifests describe. Throws InputError.
K8sImport import_k8s(const std::vector<ManifestFile>& files, const K8sImportOptions& options);

// Sets the scenario's field at the dotted `path` ("workload.arrival") and its report line,
// in place of one the import gave it before.
void set_field(K8sImport& import, const std::string& path, nlohmann::json value, std::string source,
               std::string note);

// The report: the workload, then a line per field with its value and its source.
std::string import_report(const K8sImport& import);

}  // namespace drainsim
