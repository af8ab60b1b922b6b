// The results reader against the reference run (testdata/one-pod-rollout.json, worked out
// by hand below), sweep and compare files of the same scenario, and broken files.
//
// The reference run: pod-0 (2 slots) is ready at 0 s and takes jobs 0 (5 s) and 1 (100 s)
// at once; job 2 (20 s) follows job 0 in slot 0 (5..25 s). The rolling restart at 30 s
// creates pod-1, ready at 40 s (pod_start_delay 10 s); then pod-0 is deleted: its preStop
// sends TSTP (quiet at 40 s) and sleeps 5 s, TERM at 45 s (draining), the worker's grace of
// 20 s ends at 65 s, where it FAILs job 1 (interrupted, 0..65 s) and exits: pod-0 is gone
// at 65 s; the platform's deadline would have been 40 + 30 = 70 s. Job 1 is retried after
// 1 s (no jitter) and runs again on pod-1, slot 0, from 66 s to 166 s, when the run ends.
#include "reader/results_reader.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <numeric>
#include <sstream>

namespace drainsim::viewer {
namespace {

using nlohmann::json;

const std::string kDir = VIEWER_TESTDATA;

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

const Results& reference() {
  static const Document doc = load_document(kDir + "/one-pod-rollout.results.json");
  EXPECT_TRUE(doc.ok()) << doc.error;
  return *doc.run;
}

TEST(ViewerReader, ReferenceRunHasOneLanePerPodWithItsBands) {
  const Results& run = reference();
  EXPECT_EQ(run.scenario_name, "one-pod-rollout");
  EXPECT_EQ(run.ended_at, 166.0);
  EXPECT_EQ(run.concurrency, 2);
  EXPECT_TRUE(run.timeline_missing.empty());
  ASSERT_EQ(run.lanes.size(), 2u);

  const Lane& old_pod = run.lanes[0];
  EXPECT_EQ(old_pod.id, "pod-0");
  EXPECT_EQ(old_pod.generation, 0);
  ASSERT_EQ(old_pod.bands.size(), 4u);
  const struct {
    double start, end;
    PodState state;
  } expected[] = {{0, 40, PodState::kReady},
                  {40, 45, PodState::kQuiet},
                  {45, 65, PodState::kDraining},
                  {65, 166, PodState::kGone}};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(old_pod.bands[i].start, expected[i].start) << i;
    EXPECT_EQ(old_pod.bands[i].end, expected[i].end) << i;
    EXPECT_EQ(old_pod.bands[i].state, expected[i].state) << i;
  }
  const Lane& new_pod = run.lanes[1];
  EXPECT_EQ(new_pod.generation, 1);
  ASSERT_EQ(new_pod.bands.size(), 2u);
  EXPECT_EQ(new_pod.bands[0].start, 30);
  EXPECT_EQ(new_pod.bands[0].state, PodState::kStarting);
  EXPECT_EQ(new_pod.bands[1].start, 40);
  EXPECT_EQ(new_pod.bands[1].end, 166);
  EXPECT_EQ(new_pod.bands[1].state, PodState::kReady);
}

TEST(ViewerReader, ReferenceRunMarkersPreStopAndGraceDeadline) {
  const Results& run = reference();
  const Lane& old_pod = run.lanes[0];
  ASSERT_EQ(old_pod.markers.size(), 2u);
  EXPECT_EQ(old_pod.markers[0].t, 40);
  EXPECT_EQ(old_pod.markers[0].kind, MarkerKind::kTstp);
  EXPECT_EQ(old_pod.markers[0].source, "prestop");
  EXPECT_EQ(old_pod.markers[1].t, 45);
  EXPECT_EQ(old_pod.markers[1].kind, MarkerKind::kTerm);
  ASSERT_TRUE(old_pod.prestop.has_value());
  EXPECT_EQ(old_pod.prestop->start, 40);  // deletion
  EXPECT_EQ(old_pod.prestop->end, 45);    // the TERM after the 5 s sleep
  ASSERT_TRUE(old_pod.grace_deadline.has_value());
  EXPECT_EQ(*old_pod.grace_deadline, 70);  // deletion + termination_grace_period 30 s
  EXPECT_TRUE(run.lanes[1].markers.empty());
  EXPECT_FALSE(run.lanes[1].prestop.has_value());
  EXPECT_FALSE(run.lanes[1].grace_deadline.has_value());
}

TEST(ViewerReader, ReferenceRunAttemptsOnSlotTracks) {
  const Results& run = reference();
  ASSERT_EQ(run.attempts.size(), 4u);
  const Lane& old_pod = run.lanes[0];
  ASSERT_EQ(old_pod.tracks.size(), 2u);
  // Slot 0: job 0 (0..5 s) then job 2 (5..25 s), both completed.
  const Track& slot0 = old_pod.tracks[0];
  EXPECT_EQ(slot0.slot, 0);
  ASSERT_EQ(slot0.attempts.size(), 2u);
  const Attempt& a0 = run.attempts[slot0.attempts[0]];
  const Attempt& a1 = run.attempts[slot0.attempts[1]];
  EXPECT_EQ(a0.job, 0);
  EXPECT_EQ(a0.end, 5);
  EXPECT_EQ(a0.outcome, Outcome::kCompleted);
  EXPECT_EQ(a1.job, 2);
  EXPECT_EQ(a1.start, 5);
  EXPECT_EQ(a1.end, 25);
  // Slot 1: job 1, attempt 1, interrupted at the worker's grace deadline.
  const Attempt& cut = run.attempts[old_pod.tracks[1].attempts.at(0)];
  EXPECT_EQ(cut.job, 1);
  EXPECT_EQ(cut.attempt, 1);
  EXPECT_EQ(cut.start, 0);
  EXPECT_EQ(cut.end, 65);
  EXPECT_EQ(cut.outcome, Outcome::kInterrupted);
  // Its retry on pod-1.
  ASSERT_EQ(run.lanes[1].tracks.size(), 1u);
  const Attempt& retry = run.attempts[run.lanes[1].tracks[0].attempts.at(0)];
  EXPECT_EQ(retry.job, 1);
  EXPECT_EQ(retry.attempt, 2);
  EXPECT_EQ(retry.worker, 1);
  EXPECT_EQ(retry.start, 66);
  EXPECT_EQ(retry.end, 166);
  EXPECT_EQ(retry.outcome, Outcome::kCompleted);
}

TEST(ViewerReader, ReferenceRunSeries) {
  const Series& s = reference().series;
  // After 0 s: one job queued, two in flight; job 0 done and job 2 taken at 5 s; job 2 done
  // at 25 s; job 1 FAILed at 65 s waits out its 1 s backoff; running again from 66 s.
  EXPECT_EQ(s.queued.at(0), 1);
  EXPECT_EQ(s.in_flight.at(0), 2);
  EXPECT_EQ(s.queued.at(5), 0);
  EXPECT_EQ(s.in_flight.at(24.9), 2);
  EXPECT_EQ(s.in_flight.at(25), 1);
  EXPECT_EQ(s.scheduled.at(65.5), 1);
  EXPECT_EQ(s.in_flight.at(65.5), 0);
  EXPECT_EQ(s.in_flight.at(100), 1);
  EXPECT_EQ(s.in_flight.at(166), 0);
  // Capacity: one ready pod x 2 slots throughout (at 40 s pod-1 gets ready as pod-0 goes
  // quiet).
  ASSERT_EQ(s.capacity.t.size(), 1u);
  EXPECT_EQ(s.capacity.at(50), 2);
  // Completions at 5, 25 and 166 s, in 1 s bins.
  EXPECT_EQ(s.bin_s, 1);
  ASSERT_EQ(s.completions_per_s.size(), 167u);
  EXPECT_EQ(s.completions_per_s[5], 1);
  EXPECT_EQ(s.completions_per_s[25], 1);
  EXPECT_EQ(s.completions_per_s[166], 1);
  EXPECT_EQ(std::accumulate(s.completions_per_s.begin(), s.completions_per_s.end(), 0.0), 3);
}

TEST(ViewerReader, ReferenceRunDeployWindowMatchesDeployDuration) {
  const Results& run = reference();
  ASSERT_EQ(run.windows.size(), 1u);
  EXPECT_TRUE(run.windows[0].deploy);
  EXPECT_EQ(run.windows[0].start, 30);
  EXPECT_EQ(run.windows[0].end, 65);  // pod-1 ready at 40 s, pod-0 gone at 65 s
  const auto row = std::find_if(run.summary.begin(), run.summary.end(), [](const SummaryRow& r) {
    return r.key == "deploy_duration_s.max";
  });
  ASSERT_NE(row, run.summary.end());
  EXPECT_EQ(row->value, "35.000");
}

TEST(ViewerReader, ReferenceRunSummaryAndAudit) {
  const Results& run = reference();
  auto value = [&](const std::string& key) {
    for (const SummaryRow& r : run.summary) {
      if (r.key == key) return r.value;
    }
    return std::string("(missing)");
  };
  EXPECT_EQ(value("jobs_enqueued"), "3");
  EXPECT_EQ(value("interrupted_jobs"), "1");
  EXPECT_EQ(value("wasted_work_s"), "65.000");        // job 1's first attempt, 0..65 s
  EXPECT_EQ(value("drain_latency_s.max"), "25.000");  // deletion at 40 s to exit at 65 s
  EXPECT_EQ(value("exits.clean"), "1");
  EXPECT_EQ(value("audit.ok"), "(missing)");  // the audit is kept apart
  EXPECT_TRUE(run.audit_ok);
  EXPECT_EQ(run.audit_balance, "enqueued 3 = completed 3 + lost 0 + discarded 0 + pending 0");
}

TEST(ViewerReader, ReferenceRunLossByCause) {
  // The rolling restart at 30 s deletes pod-0, whose worker FAILs job 1 at 65 s: one job
  // interrupted and retried, nothing lost; no job is troubled without an event.
  const Results& run = reference();
  ASSERT_TRUE(run.by_cause.has_value());
  ASSERT_EQ(run.by_cause->size(), 2u);
  const CauseFigures& deploy = (*run.by_cause)[0];
  EXPECT_EQ(deploy.cause, "events[0]");
  EXPECT_EQ(deploy.kind, "rolling_restart");
  EXPECT_EQ(deploy.at, 30.0);
  EXPECT_EQ(deploy.deploy, 1);
  EXPECT_EQ(deploy.cause_class, "deploys");
  EXPECT_EQ(deploy.label, "deploy 1 at 30s");
  EXPECT_EQ(deploy.interrupted, 1);
  EXPECT_EQ(deploy.shutdown_retries, 1);
  EXPECT_EQ(
      deploy.job_loss + deploy.lost + deploy.discarded_by_shutdown + deploy.duplicate_executions,
      0);
  const CauseFigures& none = (*run.by_cause)[1];
  EXPECT_EQ(none.cause, "none");
  EXPECT_EQ(none.kind, "");
  EXPECT_EQ(none.at, std::nullopt);
  EXPECT_EQ(none.deploy, std::nullopt);
  EXPECT_EQ(none.label, "no event");
  EXPECT_EQ(none.interrupted, 0);
}

TEST(ViewerReader, LossByCauseIsOptionalBefore33AndCheckedWhenGiven) {
  const std::string head =
      R"({"schema_version":"3.3","run":{"ended_at_s":60.0},"scenario":{},"pods":[],"summary":{"by_cause":)";
  // A 3.2 file has none: it loads, with no causes.
  const Document old = parse_document(
      R"({"schema_version":"3.2","run":{"ended_at_s":60.0},"summary":{"job_loss":0},"scenario":{},"pods":[]})",
      "old.json");
  ASSERT_TRUE(old.ok()) << old.error;
  EXPECT_FALSE(old.run->by_cause.has_value());
  const std::string good =
      R"({"cause":"none","kind":null,"at_s":null,"deploy":null,"class":"none","label":"no event","interrupted":0,"job_loss":3,"lost":2,"discarded_by_shutdown":1,"duplicate_executions":0,"shutdown_retries":0})";
  const Document ok = parse_document(head + "[" + good + "]}}", "ok.json");
  ASSERT_TRUE(ok.ok()) << ok.error;
  ASSERT_EQ(ok.run->by_cause->size(), 1u);
  EXPECT_EQ((*ok.run->by_cause)[0].job_loss, 3);
  EXPECT_EQ((*ok.run->by_cause)[0].discarded_by_shutdown, 1);
  const std::pair<std::string, std::string> cases[] = {
      {R"({"row":1})", "summary.by_cause: expected a list"},
      {R"([7])", "summary.by_cause[0]: expected an object"},
      {"[" + good + R"(,{"cause":"events[0]","class":"deploys"}])",
       "summary.by_cause[1].label: expected a string, got nothing"},
      {R"([{"cause":"none","class":"none","label":"x","interrupted":-1}])",
       "summary.by_cause[0].interrupted: expected a whole number of jobs, got -1"},
  };
  for (const auto& [rows, said] : cases) {
    const Document d = parse_document(head + rows + "}}", "c.json");
    EXPECT_FALSE(d.ok()) << rows;
    EXPECT_NE(d.error.find("c.json: " + said), std::string::npos) << d.error;
  }
}

TEST(ViewerReader, VisibleRangeFindsTheAttemptsOverlappingIt) {
  const Results& run = reference();
  const Track& slot0 = run.lanes[0].tracks[0];  // 0..5 s, 5..25 s
  IndexRange r = visible(slot0, run.attempts, 6, 10);
  EXPECT_EQ(r.first, 1u);
  EXPECT_EQ(r.last, 2u);
  r = visible(slot0, run.attempts, 0, 4);
  EXPECT_EQ(r.first, 0u);
  EXPECT_EQ(r.last, 1u);
  r = visible(slot0, run.attempts, 30, 40);
  EXPECT_EQ(r.first, r.last);
}

TEST(ViewerReader, DownsampleKeepsEachBucketsExtremes) {
  Steps s;
  for (int i = 0; i < 100; ++i) {
    s.t.push_back(i);
    s.values.push_back(i % 10 == 3 ? 50 : i % 7);
  }
  const Steps d = downsample(s, 0, 100, 10);
  EXPECT_LE(d.t.size(), 1u + 4 * 10);
  EXPECT_EQ(d.values[0], 0);  // value in force at t0
  // Each bucket of 10 keeps its peak of 50 (at 3, 13, ...).
  int peaks = 0;
  for (double v : d.values) peaks += v == 50 ? 1 : 0;
  EXPECT_EQ(peaks, 10);
  EXPECT_TRUE(std::is_sorted(d.t.begin(), d.t.end()));
}

TEST(ViewerReader, SweepFileGivesMetricAgainstTheAxis) {
  const Document doc = load_document(kDir + "/one-pod-rollout.sweep.json");
  ASSERT_TRUE(doc.ok()) << doc.error;
  ASSERT_TRUE(doc.sweep.has_value());
  const Sweep& s = *doc.sweep;
  ASSERT_EQ(s.axes, std::vector<std::string>{"worker.grace_period"});
  ASSERT_EQ(s.points.size(), 3u);
  // Grace 10 s: TERM at 45 s, job 1 interrupted at 55 s; 40 s and 70 s: SIGKILLed at the
  // platform's deadline, 70 s.
  const double x[] = {10, 40, 70}, wasted[] = {55, 70, 70};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(s.points[i].x.at(0), x[i]);
    const Interval* w = s.points[i].metric("wasted_work_s");
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->mean, wasted[i]);
    EXPECT_EQ(w->n, 2);
  }
  EXPECT_EQ(s.points[2].labels.at(0), "1m10s");
  EXPECT_EQ(s.seeds, 2);
  EXPECT_TRUE(s.complete);
  EXPECT_EQ(s.points_total, 3);
  // A sweep stopped early says so.
  std::string text = slurp(kDir + "/one-pod-rollout.sweep.json");
  const std::size_t at = text.find("\"complete\": true");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 16, "\"complete\": false");
  const Document partial = parse_document(text, "part.json");
  ASSERT_TRUE(partial.ok()) << partial.error;
  EXPECT_FALSE(partial.sweep->complete);
}

