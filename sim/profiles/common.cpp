#include "profiles/profiles.h"

namespace drainsim::profiles {

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

DurationDistribution startup_between(Duration lo, Duration hi) {
  DurationDistribution d;
  d.kind = DurationDistribution::Kind::kUniform;
  d.min = lo;
  d.max = hi;
  return d;
}

BackendMechanisms ojs_reference_backend() {
  BackendMechanisms m;
  m.heartbeat_detection = false;
  m.lease.renewed_by_heartbeat = false;
  m.lease.counts_attempt = false;
  return m;
}

bool option_bool(const ProfileOptions& options, std::string_view name) {
  return std::get<bool>(options.find(name)->second);
}

Duration option_duration(const ProfileOptions& options, std::string_view name) {
  return std::get<Duration>(options.find(name)->second);
}

int option_count(const ProfileOptions& options, std::string_view name) {
  return std::get<int>(options.find(name)->second);
}

}  // namespace drainsim::profiles
