// drainsim compare: per-profile means and Student-t 95 % intervals over seeds, worked out
// by hand where every seed gives the same run, and recomputed here from the seeds' own
// runs where they differ; the four output formats; the command line.
#include "analysis/compare.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "io/results.h"
#include "io/scenario_reader.h"
#include "profiles/profile.h"
#include "run/run_scenario.h"
#include "testing/test_cli.h"
#include "testing/test_scenarios.h"

namespace drainsim {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// One pod of concurrency 4 (new pods start in 5 s), three 20 s jobs at t = 0, worker grace
// 2 s, retries without jitter; a rolling restart at 10 s adds pod-1 (ready at 15 s), then
// deletes pod-0: TERM at 15 s, grace deadline at 17 s. Nothing here is random, so every
// seed gives the same numbers:
//   shutdown_retries 3 (all three jobs are FAILed at 17 s and run again on pod-1)
//   wasted_work_s 3 x 17 = 51; drain_latency_s.p99 2 (TERM at 15 s, exit at 17 s)
//   orphan_recovery_delay_s.p99 1 (the first backoff, 1 s x 2^0)
//   deploy_duration_s.mean 7 (started at 10 s, pod-0 gone at 17 s)
//   job_loss, duplicate_executions, stuck_at_end 0.
// With grace 5 s the jobs end exactly at the deadline (20 s) and complete: no retries,
// no waste, no orphans (null), drain 5 s, deploy 10 s.
const char* kThreeLongJobs = R"({"name": "three-long-jobs", "duration": "1s", "settle": "10m",
  "workload": {"arrival": {"kind": "burst", "count": 3, "at": "0s"},
               "job_duration": {"kind": "constant", "value": "20s"}},
  "backend": {"retry": {"jitter": false}},
  "worker": {"concurrency": 4, "grace_period": "2s"},
  "platform": {"replicas": 1, "pod_start_delay": "5s"},
  "events": [{"at": "10s", "kind": "rolling_restart", "max_surge": 1, "max_unavailable": 0}]})";

// Poisson arrivals (0.1/s for 60 s) of 8 s jobs, grace 1 s, a rolling restart at 30 s:
// whether a job is in flight at the TERM, and so whether there are retries and orphans,
// depends on the seed.
const char* kPoisson = R"({"name": "poisson", "duration": "60s", "settle": "10m",
  "workload": {"arrival": {"kind": "poisson", "rate_per_s": 0.1},
               "job_duration": {"kind": "constant", "value": "8s"}},
  "worker": {"concurrency": 2, "grace_period": "1s"},
  "platform": {"replicas": 1, "pod_start_delay": "5s"},
  "events": [{"at": "30s", "kind": "rolling_restart", "max_surge": 1, "max_unavailable": 0}]})";

std::size_t metric_index(std::string_view key) {
  const auto metrics = compare_metrics();
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    if (metrics[i]->name == key) return i;
  }
  throw std::runtime_error("no metric " + std::string(key));
}

const Interval& metric(const ProfileComparison& p, std::string_view key) {
  return p.metrics.at(metric_index(key));
}

class Compare : public drainsim::test::CliTest {};

