// A sweep's output formats (analysis/sweep.h): the text and Markdown tables, the JSON and
// the wide CSV.
#include <algorithm>

#include <fmt/format.h>

#include "analysis/sweep.h"
#include "analysis/text_table.h"
#include "analysis/warning_tally.h"
#include "io/results.h"
#include "io/stats_json.h"

namespace drainsim {

namespace {

using nlohmann::json;

const std::vector<const Metric*> kTableMetrics = {
    &metric("job_loss"),
    &metric("interrupted_fraction"),
    &metric("duplicate_executions"),
    &metric("shutdown_retries"),
    &metric("stuck_at_end"),
    &metric("wasted_work_s"),
    &metric("drain_latency_s.p99"),
    &metric("orphan_recovery_delay_s.p99"),
    &metric("deploy_duration_s.max"),
};

// An axis value as a cell: a string as it is, anything else as JSON.
std::string value_text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + '"';
}

// A point's mean job loss per run by cause class, the classes with any ("deploys 1.5,
// oom_kills 3.0"); "–" when it lost nothing.
std::string loss_by_cause_cell(const SweepPoint& p) {
  std::vector<std::string> parts;
  for (std::size_t k = 0; k < kCauseClasses; ++k) {
    const auto it =
        p.metrics.find(fmt::format("job_loss_by_cause.{}", name_of(static_cast<CauseClass>(k))));
    if (it != p.metrics.end() && it->second.n > 0 && it->second.mean > 0) {
      parts.push_back(
          fmt::format("{} {:.1f}", name_of(static_cast<CauseClass>(k)), it->second.mean));
    }
  }
  return parts.empty() ? std::string(kNoValue) : fmt::format("{}", fmt::join(parts, ", "));
}

// The header row and a row per point, cells as the text formats show them.
std::vector<std::vector<std::string>> text_rows(const Sweep& s) {
  std::vector<std::vector<std::string>> rows(1);
  for (const SweepAxis& a : s.axes) rows.back().push_back(a.path);
  for (const Metric* m : kTableMetrics) rows.back().emplace_back(m->name);
  rows.back().emplace_back("job_loss by cause");
  for (const SweepPoint& p : s.points) {
    rows.emplace_back();
    for (const json& v : p.values) rows.back().push_back(value_text(v));
    for (const Metric* m : kTableMetrics) {
      const auto it = p.metrics.find(std::string(m->name));
      rows.back().push_back(
          metric_cell(*m, it == p.metrics.end() ? Interval{} : it->second, s.seeds.size()));
    }
    rows.back().push_back(loss_by_cause_cell(p));
  }
  return rows;
}

// " --set PATH=VALUE ...", "N points, K seeds (FIRST..LAST)" as compare writes them.
std::string overrides_text(const Sweep& s) {
  std::string out;
  for (const std::string& o : s.overrides) out += fmt::format(" --set {}", o);
  return out;
}

std::string grid_text(const Sweep& s) {
  std::string out = fmt::format("{} point{}, ", s.points_total, s.points_total == 1 ? "" : "s");
  if (s.seeds.size() == 1) return out + fmt::format("seed {}", s.seeds.front());
  return out + fmt::format("{} seeds ({}..{})", s.seeds.size(), s.seeds.front(), s.seeds.back());
}

// What the reader must know before trusting the rows: an interrupted sweep, failed audits.
std::string notes(const Sweep& s) {
  std::string out;
  if (!s.complete) {
    out += fmt::format("interrupted: {} of {} points, those whose every seed ran\n",
                       s.points.size(), s.points_total);
  }
  std::size_t failed = 0, runs = 0;
  for (const SweepPoint& p : s.points) {
    runs += p.runs.size();
    for (const SeedRun& r : p.runs) failed += r.audit_ok ? 0 : 1;
  }
  if (failed > 0) {
    out += fmt::format("audit failed in {} of {} runs (stderr names the points, seeds and jobs)\n",
                       failed, runs);
  }
  // The runs' warnings by code: at how many points, in how many runs, the first one said.
  struct Seen {
    WarningTally first;
    const SweepPoint* point;
    std::size_t points = 0, runs = 0;
  };
  std::vector<Seen> seen;
  for (const SweepPoint& p : s.points) {
    for (const WarningTally& t : tally_warnings(p.runs)) {
      auto it = std::find_if(seen.begin(), seen.end(),
                             [&](const Seen& x) { return x.first.first.code == t.first.code; });
      if (it == seen.end()) {
        seen.push_back({t, &p});
        it = seen.end() - 1;
      }
      ++it->points;
      it->runs += t.runs;
    }
  }
  for (const Seen& w : seen) {
    std::string at;
    for (std::size_t a = 0; a < s.axes.size(); ++a) {
      at += fmt::format("{}{}={}", a ? " " : "", s.axes[a].path, value_text(w.point->values[a]));
    }
    out +=
        fmt::format("warning: {} in {} of {} runs, at {} of {} points (first at {}, seed {}: {})\n",
                    w.first.first.code, w.runs, runs, w.points, s.points.size(), at, w.first.seed,
                    w.first.first.message);
  }
  return out;
}

std::string table(const Sweep& s) {
  std::string out = fmt::format("sweep: scenario {}{}, {}, virtual engine\n", s.scenario,
                                overrides_text(s), grid_text(s));
  out += fmt::format(
      "mean ±half-width of the Student-t 95 % interval over the seeds; (n=k): only k runs had "
      "the metric; {}: none did\n",
      kNoValue);
  return out + notes(s) + '\n' + aligned_table(text_rows(s));
}

std::string markdown(const Sweep& s) {
  const auto rows = text_rows(s);
  std::string out = fmt::format(
      "Scenario `{}`{}, {}, virtual engine: mean ±half-width of the Student-t 95 % interval "
      "over the seeds.\n",
      s.scenario, overrides_text(s), grid_text(s));
  out += notes(s) + '\n';
  for (std::size_t r = 0; r < rows.size(); ++r) {
    out += '|';
    for (const std::string& v : rows[r]) out += fmt::format(" {} |", v);
    out += '\n';
    if (r == 0) {
      out += '|';
      for (std::size_t i = 0; i < rows[r].size(); ++i) {
        out += i < s.axes.size() ? "---|" : "---:|";
      }
      out += '\n';
    }
  }
  return out;
}

}  // namespace

