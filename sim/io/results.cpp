#include "io/results.h"

#include <iterator>
#include <stdexcept>

#include "io/profile_json.h"

#include <fmt/format.h>

#include "io/scenario_reader.h"
#include "io/scenario_writer.h"
#include "io/stats_json.h"

namespace drainsim {

namespace {

using nlohmann::json;

json seconds_or_null(Time t) { return t < 0 ? json(nullptr) : json(to_seconds(t)); }

json summary(const Recorder& rec, const Platform& platform, const AuditResult& audit) {
  const JobTotals& t = rec.totals();
  json exits = {{"clean", 0},      {"died_on_term", 0},      {"killed_at_deadline", 0},
                {"oom_killed", 0}, {"exited_with_error", 0}, {"killed_by_signal", 0}};
  int running = 0;  // left alone at the end: not an exit
  Percentiles drain;
  for (const ProcessRecord& p : platform.processes()) {
    if (p.exit == ExitKind::kRunning) {
      ++running;
    } else {
      exits[to_string(p.exit)] = exits[to_string(p.exit)].get<int>() + 1;
    }
    if (p.termination >= 0 && p.ended >= 0 && p.exit != ExitKind::kOomKilled) {
      drain.add(to_seconds(p.ended - p.termination));
    }
  }
  json deploy = nullptr;
  Percentiles deploys;
  int superseded = 0, unfinished = 0;
  for (const DeployRecord& d : platform.deploys()) {
    if (d.superseded) {
      ++superseded;
    } else if (d.end < 0) {
      ++unfinished;
    } else {
      deploys.add(to_seconds(d.end - d.start));
    }
  }
  if (deploys.count() > 0) {
    deploy = {{"count", deploys.count()}, {"mean", deploys.mean()}, {"max", deploys.max()}};
  }
  json latency = nullptr;
  if (rec.job_latency().count() > 0) {
    latency = {{"p50", rec.job_latency().quantile(0.5)}, {"p99", rec.job_latency().quantile(0.99)}};
  }
  json attempts = json::object();
  for (int o = 0; o < 6; ++o) attempts[to_string(static_cast<Outcome>(o))] = t.attempts[o];
  json audit_json = {
      {"ok", audit.ok},
      {"error_count", audit.error_count},
      {"errors", audit.errors},
      {"balance", fmt::format("enqueued {} = completed {} + lost {} + discarded "
                              "{} + pending {}",
                              t.enqueued, t.completed, t.lost, t.discarded, t.pending)}};
  const std::int64_t clean = exits["clean"].get<std::int64_t>();
  // Every SIGKILL: at the deadline, by the OOM killer, or by an operator or preStop script.
  const std::int64_t forced = exits["killed_at_deadline"].get<std::int64_t>() +
                              exits["oom_killed"].get<std::int64_t>() +
                              exits["killed_by_signal"].get<std::int64_t>();
  return json{
      {"jobs_enqueued", t.enqueued},
      {"jobs_completed", t.completed},
      {"jobs_discarded", t.discarded},
      {"jobs_pending", t.pending},
      {"jobs_lost", t.lost},
      {"jobs_discarded_by_shutdown", t.discarded_by_shutdown},
      {"job_loss", t.lost + t.discarded_by_shutdown},
      {"duplicate_executions", t.duplicate_executions},
      {"shutdown_retries", t.shutdown_retries},
      {"interrupted_jobs", t.interrupted},
      {"interrupted_fraction",
       t.enqueued ? static_cast<double>(t.interrupted) / static_cast<double>(t.enqueued) : 0.0},
      {"wasted_work_s", to_seconds(t.wasted_work)},
      {"drain_latency_s", percentiles_json(drain)},
      {"exits", exits},
      {"graceful_exits", clean},
      {"forced_kills", forced},
      {"processes_running_at_end", running},
      {"orphan_recovery_delay_s", percentiles_json(rec.orphan_recovery())},
      {"stuck_at_end", t.stuck_at_end},
      {"deploy_duration_s", deploy},
      {"deploys_superseded", superseded},
      {"deploys_unfinished", unfinished},
      {"job_latency_s", latency},
      {"attempts", attempts},
      {"rejected_acks", t.rejected_acks},
      {"rejected_fails", t.rejected_fails},
      {"audit", audit_json},
  };
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
      procs.push_back(
          {{"worker", r.worker},
           {"started_s", to_seconds(r.started)},
           {"ended_s", seconds_or_null(r.ended)},
           {"termination_s", seconds_or_null(r.termination)},
           {"exit", r.exit == ExitKind::kRunning ? "running_at_end" : to_string(r.exit)},
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

// Calls visit(name, columns, records, row) for each timeline table, in the order of their
// names (the document's key order); row(record) is the record's row.
template <typename Visit>
void visit_tables(const Timeline& t, Visit&& visit) {
  visit("attempts", json{"job", "attempt", "pod", "worker", "slot", "start_s", "end_s", "outcome"},
        t.attempts, [](const AttemptRecord& a) {
          return json{a.job,
                      a.attempt,
                      a.pod,
                      a.worker,
                      a.slot,
                      to_seconds(a.start),
                      to_seconds(a.end),
                      a.duplicate ? "duplicate" : to_string(a.outcome)};
        });
  visit("drain_remaining", json{"t_s", "pod", "worker", "remaining"}, t.remaining,
        [](const RemainingRecord& r) {
          return json{to_seconds(r.at), r.pod, r.worker, r.remaining};
        });
  visit("heartbeats", json{"t_s", "pod", "worker", "state"}, t.heartbeats,
        [](const HeartbeatRecord& h) {
          return json{to_seconds(h.at), h.pod, h.worker, to_string(h.state)};
        });
  visit("pod_states", json{"t_s", "pod", "state"}, t.pod_states, [](const PodStateRecord& r) {
    return json{to_seconds(r.at), r.pod, to_string(r.state)};
  });
  visit("reports", json{"t_s", "pod", "worker", "job", "attempt", "kind", "error", "accepted"},
        t.reports, [](const ReportRecord& r) {
          return json{to_seconds(r.at),
                      r.pod,
                      r.worker,
                      r.job,
                      r.attempt,
                      to_string(r.kind),
                      r.kind == ReportKind::kFail ? to_string(r.error) : "",
                      r.accepted};
        });
  visit("series", json{"t_s", "queued", "scheduled", "in_flight"}, t.series,
        [](const SeriesPoint& p) {
          return json{to_seconds(p.at), p.queued, p.scheduled, p.in_flight};
        });
  visit("signals", json{"t_s", "pod", "signal", "delivered", "source"}, t.signals,
        [](const SignalRecord& r) {
          return json{to_seconds(r.at), r.pod, to_string(r.signal), r.delivered, r.source};
        });
}

void write_timeline(const Timeline& t, const TextSink& out) {
  bool first_table = true;
  visit_tables(
      t, [&](std::string_view name, const json& columns, const auto& records, const auto& row) {
        out(first_table ? "{\"" : ",\"");
        first_table = false;
        out(name);
        out("\":{\"columns\":");
        out(columns.dump());
        out(",\"rows\":[");
        bool first = true;
        for (const auto& r : records) {
          if (!first) out(",");
          first = false;
          out(row(r).dump());
        }
        out("]}");
      });
  out("}");
}

// The FNV-1a 64 hash, fed in pieces.
class Fnv1a64 {
 public:
  void add(std::string_view bytes) {
    for (const unsigned char c : bytes) {
      h_ ^= c;
      h_ *= 0x100000001b3ULL;
    }
  }
  std::string hex() const { return fmt::format("{:016x}", h_); }

 private:
  std::uint64_t h_ = 0xcbf29ce484222325ULL;
};

}  // namespace

json build_results(const Scenario& scenario, const Recorder& recorder, const Platform& platform,
                   const AuditResult& audit, Time ended_at, bool ended_early, const char* engine) {
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
       {{"ended_at_s", to_seconds(ended_at)},
        {"ended_early", ended_early},
        {"attempts_in_flight_at_end", recorder.in_flight()}}},
      {"summary", summary(recorder, platform, audit)},
      {"pods", pods_json(platform)},
      {"warnings", recorder.warnings()},
  };
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

void write_results(const json& results, const Timeline* timeline, const TextSink& out) {
  if (timeline == nullptr) {
    out(results.dump());
    return;
  }
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
  write_timeline(*timeline, out);
  out(",\"warnings\":");
  out(warnings.dump());
  out("}");
}

std::string fnv1a64_hex(std::string_view bytes) {
  Fnv1a64 h;
  h.add(bytes);
  return h.hex();
}

std::string stamp_hash(json& results, const Timeline* timeline) {
  results.erase("result_hash");
  Fnv1a64 h;
  write_results(results, timeline, [&](std::string_view piece) { h.add(piece); });
  std::string hex = h.hex();
  results["result_hash"] = hex;
  return hex;
}

std::optional<double> summary_value(const json& summary, std::string_view metric) {
  const json* v = &summary;
  while (true) {
    const std::size_t dot = metric.find('.');
    const std::string key(metric.substr(0, dot));
    if (!v->is_object() || !v->contains(key)) return std::nullopt;
    v = &(*v)[key];
    if (dot == std::string_view::npos) break;
    metric.remove_prefix(dot + 1);
  }
  if (!v->is_number()) return std::nullopt;
  return v->get<double>();
}

}  // namespace drainsim
