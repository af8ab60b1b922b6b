// drainsim import k8s on the fixtures of examples/k8s/, manifests shaped like the charts
// people deploy workers with (GitLab's Sidekiq, Airflow's Celery workers, a BullMQ Node
// worker, a shell wrapper, a StatefulSet from kubectl): each scenario field with its value
// and the YAML path or reason the report gives, worked out by hand from the files.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "io/json_reader.h"
#include "io/k8s_import.h"
#include "io/scenario_reader.h"
#include "testing/test_import.h"

namespace drainsim {
namespace {

using nlohmann::json;
using test::field;
using test::loads;

std::string fixture_text(const std::string& name) {
  std::ifstream in(std::string(DRAINSIM_SOURCE_DIR) + "/examples/k8s/" + name);
  EXPECT_TRUE(in) << name;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

K8sImport import_fixture(const std::string& name, K8sImportOptions options = {}) {
  return import_k8s({{name, fixture_text(name)}}, options);
}

std::string error_of(const std::string& name, K8sImportOptions options = {}) {
  try {
    import_fixture(name, options);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// The Apache Airflow chart's workers: a StatefulSet (document 3, after the ConfigMap and
// the Service), `bash -c "exec \<newline>airflow celery worker"` in args, a log groomer
// beside the worker, and the concurrency in AIRFLOW__CELERY__WORKER_CONCURRENCY.
TEST(K8sFixtures, AirflowCeleryWorker) {
  const std::string file = "airflow-celery-worker.yaml";
  EXPECT_EQ(error_of(file),
            "airflow-celery-worker.yaml: document 3: spec.template.spec.containers: 2 containers "
            "(worker worker-log-groomer): pass --container NAME to choose the worker's");
  const K8sImport i = import_fixture(file, {"", "worker", "", false});
  const json& s = i.scenario;
  const std::string at = "airflow-celery-worker.yaml: document 3: ";
  EXPECT_EQ(i.workload, "StatefulSet airflow-worker (airflow-celery-worker.yaml)");
  EXPECT_EQ(s["name"], "airflow-worker");
  EXPECT_EQ(s["platform"]["replicas"], 4);
  EXPECT_EQ(field(i, "platform.replicas").source, at + "spec.replicas");
  EXPECT_EQ(s["platform"]["termination_grace_period"], "600s");
  // The backslash-newline joins `exec` and the program: the worker replaces the shell.
  EXPECT_EQ(s["platform"]["pid1_shell"], false);
  EXPECT_EQ(field(i, "platform.pid1_shell").source, at + "spec.template.spec.containers[0].args");
  EXPECT_EQ(field(i, "platform.pid1_shell").note,
            "bash -c ending in `exec`: the worker replaces the shell as PID 1");
  EXPECT_EQ(s["worker"]["profile"], "celery");
  EXPECT_EQ(field(i, "worker.profile").source, at + "spec.template.spec.containers[0].args");
  EXPECT_EQ(field(i, "worker.profile").note,
            "the command runs airflow celery worker: Celery's worker under Airflow's command "
            "line");
  // env[4]: after DUMB_INIT_SETSID and three variables from Secrets.
  EXPECT_EQ(s["worker"]["concurrency"], 8);
  EXPECT_EQ(field(i, "worker.concurrency").source,
            at + "spec.template.spec.containers[0].env[4].value");
  EXPECT_EQ(field(i, "worker.concurrency").note,
            "AIRFLOW__CELERY__WORKER_CONCURRENCY=8: Airflow's [celery] worker_concurrency");
  EXPECT_FALSE(s["worker"].contains("options"));
  EXPECT_EQ(s["platform"]["pre_stop"], json::parse(R"({"kind": "none"})"));
  // No updateStrategy: a StatefulSet's RollingUpdate, one pod at a time.
  EXPECT_EQ(s["events"], json::parse(R"([{"at": "2m", "kind": "rolling_restart",
                                          "max_surge": 0, "max_unavailable": 1}])"));
  EXPECT_EQ(field(i, "events").source, at + "spec.updateStrategy");
  // 4 pods x 8: 32 slots, half busy at a mean job of 2.9 s: 5.5 jobs/s.
  EXPECT_EQ(s["workload"]["arrival"]["rate_per_s"], 5.5);
  loads(i);
}

// A BullMQ worker: `node dist/worker.js` says no job system; with --profile bullmq its
// queue and concurrency come from env[2] and env[3] (REDIS_URL, env[1], is a Secret's).
TEST(K8sFixtures, BullmqNodeWorker) {
  const std::string file = "bullmq-worker.yaml";
  EXPECT_EQ(error_of(file),
            "bullmq-worker.yaml: spec.template.spec.containers[0].command: cannot tell the job "
            "system from `node dist/worker.js` (a Node program: BullMQ, pg-boss, "
            "graphile-worker, ...): pass --profile NAME");
  const K8sImport i = import_fixture(file, {"", "", "bullmq", false});
  const json& s = i.scenario;
  EXPECT_EQ(i.workload, "Deployment mailer-worker (bullmq-worker.yaml)");
  EXPECT_EQ(s["platform"]["replicas"], 6);
  EXPECT_EQ(s["platform"]["termination_grace_period"], "90s");
  EXPECT_EQ(s["worker"]["profile"], "bullmq");
  EXPECT_EQ(field(i, "worker.profile").source, "");
  EXPECT_EQ(field(i, "worker.profile").note, "--profile");
  EXPECT_EQ(s["worker"]["concurrency"], 20);
  EXPECT_EQ(field(i, "worker.concurrency").source,
            "bullmq-worker.yaml: spec.template.spec.containers[0].env[3].value");
  EXPECT_EQ(field(i, "worker.concurrency").note,
            "WORKER_CONCURRENCY=20: a name BullMQ workers conventionally read into new Worker's "
            "concurrency (BullMQ itself reads no environment)");
  EXPECT_EQ(s["worker"]["queues"], json::parse(R"(["emails"])"));
  EXPECT_EQ(s["workload"]["queue"], "emails");
  EXPECT_EQ(field(i, "worker.queues").source,
            "bullmq-worker.yaml: spec.template.spec.containers[0].env[2].value");
  EXPECT_FALSE(s["platform"].contains("pid1_shell"));
  EXPECT_EQ(s["events"], json::parse(R"([{"at": "2m", "kind": "rolling_restart",
                                          "max_surge": 2, "max_unavailable": 0}])"));
  // 6 x 20 = 120 slots: 120 / 2.9 / 2 = 20.7 jobs/s.
  EXPECT_EQ(s["workload"]["arrival"]["rate_per_s"], 20.7);
  loads(i);
}

// sh -c running the migrations and then Sidekiq without exec: the shell stays PID 1.
TEST(K8sFixtures, ShellWrapper) {
  const K8sImport i = import_fixture("shell-wrapper.yaml");
  const json& s = i.scenario;
  const std::string c = "shell-wrapper.yaml: spec.template.spec.containers[0]";
  EXPECT_EQ(s["platform"]["replicas"], 2);
  EXPECT_EQ(s["platform"]["termination_grace_period"], "60s");
  EXPECT_EQ(s["platform"]["pid1_shell"], true);
  EXPECT_EQ(field(i, "platform.pid1_shell").source, c + ".command");
  EXPECT_EQ(field(i, "platform.pid1_shell").note,
            "sh -c runs 2 commands and the worker last, without `exec`: the shell stays PID 1 "
            "and does not forward TERM");
  EXPECT_EQ(s["worker"]["profile"], "sidekiq");
  EXPECT_EQ(field(i, "worker.profile").source, c + ".args");
  EXPECT_EQ(s["worker"]["concurrency"], 8);
  EXPECT_EQ(field(i, "worker.concurrency").source, c + ".args");
  EXPECT_EQ(field(i, "worker.concurrency").note, "sidekiq -c 8");
  EXPECT_EQ(s["worker"]["grace_period"], "20s");
  EXPECT_EQ(s["worker"]["queues"], json::parse(R"(["critical", "default"])"));
  EXPECT_EQ(s["workload"]["queue"], "critical");
  EXPECT_EQ(s["platform"]["pre_stop"], json::parse(R"({"kind": "none"})"));
  EXPECT_EQ(field(i, "platform.pre_stop").source, c + ".lifecycle.preStop.httpGet");
  EXPECT_EQ(s["events"], json::parse(R"([{"at": "2m", "kind": "rolling_restart",
                                          "max_surge": 0, "max_unavailable": "100%"}])"));
  EXPECT_EQ(field(i, "events").source, "shell-wrapper.yaml: spec.strategy.type");
  // 2 x 8 = 16 slots: 16 / 2.9 / 2 = 2.76, 2.8 jobs/s.
  EXPECT_EQ(s["workload"]["arrival"]["rate_per_s"], 2.8);
  loads(i);
}

// kubectl's List around a StatefulSet: tini before python -m celery, two pods at a time.
TEST(K8sFixtures, CeleryStatefulSetFromKubectl) {
  const K8sImport i = import_fixture("celery-statefulset.yaml");
  const json& s = i.scenario;
  const std::string c = "celery-statefulset.yaml: items[0].spec.template.spec.containers[0]";
  EXPECT_EQ(i.workload, "StatefulSet reports-worker (celery-statefulset.yaml)");
  EXPECT_EQ(s["platform"]["replicas"], 5);
  EXPECT_EQ(field(i, "platform.replicas").source,
            "celery-statefulset.yaml: items[0].spec.replicas");
  EXPECT_EQ(s["platform"]["termination_grace_period"], "300s");
  EXPECT_EQ(s["platform"]["init"], true);
  EXPECT_EQ(field(i, "platform.init").source, c + ".command");
  EXPECT_EQ(field(i, "platform.init").note, "tini is PID 1 and forwards signals to the worker");
  EXPECT_FALSE(s["platform"].contains("pid1_shell"));
  EXPECT_EQ(s["worker"]["profile"], "celery");
  EXPECT_EQ(field(i, "worker.profile").source, c + ".command");
  EXPECT_EQ(s["worker"]["concurrency"], 4);
  EXPECT_EQ(field(i, "worker.concurrency").source, c + ".args");
  EXPECT_EQ(field(i, "worker.concurrency").note, "celery worker --concurrency 4");
  EXPECT_EQ(s["worker"]["options"]["prefetch_multiplier"], 1);
  EXPECT_EQ(s["worker"]["queues"], json::parse(R"(["high", "low"])"));
  EXPECT_EQ(s["workload"]["queue"], "high");
  EXPECT_EQ(s["platform"]["pre_stop"], json::parse(R"({"kind": "sleep", "duration": "10s"})"));
  EXPECT_EQ(field(i, "platform.pre_stop").source, c + ".lifecycle.preStop.exec.command");
  EXPECT_EQ(s["events"], json::parse(R"([{"at": "2m", "kind": "rolling_restart",
                                          "max_surge": 0, "max_unavailable": 2}])"));
  EXPECT_EQ(field(i, "events").source,
            "celery-statefulset.yaml: items[0].spec.updateStrategy.rollingUpdate.maxUnavailable");
  // 5 x 4 = 20 slots: 20 / 2.9 / 2 = 3.45, 3.4 jobs/s.
  EXPECT_EQ(s["workload"]["arrival"]["rate_per_s"], 3.4);
  loads(i);
}

// GitLab's chart: no command (the image's script), no spec.replicas (the HPA's), the
// concurrency in SIDEKIQ_CONCURRENCY, which only GitLab's image reads.
TEST(K8sFixtures, GitlabSidekiqWithoutAndWithItsHpa) {
  const std::string file = "gitlab-sidekiq.yaml";
  EXPECT_EQ(error_of(file),
            "gitlab-sidekiq.yaml: document 2: spec.template.spec.containers[0]: no command or "
            "args: the image's own command starts the worker, which the manifest does not show: "
            "pass --profile NAME");
  const K8sImport i = import_fixture(file, {"", "", "sidekiq", false});
  const json& s = i.scenario;
  EXPECT_EQ(i.workload, "Deployment gitlab-sidekiq-all-in-1-v2 (gitlab-sidekiq.yaml)");
  EXPECT_EQ(s["name"], "gitlab-sidekiq-all-in-1-v2");
  EXPECT_EQ(s["platform"]["replicas"], 1);
  EXPECT_EQ(field(i, "platform.replicas").source, "");
  EXPECT_EQ(field(i, "platform.replicas").note,
            "Kubernetes' default: a Deployment without spec.replicas runs 1 pod (an autoscaler "
            "may set it; drainsim runs what the manifest says); the HorizontalPodAutoscaler "
            "gitlab-sidekiq-all-in-1-v2 (gitlab-sidekiq.yaml: document 3: spec.scaleTargetRef) "
            "scales it: pass --hpa to replay its maxReplicas and a scale-down to its "
            "minReplicas");
  EXPECT_EQ(s["platform"]["termination_grace_period"], "30s");
  EXPECT_EQ(s["worker"]["profile"], "sidekiq");
  EXPECT_EQ(s["worker"]["concurrency"], 5);  // the sidekiq profile's
  EXPECT_EQ(field(i, "worker.concurrency").source, "");
  EXPECT_EQ(field(i, "worker.concurrency").note,
            "the sidekiq profile's default: the manifest says nothing drainsim reads of it; the "
            "env's SIDEKIQ_CONCURRENCY (spec.template.spec.containers[0].env[3]=20) is not a "
            "setting drainsim reads for sidekiq: if the image passes it on, --set "
            "worker.concurrency=20");
  // pkill sends TERM itself: not a sleep or a quiet.
  EXPECT_EQ(s["platform"]["pre_stop"], json::parse(R"({"kind": "none"})"));
  EXPECT_EQ(field(i, "platform.pre_stop").source,
            "gitlab-sidekiq.yaml: document 2: "
            "spec.template.spec.containers[0].lifecycle.preStop.exec.command");
  EXPECT_EQ(s["events"], json::parse(R"([{"at": "2m", "kind": "rolling_restart",
                                          "max_surge": "25%", "max_unavailable": "25%"}])"));
  // 1 x 5 slots: 5 / 2.9 / 2 = 0.86, 0.9 jobs/s.
  EXPECT_EQ(s["workload"]["arrival"]["rate_per_s"], 0.9);
  loads(i);

