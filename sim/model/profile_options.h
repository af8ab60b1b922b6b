// Profile options: the typed values of a scenario's `worker.options`, the settings a job
// system has of its own (Celery's acks_late, BullMQ's stalled_interval, ...). Which options
// a profile has, and their defaults, are the profile's (profiles/profile.h).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <variant>

#include "base/duration.h"

namespace drainsim {

// A flag, a duration or a count.
using OptionValue = std::variant<bool, Duration, int>;

// By name, in name order (as the results and scenario files list them).
using ProfileOptions = std::map<std::string, OptionValue, std::less<>>;

}  // namespace drainsim
