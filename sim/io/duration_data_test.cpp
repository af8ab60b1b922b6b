// read_durations and apply_durations on small inputs worked out by hand: a Prometheus
// histogram's buckets into weights, the +Inf bucket's assumption, the series --match
// chooses, a CSV, a JSON list, Sidekiq's and Celery's logs, the share of jobs above the
// graces, the arrival rate; every bad input refused with its file, line and what was
// expected; and the example deployment imported with the example durations, loading.
#include "io/duration_data.h"

#include <gtest/gtest.h>

#include <string>

#include "base/input_file.h"
#include "io/json_reader.h"
#include "io/scenario_reader.h"
#include "testing/test_import.h"

namespace drainsim {
namespace {

using nlohmann::json;
using test::field;

std::string error_of(const std::string& file, const std::string& text,
                     const DurationReadOptions& options = {}) {
  try {
    read_durations(file, text, options);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// A small import: 2 pods of 5 slots, the worker's grace 3s, the pod's 5s.
K8sImport small_import() {
  K8sImport i;
  i.scenario = json::parse(R"({"worker": {"profile": "sidekiq", "concurrency": 5,
    "grace_period": "3s"}, "platform": {"replicas": 2, "termination_grace_period": "5s"}})");
  i.fields.push_back({"workload.job_duration", "default", "", "drainsim's default"});
  i.fields.push_back({"workload.arrival", "default", "", "drainsim's default"});
  i.default_slots = 10;  // as import_k8s sizes its default load: the pods' slots
  return i;
}

// 8 jobs: 2 at most 1s, none in (1s, 2s], 5 in (2s, 5s], 1 above 5s; 30s in all.
const char* kSmall = R"(# HELP job_seconds How long jobs took.
# TYPE job_seconds histogram
job_seconds_bucket{queue="a",le="1"} 2
job_seconds_bucket{queue="a",le="2"} 2
job_seconds_bucket{queue="a",le="5"} 7
job_seconds_bucket{queue="a",le="+Inf"} 8 1714557600000
job_seconds_sum{queue="a"} 30
job_seconds_count{queue="a"} 8
)";

TEST(DurationData, HistogramBucketsBecomeWeightsOfTheirOwnJobs) {
  const DurationData d = read_durations("jobs.prom", kSmall);
  EXPECT_EQ(d.format, "Prometheus histogram");
  EXPECT_EQ(d.source, "job_seconds{queue=\"a\"}");
  ASSERT_EQ(d.buckets.size(), 4u);
  EXPECT_EQ(d.buckets[0].count, 2);
  EXPECT_EQ(d.buckets[1].count, 0);
  EXPECT_EQ(d.buckets[2].count, 5);
  EXPECT_EQ(d.buckets[3].count, 1);
  EXPECT_TRUE(std::isinf(d.buckets[3].le));
  EXPECT_EQ(d.sum, 30);
  EXPECT_EQ(d.count, 8);
  EXPECT_EQ(d.count_source, "job_seconds_count{queue=\"a\"}");

  K8sImport i = small_import();
  apply_durations(i, &d, {});
  // The empty (1s, 2s] is dropped. The +Inf job: the other 7 took at most 2x1 + 5x5 = 27s,
  // so it took at least 30 - 27 = 3s, less than the 5s the last le already gives: drawn
  // in (5s, 10s], twice the last le.
  EXPECT_EQ(i.scenario["workload"]["job_duration"],
            json::parse(R"({"kind": "empirical", "histogram": [{"le": "1s", "weight": 2},
              {"le": "5s", "weight": 5}, {"le": "10s", "weight": 1}]})"));
  const ImportedField& f = field(i, "workload.job_duration");
  EXPECT_EQ(f.source, "jobs.prom: job_seconds{queue=\"a\"}");
  // The worker's 3s is inside (2s, 5s]: between the 1 job above 5s and the 6 above 2s, of
  // 8. The pod's 5s is an le: exactly the 1 above it.
  EXPECT_EQ(f.note,
            "Prometheus histogram: 8 jobs, the shortest in (0s, 1s], the longest above 5s (the "
            "+Inf bucket); between 12.5 % and 75.0 % above the worker's grace of 3s (inside the "
            "bucket (2s, 5s]), 12.5 % above the pod's termination grace of 5s; empty buckets "
            "dropped; the +Inf bucket's jobs (1) are drawn from (5s, 10s]: an assumption, as the "
            "histogram does not say how long they took (up to twice the last le)");
  // No rate given: half the 10 slots busy at the histogram's mean, 30s / 8 = 3.75s:
  // 10 / 3.75 / 2 = 1.33, to a tenth.
  EXPECT_EQ(i.scenario["workload"]["arrival"], json::parse(R"({"kind": "poisson",
    "rate_per_s": 1.3})"));
  EXPECT_EQ(field(i, "workload.arrival").source, "");
}

