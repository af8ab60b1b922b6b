#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/parse.h"
#include "profiles/profile.h"
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

std::pair<ShutdownBehaviour, BackendMechanisms> resolve(const WorkerConfig& worker) {
  const Profile& p = known(worker);
  std::pair<ShutdownBehaviour, BackendMechanisms> out{p.worker.shutdown, p.mechanisms};
  if (p.apply) p.apply(worker.options, out.first, out.second);
  return out;
}

}  // namespace

const Profile* find_profile(std::string_view name) {
  for (const Profile& p : registry()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::span<const Profile> all_profiles() { return registry(); }

std::vector<std::string_view> profile_names() {
  std::vector<std::string_view> out;
  for (const Profile& p : registry()) out.push_back(p.name);
  return out;
}

std::string unknown_profile(std::string_view name) {
  return fmt::format("unknown profile \"{}\", expected one of {}", name,
                     fmt::join(profile_names(), ", "));
}

ProfileOptions default_options(const Profile& p) {
  ProfileOptions out;
  for (const ProfileOption& o : p.options) out.emplace(o.name, o.fallback);
  return out;
}

ShutdownBehaviour shutdown_behaviour(const WorkerConfig& worker) { return resolve(worker).first; }

BackendMechanisms backend_mechanisms(const WorkerConfig& worker) { return resolve(worker).second; }

std::string format_option(const OptionValue& v) {
  if (const bool* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (const Duration* d = std::get_if<Duration>(&v)) return format_duration(*d);
  return std::to_string(std::get<int>(v));
}

std::optional<OptionValue> parse_option(const OptionValue& like, std::string_view text) {
  if (std::holds_alternative<bool>(like)) {
    if (text == "true" || text == "false") return OptionValue(text == "true");
    return std::nullopt;
  }
  if (std::holds_alternative<Duration>(like)) {
    const std::optional<Duration> d = parse_duration(text);
    if (!d || *d <= 0) return std::nullopt;
    return OptionValue(*d);
  }
  const std::optional<int> n = parse_number<int>(text);
  if (!n || *n < 0) return std::nullopt;
  return OptionValue(*n);
}

}  // namespace drainsim
