#include "analysis/conformance.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <span>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace drainsim {

using nlohmann::json;

const char* to_string(ConformanceLevel l) {
  return l == ConformanceLevel::kRequired ? "required" : "recommended";
}

int ConformanceReport::passed() const {
  int n = 0;
  for (const ConformanceVerdict& v : verdicts) n += v.passed ? 1 : 0;
  return n;
}

int ConformanceReport::failed() const { return static_cast<int>(verdicts.size()) - passed(); }

bool ConformanceReport::required_passed() const {
  for (const ConformanceVerdict& v : verdicts) {
    if (v.level == ConformanceLevel::kRequired && !v.passed) return false;
  }
  return true;
}

json conformance_json(const ConformanceReport& report) {
  json verdicts = json::array();
  for (const ConformanceVerdict& v : report.verdicts) {
    verdicts.push_back({{"id", v.id},
                        {"level", to_string(v.level)},
                        {"title", v.title},
                        {"verdict", v.passed ? "pass" : "fail"},
                        {"evidence", v.evidence}});
  }
  return {{"profile", report.profile},
          {"verdicts", verdicts},
          {"passed", report.passed()},
          {"failed", report.failed()}};
}

std::string conformance_text(const ConformanceReport& report) {
  std::string out = fmt::format("OJS graceful-shutdown conformance: profile {}\n", report.profile);
  for (const ConformanceVerdict& v : report.verdicts) {
    out += fmt::format("{:<7} {:<4}  {}{}\n", v.id, v.passed ? "pass" : "fail", v.title,
                       v.level == ConformanceLevel::kRecommended ? " (recommended)" : "");
    for (const std::string& e : v.evidence) out += "    " + e + "\n";
  }
  out += fmt::format("{} passed, {} failed; required checks {}\n", report.passed(), report.failed(),
                     report.required_passed() ? "all pass" : "FAIL");
  return out;
}

}  // namespace drainsim