TEST(DurationData, TheInfBucketReachesAsFarAsTheSumNeeds) {
  std::string text = kSmall;
  text.replace(text.find("_sum{queue=\"a\"} 30"), 18, "_sum{queue=\"a\"} 60");
  const DurationData d = read_durations("jobs.prom", text);
  K8sImport i = small_import();
  apply_durations(i, &d, {});
  // 60 - 27 = 33s at least for the one job above 5s: a uniform draw in (5s, U] has that
  // mean when U = 2 x 33 - 5 = 61s.
  EXPECT_EQ(i.scenario["workload"]["job_duration"]["histogram"][2],
            json::parse(R"({"le": "1m1s", "weight": 1})"));
}

TEST(DurationData, TheCountOverTheWindowIsTheArrivalRate) {
  const DurationData d = read_durations("jobs.prom", kSmall);
  K8sImport i = small_import();
  apply_durations(i, &d, {std::nullopt, kMinute});
  // 8 jobs in a minute: 0.1333 per second (four significant digits).
  EXPECT_EQ(i.scenario["workload"]["arrival"],
            json::parse(R"({"kind": "poisson", "rate_per_s": 0.1333})"));
  EXPECT_EQ(field(i, "workload.arrival").source, "jobs.prom: job_seconds_count{queue=\"a\"}");
  EXPECT_EQ(field(i, "workload.arrival").note,
            "8 jobs over --window 1m, Poisson; assumes the counter covers just that window (the "
            "exporter started then, and did not restart)");

  K8sImport j = small_import();
  apply_durations(j, &d, {2.5, std::nullopt});
  EXPECT_EQ(j.scenario["workload"]["arrival"]["rate_per_s"], 2.5);
  EXPECT_EQ(field(j, "workload.arrival").note, "--rate 2.5: Poisson arrivals at that rate");
}

const char* kTwoQueues = R"(# TYPE job_seconds histogram
job_seconds_bucket{queue="a",worker="X",le="1"} 1
job_seconds_bucket{queue="a",worker="X",le="+Inf"} 1
job_seconds_bucket{queue="b",worker="Y",le="1"} 3
job_seconds_bucket{ queue = "b" , worker="Y", le="+Inf", } 4
job_seconds_count{queue="b",worker="Y"} 4
)";

