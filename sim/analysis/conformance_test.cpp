// `drainsim conformance`: the OJS profile passes every graceful-shutdown check, the
// profiles that model other behaviour fail the checks their behaviour breaks, with the
// timeline events that break them as evidence; the command's formats and exit codes.
#include "analysis/conformance.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace drainsim {
namespace {

const ConformanceVerdict& verdict(const ConformanceReport& r, const std::string& id) {
  for (const ConformanceVerdict& v : r.verdicts) {
    if (v.id == id) return v;
  }
  throw std::runtime_error("no verdict " + id);
}

// Whether some evidence line of `id` contains `text`.
bool cites(const ConformanceReport& r, const std::string& id, const std::string& text) {
  for (const std::string& e : verdict(r, id).evidence) {
    if (e.find(text) != std::string::npos) return true;
  }
  return false;
}

std::string evidence(const ConformanceReport& r, const std::string& id) {
  std::string out;
  for (const std::string& e : verdict(r, id).evidence) out += e + "\n";
  return out;
}

ConformanceReport check(const char* name) { return check_conformance(*find_profile(name)); }

TEST(Conformance, OjsPassesAllNine) {
  const ConformanceReport r = check("ojs");
  ASSERT_EQ(r.verdicts.size(), 9u);
  for (const ConformanceVerdict& v : r.verdicts) {
    EXPECT_TRUE(v.passed) << v.id << "\n" << evidence(r, v.id);
  }
  EXPECT_EQ(r.passed(), 9);
  EXPECT_TRUE(r.required_passed());
  // The hand-worked timeline: TERM at 5 s, jobs of 10 s and 18 s end in the drain, exit
  // at 18 s; a 300 s job is FAILed at 5 + 30 = 35 s.
  EXPECT_TRUE(cites(r, "GS-001", "5s pod-0 SIGTERM delivered (event)"));
  EXPECT_TRUE(cites(r, "GS-001", "5s pod-0 draining"));
  EXPECT_TRUE(cites(r, "GS-001", "18s job 1 attempt 1 completed"));
  EXPECT_TRUE(cites(r, "GS-001", "18s pod-0 exited 0"));
  EXPECT_TRUE(cites(r, "GS-003", "drain ended at SIGTERM + grace = 35s"));
  EXPECT_TRUE(cites(r, "GS-003", "drain ended at SIGTERM + grace = 15s"));
  EXPECT_TRUE(cites(r, "GS-005", "35s job 0 attempt 1: FAIL ShutdownError"));
  EXPECT_TRUE(cites(r, "GS-005", "35s job 1 attempt 1: FAIL ShutdownError"));
  EXPECT_TRUE(cites(r, "GS-004", "18s pod-0 heartbeat terminate"));
  EXPECT_TRUE(cites(r, "GS-R002", "10s pod-0 exited 1"));
  EXPECT_TRUE(cites(r, "GS-R003", "15s pod-0 remaining 1"));
}

TEST(Conformance, OjsSdksFailHeartbeatsShutdownErrorAndDefaultGrace) {
  for (const char* name : {"ojs-js-sdk", "ojs-go-sdk"}) {
    SCOPED_TRACE(name);
    const ConformanceReport r = check(name);
    EXPECT_FALSE(verdict(r, "GS-003").passed);
    EXPECT_TRUE(cites(r, "GS-003", "default grace period 25s, not 30s"));
    EXPECT_FALSE(verdict(r, "GS-004").passed);
    // The Go SDK's jobs stop 0.1 s after their cancellation at the TERM, and it exits.
    EXPECT_TRUE(cites(r, "GS-004",
                      fmt::format("no heartbeat from pod-0 between 5s (drain start) and {} (exit)",
                                  std::string(name) == "ojs-go-sdk" ? "5.1s" : "18s")))
        << evidence(r, "GS-004");
    EXPECT_FALSE(verdict(r, "GS-005").passed);
    EXPECT_FALSE(r.required_passed());
  }
  // The deadline is 5 + 25 = 30 s: the JS SDK aborts the jobs then, and NACKs them as
  // handler_error when they stop 0.1 s later (the cancel latency). The Go SDK's TERM cancels
  // them at once: they stop at 5.1 s, their FAILs are lost on the cancelled context, and
  // the process exits with the backend still holding them.
  const ConformanceReport js = check("ojs-js-sdk");
  EXPECT_TRUE(
      cites(js, "GS-005", "job 0 attempt 1: FAIL handler_error at 30.1s, not ShutdownError"))
      << evidence(js, "GS-005");
  const ConformanceReport go = check("ojs-go-sdk");
  EXPECT_TRUE(cites(go, "GS-005",
                    "job 0: stopped at 5.1s, before the deadline (30s), and reported to nobody; "
                    "the process exited 0 at 5.1s holding it"))
      << evidence(go, "GS-005");
}

TEST(Conformance, NaiveDiesOnTermAndInt) {
  const ConformanceReport r = check("naive");
  EXPECT_FALSE(verdict(r, "GS-001").passed);
  EXPECT_TRUE(cites(r, "GS-001", "exit 143")) << evidence(r, "GS-001");
  EXPECT_FALSE(verdict(r, "GS-002").passed);
  EXPECT_TRUE(cites(r, "GS-002", "exit 130")) << evidence(r, "GS-002");
}

TEST(Conformance, SidekiqRequeuesAndIgnoresTheSecondTerm) {
  const ConformanceReport r = check("sidekiq");
  EXPECT_FALSE(verdict(r, "GS-005").passed);
  EXPECT_TRUE(
      cites(r, "GS-005", "job 0 attempt 1: requeued at 29.501s, not FAILed with ShutdownError"))
      << evidence(r, "GS-005");
  EXPECT_FALSE(verdict(r, "GS-R002").passed);
  // Grace 60 s for this check: the second TERM at 10 s is ignored, the drain ends at 65 s.
  EXPECT_TRUE(cites(r, "GS-R002", "it waited for the deadline (65s)")) << evidence(r, "GS-R002");
  EXPECT_TRUE(verdict(r, "GS-R001").passed) << evidence(r, "GS-R001");
  EXPECT_FALSE(verdict(r, "GS-R003").passed);  // no remaining-count log
}

TEST(Conformance, RiverWaitsForever) {
  const ConformanceReport r = check("river");
  EXPECT_FALSE(verdict(r, "GS-003").passed);
  EXPECT_TRUE(cites(r, "GS-003", "default grace period forever, not 30s"));
  EXPECT_TRUE(cites(r, "GS-003", "no deadline: pod-0 drained until 300s")) << evidence(r, "GS-003");
}

// --- the command line ---------------------------------------------------------------------

struct Result {
  int code;
  std::string out;
};

Result drainsim(const std::string& args) {
  namespace fs = std::filesystem;
  const fs::path out = fs::temp_directory_path() / "drainsim_conformance_out.txt";
  const std::string cmd =
      std::string("'") + DRAINSIM_BINARY + "' " + args + " > '" + out.string() + "' 2>&1";
  const int status = std::system(cmd.c_str());
  std::ifstream f(out);
  std::stringstream s;
  s << f.rdbuf();
  fs::remove(out);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, s.str()};
}

