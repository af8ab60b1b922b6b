// import_k8s on small manifests written the way people deploy workers: each scenario field
// and the YAML path it came from, the defaults it explains, and each bad input refused
// with its file and YAML path. Every imported scenario must load.
#include "io/k8s_import.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/json_reader.h"
#include "io/scenario_reader.h"
#include "testing/test_import.h"

namespace drainsim {
namespace {

using nlohmann::json;
using test::field;
using test::loads;

K8sImport import_one(const std::string& text, K8sImportOptions options = {}) {
  return import_k8s({{"deploy.yaml", text}}, options);
}

std::string error_of(const std::string& text, K8sImportOptions options = {}) {
  try {
    import_one(text, options);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// A Sidekiq Deployment shaped like public charts' (Mastodon's): the command in exec form
// under bundle exec, its own -c, -t and weighted -q, a quiet-then-sleep preStop.
const char* kSidekiq = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: mastodon-sidekiq
spec:
  replicas: 3
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 1
      maxUnavailable: 0
  template:
    spec:
      terminationGracePeriodSeconds: 40
      containers:
        - name: sidekiq
          image: ghcr.io/mastodon/mastodon:v4.2
          command: ["bundle", "exec", "sidekiq"]
          args: ["-c", "25", "-t", "30", "-q", "default,8", "-q", "push,6", "-q", "default"]
          lifecycle:
            preStop:
              exec:
                command: ["/bin/sh", "-c", "kill -TSTP 1 && sleep 20"]
)";

TEST(K8sImport, SidekiqDeploymentFieldByField) {
  const K8sImport i = import_one(kSidekiq);
  EXPECT_EQ(i.workload, "Deployment mastodon-sidekiq (deploy.yaml)");
  const json& s = i.scenario;
  EXPECT_EQ(s["name"], "mastodon-sidekiq");
  EXPECT_EQ(s["platform"]["replicas"], 3);
  EXPECT_EQ(field(i, "platform.replicas").source, "deploy.yaml: spec.replicas");
  EXPECT_EQ(s["platform"]["termination_grace_period"], "40s");
  EXPECT_EQ(field(i, "platform.termination_grace_period").source,
            "deploy.yaml: spec.template.spec.terminationGracePeriodSeconds");
  EXPECT_EQ(s["worker"]["profile"], "sidekiq");
  EXPECT_EQ(field(i, "worker.profile").source,
            "deploy.yaml: spec.template.spec.containers[0].command");
  EXPECT_EQ(s["worker"]["concurrency"], 25);
  EXPECT_EQ(s["worker"]["grace_period"], "30s");
  EXPECT_EQ(s["worker"]["queues"], json::parse(R"(["default", "push"])"));
  EXPECT_EQ(s["workload"]["queue"], "default");
  EXPECT_EQ(s["platform"]["pre_stop"], json::parse(R"({"kind": "quiet_then_sleep",
                                                        "duration": "20s"})"));
  EXPECT_EQ(field(i, "platform.pre_stop").source,
            "deploy.yaml: spec.template.spec.containers[0].lifecycle.preStop.exec.command");
  ASSERT_EQ(s["events"].size(), 1u);
  EXPECT_EQ(s["events"][0], json::parse(R"({"at": "2m", "kind": "rolling_restart",
                                             "max_surge": 1, "max_unavailable": 0})"));
  EXPECT_EQ(field(i, "events").source, "deploy.yaml: spec.strategy.rollingUpdate");
  EXPECT_FALSE(s["platform"].contains("pid1_shell"));  // exec form: sidekiq is PID 1
  // No durations in a manifest: the workload is drainsim's, and says so. 75 slots, half
  // busy at a mean of 2.9 s: 12.9 jobs/s.
  EXPECT_EQ(field(i, "workload.arrival").source, "");
  EXPECT_EQ(s["workload"]["arrival"]["rate_per_s"], 12.9);
  EXPECT_NE(field(i, "workload.job_duration").note.find("no durations given"), std::string::npos);
  loads(i);
  const std::string report = import_report(i);
  EXPECT_NE(report.find("platform.termination_grace_period  40s  <- deploy.yaml: "
                        "spec.template.spec.terminationGracePeriodSeconds"),
            std::string::npos)
      << report;
}

TEST(K8sImport, WhatTheManifestLeavesOutIsKubernetesOrTheSystemsDefaultAndSaysSo) {
  const K8sImport i = import_one(R"(kind: Deployment
metadata: {name: jobs}
spec:
  template:
    spec:
      containers:
        - name: worker
          args: ["sidekiq"]
)");
  const json& s = i.scenario;
  EXPECT_EQ(s["platform"]["replicas"], 1);
  EXPECT_EQ(field(i, "platform.replicas").source, "");
  EXPECT_NE(field(i, "platform.replicas").note.find("Kubernetes' default"), std::string::npos);
  EXPECT_EQ(s["platform"]["termination_grace_period"], "30s");
  EXPECT_EQ(s["worker"]["concurrency"], 5);  // Sidekiq's -c default
  EXPECT_EQ(s["worker"]["grace_period"], "25s");
  EXPECT_EQ(s["platform"]["pre_stop"]["kind"], "none");
  EXPECT_EQ(s["events"][0]["max_surge"], "25%");
  EXPECT_EQ(s["events"][0]["max_unavailable"], "25%");
  EXPECT_NE(field(i, "events").note.find("25 %"), std::string::npos);
  loads(i);
}

TEST(K8sImport, AShellWrapperWithoutExecIsAPid1ShellAndWithExecIsNot) {
  const std::string wrapper = R"(kind: Deployment
metadata: {name: w}
spec:
  template:
    spec:
      containers:
        - name: w
          command: ["/bin/sh", "-c"]
          args: ["bundle exec rake db:migrate && SCRIPT -c 8"]
)";
  auto with = [&](const std::string& script) {
    std::string text = wrapper;
    text.replace(text.find("SCRIPT"), 6, script);
    return import_one(text);
  };
  const K8sImport plain = with("bundle exec sidekiq");
  EXPECT_EQ(plain.scenario["platform"]["pid1_shell"], true);
  EXPECT_EQ(plain.scenario["worker"]["concurrency"], 8);
  EXPECT_NE(field(plain, "platform.pid1_shell").note.find("without `exec`"), std::string::npos);
  loads(plain);
  const K8sImport exec = with("exec bundle exec sidekiq");
  EXPECT_EQ(exec.scenario["platform"]["pid1_shell"], false);
  EXPECT_EQ(exec.scenario["worker"]["concurrency"], 8);
  loads(exec);
}

TEST(K8sImport, TiniBeforeTheWorkerIsAnInit) {
  const K8sImport i = import_one(R"(kind: Deployment
metadata: {name: w}
spec:
  template:
    spec:
      containers:
        - name: w
          command: ["/usr/bin/tini", "--", "bundle", "exec", "sidekiq", "-t", "8"]
)");
  EXPECT_EQ(i.scenario["platform"]["init"], true);
  EXPECT_EQ(i.scenario["worker"]["grace_period"], "8s");
  loads(i);
}

// A Celery StatefulSet inside a `kubectl get -o yaml` List, beside its Service: ordered
// updates one pod at a time, its flags in --name=value form.
TEST(K8sImport, CeleryStatefulSetInAList) {
  const K8sImport i = import_one(R"(apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: Service
    metadata: {name: flower}
  - apiVersion: apps/v1
    kind: StatefulSet
    metadata: {name: airflow-worker}
    spec:
      replicas: 2
      template:
        spec:
          containers:
            - name: worker
              args: ["celery", "-A", "app", "worker", "--concurrency=16",
                     "--prefetch-multiplier=1", "-Q", "default,reports"]
              lifecycle:
                preStop:
                  sleep: {seconds: 5}
)");
  const json& s = i.scenario;
  EXPECT_EQ(i.workload, "StatefulSet airflow-worker (deploy.yaml)");
  EXPECT_EQ(s["worker"]["profile"], "celery");
  EXPECT_EQ(s["worker"]["concurrency"], 16);
  EXPECT_EQ(s["worker"]["options"]["prefetch_multiplier"], 1);
  EXPECT_EQ(s["worker"]["queues"], json::parse(R"(["default", "reports"])"));
  EXPECT_EQ(field(i, "worker.concurrency").source,
            "deploy.yaml: items[1].spec.template.spec.containers[0].args");
  EXPECT_EQ(s["platform"]["pre_stop"], json::parse(R"({"kind": "sleep", "duration": "5s"})"));
  EXPECT_EQ(s["events"][0]["max_surge"], 0);
  EXPECT_EQ(s["events"][0]["max_unavailable"], 1);
  loads(i);
}

TEST(K8sImport, BadInputNamesTheFileAndTheYamlPath) {
  EXPECT_EQ(error_of("kind: [Deployment\n").substr(0, 25), "deploy.yaml: not YAML: li");
  // yaml-cpp's own guard against deep nesting, rather than a stack overflow.
  EXPECT_NE(error_of(std::string(5000, '[') + std::string(5000, ']'))
                .find("deploy.yaml: not YAML drainsim can read: line "),
            std::string::npos);
  EXPECT_EQ(error_of("kind: Service\nmetadata: {name: s}\n"),
            "deploy.yaml: no Deployment or StatefulSet: expected the worker's workload object "
            "(found Service)");
  const std::string two_containers = R"(kind: Deployment
metadata: {name: w}
spec:
  replicas: 2
  template:
    spec:
      containers:
        - {name: app, args: ["sidekiq"]}
        - {name: statsd, image: statsd}
)";
  EXPECT_EQ(error_of(two_containers),
            "deploy.yaml: spec.template.spec.containers: 2 containers (app statsd): pass "
            "--container NAME to choose the worker's");
  EXPECT_EQ(error_of(two_containers, {"", "web", ""}),
            "deploy.yaml: spec.template.spec.containers: no container named \"web\" "
            "(--container): the pod has app statsd");
  EXPECT_EQ(import_one(two_containers, {"", "app", ""}).scenario["platform"]["replicas"], 2);
  EXPECT_EQ(error_of(R"(kind: Deployment
metadata: {name: w}
spec:
  replicas: three
  template: {spec: {containers: [{name: w, args: [sidekiq]}]}}
)"),
            "deploy.yaml: spec.replicas: expected an integer from 0 to 100000, got \"three\"");
  EXPECT_EQ(error_of(R"(kind: Deployment
metadata: {name: w}
spec:
  template: {spec: {containers: [{name: w, command: [node, worker.js]}]}}
)"),
            "deploy.yaml: spec.template.spec.containers[0].command: cannot tell the job system "
            "from `node worker.js` (a Node program: BullMQ, pg-boss, graphile-worker, ...): pass "
            "--profile NAME");
  // A second document is named by its number.
  EXPECT_EQ(error_of(R"(kind: ConfigMap
---
kind: Deployment
metadata: {name: w}
spec:
  template: {spec: {terminationGracePeriodSeconds: -1, containers: [{name: w, args: [sidekiq]}]}}
)"),
            "deploy.yaml: document 2: spec.template.spec.terminationGracePeriodSeconds: expected "
            "an integer from 0 to 3600000000, got \"-1\"");
  // Found by the fuzzer: a document without `kind` (yaml-cpp's node for a missing key
  // throws when asked its type), and a hook whose `sleep` is not a mapping.
  EXPECT_EQ(error_of("kin`d: Deployment\nmetadata: {name: w}\n"),
            "deploy.yaml: no Deployment or StatefulSet: expected the worker's workload object");
  EXPECT_EQ(error_of(R"(kind: Deployment
metadata: {name: w}
spec:
  template:
    spec:
      containers:
        - name: w
          args: [sidekiq]
          lifecycle: {preStop: {sleep: 5}}
)"),
            "deploy.yaml: spec.template.spec.containers[0].lifecycle.preStop.sleep.seconds: "
            "expected an integer from 0 to 1000000, got nothing");
  // Found by the fuzzer: a name that is not UTF-8 (the scenario's JSON cannot hold it), and
  // a stray `,` after the top-level node, on which yaml-cpp 0.7's LoadAll never returned.
  EXPECT_EQ(error_of("kind: Deployment\nmetadata: {name: w\x8b}\n"),
            "deploy.yaml: not YAML: line 2, column 19: not UTF-8 text (byte 0x8B)");
  EXPECT_EQ(error_of("kind: Service\n---\n\"a\",\n"),
            "deploy.yaml: document 2: expected a Kubernetes object (a mapping), got \"a\"");
  EXPECT_EQ(error_of(","),
            "deploy.yaml: no Deployment or StatefulSet: expected the worker's "
            "workload object");
  // --profile names the system a command does not; an unknown one is refused.
  const std::string node = R"(kind: Deployment
metadata: {name: w}
spec:
  template: {spec: {containers: [{name: w, command: [node, worker.js]}]}}
)";
  const K8sImport bullmq = import_one(node, {"", "", "bullmq"});
  EXPECT_EQ(bullmq.scenario["worker"]["profile"], "bullmq");
  EXPECT_EQ(field(bullmq, "worker.profile").note, "--profile");
  EXPECT_NE(field(bullmq, "worker.concurrency").note.find("the bullmq profile's default"),
            std::string::npos);
  loads(bullmq);
  EXPECT_EQ(error_of(node, {"", "", "bullmqq"}).substr(0, 11), "--profile: ");
}

