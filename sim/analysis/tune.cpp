#include "analysis/tune.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/seed_schedule.h"
#include "analysis/sweep.h"
#include "analysis/text_table.h"
#include "base/parse.h"
#include "io/scenario_reader.h"
#include "io/scenario_writer.h"
#include "io/stats_json.h"
#include "model/metrics.h"

namespace drainsim {

namespace {

using nlohmann::json;

// Standard normal quantiles.
constexpr double kZ99 = 2.3263478740408408;
constexpr double kZ999 = 3.0902323061678132;

// About this many settings on the first pass over the grid.
constexpr std::size_t kFirstPassSettings = 16;

const char* platform_grace_field(const Scenario& s) {
  return s.platform.kubernetes() ? "platform.termination_grace_period"
                                 : "platform.stop_grace_period";
}

double mean_or(const TuneSetting& s, std::string_view key, double fallback) {
  const auto it = s.metrics.find(std::string(key));
  return it == s.metrics.end() || it->second.n == 0 ? fallback : it->second.mean;
}
double mean_or(const TuneSetting& s, const Metric& m, double fallback) {
  return mean_or(s, m.name, fallback);
}

// The upper end of the metric's 95 % interval over the seeds.
double upper_or(const TuneSetting& s, std::string_view key, double fallback) {
  const auto it = s.metrics.find(std::string(key));
  return it == s.metrics.end() || it->second.n == 0 ? fallback : it->second.high;
}

// "a > b" with enough significant digits (3 at least) that the two never read alike;
// seconds as durations ("10m12.5s" reads "612.5s", format_seconds) while they differ.
std::string exceeds(double a, double b, double scale, std::string_view unit) {
  if (unit == "s" && format_seconds(a * scale) != format_seconds(b * scale)) {
    return format_seconds(a * scale) + " > " + format_seconds(b * scale);
  }
  for (int digits = 3; digits <= 17; ++digits) {
    std::string x = fmt::format("{:.{}g}{}", a * scale, digits, unit);
    std::string y = fmt::format("{:.{}g}{}", b * scale, digits, unit);
    if (x != y) return x + " > " + y;
  }
  return fmt::format("{}{} > {}{}", a * scale, unit, b * scale, unit);
}

// What a miss reads like: the upper end against the target, the mean beside it.
// `at_least`: a setting the sequential test stopped, `upper` the least upper end its
// remaining seeds could give ("job_loss ≥0.102 > 0 (mean 1)").
std::string miss(const char* what, double upper, double mean, double target, double scale,
                 std::string_view unit, bool at_least = false) {
  const std::string m =
      unit == "s" ? format_seconds(mean * scale) : fmt::format("{:.3g}{}", mean * scale, unit);
  return fmt::format("{} {}{} (mean {})", what, at_least ? "≥" : "",
                     exceeds(upper, target, scale, unit), m);
}

// The least upper end of the 95 % interval of `key` that all `n` seeds could give, from
// the runs so far and whatever the rest give (every metric judged is >= 0); nullopt when
// some run has no value for it.
std::optional<double> least_upper(const std::vector<SweepRunResult>& runs, const std::string& key,
                                  std::size_t n) {
  std::vector<double> values;
  for (const SweepRunResult& r : runs) {
    const auto it = r.metrics.find(key);
    if (it == r.metrics.end() || !it->second) return std::nullopt;
    values.push_back(*it->second);
  }
  return least_student_t_95_high(values, n);
}

// Beyond the target by more than the rounding of the arithmetic: a miss the full evaluation
// cannot avoid.
bool surely_above(double least, double target) {
  return least > target && least - target > 1e-9 * std::max(std::abs(least), std::abs(target));
}

// A quality target the sequential test checks: the summary metric, the target, and how a
// miss reads.
struct QualityTarget {
  const char* key;
  const char* what;
  double target, scale;
  std::string_view unit;
};

// The judged figures of a run when the targets are judged on some causes only: the job
// loss and the interrupted share those causes gave.
constexpr const char* kJudgedLoss = "judged.job_loss";
constexpr const char* kJudgedInterrupted = "judged.interrupted_fraction";

bool judged(TuneCauses causes, CauseClass c) {
  switch (causes) {
    case TuneCauses::kChangeable:
      return grace_can_change(c);
    case TuneCauses::kDeploys:
      return c == CauseClass::kDeploys;
    case TuneCauses::kAll:
      break;
  }
  return true;
}

void add_judged(TuneCauses causes, SweepRunResult& r) {
  const auto get = [&](const std::string& key) {
    const auto it = r.metrics.find(key);
    return it == r.metrics.end() || !it->second ? 0.0 : *it->second;
  };
  double loss = 0, interrupted = 0;
  for (std::size_t i = 0; i < kCauseClasses; ++i) {
    const auto c = static_cast<CauseClass>(i);
    if (!judged(causes, c)) continue;
    loss += get(fmt::format("job_loss_by_cause.{}", name_of(c)));
    interrupted += get(fmt::format("interrupted_by_cause.{}", name_of(c)));
  }
  const double enqueued = get("jobs_enqueued");
  r.metrics[kJudgedLoss] = loss;
  r.metrics[kJudgedInterrupted] = enqueued > 0 ? interrupted / enqueued : 0.0;
}

std::vector<QualityTarget> quality_targets(const TuneTargets& t, TuneCauses causes) {
  const bool all = causes == TuneCauses::kAll;
  std::vector<QualityTarget> out;
  if (t.max_job_loss) {
    out.push_back({all ? "job_loss" : kJudgedLoss, "job_loss", *t.max_job_loss, 1, ""});
  }
  if (t.max_interrupted) {
    out.push_back({all ? "interrupted_fraction" : kJudgedInterrupted, "interrupted",
                   *t.max_interrupted, 100, "%"});
  }
  return out;
}

class Searcher {
 public:
  // Searches `knob` on spec.timeout_grid (a preStop timeout) or spec.grid (the others).
  Searcher(const TuneSpec& spec, const Scenario& base, TuneKnob knob,
           const std::vector<std::uint64_t>& seeds)
      : spec_(spec),
        base_(base),
        knob_(knob),
        grid_(knob == TuneKnob::kPreStopTimeout ? spec.timeout_grid : spec.grid),
        seeds_(seeds),
        quality_(quality_targets(spec.targets, spec.causes)) {}

