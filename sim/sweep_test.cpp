// drainsim sweep: axis parsing, a grid whose interrupted jobs are worked out by hand, the
// same bytes whatever the thread count, and bad axes refused before anything runs.
#include "sweep.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scenario_loader.h"
#include "test_cli.h"

namespace drainsim {
namespace {

using nlohmann::json;

// One pod of concurrency 4 (new pods start in 5 s), three 40 s jobs at t = 0, retries
// without jitter; a rolling restart at 10 s adds pod-1 (ready at 15 s), then deletes
// pod-0: TERM at 15 s, when each job has 25 s left. Nothing here is random. With grace
// 10 s the deadline (25 s) comes first: all three jobs are interrupted and run again on
// pod-1. With grace 30 s or 50 s the jobs finish at 40 s, before the deadline: none is.
const char* kThreeLongJobs = R"({"name": "three-long-jobs", "duration": "1s", "settle": "10m",
  "workload": {"arrival": {"kind": "burst", "count": 3, "at": "0s"},
               "job_duration": {"kind": "constant", "value": "40s"}},
  "backend": {"retry": {"jitter": false}},
  "worker": {"concurrency": 4, "grace_period": "2s"},
  "platform": {"replicas": 1, "pod_start_delay": "5s"},
  "events": [{"at": "10s", "kind": "rolling_restart", "max_surge": 1, "max_unavailable": 0}]})";

std::vector<json> values(std::string_view spec) {
  const AxisParse a = parse_axis(spec);
  EXPECT_TRUE(a.axis) << a.error;
  return a.axis ? a.axis->values : std::vector<json>{};
}

std::string error(std::string_view spec) {
  const AxisParse a = parse_axis(spec);
  EXPECT_FALSE(a.axis);
  return a.error;
}

TEST(SweepAxis, DurationRangesIncludeTheEndWhenItLandsOnAStep) {
  EXPECT_EQ(values("worker.grace_period=5s..20s/5s"),
            (std::vector<json>{"5s", "10s", "15s", "20s"}));
  EXPECT_EQ(values("worker.grace_period=5s..22s/5s"),
            (std::vector<json>{"5s", "10s", "15s", "20s"}));
  EXPECT_EQ(values("worker.grace_period=30s..2m/30s"),
            (std::vector<json>{"30s", "1m", "1m30s", "2m"}));
  const AxisParse a = parse_axis("worker.grace_period=5s..10s/5s");
  ASSERT_TRUE(a.axis);
  EXPECT_EQ(a.axis->path, "worker.grace_period");
  EXPECT_EQ(a.axis->overrides,
            (std::vector<std::string>{"worker.grace_period=5s", "worker.grace_period=10s"}));
}

TEST(SweepAxis, NumericRangesAndLists) {
  EXPECT_EQ(values("worker.concurrency=1..4/1"), (std::vector<json>{1, 2, 3, 4}));
  EXPECT_EQ(values("worker.concurrency=2..9/3"), (std::vector<json>{2, 5, 8}));
  EXPECT_EQ(values("x.y=0.1..0.3/0.1"), (std::vector<json>{0.1, 0.2, 0.3}));
  EXPECT_EQ(values("platform.termination_grace_period=30s, 60s"),
            (std::vector<json>{"30s", "60s"}));
  EXPECT_EQ(values("worker.concurrency=4,8"), (std::vector<json>{4, 8}));
  EXPECT_EQ(values("worker.profile=sidekiq"), (std::vector<json>{"sidekiq"}));
}