TEST_F(Compare, EverySeedAgreesSoTheIntervalIsTheValue) {
  CompareSpec spec;
  spec.scenario = write("three.json", kThreeLongJobs);
  spec.keep_grace = true;  // the scenario's 2 s, not the profile's default
  spec.profiles = {"ojs"};
  spec.seeds = 4;
  spec.first_seed = 7;
  const Comparison c = compare_profiles(spec);
  EXPECT_EQ(c.scenario, "three-long-jobs");
  EXPECT_EQ(c.seeds, (std::vector<std::uint64_t>{7, 8, 9, 10}));
  ASSERT_EQ(c.profiles.size(), 1u);
  const ProfileComparison& p = c.profiles[0];
  EXPECT_EQ(p.profile, "ojs");
  ASSERT_EQ(p.runs.size(), 4u);
  EXPECT_TRUE(c.audits_ok());
  const std::pair<const char*, double> expected[] = {
      {"job_loss", 0},
      {"duplicate_executions", 0},
      {"shutdown_retries", 3},
      {"wasted_work_s", 51},
      {"drain_latency_s.p99", 2},  // the scenario's grace, kept
      {"orphan_recovery_delay_s.p99", 1},
      {"stuck_at_end", 0},
      {"deploy_duration_s.mean", 7},
  };
  for (const auto& [key, value] : expected) {
    const Interval& v = metric(p, key);
    EXPECT_EQ(v.n, 4u) << key;
    EXPECT_DOUBLE_EQ(v.mean, value) << key;
    EXPECT_EQ(v.half_width, 0.0) << key;
    EXPECT_DOUBLE_EQ(v.low, value) << key;
    EXPECT_DOUBLE_EQ(v.high, value) << key;
  }
}

// Each profile runs with its own default grace: the file's 2 s is one system's setting.
// OJS's default 30 s lets the three 20 s jobs finish at 20 s (TERM at 15 s): no retries,
// drain 5 s; --keep-grace and a --set of the grace both keep 2 s (TERM at 15 s, FAIL at
// 17 s: 3 retries).
TEST_F(Compare, EachProfileRunsWithItsOwnGraceUnlessTheScenariosIsKept) {
  CompareSpec spec;
  spec.scenario = write("three.json", kThreeLongJobs);
  spec.profiles = {"ojs", "sidekiq"};
  spec.seeds = 1;
  Comparison c = compare_profiles(spec);
  EXPECT_EQ(c.platform_grace, 30 * kSecond);
  EXPECT_EQ(c.profiles.at(0).grace, 30 * kSecond);
  EXPECT_EQ(c.profiles.at(1).grace, 25 * kSecond);  // Sidekiq's -t default
  EXPECT_DOUBLE_EQ(metric(c.profiles[0], "shutdown_retries").mean, 0);
  EXPECT_DOUBLE_EQ(metric(c.profiles[0], "drain_latency_s.p99").mean, 5);
  std::string table = format_comparison(c, CompareFormat::kTable);
  EXPECT_NE(table.find("platform grace 30s for every profile; worker grace: each profile's own "
                       "default unless --set pins it"),
            std::string::npos)
      << table;
  const auto row = [&](const std::string& profile) {
    const std::size_t at = table.find("\n" + profile + " ");
    return at == std::string::npos ? std::string()
                                   : table.substr(at + 1, table.find('\n', at + 1) - at - 1);
  };
  EXPECT_EQ(row("ojs").rfind("ojs        30s     none ", 0), 0u) << table;
  EXPECT_EQ(row("sidekiq").rfind("sidekiq    25s     none ", 0), 0u) << table;
  EXPECT_EQ(compare_json(c)["profiles"][1]["grace_period"], "25s");

  spec.keep_grace = true;
  c = compare_profiles(spec);
  EXPECT_EQ(c.profiles.at(0).grace, 2 * kSecond);
  EXPECT_EQ(c.profiles.at(1).grace, 2 * kSecond);
  EXPECT_DOUBLE_EQ(metric(c.profiles[0], "shutdown_retries").mean, 3);
  table = format_comparison(c, CompareFormat::kTable);
  EXPECT_NE(table.find("the scenario's, kept for every profile (--keep-grace)"), std::string::npos);

  spec.keep_grace = false;
  spec.overrides = {"worker.grace_period=2s"};
  c = compare_profiles(spec);
  EXPECT_EQ(c.profiles.at(1).grace, 2 * kSecond);
  EXPECT_DOUBLE_EQ(metric(c.profiles[0], "shutdown_retries").mean, 3);
}