TEST(ViewerReader, CompareFileGivesOneRowPerProfile) {
  const Document doc = load_document(kDir + "/one-pod-rollout.compare.json");
  ASSERT_TRUE(doc.ok()) << doc.error;
  ASSERT_TRUE(doc.comparison.has_value());
  const Comparison& c = *doc.comparison;
  EXPECT_EQ(c.seeds, 3);
  ASSERT_EQ(c.profiles.size(), 3u);
  EXPECT_EQ(c.profiles[2].profile, "naive");
  EXPECT_EQ(c.metrics.size(), 9u);
  // The 100 s job, one of three, is cut by every profile: interrupted 1/3.
  EXPECT_DOUBLE_EQ(c.profiles[0].metric("interrupted_fraction")->mean, 1.0 / 3);
  // naive has no TERM handler and is PID 1, so the TERM at 45 s is ignored: job 1 dies with
  // the worker at the kubelet's SIGKILL, 40 + 30 s.
  EXPECT_EQ(c.profiles[2].metric("wasted_work_s")->mean, 70);
  EXPECT_EQ(c.profiles[0].metric("wasted_work_s")->mean, 65);
}

TEST(ViewerReader, SweepAndCompareFilesCheckTheirSchemaVersion) {
  for (const char* name : {"/one-pod-rollout.sweep.json", "/one-pod-rollout.compare.json"}) {
    json doc = json::parse(slurp(kDir + name));
    ASSERT_EQ(doc.at("schema_version"), "1.1") << name;
    const auto read = [&](const json& version) {
      json d = doc;
      if (version.is_null()) {
        d.erase("schema_version");
      } else {
        d["schema_version"] = version;
      }
      return parse_document(d.dump(), "f.json");
    };
    // A later 1.x reads; so does a file from before there was a version.
    EXPECT_TRUE(read("1.7").ok()) << name << read("1.7").error;
    EXPECT_TRUE(read(json()).ok()) << name << read(json()).error;
    const Document later = read("2.0");
    ASSERT_FALSE(later.ok()) << name;
    EXPECT_NE(later.error.find("f.json: a "), std::string::npos) << later.error;
    EXPECT_NE(later.error.find(" file of schema_version \"2.0\", which this viewer cannot read "
                               "(it reads 1.x)"),
              std::string::npos)
        << later.error;
    // The same rule as drainsim's own readers (parse_version): " 1.0" and "+1.0" were
    // taken here once.
    for (const json& bad : {json(1), json("one"), json("1"), json(std::string(500, '9')),
                            json(" 1.0"), json("+1.0"), json("1.-0"), json("1.0x")}) {
      const Document d = read(bad);
      ASSERT_FALSE(d.ok()) << name << " " << bad;
      EXPECT_NE(d.error.find("schema_version: expected a version like \"1.0\", got "),
                std::string::npos)
          << d.error;
      EXPECT_LT(d.error.size(), 200u) << d.error;  // the value shown is cut
    }
  }
}

