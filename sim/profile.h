// Profiles: how a given job system shuts down and recovers orphans (PROFILES.md). A
// profile is data (defaults and the recovery mechanisms its backend has) plus the small
// hooks the worker core consults. Registered by name; adding one is one file and one row.
#pragma once

#include <span>
#include <string_view>

#include "backend_mechanisms.h"
#include "scenario.h"

namespace drainsim {

struct Profile {
  std::string_view name;
  std::string_view summary;  // one line for `drainsim profiles`
  WorkerConfig defaults;     // what a scenario leaves out
  BackendMechanisms mechanisms;
};

// nullptr when no profile has that name.
const Profile* find_profile(std::string_view name);
std::span<const Profile> all_profiles();

}  // namespace drainsim
