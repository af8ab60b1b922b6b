#include "analysis/tune.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "analysis/sweep.h"
#include "analysis/text_table.h"
#include "io/results.h"
#include "io/scenario_reader.h"
#include "io/scenario_writer.h"
#include "io/stats_json.h"

namespace drainsim {

namespace {

using nlohmann::json;

// Standard normal quantiles.
constexpr double kZ99 = 2.3263478740408408;
constexpr double kZ999 = 3.0902323061678132;

// About this many settings on the first pass over the grid.
constexpr std::size_t kFirstPassSettings = 16;

// How long a preStop may hold TERM back.
Duration pre_stop_time(const PreStop& p) {
  switch (p.kind) {
    case PreStop::Kind::kNone:
      return 0;
    case PreStop::Kind::kSleep:
    case PreStop::Kind::kQuietThenSleep:
      return p.duration;
    case PreStop::Kind::kQuietThenWait:
      return p.timeout;
  }
  return 0;
}

std::string pre_stop_text(const PreStop& p) {
  switch (p.kind) {
    case PreStop::Kind::kNone:
      return "none";
    case PreStop::Kind::kSleep:
    case PreStop::Kind::kQuietThenSleep:
      return fmt::format("{} {}", pre_stop_json(p)["kind"].get<std::string>(),
                         format_duration(p.duration));
    case PreStop::Kind::kQuietThenWait:
      return fmt::format("quiet_then_wait (timeout {})", format_duration(p.timeout));
  }
  return "?";
}

bool kubernetes(const Scenario& s) { return s.platform.kind == PlatformConfig::Kind::kKubernetes; }

const char* platform_grace_field(const Scenario& s) {
  return kubernetes(s) ? "platform.termination_grace_period" : "platform.stop_grace_period";
}

// An axis of one value: how tune sets a field through run_sweep.
SweepAxis single(const std::string& path, const std::string& value) {
  return {path + "=" + value, path, {json(value)}, {path + "=" + value}};
}

double seconds_of(Duration d) { return to_seconds(d); }

std::string grace_text(Duration d) { return d == kNever ? "forever" : format_duration(d); }

json grace_seconds(Duration d) { return d == kNever ? json("forever") : json(to_seconds(d)); }

std::string percent(double fraction) { return fmt::format("{:.3g}%", 100 * fraction); }

double mean_or(const TuneSetting& s, const std::string& key, double fallback) {
  const auto it = s.metrics.find(key);
  return it == s.metrics.end() || it->second.n == 0 ? fallback : it->second.mean;
}

class Searcher {
 public:
  Searcher(const TuneSpec& spec, const Scenario& base) : spec_(spec), base_(base) {}

  TuneSearch search(const PreStop& pre_stop, bool override_pre_stop) {
    TuneSearch out;
    out.pre_stop = pre_stop;
    std::map<std::size_t, TuneSetting> done;  // by grid index
    const auto at = [&](std::size_t i) -> const TuneSetting& {
      auto it = done.find(i);
      if (it == done.end()) {
        if (spec_.progress) spec_.progress(pre_stop_time(pre_stop), spec_.grid[i], done.size());
        it = done.emplace(i, evaluate(pre_stop, override_pre_stop, spec_.grid[i])).first;
      }
      return it->second;
    };
    const std::size_t n = spec_.grid.size();
    const std::size_t stride =
        std::max<std::size_t>(1, (n - 1 + kFirstPassSettings - 1) / kFirstPassSettings);
    std::vector<std::size_t> first_pass;
    for (std::size_t i = 0; i < n; i += stride) first_pass.push_back(i);
    if (first_pass.back() != n - 1) first_pass.push_back(n - 1);
    // The smallest first-pass setting from which on all meet the quality targets (every
    // one is run: the trade-off table shows what smaller graces cost).
    for (std::size_t i : first_pass) at(i);
    std::optional<std::size_t> hit;
    for (std::size_t k = first_pass.size(); k-- > 0;) {
      if (!at(first_pass[k]).meets_quality) break;
      hit = k;
    }
    std::optional<std::size_t> least;
    if (hit) {
      std::size_t pass = first_pass[*hit];
      if (*hit > 0) {
        std::size_t miss = first_pass[*hit - 1];
        while (pass - miss > 1) {
          const std::size_t mid = miss + (pass - miss) / 2;
          (at(mid).meets_quality ? pass : miss) = mid;
        }
      }
      least = pass;
    }
    for (auto& [i, setting] : done) {
      if (least && i == *least) {
        out.least_quality = out.evaluated.size();
        if (setting.meets()) out.recommended = out.evaluated.size();
      }
      out.evaluated.push_back(std::move(setting));
    }
    return out;
  }

