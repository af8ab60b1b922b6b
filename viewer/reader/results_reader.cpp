#include "reader/results_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "base/input_file.h"
#include "reader/reader_internal.h"

namespace drainsim::viewer {

using namespace detail;

namespace {

// Far beyond any run (a year is 3.2e7 s); small enough that a chart's bins fit.
constexpr double kMaxEndedAt = 1e9;

// Where the character at `pos`, counted from 1 (nlohmann's parse_error_position), is.
std::string line_col_from_1(std::string_view text, std::size_t pos) {
  return line_col(text, pos == 0 ? 0 : pos - 1);
}

// summary.by_cause (3.3) into run.by_cause; the problem, naming its path, if it is not a list
// of rows with a string "cause", "class" and "label" and whole-number figures.
std::string read_causes(const json& rows, Results& run) {
  if (!rows.is_array()) return "summary.by_cause: expected a list, got " + shown(rows);
  std::vector<CauseFigures> out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const json& row = rows[i];
    const std::string where = fmt::format("summary.by_cause[{}]", i);
    if (!row.is_object()) return where + ": expected an object, got " + shown(row);
    CauseFigures c;
    for (auto [key, field] : {std::pair{"cause", &c.cause}, std::pair{"class", &c.cause_class},
                              std::pair{"label", &c.label}}) {
      if (!row.contains(key) || !row[key].is_string()) {
        return fmt::format("{}.{}: expected a string, got {}", where, key,
                           row.contains(key) ? shown(row[key]) : "nothing");
      }
      *field = row[key].get<std::string>();
    }
    if (row.contains("kind") && row["kind"].is_string()) c.kind = row["kind"].get<std::string>();
    if (row.contains("at_s") && row["at_s"].is_number()) c.at = row["at_s"].get<double>();
    if (row.contains("deploy") && row["deploy"].is_number_integer()) {
      c.deploy = row["deploy"].get<int>();
    }
    for (auto [key, field] :
         {std::pair{"interrupted", &c.interrupted}, std::pair{"job_loss", &c.job_loss},
          std::pair{"lost", &c.lost}, std::pair{"discarded_by_shutdown", &c.discarded_by_shutdown},
          std::pair{"duplicate_executions", &c.duplicate_executions},
          std::pair{"shutdown_retries", &c.shutdown_retries}}) {
      if (!row.contains(key) || !row[key].is_number_integer() || row[key].get<std::int64_t>() < 0) {
        return fmt::format("{}.{}: expected a whole number of jobs, got {}", where, key,
                           row.contains(key) ? shown(row[key]) : "nothing");
      }
      *field = row[key].get<std::int64_t>();
    }
    out.push_back(std::move(c));
  }
  run.by_cause = std::move(out);
  return {};
}

Document parse_or_throw(std::string_view text, const std::string& path,
                        const std::function<void(std::size_t)>& consumed) {
  if (text.empty()) return fail(path, "the file is empty");
  // nlohmann's lexer takes a NUL byte for the end of the input, and would ignore the rest.
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    return fail(
        path, fmt::format("not valid JSON at byte {} ({}): a NUL byte", nul, line_col(text, nul)));
  }
  std::optional<Reader> fast(std::in_place);
  fast->consumed = consumed;
  Reader* used = &*fast;
  std::optional<Reader> slow;
  bool parsed = fast_read(text, *fast);
  if (!parsed) {
    fast.reset();
    slow.emplace();
    used = &*slow;
    parsed = json::sax_parse(text.begin(), text.end(), used);
  }
  Reader& r = *used;
  auto version_problem = [&]() -> std::string {
    if (r.schema_version.empty()) return {};
    const std::optional<int> major = version_major(r.schema_version);
    if (!major || *major < kOldestSchemaMajor || *major > kSchemaMajor) {
      return fmt::format(
          "results of schema_version \"{}\", which this viewer cannot read (it reads {}.x to "
          "{}.x); use the drainsim-viewer of the drainsim that wrote it",
          r.schema_version, kOldestSchemaMajor, kSchemaMajor);
    }
    return {};
  };
  if (!parsed) {
    if (std::string v = version_problem(); !v.empty()) return fail(path, v);
    if (!r.error.empty()) return fail(path, r.error);
    if (r.parse_error_position >= text.size()) {
      return fail(path, fmt::format("the JSON ends early, at byte {} ({}): the file is truncated",
                                    text.size(), line_col_from_1(text, text.size())));
    }
    return fail(path,
                fmt::format("not valid JSON at byte {} ({}): {}", r.parse_error_position,
                            line_col_from_1(text, r.parse_error_position), r.parse_error_message));
  }
  const json& doc = r.root;
  if (!doc.is_object())
    return fail(path, "not a drainsim results, sweep or compare file (not a JSON object)");
  if (doc.contains("axes") && doc.contains("points")) return read_sweep(doc, path);
  if (doc.contains("profiles") && doc["profiles"].is_array() && !doc.contains("summary")) {
    return read_comparison(doc, path);
  }
  if (!doc.contains("schema_version")) {
    return fail(path,
                "not a drainsim results, sweep or compare file (no \"schema_version\", "
                "\"axes\" or \"profiles\")");
  }
  if (!doc["schema_version"].is_string() || r.schema_version.empty()) {
    return fail(path, fmt::format("schema_version: expected a version like \"{}.0\", got {}",
                                  kSchemaMajor, shown(doc["schema_version"])));
  }
  if (std::string v = version_problem(); !v.empty()) return fail(path, v);
  for (const char* key : {"summary", "pods", "scenario", "run"}) {
    if (!doc.contains(key)) return fail(path, fmt::format("a results file needs \"{}\"", key));
  }
  if (!doc["pods"].is_array() || !doc["summary"].is_object() || !doc["scenario"].is_object()) {
    return fail(path, "\"pods\" must be an array, \"summary\" and \"scenario\" objects");
  }

