// Adapter manifests: read with errors naming the file, the path and what was expected;
// placeholders expanded; the scenario fields a real system is not given refused unless
// they keep the profile's default; and the shipped adapters agree with the profiles'
// registry.
#include "io/system_manifest.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "io/json_reader.h"
#include "io/scenario_reader.h"
#include "profiles/profile.h"

namespace drainsim {
namespace {

namespace fs = std::filesystem;

class Manifest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("drainsim_manifest_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string folder(const std::string& name, const std::string& json) {
    fs::create_directories(dir_ / name);
    std::ofstream(dir_ / name / "system.json") << json;
    return (dir_ / name).string();
  }
  std::string error(const std::string& json) {
    try {
      read_manifest(folder("x", json));
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }
  fs::path dir_;
};

const char* kGood = R"({"system": "sk", "profile": "sidekiq", "broker": "redis",
  "worker": ["sidekiq", "-r", "{dir}/worker.rb"], "enqueue": ["ruby", "e.rb"],
  "inspect": ["ruby", "i.rb"], "env": {"REDIS_URL": "{broker_url}"},
  "honours": ["worker.concurrency", "worker.options"]})";

TEST_F(Manifest, ReadsEveryField) {
  const SystemManifest m = read_manifest(folder("sk", kGood));
  EXPECT_EQ(m.system, "sk");
  EXPECT_EQ(m.profile, "sidekiq");
  EXPECT_EQ(m.broker, "redis");
  EXPECT_EQ(m.dir, (dir_ / "sk").string());
  EXPECT_EQ(m.worker, (std::vector<std::string>{"sidekiq", "-r", "{dir}/worker.rb"}));
  EXPECT_EQ(m.env.at("REDIS_URL"), "{broker_url}");
  EXPECT_EQ(m.honours.size(), 2u);
  EXPECT_FALSE(m.reports_available);
  std::string reporting = kGood;
  reporting.insert(reporting.size() - 1, R"(, "reports": ["available"])");
  EXPECT_TRUE(read_manifest(folder("sk2", reporting)).reports_available);
}

TEST_F(Manifest, BadManifestsNameTheFileThePathAndWhatWasExpected) {
  const std::string file = (dir_ / "x" / "system.json").string();
  EXPECT_EQ(error(R"({"system": "a", "profile": "sidekiq", "broker": "kafka", "worker": ["w"],
    "enqueue": ["e"], "inspect": ["i"]})"),
            file + ": broker: expected \"redis\", \"rabbitmq\" or \"postgresql\", got \"kafka\"");
  EXPECT_NE(error(R"({"system": "a", "profile": "resque", "broker": "redis", "worker": ["w"],
    "enqueue": ["e"], "inspect": ["i"]})")
                .find(file + ": profile: unknown profile \"resque\""),
            std::string::npos);
  EXPECT_EQ(error(R"({"system": "a", "profile": "sidekiq", "broker": "redis", "worker": [],
    "enqueue": ["e"], "inspect": ["i"]})"),
            file + ": worker: expected a list of strings, got []");
  EXPECT_EQ(error(R"({"system": "a", "profile": "sidekiq", "broker": "redis", "worker": ["w", 3],
    "enqueue": ["e"], "inspect": ["i"]})"),
            file + ": worker[1]: expected a string, got 3");
  EXPECT_EQ(error(R"({"system": "a", "profile": "sidekiq", "broker": "redis", "worker": ["w"],
    "enqueue": ["e"], "inspect": ["i"], "reports": ["available", "requeued"]})"),
            file +
                ": reports[1]: expected \"available\" (the events an adapter may add), got "
                "\"requeued\"");
  EXPECT_NE(error(R"({"system": "a", "profile": "sidekiq", "broker": "redis", "worker": ["w"],
    "enqueue": ["e"]})")
                .find(file + ": inspect:"),
            std::string::npos);
}

