// drainsim's limits as a user meets them (issue 20, points 3 and 4): the reproducers of
// tests/reliability/ refused by `validate` and `run` alike, the two agreeing on every
// scenario of the corpus, --max-memory with the estimate, and a long run stopped by
// --max-events or by Ctrl+C with a valid partial results file.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "testing/test_cli.h"

namespace drainsim {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::string kSource = DRAINSIM_SOURCE_DIR;
const std::string kReliability = kSource + "/tests/reliability/";

// Arrivals stop after a million hours: a run that cannot end by itself.
const char* const kEndless = R"({"name": "endless", "duration": "1000000h",
  "workload": {"arrival": {"kind": "constant", "rate_per_s": 10},
               "job_duration": {"kind": "constant", "value": "2s"}},
  "worker": {"concurrency": 10}, "platform": {"replicas": 3}})";

class Limits : public test::CliTest {
 protected:
  // `validate` and `run` on `file` both refuse it with `message` (exit 2), and no results.
  void both_refuse(const std::string& file, const std::string& message) {
    const test::CliResult v = drainsim("validate '" + file + "'");
    EXPECT_EQ(v.code, 2);
    EXPECT_EQ(v.err, "error: " + file + ": " + message + "\n");
    const test::CliResult r = drainsim("run '" + file + "' --out r.json");
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, v.err);
    EXPECT_FALSE(fs::exists(dir_ / "r.json"));
  }

  // A partial results file: valid JSON, marked interrupted `by`, its audit balanced.
  json partial(const std::string& name, const std::string& by) {
    const json doc = json::parse(slurp(dir_ / name));
    EXPECT_EQ(doc["run"]["interrupted"], true);
    EXPECT_EQ(doc["run"]["interrupted_by"], by);
    EXPECT_EQ(doc["run"]["ended_early"], false);
    const json& s = doc["summary"];
    EXPECT_EQ(s["audit"]["ok"], true) << s["audit"].dump();
    EXPECT_EQ(s["jobs_enqueued"].get<std::int64_t>(),
              s["jobs_completed"].get<std::int64_t>() + s["jobs_lost"].get<std::int64_t>() +
                  s["jobs_discarded"].get<std::int64_t>() + s["jobs_pending"].get<std::int64_t>());
    EXPECT_GT(s["jobs_pending"].get<std::int64_t>(), 0);
    EXPECT_EQ(doc["warnings"].back()["code"], "interrupted");
    return doc;
  }
};

TEST_F(Limits, ValidHugeConcurrency) {
  both_refuse(kReliability + "valid-huge-concurrency.json",
              "worker.concurrency: expected an integer from 1 to 100000, got 2147483647");
}

TEST_F(Limits, ValidHugeReplicas) {
  both_refuse(kReliability + "valid-huge-replicas.json",
              "platform.replicas: expected an integer from 0 to 100000, got 2147483647");
}

TEST_F(Limits, ValidHugeRate) {
  both_refuse(kReliability + "valid-huge-rate.json",
              "workload.arrival.rate_per_s: expected at most 1000000 jobs per second (one per "
              "microsecond, the clock's resolution), got 1000000000.0");
}

TEST_F(Limits, ValidHugeBurst) {
  both_refuse(kReliability + "valid-huge-burst.json",
              "workload.arrival.count: expected an integer from 1 to 100000000, got 2147483647");
}

TEST_F(Limits, MaxMemoryRefusesARunThatWouldNotFitWithTheEstimate) {
  // A burst of 10^8 is within the loader's bounds; held at once it takes 10^8 x 256 B =
  // 23.8 GiB, with the program's 16 MiB, a pod's 8 KiB and 10 slots' 3.75 KiB 23.9 GiB.
  const std::string file =
      write("big-burst.json",
            R"({"name": "big", "duration": "10s", "workload": {"arrival": {"kind": "burst",
          "count": 100000000}, "job_duration": {"kind": "constant", "value": "1s"}},
          "worker": {}, "platform": {}})");
  const std::string message =
      "error: " + file +
      ": estimated memory 23.9 GiB is over --max-memory 1 GiB: 23.8 GiB for 100000000 jobs held "
      "at once (workload.arrival.count), 16 MiB for the program, 8 KiB for 1 pods and "
      "processes (platform.replicas, scale_up, rolling_restart, oom_kill), 3.75 KiB for 10 "
      "worker slots (platform.replicas at their most, with a rollout's surge, × "
      "worker.concurrency); lower the first, or raise --max-memory\n";
  const test::CliResult v = drainsim("validate big-burst.json --max-memory 1G");
  EXPECT_EQ(v.code, 2);
  EXPECT_EQ(v.err, "error: big-burst.json" + message.substr(7 + file.size()));
  const test::CliResult r = drainsim("run '" + file + "' --max-memory 1G --out r.json");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, message);
  EXPECT_FALSE(fs::exists(dir_ / "r.json"));
  // Room enough: validate says ok (the run is not tried: it would take 24 GiB).
  EXPECT_EQ(drainsim("validate big-burst.json --max-memory 24G").code, 0);
  // Sizes are checked as given.
  const test::CliResult bad = drainsim("validate big-burst.json --max-memory 12X");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("expected a size like 12G or 512M"), std::string::npos) << bad.err;
}

