// Profiles: how a given job system shuts down and recovers orphans (PROFILES.md). A
// profile is data — worker and backend defaults, the worker's ShutdownBehaviour, the
// recovery mechanisms its backend has, its options — plus one small hook that applies
// the options. Each lives in sim/profiles/<name>.cpp and is one row of the registry in
// profile.cpp.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/backend_mechanisms.h"
#include "model/scenario.h"

namespace drainsim {

// A profile-specific option, set under `worker.options`.
struct ProfileOption {
  enum class Kind { kBool, kDuration, kCount };
  std::string_view name;
  Kind kind;
  nlohmann::json fallback;  // the default: true/false, "1h", or a count
  std::string_view doc;
};

struct Profile {
  std::string_view name;
  std::string_view summary;  // one line for `drainsim profiles`
  WorkerConfig worker;       // defaults, the shutdown behaviour included
  BackendConfig backend;     // defaults
  BackendMechanisms mechanisms;
  std::vector<ProfileOption> options;
  // Applies `options` (every option present and valid) to the behaviour and mechanisms.
  void (*apply)(const nlohmann::json& options, ShutdownBehaviour& worker,
                BackendMechanisms& backend) = nullptr;
};

// Every option of `p` at its default.
nlohmann::json default_options(const Profile& p);

// nullptr when no profile has that name.
const Profile* find_profile(std::string_view name);
std::span<const Profile> all_profiles();

// The behaviour and mechanisms of `worker.profile` with `worker.options` applied.
// REQUIRES: a known profile and options as the scenario loader leaves them (all present).
ShutdownBehaviour shutdown_behaviour(const WorkerConfig& worker);
BackendMechanisms backend_mechanisms(const WorkerConfig& worker);

// What a run used, for the results and `drainsim profiles`: the behaviour and the
// mechanisms, spelled out.
nlohmann::json behaviour_json(const ShutdownBehaviour& b);
nlohmann::json mechanisms_json(const BackendMechanisms& m);
// A profile with its defaults (worker, backend), behaviour, mechanisms and options.
nlohmann::json profile_json(const Profile& p);

}  // namespace drainsim
