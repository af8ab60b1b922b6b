// The drainsim command line as a user meets it: exit codes (0 ok, 2 bad input, 3 audit
// failure), messages naming the file and JSON path, and where results go.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>

#include <nlohmann/json.hpp>

#include "testing/test_cli.h"
#include "testing/test_scenarios.h"

namespace {

namespace fs = std::filesystem;

class Cli : public drainsim::test::CliTest {};

const char* kValid = R"({"name": "ok", "duration": "10s", "settle": "1m",
  "workload": {"arrival": {"kind": "burst", "count": 4, "at": "0s"},
               "job_duration": {"kind": "constant", "value": "20s"}},
  "worker": {"concurrency": 4},
  "platform": {"replicas": 1, "pod_start_delay": "5s"},
  "events": [{"at": "10s", "kind": "rolling_restart", "max_surge": 1, "max_unavailable": 0}]})";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  if (at == std::string::npos) throw std::runtime_error("no " + from);
  return text.replace(at, from.size(), to);
}

struct BadCase {
  const char* name;
  std::string text;
  const char* path;  // the JSON path the message must name ("" for whole-file errors)
};

TEST_F(Cli, MalformedScenariosExit2NamingFileAndPath) {
  const BadCase cases[] = {
      {"not_json", "{\"name\": ", ""},
      {"empty", "", ""},
      {"missing_section", replaced(kValid, R"("worker": {"concurrency": 4},)", ""), "worker"},
      {"wrong_type", replaced(kValid, R"("concurrency": 4)", R"("concurrency": "four")"),
       "worker.concurrency"},
      {"negative_duration", replaced(kValid, R"("value": "20s")", R"("value": "-3s")"),
       "workload.job_duration.value"},
      {"unparsable_duration", replaced(kValid, R"("settle": "1m")", R"("settle": "soon")"),
       "settle"},
      {"unknown_field", replaced(kValid, R"("concurrency": 4)", R"("concurency": 4)"),
       "worker.concurency"},
      {"unknown_profile", replaced(kValid, R"("concurrency": 4)", R"("profile": "nosuch")"),
       "worker.profile"},
      {"unknown_event_kind", replaced(kValid, "rolling_restart", "rolling_restrat"),
       "events[0].kind"},
      {"unknown_distribution", replaced(kValid, R"("kind": "constant")", R"("kind": "gaussian")"),
       "workload.job_duration.kind"},
      {"percent_over_100", replaced(kValid, R"("max_surge": 1)", R"("max_surge": "150%")"),
       "events[0].max_surge"},
      {"event_after_end", replaced(kValid, R"("at": "10s")", R"("at": "5m")"), "events[0].at"},
      {"bad_pod_id",
       replaced(kValid,
                R"({"at": "10s", "kind": "rolling_restart", "max_surge": 1, "max_unavailable": 0})",
                R"({"at": "1s", "kind": "signal", "pod": "web-1", "signal": "SIGTERM"})"),
       "events[0].pod"},
  };
  for (const BadCase& c : cases) {
    const std::string file = write(std::string(c.name) + ".json", c.text);
    for (const char* cmd : {"run", "validate"}) {
      const drainsim::test::CliResult r = drainsim(std::string(cmd) + " '" + file + "'");
      EXPECT_EQ(r.code, 2) << c.name << " via " << cmd << ": " << r.err;
      EXPECT_NE(r.err.find(file), std::string::npos) << c.name << " via " << cmd << ": " << r.err;
      EXPECT_NE(r.err.find(std::string(c.path) + ":"), std::string::npos)
          << c.name << " via " << cmd << ": " << r.err;
    }
  }
}

TEST_F(Cli, MissingFileAndBadOverrideExit2) {
  drainsim::test::CliResult r = drainsim("run nosuch.json");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("nosuch.json"), std::string::npos) << r.err;
  const std::string file = write("ok.json", kValid);
  r = drainsim("run '" + file + "' --set worker.grace_perod=10s");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("grace_period"), std::string::npos) << r.err;  // the suggestion
  r = drainsim("run '" + file + "' --set worker.grace_period=-1s");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("worker.grace_period:"), std::string::npos) << r.err;
  r = drainsim("run '" + file + "' --no-such-flag");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "error: run: unknown option \"--no-such-flag\" (drainsim help run lists them)\n");
}

// Every parser error starts "error:" and names the command; an option a typo away from
// one of the command's is suggested.
TEST_F(Cli, ParserErrorsSayErrorAndSuggestTheOptionMeant) {
  const std::string file = write("ok.json", kValid);
  drainsim::test::CliResult r = drainsim("run '" + file + "' --seeds 3");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "error: run: unknown option \"--seeds\" (did you mean \"--seed\"?)\n");
  r = drainsim("tune '" + file + "' --max-job-los=1");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "error: tune: unknown option \"--max-job-los\" (did you mean \"--max-job-loss\"?)\n");
  r = drainsim("run '" + file + "' --seed -1");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("error: run: --seed: ", 0), 0u) << r.err;
  r = drainsim("run '" + file + "' other.json");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("error: run: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("other.json"), std::string::npos) << r.err;
}

