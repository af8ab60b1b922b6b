#include "io/scenario_writer.h"

#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "io/profile_json.h"

namespace drainsim {

using json = nlohmann::json;

namespace {

using DD = DurationDistribution;
using AP = ArrivalProcess;
using EK = ScenarioEvent::Kind;

json amount_json(const Amount& a) {
  if (!a.percent) return static_cast<std::int64_t>(a.value);
  return fmt::format("{}%", a.value);
}

json arrival_json(const ArrivalProcess& a) {
  json j = {{"kind", name_of(a.kind)}};
  switch (a.kind) {
    case AP::Kind::kPoisson:
    case AP::Kind::kConstant:
      j["rate_per_s"] = a.rate_per_s;
      break;
    case AP::Kind::kBurst:
      j["count"] = a.count;
      j["at"] = format_duration(a.at);
      break;
    case AP::Kind::kList:
      j["at"] = durations_json(a.times);
      break;
  }
  return j;
}

json event_json(const ScenarioEvent& e) {
  json j = {{"at", format_duration(e.at)}, {"kind", name_of(e.kind)}};
  const auto pod = [](int n) { return fmt::format("pod-{}", n); };
  switch (e.kind) {
    case EK::kRollingRestart:
      j["max_surge"] = amount_json(e.max_surge);
      j["max_unavailable"] = amount_json(e.max_unavailable);
      break;
    case EK::kOomKill:
      j["count"] = e.count;
      if (e.pod >= 0) j["pod"] = pod(e.pod);
      break;
    case EK::kScaleDown:
    case EK::kScaleUp:
      j["replicas"] = e.replicas;
      break;
    case EK::kSignal:
      j["pod"] = pod(e.pod);
      j["signal"] = to_string(e.signal);
      break;
    case EK::kNodeDrain:
      j["node"] = e.node;
      break;
    case EK::kDirective:
      j["pod"] = pod(e.pod);
      j["state"] = to_string(e.state);
      break;
    case EK::kDeletePod:
    case EK::kOomKillChild:
      j["pod"] = pod(e.pod);
      break;
  }
  return j;
}

}  // namespace

json pre_stop_json(const PreStop& p) {
  json j = {{"kind", name_of(p.kind)}};
  switch (p.kind) {
    case PreStop::Kind::kNone:
      break;
    case PreStop::Kind::kSleep:
    case PreStop::Kind::kQuietThenSleep:
      j["duration"] = format_duration(p.duration);
      break;
    case PreStop::Kind::kQuietThenWait:
      j["poll"] = format_duration(p.poll);
      j["timeout"] = format_duration(p.timeout);
      break;
  }
  return j;
}

namespace {

json retry_json(const RetryPolicy& r) {
  return {{"max_attempts", r.max_attempts},
          {"schedule", name_of(r.schedule)},
          {"initial_interval", format_duration(r.initial_interval)},
          {"backoff_coefficient", r.backoff_coefficient},
          {"max_interval", format_duration(r.max_interval)},
          {"jitter", r.jitter}};
}

json classes_json(const std::vector<JobClass>& classes) {
  json out = json::array();
  for (const JobClass& c : classes) {
    out.push_back({{"name", c.name},
                   {"weight", c.weight},
                   {"job_duration", distribution_json(c.job_duration)},
                   {"failure_rate", c.failure_rate},
                   {"retry", retry_json(c.retry)},
                   {"serial", c.serial},
                   {"singleton", c.singleton}});
  }
  return out;
}

}  // namespace

json scenario_to_json(const Scenario& s) {
  const WorkloadConfig& w = s.workload;
  const BackendConfig& b = s.backend;
  const WorkerConfig& k = s.worker;
  const PlatformConfig& p = s.platform;
  json platform = {
      {"kind", name_of(p.kind)},
      {"replicas", p.replicas},
      {"nodes", p.nodes},
      {"pre_stop", pre_stop_json(p.pre_stop)},
      {"pod_start_delay", format_duration(p.pod_start_delay)},
      {"restart_delay", format_duration(p.restart_delay)},
      {"pid1_shell", p.pid1_shell},
      {"init", p.init},
  };
  if (p.kind == PlatformConfig::Kind::kDocker) {
    platform["stop_grace_period"] = format_duration(p.stop_grace_period);
  } else {
    platform["termination_grace_period"] = format_duration(p.termination_grace_period);
  }
  json events = json::array();
  for (const ScenarioEvent& e : s.events) events.push_back(event_json(e));
  json out = {
      {"name", s.name},
      {"description", s.description},
      {"seed", s.seed},
      {"duration", format_duration(s.duration)},
      {"settle", format_duration(s.settle)},
      {"workload",
       {
           {"arrival", arrival_json(w.arrival)},
           {"job_duration", distribution_json(w.job_duration)},
           {"cancel",
            {{"cooperative_fraction", w.cancel.cooperative_fraction},
             {"latency", format_duration(w.cancel.latency)}}},
           {"checkpointing", w.checkpointing},
           {"checkpoint_interval", format_duration(w.checkpoint_interval)},
           {"failure_rate", w.failure_rate},
           {"queue", w.queue},
           {"classes", classes_json(w.classes)},
       }},
      {"backend",
       {
           {"visibility_timeout", format_duration(b.visibility_timeout)},
           {"heartbeat_timeout", format_duration(b.heartbeat_timeout)},
           {"retry", retry_json(b.retry)},
       }},
      {"worker",
       {
           {"profile", k.profile},
           {"concurrency", k.concurrency},
           {"grace_period", format_grace(k.grace_period)},
           {"heartbeat_interval", format_duration(k.heartbeat_interval)},
           {"poll_interval", format_duration(k.poll_interval)},
           {"fetch_latency", distribution_json(k.fetch_latency)},
           {"startup", distribution_json(k.startup)},
           {"queues", k.queues},
           {"options", options_json(k.options)},
       }},
      {"platform", platform},
      {"events", events},
  };
  if (s.origin) {
    const ScenarioOrigin& o = *s.origin;
    out["origin"] = {{"kind", "kubernetes"},
                     {"files", o.files},
                     {"workload", o.workload},
                     {"container", o.container}};
    if (!o.profile.empty()) out["origin"]["profile"] = o.profile;
  }
  return out;
}

}  // namespace drainsim
