// What the job systems' settings share (profiles/system_settings.h); the sources behind each
// system's lines are in docs/tune.md, "The snippet".
#include "profiles/system_settings.h"

#include <algorithm>
#include <stdexcept>
#include <variant>

#include <fmt/format.h>

#include "profiles/profile.h"

namespace drainsim::snippet {

System system_of(const Input& in) {
  const Profile* p = find_profile(in.s.worker.profile);
  if (p == nullptr || p->settings == nullptr) {
    throw std::logic_error("no settings for profile " + in.s.worker.profile);
  }
  return p->settings(in);
}

std::int64_t seconds_up(Duration d) { return (d + kSecond - 1) / kSecond; }

std::int64_t millis_up(Duration d) { return (d + kMillisecond - 1) / kMillisecond; }

std::string flow(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    out += (i ? ", \"" : "\"") + items[i] + "\"";
  }
  return out + "]";
}

std::string grouped(std::int64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += '_';
    out += digits[i];
  }
  return out;
}

std::string go_duration(Duration d) {
  if (d == 0) return "0";
  if (d % kSecond == 0) return fmt::format("{} * time.Second", d / kSecond);
  if (d % kMillisecond == 0) return fmt::format("{} * time.Millisecond", d / kMillisecond);
  return fmt::format("{} * time.Microsecond", d);
}

std::string python_seconds(Duration d) {
  std::string s = fmt::format("{:.6f}", to_seconds(d));
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s += '0';
  return s;
}

bool flag(const Scenario& s, std::string_view name) {
  const auto it = s.worker.options.find(name);
  return it != s.worker.options.end() && std::holds_alternative<bool>(it->second) &&
         std::get<bool>(it->second);
}

Duration duration_option(const Scenario& s, std::string_view name, Duration fallback) {
  const auto it = s.worker.options.find(name);
  return it != s.worker.options.end() && std::holds_alternative<Duration>(it->second)
             ? std::get<Duration>(it->second)
             : fallback;
}

Duration bounded(const Input& in) { return in.grace == kNever ? in.platform + kSecond : in.grace; }

std::string grace_note(const Input& in, std::string_view prefix, std::string_view system,
                       Duration unit, std::string_view unit_name) {
  if (in.grace == kNever) {
    return fmt::format(
        "{0} The grace is \"forever\", for which {1} has no value: this is the\n"
        "{0} platform's grace ({2}) plus 1s, so that its SIGKILL comes first.\n",
        prefix, system, format_duration(in.platform));
  }
  if (in.grace % unit != 0) {
    return fmt::format("{} {} rounded up: {} takes {}.\n", prefix, format_duration(in.grace),
                       system, unit_name);
  }
  return {};
}

std::int64_t ruby_timeout(const Input& in) {
  return std::max<std::int64_t>(seconds_up(bounded(in)), 1);
}

std::string ruby_note(const Input& in, std::string_view system) {
  if (in.grace == 0) {
    return fmt::format("# {} refuses a timeout below 1 second (cli.rb): 1 is the nearest.\n",
                       system);
  }
  return grace_note(in, "#", system, kSecond, "whole seconds (cli.rb: Integer)");
}

}  // namespace drainsim::snippet
