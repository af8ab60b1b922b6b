// Each job system's own shutdown settings for a grace period (Sidekiq's -t, Oban's
// shutdown_grace_period, River's SoftStopTimeout, ...), or the code or comment that stands
// in where it has none, and what the platform part of the snippet needs to know of it (its
// command, environment, quiet signal). analysis/settings_snippet.h writes them out with the
// Kubernetes and Compose parts; docs/tune.md ("The snippet") names the sources. Pure.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/duration.h"
#include "model/scenario.h"

namespace drainsim::snippet {

// What the snippet says for one job system.
struct System {
  std::string_view name;             // in comments: "Sidekiq"
  std::string settings;              // its own configuration or code: "# --- " sections, or empty
  std::vector<std::string> command;  // the container's command (exec form); empty: the app's
  std::string command_note;          // a comment above it
  std::vector<std::pair<std::string, std::string>> env;
  std::string_view quiet;   // the signal that stops it fetching ("TSTP"); empty: none
  bool busy_title = false;  // its process title reads "[N of M busy]"
};

// The recommendation the settings are for.
struct Input {
  const Scenario& s;  // its worker.profile, worker.options and platform
  Duration grace;     // kNever: forever
  Duration platform;  // from the deletion
  const PreStop& pre_stop;
};

// The settings of the scenario's job system (worker.profile, worker.options).
System system_of(const Input& in);

// Whole seconds, rounded up.
std::int64_t seconds_up(Duration d);

// A YAML flow sequence of strings: ["a", "b"].
std::string flow(const std::vector<std::string>& items);

}  // namespace drainsim::snippet