// pg-boss's settings from the env: the first of PGBOSS_CONCURRENCY, PG_BOSS_CONCURRENCY,
// WORKER_CONCURRENCY, CONCURRENCY, and QUEUE_NAME; a Secret's value is not read.
TEST(K8sImport, PgBossSettingsFromTheEnvironment) {
  const std::string text = R"(kind: Deployment
metadata: {name: w}
spec:
  template:
    spec:
      containers:
        - name: w
          command: [npm, start]
          env:
            - {name: CONCURRENCY, value: "3"}
            - {name: PGBOSS_CONCURRENCY, value: "12"}
            - {name: QUEUE_NAME, value: invoices}
)";
  EXPECT_EQ(error_of(text),
            "deploy.yaml: spec.template.spec.containers[0].command: cannot tell the job system "
            "from `npm start` (a Node program: BullMQ, pg-boss, graphile-worker, ...): pass "
            "--profile NAME");
  const K8sImport i = import_one(text, {"", "", "pg-boss", false});
  EXPECT_EQ(i.scenario["worker"]["concurrency"], 12);
  EXPECT_EQ(field(i, "worker.concurrency").source,
            "deploy.yaml: spec.template.spec.containers[0].env[1].value");
  EXPECT_EQ(field(i, "worker.concurrency").note.substr(0, 20), "PGBOSS_CONCURRENCY=1");
  EXPECT_EQ(i.scenario["worker"]["queues"], json::parse(R"(["invoices"])"));
  EXPECT_EQ(i.scenario["workload"]["queue"], "invoices");
  loads(i);

  // From a Secret: the profile's default (pg-boss: 10), and the note says why.
  std::string secret = text;
  secret.replace(secret.find(R"({name: PGBOSS_CONCURRENCY, value: "12"})"), 39,
                 "{name: PGBOSS_CONCURRENCY, valueFrom: {secretKeyRef: {name: s, key: k}}}");
  const K8sImport s = import_one(secret, {"", "", "pg-boss", false});
  EXPECT_EQ(s.scenario["worker"]["concurrency"], 10);
  EXPECT_EQ(field(s, "worker.concurrency").source, "");
  EXPECT_NE(field(s, "worker.concurrency")
                .note.find("PGBOSS_CONCURRENCY (spec.template.spec.containers[0].env[1]) comes "
                           "from a Secret through valueFrom, which drainsim does not read"),
            std::string::npos)
      << field(s, "worker.concurrency").note;

  std::string bad = text;
  bad.replace(bad.find("\"12\""), 4, "twelve");
  EXPECT_EQ(error_of(bad, {"", "", "pg-boss", false}),
            "deploy.yaml: spec.template.spec.containers[0].env[1].value: PGBOSS_CONCURRENCY: "
            "expected an integer from 1 to 100000, got \"twelve\"");
}

