#include "analysis/fidelity.h"

#include <gtest/gtest.h>

namespace drainsim {
namespace {

using nlohmann::json;

TEST(Fidelity, RowsReadNestedMetricsAndNulls) {
  const json v = {{"summary",
                   {{"jobs_enqueued", 4},
                    {"drain_latency_s", {{"p50", 5.0}, {"p99", 5.0}, {"max", 5.0}}},
                    {"deploy_duration_s", nullptr}}}};
  const json r = {{"summary",
                   {{"jobs_enqueued", 4},
                    {"drain_latency_s", {{"p50", 5.25}, {"p99", 5.5}, {"max", 5.5}}},
                    {"deploy_duration_s", {{"mean", 10.0}}}}}};
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
  EXPECT_EQ(find("job_loss").values,
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
