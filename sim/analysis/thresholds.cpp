#include "analysis/thresholds.h"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "analysis/text_table.h"
#include "base/duration.h"
#include "base/parse.h"
#include "io/json_reader.h"

namespace drainsim {

namespace {

struct OpName {
  std::string_view text;
  ThresholdOp op;
};
// Two-character operators first, so that ">=" is not read as ">" and "=0".
constexpr std::array<OpName, 6> kOps = {{{">=", ThresholdOp::kGreaterEqual},
                                         {"<=", ThresholdOp::kLessEqual},
                                         {"==", ThresholdOp::kEqual},
                                         {"!=", ThresholdOp::kNotEqual},
                                         {">", ThresholdOp::kGreater},
                                         {"<", ThresholdOp::kLess}}};

bool holds(ThresholdOp op, double a, double b) {
  switch (op) {
    case ThresholdOp::kGreater:
      return a > b;
    case ThresholdOp::kGreaterEqual:
      return a >= b;
    case ThresholdOp::kLess:
      return a < b;
    case ThresholdOp::kLessEqual:
      return a <= b;
    case ThresholdOp::kEqual:
      return a == b;
    case ThresholdOp::kNotEqual:
      return a != b;
  }
  return false;
}

std::string nearest_metric(std::string_view name) {
  std::string best;
  std::size_t best_d = SIZE_MAX;
  for (const Metric& m : metrics()) {
    const std::size_t d = edit_distance(name, m.name);
    if (d < best_d) best = std::string(m.name), best_d = d;
  }
  return best;
}

// A value in the metric's unit, or why the text is none.
std::variant<double, std::string> parse_value(const Metric& m, std::string_view text) {
  switch (m.unit) {
    case Unit::kSeconds:
      if (const auto n = parse_number<double>(text); n && std::isfinite(*n) && *n >= 0) return *n;
      if (const auto d = parse_duration(text)) return to_seconds(*d);
      return fmt::format("expected a duration such as 25s or 1m30s (or a number of seconds)");
    case Unit::kFraction: {
      if (!text.empty() && text.back() == '%') {
        const auto n = parse_number<double>(text.substr(0, text.size() - 1));
        if (n && *n >= 0 && *n <= 100) return *n / 100;
        return std::string("expected a percentage from 0% to 100%");
      }
      const auto n = parse_number<double>(text);
      if (n && (*n == 0 || *n == 1)) return *n;
      if (n && *n > 0 && *n < 1) {
        return fmt::format("{} reads two ways: write {}% for that share, or {}% for {} %", text,
                           *n * 100, *n, *n);
      }
      return std::string("expected a percentage such as 0.5%");
    }
    case Unit::kCount:
      if (const auto n = parse_number<double>(text); n && std::isfinite(*n) && *n >= 0) return *n;
      return std::string("expected a number >= 0");
  }
  return std::string("expected a number");
}

std::string value_text(const Metric& m, double v) {
  switch (m.unit) {
    case Unit::kSeconds:
      return format_seconds(v);
    case Unit::kFraction:
      return percent_text(v);
    case Unit::kCount:
      break;
  }
  return fmt::format("{:g}", v);
}

}  // namespace

std::variant<Threshold, std::string> parse_threshold(std::string_view given) {
  std::string text;
  for (char c : given) {
    if (c != ' ' && c != '\t') text += c;
  }
  const auto fail = [&](const std::string& why) {
    return fmt::format("--fail-on '{}': {}", std::string(given), why);
  };
  std::size_t at = std::string::npos;
  const OpName* op = nullptr;
  for (const OpName& o : kOps) {
    const std::size_t found = text.find(o.text);
    if (found != std::string::npos && (at == std::string::npos || found < at)) {
      at = found;
      op = &o;
    }
  }
  if (op == nullptr || at == 0) {
    return fail("expected METRIC OP VALUE, OP one of > >= < <= == != (e.g. 'job_loss>0')");
  }
  const std::string name = text.substr(0, at);
  const std::string value = text.substr(at + op->text.size());
  Threshold t;
  t.text = text;
  t.op = op->op;
  try {
    t.metric = &metric(name);
  } catch (const std::invalid_argument&) {
    return fail(
        fmt::format("no metric named \"{}\", did you mean \"{}\"? (the metrics are "
                    "results/README.md's summary keys)",
                    name, nearest_metric(name)));
  }
  if (value.empty()) return fail("no value after the operator");
  auto v = parse_value(*t.metric, value);
  if (auto* why = std::get_if<std::string>(&v)) {
    const char* unit = t.metric->unit == Unit::kSeconds    ? "in seconds"
                       : t.metric->unit == Unit::kFraction ? "a share of the jobs"
                                                           : "a count";
    return fail(fmt::format("{} is {}: {}", name, unit, *why));
  }
  t.value = std::get<double>(v);
  return t;
}

std::vector<std::string> broken_thresholds(const std::vector<Threshold>& thresholds,
                                           const RunSummary& summary) {
  std::vector<std::string> out;
  for (const Threshold& t : thresholds) {
    const std::optional<double> v = t.metric->value(summary);
    if (v && holds(t.op, *v, t.value)) {
      out.push_back(fmt::format("{}: {} is {}", t.text, t.metric->name, value_text(*t.metric, *v)));
    }
  }
  return out;
}

}  // namespace drainsim
