// Tolerances files: read with errors naming the file, the JSON path and what was expected;
// the most specific tolerance holds; the defaults are the documented ones.
#include "io/tolerances.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "io/json_reader.h"

namespace drainsim {
namespace {

namespace fs = std::filesystem;

class TolerancesFile : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (fs::temp_directory_path() /
             ("drainsim_tolerances_" +
              std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
              ".json"))
                .string();
  }
  void TearDown() override { fs::remove(path_); }
  Tolerances read(const std::string& json) {
    std::ofstream(path_) << json;
    return read_tolerances(path_);
  }
  std::string error(const std::string& json) {
    try {
      read(json);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }
  std::string path_;
};

TEST(Tolerances, TheDefaultsAreTheDocumentedOnes) {
  const Tolerances t;
  // counts ±max(1, 10 %): at a mean of 4, 1; of 30, 3.
  EXPECT_DOUBLE_EQ(t.of("", "job_loss").margin(4), 1);
  EXPECT_DOUBLE_EQ(t.of("", "jobs_completed").margin(30), 3);
  // seconds ±max(0.25 s, 5 %): at 2 s, 0.25; at 45 s, 2.25; of a negative mean, its size.
  EXPECT_DOUBLE_EQ(t.of("", "drain_latency_s.p99").margin(2), 0.25);
  EXPECT_DOUBLE_EQ(t.of("", "orphan_recovery_delay_s.p50").margin(45), 2.25);
  EXPECT_DOUBLE_EQ(t.of("", "wasted_work_s").margin(-10), 0.5);
  EXPECT_EQ(t.source, "drainsim's defaults");
}

TEST_F(TolerancesFile, TheCaseOverTheMetricOverTheUnit) {
  const Tolerances t = read(R"({
    "units": {"count": {"absolute": 2, "reason": "two jobs"}},
    "metrics": {"job_loss": {"absolute": 0.5, "relative": 0, "reason": "a loss is feared"}},
    "cases": {"x": {"reason": "its loss varies", "metrics": {
      "job_loss": {"relative": 0.5, "reason": "half"}}},
              "y": {"reason": "the defaults hold"}}})");
  EXPECT_EQ(t.source, path_);
  EXPECT_DOUBLE_EQ(t.of("", "jobs_completed").margin(10), 2);     // the file's unit
  EXPECT_DOUBLE_EQ(t.of("", "job_loss").margin(10), 0.5);         // the metric's
  EXPECT_DOUBLE_EQ(t.of("x", "job_loss").margin(10), 5);          // the case's
  EXPECT_DOUBLE_EQ(t.of("y", "job_loss").margin(10), 0.5);        // the case has none of its own
  EXPECT_DOUBLE_EQ(t.of("x", "drain_latency_s.max").margin(2), 0.25);  // seconds: the default
  EXPECT_EQ(t.cases.at("y").reason, "the defaults hold");
  EXPECT_EQ(t.of("x", "job_loss").reason, "half");
}

TEST_F(TolerancesFile, BadFilesNameThePathAndWhatWasExpected) {
  EXPECT_EQ(error(R"({"metrics": {"job_los": {"absolute": 1, "reason": "r"}}})"),
            path_ + ": metrics.job_los: unknown field (a metric of the summary), did you mean "
                    "\"job_loss\"?");
  EXPECT_EQ(error(R"({"metrics": {"job_loss": {"absolute": 1}}})"),
            path_ + ": metrics.job_loss.reason: required field missing, expected why this "
                    "margin (a non-empty string)");
  EXPECT_EQ(error(R"({"metrics": {"job_loss": {"absolute": -1, "reason": "r"}}})"),
            path_ + ": metrics.job_loss.absolute: expected a number >= 0, got -1");
  EXPECT_EQ(error(R"({"metrics": {"job_loss": {"reason": "r"}}})"),
            path_ + ": metrics.job_loss: give \"absolute\", \"relative\" or both");
  EXPECT_EQ(error(R"({"units": {"bytes": {"absolute": 1, "reason": "r"}}})"),
            path_ + ": units.bytes: unknown field, expected one of \"count\", \"seconds\", "
                    "\"fraction\"");
  EXPECT_EQ(error(R"({"cases": {"x": {"metrics": {}}}})"),
            path_ + ": cases.x.reason: required field missing, expected why these tolerances "
                    "hold for the case (a non-empty string)");
  EXPECT_EQ(error(R"({"cases": []})"), path_ + ": cases: expected an object, got []");
  EXPECT_EQ(error("[1]"),
            path_ + ": expected an object with \"units\", \"metrics\" or \"cases\", got [1]");
  EXPECT_NE(error("{").find(path_ + ": not valid JSON"), std::string::npos);
}

}  // namespace
}  // namespace drainsim
