// Small identifiers shared by the backend, the worker and the recorder.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "base/duration.h"
#include "base/names.h"

namespace drainsim {

using JobId = std::uint64_t;     // dense, in enqueue order from 0
using WorkerId = std::uint32_t;  // one per process start
inline constexpr WorkerId kNoWorker = UINT32_MAX;

// A job's state in the backend.
enum class JobState : std::uint8_t { kAvailable, kScheduled, kActive, kCompleted, kDiscarded };

// Why an attempt stopped short or a job was requeued.
enum class ErrorKind : std::uint8_t {
  kHandler,            // the job's own error
  kShutdown,           // ShutdownError: FAILed by a worker at its grace deadline
  kWorkerDeath,        // dead-worker detection
  kVisibilityTimeout,  // lease expiry
  kStalled,            // BullMQ-style stall check: stalled more than the allowed count
  kRescued,            // a rescuer sweep took the job back (River JobRescuer, Oban Lifeline)
};

// How one attempt (one execution of a job by one worker) ended (docs/design.md, Metrics).
enum class Outcome : std::uint8_t {
  kCompleted,    // its work finished, whether or not the ACK was accepted
  kFailed,       // the job's own error
  kInterrupted,  // failed or requeued by the worker at shutdown
  kKilled,       // its process died under it
  kAbandoned,    // force stop: the worker exited without reporting it
  kCancelled,
};

// What the job's body does; the backend stores it as the job's args.
struct JobSpec {
  Duration work = 0;            // total run time without interruption
  Duration cancel_latency = 0;  // how long it takes to stop once cancelled
  bool cooperative = true;      // stops when cancelled
  std::uint16_t job_class = 0;  // index into workload.classes (0 without classes)
};

// A claimed job as handed to a worker by a fetch.
struct Lease {
  JobId id = 0;
  std::uint32_t handle = 0;  // the backend's slot for the job
  std::uint32_t ledger = 0;  // the recorder's slot for the job
  int attempt = 0;           // 1 for the first execution
  Duration progress = 0;     // work already checkpointed
  JobSpec spec;
  // Which claim of the job this is: 1 for its first fetch, +1 at each fetch. Unlike the
  // attempt number (which a requeue or a stall can give back) no two claims share it.
  std::uint32_t claim = 0;
  // When the lease expires as fetched: its fetch + backend.visibility_timeout, before any
  // renewal (ShutdownBehaviour::fails_at_lease_expiry). kNever: not set.
  Time expires = kNever;
};

constexpr std::array<std::string_view, 5> names(JobState) {
  return {"available", "scheduled", "active", "completed", "discarded"};
}
inline const char* to_string(JobState v) { return name_of(v).data(); }

constexpr std::array<std::string_view, 6> names(ErrorKind) {
  return {"handler_error",      "ShutdownError", "worker_death",
          "visibility_timeout", "stalled",       "rescued"};
}
inline const char* to_string(ErrorKind v) { return name_of(v).data(); }

constexpr std::array<std::string_view, 6> names(Outcome) {
  return {"completed", "failed", "interrupted", "killed", "abandoned", "cancelled"};
}
inline const char* to_string(Outcome v) { return name_of(v).data(); }

}  // namespace drainsim