// Help lines stay within 100 columns, each command's.
TEST_F(Cli, HelpIsWrappedAt100Columns) {
  for (const char* cmd :
       {"", "run", "real", "fidelity", "compare", "sweep", "merge", "tune", "import", "import k8s",
        "validate", "profiles", "conformance", "export", "help"}) {
    const drainsim::test::CliResult r = drainsim(std::string(cmd) + " --help");
    ASSERT_EQ(r.code, 0) << cmd;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) {
      std::size_t columns = 0;
      for (char c : line) columns += (c & 0xC0) != 0x80;
      EXPECT_LE(columns, 100u) << cmd << ": " << line;
    }
  }
}

TEST_F(Cli, RealOutNamesOneRepeatsFile) {
  const std::string file = write("ok.json", kValid);
  const drainsim::test::CliResult r =
      drainsim("real '" + file +
               "' --system sidekiq --set worker.profile=sidekiq --repeats 2 "
               "--out one.json");
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("error: --out names one results file, for a single repeat: it takes "
                       "neither --repeats 2 nor --out-dir"),
            std::string::npos)
      << r.err;
}

TEST_F(Cli, RunWritesResultsNamedAfterScenarioAndSeed) {
  const std::string scenario = std::string(DRAINSIM_SOURCE_DIR) + "/scenarios/oom-kill.json";
  const drainsim::test::CliResult r =
      drainsim("run '" + scenario + "' --seed 7 --set worker.grace_period=10s --timeline");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("audit: ok"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("result hash"), std::string::npos) << r.out;
  const auto doc = nlohmann::json::parse(slurp(dir_ / "results" / "oom-kill-7.json"));
  EXPECT_EQ(doc["seed"], 7);
  EXPECT_EQ(doc["scenario"]["worker"]["grace_period"], "10s");
  EXPECT_TRUE(doc.contains("timeline"));
  EXPECT_EQ(doc["summary"]["exits"]["oom_killed"].get<int>(), 3);  // 1 pod at 2m, 2 at 5m
}

// Hand-worked case C (run_scenario_test): the OOM kill at 10 s costs 4 shutdown retries,
// each job recovered 25 s after the kill, nothing lost, and no drain (null).
TEST_F(Cli, FailOnExits1ListingTheBrokenThresholds) {
  const std::string file = write(
      "c.json", drainsim::test::one_pod("20s", "", "", R"([{"at": "10s", "kind": "oom_kill"}])"));
  const std::string run = "run '" + file + "' --out res.json";
  drainsim::test::CliResult r =
      drainsim(run +
               " --fail-on 'shutdown_retries>3' --fail-on 'job_loss>0' --fail-on "
               "'orphan_recovery_delay_s.p99>25s' --fail-on 'drain_latency_s.p99>0' "
               "--fail-on 'orphan_recovery_delay_s.p99 >= 25'");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_EQ(r.err,
            "error: 2 of 5 --fail-on thresholds broken:\n"
            "  shutdown_retries>3: shutdown_retries is 4\n"
            "  orphan_recovery_delay_s.p99>=25: orphan_recovery_delay_s.p99 is 25s\n");
  EXPECT_NE(r.out.find("audit: ok"), std::string::npos) << r.out;  // the summary as ever
  EXPECT_TRUE(std::filesystem::exists(dir_ / "res.json"));

  r = drainsim(run + " --fail-on 'shutdown_retries>4' --fail-on 'job_loss>0'");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("thresholds: all 2 hold\n"), std::string::npos) << r.out;

  r = drainsim(run + " --fail-on 'shutdown_retrys>3'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("did you mean \"shutdown_retries\"?"), std::string::npos) << r.err;
}