TEST(ConformanceCli, ExitCodesFormatsAndDeterminism) {
  const Result ojs = drainsim("conformance --profile ojs --format json");
  EXPECT_EQ(ojs.code, 0) << ojs.out;
  const nlohmann::json j = nlohmann::json::parse(ojs.out);
  EXPECT_EQ(j["profile"], "ojs");
  ASSERT_EQ(j["verdicts"].size(), 9u);
  EXPECT_EQ(j["verdicts"][0]["id"], "GS-001");
  EXPECT_EQ(j["verdicts"][0]["level"], "required");
  EXPECT_EQ(j["verdicts"][0]["verdict"], "pass");
  EXPECT_FALSE(j["verdicts"][0]["evidence"].empty());
  EXPECT_EQ(j["verdicts"][8]["level"], "recommended");
  EXPECT_EQ(j["passed"], 9);
  EXPECT_EQ(j["failed"], 0);
  EXPECT_EQ(drainsim("conformance --profile ojs --format json").out, ojs.out);

  const Result go = drainsim("conformance --profile ojs-go-sdk");
  EXPECT_EQ(go.code, 1) << go.out;
  EXPECT_NE(go.out.find("GS-004  fail  heartbeats continue while draining"), std::string::npos)
      << go.out;
  EXPECT_EQ(drainsim("conformance --profile ojs-go-sdk").out, go.out);

  const Result unknown = drainsim("conformance --profile nope");
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.out.find("expected one of ojs, ojs-go-sdk"), std::string::npos) << unknown.out;
}

}  // namespace
}  // namespace drainsim
