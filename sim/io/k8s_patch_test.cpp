// k8s_patch round trips: each patch is applied to its manifest as Kubernetes' strategic
// merge would, and the patched manifest imported again must give the values asked, each
// changed where the manifest wrote it and everything else as it was.
#include "io/k8s_patch.h"

#include <gtest/gtest.h>

#include <string>

#include <yaml-cpp/yaml.h>

#include "io/json_reader.h"

namespace drainsim {
namespace {

using nlohmann::json;

YAML::Node merged(const YAML::Node& target, const YAML::Node& patch);

// A list of containers merges by `name` (their patchMergeKey); the patch's new ones append.
YAML::Node merged_by_name(const YAML::Node& target, const YAML::Node& patch) {
  YAML::Node out = YAML::Clone(target);
  for (const YAML::Node& p : patch) {
    bool found = false;
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (out[i]["name"].Scalar() == p["name"].Scalar()) {
        out[i] = merged(out[i], p);
        found = true;
      }
    }
    if (!found) out.push_back(YAML::Clone(p));
  }
  return out;
}

// Kubernetes' strategic merge as far as these patches go (apimachinery's strategicpatch):
// maps merge key by key, a null deletes the key, `$patch: replace` replaces the map,
// `containers` merges by name and any other list is replaced whole.
YAML::Node merged(const YAML::Node& target, const YAML::Node& patch) {
  if (!patch.IsMap()) return YAML::Clone(patch);
  YAML::Node out(YAML::NodeType::Map);
  const bool replace = patch["$patch"] && patch["$patch"].Scalar() == "replace";
  if (!replace && target.IsDefined() && target.IsMap()) out = YAML::Clone(target);
  for (const auto& kv : patch) {
    const std::string key = kv.first.Scalar();
    if (key == "$patch") continue;
    if (kv.second.IsNull()) {
      out.remove(key);
    } else if (key == "containers") {
      out[key] = merged_by_name(out[key], kv.second);
    } else {
      out[key] = merged(out[key], kv.second);
    }
  }
  return out;
}

std::string applied(const std::string& manifest, const std::string& patch) {
  YAML::Emitter e;
  e << merged(YAML::Load(manifest), YAML::Load(patch));
  return e.c_str();
}

struct Trip {
  K8sPatch patch;
  K8sImport before, after;
};

// Imports `manifest`, patches it with `settings`, applies the patch and imports again.
Trip round_trip(const std::string& manifest, const K8sSettings& settings,
                const K8sImportOptions& options = {}) {
  Trip t;
  t.before = import_k8s({{"deploy.yaml", manifest}}, options);
  t.patch = k8s_patch(t.before, t.before.scenario["worker"]["profile"], settings, "fix.yaml");
  t.after = import_k8s({{"deploy.yaml", applied(manifest, t.patch.yaml)}}, options);
  return t;
}

PreStop pre_stop(PreStop::Kind kind, Duration d) {
  PreStop p;
  p.kind = kind;
  p.duration = d;
  return p;
}

// Mastodon's chart's shape: -t among the args, a quiet-then-sleep preStop in a shell.
const char* kSidekiq = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: mastodon-sidekiq
spec:
  replicas: 3
  template:
    spec:
      terminationGracePeriodSeconds: 40
      containers:
        - name: sidekiq
          image: ghcr.io/mastodon/mastodon:v4.2
          command: ["bundle", "exec", "sidekiq"]
          args: ["-c", "25", "-t", "30", "-q", "default,8", "-q", "push,6"]
          lifecycle:
            preStop:
              exec:
                command: ["/bin/sh", "-c", "kill -TSTP 1 && sleep 20"]
        - name: statsd
          image: prom/statsd-exporter
)";

