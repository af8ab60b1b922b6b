#include "io/scenario_reader.h"
#include "io/scenario_writer.h"

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "io/json_reader.h"
#include "profiles/profile.h"

namespace drainsim {
namespace {

using json = nlohmann::json;

::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << text << "\" does not contain \"" << part << "\"";
}

// The smallest valid scenario; tests change one thing in it.
json minimal() {
  return json::parse(R"({
    "name": "t",
    "duration": "1m",
    "workload": {
      "arrival": {"kind": "constant", "rate_per_s": 1},
      "job_duration": {"kind": "constant", "value": "1s"}
    },
    "worker": {},
    "platform": {"replicas": 2}
  })");
}

json with(json j, const std::string& pointer, json value) {
  j[json::json_pointer(pointer)] = std::move(value);
  return j;
}

json without(json j, const std::string& pointer) {
  const json::json_pointer p(pointer);
  j[p.parent_pointer()].erase(p.back());
  return j;
}

json with_event(json event, json j = minimal()) {
  j["events"] = json::array({std::move(event)});
  return j;
}

// The loader's message for a bad input, or "" when it loads.
std::string error_of_text(std::string_view text, const std::vector<std::string>& overrides = {}) {
  try {
    parse_scenario(text, "x.json", overrides);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}
std::string error_of(const json& j, const std::vector<std::string>& overrides = {}) {
  return error_of_text(j.dump(), overrides);
}

TEST(ScenarioLoader, ARangeSaysWhetherItsMinimumIsAllowed) {
  EXPECT_EQ((Range{0, 1}).describe(), "a number from 0 to 1");
  EXPECT_EQ((Range{0, 1, true}).describe(), "a number > 0 and <= 1");  // it said "from 0 to 1"
  EXPECT_EQ((Range{1}).describe(), "a number >= 1");
  EXPECT_EQ((Range{0, kInf, true}).describe(), "a number > 0");
}

TEST(ScenarioLoader, AtMost64QueuesPerWorker) {
  std::string queues = "[";
  for (int i = 0; i < 65; ++i) queues += (i ? ", \"q" : "\"q") + std::to_string(i) + "\"";
  queues += "]";
  const std::string text = R"({"name": "q", "duration": "1m",
    "workload": {"arrival": {"kind": "constant", "rate_per_s": 1},
                 "job_duration": {"kind": "constant", "value": "1s"}, "queue": "q0"},
    "worker": {"queues": )" +
                           queues + R"(}, "platform": {}})";
  try {
    parse_scenario(text, "x.json");
    FAIL() << "65 queues were accepted";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("x.json: worker.queues: expected at most 64 queue names"),
              std::string::npos)
        << e.what();
  }
}

TEST(ScenarioLoaderTest, MinimalScenarioLoads) { EXPECT_EQ(error_of(minimal()), ""); }

// --- Malformed inputs: the message names the JSON path and what was expected. ------------

TEST(ScenarioLoaderTest, NotJson) {
  const std::string e = error_of_text("{\n  \"name\": \"t\",\n  ]\n}");
  EXPECT_TRUE(Contains(e, "x.json: not valid JSON: "));
  EXPECT_TRUE(Contains(e, "line 3, column 3"));
}

TEST(ScenarioLoaderTest, EmptyFile) {
  EXPECT_EQ(error_of_text(""), "x.json: empty file, expected a JSON object");
  EXPECT_EQ(error_of_text(" \n\t"), "x.json: empty file, expected a JSON object");
}

TEST(ScenarioLoaderTest, TopLevelMustBeAnObject) {
  EXPECT_EQ(error_of_text("[1, 2]"), "x.json: expected a JSON object at the top level, got [1,2]");
}

TEST(ScenarioLoaderTest, MissingSection) {
  EXPECT_TRUE(Contains(error_of(without(minimal(), "/workload")),
                       "x.json: workload: required field missing, expected an object"));
  EXPECT_TRUE(Contains(error_of(without(minimal(), "/workload/job_duration")),
                       "x.json: workload.job_duration: required field missing"));
  EXPECT_TRUE(Contains(error_of(without(minimal(), "/platform")), "x.json: platform: required"));
  EXPECT_TRUE(Contains(error_of(without(minimal(), "/name")), "x.json: name: required"));
  EXPECT_TRUE(Contains(error_of(without(minimal(), "/duration")),
                       "x.json: duration: required field missing, expected a duration"));
}

TEST(ScenarioLoaderTest, WrongType) {
  EXPECT_EQ(error_of(with(minimal(), "/platform/replicas", "three")),
            "x.json: platform.replicas: expected an integer from 0 to 100000, got \"three\"");
  EXPECT_EQ(error_of(with(minimal(), "/worker/concurrency", 2.5)),
            "x.json: worker.concurrency: expected an integer from 1 to 100000, got 2.5");
  EXPECT_EQ(error_of(with(minimal(), "/worker/concurrency", 3.0)), "");  // a whole number
  EXPECT_EQ(error_of(with(minimal(), "/worker/concurrency", 0)),
            "x.json: worker.concurrency: expected an integer from 1 to 100000, got 0");
  EXPECT_EQ(error_of(with(minimal(), "/platform", 3)),
            "x.json: platform: expected an object, got 3");
  EXPECT_EQ(error_of(with(minimal(), "/workload/classes", json::array({{{"weight", 1}}}))),
            "x.json: workload.classes[0].name: required field missing, expected the class's name");
  EXPECT_EQ(error_of(with(minimal(), "/workload/classes",
                          json::array({{{"name", "a"}}, {{"name", "a"}}}))),
            "x.json: workload.classes[1].name: \"a\" names two classes");
  EXPECT_EQ(
      error_of(with(minimal(), "/workload/classes", json::array({{{"name", "a"}, {"weight", 0}}}))),
      "x.json: workload.classes[0].weight: expected a number > 0, got 0");
  EXPECT_EQ(error_of(with(minimal(), "/workload/classes",
                          json::array({{{"name", "a"}, {"retry", {{"max_attempts", 0}}}}}))),
            "x.json: workload.classes[0].retry.max_attempts: expected an integer >= 1, got 0");
  EXPECT_EQ(error_of(with(minimal(), "/workload/classes", json::array({3}))),
            "x.json: workload.classes[0]: expected an object, got 3");
  EXPECT_EQ(error_of(with(minimal(), "/platform/pid1_shell", "yes")),
            "x.json: platform.pid1_shell: expected true or false, got \"yes\"");
  EXPECT_EQ(error_of(with(with(minimal(), "/platform/pid1_shell", true), "/platform/init", true)),
            "x.json: platform.init: expected false when pid1_shell is true (PID 1 is either a "
            "shell or an init)");
  EXPECT_EQ(error_of(with(minimal(), "/seed", -1)),
            "x.json: seed: expected a non-negative integer, got -1");
  EXPECT_EQ(error_of(with(minimal(), "/worker/options", json::array())),
            "x.json: worker.options: expected an object of profile-specific options, got []");
  EXPECT_EQ(error_of(with(minimal(), "/worker/queues", json::array())),
            "x.json: worker.queues: expected a non-empty list of queue names, got []");
}

