// The settings snippet in each system's own terms: the lines a user pastes, with the numbers
// worked out by hand (a 25 s grace is Sidekiq's -t 25, Oban's 25_000 ms, River's
// SoftStopTimeout of 25 * time.Second; a platform grace of 45.5 s is
// terminationGracePeriodSeconds 46), the preStop hook of each kind, and the Compose service.
#include "analysis/settings_snippet.h"

#include <gtest/gtest.h>

#include <string>

#include "analysis/tune.h"
#include "io/scenario_reader.h"
#include "testing/test_cli.h"
#include "testing/test_scenarios.h"

namespace drainsim {
namespace {

// One pod of `profile`; `worker` and `platform` are spliced into those objects.
Scenario scenario(const std::string& profile, const std::string& worker = "",
                  const std::string& platform = "") {
  return parse_scenario(
      test::one_pod("1s", R"(, "profile": ")" + profile + "\"" + worker, platform), "test");
}

const PreStop kNoPreStop;

PreStop quiet_then_sleep(Duration d) {
  PreStop p;
  p.kind = PreStop::Kind::kQuietThenSleep;
  p.duration = d;
  return p;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The part of the snippet from the section whose header starts with `header` to the next.
std::string section(const std::string& text, const std::string& header) {
  const std::size_t at = text.find("# --- " + header);
  if (at == std::string::npos) return {};
  const std::size_t next = text.find("\n# --- ", at);
  return text.substr(at, next == std::string::npos ? std::string::npos : next + 1 - at);
}

const Duration k25 = 25 * kSecond;
const Duration k45_5 = 45500 * kMillisecond;

TEST(SettingsSnippet, SidekiqGetsItsTimeoutInWholeSecondsAndNoOjsVariable) {
  // Grace 25 s, preStop quiet_then_sleep 3 s, platform grace 3 + 25 + 17.5 = 45.5 s.
  const std::string out =
      settings_snippet(scenario("sidekiq"), k25, k45_5, quiet_then_sleep(3 * kSecond));
  EXPECT_TRUE(has(out, "-t 25 in the command below, or `:timeout: 25`")) << out;
  const std::string k8s = section(out, "Kubernetes");
  EXPECT_TRUE(has(k8s,
                  "  # 45.5s rounded up: Kubernetes takes whole seconds\n"
                  "  terminationGracePeriodSeconds: 46\n"))
      << k8s;
  EXPECT_TRUE(has(k8s, R"(      command: ["bundle", "exec", "sidekiq", "-t", "25"])")) << k8s;
  EXPECT_TRUE(has(k8s,
                  "      lifecycle:\n        preStop:\n          exec:\n"
                  R"(            command: ["sh", "-c", "kill -TSTP 1 && sleep 3"])"))
      << k8s;
  const std::string compose = section(out, "Docker Compose equivalent");
  EXPECT_TRUE(has(compose, R"(    command: ["bundle", "exec", "sidekiq", "-t", "25"])")) << out;
  EXPECT_TRUE(has(compose, "    stop_grace_period: 46s\n")) << compose;
  EXPECT_TRUE(has(compose, "keeps the pod's\n# 46s, so the preStop's 3s go to the worker"));
  EXPECT_TRUE(has(compose, "Without the preStop's quiet")) << compose;
  EXPECT_FALSE(has(out, "OJS_SHUTDOWN_GRACE_PERIOD")) << out;
  EXPECT_FALSE(has(out, "super_fetch")) << out;
}

TEST(SettingsSnippet, SidekiqRoundsAGraceUpToWholeSecondsAndTakesNoTimeoutBelowOne) {
  std::string out = settings_snippet(scenario("sidekiq"), 25500 * kMillisecond, k45_5, kNoPreStop);
  EXPECT_TRUE(has(out, R"(["bundle", "exec", "sidekiq", "-t", "26"])")) << out;
  EXPECT_TRUE(has(out, "# 25.5s rounded up: Sidekiq takes whole seconds")) << out;
  out = settings_snippet(scenario("sidekiq"), 0, 10 * kSecond, kNoPreStop);
  EXPECT_TRUE(has(out, R"("-t", "1"])")) << out;
  EXPECT_TRUE(has(out, "refuses a timeout below 1 second")) << out;
  // No "forever" for -t: 1 s past the platform's grace of 45.5 s, rounded up.
  out = settings_snippet(scenario("sidekiq"), kNever, k45_5, kNoPreStop);
  EXPECT_TRUE(has(out, R"("-t", "47"])")) << out;
  EXPECT_TRUE(has(out, "The grace is \"forever\", for which Sidekiq has no value")) << out;
}

TEST(SettingsSnippet, SidekiqProAddsSuperFetch) {
  const std::string out = settings_snippet(scenario("sidekiq-pro"), k25, 35 * kSecond, kNoPreStop);
  EXPECT_TRUE(has(out, "  config.super_fetch!\n")) << out;
  EXPECT_TRUE(has(out, R"("-t", "25"])")) << out;
}

TEST(SettingsSnippet, RiverLimitsItsSoftStopWithSoftStopTimeout) {
  std::string out = settings_snippet(scenario("river"), k25, 35 * kSecond, kNoPreStop);
  EXPECT_TRUE(has(out, "\tSoftStopTimeout: 25 * time.Second,\n")) << out;
  EXPECT_TRUE(has(out, "riverClient.Start(ctx)")) << out;
  EXPECT_TRUE(has(out, "context.WithTimeout of 25s")) << out;  // before River 0.38
  // Forever: no SoftStopTimeout, and TERM must call Stop (a cancelled Start context would be
  // a hard stop).
  out = settings_snippet(scenario("river"), kNever, 35 * kSecond, kNoPreStop);
  EXPECT_FALSE(has(out, "SoftStopTimeout:")) << out;
  EXPECT_TRUE(has(out, "riverClient.Stop(context.Background())")) << out;
  out = settings_snippet(scenario("river"), 1500 * kMillisecond, 35 * kSecond, kNoPreStop);
  EXPECT_TRUE(has(out, "\tSoftStopTimeout: 1500 * time.Millisecond,\n")) << out;
}

TEST(SettingsSnippet, AQuietPreStopForASystemWithNoQuietSignalOnlySleeps) {
  const std::string out =
      settings_snippet(scenario("river"), k25, 38 * kSecond, quiet_then_sleep(3 * kSecond));
  EXPECT_FALSE(has(out, "kill -TSTP")) << out;
  EXPECT_TRUE(has(out, "River has no quiet signal")) << out;
  EXPECT_TRUE(has(out, R"(            command: ["sleep", "3"])")) << out;
  EXPECT_FALSE(has(out, "Without the preStop's quiet")) << out;
}

TEST(SettingsSnippet, CeleryUsesTheSoftShutdownStartedByTerm) {
  std::string out = settings_snippet(scenario("celery"), k25, 35 * kSecond, kNoPreStop);
  EXPECT_TRUE(has(out, "\nworker_soft_shutdown_timeout = 25.0\n")) << out;
  EXPECT_TRUE(has(section(out, "Kubernetes"),
                  "        - name: REMAP_SIGTERM\n          value: \"SIGQUIT\"\n"))
      << out;
  EXPECT_TRUE(has(section(out, "Docker Compose"), "      REMAP_SIGTERM: \"SIGQUIT\"\n")) << out;
  EXPECT_TRUE(has(out, R"(command: ["celery", "-A", "proj", "worker"])")) << out;
  out = settings_snippet(scenario("celery"), 25500 * kMillisecond, 35 * kSecond, kNoPreStop);
  EXPECT_TRUE(has(out, "\nworker_soft_shutdown_timeout = 25.5\n")) << out;
  // Forever: the warm shutdown, nothing to set.
  out = settings_snippet(scenario("celery"), kNever, 35 * kSecond, kNoPreStop);
  EXPECT_FALSE(has(out, "REMAP_SIGTERM")) << out;
  EXPECT_FALSE(has(out, "worker_soft_shutdown_timeout =")) << out;
  EXPECT_TRUE(has(out, "nothing to set")) << out;
}

TEST(SettingsSnippet, ObanTakesMillisecondsAndItsLifelinePlugin) {
  std::string out = settings_snippet(scenario("oban"), k25, 35 * kSecond, kNoPreStop);
  EXPECT_TRUE(has(out, "config :my_app, Oban,\n  shutdown_grace_period: 25_000\n")) << out;
  out = settings_snippet(scenario("oban", R"(, "options": {"lifeline": true})"), k25, 35 * kSecond,
                         kNoPreStop);
  EXPECT_TRUE(has(out, "  plugins: [{Oban.Plugins.Lifeline, rescue_after: 3_600_000}],\n")) << out;
}

TEST(SettingsSnippet, TemporalGoSdkOrPythonAndTypeScriptWhenTheyWaitForActivities) {
  std::string out = settings_snippet(scenario("temporal"), k25, 35 * kSecond, kNoPreStop);
  EXPECT_TRUE(has(out, "\tWorkerStopTimeout: 25 * time.Second,\n")) << out;
  EXPECT_TRUE(has(out, "w.Run(worker.InterruptCh())")) << out;
  out = settings_snippet(scenario("temporal", R"(, "options": {"waits_for_activities": true})"),
                         k25, 35 * kSecond, kNoPreStop);
  EXPECT_FALSE(has(out, "WorkerStopTimeout")) << out;
  EXPECT_TRUE(has(out, "graceful_shutdown_timeout=timedelta(seconds=25.0)")) << out;
  EXPECT_TRUE(has(out, "  shutdownGraceTime: 25_000,\n")) << out;
}

TEST(SettingsSnippet, OjsProfilesGetTheSpecVariableOrTheirSdksOption) {
  std::string out =
      settings_snippet(scenario("ojs"), 29 * kSecond, 42 * kSecond, quiet_then_sleep(3 * kSecond));
  EXPECT_TRUE(has(section(out, "Kubernetes"),
                  "        - name: OJS_SHUTDOWN_GRACE_PERIOD\n          value: \"29s\"\n"))
      << out;
  EXPECT_TRUE(has(section(out, "Docker Compose"), "      OJS_SHUTDOWN_GRACE_PERIOD: \"29s\"\n"));
  EXPECT_TRUE(has(out, "kill -TSTP 1 && sleep 3")) << out;
  out = settings_snippet(scenario("ojs-go-sdk"), k25, 35 * kSecond, kNoPreStop);
  EXPECT_TRUE(has(out, "ojs.NewWorker(url, ojs.WithGracePeriod(25 * time.Second))")) << out;
  EXPECT_FALSE(has(out, "OJS_SHUTDOWN_GRACE_PERIOD")) << out;
  out = settings_snippet(scenario("ojs-js-sdk"), k25, 35 * kSecond, kNoPreStop);
  EXPECT_TRUE(has(out, "new OJSWorker({ url, shutdownTimeout: 25_000 })")) << out;
}

TEST(SettingsSnippet, NodeSystemsWireTheirOwnTimeouts) {
  // BullMQ's close() has none: the app's timer exits at 25 s.
  std::string out = settings_snippet(scenario("bullmq"), k25, 35 * kSecond, kNoPreStop);
  EXPECT_TRUE(has(out, "  setTimeout(() => process.exit(1), 25_000);\n  await worker.close();"))
      << out;
  out = settings_snippet(scenario("bullmq"), kNever, 35 * kSecond, kNoPreStop);
  EXPECT_FALSE(has(out, "setTimeout")) << out;
  EXPECT_TRUE(has(out, "await worker.close();")) << out;
  out = settings_snippet(scenario("pg-boss"), k25, 35 * kSecond, kNoPreStop);
  EXPECT_TRUE(has(out,
                  "await boss.stop({ graceful: true, timeout: 25_000 });\n"
                  "  process.exit(0);\n"))
      << out;
  EXPECT_TRUE(has(out, "# At the timeout pg-boss 10+ fails the jobs still active.\n")) << out;
  // pg-boss 9's stop() returns at once: the exit waits for its 'stopped' event, or the
  // running jobs would die with the process.
  out = settings_snippet(scenario("pg-boss", R"(, "options": {"fails_active_at_stop": false})"),
                         k25, 35 * kSecond, kNoPreStop);
  EXPECT_TRUE(
      has(out, "# At the timeout pg-boss 9 leaves the jobs still active until they expire.\n"))
      << out;
  EXPECT_TRUE(has(out, "boss.on('stopped', () => process.exit(0));\n")) << out;
  EXPECT_TRUE(has(out, "await boss.stop({ graceful: true, timeout: 25_000 });\n};\n")) << out;
  // graphile-worker: runner.kill() turns forceful 0.5 s after the call, so it is made at 24.5 s.
  out = settings_snippet(scenario("graphile-worker"), k25, 35 * kSecond, kNoPreStop);
  EXPECT_TRUE(has(out, "process.exit(1)), 24_500);")) << out;
  EXPECT_TRUE(has(out, "noHandleSignals: true")) << out;
  out = settings_snippet(scenario("graphile-worker"), kNever, 35 * kSecond, kNoPreStop);
  EXPECT_TRUE(has(out, "nothing to set")) << out;
}

TEST(SettingsSnippet, FaktoryRubyOrGoWorker) {
  std::string out = settings_snippet(scenario("faktory"), k25, 35 * kSecond, kNoPreStop);
  EXPECT_TRUE(has(out, R"(command: ["bundle", "exec", "faktory-worker", "-t", "25"])")) << out;
  out = settings_snippet(scenario("faktory", R"(, "options": {"go_worker": true})"), k25,
                         35 * kSecond, kNoPreStop);
  EXPECT_TRUE(has(out, "mgr.ShutdownTimeout = 25 * time.Second\n")) << out;
}

TEST(SettingsSnippet, DuctworksSupervisorOutlastsItsJobWorkerButNotThePlatform) {
  // Job worker 25 s; the supervisor 10 s more would reach the platform's SIGKILL at 35 s,
  // so 34.
  const std::string out = settings_snippet(scenario("ductwork"), k25, 35 * kSecond, kNoPreStop);
  EXPECT_TRUE(has(out,
                  "  job_worker:\n    shutdown_timeout: 25\n"
                  "  supervisor:\n    shutdown_timeout: 34\n"))
      << out;
}

TEST(SettingsSnippet, EachPreStopKindGetsItsHook) {
  PreStop sleep;
  sleep.kind = PreStop::Kind::kSleep;
  sleep.duration = 5 * kSecond;
  std::string out = settings_snippet(scenario("ojs"), k25, 40 * kSecond, sleep);
  EXPECT_TRUE(has(out, "          exec:\n            command: [\"sleep\", \"5\"]\n")) << out;
  EXPECT_TRUE(has(out, "the preStop's 5s go to the worker")) << out;
  EXPECT_FALSE(has(out, "Without the preStop's quiet")) << out;

  // quiet_then_wait (poll 10 s, timeout 2 m) for Sidekiq: TSTP, then its process title.
  PreStop wait;
  wait.kind = PreStop::Kind::kQuietThenWait;
  out = settings_snippet(scenario("sidekiq"), k25, 155 * kSecond, wait);
  const std::string k8s = section(out, "Kubernetes");
  EXPECT_TRUE(has(k8s,
                  "            command:\n              - sh\n              - -c\n"
                  "              - |\n"))
      << k8s;
  EXPECT_TRUE(has(k8s, "                pid=1\n")) << k8s;
  EXPECT_TRUE(has(k8s, "                kill -TSTP \"$pid\"\n")) << k8s;
  EXPECT_TRUE(has(k8s, "                end=$(( $(date +%s) + 120 ))\n")) << k8s;
  EXPECT_TRUE(has(k8s, "                  sleep $(( left < 10 ? left : 10 ))\n")) << k8s;
  EXPECT_TRUE(has(k8s, R"(kill -KILL "$pid"; exit 0; fi)")) << k8s;
  EXPECT_TRUE(has(k8s, R"(*"[0 of "*) return 0 ;;)")) << k8s;
  // River: no quiet signal and no busy count to read.
  out = settings_snippet(scenario("river"), k25, 155 * kSecond, wait);
  EXPECT_FALSE(has(out, "kill -TSTP")) << out;
  EXPECT_TRUE(has(out, "                idle() { return 1; }\n")) << out;
  EXPECT_TRUE(has(out, "River has no quiet signal, so it keeps fetching")) << out;
}

TEST(SettingsSnippet, DockerGetsOnlyTheComposeService) {
  const std::string out =
      settings_snippet(scenario("sidekiq", "", R"(, "kind": "docker", "stop_grace_period": "35s")"),
                       k25, 35500 * kMillisecond, kNoPreStop);
  EXPECT_FALSE(has(out, "Kubernetes")) << out;
  EXPECT_FALSE(has(out, "lifecycle")) << out;
  EXPECT_TRUE(has(out, "# --- Docker Compose (docker-compose.yml")) << out;
  EXPECT_TRUE(has(out,
                  "    # 35.5s rounded up: Compose takes whole seconds\n"
                  "    stop_grace_period: 36s\n"))
      << out;
}

TEST(SettingsSnippet, AnInitGivesComposeInitAndTheHookTheWorkersPid) {
  PreStop wait;
  wait.kind = PreStop::Kind::kQuietThenWait;
  const std::string out =
      settings_snippet(scenario("sidekiq", "", R"(, "init": true)"), k25, 155 * kSecond, wait);
  EXPECT_TRUE(has(out, "pid=$(cut -d' ' -f1 /proc/1/task/1/children)")) << out;
  EXPECT_TRUE(has(section(out, "Docker Compose"), "    init: true\n")) << out;
}

// tune's snippet for a Sidekiq pod of concurrency 4: a 40 s job every 10 s from t = 0, a
// rolling restart at 33 s whose new pod is ready at 38 s, when the old one is deleted; its
// preStop quiets it and sleeps 3 s, so TERM comes at 41 s and its last job (started at
// 30 s) ends at 70 s, 29 s after TERM. Sidekiq requeues 0.5 s before -t, so that job needs
// -t 29.5: 30 on a 1 s grid, with terminationGracePeriodSeconds 3 + 30 + 10 = 43.
class TuneSnippet : public test::CliTest {};

TEST_F(TuneSnippet, ASidekiqRecommendationReadsAsSidekiqSettings) {
  TuneSpec spec;
  spec.scenario = write("sidekiq.json", R"({"name": "const40", "duration": "2m", "settle": "10m",
    "workload": {"arrival": {"kind": "constant", "rate_per_s": 0.1},
                 "job_duration": {"kind": "constant", "value": "40s"}},
    "worker": {"profile": "sidekiq", "concurrency": 4},
    "platform": {"replicas": 1, "pod_start_delay": "5s",
                 "pre_stop": {"kind": "quiet_then_sleep", "duration": "3s"}},
    "events": [{"at": "33s", "kind": "rolling_restart", "max_surge": 1, "max_unavailable": 0}]})");
  spec.targets.max_interrupted = 0;
  for (Duration g = 0; g <= 2 * kMinute; g += kSecond) spec.grid.push_back(g);
  spec.seeds = 2;
  const Tune t = run_tune(spec);
  ASSERT_NE(t.recommended(), nullptr);
  EXPECT_EQ(t.recommended()->grace, 30 * kSecond);
  const std::string out = settings_snippet(t);
  EXPECT_TRUE(has(out, "  terminationGracePeriodSeconds: 43\n")) << out;
  EXPECT_TRUE(has(out, R"(command: ["bundle", "exec", "sidekiq", "-t", "30"])")) << out;
  EXPECT_TRUE(has(out, "kill -TSTP 1 && sleep 3")) << out;
  EXPECT_FALSE(has(out, "OJS_SHUTDOWN_GRACE_PERIOD")) << out;
  EXPECT_EQ(tune_json(t)["snippet"], out);
}

}  // namespace
}  // namespace drainsim
