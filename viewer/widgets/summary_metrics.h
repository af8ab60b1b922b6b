// What the summary view knows about drainsim's summary metrics: for each dotted key
// (results/README.md#summary) a readable name, the group it is shown in and its unit, in
// one table (summary_metrics.cpp), and how a value and a difference between two runs are
// written. A key not in the table (a newer drainsim's) still gets a row, in the group
// "other", named by its key. Thread-safety: pure functions over constant data.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace drainsim::viewer {

enum class Unit {
  kCount,    // a whole number of `noun`s: "2,431 jobs"
  kSeconds,  // "25 s", "1.47 s", "3m20s"
  kPercent,  // a fraction shown as a percentage: 0.333 -> "33.3 %"
  kNumber,   // a number with no unit (unknown keys that are not seconds)
};

struct MetricInfo {
  std::string key;    // dotted summary path, e.g. "drain_latency_s.p99"
  std::string label;  // "Drain p99"
  std::string group;  // one of summary_groups()
  Unit unit = Unit::kNumber;
  std::string one, many;  // the noun of a count: "job", "jobs"; empty for other units
};

// The groups in the order shown: "headline", "jobs", "causes", "shutdown", "recovery",
// "deploys", "audit", "other".
const std::vector<std::string>& summary_groups();
// A group's title: "Headline", "Jobs", ...
std::string group_title(std::string_view group);

// Every known metric in the order shown: the headline figures first (job loss,
// interrupted %, duplicates, drain p99, orphan recovery p99, deploy duration), then the
// rest group by group.
const std::vector<MetricInfo>& known_metrics();

// The key's entry, or for an unknown key one in "other" named by the key, in seconds when
// its last part before a dot ends in "_s" ("foo_s", "foo_s.p99"), otherwise a plain number.
MetricInfo metric_info(std::string_view key);

// The known keys under `parent` ("drain_latency_s" -> its p50, p99, max, count): a
// distribution the file gives as null. Empty when none.
std::vector<std::string> known_children(std::string_view parent);

// "2,431 jobs", "1 job", "33.3 %", "25 s", "3m20s".
std::string format_value(const MetricInfo& m, double value);

// value - base in the metric's unit with its sign: "+3", "−2", "+2.5 s", "−1m5s",
// "+1.2 pp" (percentage points); "" when equal.
std::string format_difference(const MetricInfo& m, double value, double base);

// Seconds as a person reads them: under a second in ms ("450 ms"), under a minute to three
// significant digits ("1.47 s", "32.1 s"), longer rounded to the second and written as
// base/duration.h's format_duration ("3m20s", "1h5s").
std::string readable_seconds(double s);

}  // namespace drainsim::viewer
