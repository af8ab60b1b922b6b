// The warnings of many runs of one setting (a compare profile, a sweep point, a tune
// setting), by code: how many of the runs gave each, with the first such run's message
// and figures. How compare, sweep and tune say what their runs warned about.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/seed_run.h"
#include "model/warning.h"

namespace drainsim {

struct WarningTally {
  Warning first;           // as the first run (in seed order) that gave the code said it
  std::uint64_t seed = 0;  // that run's seed
  std::size_t runs = 0;    // the runs that gave the code
  std::size_t of = 0;      // the runs in all
};

// In the order the codes first appear over the runs.
std::vector<WarningTally> tally_warnings(const std::vector<SeedRun>& runs);

// "overload in 10 of 10 runs (seed 1: offered load ≈ ...)".
std::string tally_text(const WarningTally& t);

// {"code", "runs", "of", "seed", "message", "figures"}.
nlohmann::json tally_json(const WarningTally& t);
nlohmann::json tallies_json(const std::vector<WarningTally>& ts);

}  // namespace drainsim
