#include "base/ids.h"

namespace drainsim {

const char* to_string(JobState s) {
  switch (s) {
    case JobState::kAvailable:
      return "available";
    case JobState::kScheduled:
      return "scheduled";
    case JobState::kActive:
      return "active";
    case JobState::kCompleted:
      return "completed";
    case JobState::kDiscarded:
      return "discarded";
  }
  return "?";
}

const char* to_string(ErrorKind e) {
  switch (e) {
    case ErrorKind::kHandler:
      return "handler_error";
    case ErrorKind::kShutdown:
      return "ShutdownError";
    case ErrorKind::kWorkerDeath:
      return "worker_death";
    case ErrorKind::kVisibilityTimeout:
      return "visibility_timeout";
    case ErrorKind::kStalled:
      return "stalled";
    case ErrorKind::kRescued:
      return "rescued";
  }
  return "?";
}

const char* to_string(Outcome o) {
  switch (o) {
    case Outcome::kCompleted:
      return "completed";
    case Outcome::kFailed:
      return "failed";
    case Outcome::kInterrupted:
      return "interrupted";
    case Outcome::kKilled:
      return "killed";
    case Outcome::kAbandoned:
      return "abandoned";
    case Outcome::kCancelled:
      return "cancelled";
  }
  return "?";
}

}  // namespace drainsim
