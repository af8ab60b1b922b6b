// Sidekiq Pro with super_fetch (docs/profiles.md; Sidekiq wiki "Reliability").
#include "profiles/profiles.h"
#include "profiles/system_settings.h"

namespace drainsim::profiles {

namespace {
// Sidekiq's, and the initializer that turns super_fetch on.
snippet::System settings(const snippet::Input& in) {
  snippet::System w = sidekiq_settings(in);
  w.settings +=
      "# --- config/initializers/sidekiq.rb: super_fetch, which the sidekiq-pro profile models\n"
      "Sidekiq.configure_server do |config|\n"
      "  config.super_fetch!\n"
      "end\n";
  return w;
}
}  // namespace

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
  p.settings = settings;
  p.adapters = {};  // the sidekiq adapter runs Sidekiq OSS
  return p;
}

}  // namespace drainsim::profiles
