// Sweep part files: written and read back to the same runs, merged in any order into what
// the unsharded sweep gives, and refused with the file and the field named when they are
// not the parts of one finished sweep.
#include "analysis/sweep_part.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/test_cli.h"

namespace drainsim {
namespace {

using nlohmann::json;

// Random job durations and a rolling restart: every run's numbers differ.
const char* kRandom = R"({"name": "random", "duration": "60s", "settle": "10m",
  "workload": {"arrival": {"kind": "poisson", "rate_per_s": 5},
               "job_duration": {"kind": "lognormal", "median": "4s", "p99": "60s"}},
  "worker": {"concurrency": 4},
  "platform": {"replicas": 3},
  "events": [{"at": "20s", "kind": "rolling_restart", "max_surge": 1, "max_unavailable": 0}]})";

class SweepPartTest : public drainsim::test::CliTest {
 protected:
  SweepSpec spec() {
    SweepSpec s;
    s.scenario = write("random.json", kRandom);
    s.axes.push_back(*parse_axis("worker.grace_period=2s,10s,30s").axis);
    // A numeric range: its values are signed integers, read back as unsigned ones.
    s.axes.push_back(*parse_axis("worker.concurrency=2..4/2").axis);
    s.seeds = 4;
    s.threads = 2;
    return s;
  }
  // Shard i of n written and read back.
  NamedPart shard(std::size_t i, std::size_t n) {
    const std::string file = "part" + std::to_string(i) + ".json";
    const PartParse p =
        parse_sweep_part(sweep_part_json(run_sweep_part(spec(), {i, n})).dump(2), file);
    EXPECT_TRUE(p.part) << p.error;
    return {file, *p.part};
  }
  // The error parsing `j`, the text of a part file.
  static std::string parse_error(const json& j) {
    const PartParse p = parse_sweep_part(j.dump(), "p.json");
    EXPECT_FALSE(p.part);
    return p.error;
  }
  static std::string merge_error(const std::vector<NamedPart>& parts) {
    const PartMerge m = merge_sweep_parts(parts);
    EXPECT_FALSE(m.whole);
    return m.error;
  }
};

TEST_F(SweepPartTest, APartReadBackHoldsTheSameRuns) {
  const SweepPart part = run_sweep_part(spec(), {1, 5});
  const json j = sweep_part_json(part);
  EXPECT_EQ(j["format"], "drainsim-sweep-part/1");
  EXPECT_EQ(j["scenario"], "random");
  EXPECT_EQ(j["scenario_hash"].get<std::string>().size(), 16u);
  EXPECT_EQ(j["shard"], json::parse(R"({"index": 1, "count": 5})"));
  EXPECT_EQ(j["runs_total"], 5);  // 24 runs: tasks 1, 6, 11, 16, 21
  EXPECT_EQ(j["complete"], true);
  EXPECT_EQ(j["runs"][4]["task"], 21);
  EXPECT_EQ(j["runs"][4]["seed"], part.seeds[1]);
  EXPECT_EQ(j["runs"][0]["audit"], json::parse(R"({"ok": true, "error_count": 0, "errors": []})"));
  const PartParse back = parse_sweep_part(j.dump(2), "p.json");
  ASSERT_TRUE(back.part) << back.error;
  EXPECT_EQ(sweep_part_json(*back.part).dump(), j.dump());
  for (std::size_t k = 0; k < part.runs.size(); ++k) {
    EXPECT_EQ(back.part->runs[k].metrics, part.runs[k].metrics);  // the same doubles
  }
}

TEST_F(SweepPartTest, MergedInAnyOrderTheSameBytesAsTheUnshardedSweep) {
  const Sweep whole = run_sweep(spec());
  const std::string json_bytes = sweep_json(whole).dump(2), csv = sweep_csv(whole);
  std::vector<NamedPart> parts = {shard(0, 3), shard(1, 3), shard(2, 3)};
  for (const std::vector<std::size_t>& order :
       {std::vector<std::size_t>{0, 1, 2}, {2, 0, 1}, {1, 2, 0}}) {
    std::vector<NamedPart> given;
    for (const std::size_t i : order) given.push_back(parts[i]);
    const PartMerge m = merge_sweep_parts(given);
    ASSERT_TRUE(m.whole) << m.error;
    EXPECT_EQ(m.whole->shard, (SweepShard{0, 1}));
    const Sweep merged = sweep_of(*m.whole);
    EXPECT_EQ(sweep_json(merged).dump(2), json_bytes);
    EXPECT_EQ(sweep_csv(merged), csv);
  }
  // A single shard of one is the whole sweep too.
  const PartMerge one = merge_sweep_parts({shard(0, 1)});
  ASSERT_TRUE(one.whole) << one.error;
  EXPECT_EQ(sweep_json(sweep_of(*one.whole)).dump(2), json_bytes);
  EXPECT_GT(whole.points[0].metrics.at("jobs_completed").half_width, 0);  // runs differ
}