TEST(ViewerReader, FastAndStreamingReadersAgree) {
  // The big-file scanner reads the reference; an escaped character in a timeline string
  // (read the same by any JSON reader) sends it to the streaming SAX reader. Same result.
  const std::string text = slurp(kDir + "/one-pod-rollout.results.json");
  std::string escaped = text;
  const std::size_t at = escaped.find("\"prestop\"");
  ASSERT_NE(at, std::string::npos);
  escaped.replace(at, 9, "\"pre\\u0073top\"");
  std::string spaced;  // and pretty-printed, as jq would
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    spaced += c;
    if (c == '"' && (i == 0 || text[i - 1] != '\\')) in_string = !in_string;
    if (!in_string && (c == ',' || c == '[' || c == ':')) spaced += "\n  ";
  }
  for (const std::string& other : {escaped, spaced}) {
    const Document a = parse_document(text, "a.json"), b = parse_document(other, "b.json");
    ASSERT_TRUE(a.ok() && b.ok()) << b.error;
    const Results &x = *a.run, &y = *b.run;
    ASSERT_EQ(x.lanes.size(), y.lanes.size());
    for (std::size_t i = 0; i < x.lanes.size(); ++i) {
      ASSERT_EQ(x.lanes[i].bands.size(), y.lanes[i].bands.size());
      for (std::size_t k = 0; k < x.lanes[i].bands.size(); ++k) {
        EXPECT_EQ(x.lanes[i].bands[k].start, y.lanes[i].bands[k].start);
        EXPECT_EQ(x.lanes[i].bands[k].state, y.lanes[i].bands[k].state);
      }
      ASSERT_EQ(x.lanes[i].markers.size(), y.lanes[i].markers.size());
      for (std::size_t k = 0; k < x.lanes[i].markers.size(); ++k) {
        EXPECT_EQ(x.lanes[i].markers[k].source, y.lanes[i].markers[k].source);
      }
    }
    ASSERT_EQ(x.attempts.size(), y.attempts.size());
    for (std::size_t i = 0; i < x.attempts.size(); ++i) {
      EXPECT_EQ(x.attempts[i].job, y.attempts[i].job);
      EXPECT_EQ(x.attempts[i].end, y.attempts[i].end);
      EXPECT_EQ(x.attempts[i].outcome, y.attempts[i].outcome);
    }
    EXPECT_EQ(x.series.in_flight.values, y.series.in_flight.values);
    EXPECT_EQ(x.summary.size(), y.summary.size());
    EXPECT_EQ(x.lanes[0].markers[0].source, "prestop");
  }
}

