// A job system's own shutdown settings for a grace period (Sidekiq's -t, Oban's
// shutdown_grace_period, River's SoftStopTimeout, ...), or the code or comment that stands
// in where it has none, and what the platform part of the snippet needs to know of it (its
// command, environment, quiet signal). Each profile's file makes its system's (the
// `settings` of its registry entry); analysis/settings_snippet.h writes them out with the
// Kubernetes and Compose parts; docs/tune.md ("The snippet") names the sources. Here: what
// they share. Pure.
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

// The settings of the scenario's job system: its profile's (worker.profile, worker.options).
// REQUIRES: a registered profile.
System system_of(const Input& in);

// Whole seconds, rounded up.
std::int64_t seconds_up(Duration d);
// Whole milliseconds, rounded up.
std::int64_t millis_up(Duration d);

// A YAML flow sequence of strings: ["a", "b"].
std::string flow(const std::vector<std::string>& items);

// 25000 -> "25_000", as Elixir and JavaScript number literals may be written.
std::string grouped(std::int64_t n);

// A Go time.Duration expression: "25 * time.Second", "1500 * time.Millisecond".
std::string go_duration(Duration d);

// Seconds as a Python float literal: "25.0", "25.5".
std::string python_seconds(Duration d);

// Whether the flag option `name` of worker.options is present and true.
bool flag(const Scenario& s, std::string_view name);

// The duration option `name` of worker.options, or `fallback` when it is absent.
Duration duration_option(const Scenario& s, std::string_view name, Duration fallback);

// For a system with no "forever": 1 s past the platform's grace, so that its SIGKILL comes
// first (and before any action the system takes shortly ahead of its own deadline).
Duration bounded(const Input& in);

// The line that says how a grace was turned into the system's value (`prefix` opens a
// comment in its language), or nothing when it was taken as it is.
std::string grace_note(const Input& in, std::string_view prefix, std::string_view system,
                       Duration unit, std::string_view unit_name);

// Sidekiq's and Faktory's Ruby worker's -t: whole seconds, at least 1 (cli.rb refuses 0),
// and the line that says how the grace was turned into it.
std::int64_t ruby_timeout(const Input& in);
std::string ruby_note(const Input& in, std::string_view system);

// The note above a command left to the user.
inline constexpr const char* kCommandNote =
    "command: your worker program, in exec form (it must be PID 1 to receive TERM)";

}  // namespace drainsim::snippet
