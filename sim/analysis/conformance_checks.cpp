// The conformance checks (docs/conformance.md), and check_conformance that runs them
// (analysis/conformance.h): each check's judge reads the runs of its scenarios and says
// pass or fail with the timeline lines that prove it.
#include <cmath>

#include "analysis/conformance.h"
#include "analysis/conformance_run.h"

namespace drainsim {

namespace conformance {

namespace {

// A requirement: its scenarios, and the judge that reads their runs.
struct Check {
  const char* id;
  ConformanceLevel level;
  const char* title;
  std::vector<Setup> setups;
  bool (*judge)(const Profile&, std::span<const CheckedRun>, Evidence&);
};

// GS-001, GS-002: the signal quiets the worker at once (draining, no fetch after it), the
// jobs it held end completed or given up, and it exits 0 by itself.
bool judge_drain(const CheckedRun& r, const char* signal, Evidence& ev) {
  const double t = r.signal_at(0);
  add_scenario(r, ev);
  bool ok = true;
  const std::string state = r.state_at(t);
  if (state == "draining") {
    ev.push_back(fmt::format("{} {} draining", secs(t), kPod));
  } else {
    ok = false;
    ev.push_back(fmt::format("{} {} {} after the {}, not draining", secs(t), kPod,
                             state.empty() ? "unchanged" : state, signal));
  }
  bool fetched = false;
  for (const AttemptRow& a : r.attempts) {
    if (a.start > t + kEps) {
      fetched = ok = false;
      ev.push_back(fmt::format("{} job {} attempt {} started on {} after the {}: still fetching",
                               secs(a.start), a.job, a.attempt, kPod, signal));
      fetched = true;
    }
  }
  if (!fetched) ev.push_back(fmt::format("no job started on {} after {}", kPod, secs(t)));
  for (const AttemptRow& a : r.attempts) {
    if (a.start > t + kEps || a.end < t - kEps) continue;
    if (a.outcome == "completed" || a.outcome == "interrupted") {
      ev.push_back(attempt_line(a));
      if (a.outcome == "completed" && find_report(r, a) == nullptr) {
        ev.push_back(
            fmt::format("job {} attempt {}: its ACK never reached the backend (noted, "
                        "not judged here)",
                        a.job, a.attempt));
      }
    } else {
      ok = false;
      ev.push_back(attempt_line(a) + ": neither finished nor given up");
    }
  }
  ev.push_back(r.exit_line());
  if (r.exit != "clean") {
    ok = false;
    ev.push_back(fmt::format("did not exit 0 on its own after the drain"));
  }
  return ok;
}

bool gs001(const Profile&, std::span<const CheckedRun> runs, Evidence& ev) {
  return judge_drain(runs[0], "SIGTERM", ev);
}
bool gs002(const Profile&, std::span<const CheckedRun> runs, Evidence& ev) {
  return judge_drain(runs[0], "SIGINT", ev);
}

// The drain of a long job ends at TERM + grace.
bool drain_ends_at_deadline(const CheckedRun& r, Evidence& ev) {
  const double t = r.signal_at(0);
  add_scenario(r, ev);
  ev.push_back(r.exit_line());
  if (r.forever()) {
    ev.push_back(fmt::format(
        "no deadline: {} drained until {} (its last job's end), not {} after the SIGTERM", kPod,
        r.ended < 0 ? "the end of the run" : secs(r.ended), secs(30)));
    return false;
  }
  const double deadline = r.deadline_after(t);
  if (r.ended >= 0 && r.ended > deadline - kEps && r.ended <= deadline + kDeadlineSlack + kEps) {
    ev.push_back(std::abs(r.ended - deadline) < kEps
                     ? fmt::format("drain ended at SIGTERM + grace = {}", secs(deadline))
                     : fmt::format("drain ended {} after SIGTERM + grace = {} (within {})",
                                   secs(r.ended - deadline), secs(deadline), secs(kDeadlineSlack)));
    return true;
  }
  ev.push_back(fmt::format("drain ended at {}, not at SIGTERM + grace = {}",
                           r.ended < 0 ? "the end of the run" : secs(r.ended), secs(deadline)));
  return false;
}

bool gs003(const Profile& p, std::span<const CheckedRun> runs, Evidence& ev) {
  const Duration grace = p.worker.grace_period;
  const bool default_ok = grace == 30 * kSecond;
  ev.push_back(
      fmt::format("default grace period {}{}", format_grace(grace), default_ok ? "" : ", not 30s"));
  const bool a = drain_ends_at_deadline(runs[0], ev);
  const bool b = drain_ends_at_deadline(runs[1], ev);
  return default_ok && a && b;
}

// Whether pod-0 was draining right after the SIGTERM at `t`; when not, says so.
bool draining_after(const CheckedRun& r, double t, Evidence& ev) {
  if (r.state_at(t) == "draining") return true;
  ev.push_back(fmt::format("{} {} {} after the SIGTERM: no drain", secs(t), kPod,
                           r.state_at(t).empty() ? "unchanged" : r.state_at(t)));
  ev.push_back(r.exit_line());
  return false;
}

// Lists the drain's `rows` (from its start `t` to its `end`, in time order) as
// "<at> pod-0 <label> <what>" and checks that no gap, from t, between rows or up to end, is
// longer than `interval`; each longer gap is evidence worded by `gap(from, to)`.
bool no_gap_longer(const std::vector<const TimedRow*>& rows, double t, double end, double interval,
                   std::string_view label, Evidence& ev,
                   const std::function<std::string(double, double)>& gap) {
  bool ok = true;
  double prev = t;
  for (const TimedRow* row : rows) {
    if (row->at - prev > interval + kEps) {
      ok = false;
      ev.push_back(gap(prev, row->at));
    }
    ev.push_back(fmt::format("{} {} {} {}", secs(row->at), kPod, label, row->what));
    prev = row->at;
  }
  if (end - prev > interval + kEps) {
    ok = false;
    ev.push_back(gap(prev, end));
  }
  return ok;
}

bool gs004(const Profile&, std::span<const CheckedRun> runs, Evidence& ev) {
  const CheckedRun& r = runs[0];
  const double t = r.signal_at(0);
  const double end = r.end_or_run_end();
  add_scenario(r, ev);
  if (!draining_after(r, t, ev)) return false;
  std::vector<const TimedRow*> beats;
  std::optional<TimedRow> before;
  for (const TimedRow& h : r.heartbeats) {
    if (h.at < t - kEps) before = h;
    if (h.at >= t - kEps && h.at <= end + kEps) beats.push_back(&h);
  }
  if (beats.empty()) {
    ev.push_back(fmt::format("no heartbeat from {} between {} (drain start) and {} ({})", kPod,
                             secs(t), secs(end), r.ended < 0 ? "end of run" : "exit"));
    ev.push_back(before ? fmt::format("last heartbeat {} ({})", secs(before->at), before->what)
                        : std::string("no heartbeat at all before the drain"));
    ev.push_back(r.exit_line());
    return false;
  }
  const bool ok =
      no_gap_longer(beats, t, end, r.heartbeat, "heartbeat", ev, [&](double from, double to) {
        return fmt::format("no heartbeat from {} between {} and {} (interval {})", kPod, secs(from),
                           secs(to), secs(r.heartbeat));
      });
  ev.push_back(r.exit_line());
  return ok;
}

bool gs005(const Profile&, std::span<const CheckedRun> runs, Evidence& ev) {
  const CheckedRun& r = runs[0];
  const double t = r.signal_at(0);
  add_scenario(r, ev);
  if (r.forever()) {
    ev.push_back("no grace deadline (grace forever): nothing is FAILed at expiry");
    for (const AttemptRow& a : r.attempts) {
      if (a.end >= t - kEps) ev.push_back(attempt_line(a));
    }
    ev.push_back(r.exit_line());
    return false;
  }
  const double deadline = r.deadline_after(t);
  bool ok = true, any = false;
  // The attempts the drain did not finish by the deadline: those that ended otherwise during
  // it (a worker may act a little before its deadline: Sidekiq 0.5 s) or ran past it.
  for (const AttemptRow& a : r.attempts) {
    if (a.start > deadline + kEps || a.end < t - kEps) continue;
    if (a.outcome == "completed" && a.end < deadline + kEps) continue;
    any = true;
    const ReportRow* report = find_report(r, a);
    if (report == nullptr) {
      ok = false;
      const std::string exit = r.exit == "clean"
                                   ? fmt::format("the process exited 0 at {}", secs(r.ended))
                                   : "the process ended (" + r.exit + ")";
      ev.push_back(a.end < deadline - kEps
                       ? fmt::format("job {}: stopped at {}, before the deadline ({}), and "
                                     "reported to nobody; {} holding it",
                                     a.job, secs(a.end), secs(deadline), exit)
                       : fmt::format("job {}: nothing reported at the deadline ({}); {} holding it",
                                     a.job, secs(deadline), exit));
      ev.push_back(attempt_line(a));
      continue;
    }
    ev.push_back(report_line(*report));
    if (report->kind == "requeue") {
      ok = false;
      ev.push_back(fmt::format("job {} attempt {}: requeued at {}, not FAILed with ShutdownError",
                               a.job, a.attempt, secs(report->at)));
    } else if (report->kind == "fail" && report->error != "ShutdownError") {
      ok = false;
      ev.push_back(fmt::format("job {} attempt {}: FAIL {} at {}, not ShutdownError", a.job,
                               a.attempt, report->error, secs(report->at)));
    } else if (report->kind != "fail" || std::abs(report->at - deadline) > kEps) {
      ok = false;
      ev.push_back(fmt::format("job {} attempt {}: not FAILed at the deadline ({})", a.job,
                               a.attempt, secs(deadline)));
    }
  }
  if (!any) {
    ok = false;
    ev.push_back(fmt::format("no job of {} was active at the deadline ({})", kPod, secs(deadline)));
  }
  ev.push_back(r.exit_line());
  return ok;
}

bool gsr001(const Profile&, std::span<const CheckedRun> runs, Evidence& ev) {
  const CheckedRun& r = runs[0];
  const double t = r.signal_at(0);
  add_scenario(r, ev);
  bool ok = true;
  const std::string state = r.state_at(t);
  if (state == "quiet") {
    ev.push_back(fmt::format("{} {} quiet", secs(t), kPod));
  } else {
    ok = false;
    ev.push_back(fmt::format("{} {} {} after the SIGTSTP, not quiet", secs(t), kPod,
                             state.empty() ? "unchanged" : state));
  }
  bool fetched = false;
  for (const AttemptRow& a : r.attempts) {
    if (a.start > t + kEps) {
      ok = false;
      fetched = true;
      ev.push_back(
          fmt::format("{} job {} attempt {} started on {} after the SIGTSTP: still "
                      "fetching",
                      secs(a.start), a.job, a.attempt, kPod));
    } else if (a.end >= t - kEps) {
      ev.push_back(attempt_line(a));
    }
  }
  if (!fetched) ev.push_back(fmt::format("no job started on {} after {}", kPod, secs(t)));
  ev.push_back(r.exit_line());
  if (r.ended >= 0) {
    ok = false;
    ev.push_back("the process did not keep running");
  }
  return ok;
}

bool gsr002(const Profile&, std::span<const CheckedRun> runs, Evidence& ev) {
  const CheckedRun& r = runs[0];
  const double first = r.signal_at(0), second = r.signal_at(1);
  add_scenario(r, ev);
  ev.push_back(r.exit_line());
  if (r.ended >= 0 && r.ended < second - kEps) {
    ev.push_back(
        fmt::format("{} had ended before the second SIGTERM: nothing to force-stop", kPod));
    return false;
  }
  if (r.ended >= 0 && r.ended <= second + 1 + kEps) {
    if (r.code != 0) {
      ev.push_back(fmt::format("force-stopped {} after the second SIGTERM, exit {}",
                               secs(r.ended - second), r.code));
      return true;
    }
    ev.push_back(
        fmt::format("stopped {} after the second SIGTERM but exited 0: a graceful stop, "
                    "not a force-stop",
                    secs(r.ended - second)));
    return false;
  }
  ev.push_back(fmt::format(
      "the second SIGTERM at {} did not stop it{}", secs(second),
      r.ended >= 0 && !r.forever() && std::abs(r.ended - r.deadline_after(first)) < kEps
          ? fmt::format(": it waited for the deadline ({})", secs(r.deadline_after(first)))
          : ""));
  return false;
}

bool gsr003(const Profile&, std::span<const CheckedRun> runs, Evidence& ev) {
  const CheckedRun& r = runs[0];
  const double t = r.signal_at(0);
  const double end = r.end_or_run_end();
  add_scenario(r, ev);
  if (!draining_after(r, t, ev)) return false;
  std::vector<const TimedRow*> logs;
  for (const TimedRow& m : r.remaining) {
    if (m.at >= t - kEps && m.at <= end + kEps) logs.push_back(&m);
  }
  if (logs.empty()) {
    ev.push_back(fmt::format("no remaining-count log from {} between {} (drain start) and {} ({})",
                             kPod, secs(t), secs(end), r.ended < 0 ? "end of run" : "exit"));
    ev.push_back(r.exit_line());
    return false;
  }
  const bool ok = no_gap_longer(logs, t, end, 5, "remaining", ev, [](double from, double to) {
    return fmt::format("no remaining-count log between {} and {}", secs(from), secs(to));
  });
  ev.push_back(r.exit_line());
  return ok;
}

// The pod leaves "ready" for an unready state at the signal, while its process lives.
bool unready_while_running(const CheckedRun& r, const char* signal, Evidence& ev) {
  const double t = r.signal_at(0);
  add_scenario(r, ev);
  const std::string state = r.state_at(t);
  if (state == "quiet" || state == "draining") {
    ev.push_back(fmt::format("{} {} {} (not ready) while its process runs", secs(t), kPod, state));
    ev.push_back(r.exit_line());
    return true;
  }
  if (state.empty() && std::string(signal) == "SIGTSTP") {
    ev.push_back(fmt::format(
        "the SIGTSTP left the worker running (no quiet phase, GS-R001): {} stays ready", kPod));
    return true;
  }
  ev.push_back(fmt::format("{} {} {} after the {}: never unready while its process ran", secs(t),
                           kPod, state.empty() ? "still ready" : state, signal));
  ev.push_back(r.exit_line());
  return false;
}

bool gsr004(const Profile&, std::span<const CheckedRun> runs, Evidence& ev) {
  const bool a = unready_while_running(runs[0], "SIGTSTP", ev);
  const bool b = unready_while_running(runs[1], "SIGTERM", ev);
  return a && b;
}

// Every check, in spec order.
const std::vector<Check>& checks() {
  using L = ConformanceLevel;
  // GS-001/002 and GS-R001: two jobs held at the signal, a third arriving during it.
  const Setup drain{
      {"0s", "0s", "7s"}, {"10s", "18s", "5s"}, {{"5s", "SIGTERM"}}, std::nullopt, "30m"};
  Setup interrupt = drain;
  interrupt.signals = {{"5s", "SIGINT"}};
  Setup quiet = drain;
  quiet.signals = {{"5s", "SIGTSTP"}};
  quiet.settle = "2m";
  // A job far longer than any grace period.
  const Setup long_job{{"0s"}, {"300s"}, {{"5s", "SIGTERM"}}, std::nullopt, "30m"};
  Setup long_job_10s = long_job;
  long_job_10s.grace = 10 * kSecond;
  // A drain that lasts until its 18 s job ends, whatever the profile's grace.
  const Setup lasting{{"0s"}, {"18s"}, {{"5s", "SIGTERM"}}, 60 * kSecond, "30m"};
  const Setup deadline{
      {"0s", "0s", "0s"}, {"300s", "300s", "2s"}, {{"5s", "SIGTERM"}}, std::nullopt, "30m"};
  const Setup double_term{
      {"0s"}, {"300s"}, {{"5s", "SIGTERM"}, {"10s", "SIGTERM"}}, 60 * kSecond, "30m"};
  const Setup tstp{{"0s"}, {"18s"}, {{"5s", "SIGTSTP"}}, std::nullopt, "1m"};
  const Setup term{{"0s"}, {"18s"}, {{"5s", "SIGTERM"}}, std::nullopt, "30m"};
  static const std::vector<Check> kChecks = {
      {"GS-001", L::kRequired, "TERM → quiet → drain → stop", {drain}, gs001},
      {"GS-002", L::kRequired, "INT → the same as TERM", {interrupt}, gs002},
      {"GS-003",
       L::kRequired,
       "configurable grace period, default 30 s",
       {long_job, long_job_10s},
       gs003},
      {"GS-004", L::kRequired, "heartbeats continue while draining", {lasting}, gs004},
      {"GS-005",
       L::kRequired,
       "at grace expiry, FAIL every active job with ShutdownError",
       {deadline},
       gs005},
      {"GS-R001", L::kRecommended, "TSTP → quiet (stop fetching), keep running", {quiet}, gsr001},
      {"GS-R002",
       L::kRecommended,
       "a second TERM while draining force-stops",
       {double_term},
       gsr002},
      {"GS-R003",
       L::kRecommended,
       "log the remaining job count every 5 s while draining",
       {lasting},
       gsr003},
      {"GS-R004", L::kRecommended, "readiness unhealthy when quiet", {tstp, term}, gsr004},
  };
  return kChecks;
}

}  // namespace

}  // namespace conformance

ConformanceReport check_conformance(const Profile& profile) {
  ConformanceReport report;
  report.profile = std::string(profile.name);
  for (const conformance::Check& c : conformance::checks()) {
    std::vector<conformance::CheckedRun> runs;
    for (const conformance::Setup& s : c.setups) {
      runs.push_back(conformance::run_setup(profile, c.id, s));
    }
    ConformanceVerdict v;
    v.id = c.id;
    v.level = c.level;
    v.title = c.title;
    v.passed = c.judge(profile, runs, v.evidence);
    report.verdicts.push_back(std::move(v));
  }
  return report;
}

}  // namespace drainsim
