// Conformance: checks a profile against the Open Job Spec graceful-shutdown conformance
// requirements (seed spec §10: GS-001..GS-005 required, GS-R001..GS-R004 recommended).
// Each requirement runs one or two small one-pod scenarios on the virtual engine with
// the timeline on (jobs of known `sequence` durations, `signal` events at known times),
// then judges the timeline: a verdict and the timeline lines that prove it.
// docs/conformance.md describes every check's scenario and rule. Deterministic: the same
// profile gives the same report. Not thread-safe (runs simulations).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "profiles/profile.h"

namespace drainsim {

enum class ConformanceLevel : std::uint8_t { kRequired, kRecommended };
const char* to_string(ConformanceLevel l);  // "required", "recommended"

struct ConformanceVerdict {
  std::string id;  // "GS-001"
  ConformanceLevel level = ConformanceLevel::kRequired;
  std::string title;
  bool passed = false;
  std::vector<std::string> evidence;  // timeline excerpts and the finding, e.g.
                                      // "5s pod-0 SIGTERM delivered (event)"
};

struct ConformanceReport {
  std::string profile;
  std::vector<ConformanceVerdict> verdicts;  // in spec order
  int passed() const;
  int failed() const;
  bool required_passed() const;  // every required check passed
};

// Runs every check against `profile` (its own defaults unless a check needs a setting;
// the evidence says which).
ConformanceReport check_conformance(const Profile& profile);

// {"profile", "verdicts": [{"id", "level", "title", "verdict", "evidence"}], "passed",
// "failed"}.
nlohmann::json conformance_json(const ConformanceReport& report);
// One line per requirement ("GS-001  pass  TERM → quiet → drain → stop"), then its
// evidence indented, then a summary line.
std::string conformance_text(const ConformanceReport& report);

}  // namespace drainsim