TEST(DurationData, MatchOrTheWorkersQueuesChooseTheSeriesAndSeveralAreSummed) {
  const DurationData d = read_durations("jobs.prom", kTwoQueues, {"", "queue=\"b\"", {}});
  EXPECT_EQ(d.source, "job_seconds{queue=\"b\",worker=\"Y\"}");
  ASSERT_EQ(d.buckets.size(), 2u);
  EXPECT_EQ(d.buckets[0].count, 3);
  EXPECT_EQ(d.buckets[1].count, 1);
  EXPECT_EQ(read_durations("jobs.prom", kTwoQueues, {"", "worker=X, queue=a", {}}).source,
            "job_seconds{queue=\"a\",worker=\"X\"}");
  // Neither --match nor queues: both, summed bucket by bucket (le 1: 1 + 3; +Inf: 0 + 1).
  const DurationData both = read_durations("jobs.prom", kTwoQueues);
  EXPECT_EQ(both.source,
            "job_seconds, 2 series summed ({queue=\"a\",worker=\"X\"}, "
            "{queue=\"b\",worker=\"Y\"})");
  ASSERT_EQ(both.buckets.size(), 2u);
  EXPECT_EQ(both.buckets[0].count, 4);
  EXPECT_EQ(both.buckets[1].count, 1);
  // queue a has no _count: the sum's count is the buckets'.
  EXPECT_EQ(both.count, 5);
  EXPECT_EQ(both.count_source, "job_seconds_bucket{le=\"+Inf\"} of the 2 series");
  // The worker's queues choose among series labelled by queue.
  const DurationData b = read_durations("jobs.prom", kTwoQueues, {"", "", {"b", "z"}});
  EXPECT_EQ(b.source,
            "job_seconds{queue=\"b\",worker=\"Y\"} (the series of the worker's queues (b, z))");
  EXPECT_EQ(b.count, 4);
  EXPECT_EQ(error_of("jobs.prom", kTwoQueues, {"", "", {"c"}}),
            "jobs.prom: no series of job_seconds has one of the worker's queues (c): it has "
            "job_seconds{queue=\"a\",worker=\"X\"}, job_seconds{queue=\"b\",worker=\"Y\"}: "
            "pass --match 'label=\"value\",...' to choose");
  // Series with other buckets cannot be summed.
  EXPECT_EQ(error_of("jobs.prom",
                     std::string(kTwoQueues) + "job_seconds_bucket{queue=\"c\",le=\"2\"} 1\n"),
            "jobs.prom: job_seconds{queue=\"a\",worker=\"X\"} and job_seconds{queue=\"c\"} have "
            "different buckets, so they cannot be summed: pass --match 'label=\"value\",...' to "
            "choose one");
  EXPECT_EQ(error_of("jobs.prom", kTwoQueues, {"", "queue=\"c\"", {}}),
            "jobs.prom: no series of job_seconds matches --match 'queue=\"c\"': it has "
            "job_seconds{queue=\"a\",worker=\"X\"}, job_seconds{queue=\"b\",worker=\"Y\"}");
  EXPECT_EQ(error_of("jobs.prom", kTwoQueues, {"", "queue", {}}),
            "--match \"queue\": expected label=\"value\", several separated by commas "
            "(queue=\"default\",worker=\"ImportJob\")");
}

TEST(DurationData, SeveralHistogramsNeedMetric) {
  const std::string text =
      std::string(kSmall) +
      "wait_seconds_bucket{le=\"0.5\"} 4\nwait_seconds_bucket{le=\"+Inf\"} 4\n";
  EXPECT_EQ(error_of("m.prom", text),
            "m.prom: 2 histograms (job_seconds, wait_seconds): pass --metric NAME to choose one");
  EXPECT_EQ(read_durations("m.prom", text, {"wait_seconds_bucket", "", {}}).source, "wait_seconds");
  EXPECT_EQ(error_of("m.prom", text, {"nope", "", {}}),
            "m.prom: no histogram named \"nope\" (--metric): the file has job_seconds, "
            "wait_seconds");
}

TEST(DurationData, LabelValuesWithEscapesAndNoInfBucket) {
  // Without +Inf, the _count says how many took longer than the last le.
  const DurationData d = read_durations("e.txt",
                                        "# TYPE t histogram\n"
                                        "t_bucket{job=\"a\\\"b\\\\c\",le=\"0.25\"} 1\n"
                                        "t_bucket{job=\"a\\\"b\\\\c\",le=\"0.5\"} 3\n"
                                        "t_count{job=\"a\\\"b\\\\c\"} 5\n");
  EXPECT_EQ(d.source, "t{job=\"a\\\"b\\\\c\"}");
  ASSERT_EQ(d.buckets.size(), 3u);
  EXPECT_EQ(d.buckets[2].count, 2);
  K8sImport i = small_import();
  apply_durations(i, &d, {});
  // No _sum: the two above 0.5s are drawn up to 1s.
  EXPECT_EQ(i.scenario["workload"]["job_duration"]["histogram"],
            json::parse(R"([{"le": "250ms", "weight": 1}, {"le": "500ms", "weight": 2},
              {"le": "1s", "weight": 2}])"));
}

