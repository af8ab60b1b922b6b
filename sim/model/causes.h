// Loss by cause (docs/semantics.md, "Causes"): which event of the scenario made each job's
// trouble. The platform marks a pod with the event that acts on it (the deletion of a
// deploy, scale-down, node drain or delete_pod event; an OOM kill; a signal event) and a
// new process clears the mark. A job takes the mark its pod had when an attempt of it
// ended interrupted, killed or abandoned, or when the backend lost it with its worker's
// process. An interrupted job is counted under the mark of its first interruption (the one
// that made it an interrupted job); a lost, discarded-by-shutdown or duplicated job, and a
// shutdown retry, under the latest mark its job carries when it is counted (the event that
// settled its fate); "none" when there is no mark (a crash, a lease that ran out under a
// running job). So each figure by cause sums to the run's total. Not thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/duration.h"
#include "model/scenario.h"

namespace drainsim {

// 0: no event; i + 1: the scenario's events[i].
using CauseId = std::uint32_t;
inline constexpr CauseId kNoCause = 0;
inline CauseId event_cause(std::size_t index) { return static_cast<CauseId>(index + 1); }

struct CauseCounts {
  std::int64_t interrupted = 0, lost = 0, discarded_by_shutdown = 0, duplicate_executions = 0,
               shutdown_retries = 0;
  std::int64_t job_loss() const { return lost + discarded_by_shutdown; }
};

// Each pod's marks in time order, so that a mark can be asked for at any past time (the
// real engine replays its attempts after the run).
class PodCauses {
 public:
  void mark(int pod, Time at, CauseId cause);
  // The mark `pod` had at `at` (the latest made at or before it), kNoCause if none.
  CauseId at(int pod, Time at) const;

 private:
  struct Mark {
    Time at;
    CauseId cause;
  };
  std::vector<std::vector<Mark>> marks_;
};

// The classes the tools add causes up by. A grace can change what the deletions cost
// (deploys, scale-downs, node drains, pod deletions), not what a kill or no event costs.
enum class CauseClass : std::uint8_t {
  kDeploys,
  kScaleDowns,
  kNodeDrains,
  kPodDeletions,
  kOomKills,
  kSignals,
  kNone,
};
constexpr std::array<std::string_view, 7> names(CauseClass) {
  return {"deploys", "scale_downs", "node_drains", "pod_deletions", "oom_kills", "signals", "none"};
}
inline constexpr std::size_t kCauseClasses = names(CauseClass{}).size();

// The class of an event kind; nullopt-like kNone for kinds that act on no job (scale_up,
// directive).
CauseClass cause_class(ScenarioEvent::Kind kind);
// Whether a shutdown setting (a grace, a preStop) can change what the class costs.
bool grace_can_change(CauseClass c);

// A row of summary.by_cause: an event that can act on a pod, or "none".
struct CauseRow {
  int event = -1;  // index into the scenario's events; -1 for "none"
  ScenarioEvent::Kind kind = ScenarioEvent::Kind::kRollingRestart;
  Time at = 0;
  int deploy = 0;  // rolling restarts: 1 for the first of the scenario
  CauseClass cause_class = CauseClass::kNone;
  CauseCounts counts;

  // "events[2]" or "none".
  std::string id() const;
  // "deploy 1 at 1m", "oom_kill at 5m30s", "no event".
  std::string label() const;
};

// One row per event that can act on a pod (every kind but scale_up and directive), in the
// scenario's order, then "none"; `counts` is by CauseId.
std::vector<CauseRow> cause_rows(const Scenario& s, const std::vector<CauseCounts>& counts);

// The rows' figures added up by class.
std::array<CauseCounts, kCauseClasses> by_class(const std::vector<CauseRow>& rows);

}  // namespace drainsim