TEST(K8sPatch, SidekiqsTimeoutGraceAndPreStopChangeWhereTheyAreWritten) {
  const Trip t = round_trip(
      kSidekiq,
      {381 * kSecond, 411 * kSecond, pre_stop(PreStop::Kind::kQuietThenSleep, 25 * kSecond)},
      {"", "sidekiq", ""});
  // Only the worker's args, the grace and the hook are in the patch; the -t is changed in
  // place, the rest of the args as they were.
  EXPECT_EQ(t.patch.yaml.substr(t.patch.yaml.find("spec:")),
            "spec:\n"
            "  template:\n"
            "    spec:\n"
            "      terminationGracePeriodSeconds: 411\n"
            "      containers:\n"
            "        - name: sidekiq\n"
            "          args:\n"
            "            - \"-c\"\n"
            "            - \"25\"\n"
            "            - \"-t\"\n"
            "            - \"381\"\n"
            "            - \"-q\"\n"
            "            - \"default,8\"\n"
            "            - \"-q\"\n"
            "            - \"push,6\"\n"
            "          lifecycle:\n"
            "            preStop:\n"
            "              exec:\n"
            "                command:\n"
            "                  - \"/bin/sh\"\n"
            "                  - \"-c\"\n"
            "                  - \"kill -TSTP 1 && sleep 25\"\n");
  EXPECT_EQ(t.patch.kubectl,
            "kubectl patch deployment mastodon-sidekiq --type strategic --patch-file fix.yaml");
  EXPECT_EQ(
      t.patch.changes,
      (std::vector<std::string>{
          "spec.template.spec.terminationGracePeriodSeconds: 40 -> 411",
          "spec.template.spec.containers[0].args: sidekiq -t 30 -> -t 381",
          "spec.template.spec.containers[0].lifecycle.preStop.exec.command: its sleep -> 25"}));
  EXPECT_TRUE(t.patch.notes.empty());
  const json& s = t.after.scenario;
  EXPECT_EQ(s["worker"]["grace_period"], "381s");
  EXPECT_EQ(s["platform"]["termination_grace_period"], "411s");
  EXPECT_EQ(s["platform"]["pre_stop"], (json{{"kind", "quiet_then_sleep"}, {"duration", "25s"}}));
  // What the patch does not touch comes back as it was.
  EXPECT_EQ(s["worker"]["concurrency"], 25);
  EXPECT_EQ(s["worker"]["queues"], (json{"default", "push"}));
  EXPECT_EQ(s["platform"]["replicas"], 3);
  EXPECT_EQ(t.after.anchors.command, t.before.anchors.command);
}

TEST(K8sPatch, AShellScriptsTimeoutIsRewrittenInTheScriptOrAddedAfterTheProgram) {
  const std::string wrapper = R"(kind: Deployment
metadata: {name: w}
spec:
  template:
    spec:
      containers:
        - name: w
          command: ["/bin/sh", "-c"]
          args: ["bundle exec rake db:migrate && exec bundle exec sidekiq SCRIPT\n"]
)";
  const auto with = [&](const std::string& flags) {
    std::string text = wrapper;
    text.replace(text.find("SCRIPT"), 6, flags);
    return round_trip(text, {61 * kSecond, 81 * kSecond, std::nullopt});
  };
  const Trip added = with("-c 8");
  EXPECT_EQ(added.after.anchors.args,
            (std::vector<std::string>{
                "bundle exec rake db:migrate && exec bundle exec sidekiq -t 61 -c 8\n"}));
  EXPECT_EQ(added.after.scenario["worker"]["grace_period"], "61s");
  EXPECT_EQ(added.after.scenario["worker"]["concurrency"], 8);
  EXPECT_EQ(added.after.scenario["platform"]["pid1_shell"], false);
  EXPECT_EQ(added.patch.changes[1],
            "spec.template.spec.containers[0].args: sidekiq -t 25 -> -t 61 (in its sh -c script)");
  // No preStop asked: none written.
  EXPECT_EQ(added.patch.yaml.find("lifecycle"), std::string::npos);

  const Trip replaced = with("-c 8 --timeout=25");
  EXPECT_EQ(replaced.after.anchors.args,
            (std::vector<std::string>{
                "bundle exec rake db:migrate && exec bundle exec sidekiq -c 8 --timeout=61\n"}));
  EXPECT_EQ(replaced.after.scenario["worker"]["grace_period"], "61s");
  const Trip joined = with("-t25 -c 8");
  EXPECT_EQ(joined.after.anchors.args[0],
            "bundle exec rake db:migrate && exec bundle exec sidekiq -t61 -c 8\n");
}

TEST(K8sPatch, WithoutATimeoutItIsAppendedToTheArgsAndDurationsRoundUp) {
  const Trip t = round_trip(R"(kind: Deployment
metadata: {name: w}
spec:
  template:
    spec:
      containers:
        - name: w
          command: ["bundle", "exec", "sidekiq"]
)",
                            {60500 * kMillisecond, 70200 * kMillisecond, std::nullopt});
  EXPECT_EQ(t.after.anchors.command, t.before.anchors.command);
  EXPECT_EQ(t.after.anchors.args, (std::vector<std::string>{"-t", "61"}));
  EXPECT_EQ(t.after.scenario["worker"]["grace_period"], "61s");
  EXPECT_EQ(t.after.scenario["platform"]["termination_grace_period"], "71s");
  EXPECT_EQ(t.patch.changes[1],
            "spec.template.spec.containers[0].args: sidekiq -t 61 added (it ran with Sidekiq's "
            "default, 25)");
  EXPECT_EQ(t.patch.notes,
            (std::vector<std::string>{
                "the platform grace 70.2s is rounded up to 71s",
                "the worker grace 60.5s is -t 61: Sidekiq takes whole seconds, at least 1"}));
}

