// The settings snippet: a recommended worker grace and platform grace written as the
// configuration a user pastes, in the terms of the scenario's job system: its own shutdown
// timeout (Sidekiq's -t, Oban's shutdown_grace_period, River's SoftStopTimeout, ...), or,
// where it has none, the code or comment that stands in for one; then the Kubernetes pod
// template (terminationGracePeriodSeconds, the container's command and environment, the
// preStop hook) and the Docker Compose service. docs/tune.md ("The snippet") names the
// source each field was checked against. Pure.
#pragma once

#include <string>

#include "base/duration.h"
#include "model/scenario.h"

namespace drainsim {

// `s`: the scenario (its worker.profile and worker.options, its platform); `worker_grace`:
// the worker's grace period, kNever for one that waits for its jobs however long;
// `platform_grace`: Kubernetes' terminationGracePeriodSeconds (counted from the deletion,
// so from before the preStop) or Docker's stop_grace_period; `pre_stop`: the hook (none on
// Docker). The text is sections, each opened by a line "# --- WHERE: what it sets".
// Kubernetes, Compose and the systems that take whole seconds get the values rounded up.
std::string settings_snippet(const Scenario& s, Duration worker_grace, Duration platform_grace,
                             const PreStop& pre_stop);

}  // namespace drainsim