// A file of over 32 MB is read in one pass with the pages behind the reader dropped as it
// goes (load_document): it gives the same run as the same text parsed from memory. 800,000
// half-millisecond attempts, one every millisecond, of pod-0, slot 1, between 200 s and 1000 s,
// join the reference run's 4, before them.
TEST(ViewerReader, ABigFileReadFromItsMappingEqualsTheSameTextInMemory) {
  std::string text = slurp(kDir + "/one-pod-rollout.results.json");
  const std::string rows = "\"rows\":[";
  const std::size_t at = text.find(rows, text.find("\"attempts\":{")) + rows.size();
  std::string extra;
  for (int i = 0; i < 800000; ++i) {
    const double t = 200 + i * 0.001;
    extra += fmt::format("[{},1,0,0,1,{:.6f},{:.6f},\"completed\"],", 1000 + i, t, t + 0.0005);
  }
  text.insert(at, extra);
  ASSERT_GT(text.size(), 32u << 20);
  const std::string path = ::testing::TempDir() + "/big.results.json";
  std::ofstream(path, std::ios::binary) << text;

  const Document mapped = load_document(path), in_memory = parse_document(text, path);
  ASSERT_TRUE(mapped.ok()) << mapped.error;
  ASSERT_TRUE(in_memory.ok()) << in_memory.error;
  const Results &x = *mapped.run, &y = *in_memory.run;
  ASSERT_EQ(x.attempts.size(), 800004u);
  ASSERT_EQ(y.attempts.size(), x.attempts.size());
  for (std::size_t i = 0; i < x.attempts.size(); ++i) {
    ASSERT_EQ(x.attempts[i].job, y.attempts[i].job) << i;
    ASSERT_EQ(x.attempts[i].start, y.attempts[i].start) << i;
  }
  EXPECT_EQ(x.attempts[799999].job, 800999);
  EXPECT_EQ(x.attempts[799999].start, 999.999);
  EXPECT_EQ(x.summary.size(), y.summary.size());
  EXPECT_EQ(x.series.in_flight.values, y.series.in_flight.values);
  EXPECT_EQ(x.lanes[0].tracks.size(), 2u);
}