  // The scenario's own grace, platform grace and preStop.
  TuneSetting current() {
    return evaluate(base_.platform.pre_stop, false, base_.worker.grace_period, true);
  }

 private:
  // `value` is the grid's: a worker grace, or a platform grace when that is searched.
  TuneSetting evaluate(const PreStop& pre_stop, bool override_pre_stop, Duration value,
                       bool own = false) {
    SweepSpec sweep;
    sweep.scenario = spec_.scenario;
    sweep.overrides = spec_.overrides;
    if (override_pre_stop) {
      sweep.overrides.push_back("platform.pre_stop=" + pre_stop_json(pre_stop).dump());
    }
    sweep.seeds = spec_.seeds;
    sweep.first_seed = spec_.first_seed;
    sweep.threads = spec_.threads;
    const PlatformGrace mode = own ? PlatformGrace::kScenario : spec_.platform_grace;
    TuneSetting s;
    s.grace = mode == PlatformGrace::kSearched ? base_.worker.grace_period : value;
    s.platform_grace = mode == PlatformGrace::kPaired
                           ? pre_stop_time(pre_stop) + value + spec_.margin
                       : mode == PlatformGrace::kSearched ? value
                                                          : base_.platform.grace_period();
    sweep.axes.push_back(single("worker.grace_period", grace_text(s.grace)));
    sweep.axes.push_back(single(platform_grace_field(base_), format_duration(s.platform_grace)));
    Sweep result = run_sweep(sweep);
    SweepPoint& point = result.points.front();
    s.metrics = std::move(point.metrics);
    s.runs = std::move(point.runs);
    const TuneTargets& t = spec_.targets;
    const double loss = mean_or(s, "job_loss", 0);
    const double interrupted = mean_or(s, "interrupted_fraction", 0);
    if (t.max_job_loss && loss > *t.max_job_loss) {
      s.misses.push_back(fmt::format("job_loss {:.3g} > {:g}", loss, *t.max_job_loss));
    }
    if (t.max_interrupted && interrupted > *t.max_interrupted) {
      s.misses.push_back(
          fmt::format("interrupted {} > {}", percent(interrupted), percent(*t.max_interrupted)));
    }
    s.meets_quality = s.misses.empty();
    const double deploy = mean_or(s, "deploy_duration_s.max", 0);
    if (t.max_deploy_duration && deploy > seconds_of(*t.max_deploy_duration)) {
      s.misses.push_back(
          fmt::format("deploy {:.1f}s > {}", deploy, format_duration(*t.max_deploy_duration)));
    }
    return s;
  }

