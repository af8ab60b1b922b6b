// The scenario loader's bounds on counts and rates (docs/scenario.md, "Limits"): the
// largest value loads, the next one is refused with the path, the bound and the value.
#include <string>

#include <gtest/gtest.h>

#include "io/scenario_reader.h"

namespace drainsim {
namespace {

using json = nlohmann::json;

json minimal() {
  return json::parse(R"({
    "name": "t",
    "duration": "1m",
    "workload": {
      "arrival": {"kind": "constant", "rate_per_s": 1},
      "job_duration": {"kind": "constant", "value": "1s"}
    },
    "worker": {},
    "platform": {"replicas": 2}
  })");
}

json with(json j, const std::string& pointer, json value) {
  j[json::json_pointer(pointer)] = std::move(value);
  return j;
}

std::string error_of(const json& j) {
  try {
    parse_scenario(j.dump(), "x.json");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

TEST(ScenarioLimits, ConcurrencyAndReplicas) {
  EXPECT_EQ(error_of(with(with(minimal(), "/worker/concurrency", 100000), "/platform/replicas", 1)),
            "");
  // The reproducer valid-huge-concurrency.json.
  EXPECT_EQ(error_of(with(minimal(), "/worker/concurrency", 2147483647)),
            "x.json: worker.concurrency: expected an integer from 1 to 100000, got 2147483647");
  EXPECT_EQ(error_of(with(minimal(), "/worker/concurrency", 100001)),
            "x.json: worker.concurrency: expected an integer from 1 to 100000, got 100001");
  // The reproducer valid-huge-replicas.json.
  EXPECT_EQ(error_of(with(minimal(), "/platform/replicas", 2147483647)),
            "x.json: platform.replicas: expected an integer from 0 to 100000, got 2147483647");
  EXPECT_EQ(error_of(with(minimal(), "/platform/nodes", 100001)),
            "x.json: platform.nodes: expected an integer from 1 to 100000, got 100001");
}

TEST(ScenarioLimits, SlotsInAll) {
  // 100 x 100000 = 10^7 slots is the most; one replica more is over.
  const json at_most =
      with(with(minimal(), "/worker/concurrency", 100000), "/platform/replicas", 100);
  EXPECT_EQ(error_of(at_most), "");
  EXPECT_EQ(error_of(with(at_most, "/platform/replicas", 101)),
            "x.json: platform.replicas: expected at most 10000000 worker slots in all (replicas "
            "× worker.concurrency), got 101 × 100000 = 10100000");
  // A scale_up to more: the event is named, by its index in the file.
  json up =
      with(at_most, "/events", json::parse(R"([{"at": "30s", "kind": "scale_up", "replicas": 50},
                                 {"at": "10s", "kind": "scale_up", "replicas": 200}])"));
  EXPECT_EQ(error_of(up),
            "x.json: events[1].replicas: expected at most 10000000 worker slots in all (replicas "
            "× worker.concurrency), got 200 × 100000 = 20000000");
}

TEST(ScenarioLimits, ArrivalRateAndBurst) {
  EXPECT_EQ(error_of(with(minimal(), "/workload/arrival/rate_per_s", 1000000)), "");
  // The reproducer valid-huge-rate.json.
  EXPECT_EQ(error_of(with(minimal(), "/workload/arrival/rate_per_s", 1e9)),
            "x.json: workload.arrival.rate_per_s: expected at most 1000000 jobs per second (one "
            "per microsecond, the clock's resolution), got 1000000000.0");
  const json burst = json::parse(R"({"kind": "burst", "count": 100000000})");
  EXPECT_EQ(error_of(with(minimal(), "/workload/arrival", burst)), "");
  // The reproducer valid-huge-burst.json.
  EXPECT_EQ(error_of(with(with(minimal(), "/workload/arrival", burst), "/workload/arrival/count",
                          2147483647)),
            "x.json: workload.arrival.count: expected an integer from 1 to 100000000, got "
            "2147483647");
}

TEST(ScenarioLimits, EventCounts) {
  const auto event = [](const char* text) {
    return with(minimal(), "/events", json::array({json::parse(text)}));
  };
  EXPECT_EQ(error_of(event(R"({"at": "1s", "kind": "scale_down", "replicas": 100001})")),
            "x.json: events[0].replicas: expected an integer from 0 to 100000, got 100001");
  EXPECT_EQ(error_of(event(R"({"at": "1s", "kind": "oom_kill", "count": 100001})")),
            "x.json: events[0].count: expected an integer from 1 to 100000, got 100001");
  EXPECT_EQ(error_of(event(R"({"at": "1s", "kind": "rolling_restart", "max_surge": 100001})")),
            "x.json: events[0].max_surge: expected a pod count from 0 to 100000 or a percentage "
            "like \"25%\" from 0% to 100%, got 100001");
}

}  // namespace
}  // namespace drainsim
