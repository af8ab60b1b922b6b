#include "io/results.h"

#include <cstdio>

#include <iterator>
#include <stdexcept>

#include "io/json_reader.h"
#include "io/profile_json.h"

#include <fmt/format.h>

#include "base/input_file.h"
#include "base/parse.h"
#include "base/timeline_schema.h"
#include "io/scenario_reader.h"
#include "io/scenario_writer.h"
#include "model/metrics.h"

namespace drainsim {

namespace {

using nlohmann::json;

json seconds_or_null(Time t) { return t < 0 ? json(nullptr) : json(to_seconds(t)); }

json summary_json(const RunSummary& s) {
  json out = json::object();
  for (const Metric& m : metrics()) {
    const std::optional<double> v = m.value(s);
    if (!v) {
      out[std::string(m.group())] = nullptr;
      continue;
    }
    json& slot = m.group().empty() ? out[std::string(m.name)]
                                   : out[std::string(m.group())][std::string(m.leaf())];
    slot = m.unit == Unit::kCount ? json(static_cast<std::int64_t>(*v)) : json(*v);
  }
  json causes = json::array();
  for (const CauseRow& r : s.by_cause) {
    const CauseCounts& c = r.counts;
    json row = {{"cause", r.id()},
                {"kind", r.event < 0 ? json(nullptr) : json(name_of(r.kind))},
                {"at_s", r.event < 0 ? json(nullptr) : json(to_seconds(r.at))},
                {"deploy", r.deploy > 0 ? json(r.deploy) : json(nullptr)},
                {"class", name_of(r.cause_class)},
                {"label", r.label()},
                {"interrupted", c.interrupted},
                {"job_loss", c.job_loss()},
                {"lost", c.lost},
                {"discarded_by_shutdown", c.discarded_by_shutdown},
                {"duplicate_executions", c.duplicate_executions},
                {"shutdown_retries", c.shutdown_retries}};
    causes.push_back(std::move(row));
  }
  out["by_cause"] = std::move(causes);
  out["audit"] = {{"ok", s.audit.ok},
                  {"error_count", s.audit.error_count},
                  {"errors", s.audit.errors},
                  {"balance", s.balance}};
  return out;
}

json pods_json(const Platform& platform) {
  json pods = json::array();
  for (const PodRecord& p : platform.pods()) {
    json procs = json::array();
    for (int i : p.processes) {
      const ProcessRecord& r = platform.processes()[i];
      json drain = nullptr;
      if (r.termination >= 0 && r.ended >= 0 && r.exit != ExitKind::kOomKilled) {
        drain = to_seconds(r.ended - r.termination);
      }
      procs.push_back({{"worker", r.worker == kNoWorker ? json(nullptr) : json(r.worker)},
                       {"started_s", to_seconds(r.started)},
                       {"ended_s", seconds_or_null(r.ended)},
                       {"termination_s", seconds_or_null(r.termination)},
                       {"exit", exit_name(r)},
                       {"exit_code", r.ended < 0 ? json(nullptr) : json(r.code)},
                       {"drain_latency_s", drain}});
    }
    pods.push_back({{"id", fmt::format("pod-{}", p.id)},
                    {"node", p.node},
                    {"generation", p.generation},
                    {"created_s", to_seconds(p.created)},
                    {"first_ready_s", seconds_or_null(p.first_ready)},
                    {"deleted_s", seconds_or_null(p.deleted)},
                    {"gone_s", seconds_or_null(p.gone)},
                    {"processes", procs}});
  }
  return pods;
}

// The column names of a table, as JSON.
template <std::size_t N>
json columns(const std::array<std::string_view, N>& names) {
  json out = json::array();
  for (const std::string_view n : names) out.push_back(n);
  return out;
}

// Calls visit(name, columns, records, row) for each timeline table, in the order of their
// names (the document's key order); row(record) is the record's row, its cells in the
// order of the table's columns (base/timeline_schema.h).
template <typename Visit>
void visit_tables(const Timeline& t, Visit&& visit) {
  namespace ts = timeline_schema;
  visit(ts::attempts::kName, columns(ts::attempts::kColumns), t.attempts,
        [](const AttemptRecord& a) {
          return json{a.job,
                      a.attempt,
                      a.pod,
                      a.worker,
                      a.slot,
                      to_seconds(a.start),
                      to_seconds(a.end),
                      outcome_name(a)};
        });
  visit(ts::drain_remaining::kName, columns(ts::drain_remaining::kColumns), t.remaining,
        [](const RemainingRecord& r) {
          return json{to_seconds(r.at), r.pod, r.worker, r.remaining};
        });
  visit(ts::heartbeats::kName, columns(ts::heartbeats::kColumns), t.heartbeats,
        [](const HeartbeatRecord& h) {
          return json{to_seconds(h.at), h.pod, h.worker, to_string(h.state)};
        });
  visit(ts::pod_states::kName, columns(ts::pod_states::kColumns), t.pod_states,
        [](const PodStateRecord& r) {
          return json{to_seconds(r.at), r.pod, to_string(r.state)};
        });
  visit(ts::reports::kName, columns(ts::reports::kColumns), t.reports, [](const ReportRecord& r) {
    return json{to_seconds(r.at),  r.pod,         r.worker,  r.job, r.attempt,
                to_string(r.kind), error_name(r), r.accepted};
  });
  visit(ts::series::kName, columns(ts::series::kColumns), t.series, [](const SeriesPoint& p) {
    return json{to_seconds(p.at), p.queued, p.scheduled, p.in_flight};
  });
  visit(ts::signals::kName, columns(ts::signals::kColumns), t.signals, [](const SignalRecord& r) {
    return json{to_seconds(r.at), r.pod, to_string(r.signal), r.delivered, r.source};
  });
}

// The FNV-1a 64 hash, fed in pieces.
class Fnv1a64 {
 public:
  void add(std::string_view bytes) {
    std::uint64_t h = h_;  // in a register: the bytes' chars could alias a member
    for (const unsigned char c : bytes) {
      h ^= c;
      h *= 0x100000001b3ULL;
    }
    h_ = h;
  }
  std::string hex() const { return fmt::format("{:016x}", h_); }

