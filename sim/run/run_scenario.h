// run_scenario: one run of a scenario on the engine RunOptions::engine names — virtual,
// realtime, process or real (run/*_engine.h) — audited, with its results document. On
// the virtual engine the same scenario and seed give a byte-identical document.
#pragma once

#include "model/scenario.h"
#include "run/run_options.h"

namespace drainsim {

// Throws RunError (SystemMissing) when the run cannot be done; the engines' headers say
// when.
RunOutput run_scenario(const Scenario& scenario, const RunOptions& options = {});

}  // namespace drainsim