TEST(DurationData, BadHistogramsNameTheLineAndWhatWasExpected) {
  EXPECT_EQ(error_of("h.prom", "# TYPE t histogram\nt_sum 3\nt_count 2\n"),
            "h.prom: no histogram buckets: expected lines like NAME_bucket{le=\"0.5\"} 12, a "
            "Prometheus histogram's cumulative counts (t declared a histogram, without buckets)");
  EXPECT_EQ(error_of("h.prom",
                     "t_bucket{le=\"1\"} 5\nt_bucket{le=\"2.5\"} 7\nt_bucket{le=\"5\"} 6\n"
                     "t_bucket{le=\"+Inf\"} 7\n"),
            "h.prom: line 3: t: le=\"5\" counts 6 jobs, fewer than le=\"2.5\" (line 2) with 7: "
            "expected cumulative counts, each bucket counting every job at or below its le");
  EXPECT_EQ(error_of("h.prom", "t_bucket{le=\"1\"} 5\nt_bucket{le=\"1.0\"} 5\n"),
            "h.prom: line 2: t: a second bucket le=\"1.0\" (the first on line 1)");
  EXPECT_EQ(error_of("h.prom", "t_bucket{le=\"1\"} 0\nt_bucket{le=\"+Inf\"} 0\n"),
            "h.prom: t: no jobs: every bucket counts 0");
  EXPECT_EQ(error_of("h.prom", "t_bucket{le=\"+Inf\"} 3\n"),
            "h.prom: line 1: t: only the le=\"+Inf\" bucket: expected buckets with finite le, "
            "as the durations are unknown without them");
  EXPECT_EQ(error_of("h.prom", "t_bucket{code=\"200\"} 5\n"),
            "h.prom: line 1: t_bucket{code=\"200\"}: a bucket without an le label: expected "
            "t_bucket{...,le=\"0.5\"} COUNT");
  EXPECT_EQ(error_of("h.prom", "t_bucket{le=\"1\"} -2\n"),
            "h.prom: line 1: t_bucket{le=\"1\"}: expected a count >= 0, got -2");
  EXPECT_EQ(error_of("h.prom", "t_bucket{le=\"1} 2\n"),
            "h.prom: line 1: expected a sample like NAME{LABELS} VALUE: the label le's value has "
            "no closing quote");
  EXPECT_EQ(error_of("h.prom", "t_bucket{le=\"1\"} many\n"),
            "h.prom: line 1: expected a sample like NAME{LABELS} VALUE: expected a value, got "
            "\"many\"");
}

TEST(DurationData, CsvWithAHeaderOrOneDurationPerLine) {
  const DurationData d =
      read_durations("jobs.csv", "job,elapsed\nImportJob,1.5\n\"Mail, Job\",250ms\nX,\"3\"\n");
  EXPECT_EQ(d.format, "CSV");
  EXPECT_EQ(d.source, "column elapsed");
  EXPECT_EQ(d.values, (std::vector<double>{1.5, 0.25, 3}));
  const DurationData ms = read_durations("jobs.csv", "class;duration_ms\nA;1500\nB;20\n");
  EXPECT_EQ(ms.source, "column duration_ms, milliseconds");
  EXPECT_EQ(ms.values, (std::vector<double>{1.5, 0.02}));
  const DurationData plain = read_durations("d.txt", "0.5\n\n1\n2s\n1m30s\n");
  EXPECT_EQ(plain.source, "");
  EXPECT_EQ(plain.values, (std::vector<double>{0.5, 1, 2, 90}));
}

TEST(DurationData, BadListsNameTheLineOrTheJsonPath) {
  EXPECT_EQ(error_of("d.csv", "1\n-2\n"), "d.csv: line 2: expected a duration >= 0, got \"-2\"");
  EXPECT_EQ(error_of("d.csv", "1\nabc\n"),
            "d.csv: line 2: expected a duration in seconds (1.5) or with a unit (250ms, 1.5s), "
            "got \"abc\"");
  EXPECT_EQ(error_of("d.csv", "id,class\n1,A\n"),
            "d.csv: line 1: no column named like duration, elapsed, runtime or seconds among id, "
            "class: expected one holding the jobs' durations");
  EXPECT_EQ(error_of("d.csv", "1,2\n"),
            "d.csv: line 1: 2 columns and no header: expected one duration per line, or a header "
            "naming the duration column");
  EXPECT_EQ(error_of("d.json", "[1, 2, -1]"), "d.json: [2]: expected a duration >= 0, got -1");
  EXPECT_EQ(error_of("d.json", "[1, \"x\"]"),
            "d.json: [1]: expected a duration in seconds (1.5) or with a unit (250ms, 1.5s), got "
            "\"x\"");
  EXPECT_EQ(error_of("d.json", "[1, [2]]"),
            "d.json: [1]: expected a duration in seconds (1.5) or a string with a unit "
            "(\"250ms\"), got [2]");
  EXPECT_EQ(error_of("d.json", "{\"a\": 1}"),
            "d.json: expected a JSON list of durations like [0.5, \"3s\"], got {\"a\":1}");
  EXPECT_EQ(error_of("d.json", "[]"), "d.json: an empty list: expected at least one duration");
  EXPECT_EQ(error_of("d.csv", " \n\n"),
            "d.csv: empty: expected job durations (a Prometheus histogram, a CSV or JSON list, a "
            "Sidekiq or Celery log)");
  EXPECT_EQ(error_of("d.csv", "1\n2\n", {"", "queue=\"a\"", {}}),
            "d.csv: --match is for a Prometheus histogram, and this file is not one");
}

