// A recommendation written back into the manifest a scenario was imported from (drainsim
// tune --patch, docs/import.md): a strategic-merge patch of the worker's Deployment or
// StatefulSet that changes each setting where the manifest writes it — Sidekiq's -t in the
// container's command or args (or in its shell script), terminationGracePeriodSeconds, the
// preStop's sleep — and the `kubectl patch` command that applies it. What the manifest does
// not hold (another system's shutdown timeout lives in its code or config) is said, not
// guessed. Pure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/duration.h"
#include "io/k8s_import.h"
#include "model/scenario.h"

namespace drainsim {

// The settings to write.
struct K8sSettings {
  Duration worker_grace = 0;        // the worker's shutdown timeout; kNever: none
  Duration platform_grace = 0;      // terminationGracePeriodSeconds, from the deletion
  std::optional<PreStop> pre_stop;  // the hook to write; nullopt: leave the manifest's
};

struct K8sPatch {
  std::string yaml;     // the strategic-merge patch, a comment header first
  std::string kubectl;  // "kubectl patch deployment sidekiq --type strategic --patch-file F"
  // What it changes, a line each: "spec.template.spec.terminationGracePeriodSeconds: 30 ->
  // 391 (deploy.yaml)".
  std::vector<std::string> changes;
  // What it leaves, and why: a setting the manifest does not hold, a value rounded up.
  std::vector<std::string> notes;
};

// The patch that sets `settings` in the workload `import` read (import_k8s of the same
// files), whose worker runs `profile`; `patch_file` is named in the kubectl command.
// Durations become whole seconds, rounded up (Kubernetes and Sidekiq take no less).
K8sPatch k8s_patch(const K8sImport& import, const std::string& profile, const K8sSettings& settings,
                   const std::string& patch_file);

}  // namespace drainsim