  const TuneSpec& spec_;
  const Scenario& base_;
};

std::string targets_text(const TuneTargets& t) {
  std::vector<std::string> parts;
  if (t.max_job_loss) parts.push_back(fmt::format("job_loss <= {:g}", *t.max_job_loss));
  if (t.max_interrupted)
    parts.push_back(fmt::format("interrupted <= {}", percent(*t.max_interrupted)));
  if (t.max_deploy_duration) {
    parts.push_back(fmt::format("deploy <= {}", format_duration(*t.max_deploy_duration)));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

// The columns of the trade-off table: summary key, header, decimals, factor.
struct Column {
  const char* key;
  const char* header;
  int decimals;
  double factor;
};
constexpr Column kColumns[] = {
    {"interrupted_fraction", "interrupted %", 3, 100},
    {"job_loss", "job_loss", 1, 1},
    {"shutdown_retries", "retries", 1, 1},
    {"wasted_work_s", "wasted s", 1, 1},
    {"drain_latency_s.p99", "drain p99 s", 1, 1},
    {"deploy_duration_s.max", "deploy s", 1, 1},
};

Interval scaled(Interval v, double f) {
  v.mean *= f;
  v.half_width *= f;
  v.low *= f;
  v.high *= f;
  return v;
}

// A quantile worked out in floating point, in whole seconds (rounded up).
Duration whole_seconds_up(double seconds) {
  return static_cast<Duration>(std::ceil(seconds - 1e-9)) * kSecond;
}

// Seconds for Kubernetes, which takes whole seconds: rounded up.
std::int64_t whole_seconds(Duration d) { return (d + kSecond - 1) / kSecond; }

std::vector<std::string> header_row() {
  std::vector<std::string> row{"grace", "platform"};
  for (const Column& c : kColumns) row.emplace_back(c.header);
  row.emplace_back("meets targets");
  return row;
}

std::vector<std::string> setting_row(const TuneSetting& e, std::size_t runs) {
  std::vector<std::string> row{grace_text(e.grace), format_duration(e.platform_grace)};
  for (const Column& c : kColumns) {
    const auto it = e.metrics.find(c.key);
    row.push_back(it == e.metrics.end()
                      ? std::string(kNoValue)
                      : interval_cell(scaled(it->second, c.factor), c.decimals, runs));
  }
  row.push_back(e.meets() ? "yes" : fmt::format("no: {}", fmt::join(e.misses, "; ")));
  return row;
}

}  // namespace

std::optional<double> parse_fraction(std::string_view text) {
  const bool pct = !text.empty() && text.back() == '%';
  if (pct) text.remove_suffix(1);
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) {
    return std::nullopt;
  }
  if (pct) v /= 100;
  if (v < 0 || v > 1) return std::nullopt;
  return v;
}

SpecRule spec_rule(const Scenario& s, Duration safety_margin) {
  SpecRule r;
  r.heartbeat_interval = s.worker.heartbeat_interval;
  r.safety_margin = safety_margin;
  const DurationDistribution& d = s.workload.job_duration;
  using Kind = DurationDistribution::Kind;
  switch (d.kind) {
    case Kind::kConstant:
      r.max_job_duration = d.value;
      r.basis = "constant";
      break;
    case Kind::kUniform:
      r.max_job_duration = d.max;
      r.basis = "the uniform's max";
      break;
    case Kind::kExponential:
      r.max_job_duration = whole_seconds_up(to_seconds(d.mean) * std::log(1000.0));
      r.basis = "p99.9 of the exponential";
      break;
    case Kind::kLognormal:
      r.max_job_duration = whole_seconds_up(
          to_seconds(d.median) * std::pow(to_seconds(d.p99) / to_seconds(d.median), kZ999 / kZ99));
      r.basis = "p99.9 of the lognormal";
      break;
    case Kind::kPareto:
      r.max_job_duration = whole_seconds_up(to_seconds(d.scale) * std::pow(1000.0, 1 / d.shape));
      r.basis = "p99.9 of the pareto";
      break;
    case Kind::kEmpirical:
    case Kind::kSequence:
      for (Duration v : d.values) r.max_job_duration = std::max(r.max_job_duration, v);
      for (const auto& b : d.histogram) r.max_job_duration = std::max(r.max_job_duration, b.le);
      r.basis = "the longest listed duration";
      break;
  }
  return r;
}

const TuneSetting* Tune::recommended() const {
  if (!best) return nullptr;
  const TuneSearch& s = searches[*best];
  return &s.evaluated[*s.recommended];
}

std::vector<const TuneSetting*> Tune::settings() const {
  std::vector<const TuneSetting*> all{&current};
  for (const TuneSearch& s : searches) {
    for (const TuneSetting& e : s.evaluated) all.push_back(&e);
  }
  return all;
}

bool Tune::audits_ok() const {
  for (const TuneSetting* s : settings()) {
    for (const CompareRun& r : s->runs) {
      if (!r.audit_ok) return false;
    }
  }
  return true;
}

Tune run_tune(const TuneSpec& spec) {
  Tune t;
  t.base = load_scenario_file(spec.scenario, spec.overrides);
  t.scenario = t.base.name;
  t.overrides = spec.overrides;
  t.targets = spec.targets;
  t.platform_grace = spec.platform_grace;
  t.margin = spec.margin;
  t.rule = spec_rule(t.base, spec.safety_margin);
  const std::uint64_t first = spec.first_seed.value_or(t.base.seed);
  for (std::size_t i = 0; i < spec.seeds; ++i) t.seeds.push_back(first + i);

  const PreStop& own = t.base.platform.pre_stop;
  std::vector<PreStop> pre_stops;
  if (spec.pre_stops.empty()) {
    pre_stops.push_back(own);
  } else if (!kubernetes(t.base)) {
    throw ScenarioError("--pre-stop: a Docker platform has no preStop hook");
  } else if (own.kind == PreStop::Kind::kQuietThenWait) {
    throw ScenarioError(
        "--pre-stop: the scenario's preStop is quiet_then_wait, which ends when the worker is "
        "idle; sweep platform.pre_stop.timeout instead");
  } else {
    for (Duration d : spec.pre_stops) {
      PreStop p;
      p.kind = d == 0                              ? PreStop::Kind::kNone
               : own.kind == PreStop::Kind::kSleep ? PreStop::Kind::kSleep
                                                   : PreStop::Kind::kQuietThenSleep;
      p.duration = d;
      pre_stops.push_back(p);
    }
  }

  Searcher searcher(spec, t.base);
  t.current = searcher.current();
  for (const PreStop& p : pre_stops) {
    t.searches.push_back(searcher.search(p, !spec.pre_stops.empty()));
    const TuneSearch& s = t.searches.back();
    if (!s.recommended) continue;
    const auto cost = [&](std::size_t i) {
      const TuneSetting& r = t.searches[i].evaluated[*t.searches[i].recommended];
      return spec.platform_grace == PlatformGrace::kSearched
                 ? r.platform_grace
                 : pre_stop_time(t.searches[i].pre_stop) + r.grace;
    };
    if (!t.best || cost(t.searches.size() - 1) < cost(*t.best)) t.best = t.searches.size() - 1;
  }

  // The scenario's own settings against spec §6.3.
  const Duration own_grace = t.base.worker.grace_period;
  const Duration own_platform = t.base.platform.grace_period();
  if (own_grace != kNever && own_platform <= pre_stop_time(own) + own_grace) {
    t.warnings.push_back(fmt::format(
        "the scenario's {} ({}) is at or below its worker grace_period ({}){}: the platform "
        "SIGKILLs the worker before its grace period ends (spec §6.3: the worker's grace must "
        "be less than the platform's)",
        kubernetes(t.base) ? "terminationGracePeriodSeconds" : "stop_grace_period",
        format_duration(own_platform), format_duration(own_grace),
        pre_stop_time(own) ? fmt::format(" plus preStop ({})", format_duration(pre_stop_time(own)))
                           : ""));
  }
  if (const TuneSetting* r = t.recommended();
      r && t.platform_grace != PlatformGrace::kPaired && r->grace != kNever &&
      r->platform_grace <= pre_stop_time(t.searches[*t.best].pre_stop) + r->grace) {
    t.warnings.push_back(fmt::format(
        "with platform grace {} the platform, not the worker's grace ({}), ends the drain "
        "(spec §6.3)",
        format_duration(r->platform_grace), format_duration(r->grace)));
  }
  if (spec.targets.max_deploy_duration) {
    for (const TuneSearch& s : t.searches) {
      if (!s.evaluated.empty() && mean_or(s.evaluated.front(), "deploy_duration_s.max", -1) < 0) {
        t.warnings.push_back(
            "the scenario has no rollout, so --max-deploy-duration constrains nothing");
        break;
      }
    }
  }
  return t;
}

std::string tune_text(const Tune& t) {
  const TuneSetting* r = t.recommended();
  std::string out;
  if (r == nullptr) {
    out += "recommended grace_period: none\n";
  } else {
    const TuneSearch& s = t.searches[*t.best];
    out += fmt::format("recommended grace_period: {}\n", grace_text(r->grace));
    out += fmt::format("{} {}: {}",
                       t.platform_grace == PlatformGrace::kSearched ? "recommended" : "paired",
                       kubernetes(t.base) ? "terminationGracePeriodSeconds" : "stop_grace_period",
                       format_duration(r->platform_grace));
    switch (t.platform_grace) {
      case PlatformGrace::kPaired:
        out += fmt::format(" (preStop {} + grace {} + margin {})",
                           format_duration(pre_stop_time(s.pre_stop)), format_duration(r->grace),
                           format_duration(t.margin));
        break;
      case PlatformGrace::kScenario:
        out += " (the scenario's, kept)";
        break;
      case PlatformGrace::kSearched:
        out += " (searched; the worker's grace_period is the scenario's)";
        break;
    }
    out += '\n';
    if (kubernetes(t.base)) out += fmt::format("preStop: {}\n", pre_stop_text(s.pre_stop));
  }
  out += fmt::format("targets: {}, each setting's mean over {} seeds ({}..{}) of scenario {}\n",
                     targets_text(t.targets), t.seeds.size(), t.seeds.front(), t.seeds.back(),
                     t.scenario);
  for (const std::string& o : t.overrides) out += fmt::format("  --set {}\n", o);
  out += fmt::format("\nthe scenario's own settings (preStop {}):\n",
                     pre_stop_text(t.base.platform.pre_stop));
  out += aligned_table({header_row(), setting_row(t.current, t.seeds.size())});

  for (std::size_t i = 0; i < t.searches.size(); ++i) {
    const TuneSearch& s = t.searches[i];
    if (t.searches.size() > 1 || r == nullptr) {
      std::string verdict = "no grace on the grid meets the targets";
      if (s.recommended) {
        const TuneSetting& e = s.evaluated[*s.recommended];
        verdict = fmt::format("grace {}, platform grace {}", grace_text(e.grace),
                              format_duration(e.platform_grace));
      } else if (s.least_quality) {
        verdict = fmt::format(
            "grace {} meets the job-loss and interrupted targets, not the "
            "deploy target",
            format_duration(s.evaluated[*s.least_quality].grace));
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
    std::vector<std::vector<std::string>> rows{header_row()};
    for (std::size_t k = from; k < to; ++k) {
      rows.push_back(setting_row(s.evaluated[k], t.seeds.size()));
      if (s.recommended && k == *s.recommended) rows.back().back() += "  <- recommended";
    }
    out += fmt::format(
        "\ntrade-offs (mean ±95 % half-width over the seeds; {} of {} settings "
        "evaluated shown):\n",
        to - from, s.evaluated.size());
    out += aligned_table(rows);
  }

  const SpecRule& rule = t.rule;
  out += fmt::format(
      "\nspec §6.2 rule of thumb: max_job_duration {} ({}) + heartbeat_interval {} + "
      "safety_margin {} = {}",
      format_duration(rule.max_job_duration), rule.basis, format_duration(rule.heartbeat_interval),
      format_duration(rule.safety_margin), format_duration(rule.grace()));
  if (r != nullptr && r->grace != kNever) {
    const Duration diff = rule.grace() - r->grace;
    if (diff > 0) {
      out += fmt::format("; drainsim's answer is {} shorter", format_duration(diff));
    } else if (diff < 0) {
      out += fmt::format("; drainsim's answer is {} longer", format_duration(-diff));
    } else {
      out += "; the same as drainsim's answer";
    }
  }
  out += '\n';
  for (const std::string& w : t.warnings) out += fmt::format("warning: {}\n", w);
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
                {"termination_grace_period_s", seconds_of(s.platform_grace)},
                {"meets_targets", s.meets()},
                {"misses", s.misses},
                {"metrics", metrics},
                {"audit_failures", [&] {
                   json failures = json::array();
                   for (const CompareRun& r : s.runs) {
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
         {"pre_stop_s", seconds_of(pre_stop_time(s.pre_stop))},
         {"recommended_grace_period_s",
          s.recommended ? grace_seconds(s.evaluated[*s.recommended].grace) : json(nullptr)},
         {"settings", settings}});
  }
  json recommended = nullptr;
  if (const TuneSetting* r = t.recommended()) {
    const PreStop& p = t.searches[*t.best].pre_stop;
    json metrics = setting_json(*r)["metrics"];
    recommended = {{"grace_period", grace_text(r->grace)},
                   {"grace_period_s", grace_seconds(r->grace)},
                   {"termination_grace_period_s", seconds_of(r->platform_grace)},
                   {"platform_grace", t.platform_grace == PlatformGrace::kPaired     ? "paired"
                                      : t.platform_grace == PlatformGrace::kSearched ? "searched"
                                                                                     : "scenario"},
                   {"pre_stop", pre_stop_json(p)},
                   {"pre_stop_s", seconds_of(pre_stop_time(p))},
                   {"metrics", metrics}};
  }
  const TuneTargets& tg = t.targets;
  return {{"drainsim_version", DRAINSIM_VERSION},
          {"engine", "virtual"},
          {"scenario", t.scenario},
          {"overrides", t.overrides},
          {"seeds", t.seeds},
          {"targets",
           {{"max_job_loss", tg.max_job_loss ? json(*tg.max_job_loss) : json(nullptr)},
            {"max_interrupted", tg.max_interrupted ? json(*tg.max_interrupted) : json(nullptr)},
            {"max_deploy_duration_s",
             tg.max_deploy_duration ? json(seconds_of(*tg.max_deploy_duration)) : json(nullptr)}}},
          {"recommended", recommended},
          {"spec_rule",
           {{"max_job_duration_s", seconds_of(t.rule.max_job_duration)},
            {"max_job_duration_basis", t.rule.basis},
            {"heartbeat_interval_s", seconds_of(t.rule.heartbeat_interval)},
            {"safety_margin_s", seconds_of(t.rule.safety_margin)},
            {"grace_period_s", seconds_of(t.rule.grace())}}},
          {"warnings", t.warnings},
          {"current",
           [&] {
             json j = setting_json(t.current);
             j["pre_stop"] = pre_stop_json(t.base.platform.pre_stop);
             return j;
           }()},
          {"searches", searches},
          {"snippet", settings_snippet(t)}};
}

std::string settings_snippet(const Tune& t) {
  const TuneSetting* r = t.recommended();
  if (r == nullptr) return {};
  const PreStop& p = t.searches[*t.best].pre_stop;
  const std::string grace = grace_text(r->grace);
  std::string out;
  const bool ojs = t.base.worker.profile.starts_with("ojs");
  if (!kubernetes(t.base)) {
    out += "# docker-compose.yml, service of the worker\n";
    out += "services:\n  worker:\n";
    out += fmt::format("    stop_grace_period: {}\n", format_duration(r->platform_grace));
    out += fmt::format("    environment:\n      OJS_SHUTDOWN_GRACE_PERIOD: \"{}\"\n", grace);
  } else {
    out += "# Kubernetes: the worker's pod template (Deployment .spec.template)\n";
    out += "spec:\n";
    out += fmt::format("  terminationGracePeriodSeconds: {}\n", whole_seconds(r->platform_grace));
    out += "  containers:\n    - name: worker\n";
    out += fmt::format(
        "      env:\n        - name: OJS_SHUTDOWN_GRACE_PERIOD\n          value: \"{}\"\n", grace);
    const std::int64_t wait = whole_seconds(p.duration);
    switch (p.kind) {
      case PreStop::Kind::kNone:
        break;
      case PreStop::Kind::kSleep:
        out += fmt::format(
            "      lifecycle:\n        preStop:\n          exec:\n            command: [\"sleep\", "
            "\"{}\"]\n",
            wait);
        break;
      case PreStop::Kind::kQuietThenSleep:
        out += fmt::format(
            "      lifecycle:\n        preStop:\n          exec:\n            command: [\"sh\", "
            "\"-c\", \"kill -TSTP 1 && sleep {}\"]\n",
            wait);
        break;
      case PreStop::Kind::kQuietThenWait:
        out += fmt::format(
            "      # keep your quiet-then-wait preStop script (TSTP, then poll until idle; "
            "timeout {})\n",
            format_duration(p.timeout));
        break;
    }
  }
  if (!ojs) {
    out += fmt::format(
        "# worker.profile is {}: give its own shutdown timeout the value {} "
        "(OJS_SHUTDOWN_GRACE_PERIOD is the OJS SDKs' name)\n",
        t.base.worker.profile, grace);
  }
  return out;
}

}  // namespace drainsim