TEST(DurationData, JsonListOfSecondsAndUnits) {
  const DurationData d = read_durations("d.json", "[0.5, 1.2, \"3s\"]");
  EXPECT_EQ(d.format, "JSON list");
  EXPECT_EQ(d.values, (std::vector<double>{0.5, 1.2, 3}));
  K8sImport i = small_import();
  apply_durations(i, &d, {});
  EXPECT_EQ(i.scenario["workload"]["job_duration"],
            json::parse(R"({"kind": "empirical", "values": ["500ms", "1.2s", "3s"]})"));
  // None above 3s (a value of 3s is not above it); none above 5s.
  EXPECT_EQ(field(i, "workload.job_duration").note,
            "JSON list: 3 jobs from 500ms to 3s; 0 % above the worker's grace of 3s, 0 % above the "
            "pod's termination grace of 5s");
}

TEST(DurationData, ValuesAboveTheGracesAreCountedExactly) {
  const DurationData d = read_durations("d.csv", "1\n4\n30\n");
  K8sImport i = small_import();
  apply_durations(i, &d, {});
  // Above 3s: 4 and 30, 2 of 3; above 5s: 30, 1 of 3.
  EXPECT_EQ(field(i, "workload.job_duration").note,
            "CSV: 3 jobs from 1s to 30s; 66.7 % above the worker's grace of 3s, 33.3 % above the "
            "pod's termination grace of 5s");
  // Half the 10 slots at a mean of 35s / 3: 10 / 11.67 / 2 = 0.43, to a tenth.
  EXPECT_EQ(i.scenario["workload"]["arrival"]["rate_per_s"], 0.4);
}

TEST(DurationData, ManyValuesBecomeAHistogramAtTheirQuantiles) {
  std::string text;
  for (int v = 1; v <= 20000; ++v) text += std::to_string(v) + "ms\n";
  const DurationData d = read_durations("many.csv", text);
  ASSERT_EQ(d.values.size(), 20000u);
  K8sImport i = small_import();
  apply_durations(i, &d, {});
  const json& h = i.scenario["workload"]["job_duration"]["histogram"];
  // 1000 buckets of 20 values each: the k-th ends at the 20k-th value, 20k ms.
  ASSERT_EQ(h.size(), 1000u);
  EXPECT_EQ(h[0], json::parse(R"({"le": "20ms", "weight": 20})"));
  EXPECT_EQ(h[999], json::parse(R"({"le": "20s", "weight": 20})"));
  EXPECT_NE(field(i, "workload.job_duration")
                .note.find("; more than 10000 values: a histogram of 1000 buckets at their "
                           "quantiles, each a uniform draw within it"),
            std::string::npos);
}