// Hand-worked case B (run_scenario_test): the deploy at 10 s FAILs the 4 jobs at its 2 s
// grace, and they run again: its row, and its cost a day at 24 such deploys.
TEST_F(Cli, TheSummarySaysWhatEachEventCostAndADaysDeploys) {
  const std::string file =
      write("b.json", drainsim::test::one_pod("20s", R"(, "grace_period": "2s")"));
  const drainsim::test::CliResult r =
      drainsim("run '" + file + "' --out res.json --deploys-per-day 24");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("by cause\n"
                       "  deploy 1 at 10s  job loss 0 (lost 0 + discarded 0)  interrupted 4  "
                       "retries 4  duplicates 0\n"
                       "  a day at 24 deploys: job loss 0  interrupted 96  duplicates 0\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(drainsim("run '" + file + "' --out res.json --deploys-per-day 0").code, 2);
}

TEST_F(Cli, AuditFailureExits3NamingTheJob) {
  const std::string file = write("ok.json", kValid);
  const drainsim::test::CliResult r =
      drainsim("run '" + file + "' --out res.json --inject-fault drop-acked-job=2");
  EXPECT_EQ(r.code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("job 2:"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("audit: FAILED"), std::string::npos) << r.out;
}

TEST_F(Cli, AMalformedFaultIsBadInputNotACrash) {
  const std::string file = write("ok.json", kValid);
  for (const char* fault : {"drop-acked-job=x", "drop-acked-job=", "drop-acked-job=2x", "drop",
                            "drop-acked-job=99999999999999999999999"}) {
    const drainsim::test::CliResult r =
        drainsim("run '" + file + "' --out res.json --inject-fault '" + fault + "'");
    EXPECT_EQ(r.code, 2) << fault << "\n" << r.err;
    EXPECT_NE(r.err.find("expected drop-acked-job=JOB"), std::string::npos) << fault << r.err;
  }
}

TEST_F(Cli, OutputFilesAreWrittenWholeOrNotAtAll) {
  // Written beside the target and renamed over it: an existing file is replaced, nothing
  // temporary is left, a directory that does not exist is an error, and a device such as
  // /dev/stdout is written directly.
  const std::string file = write("ok.json", kValid);
  ASSERT_EQ(drainsim("run '" + file + "' --seed 1 --out res.json").code, 0);
  const drainsim::test::CliResult again = drainsim("run '" + file + "' --seed 2 --out res.json");
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(slurp(dir_ / "res.json"))["seed"], 2);
  const drainsim::test::CliResult missing =
      drainsim("run '" + file + "' --out no-such-dir/res.json");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("no-such-dir/res.json: cannot write the results file"),
            std::string::npos)
      << missing.err;
  const fs::file_type stdout_type = fs::symlink_status("/dev/stdout").type();
  const drainsim::test::CliResult piped =
      drainsim("compare '" + file + "' --profiles ojs --seeds 2 --format json --out /dev/stdout");
  ASSERT_EQ(piped.code, 0) << piped.err;
  EXPECT_EQ(fs::symlink_status("/dev/stdout").type(), stdout_type);  // not replaced
  EXPECT_TRUE(nlohmann::json::parse(piped.out).is_object()) << piped.out;
  // A symbolic link keeps pointing where it did; its target gets the results.
  fs::create_symlink("kept.json", dir_ / "link.json");
  ASSERT_EQ(drainsim("run '" + file + "' --seed 3 --out link.json").code, 0);
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.json"));
  EXPECT_EQ(nlohmann::json::parse(slurp(dir_ / "kept.json"))["seed"], 3);
  for (const auto& entry : fs::directory_iterator(dir_)) {
    EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos) << entry.path();
  }
}

TEST_F(Cli, FidelityComparesTheEnginesAsStatistics) {
  // Case a) of the core issue: four jobs complete on every engine in every run, none
  // retried: without spread on any side, every engine is equivalent on them.
  const std::string file = write("ok.json", kValid);
  const drainsim::test::CliResult r =
      drainsim("fidelity '" + file + "' --time-scale 50 --seeds 3 --repeats 2");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("virtual (n=3)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("realtime (n=2)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("process (n=2)"), std::string::npos) << r.out;
  std::string row;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("jobs_completed", 0) == 0) row = line;
  }
  std::istringstream cells(row);
  std::string metric, v, rt, process, tolerance, rt_verdict, process_verdict;
  cells >> metric >> v >> rt >> process >> tolerance >> rt_verdict >> process_verdict;
  EXPECT_EQ(v, "4") << row;
  EXPECT_EQ(rt, "4") << row;
  EXPECT_EQ(process, "4") << row;
  EXPECT_EQ(tolerance, "±1") << row;  // counts: ±max(1, 10 % of 4)
  EXPECT_EQ(rt_verdict, "equivalent") << row;
  EXPECT_EQ(process_verdict, "equivalent") << row;
  // Repeat r of each runs seed SEED + r: paired over the two seeds both ran.
  EXPECT_NE(r.out.find("realtime vs virtual, same 2 seeds"), std::string::npos) << r.out;
  // The virtual engine alone, against itself: the first source is the reference.
  const drainsim::test::CliResult self =
      drainsim("fidelity '" + file + "' --engines virtual,virtual --seeds 2");
  ASSERT_EQ(self.code, 0) << self.err;
  EXPECT_NE(self.out.find("18 comparisons: 18 equivalent, 0 differ, 0 inconclusive"),
            std::string::npos)
      << self.out;
  EXPECT_EQ(drainsim("fidelity '" + file + "' --set worker.concurrency=0").code, 2);
  EXPECT_EQ(drainsim("fidelity '" + file + "' --engines virtual,warp").code, 2);
  EXPECT_EQ(drainsim("fidelity '" + file + "' --repeats 0").code, 2);
}

