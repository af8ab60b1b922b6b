#include "base/duration.h"

#include <cstdint>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "base/rng.h"

namespace drainsim {
namespace {

TEST(Duration, ParsesSingleTerms) {
  EXPECT_EQ(parse_duration("250ms"), 250'000);     // 250 * 1000 us
  EXPECT_EQ(parse_duration("25s"), 25'000'000);    // 25 * 10^6 us
  EXPECT_EQ(parse_duration("2h"), 7'200'000'000);  // 2 * 3600 * 10^6 us
  EXPECT_EQ(parse_duration("10us"), 10);           // microseconds as is
  EXPECT_EQ(parse_duration("100\xC2\xB5s"), 100);  // "100µs" (U+00B5 micro sign)
  EXPECT_EQ(parse_duration("3m"), 180'000'000);    // 3 * 60 * 10^6 us
  EXPECT_EQ(parse_duration("0"), 0);               // a bare zero needs no unit
  EXPECT_EQ(parse_duration("0s"), 0);
}

TEST(Duration, ParsesCompoundAndFractionalTerms) {
  EXPECT_EQ(parse_duration("1m30s"), 90'000'000);      // 60 s + 30 s
  EXPECT_EQ(parse_duration("1h2m3s"), 3'723'000'000);  // 3600 + 120 + 3 s
  EXPECT_EQ(parse_duration("1.5s"), 1'500'000);        // 1 s + 0.5 s, exact
  EXPECT_EQ(parse_duration("0.1s"), 100'000);          // exact, no binary rounding
  EXPECT_EQ(parse_duration("1.5h"), 5'400'000'000);    // 90 minutes
  EXPECT_EQ(parse_duration("1.25ms"), 1'250);          // 1250 us
  EXPECT_EQ(parse_duration("0.000001s"), 1);           // exactly one microsecond
  EXPECT_EQ(parse_duration("1.0us"), 1);               // trailing zeros below 1 us are fine
  EXPECT_EQ(parse_duration("1s500ms"), 1'500'000);     // "ms" is not read as "m" + "s"
}

TEST(Duration, RejectsMalformedText) {
  for (const char* bad : {"", "-3s", "5", "1x", "s", "ms", ".s", "1.5", "1s5", " 1s", "1s ", "1 s",
                          "1S", "+1s", "1e3s"}) {
    EXPECT_EQ(parse_duration(bad), std::nullopt) << '"' << bad << '"';
  }
}

TEST(Duration, RejectsSubMicrosecondPrecision) {
  EXPECT_EQ(parse_duration("1.5us"), std::nullopt);       // 1.5 us
  EXPECT_EQ(parse_duration("0.0000001s"), std::nullopt);  // 0.1 us
  EXPECT_EQ(parse_duration("1.0005ms"), std::nullopt);    // 1000.5 us
  EXPECT_EQ(parse_duration("1.001ms"), 1'001);            // 1001 us is fine
}

TEST(Duration, RejectsOverflow) {
  // INT64_MAX us = 9223372036854775807 us = 2562047788.0149 h.
  EXPECT_EQ(parse_duration("2562047788h"), 2'562'047'788LL * 3'600'000'000LL);
  EXPECT_EQ(parse_duration("2562047789h"), std::nullopt);            // one hour too many
  EXPECT_EQ(parse_duration("99999999999999999999s"), std::nullopt);  // too many digits
  EXPECT_EQ(parse_duration("9223372036854775808us"), std::nullopt);  // INT64_MAX + 1
  // Each term fits, the sum does not: 2 * 1562047788 h > 2562047788 h.
  EXPECT_EQ(parse_duration("1562047788h1562047788h"), std::nullopt);
}

TEST(Duration, RejectsOverflowInFraction) {
  // 9223372036854 s = 9223372036854000000 us fits (INT64_MAX / 10^6 = 9223372036854);
  // adding the 0.9 s fraction (900000 us) does not. Without a check on the fraction this
  // is signed overflow (undefined behaviour; a -fsanitize=undefined build reports it).
  EXPECT_EQ(parse_duration("9223372036854.9s"), std::nullopt);
  EXPECT_EQ(parse_duration("9223372036854.775808s"), std::nullopt);     // INT64_MAX + 1 us
  EXPECT_EQ(parse_duration("9223372036854.775807s"), INT64_MAX);        // exactly INT64_MAX us
  EXPECT_EQ(parse_duration("1us9223372036854.775807s"), std::nullopt);  // sum overflows
}

TEST(Duration, FormatsShortestExactText) {
  EXPECT_EQ(format_duration(90 * kSecond), "1m30s");
  EXPECT_EQ(format_duration(250 * kMillisecond), "250ms");
  EXPECT_EQ(format_duration(1500 * kMillisecond), "1.5s");
  EXPECT_EQ(format_duration(2 * kHour), "2h");
  EXPECT_EQ(format_duration(kHour + kSecond), "1h1s");  // no "0m"
  EXPECT_EQ(format_duration(25 * kSecond), "25s");
  EXPECT_EQ(format_duration(10), "10us");
  EXPECT_EQ(format_duration(1250 * kMillisecond), "1.25s");
}

TEST(Duration, FormatThenParseRoundTrips) {
  for (Duration d : {Duration{0}, Duration{1}, 999 * kMicrosecond, kMillisecond,
                     1500 * kMillisecond, 90 * kSecond, 90 * kSecond + 500 * kMillisecond,
                     kHour + kMinute + kSecond, 36 * kHour, kHour + 7}) {
    EXPECT_EQ(parse_duration(format_duration(d)), d) << format_duration(d);
  }
  // Random values at every scale from 1 us to ~3 years.
  Rng rng(11);
  for (int i = 0; i < 20000; ++i) {
    const Duration d = static_cast<Duration>(rng.below(std::uint64_t{1} << (1 + rng.below(56))));
    ASSERT_EQ(parse_duration(format_duration(d)), d) << d << " -> " << format_duration(d);
  }
}

TEST(Duration, FormatThenParseRoundTripsUpToTheLargest) {
  // format_duration writes a duration that is not whole milliseconds in microseconds, 19
  // digits for the largest; the parser read at most 18 (fuzz/regressions/duration/).
  EXPECT_EQ(format_duration(2'880'000'000'000'000'004), "2880000000000000004us");
  EXPECT_EQ(parse_duration("2880000000000000004us"), 2'880'000'000'000'000'004);
  EXPECT_EQ(parse_duration("4us800000000h"), 2'880'000'000'000'000'004);
  EXPECT_EQ(parse_duration(format_duration(INT64_MAX)), INT64_MAX);
  EXPECT_EQ(parse_duration("9223372036854775807us"), INT64_MAX);
  EXPECT_EQ(parse_duration("09223372036854775807us"), INT64_MAX);  // a leading zero
}

TEST(Duration, ParseThenFormatGivesCanonicalText) {
  EXPECT_EQ(format_duration(*parse_duration("90s")), "1m30s");
  EXPECT_EQ(format_duration(*parse_duration("1500ms")), "1.5s");
  EXPECT_EQ(format_duration(*parse_duration("0.25s")), "250ms");
  EXPECT_EQ(format_duration(*parse_duration("120m")), "2h");
}

TEST(FormatSeconds, AMeasuredDurationReadsLikeTheScenarioSyntax) {
  EXPECT_EQ(format_seconds(32), "32s");
  EXPECT_EQ(format_seconds(200), "3m20s");
  EXPECT_EQ(format_seconds(189.455), "189.455s");  // a fraction: seconds, to the millisecond
  EXPECT_EQ(format_seconds(189.4551), "189.455s");
  EXPECT_EQ(format_seconds(0.0004), "0s");
  EXPECT_EQ(format_seconds(0.25), "250ms");
  EXPECT_EQ(format_seconds(3600 + 60 + 5), "1h1m5s");
  EXPECT_EQ(format_seconds(1.0 / 0.0), "inf");
}

}  // namespace
}  // namespace drainsim