TEST(SweepAxis, MalformedAxesAreRefusedNamingTheAxis) {
  EXPECT_EQ(error("worker.grace_period"),
            "--grid worker.grace_period: expected PATH=START..END/STEP or PATH=V1,V2,...");
  EXPECT_EQ(error("worker.grace_period="), "--grid worker.grace_period=: an empty list of values");
  EXPECT_EQ(error("=5s"), "--grid =5s: no field path before '='");
  EXPECT_EQ(error("a=1,,2"), "--grid a=1,,2: an empty value in the list");
  EXPECT_EQ(error("a=5s..1s/5s"), "--grid a=5s..1s/5s: the range goes backwards (5s > 1s)");
  EXPECT_EQ(error("a=5s..20s/0s"), "--grid a=5s..20s/0s: the step 0s is not positive");
  EXPECT_EQ(error("a=5s..20s/-5s"), "--grid a=5s..20s/-5s: the step -5s is not positive");
  EXPECT_EQ(error("a=1..10/0"), "--grid a=1..10/0: the step 0 is not positive");
  EXPECT_EQ(error("a=5s..20s"),
            "--grid a=5s..20s: a range needs a step: START..END/STEP, e.g. 5s..120s/5s");
  EXPECT_NE(error("a=1s..5/1s").find("all durations"), std::string::npos);
  EXPECT_NE(error("a=1s..5s/1s,10s").find("mixes a range"), std::string::npos);
}

class SweepRun : public drainsim::test::CliTest {
 protected:
  SweepSpec spec(unsigned threads) {
    SweepSpec s;
    s.scenario = write("three.json", kThreeLongJobs);
    s.axes.push_back(*parse_axis("worker.grace_period=10s,30s,50s").axis);
    s.seeds = 3;
    s.first_seed = 7;
    s.threads = threads;
    return s;
  }
};

TEST_F(SweepRun, InterruptedJobsPerGraceWorkedByHand) {
  const Sweep s = run_sweep(spec(2));
  EXPECT_EQ(s.scenario, "three-long-jobs");
  EXPECT_EQ(s.seeds, (std::vector<std::uint64_t>{7, 8, 9}));
  ASSERT_EQ(s.points.size(), 3u);
  const double interrupted[] = {3, 0, 0};
  const double retries[] = {3, 0, 0};
  for (std::size_t p = 0; p < 3; ++p) {
    const SweepPoint& point = s.points[p];
    EXPECT_EQ(point.values, (std::vector<json>{s.axes[0].values[p]}));
    ASSERT_EQ(point.runs.size(), 3u);
    const Interval& i = point.metrics.at("interrupted_jobs");
    EXPECT_EQ(i.n, 3u);
    EXPECT_EQ(i.mean, interrupted[p]) << point.values[0];
    EXPECT_EQ(i.half_width, 0);
    EXPECT_EQ(point.metrics.at("shutdown_retries").mean, retries[p]);
    EXPECT_EQ(point.metrics.at("jobs_completed").mean, 3);
    EXPECT_EQ(point.metrics.at("drain_latency_s.count").mean, 1);
    EXPECT_FALSE(point.metrics.contains("audit.ok"));
  }
  // TERM at 15 s; grace 10 s: exits at the 25 s deadline; longer: exits at 40 s, when the
  // jobs are done.
  EXPECT_EQ(s.points[0].metrics.at("drain_latency_s.max").mean, 10);
  EXPECT_EQ(s.points[1].metrics.at("drain_latency_s.max").mean, 25);
  EXPECT_EQ(s.points[2].metrics.at("drain_latency_s.max").mean, 25);
  EXPECT_TRUE(s.audits_ok());
  const json j = sweep_json(s);
  EXPECT_EQ(j["axes"], json::parse(R"([{"path": "worker.grace_period",
                                        "values": ["10s", "30s", "50s"]}])"));
  EXPECT_EQ(j["points"][1]["values"], json::parse(R"({"worker.grace_period": "30s"})"));
  EXPECT_EQ(j["points"][0]["metrics"]["interrupted_jobs"],
            json::parse(R"({"mean": 3.0, "half_width": 0.0, "low": 3.0, "high": 3.0, "n": 3})"));
  EXPECT_EQ(j["points"][0]["result_hashes"].size(), 3u);
  const std::string csv = sweep_csv(s);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "worker.grace_period,metric,n,mean,half_width,low,high");
  EXPECT_NE(csv.find("\n10s,interrupted_jobs,3,3,0,3,3\n"), std::string::npos);
  EXPECT_NE(csv.find("\n50s,interrupted_jobs,3,0,0,0,0\n"), std::string::npos);
}

