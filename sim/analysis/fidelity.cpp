#include "analysis/fidelity.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "analysis/text_table.h"
#include "model/metrics.h"

namespace drainsim {

namespace {

constexpr const char* kMetricNames[] = {
    "jobs_enqueued",
    "jobs_completed",
    "job_loss",
    "shutdown_retries",
    "interrupted_jobs",
    "duplicate_executions",
    "wasted_work_s",
    "stuck_at_end",
    "graceful_exits",
    "forced_kills",
    "drain_latency_s.p50",
    "drain_latency_s.p99",
    "drain_latency_s.max",
    "orphan_recovery_delay_s.p50",
    "orphan_recovery_delay_s.p99",
    "deploy_duration_s.mean",
    "job_latency_s.p50",
    "job_latency_s.p99",
};

// Fewer runs than this show their range: a t interval over 2-4 runs is mostly t.
constexpr std::size_t kIntervalRuns = 5;

struct Moments {
  double n = 0, mean = 0, var = 0;  // var: the sample variance, 0 for one run
};

Moments moments(const std::vector<double>& v) {
  Moments m;
  m.n = static_cast<double>(v.size());
  if (v.empty()) return m;
  for (double x : v) m.mean += x;
  m.mean /= m.n;
  if (v.size() > 1) {
    for (double x : v) m.var += (x - m.mean) * (x - m.mean);
    m.var /= m.n - 1;
  }
  return m;
}

// Numbers as the table shows them: whole numbers bare, others to 3 decimals.
std::string show(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{:.0f}", v);
  return fmt::format("{:.3f}", v);
}

// fmt rather than "+" + string: GCC 12 at -O3 warns (-Wrestrict) on the latter, falsely.
std::string signed_text(double v) { return fmt::format("{}{}", v > 0 ? "+" : "", show(v)); }

std::string cell_text(const FidelityCell& c, std::size_t runs) {
  if (!c.measured) return "not measured";
  if (c.interval.n == 0) return std::string(kNoValue);
  std::string out = show(c.interval.mean);
  if (c.min == c.max) {
    // the runs agree: the mean alone
  } else if (c.interval.n < kIntervalRuns) {
    out += " [" + show(c.min) + ".." + show(c.max) + "]";
  } else {
    out += " ±" + show(c.interval.half_width);
  }
  if (c.interval.n < runs) out += fmt::format(" (n={})", c.interval.n);
  return out;
}

// A verdict as its column shows it: the word, the difference and its 90 % interval (the
// difference's share of the reference's mean where it differs), the runs that would decide.
std::string verdict_text(const FidelityVerdict& v, const FidelityCell& reference) {
  std::string out(v.verdict == Verdict::kDiffers ? "DIFFERS" : name_of(v.verdict));
  if (v.verdict == Verdict::kNotMeasured) return out;
  if (!v.why.empty()) return out + " (" + v.why + ")";
  if (v.difference == 0 && v.low == v.high) return out;
  out += " " + signed_text(v.difference);
  if (v.low != v.high) out += " [" + signed_text(v.low) + ", " + signed_text(v.high) + "]";
  if (v.verdict == Verdict::kDiffers && reference.interval.n > 0 && reference.interval.mean != 0) {
    out += fmt::format(" ({:+.1f}%)", 100 * v.difference / std::fabs(reference.interval.mean));
  }
  if (v.verdict == Verdict::kInconclusive && v.runs_to_decide > 0) {
    out += fmt::format(", ~{} runs", v.runs_to_decide);
  }
  return out;
}

// Below this, relative to the numbers compared, a difference is rounding.
constexpr double kRounding = 1e-9;

// The verdict on a difference `d` whose standard error is `se` over `df` degrees of freedom
// (se 0: a difference without an interval), against ±margin; `scale` is the size of the
// numbers compared, for rounding.
FidelityVerdict decide(double d, double se, std::size_t df, double margin, double scale) {
  FidelityVerdict v;
  v.difference = d;
  v.margin = margin;
  const double half = se > 0 ? t_quantile_95(df) * se : 0;
  v.low = d - half;
  v.high = d + half;
  const double edge = margin + kRounding * scale;
  if (v.low >= -edge && v.high <= edge) {
    v.verdict = Verdict::kEquivalent;
  } else if (v.low > edge || v.high < -edge) {
    v.verdict = Verdict::kDiffers;
  } else {
    v.verdict = Verdict::kInconclusive;
  }
  return v;
}

// How far the interval's nearer end must come in for `v` to decide: inside the margin, or
// wholly outside it; 0 when no interval can (the difference sits on the margin).
double gap(const FidelityVerdict& v) {
  const double d = std::fabs(v.difference);
  return std::fabs(v.margin - d);
}

// Welch-Satterthwaite degrees of freedom of two sides' variances of the mean, rounded down
// (at least 1).
std::size_t welch_df(double va, double na, double vb, double nb) {
  double denominator = 0;
  if (va > 0) denominator += va * va / (na - 1);
  if (vb > 0) denominator += vb * vb / (nb - 1);
  const double df = denominator > 0 ? (va + vb) * (va + vb) / denominator : 1;
  return std::max<std::size_t>(1, static_cast<std::size_t>(df));
}

constexpr std::size_t kMostRuns = 100000;

// The runs of the reference and of `source` with the same seed, as (reference run, source
// run) indexes, in the source's order; a seed either side ran more than once pairs nothing.
std::vector<std::pair<std::size_t, std::size_t>> seed_pairs(const FidelitySource& reference,
                                                            const FidelitySource& source) {
  const auto once = [](const FidelitySource& f, std::uint64_t seed) {
    const std::size_t n = std::min(f.seeds.size(), f.runs.size());
    const auto end = f.seeds.begin() + static_cast<std::ptrdiff_t>(n);
    const auto at = std::find(f.seeds.begin(), end, seed);
    if (at == end || std::find(at + 1, end, seed) != end) return n;
    return static_cast<std::size_t>(at - f.seeds.begin());
  };
  std::vector<std::pair<std::size_t, std::size_t>> out;
  const std::size_t n = std::min(source.seeds.size(), source.runs.size());
  for (std::size_t r = 0; r < n; ++r) {
    const std::size_t k = once(reference, source.seeds[r]);
    if (k < std::min(reference.seeds.size(), reference.runs.size()) &&
        once(source, source.seeds[r]) == r) {
      out.emplace_back(k, r);
    }
  }
  return out;
}

std::optional<double> value_of(const MetricValues& run, const char* name) {
  const auto it = run.find(name);
  return it == run.end() ? std::nullopt : it->second;
}

}  // namespace

FidelityVerdict welch_verdict(const std::vector<double>& a, const std::vector<double>& b,
                              double margin) {
  if (a.empty() || b.empty()) {
    FidelityVerdict v;
    v.margin = margin;
    if (a.empty() != b.empty()) {
      v.verdict = Verdict::kDiffers;
      v.why = "a value on one side only";
    }
    return v;
  }
  const Moments ma = moments(a), mb = moments(b);
  if (a.size() < 2 || b.size() < 2) {
    FidelityVerdict v;
    v.verdict = Verdict::kInconclusive;
    v.difference = mb.mean - ma.mean;
    v.low = v.high = v.difference;
    v.margin = margin;
    v.why = fmt::format("{} run{}: its spread is unknown",
                        a.size() < 2 ? "the reference has one" : "one",
                        a.size() < 2 && b.size() < 2 ? " each" : "");
    return v;
  }
  const double va = ma.var / ma.n, vb = mb.var / mb.n;
  const double scale = std::max({1.0, std::fabs(ma.mean), std::fabs(mb.mean)});
  FidelityVerdict v =
      decide(mb.mean - ma.mean, std::sqrt(va + vb), welch_df(va, ma.n, vb, mb.n), margin, scale);
  if (v.verdict != Verdict::kInconclusive) return v;
  // The source's runs that would decide, the reference's as they are: none when the
  // reference alone (the limit as the source's runs grow: standard error sqrt(va), df its
  // runs - 1) keeps the interval too wide, or the source's runs never vary.
  const double g = gap(v);
  if (g <= kRounding * scale || mb.var == 0 ||
      (va > 0 && t_quantile_95(a.size() - 1) * std::sqrt(va) >= g)) {
    return v;
  }
  for (std::size_t n = b.size() + 1; n <= kMostRuns; ++n) {
    const double vn = mb.var / static_cast<double>(n);
    if (t_quantile_95(welch_df(va, ma.n, vn, static_cast<double>(n))) * std::sqrt(va + vn) < g) {
      v.runs_to_decide = n;
      break;
    }
  }
  return v;
}

FidelityVerdict paired_verdict(const std::vector<std::optional<double>>& a,
                               const std::vector<std::optional<double>>& b, double margin) {
  std::vector<double> d;
  std::size_t one_sided = 0, pairs = 0;
  double scale = 1;  // for rounding
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    ++pairs;
    if (a[i] && b[i]) {
      d.push_back(*b[i] - *a[i]);
      scale = std::max({scale, std::fabs(*a[i]), std::fabs(*b[i])});
    }
    one_sided += a[i].has_value() != b[i].has_value() ? 1 : 0;
  }
  const Moments m = moments(d);
  FidelityVerdict v;
  v.margin = margin;
  if (one_sided > 0) {
    v.verdict = Verdict::kDiffers;
    v.difference = m.mean;
    v.low = v.high = m.mean;
    v.why = fmt::format("a value on one side only, {} of {} seeds", one_sided, pairs);
    return v;
  }
  if (d.empty()) return v;  // no value on either side
  if (d.size() < 2) {
    v.verdict = Verdict::kInconclusive;
    v.difference = v.low = v.high = m.mean;
    v.why = "one pair: its spread is unknown";
    return v;
  }
  v = decide(m.mean, std::sqrt(m.var / m.n), d.size() - 1, margin, scale);
  if (v.verdict != Verdict::kInconclusive) return v;
  const double g = gap(v);
  if (g <= kRounding * scale) return v;
  const double sd = std::sqrt(m.var);
  for (std::size_t n = d.size() + 1; n <= kMostRuns; ++n) {
    if (t_quantile_95(n - 1) * sd / std::sqrt(static_cast<double>(n)) < g) {
      v.runs_to_decide = n;
      break;
    }
  }
  return v;
}