TEST_F(Cli, FidelityComparesResultsFilesWithKnownVerdicts) {
  // Six results files made by hand from one run (so of one seed: no pairs, Welch's form):
  // source a loses 10, 12 and 14 jobs, source b 20, 22 and 24: the difference's 90 %
  // interval 10 ± t(0.95, 4) 2.132 × 1.633 = [6.519, 13.481] lies beyond the default
  // ±max(1, 10 % of 12) = ±1.2: they differ. Their shutdown retries are 10, 12, 14 against
  // 11, 13, 15: [-2.481, 4.481] reaches past ±1.2 on both sides, inconclusive; the rest
  // are the same run: equivalent.
  const std::string scenario = write("ok.json", kValid);
  ASSERT_EQ(drainsim("run '" + scenario + "' --out base.json").code, 0);
  const nlohmann::json base = nlohmann::json::parse(slurp(dir_ / "base.json"));
  std::string a, b;
  for (int i = 0; i < 3; ++i) {
    for (const auto& [side, loss, retries] :
         {std::tuple{"a", 10 + 2 * i, 10 + 2 * i}, std::tuple{"b", 20 + 2 * i, 11 + 2 * i}}) {
      nlohmann::json doc = base;
      doc["summary"]["job_loss"] = loss;
      doc["summary"]["shutdown_retries"] = retries;
      const std::string name = std::string(side) + std::to_string(i) + ".json";
      write(name, doc.dump());
      std::string& list = std::string(side) == "a" ? a : b;
      list += (list.empty() ? "" : ",") + (dir_ / name).string();
    }
  }
  const drainsim::test::CliResult r =
      drainsim("fidelity --from 'a=" + a + "' --from 'b=" + b + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto row = [&](const std::string& metric) {
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind(metric + " ", 0) == 0) return line;
    }
    return std::string();
  };
  EXPECT_NE(row("job_loss").find("12 [10..14]"), std::string::npos) << r.out;
  EXPECT_NE(row("job_loss").find("±1.200"), std::string::npos) << r.out;
  EXPECT_NE(row("job_loss").find("DIFFERS +10 [+6.519, +13.481] (+83.3%)"), std::string::npos)
      << r.out;
  EXPECT_NE(row("shutdown_retries").find("inconclusive +1 [-2.481, +4.481]"), std::string::npos)
      << r.out;
  EXPECT_NE(row("jobs_completed").find("equivalent"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("18 comparisons: 16 equivalent, 1 differ, 1 inconclusive"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("tolerances: drainsim's defaults"), std::string::npos) << r.out;

  // Declared tolerances: the case's own for job_loss (±15) holds, and makes it equivalent.
  const std::string tolerances =
      write("tolerances.json",
            R"({"cases": {"hand": {"reason": "made by hand", "metrics": {"job_loss":
          {"absolute": 15, "reason": "wide, for the test"}}}}})");
  const drainsim::test::CliResult wide = drainsim("fidelity --from 'a=" + a + "' --from 'b=" + b +
                                                  "' --tolerances " + tolerances + " --case hand");
  ASSERT_EQ(wide.code, 0) << wide.err;
  EXPECT_NE(wide.out.find("(case hand)"), std::string::npos) << wide.out;
  EXPECT_NE(wide.out.find("equivalent +10 [+6.519, +13.481]"), std::string::npos) << wide.out;
  const drainsim::test::CliResult unknown =
      drainsim("fidelity --from 'a=" + a + "' --from 'b=" + b + "' --tolerances " + tolerances +
               " --case other");
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("--case other: " + tolerances + " declares no tolerances for it"),
            std::string::npos)
      << unknown.err;
  const std::string bad_tolerances = write("bad.json", R"({"units": {"count": {"absolute": 1}}})");
  const drainsim::test::CliResult bad_file =
      drainsim("fidelity --from 'a=" + a + "' --from 'b=" + b + "' --tolerances " + bad_tolerances);
  EXPECT_EQ(bad_file.code, 2);
  EXPECT_NE(bad_file.err.find(bad_tolerances + ": units.count.reason: required field missing"),
            std::string::npos)
      << bad_file.err;

  // Bad sources: exit 2, saying which file and what.
  const drainsim::test::CliResult one = drainsim("fidelity --from 'a=" + a + "'");
  EXPECT_EQ(one.code, 2);
  EXPECT_NE(one.err.find("at least two sources"), std::string::npos) << one.err;
  const drainsim::test::CliResult missing =
      drainsim("fidelity --from a=nosuch.json --from 'b=" + b + "'");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("nosuch.json: cannot read: No such file or directory"),
            std::string::npos)
      << missing.err;
  nlohmann::json broken = base;
  broken["summary"].erase("job_loss");
  write("broken.json", broken.dump());
  const drainsim::test::CliResult bad =
      drainsim("fidelity --from a=" + (dir_ / "broken.json").string() + " --from 'b=" + b + "'");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("broken.json: summary.job_loss: expected a number"), std::string::npos)
      << bad.err;
  nlohmann::json seedless = base;
  seedless.erase("seed");
  write("seedless.json", seedless.dump());
  const drainsim::test::CliResult no_seed =
      drainsim("fidelity --from a=" + (dir_ / "seedless.json").string() + " --from 'b=" + b + "'");
  EXPECT_EQ(no_seed.code, 2);
  EXPECT_NE(no_seed.err.find("seedless.json: seed: expected the run's seed"), std::string::npos)
      << no_seed.err;
  EXPECT_EQ(drainsim("fidelity --from nameless --from 'b=" + b + "'").code, 2);
}

