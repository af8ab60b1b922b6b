#include "io/results.h"

#include <string>

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

TEST(SummaryValues, RefusesAnUnknownSchemaVersion) {
  for (const json& version : {json("4.0"), json("0.9"), json(""), json(2), json(nullptr)}) {
    try {
      summary_values({{"schema_version", version}, {"summary", full_summary()}}, "x.json");
      ADD_FAILURE() << "accepted " << version.dump();
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("x.json: schema_version: expected \"1.x\", \"2.x\" or \"3.x\""),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace drainsim
