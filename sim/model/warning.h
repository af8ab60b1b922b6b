// A warning of a run (results `warnings`, docs/semantics.md "Warnings"): something did
// not go as the scenario asked, or an answer the run gives cannot be taken at face value.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace drainsim {

struct Warning {
  // Stable, for scripts: "overload", "queue_growth", "settle_reached", "event_skipped",
  // "event_partial", "pod_unschedulable", "no_checkpoints", "prefetched_unstarted",
  // "broker_not_asked", "recovery_unreported", "timers_late", "engine_behind",
  // "late_reports", "worker_unregistered", "threads_refused", "interrupted", "run_failed",
  // "worker_killed_outside", "worker_grace_outlasts_platform", "pre_stop_outlasts_platform".
  std::string code;
  std::string message;  // the sentence a person reads, the figures in it
  // The figures behind the message, by name, in the order the message gives them.
  std::vector<std::pair<std::string, double>> figures;

  bool operator==(const Warning&) const = default;
};

}  // namespace drainsim
