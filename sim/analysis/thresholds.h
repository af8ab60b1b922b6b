// Thresholds for CI (`drainsim run --fail-on`): "METRIC OP VALUE" over any metric of the
// summary's table (model/metrics.h), e.g. "job_loss>0" or "drain_latency_s.p99>25s". A
// threshold is broken when its comparison holds; a metric null in the run (no drain, no
// rollout) breaks none. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "model/metrics.h"
#include "model/run_summary.h"

namespace drainsim {

enum class ThresholdOp : std::uint8_t {
  kGreater,
  kGreaterEqual,
  kLess,
  kLessEqual,
  kEqual,
  kNotEqual
};

struct Threshold {
  std::string text;  // as given, spaces removed
  const Metric* metric = nullptr;
  ThresholdOp op = ThresholdOp::kGreater;
  double value = 0;  // in the metric's unit: seconds, a fraction in [0, 1], a count
};

// The threshold `text` says, or why it says none: an unknown metric (with the nearest
// name), a missing or unknown operator, a value that is not a number of the metric's unit
// (seconds take a duration such as 25s or a bare number of seconds; a fraction takes a
// percentage such as 0.5%, or 0 — a bare 0.5 reads two ways and is refused naming both).
std::variant<Threshold, std::string> parse_threshold(std::string_view text);

// The thresholds `summary` breaks, one line each: "job_loss>0: job_loss is 3".
std::vector<std::string> broken_thresholds(const std::vector<Threshold>& thresholds,
                                           const RunSummary& summary);

}  // namespace drainsim
