// The record compare, sweep and tune keep of one seed's run: its result hash, its audit
// verdict and its warnings (the metrics go into their own aggregates).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/warning.h"
#include "run/run_scenario.h"

namespace drainsim {

struct SeedRun {
  std::uint64_t seed = 0;
  std::string result_hash;
  bool audit_ok = true;
  std::int64_t audit_error_count = 0;
  // The first few audit errors, each naming its job.
  std::vector<std::string> audit_errors;
  std::vector<Warning> warnings;  // the run's (RunSummary::warnings)
};

SeedRun seed_run(std::uint64_t seed, const RunOutput& out);

// {"seed", "error_count", "errors"}: how a failed audit appears in their JSON.
nlohmann::json audit_failure_json(const SeedRun& r);

}  // namespace drainsim