TEST(ScenarioLoaderTest, NegativeDuration) {
  // The example from docs/design.md, to the letter.
  EXPECT_EQ(error_of(with(minimal(), "/worker/grace_period", -3)),
            "x.json: worker.grace_period: expected a duration like \"25s\", got -3");
  EXPECT_EQ(error_of(with(minimal(), "/worker/grace_period", "-3s")),
            "x.json: worker.grace_period: expected a duration like \"25s\", got \"-3s\"");
}

TEST(ScenarioLoaderTest, UnparsableDuration) {
  EXPECT_EQ(error_of(with(minimal(), "/backend/heartbeat_timeout", "30 seconds")),
            "x.json: backend.heartbeat_timeout: expected a positive duration like \"25s\", got "
            "\"30 seconds\"");
  EXPECT_EQ(error_of(with(minimal(), "/worker/poll_interval", "0s")),
            "x.json: worker.poll_interval: expected a positive duration like \"25s\", got \"0s\"");
}

TEST(ScenarioLoaderTest, UnknownFieldSuggestsNearestName) {
  EXPECT_EQ(error_of(with(minimal(), "/worker/grace_perod", "10s")),
            "x.json: worker.grace_perod: unknown field, did you mean \"grace_period\"?");
  EXPECT_EQ(error_of(with(minimal(), "/duraton", "1m")),
            "x.json: duraton: unknown field, did you mean \"duration\"?");
  // Nothing close: the known names are listed.
  EXPECT_EQ(error_of(with(minimal(), "/backend/zzz", 1)),
            "x.json: backend.zzz: unknown field, expected one of \"visibility_timeout\", "
            "\"heartbeat_timeout\", \"retry\"");
}

TEST(ScenarioLoaderTest, FieldOfAnotherKind) {
  const json j =
      with(minimal(), "/workload/arrival", {{"kind", "burst"}, {"count", 5}, {"rate_per_s", 1}});
  EXPECT_EQ(error_of(j),
            "x.json: workload.arrival.rate_per_s: unknown field for kind \"burst\", expected one "
            "of \"kind\", \"count\", \"at\"");
}

TEST(ScenarioLoaderTest, UnknownProfile) {
  EXPECT_EQ(
      error_of(with(minimal(), "/worker/profile", "sidekick")),
      "x.json: worker.profile: unknown profile \"sidekick\", expected one of ojs, ojs-go-sdk, "
      "ojs-js-sdk, sidekiq, sidekiq-pro, river, bullmq, oban, faktory, celery, temporal, "
      "graphile-worker, pg-boss, ductwork, naive");
}

TEST(ScenarioLoaderTest, ProfileOptionsAreCheckedAndFilledIn) {
  // Each profile has its own options: unknown names are errors, values are typed, and
  // the ones left out take the profile's defaults.
  const json celery = with(minimal(), "/worker/profile", "celery");
  EXPECT_EQ(parse_scenario(celery.dump(), "x.json").worker.options,
            (ProfileOptions{{"acks_late", false},
                            {"disable_prefetch", false},
                            {"drops_late_fetch", false},
                            {"prefetch_multiplier", 4},
                            {"rabbitmq", false},
                            {"reject_on_worker_lost", false},
                            {"warm_ignores_term", false}}));
  EXPECT_EQ(error_of(with(celery, "/worker/options", {{"acks_lately", true}})),
            "x.json: worker.options.acks_lately: unknown field for profile \"celery\", did you "
            "mean \"acks_late\"?");
  EXPECT_EQ(error_of(with(celery, "/worker/options", {{"acks_late", "yes"}})),
            "x.json: worker.options.acks_late: expected true or false, got \"yes\"");
  EXPECT_EQ(error_of(with(minimal(), "/worker/options", {{"lifeline", true}})),
            "x.json: worker.options.lifeline: profile \"ojs\" has no options");
  const json river = with(with(minimal(), "/worker/profile", "river"), "/worker/options",
                          {{"rescue_stuck_jobs_after", "2h"}});
  const Scenario r = parse_scenario(river.dump(), "x.json");
  EXPECT_EQ(r.worker.options, (ProfileOptions{{"rescue_stuck_jobs_after", 2 * kHour}}));
  EXPECT_EQ(backend_mechanisms(r.worker).rescuer.after, 2 * kHour);
  EXPECT_EQ(error_of(with(river, "/worker/options/rescue_stuck_jobs_after", "0s")),
            "x.json: worker.options.rescue_stuck_jobs_after: expected a positive duration like "
            "\"25s\", got \"0s\"");
}