 private:
  std::uint64_t h_ = 0xcbf29ce484222325ULL;
};

}  // namespace

json warning_json(const Warning& w) {
  json figures = json::object();
  for (const auto& [name, value] : w.figures) figures[name] = value;
  return {{"code", w.code}, {"message", w.message}, {"figures", std::move(figures)}};
}

json warnings_json(const std::vector<Warning>& ws) {
  json out = json::array();
  for (const Warning& w : ws) out.push_back(warning_json(w));
  return out;
}

json build_results(const Scenario& scenario, const RunSummary& summary, const Platform& platform,
                   const char* engine) {
  json out = {
      {"schema_version", kResultsSchemaVersion},
      {"drainsim_version", DRAINSIM_VERSION},
      {"scenario", scenario_to_json(scenario)},
      {"seed", scenario.seed},
      {"engine", engine},
      {"profile",
       {{"name", scenario.worker.profile},
        {"shutdown", behaviour_json(scenario.worker.shutdown)},
        {"backend_mechanisms", mechanisms_json(scenario.backend.mechanisms)}}},
      {"run",
       {{"ended_at_s", to_seconds(summary.ended_at)},
        {"ended_early", summary.ended_early},
        {"attempts_in_flight_at_end", summary.attempts_in_flight_at_end}}},
      {"summary", summary_json(summary)},
      {"pods", pods_json(platform)},
      {"warnings", warnings_json(summary.warnings)},
  };
  // Only then: other runs' documents are unchanged.
  if (summary.interrupted.by == "failure") {
    out["run"]["failed"] = {{"component", summary.interrupted.component},
                            {"at_s", to_seconds(summary.interrupted.at)},
                            {"reason", summary.interrupted.reason}};
  } else if (!summary.interrupted.by.empty()) {
    out["run"]["interrupted"] = true;
    out["run"]["interrupted_by"] = summary.interrupted.by;
  }
  return out;
}

json timeline_json(const Timeline& timeline) {
  json out = json::object();
  visit_tables(timeline, [&](std::string_view name, const json& columns, const auto& records,
                             const auto& row) {
    json rows = json::array();
    for (const auto& r : records) rows.push_back(row(r));
    out[std::string(name)] = {{"columns", columns}, {"rows", std::move(rows)}};
  });
  return out;
}

namespace {

// `results` with the timeline `write_timeline` writes under "timeline".
void write_document(const json& results, const std::function<void()>& write_timeline,
                    const TextSink& out) {
  // "timeline" sorts just before "warnings", the document's last key: write the rest
  // without "warnings", then the timeline, then "warnings".
  json head = results;
  const json warnings = head.at("warnings");
  head.erase("warnings");
  if (!head.empty() && std::prev(head.end()).key() >= "timeline") {
    throw std::logic_error("write_results: a results key sorts after \"timeline\"");
  }
  std::string text = head.dump();
  text.pop_back();  // the closing brace
  out(text);
  out(head.empty() ? "\"timeline\":" : ",\"timeline\":");
  write_timeline();
  out(",\"warnings\":");
  out(warnings.dump());
  out("}");
}

}  // namespace

void write_results(const json& results, const TimelineSpill* timeline, const TextSink& out) {
  if (timeline == nullptr) {
    out(results.dump());
    return;
  }
  write_document(
      results, [&] { timeline->write(out); }, out);
}

void write_results_once(const json& results, TimelineSpill& timeline, const TextSink& out) {
  write_document(
      results, [&] { timeline.write_and_release(out); }, out);
}

std::pair<int, int> check_schema_version(const json& results, const std::string& where) {
  const auto bad = [&](const std::string& message) {
    return InputError(fmt::format("{}: schema_version: {}", where, message));
  };
  if (!results.is_object()) {
    throw InputError(fmt::format("{}: not a drainsim results file (not a JSON object)", where));
  }
  const auto it = results.find("schema_version");
  const std::string like = fmt::format("a version like \"{}.0\"", kResultsSchemaMajor);
  if (it == results.end()) throw bad("required field missing, expected " + like);
  const std::string text = it->is_string() ? it->get<std::string>() : std::string();
  const std::optional<std::pair<int, int>> version = parse_version(text);
  if (!version) throw bad(fmt::format("expected {}, got {}", like, show(*it)));
  const auto [major, minor] = *version;
  if (major < 1 || major > kResultsSchemaMajor) {
    throw InputError(
        fmt::format("{}: schema_version {}, this reader knows 1.x to {}.x (use the "
                    "drainsim that wrote it)",
                    where, text, kResultsSchemaMajor));
  }
  return *version;
}

std::vector<Warning> results_warnings(const json& results, const std::string& where) {
  const int major = check_schema_version(results, where).first;
  std::vector<Warning> out;
  const auto it = results.find("warnings");
  if (it == results.end()) return out;
  const auto bad = [&](const std::string& at, const char* what, const json& got) {
    return InputError(fmt::format("{}: {}: expected {}, got {}", where, at, what, show(got)));
  };
  if (!it->is_array()) throw bad("warnings", "a list of warnings", *it);
  for (std::size_t i = 0; i < it->size(); ++i) {
    const json& w = (*it)[i];
    const std::string at = fmt::format("warnings[{}]", i);
    if (major < 3) {
      if (!w.is_string()) throw bad(at, "a warning message (a string, before schema 3.0)", w);
      out.push_back(Warning{"", w.get<std::string>(), {}});
      continue;
    }
    constexpr const char* kObject =
        "a warning object {\"code\": string, \"message\": string, \"figures\": object}";
    if (!w.is_object()) throw bad(at, kObject, w);
    for (const char* key : {"code", "message"}) {
      const auto f = w.find(key);
      if (f == w.end() || !f->is_string()) {
        throw bad(fmt::format("{}.{}", at, key), "a string", f == w.end() ? json() : *f);
      }
    }
    Warning warning{w["code"].get<std::string>(), w["message"].get<std::string>(), {}};
    const auto figures = w.find("figures");
    if (figures == w.end() || !figures->is_object()) {
      throw bad(at + ".figures", "an object of numbers", figures == w.end() ? json() : *figures);
    }
    for (const auto& [name, v] : figures->items()) {
      if (!v.is_number()) throw bad(fmt::format("{}.figures.{}", at, name), "a number", v);
      warning.figures.emplace_back(name, v.get<double>());
    }
    out.push_back(std::move(warning));
  }
  return out;
}

MetricValues summary_values(const json& results, const std::string& where) {
  const auto find = [](const json& object, std::string_view key) -> const json* {
    if (!object.is_object()) return nullptr;
    const auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
  };
  const auto [major, minor] = check_schema_version(results, where);
  const json* found = find(results, "summary");
  const json summary = found == nullptr ? json() : *found;
  MetricValues out;
  for (const Metric& m : metrics()) {
    const bool grouped = !m.group().empty();
    std::string_view key = grouped ? m.group() : m.name;
    if (major == 1 && m.name == "redeliveries") {  // 1.x: among shutdown_retries
      out.emplace(m.name, std::nullopt);
      continue;
    }
    const bool before_2_1 = major == 1 || (major == 2 && minor == 0);
    if (before_2_1 && m.name == "pushes_refused") {  // no push could be refused then
      out.emplace(m.name, 0.0);
      continue;
    }
    if (major == 1 && m.name == "completions_rejected") key = "rejected_acks";
    const bool before_3_3 = major < 3 || (major == 3 && minor < 3);
    if (before_3_3 && (key == "job_loss_by_cause" || key == "interrupted_by_cause" ||
                       key == "requeue_delay_s" || key == "backend_recovery_delay_s")) {
      out.emplace(m.name, std::nullopt);  // not attributed then
      continue;
    }
    const json* v = find(summary, key);
    // In a group: the group's member, or null for the whole group.
    if (grouped && v != nullptr && !v->is_null()) v = find(*v, m.leaf());
    if (v == nullptr || !(v->is_number() || (grouped && v->is_null()))) {
      throw InputError(fmt::format("{}: summary.{}: expected a number{}", where, m.name,
                                   grouped ? fmt::format(" (or summary.{} null)", m.group()) : ""));
    }
    out.emplace(m.name, v->is_null() ? std::nullopt : std::optional<double>(v->get<double>()));
  }
  return out;
}

std::string fnv1a64_hex(std::string_view bytes) {
  Fnv1a64 h;
  h.add(bytes);
  return h.hex();
}

std::string stamp_hash(json& results, const TimelineSpill* timeline) {
  results.erase("result_hash");
  Fnv1a64 h;
  write_results(results, timeline, [&](std::string_view piece) { h.add(piece); });
  std::string hex = h.hex();
  results["result_hash"] = hex;
  return hex;
}

json read_results_file(const std::string& path) {
  return parse_json(read_input_file(path, kMaxResultsBytes, "a results file"), path);
}

RecordedRun read_recorded_run(const std::string& path) {
  const json doc = read_results_file(path);
  if (!doc.is_object()) {
    throw InputError(fmt::format("{}: not a drainsim results file (not a JSON object)", path));
  }
  RecordedRun run;
  run.metrics = summary_values(doc, path);
  results_warnings(doc, path);
  const json seed = doc.value("seed", json());
  if (!seed.is_number_unsigned()) {
    throw InputError(fmt::format("{}: seed: expected the run's seed (a whole number >= 0)", path));
  }
  run.seed = seed.get<std::uint64_t>();
  if (const auto real = doc.find("real"); real != doc.end() && real->is_object()) {
    if (const auto list = real->find("not_measured"); list != real->end()) {
      if (!list->is_array()) {
        throw InputError(fmt::format("{}: real.not_measured: expected a list of metrics", path));
      }
      for (std::size_t i = 0; i < list->size(); ++i) {
        const json& name = (*list)[i];
        if (!name.is_string()) {
          throw InputError(
              fmt::format("{}: real.not_measured[{}]: expected a metric's name", path, i));
        }
        run.not_measured.insert(name.get<std::string>());
      }
    }
  }
  return run;
}

}  // namespace drainsim