// Where a profile's loss comes from, by cause: Sidekiq loses what the OOM-killed process
// held (the three 20 s jobs at 10 s), OJS nothing.
TEST_F(Compare, AProfileThatLosesJobsSaysToWhichCause) {
  CompareSpec spec;
  spec.scenario = write("oom.json", test::kThreeJobsOomKilledAt10s);
  spec.profiles = {"ojs", "sidekiq"};
  spec.seeds = 2;
  const Comparison c = compare_profiles(spec);
  EXPECT_DOUBLE_EQ(c.profiles[1].loss_by_class[static_cast<std::size_t>(CauseClass::kOomKills)], 3);
  const std::string table = format_comparison(c, CompareFormat::kTable);
  EXPECT_NE(table.find("note: sidekiq's job_loss per run by cause: oom_kills 3.0\n"),
            std::string::npos)
      << table;
  EXPECT_EQ(table.find("note: ojs's job_loss"), std::string::npos) << table;
  EXPECT_EQ(compare_json(c)["profiles"][1]["job_loss_by_cause"]["oom_kills"], 3.0);
}

TEST_F(Compare, OverridesApplyAfterTheProfileAndNullMetricsHaveNoRuns) {
  CompareSpec spec;
  spec.scenario = write("three.json", kThreeLongJobs);
  spec.overrides = {"worker.grace_period=5s"};
  spec.profiles = {"ojs"};
  spec.seeds = 3;
  const Comparison c = compare_profiles(spec);
  EXPECT_EQ(c.seeds, (std::vector<std::uint64_t>{1, 2, 3}));  // the scenario's seed, 1
  const ProfileComparison& p = c.profiles.at(0);
  EXPECT_DOUBLE_EQ(metric(p, "shutdown_retries").mean, 0);
  EXPECT_DOUBLE_EQ(metric(p, "wasted_work_s").mean, 0);
  EXPECT_DOUBLE_EQ(metric(p, "drain_latency_s.p99").mean, 5);
  EXPECT_DOUBLE_EQ(metric(p, "deploy_duration_s.mean").mean, 10);
  EXPECT_EQ(metric(p, "orphan_recovery_delay_s.p99").n, 0u);

  const std::string table = format_comparison(c, CompareFormat::kTable);
  EXPECT_NE(table.find("–"), std::string::npos) << table;
  const json j = compare_json(c);
  const json& orphans = j["profiles"][0]["metrics"]["orphan_recovery_delay_s.p99"];
  EXPECT_EQ(orphans["n"], 0);
  EXPECT_TRUE(orphans["mean"].is_null());
  EXPECT_TRUE(orphans["half_width"].is_null());
  EXPECT_TRUE(orphans["low"].is_null());
  EXPECT_TRUE(orphans["high"].is_null());
  EXPECT_NE(
      format_comparison(c, CompareFormat::kCsv).find("ojs,orphan_recovery_delay_s.p99,0,,,,\n"),
      std::string::npos);
}

