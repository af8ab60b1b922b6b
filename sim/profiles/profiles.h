// The profiles in the registry (registry.cpp), one file each, and what they share
// (common.cpp).
#pragma once

#include "profiles/profile.h"
#include "profiles/system_settings.h"

namespace drainsim::profiles {

// A profile's starting point: the OJS defaults with `name` and the given grace period.
// Every profile but ojs then sets `logs_remaining = false`: only the OJS graceful-shutdown
// spec (§5.2, GS-R003) describes a periodic remaining-job-count log while draining; the
// other systems' docs and sources (docs/profiles.md) describe no such log. (sidekiq-pro
// inherits it from sidekiq.)
Profile base(std::string_view name, std::string_view summary, Duration grace);

// A start-up (WorkerConfig::startup) uniform over [lo, hi]: a program's measured spread.
DurationDistribution startup_between(Duration lo, Duration hi);

// The OJS reference backends (ojs-backend-lite/redis): a visibility deadline from the
// job's start whose expiry requeues without counting an attempt; no dead-worker detection.
BackendMechanisms ojs_reference_backend();

// Reads an option as the scenario reader leaves it (present, of its type).
bool option_bool(const ProfileOptions& options, std::string_view name);
Duration option_duration(const ProfileOptions& options, std::string_view name);
int option_count(const ProfileOptions& options, std::string_view name);

Profile ojs();
Profile ojs_go_sdk();
Profile ojs_js_sdk();
Profile sidekiq();
// Sidekiq's settings for the snippet, which sidekiq-pro adds to.
snippet::System sidekiq_settings(const snippet::Input& in);
Profile sidekiq_pro();
Profile river();
Profile bullmq();
Profile oban();
Profile faktory();
Profile celery();
Profile temporal();
Profile graphile_worker();
Profile pg_boss();
Profile ductwork();
Profile naive();

}  // namespace drainsim::profiles
