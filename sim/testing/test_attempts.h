// Test-only: attempt records made by hand, for the tests that replay or check them.
#pragma once

#include "model/recorder.h"

namespace drainsim::test {

// Attempt 1 of `job` on pod 0, process `worker`, from `start_s` to `end_s`.
inline AttemptRecord attempt(JobId job, double start_s, double end_s, Outcome outcome,
                             WorkerId worker = 7) {
  AttemptRecord a;
  a.job = job;
  a.attempt = 1;
  a.pod = 0;
  a.worker = worker;
  a.start = from_seconds(start_s);
  a.end = from_seconds(end_s);
  a.outcome = outcome;
  return a;
}

}  // namespace drainsim::test
