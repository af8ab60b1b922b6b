// Reads scenario files (docs/scenario.md): JSON with comments allowed, `--set PATH=VALUE`
// overrides applied before validation (io/overrides.h), every field checked
// (io/json_reader.h); io/scenario_writer.h writes a scenario back. Anything wrong is a
// ScenarioError whose message names the file, the JSON path and what was expected, e.g.
//   scenarios/x.json: worker.grace_period: expected a duration like "25s", got -3
// Unknown fields are errors with the nearest known name suggested. Missing optional
// fields take the documented defaults (the worker's from its profile).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "io/json_reader.h"
#include "model/scenario.h"
#include "profiles/profile.h"

namespace drainsim {

using ScenarioError = InputError;

// `source` names the input in messages (a file path). `overrides` are "a.b.c=value"
// strings; a value that parses as JSON is used as such, anything else as a string.
Scenario parse_scenario(std::string_view text, std::string_view source,
                        const std::vector<std::string>& overrides = {});

// Reads and parses a file; an unreadable file is a ScenarioError too.
Scenario load_scenario_file(const std::string& path,
                            const std::vector<std::string>& overrides = {});

// The `options` object of `parent` for `profile` (a scenario's worker, an adapter's
// system.json): every option spelled out, the profile's defaults where it is silent.
ProfileOptions read_options(const Reader& parent, const Profile& profile);

}  // namespace drainsim