// --- broken files: a message naming the file and the problem, never a crash.

TEST(ViewerReader, TruncatedFileSaysSo) {
  const std::string text = slurp(kDir + "/one-pod-rollout.results.json");
  const Document doc = parse_document(std::string_view(text).substr(0, text.size() / 2), "rr.json");
  ASSERT_FALSE(doc.ok());
  EXPECT_NE(doc.error.find("rr.json: the JSON ends early"), std::string::npos) << doc.error;
  EXPECT_NE(doc.error.find("truncated"), std::string::npos) << doc.error;
}

TEST(ViewerReader, NonJsonFileSaysWhere) {
  const Document doc = parse_document("drainsim 0.1.0\nnot json\n", "notes.txt");
  ASSERT_FALSE(doc.ok());
  EXPECT_NE(doc.error.find("notes.txt: not valid JSON at byte 1 (line 1, column 1)"),
            std::string::npos)
      << doc.error;
}

TEST(ViewerReader, UnknownSchemaMajorIsRefused) {
  std::string text = slurp(kDir + "/one-pod-rollout.results.json");
  const std::size_t at = text.find("\"schema_version\":\"3.");  // today's 3.x
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 22, "\"schema_version\":\"4.0\"");
  const Document doc = parse_document(text, "new.json");
  ASSERT_FALSE(doc.ok());
  EXPECT_NE(doc.error.find("new.json: results of schema_version \"4.0\""), std::string::npos)
      << doc.error;
  EXPECT_NE(doc.error.find("reads 1.x to 3.x"), std::string::npos) << doc.error;
  // A newer MINOR only adds: read; so are the previous MAJORs.
  text.replace(at, 22, "\"schema_version\":\"3.7\"");
  EXPECT_TRUE(parse_document(text, "newer.json").ok());
  text.replace(at, 22, "\"schema_version\":\"2.1\"");
  EXPECT_TRUE(parse_document(text, "older.json").ok());
  text.replace(at, 22, "\"schema_version\":\"1.2\"");
  EXPECT_TRUE(parse_document(text, "older.json").ok());
  text.replace(at, 22, "\"schema_version\":\"0.9\"");
  EXPECT_FALSE(parse_document(text, "oldest.json").ok());
}

