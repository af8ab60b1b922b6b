#include "profile.h"

namespace drainsim {

namespace {

WorkerConfig ojs_defaults() {
  WorkerConfig c;
  c.profile = "ojs";
  c.concurrency = 10;
  c.grace_period = 30 * kSecond;  // graceful-shutdown spec §6.1, GS-003
  c.heartbeat_interval = 5 * kSecond;
  c.poll_interval = kSecond;
  return c;
}

const Profile kProfiles[] = {
    {"ojs",
     "Open Job Spec graceful shutdown: TERM/INT quiet, drain up to the grace period, FAIL the "
     "rest with ShutdownError; heartbeat dead-worker detection",
     ojs_defaults(),
     BackendMechanisms{}},  // the defaults are OJS: dead-worker detection, heartbeat-renewed leases
};

}  // namespace

const Profile* find_profile(std::string_view name) {
  for (const Profile& p : kProfiles) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::span<const Profile> all_profiles() { return kProfiles; }

}  // namespace drainsim
