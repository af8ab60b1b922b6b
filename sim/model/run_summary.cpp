#include "model/run_summary.h"

#include <fmt/format.h>

namespace drainsim {

namespace {

std::optional<Spread> spread(const Percentiles& p) {
  if (p.count() == 0) return std::nullopt;
  return Spread{static_cast<std::int64_t>(p.count()), p.quantile(0.5), p.quantile(0.99), p.max()};
}

}  // namespace

RunSummary summarize(const Recorder& recorder, const Platform& platform, const AuditResult& audit,
                     Time ended_at, bool ended_early) {
  RunSummary s;
  s.jobs = recorder.totals();
  const JobTotals& t = s.jobs;
  s.interrupted_fraction =
      t.enqueued ? static_cast<double>(t.interrupted) / static_cast<double>(t.enqueued) : 0.0;
  Percentiles drain;
  for (const ProcessRecord& p : platform.processes()) {
    ++s.exits[static_cast<std::size_t>(p.exit)];
    if (p.termination >= 0 && p.ended >= 0 && p.exit != ExitKind::kOomKilled) {
      drain.add(to_seconds(p.ended - p.termination));
    }
  }
  s.forced_kills = s.exit_count(ExitKind::kKilledAtDeadline) + s.exit_count(ExitKind::kOomKilled) +
                   s.exit_count(ExitKind::kKilledBySignal);
  s.drain_latency = spread(drain);
  s.orphan_recovery_delay = spread(recorder.orphan_recovery());

  Percentiles deploys;
  for (const DeployRecord& d : platform.deploys()) {
    if (d.superseded) {
      ++s.deploys_superseded;
    } else if (d.end < 0) {
      ++s.deploys_unfinished;
    } else {
      deploys.add(to_seconds(d.end - d.start));
    }
  }
  if (deploys.count() > 0) {
    s.deploy_duration =
        DeployDurations{static_cast<std::int64_t>(deploys.count()), deploys.mean(), deploys.max()};
  }
  if (recorder.job_latency().count() > 0) {
    s.job_latency =
        JobLatency{recorder.job_latency().quantile(0.5), recorder.job_latency().quantile(0.99)};
  }
  s.audit = audit;
  s.balance = fmt::format("enqueued {} = completed {} + lost {} + discarded {} + pending {}",
                          t.enqueued, t.completed, t.lost, t.discarded, t.pending);
  s.ended_at = ended_at;
  s.ended_early = ended_early;
  s.attempts_in_flight_at_end = recorder.in_flight();
  s.warnings = recorder.warnings();
  return s;
}

}  // namespace drainsim
