#include "analysis/conformance.h"

#include <cmath>
#include <functional>
#include <optional>
#include <span>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/conformance_run.h"
#include "base/timeline_schema.h"
#include "io/scenario_reader.h"
#include "run/simulation.h"

namespace drainsim {

namespace conformance {

namespace {

using nlohmann::json;

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
      // The worker under an init, not as PID 1: a signal it has no handler for takes its
      // default action, as it would run by hand (the checks test the worker, not the kernel).
      {"platform", {{"replicas", 1}, {"pod_start_delay", "0s"}, {"init", true}}},
      {"events", events},
  };
  return scenario.dump();
}

}  // namespace

std::string attempt_line(const AttemptRow& a) {
  return fmt::format("{} job {} attempt {} {}", secs(a.end), a.job, a.attempt, a.outcome);
}
std::string report_line(const ReportRow& r) {
  std::string what = r.kind == "ack" ? "ACK" : r.kind == "fail" ? "FAIL " + r.error : "requeue";
  return fmt::format("{} job {} attempt {}: {}{}", secs(r.at), r.job, r.attempt, what,
                     r.accepted ? "" : " (rejected)");
}

const ReportRow* find_report(const CheckedRun& r, const AttemptRow& a) {
  const ReportRow* found = nullptr;
  for (const ReportRow& p : r.reports) {
    if (p.job == a.job && p.attempt == a.attempt) found = &p;
  }
  return found;
}

void add_scenario(const CheckedRun& r, Evidence& ev) {
  ev.push_back(r.scenario_line());
  for (const auto& [at, line] : r.signals) ev.push_back(line);
}

CheckedRun run_setup(const Profile& profile, const std::string& id, const Setup& setup) {
  const Scenario scenario = parse_scenario(scenario_text(profile, id, setup), "conformance " + id);
  RunOptions options;
  options.timeline = true;
  options.stream_timeline = true;
  const RunOutput out = run_scenario(scenario, options);
  CheckedRun run;
  run.setup = setup;
  run.grace =
      scenario.worker.grace_period == kNever ? -1 : to_seconds(scenario.worker.grace_period);
  run.heartbeat = to_seconds(scenario.worker.heartbeat_interval);
  run.run_end = to_seconds(out.ended_at);
  const json& proc = out.results["pods"][0]["processes"][0];
  run.worker = proc["worker"].get<WorkerId>();
  if (!proc["ended_s"].is_null()) {
    run.ended = proc["ended_s"].get<double>();
    run.code = proc["exit_code"].get<int>();
  }
  run.exit = proc["exit"].get<std::string>();
  // The timeline read back from the run's spill, row by row (base/timeline_schema.h).
  const json timeline = out.timeline->json();
  const auto rows = [&](std::string_view table) -> const json& {
    return timeline.at(std::string(table)).at("rows");
  };
  const auto text = [](const json& cell) { return cell.get<std::string>(); };
  namespace ts = timeline_schema;
  for (const json& s : rows(ts::signals::kName)) {
    if (s[ts::signals::kPod] != 0) continue;
    const double at = s[ts::signals::kTime].get<double>();
    run.signals.emplace_back(
        at, fmt::format("{} {} {} {} ({})", secs(at), kPod, text(s[ts::signals::kSignal]),
                        s[ts::signals::kDelivered].get<bool>() ? "delivered" : "swallowed",
                        text(s[ts::signals::kSource])));
  }
  for (const json& s : rows(ts::pod_states::kName)) {
    if (s[ts::pod_states::kPod] == 0) {
      run.states.emplace_back(s[ts::pod_states::kTime].get<double>(),
                              text(s[ts::pod_states::kState]));
    }
  }
  for (const json& a : rows(ts::attempts::kName)) {
    if (a[ts::attempts::kWorker].get<WorkerId>() != run.worker) continue;
    run.attempts.push_back({a[ts::attempts::kJob].get<JobId>(),
                            a[ts::attempts::kAttempt].get<int>(), run.worker,
                            a[ts::attempts::kStart].get<double>(),
                            a[ts::attempts::kEnd].get<double>(), text(a[ts::attempts::kOutcome])});
  }
  for (const json& p : rows(ts::reports::kName)) {
    if (p[ts::reports::kWorker].get<WorkerId>() != run.worker) continue;
    run.reports.push_back({p[ts::reports::kTime].get<double>(), run.worker,
                           p[ts::reports::kJob].get<JobId>(), p[ts::reports::kAttempt].get<int>(),
                           text(p[ts::reports::kKind]), text(p[ts::reports::kError]),
                           p[ts::reports::kAccepted].get<bool>()});
  }
  for (const json& h : rows(ts::heartbeats::kName)) {
    if (h[ts::heartbeats::kWorker].get<WorkerId>() == run.worker) {
      run.heartbeats.push_back(
          {h[ts::heartbeats::kTime].get<double>(), run.worker, text(h[ts::heartbeats::kState])});
    }
  }
  for (const json& m : rows(ts::drain_remaining::kName)) {
    if (m[ts::drain_remaining::kWorker].get<WorkerId>() == run.worker) {
      run.remaining.push_back({m[ts::drain_remaining::kTime].get<double>(), run.worker,
                               std::to_string(m[ts::drain_remaining::kRemaining].get<int>())});
    }
  }
  return run;
}

}  // namespace conformance

using conformance::Check;
using conformance::CheckedRun;
using conformance::checks;
using nlohmann::json;

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
    std::vector<CheckedRun> runs;
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