TEST_F(Compare, SeedsThatDisagreeGiveTheStudentTIntervalOfTheirValues) {
  CompareSpec spec;
  spec.scenario = write("poisson.json", kPoisson);
  spec.keep_grace = true;
  spec.profiles = {"ojs"};
  spec.seeds = 10;
  spec.first_seed = 1;
  const Comparison c = compare_profiles(spec);
  const ProfileComparison& p = c.profiles.at(0);

  // The same runs, one by one, as `drainsim run --seed` does them.
  std::vector<double> retries, orphans;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    Scenario s = load_scenario_file(spec.scenario, {"worker.profile=ojs"});
    s.seed = seed;
    const RunOutput out = run_scenario(s);
    ASSERT_TRUE(out.summary.audit.ok);
    EXPECT_EQ(p.runs.at(seed - 1).seed, seed);
    EXPECT_EQ(p.runs.at(seed - 1).result_hash, out.hash) << "seed " << seed;
    const json& summary = out.results["summary"];
    retries.push_back(summary["shutdown_retries"].get<double>());
    if (!summary["orphan_recovery_delay_s"].is_null()) {
      orphans.push_back(summary["orphan_recovery_delay_s"]["p99"].get<double>());
    }
  }
  auto mean_sd = [](const std::vector<double>& v) {
    double sum = 0, squares = 0;
    for (double x : v) sum += x;
    const double mean = sum / static_cast<double>(v.size());
    for (double x : v) squares += (x - mean) * (x - mean);
    return std::pair{mean, std::sqrt(squares / static_cast<double>(v.size() - 1))};
  };

  const auto [retry_mean, retry_sd] = mean_sd(retries);
  ASSERT_GT(retry_sd, 0) << "the seeds should disagree";
  const Interval& r = metric(p, "shutdown_retries");
  EXPECT_EQ(r.n, 10u);
  EXPECT_NEAR(r.mean, retry_mean, 1e-12);
  // t(0.975, 9) = 2.262157...
  EXPECT_NEAR(r.half_width, 2.262157162798 * retry_sd / std::sqrt(10.0), 1e-9);
  EXPECT_NEAR(r.low, retry_mean - r.half_width, 1e-12);
  EXPECT_NEAR(r.high, retry_mean + r.half_width, 1e-12);

  // Orphans only where a job was in flight at the TERM: the interval is over those seeds.
  ASSERT_GT(orphans.size(), 1u);
  ASSERT_LT(orphans.size(), 10u) << "some seeds should have no orphans";
  const auto [orphan_mean, orphan_sd] = mean_sd(orphans);
  const Interval& o = metric(p, "orphan_recovery_delay_s.p99");
  EXPECT_EQ(o.n, orphans.size());
  EXPECT_NEAR(o.mean, orphan_mean, 1e-12);
  EXPECT_NEAR(o.half_width,
              t_quantile_975(orphans.size() - 1) * orphan_sd /
                  std::sqrt(static_cast<double>(orphans.size())),
              1e-9);
  EXPECT_NE(format_comparison(c, CompareFormat::kTable).find(fmt::format("(n={})", orphans.size())),
            std::string::npos);
}

TEST(SelectProfiles, AllIsTheRegistryInOrderAndAListKeepsItsOrder) {
  const ProfileSelection all = select_profiles("all");
  EXPECT_TRUE(all.error.empty());
  ASSERT_EQ(all.names.size(), all_profiles().size());
  for (std::size_t i = 0; i < all.names.size(); ++i) {
    EXPECT_EQ(all.names[i], all_profiles()[i].name);
  }
  const ProfileSelection one = select_profiles(" ojs ");
  EXPECT_EQ(one.names, std::vector<std::string>{"ojs"});
}

TEST(SelectProfiles, UnknownEmptyOrRepeatedNamesAreErrors) {
  const ProfileSelection unknown = select_profiles("ojs,nosuch");
  EXPECT_TRUE(unknown.names.empty());
  EXPECT_NE(unknown.error.find("unknown profile \"nosuch\""), std::string::npos) << unknown.error;
  for (const Profile& p : all_profiles()) {
    EXPECT_NE(unknown.error.find(std::string(p.name)), std::string::npos) << unknown.error;
  }
  EXPECT_NE(select_profiles("ojs,").error.find("empty profile name"), std::string::npos);
  EXPECT_NE(select_profiles("ojs,ojs").error.find("named twice"), std::string::npos);
}