// A flag on the command line wins over the env; Sidekiq's own RAILS_MAX_THREADS when no -c.
TEST(K8sImport, SidekiqReadsRailsMaxThreadsWhenTheCommandGivesNoC) {
  const std::string text = R"(kind: Deployment
metadata: {name: w}
spec:
  template:
    spec:
      containers:
        - name: w
          command: [bundle, exec, sidekiq, ARGS]
          env: [{name: RAILS_MAX_THREADS, value: "7"}]
)";
  auto with = [&](const std::string& args) {
    std::string t = text;
    t.replace(t.find("ARGS"), 4, args);
    return import_one(t);
  };
  const K8sImport env = with("-t, 9");
  EXPECT_EQ(env.scenario["worker"]["concurrency"], 7);
  EXPECT_EQ(field(env, "worker.concurrency").source,
            "deploy.yaml: spec.template.spec.containers[0].env[0].value");
  const K8sImport flag = with("-c, 3");
  EXPECT_EQ(flag.scenario["worker"]["concurrency"], 3);
  EXPECT_EQ(field(flag, "worker.concurrency").note, "sidekiq -c 3");
}

// --hpa: an HPA with its own window and minReplicas; none, or one for another workload, is
// an error; without --hpa, an HPA for another workload is not mentioned.
TEST(K8sImport, HpaReplaysItsRange) {
  const std::string deploy = R"(kind: Deployment
metadata: {name: w}
spec:
  replicas: 4
  template: {spec: {containers: [{name: w, args: [sidekiq, -c, "10"]}]}}
---
apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: w-hpa}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: TARGET}
  minReplicas: 2
  maxReplicas: 8
  behavior: {scaleDown: {stabilizationWindowSeconds: 60}}
)";
  auto text = [&](const std::string& target) {
    std::string t = deploy;
    t.replace(t.find("TARGET"), 6, target);
    return t;
  };
  const K8sImport i = import_one(text("w"), {"", "", "", true});
  EXPECT_EQ(i.scenario["platform"]["replicas"], 8);
  EXPECT_EQ(field(i, "platform.replicas").note,
            "--hpa: the HorizontalPodAutoscaler's ceiling, the most pods a deploy meets (it "
            "overrides the workload's spec.replicas, 4)");
  // 2 minutes + 60 s; the load on minReplicas' 2 x 10 slots: 20 / 2.9 / 2 = 3.4 jobs/s.
  EXPECT_EQ(i.scenario["events"][1],
            json::parse(R"({"at": "180s", "kind": "scale_down", "replicas": 2})"));
  EXPECT_NE(field(i, "events[1]").note.find("(60 s, spec.behavior.scaleDown."), std::string::npos);
  EXPECT_EQ(i.scenario["workload"]["arrival"]["rate_per_s"], 3.4);
  loads(i);
  EXPECT_EQ(error_of(text("other"), {"", "", "", true}),
            "deploy.yaml: no HorizontalPodAutoscaler whose spec.scaleTargetRef names Deployment "
            "w (--hpa)");
  EXPECT_EQ(field(import_one(text("other")), "platform.replicas").note, "");
  std::string inverted = text("w");
  inverted.replace(inverted.find("maxReplicas: 8"), 14, "maxReplicas: 1");
  EXPECT_EQ(error_of(inverted, {"", "", "", true}),
            "deploy.yaml: document 2: spec.maxReplicas: expected an integer from 2 to 100000, "
            "got \"1\"");
}

}  // namespace
}  // namespace drainsim