TEST(ScenarioLoaderTest, ProfileDefaultsFillWorkerAndBackendFields) {
  // A profile supplies worker and backend defaults; the scenario's own values win.
  const json bullmq = with(minimal(), "/worker/profile", "bullmq");
  const Scenario b = parse_scenario(bullmq.dump(), "x.json");
  EXPECT_EQ(b.worker.grace_period, kNever);                     // close() waits forever
  EXPECT_EQ(b.worker.heartbeat_interval, 7500 * kMillisecond);  // lockRenewTime / 2
  EXPECT_EQ(b.backend.visibility_timeout, 30 * kSecond);        // lockDuration
  EXPECT_EQ(b.backend.retry.max_attempts, 1);
  const Scenario set = parse_scenario(bullmq.dump(), "x.json",
                                      {"backend.visibility_timeout=1m", "worker.grace_period=40s"});
  EXPECT_EQ(set.backend.visibility_timeout, kMinute);
  EXPECT_EQ(set.backend.retry.max_attempts, 1);  // the rest of the backend stays the profile's
  EXPECT_EQ(set.worker.grace_period, 40 * kSecond);
  // "forever" round-trips through the effective scenario.
  EXPECT_EQ(scenario_to_json(b)["worker"]["grace_period"], "forever");
  EXPECT_EQ(parse_scenario(scenario_to_json(b).dump(), "x.json").worker.grace_period, kNever);
}

TEST(ScenarioLoaderTest, UnknownEventKind) {
  const std::string e = error_of(with_event({{"at", "10s"}, {"kind", "restart"}}));
  EXPECT_TRUE(Contains(e,
                       "x.json: events[0].kind: unknown event kind, expected one of "
                       "\"rolling_restart\", \"oom_kill\""));
  EXPECT_TRUE(Contains(e, "\"delete_pod\", \"oom_kill_child\", got \"restart\""));
}

TEST(ScenarioLoaderTest, UnknownDistributionKind) {
  EXPECT_TRUE(Contains(error_of(with(minimal(), "/workload/job_duration/kind", "normal")),
                       "x.json: workload.job_duration.kind: unknown distribution kind, expected "
                       "one of \"constant\", \"uniform\", \"exponential\", \"lognormal\""));
  EXPECT_TRUE(Contains(error_of(with(minimal(), "/workload/arrival/kind", "poison")),
                       "workload.arrival.kind: unknown arrival kind, expected one of \"poisson\""));
  EXPECT_TRUE(Contains(error_of(with(minimal(), "/platform/kind", "nomad")),
                       "platform.kind: unknown platform kind, expected one of \"kubernetes\", "
                       "\"docker\", got \"nomad\""));
}

TEST(ScenarioLoaderTest, PercentOver100) {
  EXPECT_EQ(
      error_of(with_event({{"at", "10s"}, {"kind", "rolling_restart"}, {"max_surge", "150%"}})),
      "x.json: events[0].max_surge: expected a pod count from 0 to 100000 or a percentage "
      "like \"25%\" from 0% to 100%, got \"150%\"");
  EXPECT_TRUE(Contains(
      error_of(with_event({{"at", "10s"}, {"kind", "rolling_restart"}, {"max_surge", "05%"}})),
      "events[0].max_surge: expected a pod count"));
  EXPECT_TRUE(Contains(
      error_of(with_event({{"at", "10s"}, {"kind", "rolling_restart"}, {"max_unavailable", -1}})),
      "events[0].max_unavailable: expected a pod count"));
}

TEST(ScenarioLoaderTest, EventAfterDurationPlusSettle) {
  json j = with(minimal(), "/settle", "10m");
  EXPECT_EQ(error_of(with_event({{"at", "11m"}, {"kind", "scale_up"}, {"replicas", 3}}, j)), "");
  EXPECT_EQ(error_of(with_event({{"at", "11m1s"}, {"kind", "scale_up"}, {"replicas", 3}}, j)),
            "x.json: events[0].at: expected a time within duration + settle (11m), got \"11m1s\"");
}

TEST(ScenarioLoaderTest, SurgeAndUnavailableBothZero) {
  const std::string message = "x.json: events[0]: max_surge and max_unavailable may not both be 0";
  for (const auto& [surge, unavailable] :
       std::vector<std::pair<json, json>>{{0, 0}, {"0%", "0%"}, {0, "0%"}}) {
    EXPECT_EQ(error_of(with_event({{"at", "1s"},
                                   {"kind", "rolling_restart"},
                                   {"max_surge", surge},
                                   {"max_unavailable", unavailable}})),
              message);
  }
  EXPECT_EQ(error_of(with_event({{"at", "1s"}, {"kind", "rolling_restart"}, {"max_surge", 0}})),
            "");
}

TEST(ScenarioLoaderTest, BadPodId) {
  for (const json& pod : {json("pod3"), json("pod-"), json("pod-01"), json("pod--1"), json(3)}) {
    EXPECT_EQ(error_of(with_event({{"at", "1s"}, {"kind", "delete_pod"}, {"pod", pod}})),
              "x.json: events[0].pod: expected a pod id like \"pod-0\", got " + pod.dump());
  }
  EXPECT_TRUE(
      Contains(error_of(with_event({{"at", "1s"}, {"kind", "signal"}, {"signal", "SIGTERM"}})),
               "events[0].pod: required field missing"));
}

TEST(ScenarioLoaderTest, NonIncreasingHistogram) {
  const json histogram = {{{"le", "1s"}, {"weight", 3}},
                          {{"le", "10s"}, {"weight", 1}},
                          {{"le", "10s"}, {"weight", 1}}};
  EXPECT_EQ(error_of(with(minimal(), "/workload/job_duration",
                          {{"kind", "empirical"}, {"histogram", histogram}})),
            "x.json: workload.job_duration.histogram[2].le: expected a duration greater than the "
            "previous le (10s), got \"10s\"");
  EXPECT_EQ(error_of(with(minimal(), "/workload/job_duration",
                          {{"kind", "empirical"}, {"histogram", {{{"le", "1s"}, {"weight", 0}}}}})),
            "x.json: workload.job_duration.histogram[0].weight: expected a number > 0, got 0");
}

