#include "model/metrics.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace drainsim {

namespace {

using Value = std::optional<double>;

template <std::int64_t JobTotals::*F>
Value job(const RunSummary& s) {
  return static_cast<double>(s.jobs.*F);
}
template <Outcome O>
Value attempts(const RunSummary& s) {
  return static_cast<double>(s.jobs.attempts[static_cast<std::size_t>(O)]);
}
template <ExitKind K>
Value exits(const RunSummary& s) {
  return static_cast<double>(s.exit_count(K));
}
template <std::int64_t RunSummary::*F>
Value count(const RunSummary& s) {
  return static_cast<double>(s.*F);
}
template <auto Group, auto Field>
Value member(const RunSummary& s) {
  const auto& group = s.*Group;
  if (!group) return std::nullopt;
  return static_cast<double>((*group).*Field);
}
template <CauseClass C>
Value interrupted_by(const RunSummary& s) {
  return static_cast<double>(s.by_class[static_cast<std::size_t>(C)].interrupted);
}
template <CauseClass C>
Value loss_by(const RunSummary& s) {
  return static_cast<double>(s.by_class[static_cast<std::size_t>(C)].job_loss());
}
constexpr auto kDrain = &RunSummary::drain_latency;
constexpr auto kOrphan = &RunSummary::orphan_recovery_delay;
constexpr auto kRequeue = &RunSummary::requeue_delay;
constexpr auto kBackend = &RunSummary::backend_recovery_delay;
constexpr auto kDeploy = &RunSummary::deploy_duration;
constexpr auto kLatency = &RunSummary::job_latency;

using enum Unit;

// Sorted by name.
constexpr Metric kMetrics[] = {
    {"attempts.abandoned", kCount, attempts<Outcome::kAbandoned>},
    {"attempts.cancelled", kCount, attempts<Outcome::kCancelled>},
    {"attempts.completed", kCount, attempts<Outcome::kCompleted>},
    {"attempts.failed", kCount, attempts<Outcome::kFailed>},
    {"attempts.interrupted", kCount, attempts<Outcome::kInterrupted>},
    {"attempts.killed", kCount, attempts<Outcome::kKilled>},
    {"backend_recovery_delay_s.count", kCount, member<kBackend, &Spread::count>},
    {"backend_recovery_delay_s.max", kSeconds, member<kBackend, &Spread::max>},
    {"backend_recovery_delay_s.p50", kSeconds, member<kBackend, &Spread::p50>},
    {"backend_recovery_delay_s.p99", kSeconds, member<kBackend, &Spread::p99>},
    {"completions_rejected", kCount, job<&JobTotals::completions_rejected>},
    {"deploy_duration_s.count", kCount, member<kDeploy, &DeployDurations::count>},
    {"deploy_duration_s.max", kSeconds, member<kDeploy, &DeployDurations::max>},
    {"deploy_duration_s.mean", kSeconds, member<kDeploy, &DeployDurations::mean>},
    {"deploys_superseded", kCount, count<&RunSummary::deploys_superseded>},
    {"deploys_unfinished", kCount, count<&RunSummary::deploys_unfinished>},
    {"drain_latency_s.count", kCount, member<kDrain, &Spread::count>},
    {"drain_latency_s.max", kSeconds, member<kDrain, &Spread::max>},
    {"drain_latency_s.p50", kSeconds, member<kDrain, &Spread::p50>},
    {"drain_latency_s.p99", kSeconds, member<kDrain, &Spread::p99>},
    {"duplicate_executions", kCount, job<&JobTotals::duplicate_executions>},
    {"exits.clean", kCount, exits<ExitKind::kClean>},
    {"exits.died_on_term", kCount, exits<ExitKind::kDiedOnTerm>},
    {"exits.exited_with_error", kCount, exits<ExitKind::kExitedWithError>},
    {"exits.killed_at_deadline", kCount, exits<ExitKind::kKilledAtDeadline>},
    {"exits.killed_by_signal", kCount, exits<ExitKind::kKilledBySignal>},
    {"exits.oom_killed", kCount, exits<ExitKind::kOomKilled>},
    {"forced_kills", kCount, count<&RunSummary::forced_kills>},
    {"graceful_exits", kCount, exits<ExitKind::kClean>},
    {"interrupted_by_cause.deploys", kCount, interrupted_by<CauseClass::kDeploys>},
    {"interrupted_by_cause.node_drains", kCount, interrupted_by<CauseClass::kNodeDrains>},
    {"interrupted_by_cause.none", kCount, interrupted_by<CauseClass::kNone>},
    {"interrupted_by_cause.oom_kills", kCount, interrupted_by<CauseClass::kOomKills>},
    {"interrupted_by_cause.pod_deletions", kCount, interrupted_by<CauseClass::kPodDeletions>},
    {"interrupted_by_cause.scale_downs", kCount, interrupted_by<CauseClass::kScaleDowns>},
    {"interrupted_by_cause.signals", kCount, interrupted_by<CauseClass::kSignals>},
    {"interrupted_fraction", kFraction,
     [](const RunSummary& s) -> Value { return s.interrupted_fraction; }},
    {"interrupted_jobs", kCount, job<&JobTotals::interrupted>},
    {"job_latency_s.p50", kSeconds, member<kLatency, &JobLatency::p50>},
    {"job_latency_s.p99", kSeconds, member<kLatency, &JobLatency::p99>},
    {"job_loss", kCount,
     [](const RunSummary& s) -> Value { return static_cast<double>(s.job_loss()); }},
    {"job_loss_by_cause.deploys", kCount, loss_by<CauseClass::kDeploys>},
    {"job_loss_by_cause.node_drains", kCount, loss_by<CauseClass::kNodeDrains>},
    {"job_loss_by_cause.none", kCount, loss_by<CauseClass::kNone>},
    {"job_loss_by_cause.oom_kills", kCount, loss_by<CauseClass::kOomKills>},
    {"job_loss_by_cause.pod_deletions", kCount, loss_by<CauseClass::kPodDeletions>},
    {"job_loss_by_cause.scale_downs", kCount, loss_by<CauseClass::kScaleDowns>},
    {"job_loss_by_cause.signals", kCount, loss_by<CauseClass::kSignals>},
    {"jobs_completed", kCount, job<&JobTotals::completed>},
    {"jobs_discarded", kCount, job<&JobTotals::discarded>},
    {"jobs_discarded_by_shutdown", kCount, job<&JobTotals::discarded_by_shutdown>},
    {"jobs_enqueued", kCount, job<&JobTotals::enqueued>},
    {"jobs_lost", kCount, job<&JobTotals::lost>},
    {"jobs_pending", kCount, job<&JobTotals::pending>},
    {"orphan_recovery_delay_s.count", kCount, member<kOrphan, &Spread::count>},
    {"orphan_recovery_delay_s.max", kSeconds, member<kOrphan, &Spread::max>},
    {"orphan_recovery_delay_s.p50", kSeconds, member<kOrphan, &Spread::p50>},
    {"orphan_recovery_delay_s.p99", kSeconds, member<kOrphan, &Spread::p99>},
    {"processes_running_at_end", kCount, exits<ExitKind::kRunning>},
    {"pushes_refused", kCount, job<&JobTotals::pushes_refused>},
    {"redeliveries", kCount, job<&JobTotals::redeliveries>},
    {"rejected_fails", kCount, job<&JobTotals::rejected_fails>},
    {"requeue_delay_s.count", kCount, member<kRequeue, &Spread::count>},
    {"requeue_delay_s.max", kSeconds, member<kRequeue, &Spread::max>},
    {"requeue_delay_s.p50", kSeconds, member<kRequeue, &Spread::p50>},
    {"requeue_delay_s.p99", kSeconds, member<kRequeue, &Spread::p99>},
    {"shutdown_retries", kCount, job<&JobTotals::shutdown_retries>},
    {"stuck_at_end", kCount, job<&JobTotals::stuck_at_end>},
    {"wasted_work_s", kSeconds,
     [](const RunSummary& s) -> Value { return to_seconds(s.jobs.wasted_work); }},
};

}  // namespace

std::string_view Metric::group() const {
  const std::size_t dot = name.find('.');
  return dot == std::string_view::npos ? std::string_view() : name.substr(0, dot);
}

std::string_view Metric::leaf() const {
  const std::size_t dot = name.find('.');
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

int Metric::decimals() const {
  switch (unit) {
    case kCount:
      return 1;
    case kSeconds:
      return 2;
    case kFraction:
      return 4;
  }
  return 2;
}

std::span<const Metric> metrics() { return kMetrics; }

MetricValues metric_values(const RunSummary& s) {
  MetricValues out;
  for (const Metric& m : kMetrics) out.emplace(m.name, m.value(s));
  return out;
}

const Metric& metric(std::string_view name) {
  const auto it = std::lower_bound(std::begin(kMetrics), std::end(kMetrics), name,
                                   [](const Metric& m, std::string_view n) { return m.name < n; });
  if (it == std::end(kMetrics) || it->name != name) {
    throw std::invalid_argument("no summary metric named \"" + std::string(name) + "\"");
  }
  return *it;
}

}  // namespace drainsim