TEST_F(SweepPartTest, MalformedPartsNameTheFileAndTheField) {
  const json good = sweep_part_json(run_sweep_part(spec(), {1, 3}));
  EXPECT_TRUE(parse_sweep_part(good.dump(), "p.json").part);
  json j = good;
  j["runs"][1]["task"] = 5;
  EXPECT_EQ(
      parse_error(j),
      "p.json: runs[1].task: expected 4 (shard 1/3 runs the tasks 1, 4, ... in order), got 5");
  j = good;
  j["runs"][2]["seed"] = 99;
  EXPECT_EQ(parse_error(j), "p.json: runs[2].seed: task 7 runs seed 4, got 99");
  j = good;
  j["runs"][0]["metrics"]["job_loss"] = "none";
  EXPECT_EQ(parse_error(j),
            "p.json: runs[0].metrics.job_loss: expected a number or null, got \"none\"");
  j = good;
  j["runs"].erase(j["runs"].size() - 1);
  EXPECT_EQ(parse_error(j), "p.json: complete: says true but the part has 7 of the shard's 8 runs");
  j = good;
  j.erase("seeds");
  EXPECT_EQ(parse_error(j), "p.json: seeds: missing");
  j = good;
  j["shard"]["index"] = 3;
  EXPECT_EQ(parse_error(j),
            "p.json: shard: expected 0 <= index < count, got {\"count\":3,\"index\":3}");
  j = good;
  j["format"] = "drainsim-sweep-part/2";
  EXPECT_EQ(parse_error(j),
            "p.json: format: expected \"drainsim-sweep-part/1\", got \"drainsim-sweep-part/2\"");
  j = good;
  j["runs"][0]["warnings"] = json::parse(R"([{"code": "overload", "message": "m", "figures": 3}])");
  EXPECT_EQ(parse_error(j), "p.json: runs[0].warnings[0].figures: expected an object, got 3");
  j = good;
  j["runs"][0]["warnings"] =
      json::parse(R"([{"code": "overload", "message": "m", "figures": {"slots": "many"}}])");
  EXPECT_EQ(parse_error(j),
            "p.json: runs[0].warnings[0].figures.slots: expected a number, got \"many\"");
  // A warning read back as written; a part written before warnings (none) reads as none.
  j = good;
  j["runs"][0]["warnings"] =
      json::parse(R"([{"code": "overload", "message": "m", "figures": {"slots": 4}}])");
  const PartParse with = parse_sweep_part(j.dump(), "p.json");
  ASSERT_TRUE(with.part) << with.error;
  EXPECT_EQ(with.part->runs[0].run.warnings,
            (std::vector<Warning>{{"overload", "m", {{"slots", 4}}}}));
  j["runs"][0].erase("warnings");
  const PartParse without = parse_sweep_part(j.dump(), "p.json");
  ASSERT_TRUE(without.part) << without.error;
  EXPECT_TRUE(without.part->runs[0].run.warnings.empty());
  EXPECT_EQ(parse_error(json::array()),
            "p.json: not a sweep part file (no \"format\": \"drainsim-sweep-part/1\"); `drainsim "
            "sweep --shard I/N` writes them");
}

TEST_F(SweepPartTest, MergeRefusesAnInterruptedPartOrAnotherSweepsPart) {
  const NamedPart p0 = shard(0, 3), p1 = shard(1, 3), p2 = shard(2, 3);
  NamedPart cut = p1;
  cut.part.runs.resize(3);
  EXPECT_EQ(merge_error({p0, cut, p2}),
            "part1.json: shard 1/3 was interrupted (3 of its 8 runs); run it again");
  NamedPart other = p2;
  other.part.scenario_hash = "0123456789abcdef";
  EXPECT_EQ(merge_error({p0, p1, other}),
            "part2.json: not the same sweep as part0.json: the scenario file's contents differ "
            "(scenario_hash 0123456789abcdef vs " +
                p0.part.scenario_hash + ")");
  other = p2;
  other.part.scenario = "renamed";
  EXPECT_EQ(merge_error({p0, p1, other}),
            "part2.json: not the same sweep as part0.json: the scenario differs (\"renamed\" vs "
            "\"random\")");
  other = p2;
  other.part.axes[1].values.back() = 8;
  EXPECT_EQ(merge_error({p0, p1, other}),
            "part2.json: not the same sweep as part0.json: the axes differ "
            "([{\"path\":\"worker.grace_period\",\"values\":[\"2s\",\"10s\",\"30s\"]},{\"path\":"
            "\"worker.concurrency\",\"values\":[2,8]}] vs "
            "[{\"path\":\"worker.grace_period\",\"values\":[\"2s\",\"10s\",\"30s\"]},{\"path\":"
            "\"worker.concurrency\",\"values\":[2,4]}])");
  other = p2;
  other.part.drainsim_version = "0.0.1";
  EXPECT_EQ(merge_error({p0, p1, other})
                .rfind("part2.json: not the same sweep as part0.json: written by drainsim 0.0.1, "
                       "part0.json by drainsim ",
                       0),
            0u);
  EXPECT_EQ(merge_error({p2, p0}),
            "1 of 3 shards missing: 1/3; given: part2.json (2/3), part0.json (0/3)");
  EXPECT_EQ(merge_error({}), "no part files given");
}

}  // namespace
}  // namespace drainsim