TEST_F(SweepRun, TheAxesWinOverTheUsersOverrides) {
  SweepSpec s = spec(1);
  s.overrides = {"worker.grace_period=50s"};
  s.seeds = 1;
  const Sweep out = run_sweep(s);
  EXPECT_EQ(out.points[0].metrics.at("interrupted_jobs").mean, 3);
}

TEST_F(SweepRun, TheOutputDoesNotDependOnTheThreadCount) {
  SweepSpec one = spec(1), three = spec(3);
  one.axes.push_back(*parse_axis("worker.concurrency=1..2/1").axis);
  three.axes = one.axes;
  const Sweep a = run_sweep(one), b = run_sweep(three);
  ASSERT_EQ(a.points.size(), 6u);
  EXPECT_EQ(a.points[1].values, (std::vector<json>{"10s", 2}));  // first axis outermost
  EXPECT_EQ(sweep_json(a).dump(), sweep_json(b).dump());
  EXPECT_EQ(sweep_csv(a), sweep_csv(b));
}

TEST_F(SweepRun, AnUnknownFieldIsAScenarioErrorNamingTheAxis) {
  SweepSpec s = spec(1);
  s.axes.push_back(*parse_axis("nosuch.field=1s").axis);
  try {
    run_sweep(s);
    FAIL() << "no error";
  } catch (const ScenarioError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("--grid nosuch.field=1s: ", 0), 0u) << what;
    EXPECT_NE(what.find("nosuch"), std::string::npos);
  }
}

class SweepCli : public drainsim::test::CliTest {};

TEST_F(SweepCli, SameBytesWithOneThreadOrTwo) {
  write("three.json", kThreeLongJobs);
  const std::string args =
      "sweep three.json --grid worker.grace_period=10s..50s/20s --seeds 2 --threads ";
  const auto one = drainsim(args + "1 --out one.json --csv one.csv");
  const auto two = drainsim(args + "2 --out two.json --csv two.csv");
  ASSERT_EQ(one.code, 0) << one.err;
  ASSERT_EQ(two.code, 0) << two.err;
  EXPECT_EQ(one.err, "");  // no progress when stderr is not a terminal
  EXPECT_EQ(slurp(dir_ / "one.json"), slurp(dir_ / "two.json"));
  EXPECT_EQ(slurp(dir_ / "one.csv"), slurp(dir_ / "two.csv"));
  const json j = json::parse(slurp(dir_ / "one.json"));
  EXPECT_EQ(j["points"][0]["metrics"]["interrupted_jobs"]["mean"], 3.0);
  EXPECT_EQ(j["points"][1]["metrics"]["interrupted_jobs"]["mean"], 0.0);
  const auto out = drainsim(args + "2");  // stdout by default
  EXPECT_EQ(out.out, slurp(dir_ / "one.json"));
}

TEST_F(SweepCli, BadAxesExit2BeforeRunningWithTheMessage) {
  write("three.json", kThreeLongJobs);
  const std::pair<std::string, std::string> cases[] = {
      {"nosuch.field=1s", "error: --grid nosuch.field=1s: "},
      {"worker.grace_period=5s..1s/5s", "the range goes backwards"},
      {"worker.grace_period=5s..20s/0s", "the step 0s is not positive"},
      {"worker.grace_period", "expected PATH=START..END/STEP"},
      {"worker.grace_period=", "an empty list"},
      {"worker.grace_period=1s..5/1s", "all durations"},
  };
  for (const auto& [axis, message] : cases) {
    const auto r = drainsim("sweep three.json --out out.json --grid '" + axis + "'");
    EXPECT_EQ(r.code, 2) << axis;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(axis), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir_ / "out.json")) << axis;
  }
}

}  // namespace
}  // namespace drainsim