TEST_F(Manifest, OptionsNameTheReleaseTheAdapterRuns) {
  // pg-boss 9: stop() leaves the jobs active. A scenario must say so to run on it; one that
  // keeps the profile's default (pg-boss 10+) is refused, naming the manifest.
  const SystemManifest m = read_manifest(folder("pgb", R"({"system": "pgb", "profile": "pg-boss",
    "broker": "postgresql", "worker": ["w"], "enqueue": ["e"], "inspect": ["i"],
    "options": {"fails_active_at_stop": false}})"));
  EXPECT_EQ(std::get<bool>(m.options.at("fails_active_at_stop")), false);
  const std::string base = R"({"name": "x", "duration": "1s",
    "workload": {"arrival": {"kind": "list", "at": ["0s"]},
                 "job_duration": {"kind": "constant", "value": "1s"}},
    "platform": {"replicas": 1}, "worker": {"profile": "pg-boss")";
  EXPECT_TRUE(
      not_honoured(
          parse_scenario(base + R"(, "options": {"fails_active_at_stop": false}}})", "s.json"), m)
          .empty());
  const std::vector<std::string> bad = not_honoured(parse_scenario(base + "}}", "s.json"), m);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0],
            "worker.options.fails_active_at_stop: the real pgb runs the release where it is false "
            "(adapters/pgb/system.json), got true");
  // An option the profile does not have is an error naming the manifest and the path.
  EXPECT_EQ(error(R"({"system": "a", "profile": "pg-boss", "broker": "postgresql",
    "worker": ["w"], "enqueue": ["e"], "inspect": ["i"], "options": {"acks_late": true}})")
                .find((dir_ / "x" / "system.json").string() + ": options.acks_late:"),
            0u);
}

TEST_F(Manifest, TwoFoldersWithOneSystemNameAreAnError) {
  folder("a", kGood);
  folder("b", kGood);
  try {
    read_manifests(dir_.string());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("\"sk\" is also"), std::string::npos) << e.what();
  }
}

// The shipped adapters and the registry agree both ways: each adapter's profile lists it
// (Profile::adapters), and each adapter a profile lists is shipped and runs that profile.
TEST(ShippedAdapters, EachIsListedByItsProfileAndEachListedOneIsShipped) {
  const std::map<std::string, SystemManifest> shipped =
      read_manifests(std::string(DRAINSIM_SOURCE_DIR) + "/adapters");
  ASSERT_FALSE(shipped.empty());
  for (const auto& [system, m] : shipped) {
    const Profile* p = find_profile(m.profile);
    ASSERT_NE(p, nullptr) << system;
    EXPECT_TRUE(std::ranges::find(p->adapters, system) != p->adapters.end())
        << "profile " << m.profile << " does not list its adapter " << system;
  }
  for (const Profile& p : all_profiles()) {
    for (std::string_view system : p.adapters) {
      const auto it = shipped.find(std::string(system));
      ASSERT_TRUE(it != shipped.end()) << p.name << " lists " << system << ", no adapter has it";
      EXPECT_EQ(it->second.profile, p.name) << system;
    }
  }
}

TEST(Expand, ReplacesPlaceholdersAndNamesAnUnknownOne) {
  const std::map<std::string, std::string> v = {{"dir", "/a"}, {"concurrency", "5"}};
  EXPECT_EQ(expand("{dir}/w.rb -c{concurrency}", v, "m"), "/a/w.rb -c5");
  EXPECT_EQ(expand("plain", v, "m"), "plain");
  try {
    expand("{dri}/w.rb", v, "m.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(
        std::string(e.what()),
        "m.json: unknown placeholder in \"{dri}/w.rb\", expected one of {concurrency}, {dir}");
  }
}

TEST(NotHonoured, AnOomKillOfOnePoolChildNeedsAnAdapterThatNamesItsChildren) {
  SystemManifest m;
  m.system = "cel";
  m.profile = "celery";
  const Scenario s = parse_scenario(R"({"name": "x",
    "duration": "1s", "workload": {"arrival": {"kind": "list", "at": ["0s"]},
                                   "job_duration": {"kind": "constant", "value": "1s"}},
    "platform": {"replicas": 1}, "worker": {"profile": "celery"},
    "events": [{"at": "1s", "kind": "oom_kill", "pod": "pod-0"},
               {"at": "2s", "kind": "oom_kill_child", "pod": "pod-0"}]})",
                                    "s.json");
  const std::vector<std::string> bad = not_honoured(s, m);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0],
            "events[1].kind: oom_kill_child kills the pool child that runs a job, and the real "
            "cel's adapter names none (its system.json does not honour events.oom_kill_child)");
  m.honours = {"events.oom_kill_child"};
  EXPECT_TRUE(not_honoured(s, m).empty());
}

