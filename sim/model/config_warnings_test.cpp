#include "model/config_warnings.h"

#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace drainsim {
namespace {

// Kubernetes with a 30 s grace, and a worker whose own grace is `worker`.
Scenario kubernetes(Duration worker, PreStop pre_stop = {}) {
  Scenario s;
  s.platform.kind = PlatformConfig::Kind::kKubernetes;
  s.platform.termination_grace_period = 30 * kSecond;
  s.platform.pre_stop = pre_stop;
  s.worker.grace_period = worker;
  return s;
}

PreStop sleep_for(Duration d) {
  PreStop p;
  p.kind = PreStop::Kind::kSleep;
  p.duration = d;
  return p;
}

std::vector<std::string> codes(const Scenario& s) {
  std::vector<std::string> out;
  for (const Warning& w : config_warnings(s)) out.push_back(w.code);
  return out;
}

using Strings = std::vector<std::string>;
using Figures = std::vector<std::pair<std::string, double>>;

TEST(ConfigWarnings, AWorkerGraceLongerThanThePlatformsIsKilledFirstAndSaysTheFix) {
  // TERM at 0, SIGKILL at 30 s; the worker would wait 60 s: it never reaches its deadline.
  const std::vector<Warning> w = config_warnings(kubernetes(60 * kSecond));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].code, "worker_grace_outlasts_platform");
  EXPECT_EQ(w[0].figures, (Figures{{"worker_grace_s", 60},
                                   {"platform_grace_s", 30},
                                   {"pre_stop_s", 0},
                                   {"left_after_pre_stop_s", 30}}));
  EXPECT_NE(w[0].message.find("worker.grace_period 1m is longer than the 30s the platform"),
            std::string::npos)
      << w[0].message;
  EXPECT_NE(w[0].message.find("set worker.grace_period below 30s"), std::string::npos);
  EXPECT_NE(w[0].message.find("raise platform.termination_grace_period above 1m"),
            std::string::npos)
      << w[0].message;
}

TEST(ConfigWarnings, AWorkerGraceEqualToWhatThePlatformLeavesWarnsAndOneBelowDoesNot) {
  // OJS's own default pairing, 30 s and Kubernetes' 30 s, against its advice (25 s).
  const std::vector<Warning> w = config_warnings(kubernetes(30 * kSecond));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].message.find("is as long as the 30s"), std::string::npos) << w[0].message;
  EXPECT_NE(w[0].message.find("races the kill"), std::string::npos) << w[0].message;
  EXPECT_EQ(codes(kubernetes(29 * kSecond)), Strings{});
  // A worker with no deadline of its own (Celery's warm shutdown) is no mistake of the file.
  EXPECT_EQ(codes(kubernetes(kNever)), Strings{});
}

TEST(ConfigWarnings, ThePreStopsSleepComesOffWhatTheWorkerIsLeft) {
  // Sleep 10 s, then TERM with 20 s left: a 20 s worker grace is too long, 19 s is not.
  const std::vector<Warning> w = config_warnings(kubernetes(20 * kSecond, sleep_for(10 * kSecond)));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].figures.back(), (std::pair<std::string, double>{"left_after_pre_stop_s", 20}));
  EXPECT_NE(w[0].message.find("(platform.termination_grace_period 30s − preStop sleep 10s)"),
            std::string::npos)
      << w[0].message;
  EXPECT_NE(w[0].message.find("above 30s"), std::string::npos) << w[0].message;
  EXPECT_EQ(codes(kubernetes(19 * kSecond, sleep_for(10 * kSecond))), Strings{});
}

TEST(ConfigWarnings, APreStopAsLongAsTheGraceLeavesTheWorkerTwoSecondsAndSaysSoAlone) {
  const std::vector<Warning> w = config_warnings(kubernetes(60 * kSecond, sleep_for(30 * kSecond)));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].code, "pre_stop_outlasts_platform");
  EXPECT_EQ(w[0].figures, (Figures{{"pre_stop_s", 30}, {"platform_grace_s", 30}}));
  EXPECT_NE(w[0].message.find("kubelet then sends TERM with 2s left before SIGKILL"),
            std::string::npos)
      << w[0].message;
  EXPECT_EQ(codes(kubernetes(500 * kMillisecond, sleep_for(29 * kSecond))), Strings{});
}

TEST(ConfigWarnings, QuietThenWaitIsJudgedByItsTimeoutAloneForItTermsOnlyAnIdleWorker) {
  PreStop wait;
  wait.kind = PreStop::Kind::kQuietThenWait;
  wait.timeout = 2 * kMinute;  // the default, past the 30 s grace
  EXPECT_EQ(codes(kubernetes(10 * kSecond, wait)), Strings{"pre_stop_outlasts_platform"});
  wait.timeout = 20 * kSecond;
  EXPECT_EQ(codes(kubernetes(60 * kSecond, wait)), Strings{});
}

TEST(ConfigWarnings, DockerJudgesItsStopGraceAndHasNoPreStop) {
  Scenario s = kubernetes(10 * kSecond, sleep_for(30 * kSecond));
  s.platform.kind = PlatformConfig::Kind::kDocker;
  s.platform.stop_grace_period = 10 * kSecond;
  const std::vector<Warning> w = config_warnings(s);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].code, "worker_grace_outlasts_platform");
  EXPECT_NE(w[0].message.find("(platform.stop_grace_period 10s)"), std::string::npos)
      << w[0].message;
}

TEST(ConfigWarnings, NoneWhenTermNeverReachesTheWorkerOrItHandlesNone) {
  Scenario s = kubernetes(60 * kSecond);
  s.platform.pid1_shell = true;
  EXPECT_EQ(codes(s), Strings{});
  Scenario naive = kubernetes(60 * kSecond);
  naive.worker.shutdown.handles_term = false;
  EXPECT_EQ(codes(naive), Strings{});
}

}  // namespace
}  // namespace drainsim
