// `--set PATH=VALUE` overrides: applied to a JSON document before it is read, so that an
// override is checked like a field of the file.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "io/json_reader.h"

namespace drainsim {

// Sets PATH ("a.b[2].c": keys, and item indexes after a key) in `root` to VALUE: parsed as
// JSON when it parses, else the text as a string. Missing objects on the way are created;
// list items must exist. Records the override in `c`, so that later errors at that path
// name it. Throws InputError for a malformed PATH=VALUE or a path that cannot be set.
void apply_override(nlohmann::json& root, const std::string& text, Context& c);

}  // namespace drainsim
