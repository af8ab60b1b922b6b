#include "analysis/compare.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <boost/algorithm/string/trim.hpp>

#include "analysis/text_table.h"
#include "analysis/warning_tally.h"
#include "io/results.h"
#include "io/scenario_reader.h"
#include "io/stats_json.h"
#include "model/metrics.h"
#include "profiles/profile.h"
#include "run/run_scenario.h"

namespace drainsim {

namespace {

using nlohmann::json;

const std::vector<const Metric*> kMetrics = {
    &metric("job_loss"),
    &metric("interrupted_fraction"),
    &metric("duplicate_executions"),
    &metric("shutdown_retries"),
    &metric("wasted_work_s"),
    &metric("drain_latency_s.p99"),
    &metric("orphan_recovery_delay_s.p99"),
    &metric("stuck_at_end"),
    &metric("deploy_duration_s.mean"),
};

// The header row and a row per profile, cells as the text formats show them.
std::vector<std::vector<std::string>> text_rows(const Comparison& c) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"profile", "grace", "preStop"});
  for (const Metric* m : kMetrics) rows.back().emplace_back(m->name);
  for (const ProfileComparison& p : c.profiles) {
    rows.push_back({p.profile, format_grace(p.grace), pre_stop_text(p.pre_stop)});
    for (std::size_t i = 0; i < std::size(kMetrics); ++i) {
      rows.back().push_back(metric_cell(*kMetrics[i], p.metrics[i], c.seeds.size()));
    }
  }
  return rows;
}

// What the table alone would misread: a profile that loses nothing while jobs are stuck at
// the end, and the runs' warnings (a code every profile gave in every run said once).
std::vector<std::string> notes(const Comparison& c) {
  std::vector<std::string> out;
  const auto at = [](const ProfileComparison& p, std::string_view name) -> const Interval& {
    for (std::size_t i = 0; i < std::size(kMetrics); ++i) {
      if (kMetrics[i]->name == name) return p.metrics[i];
    }
    throw std::logic_error("compare: no metric " + std::string(name));
  };
  for (const ProfileComparison& p : c.profiles) {
    const Interval& loss = at(p, "job_loss");
    if (loss.n > 0 && loss.mean > 0) {
      std::vector<std::string> parts;
      for (std::size_t k = 0; k < kCauseClasses; ++k) {
        if (p.loss_by_class[k] > 0) {
          parts.push_back(
              fmt::format("{} {:.1f}", name_of(static_cast<CauseClass>(k)), p.loss_by_class[k]));
        }
      }
      out.push_back(fmt::format("note: {}'s job_loss per run by cause: {}", p.profile,
                                fmt::join(parts, ", ")));
    }
  }
  for (const ProfileComparison& p : c.profiles) {
    const Interval& loss = at(p, "job_loss");
    const Interval& stuck = at(p, "stuck_at_end");
    if (loss.n > 0 && loss.mean == 0 && stuck.n > 0 && stuck.mean > 0) {
      out.push_back(fmt::format(
          "note: {} has job_loss 0, but {:.1f} jobs per run are stuck at the end, held by a "
          "dead worker that nothing recovered before the run ended: neither lost nor done",
          p.profile, stuck.mean));
    }
  }
  std::vector<std::vector<WarningTally>> tallies;
  for (const ProfileComparison& p : c.profiles) tallies.push_back(tally_warnings(p.runs));
  const auto everywhere = [&](const std::string& code) {
    for (const auto& ts : tallies) {
      const auto it = std::find_if(ts.begin(), ts.end(),
                                   [&](const WarningTally& t) { return t.first.code == code; });
      if (it == ts.end() || it->runs != it->of) return false;
    }
    return c.profiles.size() > 1;
  };
  std::vector<std::string> said;
  for (std::size_t i = 0; i < c.profiles.size(); ++i) {
    for (const WarningTally& t : tallies[i]) {
      if (!everywhere(t.first.code)) {
        out.push_back(fmt::format("warning: {}: {}", c.profiles[i].profile, tally_text(t)));
      } else if (std::find(said.begin(), said.end(), t.first.code) == said.end()) {
        said.push_back(t.first.code);
        out.push_back(fmt::format("warning: every profile, every run: {} ({} seed {}: {})",
                                  t.first.code, c.profiles[i].profile, t.seed, t.first.message));
      }
    }
  }
  return out;
}