TEST(ViewerReader, WarningsAreReadAsObjectsAndAsTheOlderStrings) {
  const std::string objects =
      R"({"schema_version":"3.0","run":{"ended_at_s":60.0},"summary":{},"scenario":{},"pods":[],"warnings":[)"
      R"({"code":"overload","message":"offered load high","figures":{"slots":4}}]})";
  const Document now = parse_document(objects, "w3.json");
  ASSERT_TRUE(now.ok()) << now.error;
  ASSERT_TRUE(now.run);
  ASSERT_EQ(now.run->warnings.size(), 1u);
  EXPECT_EQ(now.run->warnings[0], "offered load high");
  const std::string strings =
      R"({"schema_version":"2.1","run":{"ended_at_s":60.0},"summary":{},"scenario":{},"pods":[],"warnings":["old"]})";
  const Document before = parse_document(strings, "w2.json");
  ASSERT_TRUE(before.ok()) << before.error;
  ASSERT_TRUE(before.run);
  ASSERT_EQ(before.run->warnings.size(), 1u);
  EXPECT_EQ(before.run->warnings[0], "old");
}

TEST(ViewerReader, AMalformedWarningIsRefusedWithItsPath) {
  // A 3.0 file whose warnings are 2.x strings or broken objects loaded as if fine.
  const std::string head =
      R"({"schema_version":"3.0","run":{"ended_at_s":60.0},"summary":{},"scenario":{},"pods":[],"warnings":)";
  const std::pair<std::string, std::string> cases[] = {
      {R"(["a 2.x-style warning"])", "warnings[0]: expected a warning object"},
      {R"([{"code":7,"message":null}])", "warnings[0]: expected a warning object"},
      {R"([{"code":"overload","message":"m","figures":{}},{}])",
       "warnings[1]: expected a warning object"},
      {R"([null])", "warnings[0]: expected a warning object"},
      {R"("overload")", "warnings: expected a list"},
  };
  for (const auto& [warnings, said] : cases) {
    const Document d = parse_document(head + warnings + "}", "w.json");
    EXPECT_FALSE(d.ok()) << warnings;
    EXPECT_NE(d.error.find(said), std::string::npos) << d.error;
  }
  // And a 2.x file's warning must be a string.
  const Document old = parse_document(
      R"({"schema_version":"2.1","run":{"ended_at_s":60.0},"summary":{},"scenario":{},"pods":[],"warnings":[{"code":"x","message":"m"}]})",
      "w2.json");
  EXPECT_FALSE(old.ok());
  EXPECT_NE(old.error.find("warnings[0]: expected a warning message"), std::string::npos)
      << old.error;
}

