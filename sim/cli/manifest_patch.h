// The recommendation of a tune written back into the manifest an imported scenario came
// from (io/k8s_patch.h): for `drainsim tune --patch` and `drainsim run --suggest`, with
// the tune search run --suggest shares with tune.
#pragma once

#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/tune.h"
#include "cli/progress.h"
#include "io/k8s_import.h"
#include "model/scenario.h"

namespace drainsim::cli {

// drainsim tune's search with its default options on `scenario` with `sets` (for run
// --suggest); nullopt (said) when the defaults do not parse (tune_command.cpp).
std::optional<TuneSpec> default_tune_spec(const std::string& scenario,
                                          const std::vector<std::string>& sets);

// tune's progress line for a search, drawn by `progress` (tune_command.cpp).
std::function<void(Duration, std::size_t, std::size_t)> tune_progress(
    const ProgressReport& progress);

// The manifests the scenario's origin names (relative to the scenario file's directory),
// read and imported again. `option` names the command's option in messages. Throws
// InputError when the scenario has no origin or a manifest cannot be read.
K8sImport imported_manifests(const std::string& scenario_file, const Scenario& s,
                             const std::string& option);

// Writes the patch of `t`'s recommendation to `path` and says on `to` what it changes and
// how to apply it. REQUIRES: t.recommended(). `pre_stops_searched`: tune was given
// preStops, so its choice among them is written too. False (said) when the file cannot be
// written; throws InputError for a manifest the patch cannot address.
bool write_manifest_patch(const Tune& t, bool pre_stops_searched, const K8sImport& manifest,
                          const std::string& path, std::FILE* to);

}  // namespace drainsim::cli
