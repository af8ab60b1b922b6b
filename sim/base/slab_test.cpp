#include "base/slab.h"

#include <gtest/gtest.h>

namespace drainsim {
namespace {

TEST(Slab, ReusesTheSlotReleasedLastThenGrows) {
  Slab<int> s;
  EXPECT_EQ(s.acquire(), 0u);
  EXPECT_EQ(s.acquire(), 1u);
  EXPECT_EQ(s.acquire(), 2u);
  s[1] = 11;
  s.release(0);
  s.release(2);
  EXPECT_EQ(s.live(), 1u);
  EXPECT_EQ(s.acquire(), 2u);  // the last released first
  EXPECT_EQ(s.acquire(), 0u);
  EXPECT_EQ(s.acquire(), 3u);  // none left to reuse: a new slot
  EXPECT_EQ(s.size(), 4u);
  EXPECT_EQ(s.live(), 4u);
  EXPECT_EQ(s[1], 11);  // a live slot keeps its value across acquires
}

}  // namespace
}  // namespace drainsim