std::string notes_text(const Comparison& c) {
  std::string out;
  for (const std::string& n : notes(c)) out += n + '\n';
  return out.empty() ? out : '\n' + out;
}

std::string seeds_text(const Comparison& c) {
  if (c.seeds.size() == 1) return fmt::format("seed {}", c.seeds.front());
  return fmt::format("{} seeds ({}..{})", c.seeds.size(), c.seeds.front(), c.seeds.back());
}

std::string overrides_text(const Comparison& c) {
  std::string s;
  for (const std::string& o : c.overrides) s += fmt::format(" --set {}", o);
  return s;
}

// Which grace each profile ran with, and the platform's.
std::string graces_text(const Comparison& c) {
  return fmt::format(
      "platform grace {} for every profile; worker grace: {}", format_duration(c.platform_grace),
      c.keep_grace ? "the scenario's, kept for every profile (--keep-grace)"
                   : "each profile's own default unless --set pins it (--keep-grace keeps the "
                     "scenario's)");
}

std::string table(const Comparison& c) {
  std::string out = fmt::format("compare: scenario {}{}, {}, virtual engine\n", c.scenario,
                                overrides_text(c), seeds_text(c));
  out += graces_text(c) + '\n';
  out += fmt::format(
      "mean ±half-width of the Student-t 95 % interval over the seeds; (n=k): only k runs had "
      "the metric; {}: none did\n\n",
      kNoValue);
  return out + aligned_table(text_rows(c)) + notes_text(c);
}

std::string markdown(const Comparison& c) {
  const auto rows = text_rows(c);
  std::string out = fmt::format(
      "Scenario `{}`{}, {}, virtual engine: mean ±half-width of the Student-t 95 % "
      "interval over the seeds; {}.\n\n",
      c.scenario, overrides_text(c), seeds_text(c), graces_text(c));
  for (std::size_t r = 0; r < rows.size(); ++r) {
    out += '|';
    for (const std::string& v : rows[r]) out += fmt::format(" {} |", v);
    out += '\n';
    if (r == 0) {
      out += "|---|---|---|";
      for (std::size_t i = 3; i < rows[r].size(); ++i) out += "---:|";
      out += '\n';
    }
  }
  return out + notes_text(c);
}

std::string csv_number(double v) { return fmt::format("{}", v); }

std::string csv(const Comparison& c) {
  std::string out = "profile,metric,n,mean,half_width,low,high\n";
  for (const ProfileComparison& p : c.profiles) {
    for (std::size_t i = 0; i < std::size(kMetrics); ++i) {
      const Interval& v = p.metrics[i];
      out += fmt::format("{},{},{}", p.profile, kMetrics[i]->name, v.n);
      if (v.n == 0) {
        out += ",,,,\n";
      } else {
        out += fmt::format(",{},{},{},{}\n", csv_number(v.mean), csv_number(v.half_width),
                           csv_number(v.low), csv_number(v.high));
      }
    }
  }
  return out;
}

}  // namespace

const std::vector<const Metric*>& compare_metrics() { return kMetrics; }