  Results run;
  run.path = path;
  run.schema_version = r.schema_version;
  run.drainsim_version = doc.value("drainsim_version", std::string());
  run.scenario_name = doc["scenario"].value("name", std::string());
  run.engine = doc.value("engine", std::string());
  run.result_hash = doc.value("result_hash", std::string());
  run.seed = doc.value("seed", std::uint64_t{0});
  if (doc.contains("profile") && doc["profile"].is_object()) {
    run.profile = doc["profile"].value("name", std::string());
  }
  if (!doc["run"].is_object())
    return fail(path, "run: expected an object, got " + shown(doc["run"]));
  if (const auto it = doc["run"].find("ended_at_s"); it != doc["run"].end()) {
    // Sizes the charts' bins: a negative or absurd end would size a vector from it.
    if (!it->is_number() || it->get<double>() < 0 || it->get<double>() > kMaxEndedAt) {
      return fail(path, fmt::format("run.ended_at_s: expected a number of seconds from 0 to {:g}, "
                                    "got {}",
                                    kMaxEndedAt, shown(*it)));
    }
    run.ended_at = it->get<double>();
  }
  const json& scenario = doc["scenario"];
  if (scenario.contains("worker") && scenario["worker"].is_object()) {
    run.concurrency = scenario["worker"].value("concurrency", 1);
  }
  run.platform_kind = scenario.contains("platform") && scenario["platform"].is_object()
                          ? scenario["platform"].value("kind", std::string("kubernetes"))
                          : "kubernetes";

  flatten(doc["summary"], "", run.summary);
  if (doc["summary"].contains("audit") && doc["summary"]["audit"].is_object()) {
    const json& a = doc["summary"]["audit"];
    run.audit_ok = a.value("ok", false);
    run.audit_balance = a.value("balance", std::string());
    if (a.contains("errors") && a["errors"].is_array()) {
      for (const json& e : a["errors"]) {
        if (e.is_string()) run.audit_errors.push_back(e.get<std::string>());
      }
    }
  }
  if (const auto it = doc["summary"].find("by_cause"); it != doc["summary"].end()) {
    if (std::string why = read_causes(*it, run); !why.empty()) return fail(path, why);
  }
  if (doc.contains("warnings")) {
    // 3.x: {"code", "message", "figures"}; before, the message alone. Anything else is
    // refused with its path, as drainsim's readers do (io/results.h results_warnings).
    const json& ws = doc["warnings"];
    if (!ws.is_array()) return fail(path, "warnings: expected a list, got " + shown(ws));
    const bool objects = version_major(r.schema_version).value_or(kSchemaMajor) >= 3;
    for (std::size_t i = 0; i < ws.size(); ++i) {
      const json& w = ws[i];
      if (!objects && w.is_string()) {
        run.warnings.push_back(w.get<std::string>());
      } else if (objects && w.is_object() && w.contains("code") && w["code"].is_string() &&
                 w.contains("message") && w["message"].is_string()) {
        run.warnings.push_back(w["message"].get<std::string>());
      } else {
        return fail(path, fmt::format("warnings[{}]: expected {}, got {}", i,
                                      objects ? "a warning object with a string \"code\" and "
                                                "\"message\""
                                              : "a warning message (a string, before schema 3.0)",
                                      shown(w)));
      }
    }
  }

