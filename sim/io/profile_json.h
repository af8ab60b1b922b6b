// Profiles in JSON: what `drainsim profiles` prints and what the results record of the
// behaviour and recovery mechanisms a run used.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "profiles/profile.h"

namespace drainsim {

// true/false, "1h", or a count.
nlohmann::json option_json(const OptionValue& v);
// {"name": value, ...} in name order.
nlohmann::json options_json(const ProfileOptions& options);
// Durations as the scenario format writes them: ["1s", "1m30s", ...].
nlohmann::json durations_json(const std::vector<Duration>& ds);
// A duration distribution as the scenario format writes it ({"kind": ..., its fields}):
// the scenario's and the profiles' (worker.startup).
nlohmann::json distribution_json(const DurationDistribution& d);

// The behaviour and the mechanisms, spelled out.
nlohmann::json behaviour_json(const ShutdownBehaviour& b);
nlohmann::json mechanisms_json(const BackendMechanisms& m);
// A profile with its defaults (worker, backend), behaviour, mechanisms and options.
nlohmann::json profile_json(const Profile& p);

}  // namespace drainsim