TEST(K8sPatch, ATimeoutTheManifestDoesNotHoldIsSaidAndLeft) {
  const Trip t = round_trip(R"(kind: StatefulSet
metadata:
  name: celery
  namespace: jobs
  labels: {app.kubernetes.io/managed-by: Helm}
spec:
  template:
    spec:
      containers:
        - name: worker
          args: ["celery", "-A", "proj", "worker", "-c", "4"]
)",
                            {90 * kSecond, 100 * kSecond, std::nullopt});
  EXPECT_EQ(t.patch.kubectl,
            "kubectl patch statefulset celery -n jobs --type strategic --patch-file fix.yaml");
  EXPECT_EQ(t.patch.changes,
            (std::vector<std::string>{"spec.template.spec.terminationGracePeriodSeconds: not set "
                                      "(Kubernetes' default, 30) -> 100"}));
  ASSERT_EQ(t.patch.notes.size(), 2u);
  EXPECT_EQ(t.patch.notes[0],
            "worker.grace_period 1m30s: celery's shutdown timeout is not in the manifest (its "
            "code or config holds it; tune's snippet says where): the patch leaves it");
  EXPECT_NE(t.patch.notes[1].find("Helm's"), std::string::npos);
  EXPECT_EQ(t.patch.yaml.find("args"), std::string::npos);
  EXPECT_EQ(t.after.scenario["platform"]["termination_grace_period"], "100s");
  EXPECT_EQ(t.after.anchors.args, t.before.anchors.args);
}

TEST(K8sPatch, APreStopOfAnotherHandlerIsReplacedAndNoneRemovesIt) {
  const std::string manifest = R"(kind: Deployment
metadata: {name: w}
spec:
  template:
    spec:
      containers:
        - name: w
          command: ["sidekiq", "-t", "25"]
          lifecycle:
            preStop: HOOK
)";
  const auto with = [&](const std::string& hook, const PreStop& p) {
    std::string text = manifest;
    text.replace(text.find("HOOK"), 4, hook);
    return round_trip(text, {25 * kSecond, 45 * kSecond, p});
  };
  // An httpGet hook becomes the sleep: replaced, not merged beside it.
  const Trip http =
      with("{httpGet: {path: /quiet, port: 8080}}", pre_stop(PreStop::Kind::kSleep, 10 * kSecond));
  EXPECT_NE(http.patch.yaml.find("$patch: replace"), std::string::npos);
  EXPECT_EQ(http.after.anchors.pre_stop, "exec");
  EXPECT_EQ(http.after.scenario["platform"]["pre_stop"],
            (json{{"kind", "sleep"}, {"duration", "10s"}}));
  // Kubernetes' sleep action keeps its form.
  const Trip sleep = with("{sleep: {seconds: 5}}", pre_stop(PreStop::Kind::kSleep, 12 * kSecond));
  EXPECT_EQ(sleep.after.anchors.pre_stop, "sleep");
  EXPECT_EQ(sleep.after.scenario["platform"]["pre_stop"],
            (json{{"kind", "sleep"}, {"duration", "12s"}}));
  // A sleep asked of a quiet-then-sleep: the hook is written anew as a sleep.
  const Trip quiet = with(R"({exec: {command: ["sh", "-c", "kill -TSTP 1; sleep 5"]}})",
                          pre_stop(PreStop::Kind::kSleep, 7 * kSecond));
  EXPECT_EQ(quiet.after.anchors.pre_stop_exec, (std::vector<std::string>{"sleep", "7"}));
  // None: the hook is removed.
  const Trip none = with("{sleep: {seconds: 5}}", pre_stop(PreStop::Kind::kNone, 0));
  EXPECT_EQ(none.patch.changes.back(),
            "spec.template.spec.containers[0].lifecycle.preStop: removed (it was sleep)");
  EXPECT_EQ(none.after.anchors.pre_stop, "");
  EXPECT_EQ(none.after.scenario["platform"]["pre_stop"], (json{{"kind", "none"}}));
  // A quiet-then-sleep where there was none: Sidekiq's quiet, then the sleep.
  const Trip added = with("null", pre_stop(PreStop::Kind::kQuietThenSleep, 15 * kSecond));
  EXPECT_EQ(added.after.scenario["platform"]["pre_stop"],
            (json{{"kind", "quiet_then_sleep"}, {"duration", "15s"}}));
}

TEST(K8sPatch, AContainerWithoutANameCannotBePatched) {
  const K8sImport i = import_k8s({{"deploy.yaml", R"(kind: Deployment
metadata: {name: w}
spec:
  template:
    spec:
      containers:
        - command: ["sidekiq"]
)"}},
                                 {});
  try {
    k8s_patch(i, "sidekiq", {25 * kSecond, 45 * kSecond, std::nullopt}, "fix.yaml");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "Deployment w (deploy.yaml): spec.template.spec.containers[0].name: the worker's "
              "container has no name, which a strategic-merge patch needs to find it");
  }
}

}  // namespace
}  // namespace drainsim