TEST_F(Cli, ARunOnAnotherEngineNeverOverwritesTheVirtualRunsResults) {
  const std::string file = write("ok.json", kValid);
  ASSERT_EQ(drainsim("run '" + file + "'").code, 0);
  const drainsim::test::CliResult r =
      drainsim("run '" + file + "' --engine process --time-scale 200");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("written to results/ok-1.process.json"), std::string::npos) << r.out;
  const auto virtual_run = nlohmann::json::parse(slurp(dir_ / "results" / "ok-1.json"));
  const auto process_run = nlohmann::json::parse(slurp(dir_ / "results" / "ok-1.process.json"));
  EXPECT_EQ(virtual_run["engine"], "virtual");
  EXPECT_FALSE(virtual_run["run"].contains("worker_command"));
  EXPECT_EQ(process_run["engine"], "process");
  EXPECT_EQ(process_run["run"]["worker_command"], "drainsim-worker");
  // Not a terminal here: no progress line on stderr.
  EXPECT_EQ(r.err.find("simulated"), std::string::npos) << r.err;
}

TEST_F(Cli, WorkerCmdPutsAnotherProgramInEveryPod) {
  // Case a) of the core issue through the Python example worker: four 20 s jobs complete,
  // the old pod drains and exits 0.
  const std::string file = write("ok.json", kValid);
  const std::string worker =
      std::string(DRAINSIM_PYTHON) + " " + DRAINSIM_SOURCE_DIR + "/examples/ojs_worker.py";
  const std::string out = (dir_ / "out.json").string();
  const drainsim::test::CliResult r =
      drainsim("run '" + file + "' --engine process --time-scale 50 --out '" + out +
               "' --worker-cmd '" + worker + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("engine process"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("enqueued 4  completed 4"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exits: clean 1"), std::string::npos) << r.out;
  // The results say which program ran in the pods.
  EXPECT_EQ(nlohmann::json::parse(slurp(out))["run"]["worker_command"], worker);

  const drainsim::test::CliResult virtual_engine =
      drainsim("run '" + file + "' --worker-cmd '" + worker + "'");
  EXPECT_EQ(virtual_engine.code, 2);
  EXPECT_NE(virtual_engine.err.find("--worker-cmd and --worker-log need --engine process"),
            std::string::npos)
      << virtual_engine.err;
  // A cap on a log that is not written is a mistake, not a silent no-op.
  for (const std::string engine : {"", " --engine process"}) {
    const drainsim::test::CliResult cap =
        drainsim("run '" + file + "'" + engine + " --worker-log-max 1MiB");
    EXPECT_EQ(cap.code, 2) << engine;
    EXPECT_NE(cap.err.find("--worker-log-max caps --worker-log, which is not given"),
              std::string::npos)
        << cap.err;
  }
  // A command the shell cannot run stops the run at once (not a crash loop of pods).
  const drainsim::test::CliResult missing =
      drainsim("run '" + file + "' --engine process --worker-cmd " + "/nonexistent/worker --out '" +
               (dir_ / "out.json").string() + "'");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("/nonexistent/worker"), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("exited with 127"), std::string::npos) << missing.err;
}

TEST_F(Cli, AnUnknownCommandIsExit2NamingTheNearestOne) {
  const std::pair<const char*, const char*> typos[] = {
      {"runn", "run"},        {"rnu", "run"},          {"tun", "tune"},
      {"comapre", "compare"}, {"conf", "conformance"}, {"valdate", "validate"}};
  for (const auto& [typed, meant] : typos) {
    for (const std::string prefix : {"", "help "}) {
      const drainsim::test::CliResult r =
          drainsim(prefix + typed + (prefix.empty() ? " x.json --seed 1" : ""));
      EXPECT_EQ(r.code, 2) << prefix << typed;
      EXPECT_EQ(r.err, "error: unknown command \"" + std::string(typed) + "\" (did you mean \"" +
                           meant + "\"?)\n")
          << prefix << typed;
      EXPECT_EQ(r.out, "") << prefix << typed;
    }
  }
  // An option before the command is the error, not its value.
  const drainsim::test::CliResult option = drainsim("--seed 5 run x.json");
  EXPECT_EQ(option.code, 2);
  EXPECT_EQ(option.err,
            "error: unknown option \"--seed\": a command's options go after it (drainsim help "
            "COMMAND lists them)\n");
  // Nothing near: no guess, the list.
  const drainsim::test::CliResult far = drainsim("deploy");
  EXPECT_EQ(far.code, 2);
  EXPECT_EQ(far.err,
            "error: unknown command \"deploy\", expected one of run, real, fidelity, compare, "
            "sweep, merge, tune, import, validate, profiles, conformance, export, help\n");
}

TEST_F(Cli, HelpShowsTheTopLevelHelpOrACommands) {
  const drainsim::test::CliResult top = drainsim("--help");
  ASSERT_EQ(top.code, 0) << top.err;
  EXPECT_NE(top.out.find("  help "), std::string::npos) << top.out;  // listed as a command
  const drainsim::test::CliResult help = drainsim("help");
  EXPECT_EQ(help.code, 0) << help.err;
  EXPECT_EQ(help.out, top.out);
  for (const char* cmd : {"run", "tune", "merge", "help"}) {
    const drainsim::test::CliResult own = drainsim(std::string(cmd) + " --help");
    const drainsim::test::CliResult via_help = drainsim(std::string("help ") + cmd);
    ASSERT_EQ(own.code, 0) << cmd;
    EXPECT_EQ(via_help.code, 0) << cmd << via_help.err;
    EXPECT_EQ(via_help.out, own.out) << cmd;
    EXPECT_NE(via_help.out.find(std::string("drainsim ") + cmd + " [OPTIONS]"), std::string::npos)
        << via_help.out;
  }
}

// Runs a binary as on a machine with no display at all.
std::string headless(const std::string& binary) {
  return "env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM '" + binary + "'";
}

TEST_F(Cli, EveryBinarySaysItsVersion) {
  const std::string version = DRAINSIM_VERSION_TEXT;
  const drainsim::test::CliResult cli = drainsim("--version");
  EXPECT_EQ(cli.code, 0);
  EXPECT_EQ(cli.out, "drainsim " + version + "\n");
  const drainsim::test::CliResult worker = shell(headless(DRAINSIM_WORKER_BINARY) + " --version");
  EXPECT_EQ(worker.code, 0);
  EXPECT_EQ(worker.out, "drainsim-worker " + version + "\n");
  const drainsim::test::CliResult worker_help = shell(headless(DRAINSIM_WORKER_BINARY) + " --help");
  EXPECT_EQ(worker_help.code, 0);
  EXPECT_NE(worker_help.out.find("OJS_URL"), std::string::npos) << worker_help.out;
  const drainsim::test::CliResult worker_bad = shell(headless(DRAINSIM_WORKER_BINARY) + " run");
  EXPECT_EQ(worker_bad.code, 2);
  EXPECT_NE(worker_bad.err.find("drainsim-worker: unexpected argument \"run\""), std::string::npos)
      << worker_bad.err;
#ifdef VIEWER_BINARY
  const drainsim::test::CliResult viewer = shell(headless(VIEWER_BINARY) + " --version");
  EXPECT_EQ(viewer.code, 0) << viewer.err;  // was 134: Qt aborted without a display
  EXPECT_EQ(viewer.out, "drainsim-viewer " + version + "\n");
#endif
}

#ifdef VIEWER_BINARY
TEST_F(Cli, TheViewerNeedsADisplayOnlyForAWindow) {
  const drainsim::test::CliResult help = shell(headless(VIEWER_BINARY) + " --help");
  EXPECT_EQ(help.code, 0) << help.err;
  EXPECT_NE(help.out.find("--render <OUT.png>"), std::string::npos) << help.out;
  const drainsim::test::CliResult window = shell(headless(VIEWER_BINARY) + " results.json");
  EXPECT_EQ(window.code, 2);
  EXPECT_EQ(window.err, "drainsim-viewer: no display: use --render OUT.png\n");
  const drainsim::test::CliResult bad = shell(headless(VIEWER_BINARY) + " --no-such-option");
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err, "error: Unknown option 'no-such-option'.\n");
  // --render still works headless: it picks Qt's offscreen platform itself.
  const std::string file = write("ok.json", kValid);
  ASSERT_EQ(drainsim("run '" + file + "' --timeline --out run.json").code, 0);
  const drainsim::test::CliResult render =
      shell(headless(VIEWER_BINARY) + " --render run.png --size 320x200 run.json");
  EXPECT_EQ(render.code, 0) << render.err;
  EXPECT_TRUE(fs::exists(dir_ / "run.png"));
}
#endif

TEST_F(Cli, ASeedIsAWholeNumberFrom0) {
  // CLI11 alone would read -1 as 2^64-1.
  const std::string file = write("ok.json", kValid);
  for (const char* cmd : {"run", "compare", "sweep --grid worker.concurrency=4", "tune", "fidelity",
                          "real --system sidekiq"}) {
    for (const char* seed : {"-1", "1.5", "7x", "18446744073709551616", "''"}) {
      const drainsim::test::CliResult r =
          drainsim(std::string(cmd) + " '" + file + "' --seed " + seed);
      EXPECT_EQ(r.code, 2) << cmd << " --seed " << seed;
      const std::string shown = std::string(seed) == "''" ? "" : seed;
      const std::string name = std::string(cmd).substr(0, std::string(cmd).find(' '));
      EXPECT_EQ(r.err, "error: " + name +
                           ": --seed: expected a whole number from 0 to 18446744073709551615, "
                           "got \"" +
                           shown + "\"\n")
          << cmd << " --seed " << seed;
    }
  }
  const drainsim::test::CliResult largest =
      drainsim("run '" + file + "' --seed 18446744073709551615 --out res.json");
  EXPECT_EQ(largest.code, 0) << largest.err;
  EXPECT_EQ(nlohmann::json::parse(slurp(dir_ / "res.json"))["seed"].get<std::uint64_t>(),
            18446744073709551615u);
}

TEST_F(Cli, TimeScaleIsPositiveAndOnlyForTheRealTimeEngines) {
  const std::string file = write("ok.json", kValid);
  // At 1e-300 a run never ends (it hung); at 1e308 its timers overflow.
  for (const char* scale :
       {"0", "-5", "nan", "inf", "fast", "1e-300", "0.0009", "1e308", "1000001"}) {
    for (const char* cmd : {"run", "fidelity"}) {
      const drainsim::test::CliResult r =
          drainsim(std::string(cmd) + " '" + file + "' --engine" + (cmd[0] == 'f' ? "s" : "") +
                   " realtime --time-scale " + scale);
      EXPECT_EQ(r.code, 2) << cmd << " " << scale;
      EXPECT_EQ(r.err, "error: " + std::string(cmd) +
                           ": --time-scale: expected a number from 0.001 to 1000000 (simulated "
                           "seconds per real second), got \"" +
                           scale + "\"\n")
          << cmd << " " << scale;
    }
  }
  const std::string run_message =
      "error: --time-scale applies only to the realtime and process engines (use --engine "
      "realtime or process; this run's engine is ";
  const drainsim::test::CliResult virtual_engine = drainsim("run '" + file + "' --time-scale 10");
  EXPECT_EQ(virtual_engine.code, 2);
  EXPECT_EQ(virtual_engine.err, run_message + "virtual)\n");
  const drainsim::test::CliResult real_engine =
      drainsim("run '" + file + "' --engine real --time-scale 10");
  EXPECT_EQ(real_engine.code, 2);
  EXPECT_EQ(real_engine.err, run_message + "real)\n");
  const drainsim::test::CliResult fidelity =
      drainsim("fidelity '" + file + "' --engines virtual,virtual --time-scale 10");
  EXPECT_EQ(fidelity.code, 2);
  EXPECT_EQ(fidelity.err,
            "error: --time-scale applies only to the realtime and process engines (--engines has "
            "neither)\n");
  // Where it applies, a fractional scale is fine: 10 simulated seconds take 0.2 s at 50.
  const drainsim::test::CliResult realtime =
      drainsim("run '" + file + "' --engine realtime --time-scale 50.5 --out res.json");
  EXPECT_EQ(realtime.code, 0) << realtime.err;
}

// examples/k8s/sidekiq-deployment.yaml: 30 pods of `sidekiq -c 10 -t 25`, a 30 s grace,
// a quiet-then-sleep-5 preStop. The scenario written loads; the report is on stdout with
// the scenario in a file, on stderr with the scenario on stdout.
TEST_F(Cli, ImportK8sWritesAScenarioThatLoadsAndSaysWhereEachFieldCameFrom) {
  const std::string manifest =
      std::string(DRAINSIM_SOURCE_DIR) + "/examples/k8s/sidekiq-deployment.yaml";
  const std::string out = (dir_ / "ours.json").string();
  drainsim::test::CliResult r = drainsim("import k8s '" + manifest + "' -o '" + out + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("platform.replicas                  30  <- "), std::string::npos) << r.out;
  // The Deployment is the file's second document, after a ServiceAccount.
  EXPECT_NE(r.out.find("sidekiq-deployment.yaml: document 2: spec.replicas"), std::string::npos)
      << r.out;
  const nlohmann::json s = nlohmann::json::parse(std::ifstream(out));
  EXPECT_EQ(s["worker"]["concurrency"], 10);
  EXPECT_EQ(s["worker"]["grace_period"], "25s");
  EXPECT_EQ(s["platform"]["pre_stop"]["kind"], "quiet_then_sleep");
  EXPECT_EQ(drainsim("validate '" + out + "'").code, 0);
  r = drainsim("import k8s '" + manifest + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out), s);
  EXPECT_NE(r.err.find("platform.replicas"), std::string::npos) << r.err;
  // Bad input: exit 2 naming the file and the YAML path.
  const std::string bad = write("bad.yaml",
                                "kind: Deployment\nmetadata: {name: w}\nspec:\n"
                                "  replicas: many\n");
  r = drainsim("import k8s '" + bad + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("bad.yaml: spec.replicas: expected an integer"), std::string::npos) << r.err;
}

