#include "analysis/sweep.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <boost/algorithm/string/trim.hpp>

#include "base/duration.h"
#include "base/input_file.h"
#include "base/parse.h"
#include "io/results.h"
#include "io/scenario_reader.h"
#include "model/metrics.h"
#include "run/run_scenario.h"

namespace drainsim {

namespace {

using nlohmann::json;

// More values than this on one axis is surely a typo in the step.
constexpr std::size_t kMaxAxisValues = 100000;

// A duration, negative ones included (so that a negative step is reported as such).
std::optional<Duration> parse_signed_duration(std::string_view s) {
  if (!s.empty() && s.front() == '-') {
    const auto d = parse_duration(s.substr(1));
    if (!d) return std::nullopt;
    return -*d;
  }
  return parse_duration(s);
}

AxisParse fail(std::string_view spec, std::string_view why) {
  const std::string shown =
      spec.size() > 80 ? std::string(spec.substr(0, 77)) + "..." : std::string(spec);
  return {std::nullopt, fmt::format("--grid {}: {}", shown, why)};
}

// START..END/STEP into `axis` (path already set); an error message otherwise.
std::string parse_range(std::string_view range, SweepAxis& axis) {
  const std::size_t dots = range.find("..");
  const std::size_t slash = range.find('/', dots);
  if (slash == std::string_view::npos) {
    return "a range needs a step: START..END/STEP, e.g. 5s..120s/5s";
  }
  const std::string_view start = boost::algorithm::trim_copy(range.substr(0, dots));
  const std::string_view end =
      boost::algorithm::trim_copy(range.substr(dots + 2, slash - dots - 2));
  const std::string_view step = boost::algorithm::trim_copy(range.substr(slash + 1));
  if (start.empty() || end.empty() || step.empty() || end.find("..") != std::string_view::npos ||
      step.find('/') != std::string_view::npos) {
    return "expected a range START..END/STEP, e.g. 5s..120s/5s or 1..10/1";
  }
  const auto add = [&](json value, const std::string& text) {
    axis.values.push_back(std::move(value));
    axis.overrides.push_back(axis.path + "=" + text);
  };
  const auto i0 = parse_number<std::int64_t>(start), i1 = parse_number<std::int64_t>(end),
             is = parse_number<std::int64_t>(step);
  const auto f0 = parse_number<double>(start), f1 = parse_number<double>(end),
             fs = parse_number<double>(step);
  const auto d0 = parse_signed_duration(start), d1 = parse_signed_duration(end),
             ds = parse_signed_duration(step);
  if (i0 && i1 && is) {
    if (*is <= 0) return fmt::format("the step {} is not positive", step);
    if (*i1 < *i0) return fmt::format("the range goes backwards ({} > {})", start, end);
    if ((*i1 - *i0) / *is >= static_cast<std::int64_t>(kMaxAxisValues)) {
      return fmt::format("more than {} values", kMaxAxisValues);
    }
    for (std::int64_t v = *i0; v <= *i1; v += *is) add(v, std::to_string(v));
  } else if (f0 && f1 && fs) {
    if (!(*fs > 0)) return fmt::format("the step {} is not positive", step);
    if (*f1 < *f0) return fmt::format("the range goes backwards ({} > {})", start, end);
    // A step that lands on END within rounding counts as landing on it.
    const double steps = std::floor((*f1 - *f0) / *fs + 1e-9);
    if (steps >= static_cast<double>(kMaxAxisValues)) {
      return fmt::format("more than {} values", kMaxAxisValues);
    }
    for (double k = 0; k <= steps; ++k) {
      // 12 significant digits hide the rounding of start + k * step (0.30000000000000004).
      const double v = *parse_number<double>(fmt::format("{:.12g}", *f0 + k * *fs));
      add(v, json(v).dump());
    }
  } else if (d0 && d1 && ds) {
    if (*ds <= 0) return fmt::format("the step {} is not positive", step);
    if (*d0 < 0) return fmt::format("the start {} is negative", start);
    if (*d1 < *d0) return fmt::format("the range goes backwards ({} > {})", start, end);
    if ((*d1 - *d0) / *ds >= static_cast<Duration>(kMaxAxisValues)) {
      return fmt::format("more than {} values", kMaxAxisValues);
    }
    for (Duration v = *d0; v <= *d1; v += *ds) add(format_duration(v), format_duration(v));
  } else {
    return "START, END and STEP must be all durations (5s..120s/5s) or all numbers (1..10/1)";
  }
  return {};
}

// Point p's value index on each axis: the digits of p in the mixed radix of the axes'
// sizes, the first axis the most significant.
std::vector<std::size_t> grid_digits(const std::vector<SweepAxis>& axes, std::size_t p) {
  std::vector<std::size_t> digits(axes.size());
  for (std::size_t a = axes.size(); a-- > 0;) {
    digits[a] = p % axes[a].values.size();
    p /= axes[a].values.size();
  }
  return digits;
}

}  // namespace

AxisParse parse_axis(std::string_view spec) {
  const std::size_t eq = spec.find('=');
  if (eq == std::string_view::npos) {
    return fail(spec, "expected PATH=START..END/STEP or PATH=V1,V2,...");
  }
  SweepAxis axis;
  axis.spec = std::string(spec);
  axis.path = std::string(boost::algorithm::trim_copy(spec.substr(0, eq)));
  if (axis.path.empty()) return fail(spec, "no field path before '='");
  const std::string_view rhs = boost::algorithm::trim_copy(spec.substr(eq + 1));
  if (rhs.empty()) return fail(spec, "an empty list of values");
  if (rhs.find("..") != std::string_view::npos) {
    if (rhs.find(',') != std::string_view::npos) {
      return fail(spec, "mixes a range (START..END/STEP) and a list (V1,V2,...)");
    }
    if (const std::string error = parse_range(rhs, axis); !error.empty()) {
      return fail(spec, error);
    }
    return {std::move(axis), {}};
  }
  for (std::string_view rest = rhs;;) {
    const std::size_t comma = rest.find(',');
    const std::string_view text = boost::algorithm::trim_copy(rest.substr(0, comma));
    if (text.empty()) return fail(spec, "an empty value in the list");
    ParsedJson parsed = try_parse_json(text);
    if (parsed.too_deep) return fail(spec, parsed.error);
    json value = parsed.value ? std::move(*parsed.value) : json(std::string(text));
    axis.values.push_back(std::move(value));
    axis.overrides.push_back(axis.path + "=" + std::string(text));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return {std::move(axis), {}};
}

bool Sweep::audits_ok() const {
  for (const SweepPoint& p : points) {
    for (const SeedRun& r : p.runs) {
      if (!r.audit_ok) return false;
    }
  }
  return true;
}

ShardParse parse_shard(std::string_view text) {
  const auto fail_shard = [&](std::string_view why) {
    return ShardParse{std::nullopt, fmt::format("--shard {}: {}", text, why)};
  };
  const std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) {
    return fail_shard("expected I/N, e.g. 3/16 (I from 0 to N-1)");
  }
  const auto i = parse_number<std::size_t>(text.substr(0, slash));
  const auto n = parse_number<std::size_t>(text.substr(slash + 1));
  if (!i || !n) return fail_shard("expected I/N with whole numbers, e.g. 3/16 (I from 0 to N-1)");
  if (*n == 0) return fail_shard("N must be at least 1");
  if (*i >= *n) {
    return fail_shard(fmt::format("I must be from 0 to {} (shards are numbered from 0)", *n - 1));
  }
  return {SweepShard{*i, *n}, {}};
}

std::size_t SweepPart::grid_points() const {
  std::size_t n = 1;
  for (const SweepAxis& axis : axes) n *= axis.values.size();
  return n;
}

std::vector<json> SweepPart::point_values(std::size_t p) const {
  std::vector<json> values;
  const std::vector<std::size_t> digits = grid_digits(axes, p);
  for (std::size_t a = 0; a < axes.size(); ++a) values.push_back(axes[a].values[digits[a]]);
  return values;
}

std::size_t SweepPart::tasks() const { return grid_points() * seeds.size(); }

std::size_t SweepPart::slice_size() const {
  const std::size_t total = tasks();
  return total / shard.count + (shard.index < total % shard.count ? 1 : 0);
}

SweepPart run_sweep_part(const SweepSpec& spec, SweepShard shard) {
  SweepPart out;
  out.drainsim_version = DRAINSIM_VERSION;
  out.scenario_file = spec.scenario;
  out.overrides = spec.overrides;
  out.axes = spec.axes;
  out.shard = shard;

  // The file is read once, so that its hash is of the bytes every run used.
  const std::string text = read_input_file(spec.scenario, kMaxScenarioBytes, "a scenario file");
  out.scenario_hash = fnv1a64_hex(text);
  const auto load = [&](const std::vector<std::string>& overrides) {
    return parse_scenario(text, spec.scenario, overrides);
  };

  // Every axis value on its own first, so that a bad one is reported before any run.
  std::set<std::string> paths;
  for (const SweepAxis& axis : spec.axes) {
    if (!paths.insert(axis.path).second) {
      throw ScenarioError(
          fmt::format("--grid {}: the field {} has another --grid axis", axis.spec, axis.path));
    }
    std::set<std::string> seen;
    for (const std::string& o : axis.overrides) {
      if (!seen.insert(o).second) continue;
      std::vector<std::string> overrides = spec.overrides;
      overrides.push_back(o);
      try {
        (void)load(overrides);
      } catch (const ScenarioError& e) {
        throw ScenarioError(fmt::format("--grid {}: {}", axis.spec, e.what()));
      }
    }
  }

  const std::size_t n_points = out.grid_points();
  std::vector<Scenario> scenarios;
  scenarios.reserve(n_points);
  for (std::size_t p = 0; p < n_points; ++p) {
    std::vector<std::string> overrides = spec.overrides;
    const std::vector<std::size_t> digits = grid_digits(spec.axes, p);
    for (std::size_t a = 0; a < spec.axes.size(); ++a) {
      overrides.push_back(spec.axes[a].overrides[digits[a]]);
    }
    scenarios.push_back(load(overrides));
  }
  out.scenario = scenarios.front().name;
  const std::uint64_t first = spec.first_seed.value_or(scenarios.front().seed);
  for (std::size_t i = 0; i < spec.seeds; ++i) out.seeds.push_back(first + i);

  // The runs: workers take the slice's tasks in order and store each by its place in the
  // slice. A task taken is always finished, so a stopped sweep has done a prefix of them.
  const std::size_t total = out.slice_size();
  std::vector<SweepRunResult> results(total);
  std::atomic<std::size_t> next{0}, done{0};
  std::size_t working = 0;  // threads not yet out of work; under mu
  std::mutex mu;
  std::condition_variable changed;
  std::exception_ptr failure;
  const auto stopping = [&] { return spec.stop != nullptr && spec.stop->load(); };
  const auto work = [&] {
    for (std::size_t k; !stopping() && (k = next.fetch_add(1)) < total;) {
      SweepRunResult& r = results[k];
      r.task = shard.index + k * shard.count;
      try {
        Scenario s = scenarios[r.task / spec.seeds];
        s.seed = out.seeds[r.task % spec.seeds];
        RunOptions options;
        options.faults = spec.faults;
        const RunOutput run = run_scenario(s, options);
        r.run = seed_run(s.seed, run);
        collect_metrics(run.summary, r.metrics);
      } catch (...) {
        const std::lock_guard lock(mu);
        if (!failure) failure = std::current_exception();
        next = total;
      }
      ++done;
      const std::lock_guard lock(mu);
      changed.notify_all();
    }
    const std::lock_guard lock(mu);
    --working;
    changed.notify_all();
  };
  unsigned threads = spec.threads ? spec.threads : std::thread::hardware_concurrency();
  threads =
      static_cast<unsigned>(std::clamp<std::size_t>(threads, 1, std::max<std::size_t>(total, 1)));
  std::vector<std::jthread> pool;
  working = threads;
  for (unsigned i = 0; i < threads; ++i) pool.emplace_back(work);
  {
    using Clock = std::chrono::steady_clock;
    auto last_report = Clock::now();
    if (spec.progress) spec.progress(0, total);
    std::unique_lock lock(mu);
    while (working > 0) {
      if (spec.progress_interval.count() > 0) {
        changed.wait_for(lock, spec.progress_interval);
      } else {
        changed.wait(lock);  // woken by every finished run
      }
      if (spec.progress && working > 0 && Clock::now() - last_report >= spec.progress_interval) {
        last_report = Clock::now();
        const std::size_t d = done;
        lock.unlock();
        spec.progress(d, total);
        lock.lock();
      }
    }
  }
  pool.clear();  // joins
  if (failure) std::rethrow_exception(failure);
  if (spec.progress) spec.progress(done, total);
  results.resize(done);
  out.runs = std::move(results);
  return out;
}

Sweep sweep_of(const SweepPart& part) {
  Sweep out;
  out.scenario = part.scenario;
  out.overrides = part.overrides;
  out.axes = part.axes;
  out.seeds = part.seeds;
  out.points_total = part.grid_points();
  const std::size_t n_seeds = part.seeds.size();
  std::vector<const SweepRunResult*> by_task(part.tasks(), nullptr);
  for (const SweepRunResult& r : part.runs) by_task.at(r.task) = &r;

  for (std::size_t p = 0; p < out.points_total; ++p) {
    const auto first = by_task.begin() + static_cast<std::ptrdiff_t>(p * n_seeds);
    if (std::find(first, first + static_cast<std::ptrdiff_t>(n_seeds), nullptr) !=
        first + static_cast<std::ptrdiff_t>(n_seeds)) {
      out.complete = false;
      continue;
    }
    std::vector<const SweepRunResult*> runs(first, first + static_cast<std::ptrdiff_t>(n_seeds));
    SweepPoint point = sweep_point(runs);
    point.values = part.point_values(p);
    out.points.push_back(std::move(point));
  }
  return out;
}

SweepPoint sweep_point(const std::vector<const SweepRunResult*>& runs) {
  SweepPoint point;
  std::map<std::string, std::vector<double>> samples;
  for (const SweepRunResult* r : runs) {
    point.runs.push_back(r->run);
    for (const auto& [key, value] : r->metrics) {
      std::vector<double>& v = samples[key];
      if (value) v.push_back(*value);
    }
  }
  // A leaf null in some runs and an object in others (drain_latency_s) is reported by
  // the object's numbers only.
  for (auto it = samples.begin(); it != samples.end();) {
    const auto next_key = std::next(it);
    if (it->second.empty() && next_key != samples.end() &&
        next_key->first.starts_with(it->first + ".")) {
      it = samples.erase(it);
    } else {
      ++it;
    }
  }
  for (const auto& [key, values] : samples) point.metrics[key] = student_t_95(values);
  return point;
}

Sweep run_sweep(const SweepSpec& spec) { return sweep_of(run_sweep_part(spec)); }

}  // namespace drainsim
