#include "analysis/conformance.h"

#include <cmath>
#include <functional>
#include <optional>
#include <span>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "io/scenario_reader.h"
#include "run/simulation.h"

namespace drainsim {

namespace {

using nlohmann::json;

constexpr double kEps = 1e-9;
constexpr const char* kPod = "pod-0";

// Seconds as the timeline has them (microseconds), without float noise: "0.1s", "35s".
std::string secs(double s) { return fmt::format("{}s", std::round(s * 1e6) / 1e6); }

// How long after the deadline a stop still counts as ending at it (a body's cancel latency).
constexpr double kDeadlineSlack = 1;

// One scenario of a check: one pod, jobs arriving at `arrivals` with the `durations`
// (in order), the signals sent straight to pod-0, and the settings the check needs.
struct Setup {
  std::vector<std::string> arrivals;
  std::vector<std::string> durations;
  std::vector<std::pair<std::string, std::string>> signals;  // at, signal
  std::string grace;                                         // "": the profile's default
  std::string settle = "30m";
};

std::string scenario_text(const Profile& profile, const std::string& id, const Setup& s) {
  json events = json::array();
  for (const auto& [at, signal] : s.signals) {
    events.push_back({{"at", at}, {"kind", "signal"}, {"pod", kPod}, {"signal", signal}});
  }
  json worker = {{"profile", profile.name}};
  if (!s.grace.empty()) worker["grace_period"] = s.grace;
  const json scenario = {
      {"name", "conformance-" + id},
      {"seed", 1},
      {"duration", format_duration(parse_duration(s.arrivals.back()).value_or(0) + kSecond)},
      {"settle", s.settle},
      {"workload",
       {{"arrival", {{"kind", "list"}, {"at", s.arrivals}}},
        {"job_duration", {{"kind", "sequence"}, {"values", s.durations}}}}},
      {"worker", worker},
      {"platform", {{"replicas", 1}, {"pod_start_delay", "0s"}}},
      {"events", events},
  };
  return scenario.dump();
}

struct AttemptRow {
  JobId job;
  int attempt;
  WorkerId worker;
  double start, end;
  std::string outcome;
};
struct ReportRow {
  double at;
  WorkerId worker;
  JobId job;
  int attempt;
  std::string kind, error;
  bool accepted;
};
struct TimedRow {
  double at;
  WorkerId worker;
  std::string what;  // a pod state, a heartbeat state or a remaining count
};

// One scenario run, read back from its results: pod-0's first process and what the
// timeline says about it.
struct Run {
  Setup setup;
  double grace = -1;  // -1: forever
  double heartbeat = 0;
  double run_end = 0;
  WorkerId worker = kNoWorker;
  double ended = -1;  // -1: still running at the end
  int code = 0;
  std::string exit;
  std::vector<std::pair<double, std::string>> signals;  // pod-0's, as evidence lines
  std::vector<std::pair<double, std::string>> states;   // pod-0's pod states
  std::vector<AttemptRow> attempts;                     // of `worker`
  std::vector<ReportRow> reports;                       // of `worker`
  std::vector<TimedRow> heartbeats, remaining;          // of `worker`

