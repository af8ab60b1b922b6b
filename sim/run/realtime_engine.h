// The realtime engine: the models paced to the wall clock (PacedOptions::time_scale) on one
// strand of a thread pool, every worker process a SimulatedProcess on a strand of its own,
// its job bodies real (sleeping or spinning threads) or timers (RealtimeOptions). A process
// reaches the models by posting to their strand or under their lock. SIGINT or SIGTERM
// ends the run early, its results partial.
#pragma once

#include "model/scenario.h"
#include "run/run_options.h"

namespace drainsim {

RunOutput run_realtime(const Scenario& scenario, const RunOptions& options);

}  // namespace drainsim
