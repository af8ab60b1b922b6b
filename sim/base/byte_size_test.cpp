#include "base/byte_size.h"

#include <gtest/gtest.h>

namespace drainsim {
namespace {

TEST(ByteSize, ParsesUnitsAsPowersOf1024) {
  EXPECT_EQ(parse_byte_size("4096"), 4096u);
  EXPECT_EQ(parse_byte_size("4096B"), 4096u);
  EXPECT_EQ(parse_byte_size("2K"), 2048u);
  EXPECT_EQ(parse_byte_size("512M"), 512u * 1024 * 1024);
  EXPECT_EQ(parse_byte_size("512MB"), 512u * 1024 * 1024);
  EXPECT_EQ(parse_byte_size("12G"), 12ull << 30);
  EXPECT_EQ(parse_byte_size("12GiB"), 12ull << 30);
  EXPECT_EQ(parse_byte_size("1.5G"), 3ull << 29);  // 1.5 * 2^30 = 3 * 2^29
  EXPECT_EQ(parse_byte_size("2T"), 2ull << 40);
  EXPECT_EQ(parse_byte_size("0"), 0u);
}

TEST(ByteSize, RejectsAnythingElse) {
  for (const char* bad :
       {"", "G", "-1G", "+1G", " 1G", "1G ", "1 G", "1g", "1X", "inf", "nanG", "1e30", "1PB"}) {
    EXPECT_EQ(parse_byte_size(bad), std::nullopt) << '"' << bad << '"';
  }
}

TEST(ByteSize, FormatsThreeSignificantDigits) {
  EXPECT_EQ(format_byte_size(512), "512 B");
  EXPECT_EQ(format_byte_size(1536), "1.5 KiB");
  EXPECT_EQ(format_byte_size(10000), "9.77 KiB");  // 10000 / 1024 = 9.765...
  EXPECT_EQ(format_byte_size(38.0 * (1ull << 30)), "38 GiB");
  EXPECT_EQ(format_byte_size(12.0 * (1ull << 30)), "12 GiB");
  EXPECT_EQ(format_byte_size(150.4 * (1 << 20)), "150 MiB");
  EXPECT_EQ(format_byte_size(3.0 * (1ull << 50)), "3072 TiB");
}

}  // namespace
}  // namespace drainsim