  if (!doc.contains("timeline")) {
    run.timeline_missing = "this run has no timeline: run drainsim with --timeline to record one";
  } else if (r.pod_states.empty() && r.attempts.empty() && r.rows_seen[kSeries] == 0) {
    run.timeline_missing = "the timeline is empty: no pod state, attempt or series row";
  }
  if (run.timeline_missing.empty()) build_timeline(r, doc, run);
  Document d;
  d.run = std::move(run);
  return d;
}

}  // namespace

const char* to_string(PodState s) { return kStateNames[static_cast<int>(s)]; }
const char* to_string(MarkerKind k) { return kMarkerNames[static_cast<int>(k)]; }
const char* to_string(Outcome o) { return kOutcomeNames[static_cast<int>(o)]; }

double Steps::at(double time) const {
  const auto it = std::upper_bound(t.begin(), t.end(), time);
  if (it == t.begin()) return 0;
  return values[static_cast<std::size_t>(it - t.begin()) - 1];
}

namespace {

// parse_document, telling the fast reader's progress to `consumed` (may be empty).
Document parse(std::string_view text, const std::string& path,
               const std::function<void(std::size_t)>& consumed) {
  try {
    return parse_or_throw(text, path, consumed);
  } catch (const nlohmann::json::exception& e) {
    // A field of an unexpected type (value() of the wrong type, get<>()).
    return fail(path, fmt::format("not a results, sweep or compare file of a shape this viewer "
                                  "reads: {}",
                                  e.what()));
  }
}

}  // namespace

Document parse_document(std::string_view text, const std::string& path) {
  return parse(text, path, {});
}

Document load_document(const std::string& path) {
  // Mapped, not read: a big timeline is not copied before it is scanned.
  // A regular file (a FIFO or /dev/zero is refused by its type) of a bounded size.
  const InputFile file(path, kMaxResultsBytes, "a results file");
  if (file.fd() < 0) return fail(path, "cannot read the file: " + file.error());
  const auto size = static_cast<std::size_t>(file.size());
  if (size == 0) return parse_document({}, path);
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file.fd(), 0);
  if (map == MAP_FAILED) return fail(path, "cannot read the file");
  // Read front to back once: the kernel reads ahead, and the pages already scanned are
  // dropped as the reader goes, so a 731 MB timeline never has more than a few MB of it
  // resident (they are read again from the file if the slow path needs them).
  ::madvise(map, size, MADV_SEQUENTIAL);
  const long page = ::sysconf(_SC_PAGESIZE);
  std::size_t dropped = 0;
  auto consumed = [&](std::size_t bytes) {
    const std::size_t upto = bytes / page * page;
    if (upto <= dropped) return;
    ::madvise(static_cast<char*>(map) + dropped, upto - dropped, MADV_DONTNEED);
    dropped = upto;
  };
  Document d = parse(std::string_view(static_cast<const char*>(map), size), path, consumed);
  ::munmap(map, size);
  return d;
}

Steps downsample(const Steps& s, double t0, double t1, int buckets) {
  Steps out;
  if (s.t.empty() || t1 <= t0 || buckets <= 0) return out;
  const auto begin = std::upper_bound(s.t.begin(), s.t.end(), t0) - s.t.begin();
  out.t.push_back(t0);
  out.values.push_back(s.at(t0));
  const double width = (t1 - t0) / buckets;
  std::size_t i = static_cast<std::size_t>(begin);
  while (i < s.t.size() && s.t[i] <= t1) {
    const int b = std::min(buckets - 1, static_cast<int>((s.t[i] - t0) / width));
    const double bucket_end = t0 + (b + 1) * width;
    std::size_t lo = i, hi = i, j = i;
    for (; j < s.t.size() && s.t[j] < bucket_end && s.t[j] <= t1; ++j) {
      if (s.values[j] < s.values[lo]) lo = j;
      if (s.values[j] > s.values[hi]) hi = j;
    }
    if (j == i) ++j;  // t == bucket_end by rounding: take it alone
    const std::size_t last = j - 1;
    std::size_t picks[4] = {i, std::min(lo, hi), std::max(lo, hi), last};
    std::size_t prev = SIZE_MAX;
    for (std::size_t p : picks) {
      if (p == prev) continue;
      out.t.push_back(s.t[p]);
      out.values.push_back(s.values[p]);
      prev = p;
    }
    i = j;
  }
  return out;
}

IndexRange visible(const Track& track, const std::vector<Attempt>& attempts, double t0, double t1) {
  IndexRange r;
  r.first = static_cast<std::size_t>(
      std::lower_bound(track.max_end.begin(), track.max_end.end(), t0) - track.max_end.begin());
  (void)attempts;
  r.last = static_cast<std::size_t>(std::upper_bound(track.start.begin(), track.start.end(), t1) -
                                    track.start.begin());
  r.last = std::max(r.last, r.first);
  return r;
}

}  // namespace drainsim::viewer
