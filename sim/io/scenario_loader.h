// Reads scenario files: JSON with comments allowed, `--set PATH=VALUE` overrides applied
// before validation, every field checked. Anything wrong is a ScenarioError whose message
// names the file, the JSON path and what was expected, e.g.
//   scenarios/x.json: worker.grace_period: expected a duration like "25s", got -3
// Unknown fields are errors with the nearest known name suggested. Missing optional
// fields take the documented defaults (the worker's from its profile).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/scenario.h"

namespace drainsim {

class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `source` names the input in messages (a file path). `overrides` are "a.b.c=value"
// strings; a value that parses as JSON is used as such, anything else as a string.
Scenario parse_scenario(std::string_view text, std::string_view source,
                        const std::vector<std::string>& overrides = {});

// Reads and parses a file; an unreadable file is a ScenarioError too.
Scenario load_scenario_file(const std::string& path,
                            const std::vector<std::string>& overrides = {});

// A preStop in the input format, e.g. {"kind": "quiet_then_sleep", "duration": "5s"}.
nlohmann::json pre_stop_json(const PreStop& p);

// The effective scenario with every field spelled out (defaults included), in the input
// format: parse_scenario(scenario_to_json(s).dump(), ...) gives back s.
nlohmann::json scenario_to_json(const Scenario& s);

}  // namespace drainsim
