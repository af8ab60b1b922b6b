#include "cli/manifest_patch.h"

#include <filesystem>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "base/input_file.h"
#include "cli/common.h"
#include "io/json_reader.h"
#include "io/k8s_patch.h"

namespace drainsim::cli {

K8sImport imported_manifests(const std::string& scenario_file, const Scenario& s,
                             const std::string& option) {
  if (!s.origin) {
    throw InputError(fmt::format(
        "{}: {} has no origin: it was not written by drainsim import k8s, so there is no "
        "manifest to patch",
        option, scenario_file));
  }
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(scenario_file).parent_path();
  std::vector<ManifestFile> files;
  for (const std::string& f : s.origin->files) {
    const std::string path = fs::path(f).is_absolute() ? f : (dir / f).lexically_normal().string();
    files.push_back({path, read_input_file(path, kMaxManifestBytes, "a manifest")});
  }
  return import_k8s(files, {s.origin->workload, s.origin->container, s.origin->profile});
}

bool write_manifest_patch(const Tune& t, bool pre_stops_searched, const K8sImport& manifest,
                          const std::string& path, std::FILE* to) {
  const TuneSetting* r = t.recommended();
  K8sSettings settings{r->grace, r->platform_grace, std::nullopt};
  const TuneSearch& best = t.searches[*t.best];
  if (t.knob == TuneKnob::kPreStopTimeout) {
    settings.pre_stop = best.pre_stop;
    settings.pre_stop->timeout = r->pre_stop_timeout;
  } else if (pre_stops_searched) {
    settings.pre_stop = best.pre_stop;
  }
  const K8sPatch patch = k8s_patch(manifest, t.base.worker.profile, settings, path);
  if (!emit(patch.yaml, path)) return false;
  fmt::print(to, "\npatch written to {} ({}):\n", path, manifest.workload);
  for (const std::string& c : patch.changes) fmt::print(to, "  {}\n", c);
  for (const std::string& n : patch.notes) fmt::print(to, "  note: {}\n", n);
  fmt::print(to, "apply it with:\n  {}\n", patch.kubectl);
  return true;
}

}  // namespace drainsim::cli
