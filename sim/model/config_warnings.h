// Warnings a scenario earns before it runs: settings that contradict each other, so that
// the platform, not the worker, decides how a shutdown ends (docs/semantics.md, "Warnings").
// `validate` prints them; every run adds them to its results.
#pragma once

#include <vector>

#include "model/scenario.h"
#include "model/warning.h"

namespace drainsim {

// "pre_stop_outlasts_platform": on Kubernetes, a preStop that may hold TERM back as long as
// the platform's grace or longer (kubelet then sends TERM with 2 s left before SIGKILL).
// "worker_grace_outlasts_platform": a finite worker grace at least as long as what the
// platform leaves the worker after its TERM (the grace minus the preStop's sleep), so the
// platform's SIGKILL comes before the worker's own deadline and the jobs still running are
// killed rather than handed back; not with quiet_then_wait, which sends TERM only to an idle
// worker. Neither when TERM never reaches the worker (platform.pid1_shell), nor for a
// worker that handles no TERM (the naive profile), whose grace means nothing.
std::vector<Warning> config_warnings(const Scenario& s);

}  // namespace drainsim
