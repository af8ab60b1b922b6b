#include "profiles/profile.h"

#include <fmt/format.h>

#include "profiles/profiles.h"

namespace drainsim {

namespace {

std::vector<Profile> make_registry() {
  return {
      profiles::ojs(),     profiles::ojs_go_sdk(),  profiles::ojs_js_sdk(),
      profiles::sidekiq(), profiles::sidekiq_pro(), profiles::river(),
      profiles::bullmq(),  profiles::oban(),        profiles::faktory(),
      profiles::celery(),  profiles::temporal(),    profiles::graphile_worker(),
      profiles::pg_boss(), profiles::ductwork(),    profiles::naive(),
  };
}

const std::vector<Profile>& registry() {
  static const std::vector<Profile> kRegistry = make_registry();
  return kRegistry;
}

const Profile& known(const WorkerConfig& worker) {
  const Profile* p = find_profile(worker.profile);
  if (p == nullptr) throw std::logic_error("unknown profile " + worker.profile);
  return *p;
}

std::string duration_or_never(Duration d) { return d == kNever ? "forever" : format_duration(d); }

const char* to_string(ShutdownBehaviour::SecondTerm s) {
  switch (s) {
    case ShutdownBehaviour::SecondTerm::kForceStop:
      return "force_stop";
    case ShutdownBehaviour::SecondTerm::kIgnore:
      return "ignore";
    case ShutdownBehaviour::SecondTerm::kDeadline:
      return "deadline_now";
  }
  return "?";
}

const char* to_string(ShutdownBehaviour::AtDeadline a) {
  switch (a) {
    case ShutdownBehaviour::AtDeadline::kFail:
      return "fail";
    case ShutdownBehaviour::AtDeadline::kRequeue:
      return "requeue_front";
    case ShutdownBehaviour::AtDeadline::kLeave:
      return "leave";
    case ShutdownBehaviour::AtDeadline::kCancelAndWait:
      return "cancel_and_wait";
  }
  return "?";
}

const char* to_string(LeaseExpiry::Fate f) {
  switch (f) {
    case LeaseExpiry::Fate::kRequeue:
      return "requeue";
    case LeaseExpiry::Fate::kRetry:
      return "retry";
    case LeaseExpiry::Fate::kStall:
      return "stall";
  }
  return "?";
}

const char* to_string(FetchMode f) {
  switch (f) {
    case FetchMode::kReliable:
      return "reliable";
    case FetchMode::kAtMostOnce:
      return "at_most_once";
    case FetchMode::kPrivateList:
      return "private_list";
  }
  return "?";
}

}  // namespace

const Profile* find_profile(std::string_view name) {
  for (const Profile& p : registry()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::span<const Profile> all_profiles() { return registry(); }

nlohmann::json default_options(const Profile& p) {
  nlohmann::json out = nlohmann::json::object();
  for (const ProfileOption& o : p.options) out[std::string(o.name)] = o.fallback;
  return out;
}

namespace {
std::pair<ShutdownBehaviour, BackendMechanisms> resolve(const WorkerConfig& worker) {
  const Profile& p = known(worker);
  std::pair<ShutdownBehaviour, BackendMechanisms> out{p.worker.shutdown, p.mechanisms};
  if (p.apply) p.apply(worker.options, out.first, out.second);
  return out;
}
}  // namespace

ShutdownBehaviour shutdown_behaviour(const WorkerConfig& worker) { return resolve(worker).first; }

BackendMechanisms backend_mechanisms(const WorkerConfig& worker) { return resolve(worker).second; }

nlohmann::json behaviour_json(const ShutdownBehaviour& b) {
  return {
      {"handles_term", b.handles_term},
      {"handles_tstp", b.handles_tstp},
      {"second_term", to_string(b.second_term)},
      {"at_deadline", to_string(b.at_deadline)},
      {"deadline_error", to_string(b.deadline_error)},
      {"cancel_after", duration_or_never(b.cancel_after)},
      {"heartbeats_while_draining", b.heartbeats_while_draining},
      {"acks_fail_while_draining", b.acks_fail_while_draining},
      {"deregisters", b.deregisters},
      {"logs_remaining", b.logs_remaining},
  };
}

nlohmann::json mechanisms_json(const BackendMechanisms& m) {
  nlohmann::json lease = {{"enabled", m.lease.enabled}};
  if (m.lease.enabled) {
    lease["renewed_by_heartbeat"] = m.lease.renewed_by_heartbeat;
    lease["check_interval"] = format_duration(m.lease.check_interval);
    lease["fate"] = to_string(m.lease.fate);
    if (m.lease.fate == LeaseExpiry::Fate::kRequeue)
      lease["counts_attempt"] = m.lease.counts_attempt;
    if (m.lease.fate == LeaseExpiry::Fate::kStall) lease["max_stalls"] = m.lease.max_stalls;
  }
  nlohmann::json rescuer = {{"enabled", m.rescuer.enabled}};
  if (m.rescuer.enabled) {
    rescuer["interval"] = format_duration(m.rescuer.interval);
    rescuer["after"] = format_duration(m.rescuer.after);
    rescuer["backoff"] = m.rescuer.backoff;
  }
  nlohmann::json out = {{"heartbeat_detection", m.heartbeat_detection},
                        {"lease_expiry", lease},
                        {"rescuer", rescuer},
                        {"fetch", to_string(m.fetch)}};
  if (m.fetch == FetchMode::kPrivateList) {
    out["cleanup_interval"] = format_duration(m.cleanup_interval);
    out["process_ttl"] = format_duration(m.process_ttl);
  }
  return out;
}

nlohmann::json profile_json(const Profile& p) {
  const RetryPolicy& r = p.backend.retry;
  nlohmann::json options = nlohmann::json::array();
  for (const ProfileOption& o : p.options) {
    options.push_back({{"name", o.name}, {"default", o.fallback}, {"doc", o.doc}});
  }
  return {
      {"name", p.name},
      {"summary", p.summary},
      {"worker",
       {{"concurrency", p.worker.concurrency},
        {"grace_period", duration_or_never(p.worker.grace_period)},
        {"heartbeat_interval", format_duration(p.worker.heartbeat_interval)},
        {"poll_interval", format_duration(p.worker.poll_interval)}}},
      {"backend",
       {{"visibility_timeout", format_duration(p.backend.visibility_timeout)},
        {"heartbeat_timeout", format_duration(p.backend.heartbeat_timeout)},
        {"retry",
         {{"max_attempts", r.max_attempts},
          {"initial_interval", format_duration(r.initial_interval)},
          {"backoff_coefficient", r.backoff_coefficient},
          {"max_interval", format_duration(r.max_interval)},
          {"jitter", r.jitter}}}}},
      {"shutdown", behaviour_json(p.worker.shutdown)},
      {"backend_mechanisms", mechanisms_json(p.mechanisms)},
      {"options", options},
  };
}

namespace profiles {

Profile base(std::string_view name, std::string_view summary, Duration grace) {
  Profile p;
  p.name = name;
  p.summary = summary;
  p.worker.profile = std::string(name);
  p.worker.concurrency = 10;
  p.worker.grace_period = grace;
  p.worker.heartbeat_interval = 5 * kSecond;
  p.worker.poll_interval = kSecond;
  return p;
}

BackendMechanisms ojs_reference_backend() {
  BackendMechanisms m;
  m.heartbeat_detection = false;
  m.lease.renewed_by_heartbeat = false;
  m.lease.counts_attempt = false;
  return m;
}

bool option_bool(const nlohmann::json& options, const char* name) {
  return options.at(name).get<bool>();
}

Duration option_duration(const nlohmann::json& options, const char* name) {
  return *parse_duration(options.at(name).get<std::string>());
}

int option_count(const nlohmann::json& options, const char* name) {
  return options.at(name).get<int>();
}

}  // namespace profiles

}  // namespace drainsim
