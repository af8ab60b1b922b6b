#include "io/results.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "io/json_reader.h"
#include "model/metrics.h"

namespace drainsim {
namespace {

using nlohmann::json;

// A summary with every metric of this drainsim set to 1 (groups as objects of 1s).
json full_summary() {
  json summary = json::object();
  for (const Metric& m : metrics()) {
    if (m.group().empty()) {
      summary[std::string(m.name)] = 1;
    } else {
      summary[std::string(m.group())][std::string(m.leaf())] = 1;
    }
  }
  return summary;
}

TEST(SummaryValues, ReadsTheCurrentSchema) {
  json doc = {{"schema_version", kResultsSchemaVersion}, {"summary", full_summary()}};
  doc["summary"]["completions_rejected"] = 4;
  doc["summary"]["redeliveries"] = 2;
  const MetricValues v = summary_values(doc, "now.json");
  EXPECT_EQ(v.at("completions_rejected"), 4.0);
  EXPECT_EQ(v.at("redeliveries"), 2.0);
}

TEST(SummaryValues, ReadsA1xDocumentWithItsOldNames) {
  // 1.2 called completions_rejected rejected_acks and counted redeliveries among
  // shutdown_retries: the first is read under its old name, the second is unknown.
  json summary = full_summary();
  summary.erase("completions_rejected");
  summary.erase("redeliveries");
  summary["rejected_acks"] = 7;
  const MetricValues v =
      summary_values({{"schema_version", "1.2"}, {"summary", summary}}, "old.json");
  EXPECT_EQ(v.at("completions_rejected"), 7.0);
  EXPECT_EQ(v.at("redeliveries"), std::nullopt);
  EXPECT_EQ(v.at("shutdown_retries"), 1.0);
  // The same keys in a 2.x document are missing metrics.
  try {
    summary_values({{"schema_version", "2.0"}, {"summary", summary}}, "bad.json");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(
        std::string(e.what()).find("bad.json: summary.completions_rejected: expected a number"),
        std::string::npos)
        << e.what();
  }
}

TEST(SummaryValues, ASchemaVersionIsTwoWholeNumbersInDigits) {
  // The viewer's reader takes the same rule (parse_version).
  for (const char* bad : {"3", "3.", ".0", " 3.0", "+3.0", "3.-0", "3.0x", "three"}) {
    try {
      check_schema_version({{"schema_version", bad}}, "v.json");
      FAIL() << bad << ": expected an InputError";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("v.json: schema_version: expected a version like"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(check_schema_version({{"schema_version", "3.12"}}, "v.json"), std::pair(3, 12));
}

TEST(SummaryValues, ReadsPushesRefusedAsZeroBefore21) {
  // 2.1 added pushes_refused (singleton classes); no push was refused before.
  json summary = full_summary();
  summary.erase("pushes_refused");
  const MetricValues v =
      summary_values({{"schema_version", "2.0"}, {"summary", summary}}, "old.json");
  EXPECT_EQ(v.at("pushes_refused"), 0.0);
  EXPECT_EQ(v.at("completions_rejected"), 1.0);
  try {
    summary_values({{"schema_version", "2.1"}, {"summary", summary}}, "new.json");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("new.json: summary.pushes_refused: expected a number"),
              std::string::npos)
        << e.what();
  }
}

// results/README.md, Versioning: an unknown MAJOR is named with the versions this reader
// knows; anything that is not "MAJOR.MINOR" is refused as such, a missing one as missing.
TEST(SummaryValues, RefusesAnUnknownSchemaVersion) {
  const std::vector<std::pair<json, std::string>> cases = {
      {json("4.0"), "x.json: schema_version 4.0, this reader knows 1.x to 3.x"},
      {json("0.9"), "x.json: schema_version 0.9, this reader knows 1.x to 3.x"},
      {json(""), "x.json: schema_version: expected a version like \"3.0\", got \"\""},
      {json("3"), "x.json: schema_version: expected a version like \"3.0\", got \"3\""},
      {json("x"), "x.json: schema_version: expected a version like \"3.0\", got \"x\""},
      {json(2), "x.json: schema_version: expected a version like \"3.0\", got 2"},
      {json(nullptr), "x.json: schema_version: expected a version like \"3.0\", got null"},
  };
  for (const auto& [version, message] : cases) {
    try {
      summary_values({{"schema_version", version}, {"summary", full_summary()}}, "x.json");
      ADD_FAILURE() << "accepted " << version.dump();
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).substr(0, message.size()), message) << e.what();
    }
  }
  try {
    summary_values({{"summary", full_summary()}}, "x.json");
    ADD_FAILURE() << "accepted a document without schema_version";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "x.json: schema_version: required field missing, expected a version like \"3.0\"");
  }
}

// A recorded run: its metrics, its seed and what it could not measure (3.1, real.not_measured);
// errors name the file and the JSON path.
TEST(ResultsWarnings, AreWarningObjectsFrom30AndStringsBeforeOrTheReaderSaysWhere) {
  using nlohmann::json;
  const auto doc = [](const char* version, const json& warnings) {
    return json{{"schema_version", version}, {"warnings", warnings}};
  };
  const std::vector<Warning> read = results_warnings(
      doc("3.1", json::parse(R"([{"code":"overload","message":"m","figures":{"slots":4}}])")),
      "r.json");
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].code, "overload");
  EXPECT_EQ(read[0].figures, (std::vector<std::pair<std::string, double>>{{"slots", 4}}));
  EXPECT_EQ(results_warnings(doc("2.1", json::parse(R"(["old"])")), "r.json")[0].message, "old");
  EXPECT_TRUE(results_warnings(json{{"schema_version", "3.0"}}, "r.json").empty());
  const std::pair<json, std::string> bad[] = {
      {doc("3.0", json::parse(R"(["a 2.x-style warning"])")),
       "r.json: warnings[0]: expected a warning object {\"code\": string, \"message\": string, "
       "\"figures\": object}, got \"a 2.x-style warning\""},
      {doc("3.0", json::parse(R"([{"code":7,"message":null}])")),
       "r.json: warnings[0].code: expected a string, got 7"},
      {doc("3.0", json::parse(R"([{"code":"x","message":"m"}])")),
       "r.json: warnings[0].figures: expected an object of numbers, got null"},
      {doc("3.0", json::parse(R"([{"code":"x","message":"m","figures":{"n":"4"}}])")),
       "r.json: warnings[0].figures.n: expected a number, got \"4\""},
      {doc("3.0", json::parse(R"([{}])")), "r.json: warnings[0].code: expected a string, got null"},
      {doc("3.0", json::parse("[null]")), "r.json: warnings[0]: expected a warning object"},
      {doc("3.0", "overload"), "r.json: warnings: expected a list of warnings, got \"overload\""},
      {doc("2.1", json::parse(R"([{"code":"x","message":"m"}])")),
       "r.json: warnings[0]: expected a warning message (a string, before schema 3.0)"},
  };
  for (const auto& [document, said] : bad) {
    try {
      results_warnings(document, "r.json");
      ADD_FAILURE() << "accepted " << document.dump();
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).substr(0, said.size()), said) << e.what();
    }
  }
}

TEST(RecordedRun, ReadsTheMetricsTheSeedAndWhatWasNotMeasured) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "drainsim_recorded_run.json").string();
  const auto read = [&](const json& doc) {
    std::ofstream(path) << doc.dump();
    return read_recorded_run(path);
  };
  json doc = {{"schema_version", kResultsSchemaVersion}, {"seed", 4}, {"summary", full_summary()}};
  RecordedRun run = read(doc);
  EXPECT_EQ(run.seed, 4u);
  EXPECT_EQ(run.metrics.at("job_loss"), 1.0);
  EXPECT_TRUE(run.not_measured.empty());
  doc["real"] = {{"not_measured", {"orphan_recovery_delay_s"}}};
  run = read(doc);
  EXPECT_EQ(run.not_measured, (std::set<std::string, std::less<>>{"orphan_recovery_delay_s"}));
  doc["real"]["not_measured"] = {"orphan_recovery_delay_s", 3};
  try {
    read(doc);
    ADD_FAILURE() << "a number in real.not_measured was read";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": real.not_measured[1]: expected a metric's name");
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace drainsim