  // --hpa: 10 pods, the deploy at 2 minutes, down to 1 at 2 min + 300 s = 420 s.
  const K8sImport h = import_fixture(file, {"", "", "sidekiq", true});
  EXPECT_EQ(h.scenario["platform"]["replicas"], 10);
  EXPECT_EQ(field(h, "platform.replicas").source,
            "gitlab-sidekiq.yaml: document 3: spec.maxReplicas");
  EXPECT_EQ(field(h, "platform.replicas").note,
            "--hpa: the HorizontalPodAutoscaler's ceiling, the most pods a deploy meets (it "
            "overrides the workload's spec.replicas, not given)");
  ASSERT_EQ(h.scenario["events"].size(), 2u);
  EXPECT_EQ(h.scenario["events"][0]["kind"], "rolling_restart");
  EXPECT_EQ(h.scenario["events"][1],
            json::parse(R"({"at": "420s", "kind": "scale_down", "replicas": 1})"));
  EXPECT_EQ(field(h, "events[1]").source, "gitlab-sidekiq.yaml: document 3: spec.minReplicas");
  EXPECT_EQ(field(h, "events[1]").note,
            "--hpa: down to the HorizontalPodAutoscaler's minReplicas once its scale-down "
            "stabilization window (300 s, Kubernetes' default) has passed after the deploy "
            "began at 2 minutes: the earliest it acts on a load that fell then");
  // The load sized on minReplicas' 5 slots, one the HPA scales down to: 0.9 jobs/s.
  EXPECT_EQ(h.scenario["workload"]["arrival"]["rate_per_s"], 0.9);
  loads(h);
}

// The fixture the examples started with (Mastodon-like, a ServiceAccount beside it).
TEST(K8sFixtures, SidekiqDeployment) {
  const K8sImport i = import_fixture("sidekiq-deployment.yaml");
  const json& s = i.scenario;
  EXPECT_EQ(s["platform"]["replicas"], 30);
  EXPECT_EQ(s["worker"]["concurrency"], 10);
  EXPECT_EQ(s["worker"]["grace_period"], "25s");
  EXPECT_EQ(s["worker"]["queues"], json::parse(R"(["default", "mailers"])"));
  EXPECT_EQ(s["platform"]["pre_stop"], json::parse(R"({"kind": "quiet_then_sleep",
                                                        "duration": "5s"})"));
  EXPECT_EQ(s["events"][0]["max_surge"], "25%");
  EXPECT_EQ(s["events"][0]["max_unavailable"], 0);
  // 300 slots: 300 / 2.9 / 2 = 51.7 jobs/s.
  EXPECT_EQ(s["workload"]["arrival"]["rate_per_s"], 51.7);
  loads(i);
}

}  // namespace
}  // namespace drainsim