bool FidelitySource::measures(std::string_view metric) const {
  const std::string_view group = metric.substr(0, metric.find('.'));
  return !not_measured.contains(metric) && !not_measured.contains(group);
}

const FidelityVerdict& FidelityRow::verdict(std::size_t i) const {
  const std::optional<FidelityVerdict>& p = paired[i - 1];
  return p ? *p : verdicts[i - 1];
}

std::size_t shared_seeds(const FidelitySource& reference, const FidelitySource& source) {
  return seed_pairs(reference, source).size();
}

std::vector<FidelityRow> fidelity_rows(const std::vector<FidelitySource>& sources,
                                       const Tolerances& tolerances, std::string_view case_name) {
  std::vector<FidelityRow> rows;
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> pairs;  // by later source
  for (std::size_t i = 1; i < sources.size(); ++i)
    pairs.push_back(seed_pairs(sources[0], sources[i]));
  for (const char* name : kMetricNames) {
    FidelityRow row;
    row.metric = name;
    row.tolerance = tolerances.of(case_name, name);
    std::vector<std::vector<double>> samples;
    for (const FidelitySource& source : sources) {
      std::vector<double>& values = samples.emplace_back();
      for (const MetricValues& run : source.runs) {
        if (const std::optional<double> v = value_of(run, name)) values.push_back(*v);
      }
      FidelityCell cell;
      cell.measured = source.measures(name);
      cell.interval = student_t_95(values);
      if (!values.empty()) {
        const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
        cell.min = *lo;
        cell.max = *hi;
      }
      row.cells.push_back(cell);
    }
    row.margin = row.tolerance.margin(row.cells.empty() ? 0 : row.cells[0].interval.mean);
    for (std::size_t i = 1; i < samples.size(); ++i) {
      if (!row.cells[0].measured || !row.cells[i].measured) {
        FidelityVerdict v;
        v.verdict = Verdict::kNotMeasured;
        v.margin = row.margin;
        row.verdicts.push_back(v);
        row.paired.push_back(std::nullopt);
        continue;
      }
      row.verdicts.push_back(welch_verdict(samples[0], samples[i], row.margin));
      std::vector<std::optional<double>> a, b;
      for (const auto& [k, r] : pairs[i - 1]) {
        a.push_back(value_of(sources[0].runs[k], name));
        b.push_back(value_of(sources[i].runs[r], name));
      }
      row.paired.push_back(a.size() >= 2 ? std::optional(paired_verdict(a, b, row.margin))
                                         : std::nullopt);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string fidelity_table(const std::vector<FidelitySource>& sources,
                           const std::vector<FidelityRow>& rows) {
  std::vector<std::vector<std::string>> table(1, {"metric"});
  for (const FidelitySource& s : sources) {
    table[0].push_back(fmt::format("{} (n={})", s.name, s.runs.size()));
  }
  table[0].push_back("tolerance");
  // The verdict that stands for each later source (paired over the seeds it shares with
  // the reference, or Welch's), then Welch's beside the paired ones.
  std::vector<std::size_t> paired;
  for (std::size_t i = 1; i < sources.size(); ++i) {
    const std::size_t n = shared_seeds(sources[0], sources[i]);
    if (n >= 2) paired.push_back(i);
    table[0].push_back(
        n >= 2 ? fmt::format("{} vs {}, same {} seeds", sources[i].name, sources[0].name, n)
               : fmt::format("{} vs {} (Welch)", sources[i].name, sources[0].name));
  }
  for (std::size_t i : paired) {
    table[0].push_back(fmt::format("{} vs {}, Welch", sources[i].name, sources[0].name));
  }
  for (const FidelityRow& row : rows) {
    std::vector<std::string>& line = table.emplace_back(1, row.metric);
    for (std::size_t i = 0; i < sources.size(); ++i) {
      line.push_back(cell_text(row.cells[i], sources[i].runs.size()));
    }
    line.push_back("±" + show(row.margin));
    for (std::size_t i = 1; i < sources.size(); ++i) {
      line.push_back(verdict_text(row.verdict(i), row.cells[0]));
    }
    for (std::size_t i : paired) line.push_back(verdict_text(row.verdicts[i - 1], row.cells[0]));
  }
  return aligned_table(table);
}

std::size_t count_verdicts(const std::vector<FidelityRow>& rows, Verdict v) {
  std::size_t n = 0;
  for (const FidelityRow& row : rows) {
    for (std::size_t i = 1; i <= row.verdicts.size(); ++i) n += row.verdict(i).verdict == v ? 1 : 0;
  }
  return n;
}

std::size_t runs_to_decide(const std::vector<FidelityRow>& rows) {
  std::size_t most = 0;
  for (const FidelityRow& row : rows) {
    for (std::size_t i = 1; i <= row.verdicts.size(); ++i) {
      const FidelityVerdict& v = row.verdict(i);
      if (v.verdict == Verdict::kInconclusive) most = std::max(most, v.runs_to_decide);
    }
  }
  return most;
}

std::size_t runs_before_next_look(const std::vector<FidelityRow>& rows, std::size_t runs,
                                  std::size_t most) {
  if (runs >= most || count_verdicts(rows, Verdict::kInconclusive) == 0) return 0;
  return std::min(most, std::max(runs + 1, runs_to_decide(rows)));
}

}  // namespace drainsim