// Two profiles by hand: p has every kind of cell (agreeing seeds, an interval, a metric
// only some runs had, one none had).
Comparison hand_made() {
  Comparison c;
  c.scenario = "case";
  c.seeds = {3, 4, 5, 6};
  for (const char* name : {"first", "second"}) {
    ProfileComparison p;
    p.profile = name;
    p.grace = 25 * kSecond;
    for (std::uint64_t seed : c.seeds)
      p.runs.push_back({seed, "00000000000000ab", true, 0, {}, {}});
    p.metrics.assign(compare_metrics().size(), Interval{});
    p.metrics[metric_index("shutdown_retries")] = {3, 0, 3, 3, 4};
    p.metrics[metric_index("wasted_work_s")] = {51.5, 0.25, 51.25, 51.75, 4};
    p.metrics[metric_index("drain_latency_s.p99")] = {2, 1, 1, 3, 2};
    c.profiles.push_back(std::move(p));
  }
  return c;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(Format, TableAlignsMeanAndHalfWidthPerProfile) {
  const std::string table = format_comparison(hand_made(), CompareFormat::kTable);
  const auto lines = lines_of(table);
  ASSERT_EQ(lines.size(), 7u) << table;  // title, graces, legend, blank, header, two profiles
  EXPECT_NE(lines[0].find("scenario case, 4 seeds (3..6)"), std::string::npos) << table;
  EXPECT_EQ(lines[4].rfind("profile", 0), 0u) << table;
  EXPECT_EQ(lines[5].rfind("first ", 0), 0u) << table;
  EXPECT_EQ(lines[6].rfind("second", 0), 0u) << table;
  const std::string& row = lines[5];
  EXPECT_NE(row.find("3.0 ±0.0"), std::string::npos) << row;          // a count: 1 decimal
  EXPECT_NE(row.find("51.50 ±0.25"), std::string::npos) << row;       // seconds: 2 decimals
  EXPECT_NE(row.find("2.00 ±1.00 (n=2)"), std::string::npos) << row;  // 2 of 4 runs
  EXPECT_NE(row.find("–"), std::string::npos) << row;
  // Right-aligned columns: each cell ends where its header does (widths in code points).
  auto width = [](const std::string& s) {
    std::size_t w = 0;
    for (char ch : s) w += (ch & 0xC0) != 0x80;
    return w;
  };
  EXPECT_EQ(width(lines[4]), width(lines[5]));
  EXPECT_EQ(width(lines[5]), width(lines[6]));
  const std::string header = lines[4];
  const std::size_t end = header.find("wasted_work_s") + std::string("wasted_work_s").size();
  const std::size_t cell_end = row.find("51.50 ±0.25") + std::string("51.50 ±0.25").size();
  EXPECT_EQ(width(row.substr(0, cell_end)), width(header.substr(0, end))) << table;
}

TEST(Format, MarkdownIsAGithubTable) {
  const auto lines = lines_of(format_comparison(hand_made(), CompareFormat::kMarkdown));
  ASSERT_EQ(lines.size(), 6u);  // caption, blank, header, rule, two profiles
  EXPECT_EQ(
      lines[2],
      "| profile | grace | preStop | job_loss | interrupted_fraction | duplicate_executions | "
      "shutdown_retries | wasted_work_s | drain_latency_s.p99 | orphan_recovery_delay_s.p99 "
      "| stuck_at_end | deploy_duration_s.mean |");
  EXPECT_EQ(lines[3], "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  EXPECT_EQ(lines[4],
            "| first | 25s | none | – | – | – | 3.0 ±0.0 | 51.50 ±0.25 | 2.00 ±1.00 (n=2) | – | – "
            "| – |");
}

TEST(Format, AProfileThatLosesNothingWhileJobsAreStuckCarriesANote) {
  Comparison c = hand_made();
  c.profiles[1].metrics[metric_index("job_loss")] = {0, 0, 0, 0, 4};
  c.profiles[1].metrics[metric_index("stuck_at_end")] = {33, 0, 33, 33, 4};
  c.profiles[0].metrics[metric_index("job_loss")] = {0, 0, 0, 0, 4};  // nothing stuck: no note
  const std::string note =
      "note: second has job_loss 0, but 33.0 jobs per run are stuck at the end, held by a dead "
      "worker that nothing recovered before the run ended: neither lost nor done\n";
  for (CompareFormat f : {CompareFormat::kTable, CompareFormat::kMarkdown}) {
    const std::string text = format_comparison(c, f);
    EXPECT_NE(text.find(note), std::string::npos) << text;
    EXPECT_EQ(text.find("note: first"), std::string::npos) << text;
  }
  const json j = compare_json(c);
  ASSERT_EQ(j["notes"].size(), 1u);
  EXPECT_EQ(j["notes"][0].get<std::string>() + "\n", note);
}

TEST(Format, WarningsAreTalliedPerProfileAndSaidOnceWhenEveryRunGaveThem) {
  Comparison c = hand_made();
  const Warning overload{"overload", "offered load high", {{"slots", 4}}};
  const Warning settle{"settle_reached", "cut off", {}};
  for (ProfileComparison& p : c.profiles) {
    for (SeedRun& r : p.runs) r.warnings = {overload};
  }
  c.profiles[1].runs[2].warnings.push_back(settle);
  const std::string text = format_comparison(c, CompareFormat::kTable);
  EXPECT_NE(text.find("warning: every profile, every run: overload (first seed 3: offered load "
                      "high)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("warning: first: overload"), std::string::npos) << text;
  EXPECT_NE(text.find("warning: second: settle_reached in 1 of 4 runs (seed 5: cut off)\n"),
            std::string::npos)
      << text;
  const json j = compare_json(c);
  const json& w = j["profiles"][1]["warnings"];
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0]["code"], "overload");
  EXPECT_EQ(w[0]["runs"], 4);
  EXPECT_EQ(w[0]["of"], 4);
  EXPECT_EQ(w[0]["figures"]["slots"], 4.0);
  EXPECT_EQ(w[1]["code"], "settle_reached");
  EXPECT_EQ(w[1]["runs"], 1);
  EXPECT_EQ(w[1]["seed"], 5);
}

TEST(Format, CsvHasARowPerProfileAndMetric) {
  const auto lines = lines_of(format_comparison(hand_made(), CompareFormat::kCsv));
  ASSERT_EQ(lines.size(), 1 + 2 * compare_metrics().size());
  EXPECT_EQ(lines[0], "profile,metric,n,mean,half_width,low,high");
  EXPECT_EQ(lines[1], "first,job_loss,0,,,,");
  EXPECT_EQ(lines[2], "first,interrupted_fraction,0,,,,");
  EXPECT_EQ(lines[4], "first,shutdown_retries,4,3,0,3,3");
  EXPECT_EQ(lines[5], "first,wasted_work_s,4,51.5,0.25,51.25,51.75");
  EXPECT_EQ(lines[6], "first,drain_latency_s.p99,2,2,1,1,3");
  EXPECT_EQ(lines[10], "second,job_loss,0,,,,");
}

TEST(Format, JsonHasEveryProfileMetricAndRunHash) {
  const json j = json::parse(format_comparison(hand_made(), CompareFormat::kJson));
  EXPECT_EQ(j["scenario"], "case");
  EXPECT_EQ(j["seeds"], json({3, 4, 5, 6}));
  ASSERT_EQ(j["metrics"].size(), compare_metrics().size());
  ASSERT_EQ(j["profiles"].size(), 2u);
  EXPECT_EQ(j["profiles"][1]["profile"], "second");
  const json& m = j["profiles"][0]["metrics"];
  EXPECT_EQ(
      m["wasted_work_s"],
      json({{"mean", 51.5}, {"half_width", 0.25}, {"low", 51.25}, {"high", 51.75}, {"n", 4}}));
  EXPECT_TRUE(m["job_loss"]["mean"].is_null());
  EXPECT_EQ(j["profiles"][0]["result_hashes"].size(), 4u);
  EXPECT_TRUE(j["profiles"][0]["audit_failures"].empty());
}

TEST_F(Compare, CliWritesEveryFormatTheSameWayTwice) {
  const std::string file = write("three.json", kThreeLongJobs);
  for (const char* format : {"table", "md", "json", "csv"}) {
    const std::string args =
        "compare '" + file + "' --profiles all --seeds 3 --seed 4 --format " + format;
    const drainsim::test::CliResult first = drainsim(args);
    ASSERT_EQ(first.code, 0) << format << ": " << first.err;
    EXPECT_FALSE(first.out.empty());
    const drainsim::test::CliResult second = drainsim(args);
    EXPECT_EQ(second.code, 0);
    EXPECT_EQ(first.out, second.out) << format;
    const drainsim::test::CliResult to_file = drainsim(args + " --out cmp.out");
    EXPECT_EQ(to_file.code, 0);
    EXPECT_TRUE(to_file.out.empty());
    EXPECT_EQ(slurp(dir_ / "cmp.out"), first.out) << format;
  }
}

TEST_F(Compare, CliFormats) {
  const std::string file = write("three.json", kThreeLongJobs);
  const std::string base = "compare '" + file + "' --profiles ojs --seeds 2 --seed 4 --keep-grace";

  drainsim::test::CliResult r = drainsim(base + " --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["scenario"], "three-long-jobs");
  EXPECT_EQ(j["seeds"], json({4, 5}));
  ASSERT_EQ(j["profiles"].size(), 1u);
  EXPECT_EQ(j["profiles"][0]["profile"], "ojs");
  EXPECT_EQ(j["profiles"][0]["metrics"]["shutdown_retries"]["mean"], 3.0);
  EXPECT_EQ(j["profiles"][0]["metrics"]["shutdown_retries"]["n"], 2);
  EXPECT_EQ(j["profiles"][0]["result_hashes"].size(), 2u);

  r = drainsim(base + " --format csv");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("profile,metric,n,mean,half_width,low,high\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\nojs,wasted_work_s,2,51,0,51,51\n"), std::string::npos) << r.out;

  r = drainsim(base + " --format md");
  ASSERT_EQ(r.code, 0) << r.err;
  // All three jobs are cut at 17 s (TERM at 15 s, grace 2 s): interrupted 3 of 3.
  EXPECT_NE(
      r.out.find(
          "| ojs | 2s | none | 0.0 ±0.0 | 100.000% ±0.000% | 0.0 ±0.0 | 3.0 ±0.0 | 51.00 ±0.00 "
          "| 2.00 ±0.00 | 1.00 ±0.00 | 0.0 ±0.0 | 7.00 ±0.00 |"),
      std::string::npos)
      << r.out;

  r = drainsim(base);  // table by default
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("scenario three-long-jobs, 2 seeds (4..5)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("51.00 ±0.00"), std::string::npos) << r.out;

  r = drainsim(base + " --set worker.grace_period=5s");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("–"), std::string::npos) << r.out;  // no orphans
}

TEST_F(Compare, CliBadInputExits2) {
  const std::string file = write("three.json", kThreeLongJobs);
  drainsim::test::CliResult r = drainsim("compare '" + file + "' --profiles ojs,nosuch");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown profile \"nosuch\", expected one of "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ojs"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(drainsim("compare '" + file + "' --seeds 0").code, 2);
  EXPECT_EQ(drainsim("compare '" + file + "' --format xml").code, 2);
  r = drainsim("compare '" + file + "' --set worker.grace_perod=3s");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("grace_period"), std::string::npos) << r.err;
  r = drainsim("compare nosuch.json");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("nosuch.json"), std::string::npos) << r.err;
}

TEST_F(Compare, CliAuditFailureExits3NamingProfileSeedAndJob) {
  const std::string file = write("three.json", kThreeLongJobs);
  const drainsim::test::CliResult r = drainsim(
      "compare '" + file + "' --profiles ojs --seeds 2 --seed 8 --inject-fault drop-acked-job=1");
  EXPECT_EQ(r.code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("the audit failed for profile ojs, seed 8"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the audit failed for profile ojs, seed 9"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("job 1:"), std::string::npos) << r.err;
  EXPECT_FALSE(r.out.empty());  // the comparison is still shown
}

}  // namespace
}  // namespace drainsim
