// The memory a run of a scenario takes at its peak, estimated before it starts from what
// drives it: the pods and their processes, the worker slots (replicas × concurrency), and
// the jobs held at once (a burst, a list of times, or the backlog a rate builds beyond what
// the fleet finishes). A finished job is freed, so a long steady run holds few; a timeline
// (--timeline) is written to disk as the run goes and holds a fixed buffer. The cost of
// each item was measured on the virtual engine and rounded up (docs/scenario.md,
// "Limits"): the estimate is there to refuse a run that cannot fit before it eats the
// machine's memory, not to account for every byte. Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "model/scenario.h"

namespace drainsim {

// Bytes per item, measured (RSS) and rounded up.
inline constexpr double kProgramBytes = 16.0 * 1024 * 1024;  // code, buffers, a small document
inline constexpr double kBytesPerPod = 8 * 1024;  // a pod, its process records, its results
inline constexpr double kBytesPerSlot = 384;      // a worker slot of a live pod
inline constexpr double kBytesPerJob = 256;       // a job queued, backing off or in flight

// One thing the run holds: `count` items of `bytes_each`, named for people (`what`) and by
// the scenario fields that set their number (`fields`).
struct MemoryPart {
  std::string what;    // "jobs held at once"
  std::string fields;  // "workload.arrival.count"
  double count = 0;
  double bytes_each = 0;
  double bytes() const { return count * bytes_each; }
};

struct MemoryEstimate {
  std::vector<MemoryPart> parts;  // largest first
  double total() const;
  // The parts, largest first: "512 GiB for 2147483647 jobs held at once
  // (workload.arrival.count), 3.75 KiB for 10 worker slots (...), ..., 16 MiB for the program"
  std::string explain() const;
};

MemoryEstimate estimate_memory(const Scenario& s);

}  // namespace drainsim