TEST(ScenarioLoaderTest, FetchLatencyIsADistributionWithItsOwnPath) {
  EXPECT_EQ(error_of(with(minimal(), "/worker/fetch_latency",
                          {{"kind", "lognormal"}, {"median", "2ms"}, {"p99", "1ms"}})),
            "x.json: worker.fetch_latency.p99: expected a duration greater than median (2ms), "
            "got \"1ms\"");
  EXPECT_TRUE(Contains(error_of(with(minimal(), "/worker/fetch_latency", {{"kind", "constant"}})),
                       "worker.fetch_latency.value: required field missing"));
  EXPECT_EQ(error_of(with(minimal(), "/worker/startup", {{"kind", "uniform"}, {"min", "2s"}})),
            "x.json: worker.startup.max: required field missing, expected a duration like \"25s\"");
}

TEST(ScenarioLoaderTest, OomKillChildNeedsAProfileWithPoolChildren) {
  const json event = {{"at", "1s"}, {"kind", "oom_kill_child"}, {"pod", "pod-0"}};
  EXPECT_EQ(error_of(with_event(event)),
            "x.json: events[0].kind: profile \"ojs\" runs its jobs in the worker process, which "
            "an OOM kill takes whole (use \"oom_kill\")");
  EXPECT_TRUE(Contains(error_of(with_event({{"at", "1s"}, {"kind", "oom_kill_child"}})),
                       "events[0].pod: required field missing"));
}

TEST(ScenarioLoaderTest, ASerialClassIsABoolean) {
  const json classes = json::array({{{"name", "emails"}, {"serial", "yes"}}});
  EXPECT_EQ(error_of(with(minimal(), "/workload/classes", classes)),
            "x.json: workload.classes[0].serial: expected true or false, got \"yes\"");
  const json serial = json::array({{{"name", "emails"}, {"serial", true}}, {{"name", "other"}}});
  const Scenario s = parse_scenario(with(minimal(), "/workload/classes", serial).dump(), "x.json");
  EXPECT_EQ(s.backend.class_serial, (std::vector<bool>{true, false}));
}

TEST(ScenarioLoaderTest, ASingletonClassIsABoolean) {
  const json classes = json::array({{{"name", "sync"}, {"singleton", 1}}});
  EXPECT_EQ(error_of(with(minimal(), "/workload/classes", classes)),
            "x.json: workload.classes[0].singleton: expected true or false, got 1");
  const json singleton =
      json::array({{{"name", "other"}}, {{"name", "sync"}, {"singleton", true}}});
  const Scenario s =
      parse_scenario(with(minimal(), "/workload/classes", singleton).dump(), "x.json");
  EXPECT_EQ(s.backend.class_singleton, (std::vector<bool>{false, true}));
  EXPECT_TRUE(s.workload.classes[1].singleton);
}

TEST(ScenarioLoaderTest, EmpiricalNeedsExactlyOneOfValuesAndHistogram) {
  EXPECT_EQ(error_of(with(minimal(), "/workload/job_duration", {{"kind", "empirical"}})),
            "x.json: workload.job_duration: expected exactly one of \"values\" and \"histogram\"");
  EXPECT_EQ(error_of(with(minimal(), "/workload/job_duration",
                          {{"kind", "empirical"}, {"values", json::array()}})),
            "x.json: workload.job_duration.values: expected a non-empty list of durations like "
            "[\"1s\", \"2s\"], got []");
}

TEST(ScenarioLoaderTest, AnImportedScenariosOriginIsKeptAndChecked) {
  const json origin = {{"kind", "kubernetes"},
                       {"files", {"../k8s/app.yaml"}},
                       {"workload", "app"},
                       {"container", "sidekiq"}};
  const Scenario s = parse_scenario(with(minimal(), "/origin", origin).dump(), "x.json");
  ASSERT_TRUE(s.origin.has_value());
  EXPECT_EQ(s.origin->files, (std::vector<std::string>{"../k8s/app.yaml"}));
  EXPECT_EQ(s.origin->container, "sidekiq");
  EXPECT_EQ(scenario_to_json(s)["origin"], origin);
  EXPECT_FALSE(parse_scenario(minimal().dump(), "x.json").origin.has_value());
  EXPECT_FALSE(scenario_to_json(parse_scenario(minimal().dump(), "x.json")).contains("origin"));
  EXPECT_EQ(error_of(with(minimal(), "/origin/kind", "helm")),
            "x.json: origin.kind: expected \"kubernetes\", got \"helm\"");
  EXPECT_EQ(error_of(with(minimal(), "/origin", without(origin, "/container"))),
            "x.json: origin.container: required field missing, expected the worker container's "
            "name");
  EXPECT_EQ(error_of(with(with(minimal(), "/origin", origin), "/origin/files", json::array())),
            "x.json: origin.files: expected a non-empty list of file names, got []");
  EXPECT_EQ(error_of(with(with(minimal(), "/origin", origin), "/origin/files/0", 3)),
            "x.json: origin.files[0]: expected a file name, got 3");
}

TEST(ScenarioLoaderTest, DistributionParameterRelations) {
  EXPECT_EQ(error_of(with(minimal(), "/workload/job_duration",
                          {{"kind", "lognormal"}, {"median", "4s"}, {"p99", "2s"}})),
            "x.json: workload.job_duration.p99: expected a duration greater than median (4s), got "
            "\"2s\"");
  EXPECT_EQ(error_of(with(minimal(), "/workload/job_duration",
                          {{"kind", "uniform"}, {"min", "5s"}, {"max", "1s"}})),
            "x.json: workload.job_duration.max: expected a duration >= min (5s), got \"1s\"");
  EXPECT_EQ(error_of(with(minimal(), "/workload/job_duration",
                          {{"kind", "pareto"}, {"scale", "1s"}, {"shape", 0}})),
            "x.json: workload.job_duration.shape: expected a number > 0, got 0");
  EXPECT_EQ(error_of(with(minimal(), "/workload/arrival",
                          {{"kind", "list"}, {"at", {"1s", "5s", "2s"}}})),
            "x.json: workload.arrival.at[2]: expected a time >= the previous one (5s), got \"2s\"");
  EXPECT_EQ(error_of(with(minimal(), "/workload/arrival",
                          {{"kind", "burst"}, {"count", 3}, {"at", "2m"}})),
            "x.json: workload.arrival.at: expected a time before duration (1m), got \"2m\"");
}

