#include "model/run_summary.h"

#include <algorithm>

#include <fmt/format.h>

#include "model/config_warnings.h"

namespace drainsim {

namespace {

std::optional<Spread> spread(const Percentiles& p) {
  if (p.count() == 0) return std::nullopt;
  return Spread{static_cast<std::int64_t>(p.count()), p.quantile(0.5), p.quantile(0.99), p.max()};
}

}  // namespace

std::optional<Warning> settle_warning(const Scenario& scenario, const RunSummary& s) {
  const std::int64_t running = s.attempts_in_flight_at_end;
  if (s.ended_early || !s.interrupted.by.empty() || (s.jobs.pending == 0 && running == 0)) {
    return std::nullopt;
  }
  Warning w;
  w.code = "settle_reached";
  w.message = fmt::format(
      "the run was cut off at duration + settle ({} + {}) with {} jobs pending{} and {} "
      "attempts running: their fate is unknown, so no figure counts them as lost",
      format_duration(scenario.duration), format_duration(scenario.settle), s.jobs.pending,
      s.jobs.stuck_at_end ? fmt::format(" ({} held by a dead worker)", s.jobs.stuck_at_end) : "",
      running);
  w.figures = {{"jobs_pending", static_cast<double>(s.jobs.pending)},
               {"jobs_stuck", static_cast<double>(s.jobs.stuck_at_end)},
               {"attempts_running", static_cast<double>(running)},
               {"ended_at_s", to_seconds(s.ended_at)}};
  return w;
}

std::optional<Warning> interrupted_warning(const Scenario& scenario, const RunSummary& s) {
  if (s.interrupted.by.empty()) return std::nullopt;
  Warning w;
  const bool failed = s.interrupted.by == "failure";
  w.code = failed ? "run_failed" : "interrupted";
  w.message = fmt::format(
      "the run was stopped at {} of duration + settle ({}) by {} after {} events: its figures "
      "are partial; the {} jobs not finished count as pending and the {} attempts running are "
      "in no outcome",
      format_seconds(to_seconds(s.ended_at)), format_duration(scenario.duration + scenario.settle),
      failed                         ? fmt::format("a failure of its {}", s.interrupted.component)
      : s.interrupted.by == "signal" ? std::string("SIGINT or SIGTERM")
                                     : std::string("its limit of events"),
      s.interrupted.events, s.jobs.pending, s.attempts_in_flight_at_end);
  w.figures = {{"ended_at_s", to_seconds(s.ended_at)},
               {"events", static_cast<double>(s.interrupted.events)},
               {"jobs_pending", static_cast<double>(s.jobs.pending)},
               {"attempts_running", static_cast<double>(s.attempts_in_flight_at_end)}};
  return w;
}

RunSummary summarize(const Scenario& scenario, const Recorder& recorder, const Platform& platform,
                     const AuditResult& audit, Time ended_at, bool ended_early,
                     Interruption interrupted) {
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
  s.requeue_delay = spread(recorder.requeues());
  s.backend_recovery_delay = spread(recorder.backend_recoveries());

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
  s.by_cause = cause_rows(scenario, recorder.cause_counts());
  s.by_class = by_class(s.by_cause);
  s.audit = audit;
  s.balance = fmt::format("enqueued {} = completed {} + lost {} + discarded {} + pending {}",
                          t.enqueued, t.completed, t.lost, t.discarded, t.pending);
  s.ended_at = ended_at;
  s.ended_early = ended_early;
  s.attempts_in_flight_at_end = recorder.in_flight();
  s.interrupted = std::move(interrupted);
  s.warnings = config_warnings(scenario);
  const std::vector<Warning>& during = recorder.warnings();
  s.warnings.insert(s.warnings.end(), during.begin(), during.end());
  // A paced engine that fell behind grew the queue itself: the offered load is still the
  // scenario's, but the queue judges the engine, not the fleet.
  const bool engine_behind = std::any_of(
      during.begin(), during.end(), [](const Warning& w) { return w.code == "engine_behind"; });
  if (auto w = overload_warning(
          scenario, engine_behind ? std::nullopt : std::optional(recorder.queue().max()))) {
    s.warnings.push_back(std::move(*w));
  } else if (!engine_behind) {
    if (auto g = queue_growth_warning(scenario, recorder.queue(), ended_at)) {
      s.warnings.push_back(std::move(*g));
    }
  }
  if (auto w = settle_warning(scenario, s)) s.warnings.push_back(std::move(*w));
  if (auto w = interrupted_warning(scenario, s)) s.warnings.push_back(std::move(*w));
  return s;
}

}  // namespace drainsim
