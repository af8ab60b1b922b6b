#include "io/json_seconds.h"

#include <cmath>
#include <random>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace drainsim {
namespace {

std::string fast(Time t) {
  char text[kMaxJsonSeconds];
  return std::string(text, write_json_seconds(text, t));
}

std::string dumped(Time t) { return nlohmann::json(to_seconds(t)).dump(); }

TEST(JsonSeconds, HandWorked) {
  EXPECT_EQ(fast(0), "0.0");
  EXPECT_EQ(fast(1), "1e-06");
  EXPECT_EQ(fast(11), "1.1e-05");
  EXPECT_EQ(fast(120), "0.00012");
  EXPECT_EQ(fast(1'500), "0.0015");
  EXPECT_EQ(fast(250'000), "0.25");
  EXPECT_EQ(fast(2'000'000), "2.0");
  EXPECT_EQ(fast(3'600'000'000), "3600.0");
  EXPECT_EQ(fast(3'654'032'152), "3654.032152");
  EXPECT_EQ(fast(-1'500'000), "-1.5");
}

TEST(JsonSeconds, EveryMicrosecondOfTheFirstTwoSecondsAsNlohmannDumpsIt) {
  for (Time t = 0; t <= 2'000'000; ++t) ASSERT_EQ(fast(t), dumped(t)) << t;
}

TEST(JsonSeconds, AroundPowersOfTwoSecondsAsNlohmannDumpsIt) {
  // Just below a power of two the next double down is nearer: the interval is lopsided.
  for (int k = -10; k <= 32; ++k) {
    const auto centre = static_cast<Time>(std::llround(std::ldexp(1e6, k)));
    for (Time t = centre - 3'000; t <= centre + 3'000; ++t) {
      if (t >= 0) {
        ASSERT_EQ(fast(t), dumped(t)) << t;
      }
    }
  }
}

TEST(JsonSeconds, RandomTimesUpTo2To52AsNlohmannDumpsThem) {
  std::mt19937_64 rng(19);
  for (int i = 0; i < 1'000'000; ++i) {
    const int bits = 10 + i % 43;  // 2^10 .. 2^52 microseconds, each width as often
    const auto t = static_cast<Time>(rng() >> (64 - bits));
    ASSERT_EQ(fast(t), dumped(t)) << t;
  }
}

}  // namespace
}  // namespace drainsim
