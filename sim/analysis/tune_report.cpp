// tune's report: the text, the JSON and the settings snippet (analysis/tune.h).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/text_table.h"
#include "analysis/tune.h"
#include "io/results.h"
#include "io/scenario_writer.h"
#include "io/stats_json.h"
#include "model/metrics.h"

namespace drainsim {

namespace {

using nlohmann::json;

json grace_seconds(Duration d) { return d == kNever ? json(kForever) : json(to_seconds(d)); }

std::string targets_text(const TuneTargets& t) {
  std::vector<std::string> parts;
  if (t.max_job_loss) parts.push_back(fmt::format("job_loss <= {:g}", *t.max_job_loss));
  if (t.max_interrupted)
    parts.push_back(fmt::format("interrupted <= {}", percent_text(*t.max_interrupted)));
  if (t.max_deploy_duration) {
    parts.push_back(fmt::format("deploy <= {}", format_duration(*t.max_deploy_duration)));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

// The columns of the trade-off table: the summary metric, header, decimals, factor.
struct Column {
  std::string_view key;
  const char* header;
  int decimals;
  double factor;
};
const Column kColumns[] = {
    {"interrupted_fraction", "interrupted %", 3, 100},
    {"job_loss", "job_loss", 1, 1},
    {"shutdown_retries", "retries", 1, 1},
    {"wasted_work_s", "wasted s", 1, 1},
    {"drain_latency_s.p99", "drain p99 s", 1, 1},
    {"deploy_duration_s.max", "deploy s", 1, 1},
};
// When the targets are judged on some causes only (--causes) and the causes left out cost
// something: the judged figures in place of kColumns' first two, the run's whole job loss
// beside them.
const Column kJudgedHead[] = {
    {"judged.interrupted_fraction", "judged interrupted %", 3, 100},
    {"judged.job_loss", "judged job_loss", 1, 1},
    {"job_loss", "all job_loss", 1, 1},
};
std::vector<Column> columns(const Tune& t) {
  const auto judged_differs = [&] {
    if (t.causes == TuneCauses::kAll) return false;
    const auto mean = [](const TuneSetting& e, const char* key) {
      const auto it = e.metrics.find(key);
      return it == e.metrics.end() ? 0.0 : it->second.mean;
    };
    const std::vector<const TuneSetting*> all = t.settings();
    return std::any_of(all.begin(), all.end(), [&](const TuneSetting* e) {
      return mean(*e, "judged.job_loss") != mean(*e, "job_loss") ||
             mean(*e, "judged.interrupted_fraction") != mean(*e, "interrupted_fraction");
    });
  };
  if (!judged_differs()) return {std::begin(kColumns), std::end(kColumns)};
  std::vector<Column> out(std::begin(kJudgedHead), std::end(kJudgedHead));
  out.insert(out.end(), std::begin(kColumns) + 2, std::end(kColumns));
  return out;
}

// "from deploys, scale-downs, node drains and pod deletions (--causes changeable)".
std::string causes_text(TuneCauses c) {
  switch (c) {
    case TuneCauses::kChangeable:
      return "judged on what deploys, scale-downs, node drains and pod deletions cost "
             "(--causes changeable)";
    case TuneCauses::kDeploys:
      return "judged on what deploys cost (--causes deploys)";
    case TuneCauses::kAll:
      break;
  }
  return "judged on every cause (--causes all)";
}

Interval scaled(Interval v, double f) {
  v.mean *= f;
  v.half_width *= f;
  v.low *= f;
  v.high *= f;
  return v;
}

std::vector<std::string> header_row(const Tune& t) {
  std::vector<std::string> row{"grace", "platform", "seeds"};
  if (t.knob == TuneKnob::kPreStopTimeout) row.insert(row.begin(), "preStop timeout");
  for (const Column& c : columns(t)) row.emplace_back(c.header);
  row.emplace_back("meets targets");
  return row;
}

// The seeds column: how many were run ("1 of 30" when the sequential test stopped it).
std::string seeds_cell(const Tune& t, const TuneSetting& e) {
  return e.runs.size() == t.seeds.size() ? fmt::format("{}", e.runs.size())
                                         : fmt::format("{} of {}", e.runs.size(), t.seeds.size());
}

std::vector<std::string> setting_row(const Tune& t, const TuneSetting& e, bool own = false) {
  const std::size_t runs = e.runs.size();
  std::vector<std::string> row{format_grace(e.grace), format_duration(e.platform_grace),
                               seeds_cell(t, e)};
  if (t.knob == TuneKnob::kPreStopTimeout) {
    row.insert(row.begin(), own ? format_duration(t.base.platform.pre_stop.timeout)
                                : format_duration(e.pre_stop_timeout));
  }
  for (const Column& c : columns(t)) {
    const auto it = e.metrics.find(std::string(c.key));
    if (it == e.metrics.end()) {
      row.emplace_back(kNoValue);
    } else if (runs == 1 && it->second.n == 1) {  // one seed: no interval to give
      row.push_back(fmt::format("{:.{}f}", it->second.mean * c.factor, c.decimals));
    } else {
      row.push_back(interval_cell(scaled(it->second, c.factor), c.decimals, runs));
    }
  }
  row.push_back(e.meets() ? "yes" : fmt::format("no: {}", fmt::join(e.misses, "; ")));
  return row;
}

}  // namespace

std::string tune_text(const Tune& t) {
  const TuneSetting* r = t.recommended();
  std::string out;
  const bool timeout = t.knob == TuneKnob::kPreStopTimeout;
  if (r == nullptr) {
    out += timeout ? "recommended preStop timeout: none\n" : "recommended grace_period: none\n";
    if (!t.why_none.empty()) out += fmt::format("why: {}\n", t.why_none);
    for (const std::string& line : t.left_out) out += fmt::format("why: {}\n", line);
  } else {
    const TuneSearch& s = t.searches[*t.best];
    if (timeout) {
      out += fmt::format("recommended preStop timeout: {}\n", format_duration(r->pre_stop_timeout));
      out += fmt::format(
          "worker grace_period: {} (the scenario's, kept: the hook SIGKILLs the "
          "worker at its timeout, before any TERM, so no grace changes that)\n",
          format_grace(r->grace));
    } else {
      out += fmt::format("recommended grace_period: {}\n", format_grace(r->grace));
    }
    PreStop p = s.pre_stop;
    if (timeout) p.timeout = r->pre_stop_timeout;
    out += fmt::format(
        "{} {}: {}", t.platform_grace == PlatformGrace::kSearched ? "recommended" : "paired",
        t.base.platform.kubernetes() ? "terminationGracePeriodSeconds" : "stop_grace_period",
        format_duration(r->platform_grace));
    switch (t.platform_grace) {
      case PlatformGrace::kPaired:
        out += fmt::format(
            " (preStop {} + grace {} + margin {})", format_duration(pre_stop_time(p)),
            format_duration(r->grace == kNever ? 0 : r->grace), format_duration(t.margin));
        break;
      case PlatformGrace::kScenario:
        out += " (the scenario's, kept)";
        break;
      case PlatformGrace::kSearched:
        out += " (searched; the worker's grace_period is the scenario's)";
        break;
    }
    out += '\n';
    if (t.base.platform.kubernetes()) out += fmt::format("preStop: {}\n", pre_stop_text(p));
    for (const std::string& line : t.left_out) out += fmt::format("not judged: {}\n", line);
  }
  // The runs' own warnings first: an overloaded fleet skews every figure below.
  for (const WarningTally& w : t.run_warnings) {
    out += fmt::format("warning: {}\n", tally_text(w));
  }
  if (std::any_of(t.run_warnings.begin(), t.run_warnings.end(), [](const WarningTally& w) {
        return w.first.code == "overload" || w.first.code == "queue_growth";
      })) {
    out +=
        "  so this answer is for a fleet that cannot keep up: size the fleet first, then "
        "tune\n";
  }
  out += fmt::format(
      "targets: {}, {}; met when the upper end of the 95 % interval over {} seeds ({}..{}) "
      "is, scenario {}\n",
      targets_text(t.targets), causes_text(t.causes), t.seeds.size(), t.seeds.front(),
      t.seeds.back(), t.scenario);
  for (const std::string& o : t.overrides) out += fmt::format("  --set {}\n", o);
  out += fmt::format("\nthe scenario's own settings (preStop {}):\n",
                     pre_stop_text(t.base.platform.pre_stop));
  out += aligned_table({header_row(t), setting_row(t, t.current, true)});

  for (std::size_t i = 0; i < t.searches.size(); ++i) {
    const TuneSearch& s = t.searches[i];
    if (t.searches.size() > 1 || r == nullptr) {
      std::string verdict = timeout ? "no preStop timeout on the grid meets the targets"
                                    : "no grace on the grid meets the targets";
      if (s.recommended) {
        const TuneSetting& e = s.evaluated[*s.recommended];
        verdict = fmt::format("grace {}, platform grace {}", format_grace(e.grace),
                              format_duration(e.platform_grace));
      } else if (s.least_quality) {
        const TuneSetting& e = s.evaluated[*s.least_quality];
        verdict =
            fmt::format("{} {} meets the job-loss and interrupted targets, not the deploy target",
                        timeout ? "preStop timeout" : "grace",
                        format_duration(timeout ? e.pre_stop_timeout : e.grace));
      }
      out += fmt::format("\npreStop {}: {}\n", pre_stop_text(s.pre_stop), verdict);
    }
    if (t.best && i != *t.best) continue;
    // The trade-offs: the settings evaluated nearest the answer.
    const std::size_t centre = s.recommended     ? *s.recommended
                               : s.least_quality ? *s.least_quality
                                                 : s.evaluated.size() - 1;
    const std::size_t from = centre >= 5 ? centre - 5 : 0;
    const std::size_t to = std::min(s.evaluated.size(), centre + 6);
    std::vector<std::vector<std::string>> rows{header_row(t)};
    bool stopped = false;
    for (std::size_t k = from; k < to; ++k) {
      rows.push_back(setting_row(t, s.evaluated[k]));
      if (s.recommended && k == *s.recommended) rows.back().back() += "  <- recommended";
      stopped = stopped || s.evaluated[k].runs.size() < t.seeds.size();
    }
    out += fmt::format(
        "\ntrade-offs (mean ±95 % half-width over the seeds run; {} of {} settings "
        "evaluated shown):\n",
        to - from, s.evaluated.size());
    out += aligned_table(rows);
    if (stopped) {
      out += fmt::format(
          "k of {}: stopped after k seeds, once the other seeds could no longer bring the upper "
          "end down to the target (≥: the least they could give)\n",
          t.seeds.size());
    }
  }

  const SpecRule& rule = t.rule;
  out += fmt::format(
      "\nspec §6.2 rule of thumb: max_job_duration {} ({}) + heartbeat_interval {} + "
      "safety_margin {} = {}",
      format_duration(rule.max_job_duration), rule.basis, format_duration(rule.heartbeat_interval),
      format_duration(rule.safety_margin), format_duration(rule.grace()));
  if (r != nullptr && (timeout || r->grace != kNever)) {
    // quiet_then_wait: the hook's timeout is what stands for the grace.
    const Duration diff = rule.grace() - (timeout ? r->pre_stop_timeout : r->grace);
    if (diff > 0) {
      out += fmt::format("; drainsim's answer is {} shorter", format_duration(diff));
    } else if (diff < 0) {
      out += fmt::format("; drainsim's answer is {} longer", format_duration(-diff));
    } else {
      out += "; the same as drainsim's answer";
    }
  }
  out += '\n';
  for (const Warning& w : t.warnings) out += fmt::format("warning: {}\n", w.message);
  if (const std::string snippet = settings_snippet(t); !snippet.empty()) {
    out += "\n" + snippet;
  }
  return out;
}

json tune_json(const Tune& t) {
  const auto setting_json = [&](const TuneSetting& s) {
    json metrics = json::object();
    for (const auto& [key, v] : s.metrics) metrics[key] = interval_json(v);
    return json{{"grace_period", format_duration(s.grace)},
                {"grace_period_s", grace_seconds(s.grace)},
                {"termination_grace_period_s", to_seconds(s.platform_grace)},
                {"pre_stop_timeout_s", t.knob == TuneKnob::kPreStopTimeout
                                           ? json(to_seconds(s.pre_stop_timeout))
                                           : json(nullptr)},
                {"seeds_run", s.runs.size()},
                {"meets_targets", s.meets()},
                {"misses", s.misses},
                {"metrics", metrics},
                {"audit_failures", [&] {
                   json failures = json::array();
                   for (const SeedRun& r : s.runs) {
                     if (!r.audit_ok) failures.push_back(audit_failure_json(r));
                   }
                   return failures;
                 }()}};
  };
  json searches = json::array();
  for (const TuneSearch& s : t.searches) {
    json settings = json::array();
    for (const TuneSetting& e : s.evaluated) settings.push_back(setting_json(e));
    searches.push_back(
        {{"pre_stop", pre_stop_json(s.pre_stop)},
         {"pre_stop_s", to_seconds(pre_stop_time(s.pre_stop))},
         {"recommended_grace_period_s",
          s.recommended ? grace_seconds(s.evaluated[*s.recommended].grace) : json(nullptr)},
         {"settings", settings}});
  }
  json recommended = nullptr;
  if (const TuneSetting* r = t.recommended()) {
    PreStop p = t.searches[*t.best].pre_stop;
    if (t.knob == TuneKnob::kPreStopTimeout) p.timeout = r->pre_stop_timeout;
    json metrics = setting_json(*r)["metrics"];
    recommended = {{"grace_period", format_grace(r->grace)},
                   {"grace_period_s", grace_seconds(r->grace)},
                   {"termination_grace_period_s", to_seconds(r->platform_grace)},
                   {"platform_grace", t.platform_grace == PlatformGrace::kPaired     ? "paired"
                                      : t.platform_grace == PlatformGrace::kSearched ? "searched"
                                                                                     : "scenario"},
                   {"pre_stop", pre_stop_json(p)},
                   {"pre_stop_s", to_seconds(pre_stop_time(p))},
                   {"metrics", metrics}};
  }
  const TuneTargets& tg = t.targets;
  return {{"schema_version", kReportSchemaVersion},
          {"drainsim_version", DRAINSIM_VERSION},
          {"engine", "virtual"},
          {"scenario", t.scenario},
          {"overrides", t.overrides},
          {"seeds", t.seeds},
          {"targets",
           {{"max_job_loss", tg.max_job_loss ? json(*tg.max_job_loss) : json(nullptr)},
            {"max_interrupted", tg.max_interrupted ? json(*tg.max_interrupted) : json(nullptr)},
            {"max_deploy_duration_s",
             tg.max_deploy_duration ? json(to_seconds(*tg.max_deploy_duration)) : json(nullptr)}}},
          {"recommended", recommended},
          {"spec_rule",
           {{"max_job_duration_s", to_seconds(t.rule.max_job_duration)},
            {"max_job_duration_basis", t.rule.basis},
            {"heartbeat_interval_s", to_seconds(t.rule.heartbeat_interval)},
            {"safety_margin_s", to_seconds(t.rule.safety_margin)},
            {"grace_period_s", to_seconds(t.rule.grace())}}},
          {"searched", t.knob == TuneKnob::kPreStopTimeout  ? "pre_stop.timeout"
                       : t.knob == TuneKnob::kPlatformGrace ? "platform_grace"
                                                            : "grace_period"},
          {"causes", name_of(t.causes)},
          {"why_none", t.why_none.empty() ? json(nullptr) : json(t.why_none)},
          {"left_out", t.left_out},
          {"warnings",
           [&] {
             json all = json::array();
             for (const Warning& w : t.warnings) all.push_back(warning_json(w));
             for (const WarningTally& w : t.run_warnings) all.push_back(tally_json(w));
             return all;
           }()},
          {"current",
           [&] {
             json j = setting_json(t.current);
             j["pre_stop"] = pre_stop_json(t.base.platform.pre_stop);
             return j;
           }()},
          {"searches", searches},
          {"snippet", settings_snippet(t)}};
}

}  // namespace drainsim