TEST(DurationData, SidekiqLogsInEachFormat) {
  // Sidekiq 6 and 7's text format; a start line and a line of another kind are skipped.
  const DurationData seven = read_durations(
      "sidekiq.log",
      "2024-05-01T10:00:00.000Z pid=7 tid=2ox class=ImportJob jid=a1 INFO: start\n"
      "2024-05-01T10:00:01.500Z pid=7 tid=2ox class=ImportJob jid=a1 elapsed=1.5 INFO: done\n"
      "2024-05-01T10:00:05.000Z pid=7 tid=3px INFO: Booting Sidekiq 7.2.4\n"
      "2024-05-01T10:00:11.500Z pid=7 tid=2oy class=ImportJob jid=a2 elapsed=12.25 INFO: fail\n"
      "2024-05-01T10:00:21.500Z pid=7 tid=2oz class=ImportJob jid=a3 elapsed=0.003 INFO: done\n");
  EXPECT_EQ(seven.format, "Sidekiq log");
  EXPECT_EQ(seven.values, (std::vector<double>{1.5, 12.25, 0.003}));
  // 3 jobs ended over 20s: 2 intervals, 0.1 per second.
  EXPECT_EQ(seven.span_s, 20);
  EXPECT_EQ(seven.timed, 3u);
  K8sImport i = small_import();
  apply_durations(i, &seven, {});
  EXPECT_EQ(i.scenario["workload"]["arrival"], json::parse(R"({"kind": "poisson",
    "rate_per_s": 0.1})"));
  EXPECT_EQ(field(i, "workload.arrival").note,
            "3 jobs ended in the 20s between the log's first and last timestamps, Poisson: in a "
            "steady state jobs start as fast as they end");

  // Sidekiq 5 and before.
  const DurationData five = read_durations(
      "old.txt",
      "2019-03-01T10:00:00.100Z 1 TID-ox2k9 HardWorker JID-abc INFO: start\n"
      "2019-03-01T10:00:12.445Z 1 TID-ox2k9 HardWorker JID-abc INFO: done: 12.345 sec\n");
  EXPECT_EQ(five.format, "Sidekiq log");
  EXPECT_EQ(five.values, (std::vector<double>{12.345}));
  EXPECT_FALSE(five.span_s.has_value());

  // Sidekiq's JSON formatter.
  const DurationData json_log = read_durations(
      "sidekiq.json",
      "{\"ts\":\"2024-05-01T10:00:01.000Z\",\"pid\":7,\"tid\":\"2ox\",\"lvl\":\"INFO\","
      "\"msg\":\"done\",\"ctx\":{\"class\":\"ImportJob\",\"jid\":\"a1\",\"elapsed\":\"2.5\"}}\n"
      "{\"ts\":\"2024-05-01T10:00:05.000Z\",\"pid\":7,\"tid\":\"2ox\",\"lvl\":\"INFO\","
      "\"msg\":\"done\",\"ctx\":{\"class\":\"ImportJob\",\"jid\":\"a2\",\"elapsed\":0.5}}\n");
  EXPECT_EQ(json_log.format, "Sidekiq log");
  EXPECT_EQ(json_log.values, (std::vector<double>{2.5, 0.5}));
  EXPECT_EQ(json_log.span_s, 4);
}

TEST(DurationData, CeleryLog) {
  const DurationData d = read_durations(
      "worker.log",
      "[2024-05-01 10:00:00,000: INFO/MainProcess] Task app.tasks.add[0b1c] received\n"
      "[2024-05-01 10:00:00,012: INFO/ForkPoolWorker-1] Task app.tasks.add[0b1c] succeeded in "
      "0.0123s: 8\n"
      "[2024-05-01 10:00:30,012: INFO/ForkPoolWorker-2] Task app.tasks.report[9f2e] succeeded "
      "in 42.5s: None\n");
  EXPECT_EQ(d.format, "Celery log");
  EXPECT_EQ(d.values, (std::vector<double>{0.0123, 42.5}));
  ASSERT_TRUE(d.span_s.has_value());
  EXPECT_NEAR(*d.span_s, 30, 1e-6);
}

TEST(DurationData, BadLogs) {
  EXPECT_EQ(error_of("w.log",
                     "2024-05-01T10:00:00.000Z pid=7 tid=2ox INFO: Booting Sidekiq\n"
                     "2024-05-01T10:00:00.000Z pid=7 tid=2ox class=A jid=1 INFO: start\n"),
            "w.log: a log with no job durations: expected Sidekiq `done` lines (`elapsed=1.234 "
            "INFO: done`, `INFO: done: 1.234 sec`, or JSON with \"msg\":\"done\" and "
            "ctx.elapsed) or Celery `Task NAME[ID] succeeded in 1.234s` lines");
  EXPECT_EQ(error_of("w.log",
                     "2024-05-01T10:00:00.000Z pid=7 tid=2ox class=A jid=1 elapsed=1 INFO: done\n"
                     "2024-05-01T10:00:01.000Z pid=7 tid=2ox class=A jid=2 elapsed=x INFO: done\n"),
            "w.log: line 2: a Sidekiq `done` line's job duration: expected a duration in seconds "
            "(1.5) or with a unit (250ms, 1.5s), got \"x\"");
}

