// The per-job rule check (docs/fidelity.md): for every attempt running in a process when
// its termination (preStop or TERM) or a kill came, the fate the profile's shutdown rule
// predicts from the job's remaining time, against the fate the attempt really had. The
// rule: a job that can finish before the worker's deadline (its grace after TERM) and the
// platform's SIGKILL completes; one still running at the worker's deadline meets the
// profile's deadline action (interrupted: failed or requeued; abandoned: left to die with
// the process); one still running at the SIGKILL, or when the process is killed, is
// killed. A run whose lease expires first under ShutdownBehaviour::fails_at_lease_expiry
// is let go then and runs on: it completes if it ends before its process does, else dies
// with it (abandoned, or killed by a kill). For a real system's run this is where a
// profile's rule and the system part.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "model/platform.h"
#include "model/recorder.h"
#include "model/scenario.h"

namespace drainsim {

struct FateCheck {
  JobId job = 0;
  int attempt = 0;
  int pod = 0;
  Time at = 0;             // the termination or kill the attempt was running at
  Duration remaining = 0;  // its work left then
  std::string predicted;   // completed, interrupted, abandoned or killed
  std::string actual;      // the attempt's outcome
};

// Checks every ended attempt of `attempts` that was running when its process (matched by
// pod and worker) was terminated or killed; `work(job)` is the job's whole run time.
std::vector<FateCheck> check_fates(const Scenario& scenario, const std::vector<PodRecord>& pods,
                                   const std::vector<ProcessRecord>& processes,
                                   const std::vector<AttemptRecord>& attempts,
                                   const std::function<Duration(JobId)>& work);

}  // namespace drainsim
