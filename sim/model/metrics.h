// The summary's numbers by name: one row per number of RunSummary, named by its dotted
// path in the results' "summary" (results/README.md), e.g. "drain_latency_s.p99". The
// results writer writes the summary's numbers from this table, and compare, sweep, tune,
// fidelity and conformance pick metrics from it; so a metric added here reaches them all.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "base/names.h"
#include "model/run_summary.h"

namespace drainsim {

enum class Unit : std::uint8_t { kCount, kSeconds, kFraction };
constexpr std::array<std::string_view, 3> names(Unit) { return {"count", "seconds", "fraction"}; }

struct Metric {
  std::string_view name;  // its dotted path in the summary
  Unit unit;
  // nullopt when the object the metric belongs to (group()) is null: a sample without
  // values, e.g. drain_latency_s in a run where no process drained.
  std::optional<double> (*value)(const RunSummary&);

  // The object holding it ("drain_latency_s" for "drain_latency_s.p99"), or "".
  std::string_view group() const;
  // The name within its group ("p99"), or the name.
  std::string_view leaf() const;
  // Decimals of a mean over seeds: counts 1, seconds 2, fractions 4.
  int decimals() const;
};

// Every number of the summary (the audit aside), in the summary's key order.
std::span<const Metric> metrics();

// The metric named `name`; throws std::invalid_argument naming it when there is none.
const Metric& metric(std::string_view name);

// Every metric of a summary by name, nullopt where its group is null.
using MetricValues = std::map<std::string, std::optional<double>, std::less<>>;
MetricValues metric_values(const RunSummary& s);

// A summary's metrics by name, as a sweep keeps them: the value of each metric, or, where
// a whole group is null, the group's name mapped to nullopt.
template <typename Map>
void collect_metrics(const RunSummary& s, Map& out) {
  for (const Metric& m : metrics()) {
    if (const std::optional<double> v = m.value(s)) {
      out[typename Map::key_type(m.name)] = *v;
    } else {
      out.emplace(typename Map::key_type(m.group()), std::nullopt);
    }
  }
}

}  // namespace drainsim
