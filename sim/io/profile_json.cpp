#include "io/profile_json.h"

#include <string>
#include <vector>

namespace drainsim {

using json = nlohmann::json;

json durations_json(const std::vector<Duration>& ds) {
  json out = json::array();
  for (Duration d : ds) out.push_back(format_duration(d));
  return out;
}

json distribution_json(const DurationDistribution& d) {
  json j = {{"kind", name_of(d.kind)}};
  switch (d.kind) {
    case DurationDistribution::Kind::kConstant:
      j["value"] = format_duration(d.value);
      break;
    case DurationDistribution::Kind::kUniform:
      j["min"] = format_duration(d.min);
      j["max"] = format_duration(d.max);
      break;
    case DurationDistribution::Kind::kExponential:
      j["mean"] = format_duration(d.mean);
      break;
    case DurationDistribution::Kind::kLognormal:
      j["median"] = format_duration(d.median);
      j["p99"] = format_duration(d.p99);
      break;
    case DurationDistribution::Kind::kPareto:
      j["scale"] = format_duration(d.scale);
      j["shape"] = d.shape;
      break;
    case DurationDistribution::Kind::kEmpirical:
      if (d.histogram.empty()) {
        j["values"] = durations_json(d.values);
        break;
      }
      j["histogram"] = json::array();
      for (const auto& b : d.histogram) {
        j["histogram"].push_back({{"le", format_duration(b.le)}, {"weight", b.weight}});
      }
      break;
    case DurationDistribution::Kind::kSequence:
      j["values"] = durations_json(d.values);
      break;
  }
  return j;
}

json option_json(const OptionValue& v) {
  if (const bool* b = std::get_if<bool>(&v)) return *b;
  if (const Duration* d = std::get_if<Duration>(&v)) return format_duration(*d);
  return std::get<int>(v);
}

json options_json(const ProfileOptions& options) {
  json out = json::object();
  for (const auto& [name, value] : options) out[name] = option_json(value);
  return out;
}

json behaviour_json(const ShutdownBehaviour& b) {
  return {
      {"handles_term", b.handles_term},
      {"handles_tstp", b.handles_tstp},
      {"second_term", name_of(b.second_term)},
      {"second_term_quiet_for", format_duration(b.second_term_quiet_for)},
      {"at_deadline", name_of(b.at_deadline)},
      {"deadline_error", to_string(b.deadline_error)},
      {"cancel_after", format_grace(b.cancel_after)},
      {"heartbeats_while_draining", b.heartbeats_while_draining},
      {"renews_leases_while_draining", b.renews_leases_while_draining},
      {"renews_only_aged_leases", b.renews_only_aged_leases},
      {"fails_at_lease_expiry", b.fails_at_lease_expiry},
      {"acks_fail_while_draining", b.acks_fail_while_draining},
      {"nacks_fail_while_draining", b.nacks_fail_while_draining},
      {"deregisters", b.deregisters},
      {"leave_deregisters", b.leave_deregisters},
      {"logs_remaining", b.logs_remaining},
      {"drain_poll", format_duration(b.drain_poll)},
      {"drain_looks_at_start", b.drain_looks_at_start},
      {"drain_linger", format_duration(b.drain_linger)},
      {"exits_by_signal", b.exits_by_signal},
      {"idle_fetch_timeout", format_duration(b.idle_fetch_timeout)},
      {"consumer_fetch_timeout", format_duration(b.consumer_fetch_timeout)},
      {"late_fetch", name_of(b.late_fetch)},
      {"late_fetch_killed", b.late_fetch_killed},
      {"deadline_lead", format_duration(b.deadline_lead)},
      {"deadline_action_cost", format_duration(b.deadline_action_cost)},
      {"child_lost", name_of(b.child_lost)},
      {"reserve_per_slot", b.reserve_per_slot == ShutdownBehaviour::kNoReserveLimit
                               ? json("no_limit")
                               : json(b.reserve_per_slot)},
  };
}

json mechanisms_json(const BackendMechanisms& m) {
  json lease = {{"enabled", m.lease.enabled}};
  if (m.lease.enabled) {
    lease["renewed_by_heartbeat"] = m.lease.renewed_by_heartbeat;
    lease["token_lapses_with_lease"] = m.lease.token_lapses_with_lease;
    lease["check_interval"] = format_duration(m.lease.check_interval);
    if (m.lease.check_interval > 0) lease["checked_by_workers"] = m.lease.checked_by_workers;
    if (m.lease.check_interval > 0 && m.lease.checked_by_workers) {
      lease["one_check_across_workers"] = m.lease.one_check_across_workers;
      lease["seen_at_previous_check"] = m.lease.seen_at_previous_check;
      lease["second_check_after"] = format_duration(
          m.lease.second_check_after > 0 ? m.lease.second_check_after : m.lease.check_interval);
    }
    lease["fate"] = name_of(m.lease.fate);
    if (m.lease.fate == LeaseExpiry::Fate::kRequeue) {
      lease["counts_attempt"] = m.lease.counts_attempt;
    }
    if (m.lease.fate == LeaseExpiry::Fate::kStall) lease["max_stalls"] = m.lease.max_stalls;
  }
  json rescuer = {{"enabled", m.rescuer.enabled}};
  if (m.rescuer.enabled) {
    rescuer["interval"] = format_duration(m.rescuer.interval);
    rescuer["after"] = format_duration(m.rescuer.after);
    rescuer["backoff"] = m.rescuer.backoff;
  }
  json out = {
      {"fence", {{"ack", name_of(m.ack_fence)}, {"fail", name_of(m.fail_fence)}}},
      {"heartbeat_detection", m.heartbeat_detection},
      {"lease_expiry", lease},
      {"rescuer", rescuer},
      {"crashes", m.crashes.enabled ? json{{"max", m.crashes.max},
                                           {"immediate", m.crashes.immediate},
                                           {"step", format_duration(m.crashes.step)}}
                                    : json(nullptr)},
      {"dispatch", name_of(m.dispatch)},
      {"fetch", name_of(m.fetch)},
      {"returns_on_disconnect", m.returns_on_disconnect},
      {"teardown_window", format_duration(m.teardown_window)},
      {"scheduled_poll", m.poll_per_process == 0
                             ? json(nullptr)
                             : json{{"per_process", format_duration(m.poll_per_process)},
                                    {"initial_wait", format_duration(m.poll_initial_wait)},
                                    {"initial_jitter", format_duration(m.poll_initial_jitter)}}}};
  if (m.fetch == FetchMode::kPrivateList) {
    out["cleanup_interval"] = format_duration(m.cleanup_interval);
    out["process_ttl"] = format_duration(m.process_ttl);
  }
  return out;
}

json profile_json(const Profile& p) {
  const RetryPolicy& r = p.backend.retry;
  // What a scenario that sets no option runs.
  ShutdownBehaviour shutdown = p.worker.shutdown;
  BackendMechanisms mechanisms = p.mechanisms;
  if (p.apply) p.apply(default_options(p), shutdown, mechanisms);
  json options = json::array();
  for (const ProfileOption& o : p.options) {
    options.push_back({{"name", o.name}, {"default", option_json(o.fallback)}, {"doc", o.doc}});
  }
  return {
      {"name", p.name},
      {"summary", p.summary},
      {"worker",
       {{"concurrency", p.worker.concurrency},
        {"grace_period", format_grace(p.worker.grace_period)},
        {"heartbeat_interval", format_duration(p.worker.heartbeat_interval)},
        {"poll_interval", format_duration(p.worker.poll_interval)},
        {"startup", distribution_json(p.worker.startup)}}},
      {"backend",
       {{"visibility_timeout", format_duration(p.backend.visibility_timeout)},
        {"heartbeat_timeout", format_duration(p.backend.heartbeat_timeout)},
        {"retry",
         {{"max_attempts", r.max_attempts},
          {"schedule", name_of(r.schedule)},
          {"initial_interval", format_duration(r.initial_interval)},
          {"backoff_coefficient", r.backoff_coefficient},
          {"max_interval", format_duration(r.max_interval)},
          {"jitter", r.jitter}}}}},
      {"shutdown", behaviour_json(shutdown)},
      {"backend_mechanisms", mechanisms_json(mechanisms)},
      {"options", options},
  };
}

}  // namespace drainsim