TEST(DurationData, WindowNeedsAHistogramsCount) {
  const DurationData list = read_durations("d.csv", "1\n2\n");
  K8sImport i = small_import();
  const auto error = [&](const DurationData* d, const ArrivalOptions& a) -> std::string {
    try {
      apply_durations(i, d, a);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(error(&list, {std::nullopt, kHour}),
            "--window 1h: d.csv is a CSV, without a histogram's _count to divide: give --rate N "
            "(jobs per second) instead");
  EXPECT_EQ(error(nullptr, {std::nullopt, kHour}),
            "--window 1h: expected --durations with a Prometheus histogram, whose _count it "
            "divides");
  EXPECT_EQ(error(&list, {1.0, kHour}),
            "--rate and --window: give one (--rate is the arrival rate itself; --window the time "
            "a histogram's _count covers)");
}

TEST(DurationData, ExampleDeploymentWithItsDurations) {
  const std::string dir = DRAINSIM_SOURCE_DIR "/examples/k8s/";
  K8sImport i = import_k8s(
      {{"sidekiq-deployment.yaml",
        read_input_file(dir + "sidekiq-deployment.yaml", kMaxManifestBytes, "a manifest")}},
      {});
  // Without --metric: the runtime's, not the latency's; without --match: the worker's two
  // queues' series summed, 12000 + 2595 jobs.
  const DurationData all =
      read_durations("sidekiq-durations.prom",
                     read_input_file(dir + "sidekiq-durations.prom", kMaxDurationsBytes, "x"),
                     {"", "", {"default", "mailers"}});
  EXPECT_EQ(all.source,
            "sidekiq_job_runtime_seconds, 2 series summed ({queue=\"default\",worker="
            "\"ImportJob\"}, {queue=\"mailers\",worker=\"ActionMailer::MailDeliveryJob\"}) (the "
            "histogram named for the jobs' runtime; --metric to read sidekiq_job_latency_seconds)");
  EXPECT_EQ(all.count, 14595);
  EXPECT_DOUBLE_EQ(*all.sum, 21107.196 + 802.53);
  const DurationData d =
      read_durations("sidekiq-durations.prom",
                     read_input_file(dir + "sidekiq-durations.prom", kMaxDurationsBytes, "x"),
                     {"sidekiq_job_runtime_seconds", "queue=\"default\"", {}});
  apply_durations(i, &d, {std::nullopt, kHour});
  const json& w = i.scenario["workload"];
  // The 13 non-empty buckets of 12000 jobs; the first (10ms, 25ms] with 3, the last
  // (2m, 5m] with 9.
  ASSERT_EQ(w["job_duration"]["histogram"].size(), 13u);
  EXPECT_EQ(w["job_duration"]["histogram"][0], json::parse(R"({"le": "25ms", "weight": 3})"));
  EXPECT_EQ(w["job_duration"]["histogram"][12], json::parse(R"({"le": "5m", "weight": 9})"));
  // 12000 jobs in an hour.
  EXPECT_EQ(w["arrival"], json::parse(R"({"kind": "poisson", "rate_per_s": 3.333})"));
  const ImportedField& f = field(i, "workload.job_duration");
  EXPECT_EQ(f.source,
            "sidekiq-durations.prom: sidekiq_job_runtime_seconds{queue=\"default\",worker="
            "\"ImportJob\"}");
  // Sidekiq's -t 25 is inside (10s, 30s]: above it between the 105 jobs above 30s and the
  // 371 above 10s, of 12000; the pod's 30s is an le: 105.
  EXPECT_EQ(f.note,
            "Prometheus histogram: 12000 jobs, the shortest in (10ms, 25ms], the longest in (2m, "
            "5m]; between 0.9 % and 3.1 % above the worker's grace of 25s (inside the bucket "
            "(10s, 30s]), 0.9 % above the pod's termination grace of 30s; empty buckets dropped");
  EXPECT_NO_THROW(parse_scenario(i.scenario.dump(), "imported")) << i.scenario.dump(2);
}

}  // namespace
}  // namespace drainsim