ProfileSelection select_profiles(std::string_view spec) {
  ProfileSelection out;
  if (boost::algorithm::trim_copy(spec) == "all") {
    for (const Profile& p : all_profiles()) out.names.emplace_back(p.name);
    return out;
  }
  std::vector<std::string> names;
  for (std::string_view rest = spec;;) {
    const std::size_t comma = rest.find(',');
    const std::string_view name = boost::algorithm::trim_copy(rest.substr(0, comma));
    if (name.empty()) {
      out.error = fmt::format("--profiles: an empty profile name in \"{}\", expected one of {}",
                              spec, fmt::join(profile_names(), ", "));
      return out;
    }
    if (find_profile(name) == nullptr) {
      out.error = fmt::format("--profiles: {} (or all)", unknown_profile(name));
      return out;
    }
    if (std::find(names.begin(), names.end(), name) != names.end()) {
      out.error = fmt::format("--profiles: profile \"{}\" named twice", name);
      return out;
    }
    names.emplace_back(name);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  out.names = std::move(names);
  return out;
}

bool Comparison::audits_ok() const {
  for (const ProfileComparison& p : profiles) {
    for (const SeedRun& r : p.runs) {
      if (!r.audit_ok) return false;
    }
  }
  return true;
}

Comparison compare_profiles(const CompareSpec& spec) {
  Comparison c;
  c.overrides = spec.overrides;
  RunOptions options;
  options.faults = spec.faults;
  for (const std::string& name : spec.profiles) {
    std::vector<std::string> overrides = {"worker.profile=" + name};
    const bool pinned =
        std::any_of(spec.overrides.begin(), spec.overrides.end(), [](const auto& o) {
          return o.starts_with("worker.grace_period=") || o.starts_with("worker=");
        });
    if (!spec.keep_grace && !pinned) {
      overrides.push_back("worker.grace_period=" +
                          format_grace(find_profile(name)->worker.grace_period));
    }
    overrides.insert(overrides.end(), spec.overrides.begin(), spec.overrides.end());
    Scenario s = load_scenario_file(spec.scenario, overrides);
    if (s.worker.profile != name) {
      throw ScenarioError(fmt::format(
          "{}: worker.profile: compare sets the profile, so --set may not replace it (it gave "
          "\"{}\" instead of \"{}\"); choose profiles with --profiles",
          spec.scenario, s.worker.profile, name));
    }
    if (c.seeds.empty()) {
      c.scenario = s.name;
      c.platform_grace = s.platform.grace_period();
      c.keep_grace = spec.keep_grace;
      const std::uint64_t first = spec.first_seed.value_or(s.seed);
      for (std::size_t i = 0; i < spec.seeds; ++i) c.seeds.push_back(first + i);
    }
    ProfileComparison p;
    p.profile = name;
    p.grace = s.worker.grace_period;
    p.pre_stop = s.platform.pre_stop;
    std::vector<std::vector<double>> samples(std::size(kMetrics));
    for (const std::uint64_t seed : c.seeds) {
      s.seed = seed;
      const RunOutput out = run_scenario(s, options);
      p.runs.push_back(seed_run(seed, out));
      for (std::size_t i = 0; i < std::size(kMetrics); ++i) {
        if (const auto v = kMetrics[i]->value(out.summary)) samples[i].push_back(*v);
      }
      for (std::size_t k = 0; k < kCauseClasses; ++k) {
        p.loss_by_class[k] += static_cast<double>(out.summary.by_class[k].job_loss()) /
                              static_cast<double>(c.seeds.size());
      }
    }
    for (const std::vector<double>& values : samples) p.metrics.push_back(student_t_95(values));
    c.profiles.push_back(std::move(p));
  }
  return c;
}

json compare_json(const Comparison& c) {
  json profiles = json::array();
  for (const ProfileComparison& p : c.profiles) {
    json metrics = json::object();
    for (std::size_t i = 0; i < std::size(kMetrics); ++i) {
      metrics[std::string(kMetrics[i]->name)] = interval_json(p.metrics[i]);
    }
    json hashes = json::array(), failures = json::array();
    for (const SeedRun& r : p.runs) {
      hashes.push_back(r.result_hash);
      if (!r.audit_ok) {
        failures.push_back(audit_failure_json(r));
      }
    }
    json by_cause = json::object();
    for (std::size_t k = 0; k < kCauseClasses; ++k) {
      by_cause[std::string(name_of(static_cast<CauseClass>(k)))] = p.loss_by_class[k];
    }
    profiles.push_back({{"profile", p.profile},
                        {"grace_period", format_grace(p.grace)},
                        {"pre_stop", pre_stop_text(p.pre_stop)},
                        {"job_loss_by_cause", by_cause},
                        {"metrics", metrics},
                        {"result_hashes", hashes},
                        {"audit_failures", failures},
                        {"warnings", tallies_json(tally_warnings(p.runs))}});
  }
  json metric_keys = json::array();
  for (const Metric* m : kMetrics) metric_keys.push_back(std::string(m->name));
  return {{"schema_version", kReportSchemaVersion},
          {"drainsim_version", DRAINSIM_VERSION},
          {"engine", "virtual"},
          {"scenario", c.scenario},
          {"overrides", c.overrides},
          {"seeds", c.seeds},
          {"metrics", metric_keys},
          {"profiles", profiles},
          {"notes", notes(c)}};
}

std::string format_comparison(const Comparison& c, CompareFormat format) {
  switch (format) {
    case CompareFormat::kTable:
      return table(c);
    case CompareFormat::kMarkdown:
      return markdown(c);
    case CompareFormat::kJson:
      return compare_json(c).dump(2) + '\n';
    case CompareFormat::kCsv:
      return csv(c);
  }
  return {};
}

}  // namespace drainsim
