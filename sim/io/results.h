// The results document of a run (schema in results/README.md): the effective scenario,
// the summary (model/run_summary.h), per-pod process records, warnings, the audit, and the
// timeline when recorded. Times are seconds (doubles) of simulated time.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "io/spill_file.h"
#include "io/timeline_spill.h"
#include "model/metrics.h"
#include "model/platform.h"
#include "model/recorder.h"
#include "model/run_summary.h"
#include "model/scenario.h"

namespace drainsim {

inline constexpr const char* kResultsSchemaVersion = "3.5";
inline constexpr int kResultsSchemaMajor = 3;  // its MAJOR: the newest this drainsim reads
// The version of the sweep, compare and tune files (docs/sweep.md). Files of drainsim
// before it have none: they are 1.0.
inline constexpr const char* kReportSchemaVersion = "1.1";

// {"code", "message", "figures": {name: number}}: a warning in every output that has them.
nlohmann::json warning_json(const Warning& w);
nlohmann::json warnings_json(const std::vector<Warning>& ws);

// The document without the timeline (see timeline_json and write_results).
nlohmann::json build_results(const Scenario& scenario, const RunSummary& summary,
                             const Platform& platform, const char* engine);

// The FNV-1a 64 hash of `bytes` as 16 lower-case hex digits.
std::string fnv1a64_hex(std::string_view bytes);

// The results document's "timeline" object, of records kept in memory. A TimelineSpill
// (io/timeline_spill.h) writes the same bytes.
nlohmann::json timeline_json(const Timeline& timeline);

// The schema_version of a results document, checked as every reader does
// (results/README.md, Versioning): {MAJOR, MINOR} when it is "MAJOR.MINOR" with a MAJOR
// this drainsim reads (1 to 3); otherwise InputError naming `where`: missing, not a
// string, empty or malformed ("expected a version like \"3.0\""), or an unknown MAJOR
// ("schema_version 4.0, this reader knows 1.x to 3.x").
std::pair<int, int> check_schema_version(const nlohmann::json& results, const std::string& where);

// The "warnings" of a results document, checked: absent or a list; from schema 3.0 each a
// warning object (warning_json: a string "code", a string "message", an object "figures"
// of numbers), before it a message string (read as a Warning with no code). Throws
// InputError naming `where` and the JSON path ("warnings[0]: expected a warning object
// ...") otherwise.
std::vector<Warning> results_warnings(const nlohmann::json& results, const std::string& where);

// The metrics (model/metrics.h) of a results document's "summary"; `where` names the
// document in messages. Throws InputError naming the JSON path when the schema_version is
// not 1.x, 2.x or 3.x, or a metric is missing or is not a number (null only where its group
// is). From 1.x documents: completions_rejected is read from rejected_acks, and
// redeliveries (counted among shutdown_retries then) is unknown. Before 2.1,
// pushes_refused is 0 (no push could be refused).
MetricValues summary_values(const nlohmann::json& results, const std::string& where);

// The document of the results file at `path`, read whole (at most kMaxResultsBytes) and
// parsed. Throws InputError naming the file when it cannot be read or is not JSON.
nlohmann::json read_results_file(const std::string& path);

// One run as a results file records it: its metrics (summary_values) and its seed.
struct RecordedRun {
  MetricValues metrics;
  std::uint64_t seed = 0;
  // What the run could not measure (real.not_measured: metrics or their groups, e.g.
  // "orphan_recovery_delay_s"); its value there is no measurement.
  std::set<std::string, std::less<>> not_measured;
};
// The run of the results file at `path` (read_results_file). Throws InputError naming the
// file, and the JSON path when a field is missing or of the wrong type.
RecordedRun read_recorded_run(const std::string& path);

// Writes `results` as compact JSON with `timeline` (when not null) under "timeline": the
// bytes of `results` with the timeline's records (timeline_json) added, dumped, without
// building that document (about 1.7 KB per job), in pieces of up to a table's buffer.
// Throws std::runtime_error when the timeline's files could not be written or read.
void write_results(const nlohmann::json& results, const TimelineSpill* timeline,
                   const TextSink& out);
// write_results for the last time: the timeline gives its pages back as `out` takes them
// (TimelineSpill::write_and_release), so that a file `out` writes reuses them.
void write_results_once(const nlohmann::json& results, TimelineSpill& timeline,
                        const TextSink& out);

// Sets results["result_hash"] to the FNV-1a 64 hash (16 hex digits) of the document's
// compact dump without that field (write_results, with `timeline` when not null), and
// returns it.
std::string stamp_hash(nlohmann::json& results, const TimelineSpill* timeline = nullptr);

}  // namespace drainsim
