// Each job system's settings come from its profile's registry entry: every registered profile
// has them and they name its system; a name no profile has is a precondition failure, not a
// generic "the worker". And the helpers they share, with numbers worked by hand.
#include "profiles/system_settings.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "profiles/profile.h"

namespace drainsim::snippet {
namespace {

Scenario scenario_of(const Profile& p) {
  Scenario s;
  s.worker = p.worker;
  s.worker.options = default_options(p);
  return s;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(SystemSettings, EveryRegisteredProfileHasSettingsThatNameItsSystem) {
  const PreStop none;
  for (const Profile& p : all_profiles()) {
    ASSERT_NE(p.settings, nullptr) << p.name << " has no settings function";
    const Scenario s = scenario_of(p);
    for (const Duration grace : {Duration(0), 25 * kSecond, kNever}) {
      const System w = p.settings(Input{s, grace, 30 * kSecond, none});
      EXPECT_FALSE(w.name.empty()) << p.name;
      // Its own section first: "# --- WHERE: what it sets".
      EXPECT_TRUE(w.settings.starts_with("# --- ")) << p.name << ":\n" << w.settings;
    }
  }
}

TEST(SystemSettings, SystemOfTakesTheSettingsOfTheScenariosProfile) {
  // A 25 s grace is Sidekiq's -t 25; sidekiq-pro's adds the initializer for super_fetch.
  const PreStop none;
  const Scenario oss = scenario_of(*find_profile("sidekiq"));
  const Scenario pro = scenario_of(*find_profile("sidekiq-pro"));
  const System a = system_of(Input{oss, 25 * kSecond, 30 * kSecond, none});
  const System b = system_of(Input{pro, 25 * kSecond, 30 * kSecond, none});
  EXPECT_EQ(a.name, "Sidekiq");
  EXPECT_EQ(b.name, "Sidekiq");
  EXPECT_EQ(a.command, (std::vector<std::string>{"bundle", "exec", "sidekiq", "-t", "25"}));
  EXPECT_FALSE(has(a.settings, "config.super_fetch!"));
  EXPECT_TRUE(has(b.settings, "config.super_fetch!")) << b.settings;
}

TEST(SystemSettings, AProfileNobodyRegisteredIsAPreconditionFailure) {
  Scenario s;
  s.worker.profile = "no-such-system";
  const PreStop none;
  EXPECT_THROW(system_of(Input{s, 25 * kSecond, 30 * kSecond, none}), std::logic_error);
}

TEST(SystemSettings, NumbersInEachLanguagesTerms) {
  EXPECT_EQ(seconds_up(1500 * kMillisecond), 2);
  EXPECT_EQ(seconds_up(2 * kSecond), 2);
  EXPECT_EQ(millis_up(1500), 2);  // 1.5 ms
  EXPECT_EQ(grouped(999), "999");
  EXPECT_EQ(grouped(25000), "25_000");
  EXPECT_EQ(grouped(1000000), "1_000_000");
  EXPECT_EQ(go_duration(0), "0");
  EXPECT_EQ(go_duration(25 * kSecond), "25 * time.Second");
  EXPECT_EQ(go_duration(1500 * kMillisecond), "1500 * time.Millisecond");
  EXPECT_EQ(go_duration(1500), "1500 * time.Microsecond");
  EXPECT_EQ(python_seconds(25 * kSecond), "25.0");
  EXPECT_EQ(python_seconds(25500 * kMillisecond), "25.5");
  EXPECT_EQ(flow({"a", "b"}), R"(["a", "b"])");
}

TEST(SystemSettings, AForeverGraceIsBoundedOneSecondPastThePlatformsAndRubyTakesAtLeastOne) {
  Scenario s;
  const PreStop none;
  EXPECT_EQ(bounded(Input{s, kNever, 45 * kSecond, none}), 46 * kSecond);
  EXPECT_EQ(bounded(Input{s, 20 * kSecond, 45 * kSecond, none}), 20 * kSecond);
  EXPECT_EQ(ruby_timeout(Input{s, 0, 45 * kSecond, none}), 1);
  EXPECT_EQ(ruby_timeout(Input{s, 2500 * kMillisecond, 45 * kSecond, none}), 3);
}

}  // namespace
}  // namespace drainsim::snippet