TEST(ScenarioLoaderTest, FractionsAndCoefficients) {
  EXPECT_EQ(error_of(with(minimal(), "/workload/failure_rate", 1.5)),
            "x.json: workload.failure_rate: expected a number from 0 to 1, got 1.5");
  EXPECT_EQ(
      error_of(with(minimal(), "/workload/cancel", {{"cooperative_fraction", -0.1}})),
      "x.json: workload.cancel.cooperative_fraction: expected a number from 0 to 1, got -0.1");
  EXPECT_EQ(error_of(with(minimal(), "/backend/retry", {{"backoff_coefficient", 0.5}})),
            "x.json: backend.retry.backoff_coefficient: expected a number >= 1, got 0.5");
  EXPECT_EQ(error_of(with(minimal(), "/backend/retry", {{"max_attempts", 0}})),
            "x.json: backend.retry.max_attempts: expected an integer >= 1, got 0");
}

TEST(ScenarioLoaderTest, PlatformSpecificFields) {
  const json docker = with(minimal(), "/platform/kind", "docker");
  EXPECT_EQ(error_of(with(docker, "/platform/termination_grace_period", "30s")),
            "x.json: platform.termination_grace_period: a kubernetes field; docker uses "
            "\"stop_grace_period\"");
  EXPECT_EQ(error_of(with(minimal(), "/platform/stop_grace_period", "10s")),
            "x.json: platform.stop_grace_period: a docker field; kubernetes uses "
            "\"termination_grace_period\"");
  EXPECT_EQ(error_of(with(docker, "/platform/pre_stop", {{"kind", "sleep"}, {"duration", "5s"}})),
            "x.json: platform.pre_stop: expected {\"kind\": \"none\"} (docker has no preStop "
            "hooks), got {\"duration\":\"5s\",\"kind\":\"sleep\"}");
  EXPECT_EQ(error_of(with_event({{"at", "1s"}, {"kind", "node_drain"}, {"node", 0}}, docker)),
            "x.json: events[0].kind: node_drain needs platform.kind \"kubernetes\" (docker has no "
            "nodes)");
  EXPECT_EQ(error_of(with_event({{"at", "1s"}, {"kind", "node_drain"}, {"node", 2}},
                                with(minimal(), "/platform/nodes", 2))),
            "x.json: events[0].node: expected an integer from 0 to 1, got 2");
}

TEST(ScenarioLoaderTest, BadNameSignalAndDirective) {
  EXPECT_TRUE(Contains(error_of(with(minimal(), "/name", "a/b")),
                       "x.json: name: expected a name of letters, digits, '-' and '_'"));
  EXPECT_TRUE(Contains(
      error_of(
          with_event({{"at", "1s"}, {"kind", "signal"}, {"pod", "pod-0"}, {"signal", "SIGHUP"}})),
      "x.json: events[0].signal: unknown signal, expected one of \"SIGTERM\""));
  EXPECT_TRUE(
      Contains(error_of(with_event(
                   {{"at", "1s"}, {"kind", "directive"}, {"pod", "pod-0"}, {"state", "running"}})),
               "x.json: events[0].state: unknown directive state, expected one of \"quiet\", "
               "\"terminate\", got \"running\""));
}

TEST(ScenarioLoaderTest, ErrorPathNamesTheItem) {
  json j = minimal();
  j["events"] = {{{"at", "1s"}, {"kind", "scale_up"}, {"replicas", 3}},
                 {{"at", "2s"}, {"kind", "scale_down"}, {"replicas", -1}}};
  EXPECT_EQ(error_of(j),
            "x.json: events[1].replicas: expected an integer from 0 to 100000, got -1");
}

// --- Overrides ------------------------------------------------------------------------------

TEST(ScenarioLoaderTest, OverrideToUnknownPathSaysItCameFromSet) {
  EXPECT_EQ(error_of(minimal(), {"worker.grace_perod=1s"}),
            "x.json (--set worker.grace_perod=1s): worker.grace_perod: unknown field, did you mean "
            "\"grace_period\"?");
  EXPECT_EQ(
      error_of(minimal(), {"worker.grace_period=soon"}),
      "x.json (--set worker.grace_period=soon): worker.grace_period: expected a duration like "
      "\"25s\", got \"soon\"");
  // An error elsewhere does not blame the override.
  EXPECT_EQ(error_of(with(minimal(), "/platform/nodes", 0), {"worker.grace_period=1s"}),
            "x.json: platform.nodes: expected an integer from 1 to 100000, got 0");
}

TEST(ScenarioLoaderTest, MalformedOverride) {
  EXPECT_EQ(error_of(minimal(), {"worker.grace_period"}),
            "--set worker.grace_period: expected PATH=VALUE");
  EXPECT_EQ(error_of(minimal(), {"=3"}), "--set =3: expected PATH=VALUE");
  EXPECT_EQ(error_of(minimal(), {"worker..x=3"}), "--set worker..x=3: expected PATH=VALUE");
  EXPECT_EQ(error_of(minimal(), {"events[0].at=1s"}),
            "x.json (--set events[0].at=1s): events[0]: no such item to set, events has 0");
}

