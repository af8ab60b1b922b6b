// The virtual engine: the models on a VirtualRuntime, one thread, in discrete virtual time.
// The same scenario and seed give a byte-identical results document. A long run is
// watched (RunOptions::limits): a limit of events or keep_going() saying no stops it, its
// results partial.
#pragma once

#include "model/scenario.h"
#include "run/run_options.h"

namespace drainsim {

RunOutput run_virtual(const Scenario& scenario, const RunOptions& options);

}  // namespace drainsim
