// Writes a scenario back in its input format (docs/scenario.md): what the results carry as
// the scenario that ran, and what tune hands back as --set overrides.
#pragma once

#include <nlohmann/json.hpp>

#include "model/scenario.h"

namespace drainsim {

// A preStop in the input format, e.g. {"kind": "quiet_then_sleep", "duration": "5s"}.
nlohmann::json pre_stop_json(const PreStop& p);

// The effective scenario with every field spelled out (defaults included), in the input
// format: parse_scenario(scenario_to_json(s).dump(), ...) gives back s.
nlohmann::json scenario_to_json(const Scenario& s);

}  // namespace drainsim