const std::vector<const Metric*>& sweep_table_metrics() { return kTableMetrics; }

std::string format_sweep(const Sweep& s, SweepFormat format) {
  switch (format) {
    case SweepFormat::kTable:
      return table(s);
    case SweepFormat::kMarkdown:
      return markdown(s);
    case SweepFormat::kJson:
      return sweep_json(s).dump(2) + '\n';
    case SweepFormat::kCsv:
      return sweep_csv(s);
  }
  return {};
}

json sweep_json(const Sweep& s) {
  json axes = json::array();
  for (const SweepAxis& a : s.axes) axes.push_back({{"path", a.path}, {"values", a.values}});
  json points = json::array();
  for (const SweepPoint& p : s.points) {
    json values = json::object();
    for (std::size_t a = 0; a < s.axes.size(); ++a) values[s.axes[a].path] = p.values[a];
    json metrics = json::object();
    for (const auto& [key, v] : p.metrics) metrics[key] = interval_json(v);
    json hashes = json::array(), failures = json::array();
    for (const SeedRun& r : p.runs) {
      hashes.push_back(r.result_hash);
      if (!r.audit_ok) failures.push_back(audit_failure_json(r));
    }
    points.push_back({{"values", values},
                      {"metrics", metrics},
                      {"result_hashes", hashes},
                      {"audit_failures", failures},
                      {"warnings", tallies_json(tally_warnings(p.runs))}});
  }
  return {{"schema_version", kReportSchemaVersion},
          {"drainsim_version", DRAINSIM_VERSION},
          {"engine", "virtual"},
          {"scenario", s.scenario},
          {"overrides", s.overrides},
          {"axes", axes},
          {"seeds", s.seeds},
          {"complete", s.complete},
          {"points_total", s.points_total},
          {"points_done", s.points.size()},
          {"points", points}};
}

std::string sweep_csv(const Sweep& s) {
  std::string out;
  for (const SweepAxis& a : s.axes) out += csv_field(a.path) + ',';
  for (const Metric& m : metrics()) {
    out += fmt::format("{0}.mean,{0}.low,{0}.high,{0}.n,", m.name);
  }
  out.back() = '\n';
  for (const SweepPoint& p : s.points) {
    for (const json& v : p.values) out += csv_field(value_text(v)) + ',';
    for (const Metric& m : metrics()) {
      // A metric whose group was null in every run is kept under the group's name only.
      const auto it = p.metrics.find(std::string(m.name));
      const Interval v = it == p.metrics.end() ? Interval{} : it->second;
      if (v.n == 0) {
        out += ",,,0,";
      } else {
        out += fmt::format("{},{},{},{},", v.mean, v.low, v.high, v.n);
      }
    }
    out.back() = '\n';
  }
  return out;
}

}  // namespace drainsim
