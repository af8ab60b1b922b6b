// The results document's timeline (results/README.md, "timeline"): its tables and their
// columns, in order. The results writer (io/results), the trace export (io/trace_export)
// and the viewer's reader take the names from here; each Column enum indexes a row.
// Changing a column changes the file format: bump kResultsSchemaVersion (io/results.h).
#pragma once

#include <array>
#include <string_view>

namespace drainsim::timeline_schema {

namespace attempts {
inline constexpr std::string_view kName = "attempts";
inline constexpr std::array<std::string_view, 8> kColumns = {"job",  "attempt", "pod",   "worker",
                                                             "slot", "start_s", "end_s", "outcome"};
enum Column { kJob, kAttempt, kPod, kWorker, kSlot, kStart, kEnd, kOutcome };
}  // namespace attempts

namespace drain_remaining {
inline constexpr std::string_view kName = "drain_remaining";
inline constexpr std::array<std::string_view, 4> kColumns = {"t_s", "pod", "worker", "remaining"};
enum Column { kTime, kPod, kWorker, kRemaining };
}  // namespace drain_remaining

namespace heartbeats {
inline constexpr std::string_view kName = "heartbeats";
inline constexpr std::array<std::string_view, 4> kColumns = {"t_s", "pod", "worker", "state"};
enum Column { kTime, kPod, kWorker, kState };
}  // namespace heartbeats

namespace pod_states {
inline constexpr std::string_view kName = "pod_states";
inline constexpr std::array<std::string_view, 3> kColumns = {"t_s", "pod", "state"};
enum Column { kTime, kPod, kState };
}  // namespace pod_states

namespace reports {
inline constexpr std::string_view kName = "reports";
inline constexpr std::array<std::string_view, 8> kColumns = {
    "t_s", "pod", "worker", "job", "attempt", "kind", "error", "accepted"};
enum Column { kTime, kPod, kWorker, kJob, kAttempt, kKind, kError, kAccepted };
}  // namespace reports

namespace series {
inline constexpr std::string_view kName = "series";
inline constexpr std::array<std::string_view, 4> kColumns = {"t_s", "queued", "scheduled",
                                                             "in_flight"};
enum Column { kTime, kQueued, kScheduled, kInFlight };
}  // namespace series

namespace signals {
inline constexpr std::string_view kName = "signals";
inline constexpr std::array<std::string_view, 5> kColumns = {"t_s", "pod", "signal", "delivered",
                                                             "source"};
enum Column { kTime, kPod, kSignal, kDelivered, kSource };
}  // namespace signals

}  // namespace drainsim::timeline_schema
