// Test-only: the scenario of the hand-worked cases, shared by the tests that replay them.
#pragma once

#include <string>

namespace drainsim::test {

// A rolling restart at 10 s that adds one pod before removing one.
inline const char* const kRollingRestartAt10s =
    R"([{"at": "10s", "kind": "rolling_restart", "max_surge": 1, "max_unavailable": 0}])";

// One pod of concurrency 4 (new pods start in 5 s) and `count` jobs of `job` each, all
// arriving at t=0. `worker` and `platform` are spliced into those objects, e.g.
// R"(, "grace_period": "2s")".
inline std::string one_pod(const std::string& job, const std::string& worker = "",
                           const std::string& platform = "",
                           const std::string& events = kRollingRestartAt10s, int count = 4) {
  return R"({"name": "case", "duration": "1s", "settle": "10m",
    "workload": {"arrival": {"kind": "burst", "count": )" +
         std::to_string(count) + R"(, "at": "0s"},
                 "job_duration": {"kind": "constant", "value": ")" +
         job + R"("}},
    "worker": {"concurrency": 4)" +
         worker + R"(},
    "platform": {"replicas": 1, "pod_start_delay": "5s")" +
         platform + R"(},
    "events": )" +
         events + "}";
}

// Three 20 s jobs at 0 s on one pod, whose process an OOM kill takes at 10 s: a profile
// that holds fetched jobs in memory (Sidekiq) loses the three; one that leases them gets
// them back. Programs start at once.
inline const char* const kThreeJobsOomKilledAt10s = R"({"name": "oom", "duration": "1s",
  "settle": "10m",
  "workload": {"arrival": {"kind": "burst", "count": 3, "at": "0s"},
               "job_duration": {"kind": "constant", "value": "20s"}},
  "worker": {"concurrency": 4, "startup": {"kind": "constant", "value": "0s"}},
  "platform": {"replicas": 1, "pod_start_delay": "5s"},
  "events": [{"at": "10s", "kind": "oom_kill", "pod": "pod-0"}]})";

}  // namespace drainsim::test