TEST(NotHonoured, JobClassesNeedAnAdapterThatHasWhatEachClassAsks) {
  // pg-boss 9's adapter: each job's attempts and singleton classes, no serial class. A
  // class's backoff cannot be given, only its max_attempts.
  SystemManifest m;
  m.system = "pgb";
  m.profile = "pg-boss";
  m.honours = {"backend.retry.max_attempts", "workload.classes.retry",
               "workload.classes.singleton"};
  const auto refused =
      [&m](const std::string& classes) {
        return not_honoured(parse_scenario(R"({"name": "x", "duration": "1s",
      "workload": {"arrival": {"kind": "list", "at": ["0s"]},
                   "job_duration": {"kind": "constant", "value": "1s"},
                   "classes": )" + classes + R"(},
      "platform": {"replicas": 1}, "worker": {"profile": "pg-boss"}})",
                                           "s.json"),
                            m);
      };
  EXPECT_TRUE(
      refused(R"([{"name": "a", "singleton": true}, {"name": "b", "retry": {"max_attempts": 1}}])")
          .empty());
  EXPECT_EQ(refused(R"([{"name": "a"}, {"name": "b", "serial": true}])"),
            std::vector<std::string>{
                "workload.classes[1].serial: the real pgb has no serial job class (its "
                "system.json does not honour workload.classes.serial)"});
  EXPECT_EQ(refused(R"([{"name": "daily report"}])"),
            std::vector<std::string>{"workload.classes[0].name: the real pgb's enqueuer reads a "
                                     "class's name as one word without '=', got \"daily "
                                     "report\""});
  EXPECT_EQ(refused(R"([{"name": "a", "retry": {"initial_interval": "5s"}}])"),
            std::vector<std::string>{"workload.classes[0].retry: the real pgb is given a class's "
                                     "max_attempts only; its backoff must be backend.retry's"});
}

TEST(NotHonoured, OnlyFieldsOffTheProfilesDefaultsAndNotGivenAreRefused) {
  SystemManifest m;
  m.system = "sk";
  m.profile = "sidekiq";
  m.honours = {"worker.concurrency", "worker.grace_period"};
  const std::string base = R"({"name": "x", "duration": "1s",
    "workload": {"arrival": {"kind": "list", "at": ["0s"]},
                 "job_duration": {"kind": "constant", "value": "1s"}},
    "platform": {"replicas": 1}, "worker": {"profile": "sidekiq")";
  // Given to it, or the profile's own values written out, or a fetch latency (the model of
  // the real network): nothing to refuse.
  EXPECT_TRUE(not_honoured(parse_scenario(base + R"(, "concurrency": 7, "grace_period": "3s",
    "heartbeat_interval": "10s", "fetch_latency": {"kind": "exponential", "mean": "1ms"}}})",
                                          "s.json"),
                           m)
                  .empty());
  const std::vector<std::string> bad = not_honoured(
      parse_scenario(
          base + R"(, "poll_interval": "2s"}, "backend": {"retry": {"max_attempts": 3}}})",
          "s.json"),
      m);
  ASSERT_EQ(bad.size(), 2u);
  EXPECT_EQ(bad[0],
            "backend.retry.max_attempts: the real sk is not given this setting, so it must be the "
            "profile's 26, got 3");
  EXPECT_EQ(bad[1].substr(0, 20), "worker.poll_interval");
  // Job classes: this adapter cannot give each class its retry policy.
  const std::string with_classes = R"({"name": "x", "duration": "1s",
    "workload": {"arrival": {"kind": "list", "at": ["0s"]},
                 "job_duration": {"kind": "constant", "value": "1s"},
                 "classes": [{"name": "a"}, {"name": "b", "retry": {"max_attempts": 1}}]},
    "platform": {"replicas": 1}, "worker": {"profile": "sidekiq"}})";
  const std::vector<std::string> classes = not_honoured(parse_scenario(with_classes, "s.json"), m);
  ASSERT_EQ(classes.size(), 1u);
  EXPECT_EQ(classes[0],
            "workload.classes[0]: the real sk's adapter gives every job the one retry policy "
            "(its system.json does not honour workload.classes.retry)");
  // Another profile: one line, the profile's.
  const std::vector<std::string> other =
      not_honoured(parse_scenario(R"({"name": "x", "duration": "1s",
    "workload": {"arrival": {"kind": "list", "at": ["0s"]},
                 "job_duration": {"kind": "constant", "value": "1s"}},
    "platform": {"replicas": 1}, "worker": {"profile": "bullmq"}})",
                                  "s.json"),
                   m);
  ASSERT_EQ(other.size(), 1u);
  EXPECT_EQ(other[0],
            "worker.profile: the real sk is modelled by the profile \"sidekiq\", got "
            "\"bullmq\"");
}

}  // namespace
}  // namespace drainsim