TEST(ScenarioLoaderTest, OverridesSetNumbersDurationsAndItems) {
  json j = with_event({{"at", "10s"}, {"kind", "scale_up"}, {"replicas", 3}});
  const Scenario s = parse_scenario(
      j.dump(), "x.json",
      {"platform.replicas=3", "worker.grace_period=10s", "backend.retry.jitter=false",
       "events[0].at=20s", "workload.job_duration={\"kind\":\"exponential\",\"mean\":\"2s\"}",
       "worker.profile=celery", "worker.options.acks_late=true", "platform.replicas=4"});
  EXPECT_EQ(s.platform.replicas, 4);  // the last one wins
  EXPECT_EQ(s.worker.grace_period, 10 * kSecond);
  EXPECT_FALSE(s.backend.retry.jitter);  // "backend" and "retry" were created
  EXPECT_EQ(s.events.at(0).at, 20 * kSecond);
  EXPECT_EQ(s.workload.job_duration.kind, DurationDistribution::Kind::kExponential);
  EXPECT_EQ(s.workload.job_duration.mean, 2 * kSecond);
  EXPECT_EQ(s.worker.options, (ProfileOptions{{"acks_late", true},
                                              {"disable_prefetch", false},
                                              {"drops_late_fetch", false},
                                              {"prefetch_multiplier", 4},
                                              {"rabbitmq", false},
                                              {"reject_on_worker_lost", false},
                                              {"warm_ignores_term", false}}));
}

// --- Defaults and accepted forms --------------------------------------------------------------

TEST(ScenarioLoaderTest, DefaultsApplied) {
  const Scenario s = parse_scenario(minimal().dump(), "x.json");
  // Worker defaults come from the "ojs" profile.
  EXPECT_EQ(s.worker.profile, "ojs");
  EXPECT_EQ(s.worker.grace_period, 30 * kSecond);
  EXPECT_EQ(s.worker.concurrency, 10);
  EXPECT_EQ(s.worker.heartbeat_interval, 5 * kSecond);
  EXPECT_EQ(s.worker.poll_interval, kSecond);
  EXPECT_EQ(s.worker.queues, std::vector<std::string>{"default"});
  EXPECT_TRUE(s.worker.options.empty());
  EXPECT_EQ(s.description, "");
  EXPECT_EQ(s.seed, 1u);
  EXPECT_EQ(s.settle, kHour);
  EXPECT_EQ(s.workload.cancel.cooperative_fraction, 1.0);
  EXPECT_EQ(s.workload.cancel.latency, 100 * kMillisecond);
  EXPECT_FALSE(s.workload.checkpointing);
  EXPECT_EQ(s.workload.checkpoint_interval, 10 * kSecond);
  EXPECT_EQ(s.workload.failure_rate, 0.0);
  EXPECT_EQ(s.workload.queue, "default");
  EXPECT_EQ(s.backend.visibility_timeout, 30 * kMinute);
  EXPECT_EQ(s.backend.heartbeat_timeout, 30 * kSecond);
  EXPECT_EQ(s.backend.retry.max_attempts, 3);
  EXPECT_EQ(s.backend.retry.initial_interval, kSecond);
  EXPECT_EQ(s.backend.retry.backoff_coefficient, 2.0);
  EXPECT_EQ(s.backend.retry.max_interval, 5 * kMinute);
  EXPECT_TRUE(s.backend.retry.jitter);
  EXPECT_EQ(s.platform.kind, PlatformConfig::Kind::kKubernetes);
  EXPECT_EQ(s.platform.nodes, 1);
  EXPECT_EQ(s.platform.termination_grace_period, 30 * kSecond);
  EXPECT_EQ(s.platform.pre_stop.kind, PreStop::Kind::kNone);
  EXPECT_EQ(s.platform.pod_start_delay, 10 * kSecond);
  EXPECT_EQ(s.platform.restart_delay, 10 * kSecond);
  EXPECT_FALSE(s.platform.pid1_shell);
  EXPECT_TRUE(s.events.empty());

  const Scenario r =
      parse_scenario(with_event({{"at", "1s"}, {"kind", "rolling_restart"}}).dump(), "x.json");
  EXPECT_TRUE(r.events[0].max_surge.percent);
  EXPECT_EQ(r.events[0].max_surge.value, 25);
  EXPECT_EQ(r.events[0].max_unavailable.value, 25);
  const Scenario o =
      parse_scenario(with_event({{"at", "1s"}, {"kind", "oom_kill"}}).dump(), "x.json");
  EXPECT_EQ(o.events[0].count, 1);
  EXPECT_EQ(o.events[0].pod, -1);
  const Scenario w = parse_scenario(
      with(minimal(), "/platform/pre_stop", {{"kind", "quiet_then_wait"}}).dump(), "x.json");
  EXPECT_EQ(w.platform.pre_stop.poll, 10 * kSecond);
  EXPECT_EQ(w.platform.pre_stop.timeout, 2 * kMinute);
}

TEST(ScenarioLoaderTest, ScenarioFieldsOverrideProfileDefaults) {
  const Scenario s = parse_scenario(
      with(with(minimal(), "/worker/grace_period", "25s"), "/worker/concurrency", 4).dump(),
      "x.json");
  EXPECT_EQ(s.worker.grace_period, 25 * kSecond);
  EXPECT_EQ(s.worker.concurrency, 4);
  EXPECT_EQ(s.worker.heartbeat_interval, find_profile("ojs")->worker.heartbeat_interval);
}

TEST(ScenarioLoaderTest, CommentsAccepted) {
  const std::string text = R"(// a scenario
  {
    "name": "c", /* block comment */
    "duration": "1m",  // arrivals stop here
    "workload": {"arrival": {"kind": "burst", "count": 4},
                 "job_duration": {"kind": "sequence", "values": ["1s", "2s"]}},
    "worker": {}, "platform": {}
  })";
  const Scenario s = parse_scenario(text, "c.json");
  EXPECT_EQ(s.workload.arrival.count, 4);
  EXPECT_EQ(s.workload.arrival.at, 0);
  EXPECT_EQ(s.workload.job_duration.values, (std::vector<Duration>{kSecond, 2 * kSecond}));
}

