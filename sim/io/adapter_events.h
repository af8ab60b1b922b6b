// What a real job system's adapter reports (adapters/README.md), reduced to the attempt
// list drainsim's own recorder keeps. An adapter appends one JSON object per line:
//   {"t": unix seconds, "pid", "worker": "pod-N", "event": "ready" | "quiet" | "shutdown"}
//   {"t", "pid", "worker", "event": "start" | "end", "job", "attempt",
//    "outcome": "completed" | "failed" | "interrupted"}            ("outcome" on "end")
//   {"t", "pid", "worker", "event": "available" | "discarded", "job"}
// "available": the system made the job available to its workers again after an attempt
// that did not complete (a stalled job moved back to wait, a job pushed back to its queue
// at shutdown), said by whichever process saw it (adapters whose manifest "reports" it).
// "discarded": the system failed the job for good, though it keeps no record a broker's
// inspector could read (Celery without a result backend, when a pool child died under it).
// An attempt is a start and the end with the same pid, run ("run", optional), job and
// attempt. One with no end was cut short: killed when its pool child ("child": that
// process's pid, optional) died, else by its process: killed when the process died of a
// signal, abandoned when it exited; one whose process still runs when the run ends is in
// flight.
#pragma once

#include <sys/types.h>

#include <istream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "model/recorder.h"

namespace drainsim {

// How a worker process ended, in unix seconds.
struct ProcessEnding {
  double at = 0;
  bool signalled = false;  // died of a signal (SIGKILL at the deadline, an OOM kill...)
};

// A lifecycle event of a worker process: "ready", "quiet" or "shutdown".
struct LifecycleEvent {
  Time at = 0;
  int pod = -1;
  pid_t pid = 0;
  std::string event;
};

// A job the system made available again.
struct Availability {
  Time at = 0;
  JobId job = 0;
};

struct AdapterReport {
  std::vector<AttemptRecord> attempts;    // ended attempts, by end time (then start, job)
  std::vector<AttemptRecord> in_flight;   // started, their process alive at the end
  std::vector<LifecycleEvent> lifecycle;  // in file order
  std::vector<Availability> available;    // in file order
  std::set<JobId> discarded;              // failed for good, by the adapter's word
};

// Reads an adapter's events. Times become run time: microseconds since `origin` (unix
// seconds). `endings` holds the processes that ended (pool children too), by pid. An
// attempt's worker is its process's pid; its slot is unknown (-1). Throws InputError naming
// `where`, the line and what was expected when a line is not such an event.
AdapterReport read_adapter_events(std::istream& in, const std::string& where, double origin,
                                  const std::map<pid_t, ProcessEnding>& endings);

}  // namespace drainsim
