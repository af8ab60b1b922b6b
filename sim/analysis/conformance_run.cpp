#include "analysis/conformance_run.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "io/scenario_reader.h"
#include "run/run_scenario.h"

namespace drainsim {

namespace conformance {

namespace {

using nlohmann::json;

std::string scenario_text(const Profile& profile, const std::string& id, const Setup& s) {
  json events = json::array();
  for (const auto& [at, signal] : s.signals) {
    events.push_back({{"at", at}, {"kind", "signal"}, {"pod", kPod}, {"signal", signal}});
  }
  // The program starts at once (worker.startup 0): the checks time the shutdown from the
  // scenario's own instants, not the program's start-up.
  json worker = {{"profile", profile.name}, {"startup", {{"kind", "constant"}, {"value", "0s"}}}};
  if (s.grace) worker["grace_period"] = format_grace(*s.grace);
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
  options.timeline_records = true;
  const RunOutput out = run_scenario(scenario, options);
  CheckedRun run;
  run.setup = setup;
  run.grace = scenario.worker.grace_period;
  run.heartbeat = to_seconds(scenario.worker.heartbeat_interval);
  run.run_end = to_seconds(out.ended_at);
  // pod-0's first process: the one the scenario's one pod started with.
  const auto proc = std::find_if(out.processes.begin(), out.processes.end(),
                                 [](const ProcessRecord& p) { return p.pod == 0; });
  run.worker = proc->worker;
  if (proc->ended >= 0) {
    run.ended = to_seconds(proc->ended);
    run.code = proc->code;
  }
  run.exit = exit_name(*proc);
  const Timeline& t = *out.records;
  for (const SignalRecord& s : t.signals) {
    if (s.pod != 0) continue;
    const double at = to_seconds(s.at);
    run.signals.emplace_back(at,
                             fmt::format("{} {} {} {} ({})", secs(at), kPod, to_string(s.signal),
                                         s.delivered ? "delivered" : "swallowed", s.source));
  }
  for (const PodStateRecord& s : t.pod_states) {
    if (s.pod == 0) run.states.emplace_back(to_seconds(s.at), to_string(s.state));
  }
  for (const AttemptRecord& a : t.attempts) {
    if (a.worker != run.worker) continue;
    run.attempts.push_back(
        {a.job, a.attempt, run.worker, to_seconds(a.start), to_seconds(a.end), outcome_name(a)});
  }
  for (const ReportRecord& p : t.reports) {
    if (p.worker != run.worker) continue;
    run.reports.push_back({to_seconds(p.at), run.worker, p.job, p.attempt, to_string(p.kind),
                           error_name(p), p.accepted});
  }
  for (const HeartbeatRecord& h : t.heartbeats) {
    if (h.worker == run.worker) {
      run.heartbeats.push_back({to_seconds(h.at), run.worker, to_string(h.state)});
    }
  }
  for (const RemainingRecord& m : t.remaining) {
    if (m.worker == run.worker) {
      run.remaining.push_back({to_seconds(m.at), run.worker, std::to_string(m.remaining)});
    }
  }
  return run;
}

}  // namespace conformance

}  // namespace drainsim
