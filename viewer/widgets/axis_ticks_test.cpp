// Axis ticks, worked by hand: the raw step is span x min_px / length_px, rounded up to the
// next rung of the ladder (time: ... 0.2, 0.5, 1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10, 15, 30 m,
// 1, 2, 5, 10 h ...; values: 1-2-5 x 10^n).
#include "widgets/axis_ticks.h"

#include <gtest/gtest.h>

namespace drainsim::viewer {
namespace {

std::vector<std::string> labels(const std::vector<Tick>& ticks) {
  std::vector<std::string> out;
  for (const Tick& t : ticks) out.push_back(t.label);
  return out;
}

using Labels = std::vector<std::string>;

TEST(AxisTicks, TimeReadsLikeAClock) {
  // 180..240 s over 600 px, 90 px apart: raw 60 x 90 / 600 = 9 s -> 10 s.
  EXPECT_EQ(tick_step(TickKind::kTime, 60, 600, 90), 10);
  EXPECT_EQ(labels(axis_ticks(TickKind::kTime, 180, 240, 600, 90)),
            (Labels{"3m", "3m10s", "3m20s", "3m30s", "3m40s", "3m50s", "4m"}));
  // Over 300 px: raw 18 s -> 30 s.
  EXPECT_EQ(labels(axis_ticks(TickKind::kTime, 180, 240, 300, 90)), (Labels{"3m", "3m30s", "4m"}));
  // 0..2 h over 400 px: raw 7200 x 90 / 400 = 1620 s -> 30 min.
  EXPECT_EQ(labels(axis_ticks(TickKind::kTime, 0, 7200, 400, 90)),
            (Labels{"0s", "30m", "1h", "1h30m", "2h"}));
  // 0..10 h over 600 px: raw 5400 s = 1.5 h -> 2 h.
  EXPECT_EQ(labels(axis_ticks(TickKind::kTime, 0, 36000, 600, 90)),
            (Labels{"0s", "2h", "4h", "6h", "8h", "10h"}));
  // The rolling restart's 813 s over 1400 px: raw 52.3 s -> 1 min.
  EXPECT_EQ(tick_step(TickKind::kTime, 813, 1400, 90), 60);
  // 25 s over 600 px: raw 3.75 s -> 5 s; 15 s between 10 and 30.
  EXPECT_EQ(tick_step(TickKind::kTime, 25, 600, 90), 5);
  EXPECT_EQ(tick_step(TickKind::kTime, 100, 750, 90), 15);  // raw 12 s
}

TEST(AxisTicks, SubSecondSteps) {
  // 0..2 s over 600 px: raw 0.3 s -> 0.5 s.
  EXPECT_EQ(labels(axis_ticks(TickKind::kTime, 0, 2, 600, 90)),
            (Labels{"0s", "0.5s", "1s", "1.5s", "2s"}));
  // 59..61 s over 300 px: raw 0.6 s -> 1 s.
  EXPECT_EQ(labels(axis_ticks(TickKind::kTime, 59, 61, 300, 90)), (Labels{"59s", "1m", "1m1s"}));
  // 60..60.5 s over 400 px: raw 0.1125 s -> 0.2 s; the minutes stay.
  EXPECT_EQ(labels(axis_ticks(TickKind::kTime, 60, 60.5, 400, 90)),
            (Labels{"1m", "1m0.2s", "1m0.4s"}));
  // 0.05 s steps need two decimals.
  EXPECT_EQ(labels(ticks_with_step(TickKind::kTime, 1.9, 2.05, 0.05)),
            (Labels{"1.9s", "1.95s", "2s", "2.05s"}));
}

TEST(AxisTicks, ValuesAreRoundAndShort) {
  // 0..2100 over 200 px, 90 apart: raw 945 -> 1000.
  EXPECT_EQ(labels(axis_ticks(TickKind::kValue, 0, 2100, 200, 90)), (Labels{"0", "1k", "2k"}));
  // Over 300 px, 40 apart: raw 280 -> 500.
  EXPECT_EQ(labels(axis_ticks(TickKind::kValue, 0, 2100, 300, 40)),
            (Labels{"0", "500", "1k", "1.5k", "2k"}));
  // 0..1 over 100 px: raw 0.4 -> 0.5.
  EXPECT_EQ(labels(axis_ticks(TickKind::kValue, 0, 1, 100, 40)), (Labels{"0", "0.5", "1"}));
  EXPECT_EQ(labels(ticks_with_step(TickKind::kValue, 1000, 1200, 50)),
            (Labels{"1k", "1.05k", "1.1k", "1.15k", "1.2k"}));
  // 0..3e6 over 300 px, 90 apart: raw 9e5 -> 1e6.
  EXPECT_EQ(labels(axis_ticks(TickKind::kValue, 0, 3e6, 300, 90)), (Labels{"0", "1M", "2M", "3M"}));
  // 0.1 / 0.1 and 0.3 / 0.1 are not whole in floating point; the ticks still are.
  const auto tenths = ticks_with_step(TickKind::kValue, 0.1, 0.3, 0.1);
  EXPECT_EQ(labels(tenths), (Labels{"0.1", "0.2", "0.3"}));
  EXPECT_EQ(labels(ticks_with_step(TickKind::kValue, -10, 10, 10)), (Labels{"-10", "0", "10"}));
  // An empty span: one tick.
  EXPECT_EQ(labels(axis_ticks(TickKind::kValue, 5, 5, 300, 40)), (Labels{"5"}));
}

TEST(AxisTicks, CountsStepByWholeNumbers) {
  // 0..3 jobs over 600 px, 40 apart: raw 0.2, but a count steps by 1 at least.
  EXPECT_EQ(labels(axis_ticks(TickKind::kCount, 0, 3, 600, 40)), (Labels{"0", "1", "2", "3"}));
  // Two jobs of capacity: 2 x 1.05 = 2.1 rounds up to 3, not 2.2.
  EXPECT_EQ(round_axis_max(TickKind::kCount, 2, 600, 40), 3);
  EXPECT_DOUBLE_EQ(round_axis_max(TickKind::kValue, 2, 600, 40), 2.2);
}

TEST(AxisTicks, Percent) {
  // 0..40 % over 300 px, 40 apart: raw 5.33 % -> 10 %.
  EXPECT_EQ(labels(axis_ticks(TickKind::kPercent, 0, 40, 300, 40)),
            (Labels{"0%", "10%", "20%", "30%", "40%"}));
  EXPECT_EQ(tick_label(TickKind::kPercent, 2.5, 0.5), "2.5%");
}

TEST(AxisTicks, RoundAxisMaxLeavesHeadroom) {
  // 63 x 1.05 = 66.15 over 400 px, 40 apart: step 10 (raw 6.6), so 70.
  EXPECT_EQ(round_axis_max(TickKind::kValue, 63, 400, 40), 70);
  // A line at exactly a round value is not drawn on the plot's edge: 80 -> 84 -> 90.
  EXPECT_EQ(round_axis_max(TickKind::kValue, 80, 400, 40), 90);
  // Seconds: 3000 x 1.05 = 3150 over 200 px, 40 apart: raw 630 s -> 15 min, so 60 min.
  EXPECT_EQ(round_axis_max(TickKind::kTime, 3000, 200, 40), 3600);
  EXPECT_EQ(round_axis_max(TickKind::kValue, 0, 400, 40), 1);
  // The overloaded Sidekiq queue: 21,645 x 1.05 = 22,727 over 682 px, 60 apart: raw 1,999.5
  // -> 2,000, so 24,000; but [0, 24,000] ticks every 5,000 (raw 2,111), which would leave
  // the end unlabelled: 25,000.
  EXPECT_EQ(round_axis_max(TickKind::kValue, 21645, 682, 60), 25000);
  EXPECT_EQ(labels(axis_ticks(TickKind::kValue, 0, 25000, 682, 60)).back(), "25k");
}

}  // namespace
}  // namespace drainsim::viewer
