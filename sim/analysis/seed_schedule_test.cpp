// The seed schedule: each setting keeps the runs of its first seeds up to where its rule
// stops it, the same runs a sweep gives, whatever the thread count; runs go seed by seed
// across the settings.
#include "analysis/seed_schedule.h"

#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "io/scenario_reader.h"

namespace drainsim {
namespace {

const std::string kScenario = DRAINSIM_SOURCE_DIR "/scenarios/rolling-restart.json";

// Three graces of the shipped rolling restart over seeds 7..10; setting 1 is stopped after
// its second seed. Every call of the rule is recorded as (setting, k).
struct Case {
  SeedScheduleSpec spec;
  std::vector<std::pair<std::size_t, std::size_t>> calls;
};

void set_up(Case& c, unsigned threads) {
  for (const char* grace : {"5s", "30s", "2m"}) {
    c.spec.settings.push_back(load_scenario_file(
        kScenario,
        {std::string("worker.grace_period=") + grace, "platform.termination_grace_period=3m"}));
  }
  c.spec.seeds = {7, 8, 9, 10};
  c.spec.threads = threads;
  c.spec.stop = [&c](std::size_t setting, const std::vector<SweepRunResult>& runs) {
    c.calls.emplace_back(setting, runs.size());
    return setting == 1 && runs.size() == 2;
  };
}

TEST(SeedSchedule, KeepsEachSettingsFirstSeedsUpToWhereItsRuleStopsIt) {
  Case c;
  set_up(c, 1);
  const SeedSchedule s = run_seed_schedule(c.spec);
  ASSERT_EQ(s.runs.size(), 3u);
  EXPECT_EQ(s.runs[0].size(), 4u);
  EXPECT_EQ(s.runs[1].size(), 2u);
  EXPECT_EQ(s.runs[2].size(), 4u);
  for (const auto& runs : s.runs) {
    for (std::size_t k = 0; k < runs.size(); ++k) {
      EXPECT_EQ(runs[k].task, k);
      EXPECT_EQ(runs[k].run.seed, 7 + k);
    }
  }
  // One thread takes seed by seed across the settings, so nothing is dropped: 4 + 2 + 4.
  EXPECT_EQ(s.runs_done, 10u);
  // Seed-major: the first seed of every setting first; the rule never sees all 4 seeds.
  const std::vector<std::pair<std::size_t, std::size_t>> calls = {{0, 1}, {1, 1}, {2, 1}, {0, 2},
                                                                  {1, 2}, {2, 2}, {0, 3}, {2, 3}};
  EXPECT_EQ(c.calls, calls);
}

TEST(SeedSchedule, KeepsTheRunsASweepGivesWhateverTheThreads) {
  Case one, three;
  set_up(one, 1);
  set_up(three, 3);
  const SeedSchedule a = run_seed_schedule(one.spec);
  const SeedSchedule b = run_seed_schedule(three.spec);
  ASSERT_EQ(b.runs.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    ASSERT_EQ(a.runs[i].size(), b.runs[i].size()) << i;
    for (std::size_t k = 0; k < a.runs[i].size(); ++k) {
      EXPECT_EQ(a.runs[i][k].run.result_hash, b.runs[i][k].run.result_hash) << i << " " << k;
      EXPECT_EQ(a.runs[i][k].metrics, b.runs[i][k].metrics) << i << " " << k;
    }
  }
  // Three threads may have started seeds of setting 1 beyond its second; those are dropped.
  EXPECT_GE(b.runs_done, 10u);
  EXPECT_LE(b.runs_done, 12u);

  // The same runs as a sweep of that grace over those seeds.
  SweepSpec sweep;
  sweep.scenario = kScenario;
  sweep.overrides = {"platform.termination_grace_period=3m"};
  sweep.axes.push_back(*parse_axis("worker.grace_period=5s").axis);
  sweep.seeds = 4;
  sweep.first_seed = 7;
  const Sweep swept = run_sweep(sweep);
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(a.runs[0][k].run.result_hash, swept.points[0].runs[k].result_hash) << k;
  }
}

TEST(SeedSchedule, WithoutARuleEverySettingRunsEverySeed) {
  Case c;
  set_up(c, 2);
  c.spec.stop = nullptr;
  const SeedSchedule s = run_seed_schedule(c.spec);
  for (const auto& runs : s.runs) EXPECT_EQ(runs.size(), 4u);
  EXPECT_EQ(s.runs_done, 12u);
}

}  // namespace
}  // namespace drainsim