TEST(ScenarioLoaderTest, EventsSortedStablyAndSignalsByShortName) {
  json j = minimal();
  j["events"] = {{{"at", "30s"}, {"kind", "signal"}, {"pod", "pod-2"}, {"signal", "TSTP"}},
                 {{"at", "10s"}, {"kind", "signal"}, {"pod", "pod-1"}, {"signal", "SIGTERM"}},
                 {{"at", "30s"}, {"kind", "signal"}, {"pod", "pod-12"}, {"signal", "INT"}}};
  const Scenario s = parse_scenario(j.dump(), "x.json");
  ASSERT_EQ(s.events.size(), 3u);
  EXPECT_EQ(s.events[0].pod, 1);
  EXPECT_EQ(s.events[0].signal, Signal::kTerm);
  EXPECT_EQ(s.events[1].pod, 2);
  EXPECT_EQ(s.events[1].signal, Signal::kTstp);
  EXPECT_EQ(s.events[2].pod, 12);
  EXPECT_EQ(s.events[2].signal, Signal::kInt);
}

TEST(ScenarioTest, AmountResolvesWithKubernetesRounding) {
  const Amount quarter{true, 25};
  EXPECT_EQ(quarter.resolve(10, true), 3);
  EXPECT_EQ(quarter.resolve(10, false), 2);
  EXPECT_EQ(quarter.resolve(4, true), 1);
  EXPECT_EQ(quarter.resolve(4, false), 1);
  EXPECT_EQ(quarter.resolve(3, false), 0);
  EXPECT_EQ((Amount{true, 100}).resolve(7, false), 7);
  EXPECT_EQ((Amount{true, 0}).resolve(7, true), 0);
  EXPECT_EQ((Amount{false, 2}).resolve(100, true), 2);
}

TEST(ScenarioTest, Names) {
  EXPECT_STREQ(to_string(Signal::kTerm), "SIGTERM");
  EXPECT_STREQ(to_string(Signal::kInt), "SIGINT");
  EXPECT_STREQ(to_string(Signal::kTstp), "SIGTSTP");
  EXPECT_STREQ(to_string(Signal::kCont), "SIGCONT");
  EXPECT_STREQ(to_string(Signal::kKill), "SIGKILL");
  EXPECT_STREQ(to_string(Signal::kQuit), "SIGQUIT");
  EXPECT_STREQ(to_string(Directive::kRunning), "running");
  EXPECT_STREQ(to_string(Directive::kQuiet), "quiet");
  EXPECT_STREQ(to_string(Directive::kTerminate), "terminate");
}

// --- Writing ----------------------------------------------------------------------------------

// A scenario spelled out in full, in the canonical form: scenario_to_json gives it back as is.
TEST(ScenarioLoaderTest, FullScenarioWritesBackIdentically) {
  const json full = json::parse(R"({
    "name": "full_1", "description": "every field", "seed": 18446744073709551615,
    "duration": "10m", "settle": "1h30m",
    "workload": {
      "arrival": {"kind": "list", "at": ["0s", "1.5s", "1.5s", "2m"]},
      "job_duration": {"kind": "empirical",
                       "histogram": [{"le": "1s", "weight": 0.5}, {"le": "1m", "weight": 2.0}]},
      "cancel": {"cooperative_fraction": 0.25, "latency": "250ms"},
      "checkpointing": true, "checkpoint_interval": "5s", "failure_rate": 0.01, "queue": "q2",
      "classes": [
        {"name": "fail-fast", "weight": 1.0, "job_duration": {"kind": "constant", "value": "2s"},
         "failure_rate": 0.5,
         "retry": {"max_attempts": 1, "initial_interval": "2s", "backoff_coefficient": 1.5,
                   "max_interval": "1m", "jitter": false, "schedule": "exponential"},
         "serial": false, "singleton": true},
        {"name": "patient", "weight": 3.0, "job_duration": {"kind": "constant", "value": "1m"},
         "failure_rate": 0.01,
         "retry": {"max_attempts": 25, "initial_interval": "2s", "backoff_coefficient": 1.5,
                   "max_interval": "1m", "jitter": false, "schedule": "sidekiq"},
         "serial": true, "singleton": false}]
    },
    "backend": {"visibility_timeout": "1h", "heartbeat_timeout": "15s",
                "retry": {"max_attempts": 5, "initial_interval": "2s", "backoff_coefficient": 1.5,
                          "max_interval": "1m", "jitter": false, "schedule": "exponential"}},
    "worker": {"profile": "ojs", "concurrency": 3, "grace_period": "0s",
               "heartbeat_interval": "2s", "poll_interval": "500ms",
               "fetch_latency": {"kind": "lognormal", "median": "300us", "p99": "2ms"},
               "startup": {"kind": "uniform", "min": "1s", "max": "1.8s"},
               "queues": ["q1", "q2"],
               "options": {}},
    "platform": {"kind": "kubernetes", "replicas": 5, "nodes": 2,
                 "termination_grace_period": "1m", "pre_stop": {"kind": "quiet_then_sleep", "duration": "5s"},
                 "pod_start_delay": "3s", "restart_delay": "0s", "pid1_shell": true,
                 "init": false},
    "events": [
      {"at": "0s", "kind": "rolling_restart", "max_surge": 1, "max_unavailable": "0%"},
      {"at": "1m", "kind": "oom_kill", "count": 2},
      {"at": "1m", "kind": "oom_kill", "count": 1, "pod": "pod-3"},
      {"at": "2m", "kind": "scale_down", "replicas": 0},
      {"at": "3m", "kind": "scale_up", "replicas": 4},
      {"at": "4m", "kind": "signal", "pod": "pod-0", "signal": "SIGQUIT"},
      {"at": "5m", "kind": "node_drain", "node": 1},
      {"at": "6m", "kind": "directive", "pod": "pod-1", "state": "terminate"},
      {"at": "1h40m", "kind": "delete_pod", "pod": "pod-7"}
    ]
  })");
  EXPECT_EQ(scenario_to_json(parse_scenario(full.dump(), "full.json")), full);

  json docker = full;
  docker["platform"] = {{"kind", "docker"},
                        {"replicas", 2},
                        {"nodes", 1},
                        {"stop_grace_period", "7s"},
                        {"pre_stop", {{"kind", "none"}}},
                        {"pod_start_delay", "1s"},
                        {"restart_delay", "1s"},
                        {"pid1_shell", false},
                        {"init", true}};
  docker["events"].erase(6);  // node_drain
  docker["workload"]["classes"] = json::array();
  docker["workload"]["job_duration"] = {{"kind", "pareto"}, {"scale", "100ms"}, {"shape", 1.16}};
  docker["workload"]["arrival"] = {{"kind", "burst"}, {"count", 7}, {"at", "1m"}};
  EXPECT_EQ(scenario_to_json(parse_scenario(docker.dump(), "docker.json")), docker);
}