  // With `current`, the scenario's own setting is evaluated with the first pass and put
  // there.
  TuneSearch search(const PreStop& pre_stop, bool override_pre_stop,
                    TuneSetting* current = nullptr) {
    TuneSearch out;
    out.pre_stop = pre_stop;
    pre_stop_ = pre_stop_time(pre_stop);
    std::map<std::size_t, TuneSetting> done;  // by grid index
    const auto at = [&](std::size_t i) -> const TuneSetting& {
      auto it = done.find(i);
      if (it == done.end()) {
        it = done.emplace(
                     i,
                     std::move(evaluate({prepare(pre_stop, override_pre_stop, grid_[i])}).front()))
                 .first;
      }
      return it->second;
    };
    const std::size_t n = grid_.size();
    const std::size_t stride =
        std::max<std::size_t>(1, (n - 1 + kFirstPassSettings - 1) / kFirstPassSettings);
    std::vector<std::size_t> first_pass;
    for (std::size_t i = 0; i < n; i += stride) first_pass.push_back(i);
    if (first_pass.back() != n - 1) first_pass.push_back(n - 1);
    // The smallest first-pass setting from which on all meet the quality targets (every
    // one is run: the trade-off table shows what smaller graces cost). The first pass runs
    // as one schedule, so that the settings share the threads.
    {
      std::vector<Pending> batch;
      for (std::size_t i : first_pass)
        batch.push_back(prepare(pre_stop, override_pre_stop, grid_[i]));
      if (current)
        batch.push_back(prepare(base_.platform.pre_stop, false, base_.worker.grace_period, true));
      std::vector<TuneSetting> settings = evaluate(std::move(batch));
      for (std::size_t k = 0; k < first_pass.size(); ++k) {
        done.emplace(first_pass[k], std::move(settings[k]));
      }
      if (current) *current = std::move(settings.back());
    }
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

  std::size_t runs_done() const { return runs_done_; }

 private:
  // A setting to run: what it sets, and the overrides that set it.
  struct Pending {
    TuneSetting setting;
    std::vector<std::string> overrides;
  };

  // `value` is the grid's: a worker grace, a platform grace or a preStop timeout (knob).
  Pending prepare(const PreStop& asked, bool override_pre_stop, Duration value,
                  bool own = false) const {
    const TuneKnob k = own ? TuneKnob::kWorkerGrace : knob_;
    PreStop pre_stop = asked;
    if (k == TuneKnob::kPreStopTimeout) {
      pre_stop.timeout = value;
      override_pre_stop = true;
    }
    Pending p;
    p.overrides = spec_.overrides;
    if (override_pre_stop) {
      p.overrides.push_back("platform.pre_stop=" + pre_stop_json(pre_stop).dump());
    }
    const PlatformGrace mode = own ? PlatformGrace::kScenario : spec_.platform_grace;
    TuneSetting& s = p.setting;
    s.grace = k == TuneKnob::kWorkerGrace ? value : base_.worker.grace_period;
    s.pre_stop_timeout = k == TuneKnob::kPreStopTimeout ? value : 0;
    // A grace of "forever" pairs as none: quiet_then_wait SIGKILLs at its timeout anyway.
    const Duration paired_grace = s.grace == kNever ? 0 : s.grace;
    s.platform_grace = mode == PlatformGrace::kPaired
                           ? pre_stop_time(pre_stop) + paired_grace + spec_.margin
                       : mode == PlatformGrace::kSearched ? value
                                                          : base_.platform.grace_period();
    p.overrides.push_back("worker.grace_period=" + format_grace(s.grace));
    p.overrides.push_back(std::string(platform_grace_field(base_)) + "=" +
                          format_duration(s.platform_grace));
    return p;
  }

  // Runs the settings over the seeds, each stopped by the sequential test (docs/tune.md):
  // once no remaining seeds could bring the upper end of a quality target's interval over
  // all the seeds down to the target, the full evaluation would miss it too.
  std::vector<TuneSetting> evaluate(std::vector<Pending> batch) {
    SeedScheduleSpec schedule;
    for (const Pending& p : batch) {
      schedule.settings.push_back(load_scenario_file(spec_.scenario, p.overrides));
    }
    schedule.seeds = seeds_;
    schedule.threads = spec_.threads;
    if (spec_.causes != TuneCauses::kAll) {
      schedule.derive = [causes = spec_.causes](SweepRunResult& r) { add_judged(causes, r); };
    }
    if (spec_.sequential) {
      schedule.stop = [&](std::size_t, const std::vector<SweepRunResult>& runs) {
        for (const QualityTarget& q : quality_) {
          const std::optional<double> least = least_upper(runs, q.key, seeds_.size());
          if (least && surely_above(*least, q.target)) return true;
        }
        return false;
      };
    }
    if (spec_.progress) {
      schedule.progress = [&](std::size_t runs) {
        spec_.progress(pre_stop_, settings_done_, runs_done_ + runs);
      };
    }
    SeedSchedule done = run_seed_schedule(schedule);
    runs_done_ += done.runs_done;
    settings_done_ += batch.size();
    std::vector<TuneSetting> out;
    for (std::size_t i = 0; i < batch.size(); ++i) {
      out.push_back(judge(std::move(batch[i].setting), done.runs[i]));
    }
    return out;
  }

  TuneSetting judge(TuneSetting s, const std::vector<SweepRunResult>& runs) const {
    std::vector<const SweepRunResult*> kept;
    for (const SweepRunResult& r : runs) kept.push_back(&r);
    SweepPoint point = sweep_point(kept);
    s.metrics = std::move(point.metrics);
    s.runs = std::move(point.runs);
    if (runs.size() < seeds_.size()) {
      // Stopped by the sequential test: the least upper end any remaining seeds could give.
      for (const QualityTarget& q : quality_) {
        const std::optional<double> least = least_upper(runs, q.key, seeds_.size());
        if (least && surely_above(*least, q.target)) {
          s.misses.push_back(
              miss(q.what, *least, mean_or(s, q.key, 0), q.target, q.scale, q.unit, true));
        }
      }
      return s;
    }
    // Judged by the upper end of each 95 % interval: a setting meets a target only when
    // the noise over the seeds cannot hide a miss.
    const TuneTargets& t = spec_.targets;
    const Metric& deploy = metric("deploy_duration_s.max");
    for (const QualityTarget& q : quality_) {
      if (upper_or(s, q.key, 0) > q.target) {
        s.misses.push_back(
            miss(q.what, upper_or(s, q.key, 0), mean_or(s, q.key, 0), q.target, q.scale, q.unit));
      }
    }
    s.meets_quality = s.misses.empty();
    if (t.max_deploy_duration && upper_or(s, deploy.name, 0) > to_seconds(*t.max_deploy_duration)) {
      s.misses.push_back(miss("deploy", upper_or(s, deploy.name, 0), mean_or(s, deploy, 0),
                              to_seconds(*t.max_deploy_duration), 1, "s"));
    }
    return s;
  }

  const TuneSpec& spec_;
  const Scenario& base_;
  const TuneKnob knob_;
  const std::vector<Duration>& grid_;
  const std::vector<std::uint64_t>& seeds_;
  const std::vector<QualityTarget> quality_;
  Duration pre_stop_ = 0;  // the search's, for progress reports
  std::size_t settings_done_ = 0, runs_done_ = 0;
};

// A quantile worked out in floating point, in whole seconds (rounded up).
Duration whole_seconds_up(double seconds) {
  return static_cast<Duration>(std::ceil(seconds - 1e-9)) * kSecond;
}

Warning note(std::string code, std::string message) {
  return {std::move(code), std::move(message), {}};
}

// What keeps the jobs a process holds through a kill, for the profiles that lose them.
std::string keeps_through_kills(const Scenario& s) {
  if (s.worker.profile == "sidekiq") return "reliable fetch (sidekiq-pro) would keep them";
  if (s.worker.profile == "celery") {
    return "acks_late with reject_on_worker_lost would keep them";
  }
  return "";
}

// The causes the judgement left out, by what they cost on the largest setting of the
// first search (no grace changes them, or --causes left them out).
// `beyond`: set to whether what they cost alone breaks a job-loss or interrupted target.
std::vector<std::string> left_out(const Tune& t, TuneCauses causes, bool* beyond = nullptr) {
  std::vector<std::string> out;
  if (causes == TuneCauses::kAll || t.searches.empty() || t.searches.front().evaluated.empty()) {
    return out;
  }
  double all_loss = 0, all_interrupted = 0;
  const TuneSetting& high = t.searches.front().evaluated.back();
  for (std::size_t i = 0; i < kCauseClasses; ++i) {
    const auto c = static_cast<CauseClass>(i);
    if (judged(causes, c)) continue;
    const double loss = mean_or(high, fmt::format("job_loss_by_cause.{}", name_of(c)), 0);
    const double enqueued = mean_or(high, "jobs_enqueued", 0);
    const double interrupted =
        enqueued > 0
            ? mean_or(high, fmt::format("interrupted_by_cause.{}", name_of(c)), 0) / enqueued
            : 0;
    all_loss += loss;
    all_interrupted += interrupted;
    const bool shows_loss = t.targets.max_job_loss && loss > 0;
    const bool shows_interrupted = t.targets.max_interrupted && interrupted > 0;
    if (!shows_loss && !shows_interrupted) continue;
    std::string cost;
    if (shows_loss) cost = fmt::format("lose {:.3g} jobs a run", loss);
    if (shows_interrupted) {
      cost += fmt::format("{}interrupt {} of the jobs", cost.empty() ? "" : " and ",
                          percent_text(interrupted));
    }
    const bool changeable = grace_can_change(c);
    std::string line;
    switch (c) {
      case CauseClass::kOomKills: {
        line = fmt::format("OOM kills {} whatever the grace", cost);
        const std::string keep = keeps_through_kills(t.base);
        if (shows_loss && !keep.empty()) line += "; " + keep;
        break;
      }
      case CauseClass::kSignals:
        line = fmt::format("the scenario's signal events {} whatever the grace", cost);
        break;
      case CauseClass::kNone:
        line = fmt::format("jobs with no event behind them (a crash, a lease run out) {}", cost);
        break;
      default:
        line = fmt::format("{} {}", name_of(c), cost);
        break;
    }
    if (changeable) line += " (not judged: --causes deploys)";
    out.push_back(line);
  }
  if (beyond) {
    *beyond = (t.targets.max_job_loss && all_loss > *t.targets.max_job_loss) ||
              (t.targets.max_interrupted && all_interrupted > *t.targets.max_interrupted);
  }
  return out;
}

// Why no setting met the targets, in one line, from the first search (the scenario's own
// preStop, or the first asked); "" when some search met the quality targets and only the
// deploy target was missed (the table says so).
std::string why_none(const Tune& t) {
  for (const TuneSearch& s : t.searches) {
    if (s.least_quality) return "";
  }
  const TuneSearch& s = t.searches.front();
  const TuneSetting& low = s.evaluated.front();
  const TuneSetting& high = s.evaluated.back();
  const bool all = t.causes == TuneCauses::kAll;
  const char* loss = all ? "job_loss" : kJudgedLoss;
  const char* interrupted = all ? "interrupted_fraction" : kJudgedInterrupted;
  const auto same = [&](const char* m) {
    return mean_or(low, std::string_view(m), 0) == mean_or(high, std::string_view(m), 0);
  };
  const double killed = mean_or(high, metric("attempts.killed"), 0);
  const double oom = mean_or(high, metric("exits.oom_killed"), 0);
  const char* what = t.knob == TuneKnob::kPreStopTimeout  ? "preStop timeout"
                     : t.knob == TuneKnob::kPlatformGrace ? "platform grace"
                                                          : "worker grace";
  const Duration top = t.knob == TuneKnob::kPreStopTimeout  ? high.pre_stop_timeout
                       : t.knob == TuneKnob::kPlatformGrace ? high.platform_grace
                                                            : high.grace;
  if (s.pre_stop.kind == PreStop::Kind::kQuietThenWait && t.knob != TuneKnob::kPreStopTimeout &&
      killed > 0 && mean_or(high, metric("exits.killed_by_signal"), 0) > 0) {
    return fmt::format(
        "{:.3g} jobs per run are SIGKILLed by the preStop's {} timeout; no {} changes that "
        "(without --platform-grace search, tune searches that timeout)",
        killed, format_duration(s.pre_stop.timeout), what);
  }
  if (all) {
    bool beyond = false;
    const std::vector<std::string> lines = left_out(t, TuneCauses::kChangeable, &beyond);
    if (beyond) {
      return fmt::format(
          "{}: with them counted (--causes all) no {} meets the targets; without --causes "
          "all, tune judges what the {} can change",
          fmt::join(lines, "; "), what, what);
    }
  }
  if (same(loss) && same(interrupted) && s.evaluated.size() > 1) {
    if (oom > 0 && all) {
      return fmt::format(
          "{:.3g} workers per run are OOM-killed by the scenario's events, taking their jobs; "
          "no {} changes that",
          oom, what);
    }
    return fmt::format(
        "every {} on the grid gives the same job loss ({:.3g}) and interrupted ({}): what "
        "interrupts the jobs is not the {}",
        what, mean_or(high, std::string_view(loss), 0),
        percent_text(mean_or(high, std::string_view(interrupted), 0)), what);
  }
  return fmt::format("the largest {} on the grid ({}) still misses ({}): widen the range", what,
                     format_grace(top), fmt::join(high.misses, "; "));
}

}  // namespace

std::optional<double> parse_fraction(std::string_view text) {
  const bool pct = !text.empty() && text.back() == '%';
  if (pct) text.remove_suffix(1);
  std::optional<double> v = parse_number<double>(text);
  if (!v) return std::nullopt;
  if (pct) *v /= 100;
  if (*v < 0 || *v > 1) return std::nullopt;
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
    for (const SeedRun& r : s->runs) {
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
  t.causes = spec.causes;
  t.platform_grace = spec.platform_grace;
  t.margin = spec.margin;
  t.rule = spec_rule(t.base, spec.safety_margin);
  const std::uint64_t first = spec.first_seed.value_or(t.base.seed);
  for (std::size_t i = 0; i < spec.seeds; ++i) t.seeds.push_back(first + i);

  const PreStop& own = t.base.platform.pre_stop;
  std::vector<PreStop> pre_stops;
  if (spec.pre_stops.empty()) {
    pre_stops.push_back(own);
  } else if (!t.base.platform.kubernetes()) {
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

  // quiet_then_wait ends at idle or SIGKILLs the worker at its timeout, before any TERM
  // could start a drain: the timeout decides, not the worker's grace.
  if (spec.pre_stops.empty() && own.kind == PreStop::Kind::kQuietThenWait &&
      t.base.platform.kubernetes() && spec.platform_grace != PlatformGrace::kSearched) {
    t.knob = TuneKnob::kPreStopTimeout;
  } else if (spec.platform_grace == PlatformGrace::kSearched) {
    t.knob = TuneKnob::kPlatformGrace;
  }
  Searcher searcher(spec, t.base, t.knob, t.seeds);
  for (const PreStop& p : pre_stops) {
    // The scenario's own setting runs with the first search's first pass.
    t.searches.push_back(
        searcher.search(p, !spec.pre_stops.empty(), t.searches.empty() ? &t.current : nullptr));
    const TuneSearch& s = t.searches.back();
    if (!s.recommended) continue;
    const auto cost = [&](std::size_t i) {
      const TuneSetting& r = t.searches[i].evaluated[*t.searches[i].recommended];
      return t.knob == TuneKnob::kWorkerGrace ? pre_stop_time(t.searches[i].pre_stop) + r.grace
                                              : r.platform_grace;
    };
    if (!t.best || cost(t.searches.size() - 1) < cost(*t.best)) t.best = t.searches.size() - 1;
  }

  // The scenario's own settings against spec §6.3.
  const Duration own_grace = t.base.worker.grace_period;
  const Duration own_platform = t.base.platform.grace_period();
  if (own.kind == PreStop::Kind::kQuietThenWait && t.base.platform.kubernetes() &&
      own_platform <= own.timeout) {
    t.warnings.push_back(
        note("platform_grace_short",
             fmt::format("the scenario's terminationGracePeriodSeconds ({}) is at or below its "
                         "quiet_then_wait preStop's timeout ({}): the kubelet SIGKILLs the worker "
                         "while the hook still waits",
                         format_duration(own_platform), format_duration(own.timeout))));
  } else if (own.kind != PreStop::Kind::kQuietThenWait && own_grace != kNever &&
             own_platform <= pre_stop_time(own) + own_grace) {
    t.warnings.push_back(note(
        "platform_grace_short",
        fmt::format(
            "the scenario's {} ({}) is at or below its worker grace_period ({}){}: the platform "
            "SIGKILLs the worker before its grace period ends (spec §6.3: the worker's grace must "
            "be less than the platform's)",
            t.base.platform.kubernetes() ? "terminationGracePeriodSeconds" : "stop_grace_period",
            format_duration(own_platform), format_duration(own_grace),
            pre_stop_time(own)
                ? fmt::format(" plus preStop ({})", format_duration(pre_stop_time(own)))
                : "")));
  }
  if (const TuneSetting* r = t.recommended();
      r && t.platform_grace != PlatformGrace::kPaired && r->grace != kNever &&
      r->platform_grace <= pre_stop_time(t.searches[*t.best].pre_stop) + r->grace) {
    t.warnings.push_back(note(
        "platform_ends_drain",
        fmt::format("with platform grace {} the platform, not the worker's grace ({}), ends the "
                    "drain (spec §6.3)",
                    format_duration(r->platform_grace), format_duration(r->grace))));
  }
  if (spec.targets.max_deploy_duration) {
    for (const TuneSearch& s : t.searches) {
      if (!s.evaluated.empty() &&
          mean_or(s.evaluated.front(), metric("deploy_duration_s.max"), -1) < 0) {
        t.warnings.push_back(
            note("no_rollout",
                 "the scenario has no rollout, so --max-deploy-duration constrains nothing"));
        break;
      }
    }
  }
  t.runs_done = searcher.runs_done();
  std::vector<SeedRun> runs;
  for (const TuneSetting* e : t.settings()) runs.insert(runs.end(), e->runs.begin(), e->runs.end());
  t.run_warnings = tally_warnings(runs);
  t.left_out = left_out(t, t.causes);
  const bool acted_on = std::any_of(t.base.events.begin(), t.base.events.end(), [&](const auto& e) {
    const CauseClass c = cause_class(e.kind);
    return c != CauseClass::kNone && judged(t.causes, c);
  });
  if (!acted_on) {
    // Nothing the judged causes could cost: a grace picked on them would mean nothing.
    t.best.reset();
    for (TuneSearch& s : t.searches) s.recommended.reset();
    t.why_none = fmt::format("the scenario has no {} for a grace to act on",
                             t.causes == TuneCauses::kDeploys
                                 ? "rolling restart"
                                 : "rolling restart, scale-down, node drain or pod deletion");
  } else if (!t.best) {
    t.why_none = why_none(t);
  }
  return t;
}

}  // namespace drainsim
