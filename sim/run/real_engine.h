// The real engine (drainsim real): the scenario's platform and events, played in real
// time by the same Platform and Script, drive the worker processes of a real job system
// (its adapter, adapters/README.md) on a throwaway broker; arrivals go through the
// system's own client. Afterwards the adapter's events are reduced to drainsim's attempt
// list and replayed into a Recorder (run/real_replay.h), and where the broker holds each
// job at the end (the inspector) settles the rest, so the results document is the other
// engines'.
#pragma once

#include <string>

#include "io/system_manifest.h"
#include "model/scenario.h"
#include "run/run_options.h"

namespace drainsim {

// The adapters' folder: `options.adapters`, else $DRAINSIM_ADAPTERS, else the installed
// ones (../share/drainsim/adapters beside the running binary's folder), else the source
// tree's adapters/.
std::string adapters_folder(const RealOptions& options);

// The manifest of `options.system`. Throws RunError naming the systems there are, and
// InputError for a bad manifest.
SystemManifest find_system(const RealOptions& options);

// Runs `scenario` on the real system `options.real.system`. Throws SystemMissing when a
// program or the broker is not installed, RunError when the scenario asks for something
// the system is not given (not_honoured) or a program fails. SIGINT or SIGTERM ends the
// run early (`interrupted`); every process started is killed and reaped, and the broker
// removed, before it returns or throws.
RunOutput run_real(const Scenario& scenario, const RunOptions& options);

}  // namespace drainsim