// The import names its manifests relative to the scenario; tune --patch (and run
// --suggest) reads them from there, wherever it runs, and writes the recommendation it
// printed into a patch of them.
TEST_F(Cli, TunePatchAndRunSuggestWriteTheRecommendationIntoTheImportedManifest) {
  namespace fs = std::filesystem;
  fs::create_directories(dir_ / "k8s");
  fs::create_directories(dir_ / "scen");
  write("k8s/app.yaml",
        "kind: Deployment\nmetadata: {name: app, namespace: jobs}\nspec:\n  replicas: 2\n"
        "  template:\n    spec:\n      containers:\n        - name: sidekiq\n"
        "          command: [bundle, exec, sidekiq, -c, '4']\n");
  drainsim::test::CliResult r = drainsim("import k8s k8s/app.yaml -o scen/ours.json");
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json s = nlohmann::json::parse(slurp(dir_ / "scen" / "ours.json"));
  EXPECT_EQ(s["origin"], (nlohmann::json{{"kind", "kubernetes"},
                                         {"files", {"../k8s/app.yaml"}},
                                         {"workload", "app"},
                                         {"container", "sidekiq"}}));
  // Jobs of 20 s, a few of them: a grace that lets them finish exists on the grid.
  s["workload"] = {{"arrival", {{"kind", "poisson"}, {"rate_per_s", 0.2}}},
                   {"job_duration", {{"kind", "constant"}, {"value", "20s"}}}};
  s["duration"] = "5m";
  std::ofstream(dir_ / "scen" / "ours.json") << s.dump(2);
  r = shell("(cd scen && '" + std::string(DRAINSIM_BINARY) +
            "' tune ours.json --format json --out ../tune.json --patch ../fix.yaml)");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json t = nlohmann::json::parse(slurp(dir_ / "tune.json"));
  const double grace = t["recommended"]["grace_period_s"];
  const double platform = t["recommended"]["termination_grace_period_s"];
  ASSERT_GT(grace, 0);
  const std::string patch = slurp(dir_ / "fix.yaml");
  const auto whole = [](double v) { return std::to_string(static_cast<long long>(std::ceil(v))); };
  EXPECT_NE(patch.find("terminationGracePeriodSeconds: " + whole(platform) + "\n"),
            std::string::npos)
      << patch;
  // -t added after the command's words, as Sidekiq ran with its default.
  EXPECT_NE(patch.find("args:\n            - \"-t\"\n            - \"" + whole(grace) + "\"\n"),
            std::string::npos)
      << patch;
  EXPECT_NE(r.out.find("kubectl patch deployment app -n jobs --type strategic --patch-file "
                       "../fix.yaml"),
            std::string::npos)
      << r.out;
  // run --suggest: the run, then tune's search with its defaults and the same patch.
  r = shell("(cd scen && '" + std::string(DRAINSIM_BINARY) +
            "' run ours.json --out ../run.json --suggest ../suggested.yaml)");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("audit: ok"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("recommended grace_period: " +
                       t["recommended"]["grace_period"].get<std::string>() + "\n"),
            std::string::npos)
      << r.out;
  const std::string suggested = slurp(dir_ / "suggested.yaml");
  EXPECT_EQ(suggested.substr(suggested.find("\nspec:")), patch.substr(patch.find("\nspec:")));
  EXPECT_NE(r.out.find("--patch-file ../suggested.yaml"), std::string::npos) << r.out;
  // A scenario not imported has nothing to patch; a manifest gone is said by name.
  r = drainsim("tune '" + std::string(DRAINSIM_SOURCE_DIR) +
               "/scenarios/rolling-restart.json' --patch fix2.yaml");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("rolling-restart.json has no origin: it was not written by drainsim "
                       "import k8s"),
            std::string::npos)
      << r.err;
  fs::remove(dir_ / "k8s" / "app.yaml");
  r = drainsim("tune scen/ours.json --patch fix2.yaml");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("error: k8s/app.yaml: "), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "fix2.yaml"));
  // run --suggest says so before it runs: no results file.
  r = drainsim("run scen/ours.json --out run2.json --suggest fix2.yaml");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("error: k8s/app.yaml: "), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "run2.json"));
}

TEST_F(Cli, ValidateAcceptsEveryShippedScenario) {
  const drainsim::test::CliResult r =
      drainsim("validate " + std::string(DRAINSIM_SOURCE_DIR) + "/scenarios/*.json");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("rolling-restart.json: ok"), std::string::npos) << r.out;
}

}  // namespace
