#include "io/stats_json.h"

#include <gtest/gtest.h>

namespace drainsim {
namespace {

using nlohmann::json;

TEST(StatsJson, PercentilesOfNoSamplesAreNull) {
  EXPECT_TRUE(percentiles_json(Percentiles()).is_null());
}

TEST(StatsJson, PercentilesAreTheNearestRanks) {
  Percentiles p;
  for (int i = 100; i >= 1; --i) p.add(i);
  EXPECT_EQ(percentiles_json(p),
            (json{{"p50", 50.0}, {"p99", 99.0}, {"max", 100.0}, {"count", 100}}));
}

TEST(StatsJson, AnIntervalOfNoRunsIsNullButItsCount) {
  EXPECT_EQ(interval_json(Interval{}), (json{{"mean", nullptr},
                                             {"half_width", nullptr},
                                             {"low", nullptr},
                                             {"high", nullptr},
                                             {"n", 0}}));
}

TEST(StatsJson, AnIntervalOfTwoRuns) {
  // {1, 3}: mean 2, s = sqrt(2), half width t(0.975, 1) * sqrt(2) / sqrt(2) = 12.7062...
  const json j = interval_json(student_t_95({1, 3}));
  EXPECT_EQ(j["mean"], 2.0);
  EXPECT_NEAR(j["half_width"].get<double>(), 12.70620473617, 1e-9);
  EXPECT_NEAR(j["low"].get<double>(), 2 - 12.70620473617, 1e-9);
  EXPECT_EQ(j["n"], 2);
}

}  // namespace
}  // namespace drainsim