TEST(ViewerReader, EmptyOrMissingTimelineLoadsTheSummaryAndSaysWhy) {
  std::string text = slurp(kDir + "/one-pod-rollout.results.json");
  const std::size_t from = text.find("\"timeline\":");
  const std::size_t to = text.find(",\"warnings\"");
  ASSERT_NE(from, std::string::npos);
  ASSERT_NE(to, std::string::npos);
  const std::string empty_tables =
      R"("timeline":{"attempts":{"columns":["job","attempt","pod","worker","slot","start_s","end_s","outcome"],"rows":[]},)"
      R"("pod_states":{"columns":["t_s","pod","state"],"rows":[]},)"
      R"("series":{"columns":["t_s","queued","scheduled","in_flight"],"rows":[]}})";
  std::string empty = text;
  empty.replace(from, to - from, empty_tables);
  Document doc = parse_document(empty, "empty.json");
  ASSERT_TRUE(doc.ok()) << doc.error;
  EXPECT_EQ(doc.run->timeline_missing,
            "the timeline is empty: no pod state, attempt or series row");
  EXPECT_TRUE(doc.run->lanes.empty());
  EXPECT_FALSE(doc.run->summary.empty());

  std::string none = text;
  none.erase(from, to - from + 1);  // and the comma after it
  doc = parse_document(none, "none.json");
  ASSERT_TRUE(doc.ok()) << doc.error;
  EXPECT_NE(doc.run->timeline_missing.find("--timeline"), std::string::npos);
}

TEST(ViewerReader, OtherBrokenFiles) {
  struct Case {
    const char* text;
    const char* message;
  } cases[] = {
      {"", "x.json: the file is empty"},
      {"[1, 2]", "x.json: not a drainsim results, sweep or compare file (not a JSON object)"},
      {R"({"a": 1})", "x.json: not a drainsim results, sweep or compare file (no"},
      {R"({"schema_version": "1.1", "pods": []})", "x.json: a results file needs \"summary\""},
      {R"({"schema_version":"1.1","timeline":{"attempts":{"columns":["job","attempt","pod","worker","slot","start_s","end_s","outcome"],"rows":[[0,1,0,0,0,0.0,"x","completed"]]}}})",
       "x.json: timeline.attempts: row 0, column end_s: expected a number"},
      {R"({"schema_version":"1.1","timeline":{"pod_states":{"rows":[]}}})",
       "x.json: timeline.pod_states: no columns before the rows"},
  };
  for (const Case& c : cases) {
    const Document doc = parse_document(c.text, "x.json");
    ASSERT_FALSE(doc.ok()) << c.text;
    EXPECT_EQ(doc.error.substr(0, std::string(c.message).size()), c.message) << doc.error;
  }
  EXPECT_EQ(load_document("/nonexistent/rr.json").error,
            "/nonexistent/rr.json: cannot read the file: No such file or directory");
}

