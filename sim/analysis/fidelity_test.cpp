#include "analysis/fidelity.h"

#include <gtest/gtest.h>

namespace drainsim {
namespace {

TEST(Fidelity, RowsReadTheSummariesMetricsAndNulls) {
  RunSummary v;  // four jobs, one drain of 5 s, no finished deploy
  v.jobs.enqueued = 4;
  v.drain_latency = Spread{1, 5.0, 5.0, 5.0};
  RunSummary r = v;  // the same, with a slower drain, a deploy and a lost job
  r.drain_latency = Spread{2, 5.25, 5.5, 5.5};
  r.deploy_duration = DeployDurations{1, 10.0, 10.0};
  r.jobs.lost = 1;
  const auto rows = fidelity_rows({v, r});
  auto find = [&](const std::string& m) -> const FidelityRow& {
    for (const auto& row : rows) {
      if (row.metric == m) return row;
    }
    throw std::runtime_error(m);
  };
  EXPECT_EQ(find("jobs_enqueued").values, (std::vector<std::optional<double>>{4.0, 4.0}));
  EXPECT_EQ(find("drain_latency_s.p99").values, (std::vector<std::optional<double>>{5.0, 5.5}));
  EXPECT_EQ(find("deploy_duration_s.mean").values,
            (std::vector<std::optional<double>>{std::nullopt, 10.0}));
  EXPECT_EQ(find("job_loss").values, (std::vector<std::optional<double>>{0.0, 1.0}));
  EXPECT_EQ(find("job_latency_s.p50").values,
            (std::vector<std::optional<double>>{std::nullopt, std::nullopt}));
}

TEST(Fidelity, TableShowsDifferencesFromTheFirstEngine) {
  const std::vector<FidelityRow> rows = {{"drain_latency_s.p99", {5.0, 5.5}},
                                         {"jobs_completed", {4.0, 4.0}},
                                         {"deploy_duration_s.mean", {std::nullopt, 10.0}}};
  const std::string table = fidelity_table({"virtual", "realtime"}, rows);
  EXPECT_NE(table.find("realtime - virtual"), std::string::npos) << table;
  EXPECT_NE(table.find("+0.500 (+10.0%)"), std::string::npos) << table;
  EXPECT_NE(table.find(" 0 (+0.0%)"), std::string::npos) << table;
}

}  // namespace
}  // namespace drainsim
