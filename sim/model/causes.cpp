#include "model/causes.h"

#include <algorithm>

#include <fmt/format.h>

namespace drainsim {

void PodCauses::mark(int pod, Time at, CauseId cause) {
  if (pod < 0) return;
  if (static_cast<std::size_t>(pod) >= marks_.size()) marks_.resize(pod + 1);
  std::vector<Mark>& list = marks_[pod];
  if (!list.empty() && list.back().at == at) {
    list.back().cause = cause;  // the latest at one instant wins
  } else if (list.empty() ? cause != kNoCause : list.back().cause != cause) {
    list.push_back({at, cause});
  }
}

CauseId PodCauses::at(int pod, Time t) const {
  if (pod < 0 || static_cast<std::size_t>(pod) >= marks_.size()) return kNoCause;
  const std::vector<Mark>& list = marks_[pod];
  const auto after = std::upper_bound(list.begin(), list.end(), t,
                                      [](Time value, const Mark& m) { return value < m.at; });
  return after == list.begin() ? kNoCause : std::prev(after)->cause;
}

CauseClass cause_class(ScenarioEvent::Kind kind) {
  using K = ScenarioEvent::Kind;
  switch (kind) {
    case K::kRollingRestart:
      return CauseClass::kDeploys;
    case K::kScaleDown:
      return CauseClass::kScaleDowns;
    case K::kNodeDrain:
      return CauseClass::kNodeDrains;
    case K::kDeletePod:
      return CauseClass::kPodDeletions;
    case K::kOomKill:
    case K::kOomKillChild:
      return CauseClass::kOomKills;
    case K::kSignal:
      return CauseClass::kSignals;
    case K::kScaleUp:
    case K::kDirective:
      break;
  }
  return CauseClass::kNone;
}

bool grace_can_change(CauseClass c) {
  return c == CauseClass::kDeploys || c == CauseClass::kScaleDowns ||
         c == CauseClass::kNodeDrains || c == CauseClass::kPodDeletions;
}

std::string CauseRow::id() const { return event < 0 ? "none" : fmt::format("events[{}]", event); }

std::string CauseRow::label() const {
  if (event < 0) return "no event";
  if (kind == ScenarioEvent::Kind::kRollingRestart) {
    return fmt::format("deploy {} at {}", deploy, format_duration(at));
  }
  return fmt::format("{} at {}", name_of(kind), format_duration(at));
}

std::vector<CauseRow> cause_rows(const Scenario& s, const std::vector<CauseCounts>& counts) {
  auto counts_of = [&](CauseId id) { return id < counts.size() ? counts[id] : CauseCounts{}; };
  std::vector<CauseRow> rows;
  int deploys = 0;
  for (std::size_t i = 0; i < s.events.size(); ++i) {
    const ScenarioEvent& e = s.events[i];
    if (e.kind == ScenarioEvent::Kind::kRollingRestart) ++deploys;
    const CauseClass c = cause_class(e.kind);
    if (c == CauseClass::kNone) continue;
    CauseRow row;
    row.event = static_cast<int>(i);
    row.kind = e.kind;
    row.at = e.at;
    row.deploy = e.kind == ScenarioEvent::Kind::kRollingRestart ? deploys : 0;
    row.cause_class = c;
    row.counts = counts_of(event_cause(i));
    rows.push_back(row);
  }
  CauseRow none;
  none.counts = counts_of(kNoCause);
  rows.push_back(none);
  return rows;
}

std::array<CauseCounts, kCauseClasses> by_class(const std::vector<CauseRow>& rows) {
  std::array<CauseCounts, kCauseClasses> out{};
  for (const CauseRow& r : rows) {
    CauseCounts& c = out[static_cast<std::size_t>(r.cause_class)];
    c.interrupted += r.counts.interrupted;
    c.lost += r.counts.lost;
    c.discarded_by_shutdown += r.counts.discarded_by_shutdown;
    c.duplicate_executions += r.counts.duplicate_executions;
    c.shutdown_retries += r.counts.shutdown_retries;
  }
  return out;
}

}  // namespace drainsim