// Hostile input (issue 20): refused with a message, never an abort or a hang.
TEST(ViewerReader, HostileInputIsRefused) {
  const std::string ok =
      R"({"schema_version":"1.1","run":{"ended_at_s":60.0},"summary":{},"scenario":{},"pods":[]})";
  ASSERT_TRUE(parse_document(ok, "x.json").ok()) << parse_document(ok, "x.json").error;
  const auto replaced = [&](const std::string& from, const std::string& to) {
    std::string t = ok;
    return t.replace(t.find(from), from.size(), to);
  };
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  struct Case {
    std::string text, message;
  } cases[] = {
      // Sized the charts' bins from it: std::length_error, abort.
      {replaced("60.0", "-100"),
       "x.json: run.ended_at_s: expected a number of seconds from 0 to 1e+09, got -100"},
      {replaced("60.0", "\"1m\""),
       "x.json: run.ended_at_s: expected a number of seconds from 0 to 1e+09, got \"1m\""},
      {replaced("\"1.1\"", "\"\""),
       "x.json: schema_version: expected a version like \"3.0\", got \"\""},
      {replaced("\"1.1\"", "\"4.0\""), "x.json: results of schema_version \"4.0\""},
      // nlohmann's lexer ends the text at a NUL: what follows was ignored.
      {ok + std::string(1, '\0') + "{{{",
       "x.json: not valid JSON at byte 87 (line 1, column 88): a NUL byte"},
      {replaced("{}", deep), "x.json: not valid JSON: nested more than 100 levels deep"},
      {replaced("[]", deep), "x.json: not valid JSON: nested more than 100 levels deep"},
  };
  for (const Case& c : cases) {
    const Document doc = parse_document(c.text, "x.json");
    ASSERT_FALSE(doc.ok()) << c.text.substr(0, 200);
    EXPECT_EQ(doc.error.substr(0, c.message.size()), c.message) << doc.error.substr(0, 300);
  }
  // By type, before reading: /dev/zero was read for ever, a FIFO waited for a writer.
  EXPECT_EQ(load_document("/dev/zero").error,
            "/dev/zero: cannot read the file: not a regular file (a character device)");
  const std::string fifo = ::testing::TempDir() + "viewer-reader-fifo.json";
  std::remove(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(load_document(fifo).error,
            fifo + ": cannot read the file: not a regular file (a FIFO)");
  std::remove(fifo.c_str());
}

TEST(ViewerReader, CapacityFollowsReadyPodsAndChaosWindowsLastUntilSettled) {
  // Two pods with 3 slots; pod-1 is OOM-killed at 20 s and ready again at 40 s.
  const std::string text = R"({"schema_version":"1.1","run":{"ended_at_s":60.0},"summary":{},
    "scenario":{"worker":{"concurrency":3},"platform":{"kind":"kubernetes"},
                "events":[{"at":"20s","kind":"oom_kill","pod":"pod-1"}]},
    "pods":[{"id":"pod-0"},{"id":"pod-1"}],
    "timeline":{"pod_states":{"columns":["t_s","pod","state"],"rows":[
      [0.0,0,"ready"],[0.0,1,"ready"],[20.0,1,"crashed"],[30.0,1,"starting"],[40.0,1,"ready"]]},
    "signals":{"columns":["t_s","pod","signal","delivered","source"],"rows":[[20.0,1,"SIGKILL",true,"oom"]]}}})";
  const Document doc = parse_document(text, "oom.json");
  ASSERT_TRUE(doc.ok()) << doc.error;
  const Results& run = *doc.run;
  EXPECT_EQ(run.series.capacity.at(10), 6);
  EXPECT_EQ(run.series.capacity.at(25), 3);
  EXPECT_EQ(run.series.capacity.at(45), 6);
  ASSERT_EQ(run.windows.size(), 1u);
  EXPECT_FALSE(run.windows[0].deploy);
  EXPECT_EQ(run.windows[0].label, "oom_kill pod-1");
  EXPECT_EQ(run.windows[0].start, 20);
  EXPECT_EQ(run.windows[0].end, 40);
  ASSERT_EQ(run.lanes[1].markers.size(), 1u);
  EXPECT_EQ(run.lanes[1].markers[0].kind, MarkerKind::kOom);
}

}  // namespace
}  // namespace drainsim::viewer
