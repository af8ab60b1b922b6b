// Profiles: how a given job system shuts down and recovers orphans (docs/profiles.md). A
// profile is data — worker and backend defaults, the worker's ShutdownBehaviour, the
// recovery mechanisms its backend has, its options, the adapters that run the real system —
// plus one small hook that applies the options and one that writes the system's own
// shutdown settings for tune's snippet. Each lives in sim/profiles/<name>.cpp and is one row
// of the registry in registry.cpp; io/profile_json.h spells them out.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/backend_mechanisms.h"
#include "model/profile_options.h"
#include "model/scenario.h"

namespace drainsim {

namespace snippet {
struct Input;
struct System;
}  // namespace snippet

// A profile-specific option, set under `worker.options`.
struct ProfileOption {
  std::string_view name;
  OptionValue fallback;  // the default; its type is the option's (flag, duration, count)
  std::string_view doc;
};

struct Profile {
  std::string_view name;
  std::string_view summary;  // one line for `drainsim profiles`
  WorkerConfig worker;       // defaults, the shutdown behaviour included
  BackendConfig backend;     // defaults
  BackendMechanisms mechanisms;
  std::vector<ProfileOption> options;
  // Applies `options` (every option present, of its type) to the behaviour and mechanisms.
  void (*apply)(const ProfileOptions& options, ShutdownBehaviour& worker,
                BackendMechanisms& backend) = nullptr;
  // The system's own settings for a recommended grace (profiles/system_settings.h).
  // Required: every registered profile has one.
  snippet::System (*settings)(const snippet::Input& in) = nullptr;
  // The `system` of each adapter (adapters/*/system.json) that runs this profile's real
  // system for `drainsim real`; empty when none does.
  std::vector<std::string_view> adapters;
};

// Every option of `p` at its default.
ProfileOptions default_options(const Profile& p);

// nullptr when no profile has that name.
const Profile* find_profile(std::string_view name);
std::span<const Profile> all_profiles();
// The profiles' names, in registry order.
std::vector<std::string_view> profile_names();
// The one message for a name no profile has: unknown profile "NAME", expected one of ...
std::string unknown_profile(std::string_view name);

// The behaviour and mechanisms of `worker.profile` with `worker.options` applied.
// REQUIRES: a known profile and options as the scenario reader leaves them (all present).
ShutdownBehaviour shutdown_behaviour(const WorkerConfig& worker);
BackendMechanisms backend_mechanisms(const WorkerConfig& worker);

// An option's value as text ("true", "1h", "3"), and back: nullopt when `text` is not a
// value of the type of `like` (a duration must be positive, a count >= 0).
std::string format_option(const OptionValue& v);
std::optional<OptionValue> parse_option(const OptionValue& like, std::string_view text);

}  // namespace drainsim
