// The results document of a run (schema in results/README.md): the effective scenario,
// the summary metrics of DESIGN.md, per-pod process records, warnings, the audit, and the
// timeline when recorded. Times are seconds (doubles) of simulated time.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "platform.h"
#include "recorder.h"
#include "scenario.h"

namespace drainsim {

inline constexpr const char* kResultsSchemaVersion = "1.1";

nlohmann::json build_results(const Scenario& scenario, const Recorder& recorder,
                             const Platform& platform, const AuditResult& audit, Time ended_at,
                             bool ended_early, const char* engine);

// The FNV-1a 64 hash of `bytes` as 16 lower-case hex digits.
std::string fnv1a64_hex(std::string_view bytes);

// Sets results["result_hash"] to the FNV-1a 64 hash (16 hex digits) of the document's
// compact dump without that field, and returns it.
std::string stamp_hash(nlohmann::json& results);

// A number in a summary by its dotted path, e.g. "drain_latency_s.p99"; nullopt when a step
// is missing or the value is null or not a number.
std::optional<double> summary_value(const nlohmann::json& summary, std::string_view metric);

}  // namespace drainsim
