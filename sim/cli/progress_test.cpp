// ProgressReport: the bar and ETA on a terminal, plain lines at most every 10 s elsewhere,
// with the times worked out by hand.
#include "cli/progress.h"

#include <gtest/gtest.h>

namespace drainsim {
namespace {

TEST(FormatClock, MinutesAndSecondsThenHours) {
  EXPECT_EQ(format_clock(0), "0:00");
  EXPECT_EQ(format_clock(35), "0:35");
  EXPECT_EQ(format_clock(59.6), "1:00");
  EXPECT_EQ(format_clock(754), "12:34");
  EXPECT_EQ(format_clock(3600 + 62), "1:01:02");
  EXPECT_EQ(format_clock(-3), "0:00");
}

TEST(ProgressReport, TerminalRedrawsABarWithTheEta) {
  ProgressReport r("sweep", /*terminal=*/true);
  EXPECT_EQ(r.finish(), "");  // nothing drawn yet
  EXPECT_EQ(r.update(0, 600, 0), "\rsweep [....................] 0/600 runs 0%\x1b[K");
  // 120 runs in 9 s: 480 left at 13.3 a second is 36 s.
  EXPECT_EQ(r.update(120, 600, 9),
            "\rsweep [####................] 120/600 runs 20%  ETA 0:36\x1b[K");
  EXPECT_EQ(r.update(599, 600, 90),
            "\rsweep [###################.] 599/600 runs 99%  ETA 0:00\x1b[K");
  EXPECT_EQ(r.update(600, 600, 91), "\rsweep [####################] 600/600 runs 100%\x1b[K");
  EXPECT_EQ(r.finish(), "\n");
}

TEST(ProgressReport, PlainLinesAtMostEveryTenSecondsAndAFinalOne) {
  ProgressReport r("sweep", /*terminal=*/false);
  EXPECT_EQ(r.update(0, 300, 0), "sweep: 0/300 runs (0%)\n");
  EXPECT_EQ(r.update(20, 300, 1), "");
  EXPECT_EQ(r.update(100, 300, 9.9), "");
  // 150 runs in 10.5 s: the other 150 take 10.5 s too.
  EXPECT_EQ(r.update(150, 300, 10.5), "sweep: 150/300 runs (50%), 0:11 elapsed, ETA 0:11\n");
  EXPECT_EQ(r.update(290, 300, 19), "");
  EXPECT_EQ(r.update(300, 300, 20), "");  // 9.5 s after the last line
  EXPECT_EQ(r.finish(), "sweep: 300/300 runs (100%), 0:20 elapsed\n");
  EXPECT_EQ(r.finish(), "");
}

TEST(ProgressReport, NoFinalLineRepeatingTheLastOne) {
  ProgressReport r("sweep", /*terminal=*/false);
  EXPECT_EQ(r.update(0, 4, 0), "sweep: 0/4 runs (0%)\n");
  EXPECT_EQ(r.update(4, 4, 12), "sweep: 4/4 runs (100%), 0:12 elapsed\n");
  EXPECT_EQ(r.finish(), "");
  ProgressReport stopped("sweep", /*terminal=*/false);
  EXPECT_EQ(stopped.update(0, 40, 0), "sweep: 0/40 runs (0%)\n");
  EXPECT_EQ(stopped.update(0, 40, 3), "");
  EXPECT_EQ(stopped.finish(), "");  // the state did not change since the line
  EXPECT_EQ(stopped.update(10, 40, 4), "");
  EXPECT_EQ(stopped.finish(), "sweep: 10/40 runs (25%), 0:04 elapsed, ETA 0:12\n");
}

TEST(ProgressReport, StatusIsRedrawnOnATerminalAndSilentElsewhere) {
  const ProgressReport terminal("tune", true);
  EXPECT_EQ(terminal.status("preStop 5s, grace 30s (7 settings run)"),
            "\rtune: preStop 5s, grace 30s (7 settings run)\x1b[K");
  EXPECT_EQ(terminal.clear(), "\r\x1b[K");
  const ProgressReport plain("tune", false);
  EXPECT_EQ(plain.status("preStop 5s, grace 30s (7 settings run)"), "");
  EXPECT_EQ(plain.clear(), "");
}

TEST(ProgressReport, CountsAnotherUnit) {
  // A long run: 1800 of 7200 simulated seconds in 6 s, so the other 5400 take 18 s.
  ProgressReport r("run", /*terminal=*/false, 10, "simulated s");
  EXPECT_EQ(r.update(1800, 7200, 6), "run: 1800/7200 simulated s (25%), 0:06 elapsed, ETA 0:18\n");
  ProgressReport bar("run", /*terminal=*/true, 10, "simulated s");
  EXPECT_EQ(bar.update(1800, 7200, 6),
            "\rrun [#####...............] 1800/7200 simulated s 25%  ETA 0:18\x1b[K");
}

}  // namespace
}  // namespace drainsim
