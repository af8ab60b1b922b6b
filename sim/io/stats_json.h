// Summary statistics (base/stats.h) as the results, compare, sweep and tune write them.
#pragma once

#include <nlohmann/json.hpp>

#include "base/stats.h"

namespace drainsim {

// {"count", "max", "p50", "p99"}, or null when there are no samples.
nlohmann::json percentiles_json(const Percentiles& p);

// {"mean", "half_width", "low", "high", "n"}; n == 0 gives null for all but n.
nlohmann::json interval_json(const Interval& v);

}  // namespace drainsim