std::vector<std::filesystem::path> shipped_scenarios() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(
           std::filesystem::path(DRAINSIM_SOURCE_DIR) / "scenarios")) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(ScenarioLoaderTest, ShippedScenariosLoadAndRoundTrip) {
  const auto files = shipped_scenarios();
  EXPECT_GE(files.size(), 9u);
  for (const auto& file : files) {
    SCOPED_TRACE(file.string());
    Scenario s;
    try {
      s = load_scenario_file(file.string());
    } catch (const ScenarioError& e) {
      ADD_FAILURE() << e.what();
      continue;
    }
    EXPECT_EQ(s.name, file.stem().string());
    EXPECT_FALSE(s.description.empty());
    EXPECT_EQ(s.seed, 1u);
    const json written = scenario_to_json(s);
    const Scenario again = parse_scenario(written.dump(2), "written");
    EXPECT_EQ(scenario_to_json(again), written);
    // The written form says what was read, not only something self-consistent.
    EXPECT_EQ(again.duration, s.duration);
    EXPECT_EQ(again.platform.replicas, s.platform.replicas);
    EXPECT_EQ(again.events.size(), s.events.size());
  }
}

TEST(ScenarioLoaderTest, DefaultScenarioIsAsDocumented) {
  const Scenario s =
      load_scenario_file(std::string(DRAINSIM_SOURCE_DIR) + "/scenarios/rolling-restart.json");
  EXPECT_EQ(s.platform.replicas, 6);
  EXPECT_EQ(s.worker.concurrency, 10);
  EXPECT_EQ(s.worker.grace_period, 25 * kSecond);
  EXPECT_EQ(s.platform.termination_grace_period, 30 * kSecond);
  EXPECT_EQ(s.duration, 10 * kMinute);
  ASSERT_EQ(s.events.size(), 1u);
  EXPECT_EQ(s.events[0].at, 3 * kMinute);
  EXPECT_EQ(s.events[0].max_surge.resolve(6, true), 2);
  EXPECT_EQ(s.events[0].max_unavailable.resolve(6, false), 0);
}

TEST(ScenarioLoaderTest, UnreadableFile) {
  try {
    load_scenario_file("/nonexistent/x.json");
    FAIL() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_TRUE(Contains(std::string(e.what()), "/nonexistent/x.json: cannot read"));
  }
}

}  // namespace
}  // namespace drainsim

namespace drainsim {
namespace {

// The whole-document reader every JSON input goes through (io/json_reader.h).
std::string parse_error_of(std::string_view text, bool comments = false) {
  try {
    parse_json(text, "x.json", comments);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ParseJson, RefusesWhatNlohmannWouldIgnoreOrThrow) {
  // 1e400 is no double: nlohmann threw out_of_range (uncaught). Column of its first digit.
  EXPECT_EQ(parse_error_of("{\"a\": [1,\n  1e400]}"),
            "x.json: not valid JSON: number overflow at line 2, column 3");
  EXPECT_EQ(parse_error_of("-1e400"),
            "x.json: not valid JSON: number overflow at line 1, column 1");
  // A NUL byte ended the text: "{}\0garbage" was {}.
  EXPECT_EQ(parse_error_of(std::string_view("{}\n\0{{", 5)),
            "x.json: not valid JSON: a NUL byte at line 2, column 1");
  // 100 levels are read; the 101st is refused where it opens.
  EXPECT_EQ(parse_error_of(std::string(100, '[') + std::string(100, ']')), "");
  EXPECT_EQ(parse_error_of(std::string(101, '[') + std::string(101, ']')),
            "x.json: not valid JSON: nested more than 100 levels deep at line 1, column 101");
  // Brackets in strings do not count; the object is level 1, so the 100th bracket after its
  // 18 characters opens level 101, at column 18 + 100.
  EXPECT_EQ(parse_error_of("{\"a\": \"[[[\", \"b\": " + std::string(200000, '[')),
            "x.json: not valid JSON: nested more than 100 levels deep at line 1, column 118");
  // Brackets in comments do not count when comments are allowed.
  EXPECT_EQ(parse_error_of("// " + std::string(300, '[') + "\n[1]", true), "");
  // nlohmann's own message, its quote of a long token cut.
  const std::string long_token = "\"" + std::string(100000, 'x');
  const std::string e = parse_error_of(long_token);
  EXPECT_EQ(
      e.rfind("x.json: not valid JSON: parse error at line 1, column 100002: syntax error", 0), 0u)
      << e.substr(0, 200);
  EXPECT_LT(e.size(), 300u);
}

TEST(Show, PrintsABoundedPrefixOfAnyValue) {
  EXPECT_EQ(show(json::parse(R"({"a":[1,2.5,"x"],"b":null})")), R"({"a":[1,2.5,"x"],"b":null})");
  json wide = json::array();
  for (int i = 0; i < 100000; ++i) wide.push_back(i);
  // 57 characters ("[0," to "21,") and "...".
  EXPECT_EQ(show(wide), "[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,...");
  EXPECT_EQ(show(json(std::string(1000000, 'y'))), "\"" + std::string(56, 'y') + "...");
  // Built by hand 200,000 deep (a parse would refuse it): only 60 levels are visited.
  json deep = json::array();
  for (int i = 0; i < 200000; ++i) deep = json::array({std::move(deep)});
  EXPECT_EQ(show(deep), std::string(57, '[') + "...");
}

}  // namespace
}  // namespace drainsim