TEST_F(Limits, ValidateAndRunAcceptTheSameCorpus) {
  // Every shipped scenario, the tests' and the reproducers, and one over --max-memory:
  // `validate` says ok exactly when `run` does not refuse it (exit 2). The run stops after
  // 20000 events: acceptance is decided before it starts.
  std::vector<std::string> files;
  for (const char* folder : {"/scenarios", "/scenarios/fidelity", "/tests/reliability", "/bench"}) {
    for (const fs::directory_entry& e : fs::directory_iterator(kSource + folder)) {
      if (e.path().extension() == ".json") files.push_back(e.path().string());
    }
  }
  files.push_back(write("over-memory.json",
                        R"({"name": "over", "duration": "10s", "workload": {"arrival":
      {"kind": "burst", "count": 50000000}, "job_duration": {"kind": "constant", "value": "1s"}},
      "worker": {}, "platform": {}})"));
  ASSERT_GT(files.size(), 40u);
  std::set<std::string> refused;
  for (const std::string& f : files) {
    const test::CliResult v = drainsim("validate '" + f + "' --max-memory 2G");
    const test::CliResult r =
        drainsim("run '" + f + "' --max-memory 2G --max-events 20000 --out r.json");
    ASSERT_TRUE(v.code == 0 || v.code == 2) << f << ": " << v.err;
    EXPECT_EQ(v.code == 0, r.code != 2) << f << "\nvalidate: " << v.err << "\nrun: " << r.err;
    if (v.code != 0) refused.insert(fs::path(f).filename().string());
  }
  // Refused: the four reproducers of limits, the scenario over 2 GiB, the malformed JSON
  // reproducers (a number too large, a NUL byte), the results files among the reproducers
  // and scenarios/fidelity/notes.json and tolerances.json (none of them a scenario).
  // Everything else is accepted.
  EXPECT_EQ(
      refused,
      (std::set<std::string>{
          "valid-huge-burst.json", "valid-huge-concurrency.json", "valid-huge-rate.json",
          "valid-huge-replicas.json", "over-memory.json", "huge-number-literal.json",
          "trailing-nul.json", "export-schema-version-2.0.results.json",
          "export-short-series-rows.results.json", "reader-3.0-warnings-as-strings.results.json",
          "viewer-negative-ended-at.results.json", "notes.json", "tolerances.json"}));
}

TEST_F(Limits, MaxEventsStopsTheRunWithAPartialResult) {
  write("endless.json", kEndless);
  const test::CliResult r = drainsim("run endless.json --max-events 50000 --out p.json");
  EXPECT_EQ(r.code, 130);
  EXPECT_NE(r.err.find("after 50000 events (--max-events)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("partial results written to p.json (run.interrupted)"), std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("(interrupted: the figures are partial)"), std::string::npos) << r.out;
  const json doc = partial("p.json", "event_limit");
  EXPECT_EQ(doc["warnings"].back()["figures"]["events"], 50000);
  // The limit is the virtual engine's.
  const test::CliResult realtime =
      drainsim("run endless.json --engine realtime --max-events 5 --out q.json");
  EXPECT_EQ(realtime.code, 2);
  EXPECT_EQ(realtime.err, "error: --max-events applies only to the virtual engine\n");
}

TEST_F(Limits, ProgressShowsOncePastTheSimulatedTimeLimit) {
  write("endless.json", kEndless);
  // 50000 events take the run past 1 minute of simulated time: progress lines on stderr
  // (plain, not a terminal).
  const test::CliResult r =
      drainsim("run endless.json --max-events 200000 --progress-time 1m --out p.json");
  EXPECT_EQ(r.code, 130);
  EXPECT_EQ(r.err.rfind("run: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(" simulated s ("), std::string::npos) << r.err;
  // Below both limits: none.
  const test::CliResult quiet = drainsim("run endless.json --max-events 200000 --out q.json");
  EXPECT_EQ(quiet.err.find("run: "), std::string::npos) << quiet.err;
}

TEST_F(Limits, CtrlCStopsALongRunWithAPartialResult) {
  // The run shows progress at once (--progress-events 0); once it has, SIGINT: the run
  // stops at its next look, writes its partial results and exits 130.
  write("endless.json", kEndless);
  int err[2];
  ASSERT_EQ(pipe(err), 0);
  const std::string out = (dir_ / "p.json").string(), scenario = (dir_ / "endless.json").string();
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    dup2(err[1], STDERR_FILENO);
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, STDOUT_FILENO);
    close(err[0]);
    // The limit only ends a run whose Ctrl+C went unheard (then interrupted_by says so).
    execl(DRAINSIM_BINARY, DRAINSIM_BINARY, "run", scenario.c_str(), "--progress-events", "0",
          "--max-events", "100000000", "--out", out.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(err[1]);
  std::string text;
  char buffer[4096];
  bool signalled = false;
  for (ssize_t n; (n = read(err[0], buffer, sizeof buffer)) > 0;) {
    text.append(buffer, static_cast<std::size_t>(n));
    if (!signalled && text.find("run: ") != std::string::npos) {
      ASSERT_EQ(kill(pid, SIGINT), 0);
      signalled = true;
    }
  }
  close(err[0]);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(signalled) << text;
  ASSERT_TRUE(WIFEXITED(status)) << text;
  EXPECT_EQ(WEXITSTATUS(status), 130) << text;
  EXPECT_NE(text.find("interrupted at"), std::string::npos) << text;
  EXPECT_NE(text.find("partial results written to"), std::string::npos) << text;
  const json doc = partial("p.json", "signal");
  EXPECT_LT(doc["run"]["ended_at_s"].get<double>(), 1e6 * 3600);
}

}  // namespace
}  // namespace drainsim
