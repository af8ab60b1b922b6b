// Sidekiq Pro with super_fetch (docs/profiles.md; Sidekiq wiki "Reliability").
#include "profiles/profiles.h"

namespace drainsim::profiles {

Profile sidekiq_pro() {
  Profile p = sidekiq();
  p.name = "sidekiq-pro";
  p.worker.profile = "sidekiq-pro";
  p.summary =
      "Sidekiq Pro (super_fetch): as Sidekiq, but a killed process's jobs wait in its private "
      "list until some process starts (cleanup at most once a minute, 60 s heartbeat TTL)";
  p.mechanisms.fetch = FetchMode::kPrivateList;
  p.mechanisms.cleanup_interval = kMinute;
  p.mechanisms.process_ttl = 60 * kSecond;
  return p;
}

}  // namespace drainsim::profiles