  double signal_at(std::size_t i) const {
    return to_seconds(parse_duration(setup.signals[i].first).value_or(0));
  }
  double end_or_run_end() const { return ended < 0 ? run_end : ended; }
  // The first pod state recorded at `t` (the one the signal caused), or "".
  std::string state_at(double t) const {
    for (const auto& [at, s] : states) {
      if (std::abs(at - t) < kEps) return s;
    }
    return "";
  }
  std::string exit_line() const {
    if (ended < 0) return fmt::format("{} still running at the end ({})", kPod, secs(run_end));
    if (exit == "died_on_term") {
      return fmt::format("{} {} died on the signal (no handler): exit {}", secs(ended), kPod, code);
    }
    if (exit == "clean" || exit == "exited_with_error") {
      return fmt::format("{} {} exited {}", secs(ended), kPod, code);
    }
    return fmt::format("{} {} ended: {} (exit {})", secs(ended), kPod, exit, code);
  }
  std::string scenario_line() const {
    std::vector<std::string> jobs;
    for (std::size_t i = 0; i < setup.arrivals.size(); ++i) {
      jobs.push_back(
          fmt::format("{} at {}", setup.durations[i % setup.durations.size()], setup.arrivals[i]));
    }
    std::vector<std::string> sigs;
    for (const auto& [at, sig] : setup.signals) sigs.push_back(fmt::format("{} at {}", sig, at));
    return fmt::format("scenario: one pod; jobs {}; {}; grace {} ({})", fmt::join(jobs, ", "),
                       fmt::join(sigs, ", "), grace < 0 ? "forever" : secs(grace),
                       setup.grace.empty() ? "profile default" : "set for this check");
  }
};

std::string attempt_line(const AttemptRow& a) {
  return fmt::format("{} job {} attempt {} {}", secs(a.end), a.job, a.attempt, a.outcome);
}
std::string report_line(const ReportRow& r) {
  std::string what = r.kind == "ack" ? "ACK" : r.kind == "fail" ? "FAIL " + r.error : "requeue";
  return fmt::format("{} job {} attempt {}: {}{}", secs(r.at), r.job, r.attempt, what,
                     r.accepted ? "" : " (rejected)");
}

Run run_setup(const Profile& profile, const std::string& id, const Setup& setup) {
  const Scenario scenario = parse_scenario(scenario_text(profile, id, setup), "conformance " + id);
  RunOptions options;
  options.timeline = true;
  const RunOutput out = run_scenario(scenario, options);
  const json& r = out.results;
  Run run;
  run.setup = setup;
  run.grace =
      scenario.worker.grace_period == kNever ? -1 : to_seconds(scenario.worker.grace_period);
  run.heartbeat = to_seconds(scenario.worker.heartbeat_interval);
  run.run_end = to_seconds(out.ended_at);
  const json& proc = r["pods"][0]["processes"][0];
  run.worker = proc["worker"].get<WorkerId>();
  if (!proc["ended_s"].is_null()) {
    run.ended = proc["ended_s"].get<double>();
    run.code = proc["exit_code"].get<int>();
  }
  run.exit = proc["exit"].get<std::string>();
  const json& t = r["timeline"];
  for (const json& s : t["signals"]["rows"]) {
    if (s[1] != 0) continue;
    run.signals.emplace_back(
        s[0].get<double>(),
        fmt::format("{} {} {} {} ({})", secs(s[0].get<double>()), kPod, s[2].get<std::string>(),
                    s[3].get<bool>() ? "delivered" : "swallowed", s[4].get<std::string>()));
  }
  for (const json& s : t["pod_states"]["rows"]) {
    if (s[1] == 0) run.states.emplace_back(s[0].get<double>(), s[2].get<std::string>());
  }
  for (const json& a : t["attempts"]["rows"]) {
    if (a[3] != run.worker) continue;
    run.attempts.push_back({a[0].get<JobId>(), a[1].get<int>(), run.worker, a[5].get<double>(),
                            a[6].get<double>(), a[7].get<std::string>()});
  }
  for (const json& p : t["reports"]["rows"]) {
    if (p[2] != run.worker) continue;
    run.reports.push_back({p[0].get<double>(), run.worker, p[3].get<JobId>(), p[4].get<int>(),
                           p[5].get<std::string>(), p[6].get<std::string>(), p[7].get<bool>()});
  }
  for (const json& h : t["heartbeats"]["rows"]) {
    if (h[2] == run.worker) {
      run.heartbeats.push_back({h[0].get<double>(), run.worker, h[3].get<std::string>()});
    }
  }
  for (const json& m : t["drain_remaining"]["rows"]) {
    if (m[2] == run.worker) {
      run.remaining.push_back({m[0].get<double>(), run.worker, std::to_string(m[3].get<int>())});
    }
  }
  return run;
}

using Evidence = std::vector<std::string>;

const ReportRow* find_report(const Run& r, const AttemptRow& a) {
  const ReportRow* found = nullptr;
  for (const ReportRow& p : r.reports) {
    if (p.job == a.job && p.attempt == a.attempt) found = &p;
  }
  return found;
}

void add_signals(const Run& r, Evidence& ev) {
  for (const auto& [at, line] : r.signals) ev.push_back(line);
}

// GS-001, GS-002: the signal quiets the worker at once (draining, no fetch after it), the
// jobs it held end completed or given up, and it exits 0 by itself.
bool judge_drain(const Run& r, const char* signal, Evidence& ev) {
  const double t = r.signal_at(0);
  ev.push_back(r.scenario_line());
  add_signals(r, ev);
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

bool gs001(const Profile&, std::span<const Run> runs, Evidence& ev) {
  return judge_drain(runs[0], "SIGTERM", ev);
}
bool gs002(const Profile&, std::span<const Run> runs, Evidence& ev) {
  return judge_drain(runs[0], "SIGINT", ev);
}

// The drain of a long job ends at TERM + grace.
bool drain_ends_at_deadline(const Run& r, Evidence& ev) {
  const double t = r.signal_at(0);
  ev.push_back(r.scenario_line());
  add_signals(r, ev);
  ev.push_back(r.exit_line());
  if (r.grace < 0) {
    ev.push_back(fmt::format(
        "no deadline: {} drained until {} (its last job's end), not {} after the SIGTERM", kPod,
        r.ended < 0 ? "the end of the run" : secs(r.ended), secs(30)));
    return false;
  }
  const double deadline = t + r.grace;
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

bool gs003(const Profile& p, std::span<const Run> runs, Evidence& ev) {
  const Duration grace = p.worker.grace_period;
  const bool default_ok = grace == 30 * kSecond;
  ev.push_back(fmt::format("default grace period {}{}",
                           grace == kNever ? "forever" : format_duration(grace),
                           default_ok ? "" : ", not 30s"));
  const bool a = drain_ends_at_deadline(runs[0], ev);
  const bool b = drain_ends_at_deadline(runs[1], ev);
  return default_ok && a && b;
}

// Whether pod-0 was draining right after the SIGTERM at `t`; when not, says so.
bool draining_after(const Run& r, double t, Evidence& ev) {
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

bool gs004(const Profile&, std::span<const Run> runs, Evidence& ev) {
  const Run& r = runs[0];
  const double t = r.signal_at(0);
  const double end = r.end_or_run_end();
  ev.push_back(r.scenario_line());
  add_signals(r, ev);
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

bool gs005(const Profile&, std::span<const Run> runs, Evidence& ev) {
  const Run& r = runs[0];
  const double t = r.signal_at(0);
  ev.push_back(r.scenario_line());
  add_signals(r, ev);
  if (r.grace < 0) {
    ev.push_back("no grace deadline (grace forever): nothing is FAILed at expiry");
    for (const AttemptRow& a : r.attempts) {
      if (a.end >= t - kEps) ev.push_back(attempt_line(a));
    }
    ev.push_back(r.exit_line());
    return false;
  }
  const double deadline = t + r.grace;
  bool ok = true, any = false;
  for (const AttemptRow& a : r.attempts) {
    if (a.start > deadline + kEps || a.end < deadline - kEps) continue;
    if (a.outcome == "completed" && std::abs(a.end - deadline) < kEps) continue;
    any = true;
    const ReportRow* report = find_report(r, a);
    if (report == nullptr) {
      ok = false;
      ev.push_back(fmt::format(
          "job {}: nothing reported at the deadline ({}); {} holding it", a.job, secs(deadline),
          r.exit == "clean" ? fmt::format("the process exited 0 at {}", secs(a.end))
                            : "the process ended (" + r.exit + ")"));
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

bool gsr001(const Profile&, std::span<const Run> runs, Evidence& ev) {
  const Run& r = runs[0];
  const double t = r.signal_at(0);
  ev.push_back(r.scenario_line());
  add_signals(r, ev);
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

bool gsr002(const Profile&, std::span<const Run> runs, Evidence& ev) {
  const Run& r = runs[0];
  const double first = r.signal_at(0), second = r.signal_at(1);
  ev.push_back(r.scenario_line());
  add_signals(r, ev);
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
  ev.push_back(
      fmt::format("the second SIGTERM at {} did not stop it{}", secs(second),
                  r.ended >= 0 && r.grace >= 0 && std::abs(r.ended - (first + r.grace)) < kEps
                      ? fmt::format(": it waited for the deadline ({})", secs(first + r.grace))
                      : ""));
  return false;
}

bool gsr003(const Profile&, std::span<const Run> runs, Evidence& ev) {
  const Run& r = runs[0];
  const double t = r.signal_at(0);
  const double end = r.end_or_run_end();
  ev.push_back(r.scenario_line());
  add_signals(r, ev);
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
bool unready_while_running(const Run& r, const char* signal, Evidence& ev) {
  const double t = r.signal_at(0);
  ev.push_back(r.scenario_line());
  add_signals(r, ev);
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

bool gsr004(const Profile&, std::span<const Run> runs, Evidence& ev) {
  const bool a = unready_while_running(runs[0], "SIGTSTP", ev);
  const bool b = unready_while_running(runs[1], "SIGTERM", ev);
  return a && b;
}

struct Check {
  const char* id;
  ConformanceLevel level;
  const char* title;
  std::vector<Setup> setups;
  bool (*judge)(const Profile&, std::span<const Run>, Evidence&);
};

const std::vector<Check>& checks() {
  using L = ConformanceLevel;
  // GS-001/002 and GS-R001: two jobs held at the signal, a third arriving during it.
  const Setup drain{{"0s", "0s", "7s"}, {"10s", "18s", "5s"}, {{"5s", "SIGTERM"}}, "", "30m"};
  Setup interrupt = drain;
  interrupt.signals = {{"5s", "SIGINT"}};
  Setup quiet = drain;
  quiet.signals = {{"5s", "SIGTSTP"}};
  quiet.settle = "2m";
  // A job far longer than any grace period.
  const Setup long_job{{"0s"}, {"300s"}, {{"5s", "SIGTERM"}}, "", "30m"};
  Setup long_job_10s = long_job;
  long_job_10s.grace = "10s";
  // A drain that lasts until its 18 s job ends, whatever the profile's grace.
  const Setup lasting{{"0s"}, {"18s"}, {{"5s", "SIGTERM"}}, "60s", "30m"};
  const Setup deadline{{"0s", "0s", "0s"}, {"300s", "300s", "2s"}, {{"5s", "SIGTERM"}}, "", "30m"};
  const Setup double_term{{"0s"}, {"300s"}, {{"5s", "SIGTERM"}, {"10s", "SIGTERM"}}, "60s", "30m"};
  const Setup tstp{{"0s"}, {"18s"}, {{"5s", "SIGTSTP"}}, "", "1m"};
  const Setup term{{"0s"}, {"18s"}, {{"5s", "SIGTERM"}}, "", "30m"};
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

const char* to_string(ConformanceLevel l) {
  return l == ConformanceLevel::kRequired ? "required" : "recommended";
}

int ConformanceReport::passed() const {
  int n = 0;
  for (const ConformanceVerdict& v : verdicts) n += v.passed ? 1 : 0;
  return n;
}

int ConformanceReport::failed() const { return static_cast<int>(verdicts.size()) - passed(); }

bool ConformanceReport::required_passed() const {
  for (const ConformanceVerdict& v : verdicts) {
    if (v.level == ConformanceLevel::kRequired && !v.passed) return false;
  }
  return true;
}

ConformanceReport check_conformance(const Profile& profile) {
  ConformanceReport report;
  report.profile = std::string(profile.name);
  for (const Check& c : checks()) {
    std::vector<Run> runs;
    for (const Setup& s : c.setups) runs.push_back(run_setup(profile, c.id, s));
    ConformanceVerdict v;
    v.id = c.id;
    v.level = c.level;
    v.title = c.title;
    v.passed = c.judge(profile, runs, v.evidence);
    report.verdicts.push_back(std::move(v));
  }
  return report;
}

json conformance_json(const ConformanceReport& report) {
  json verdicts = json::array();
  for (const ConformanceVerdict& v : report.verdicts) {
    verdicts.push_back({{"id", v.id},
                        {"level", to_string(v.level)},
                        {"title", v.title},
                        {"verdict", v.passed ? "pass" : "fail"},
                        {"evidence", v.evidence}});
  }
  return {{"profile", report.profile},
          {"verdicts", verdicts},
          {"passed", report.passed()},
          {"failed", report.failed()}};
}

std::string conformance_text(const ConformanceReport& report) {
  std::string out = fmt::format("OJS graceful-shutdown conformance: profile {}\n", report.profile);
  for (const ConformanceVerdict& v : report.verdicts) {
    out += fmt::format("{:<7} {:<4}  {}{}\n", v.id, v.passed ? "pass" : "fail", v.title,
                       v.level == ConformanceLevel::kRecommended ? " (recommended)" : "");
    for (const std::string& e : v.evidence) out += "    " + e + "\n";
  }
  out += fmt::format("{} passed, {} failed; required checks {}\n", report.passed(), report.failed(),
                     report.required_passed() ? "all pass" : "FAIL");
  return out;
}

}  // namespace drainsim
