#include "analysis/fidelity.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "analysis/text_table.h"
#include "model/metrics.h"

namespace drainsim {

namespace {

constexpr const char* kMetrics[] = {
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

std::string verdict_text(const FidelityVerdict& v, const FidelityCell& reference) {
  if (v.verdict == Verdict::kAgrees) {
    return v.difference == 0 ? "agrees" : fmt::format("agrees ({})", signed_text(v.difference));
  }
  std::string out = "DIFFERS";
  if (v.difference != 0) {
    out += " (" + signed_text(v.difference);
    if (reference.interval.n > 0 && reference.interval.mean != 0) {
      out += fmt::format(", {:+.1f}%", 100 * v.difference / std::fabs(reference.interval.mean));
    }
    out += ")";
  }
  return out;
}

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

FidelityVerdict welch_verdict(const std::vector<double>& a, const std::vector<double>& b) {
  FidelityVerdict out;
  if (a.empty() || b.empty()) {
    out.verdict = a.empty() == b.empty() ? Verdict::kAgrees : Verdict::kDiffers;
    return out;
  }
  const Moments ma = moments(a), mb = moments(b);
  out.difference = mb.mean - ma.mean;
  const double va = ma.var / ma.n, vb = mb.var / mb.n;
  const double se2 = va + vb;
  if (se2 == 0) {
    const double scale = std::max({1.0, std::fabs(ma.mean), std::fabs(mb.mean)});
    out.verdict = std::fabs(out.difference) > 1e-9 * scale ? Verdict::kDiffers : Verdict::kAgrees;
    return out;
  }
  double denominator = 0;
  if (va > 0) denominator += va * va / (ma.n - 1);
  if (vb > 0) denominator += vb * vb / (mb.n - 1);
  const double df = se2 * se2 / denominator;
  const std::size_t whole_df = std::max<std::size_t>(1, static_cast<std::size_t>(df));
  out.noise = t_quantile_975(whole_df) * std::sqrt(se2);
  out.verdict = std::fabs(out.difference) > out.noise ? Verdict::kDiffers : Verdict::kAgrees;
  return out;
}

FidelityVerdict paired_verdict(const std::vector<std::optional<double>>& a,
                               const std::vector<std::optional<double>>& b) {
  FidelityVerdict out;
  std::vector<double> d;
  bool one_sided = false;
  double scale = 1;  // for "beyond rounding"
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i] && b[i]) {
      d.push_back(*b[i] - *a[i]);
      scale = std::max({scale, std::fabs(*a[i]), std::fabs(*b[i])});
    }
    one_sided = one_sided || a[i].has_value() != b[i].has_value();
  }
  const Moments m = moments(d);
  out.difference = m.mean;
  if (one_sided) {
    out.verdict = Verdict::kDiffers;
  } else if (d.size() > 1 && m.var > 0) {
    out.noise = t_quantile_975(d.size() - 1) * std::sqrt(m.var / m.n);
    out.verdict = std::fabs(m.mean) > out.noise ? Verdict::kDiffers : Verdict::kAgrees;
  } else {
    out.verdict = std::fabs(m.mean) > 1e-9 * scale ? Verdict::kDiffers : Verdict::kAgrees;
  }
  return out;
}

std::size_t shared_seeds(const FidelitySource& reference, const FidelitySource& source) {
  return seed_pairs(reference, source).size();
}

std::vector<FidelityRow> fidelity_rows(const std::vector<FidelitySource>& sources) {
  std::vector<FidelityRow> rows;
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> pairs;  // by later source
  for (std::size_t i = 1; i < sources.size(); ++i)
    pairs.push_back(seed_pairs(sources[0], sources[i]));
  for (const char* name : kMetrics) {
    FidelityRow row{name, {}, {}, {}};
    std::vector<std::vector<double>> samples;
    for (const FidelitySource& source : sources) {
      std::vector<double>& values = samples.emplace_back();
      for (const MetricValues& run : source.runs) {
        if (const std::optional<double> v = value_of(run, name)) values.push_back(*v);
      }
      FidelityCell cell;
      cell.interval = student_t_95(values);
      if (!values.empty()) {
        const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
        cell.min = *lo;
        cell.max = *hi;
      }
      row.cells.push_back(cell);
    }
    for (std::size_t i = 1; i < samples.size(); ++i) {
      row.verdicts.push_back(welch_verdict(samples[0], samples[i]));
      std::vector<std::optional<double>> a, b;
      for (const auto& [k, r] : pairs[i - 1]) {
        a.push_back(value_of(sources[0].runs[k], name));
        b.push_back(value_of(sources[i].runs[r], name));
      }
      row.paired.push_back(a.size() >= 2 ? std::optional(paired_verdict(a, b)) : std::nullopt);
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
  for (std::size_t i = 1; i < sources.size(); ++i) {
    table[0].push_back(fmt::format("{} vs {}", sources[i].name, sources[0].name));
  }
  // The paired columns, for the sources that share seeds with the reference.
  std::vector<std::size_t> paired;
  for (std::size_t i = 1; i < sources.size(); ++i) {
    const std::size_t n = shared_seeds(sources[0], sources[i]);
    if (n < 2) continue;
    paired.push_back(i);
    table[0].push_back(fmt::format("same {} seeds", n));
  }
  for (const FidelityRow& row : rows) {
    std::vector<std::string>& line = table.emplace_back(1, row.metric);
    for (std::size_t i = 0; i < sources.size(); ++i) {
      line.push_back(cell_text(row.cells[i], sources[i].runs.size()));
    }
    for (std::size_t i = 0; i < row.verdicts.size(); ++i) {
      line.push_back(verdict_text(row.verdicts[i], row.cells[0]));
    }
    for (std::size_t i : paired) {
      const std::optional<FidelityVerdict>& v = row.paired[i - 1];
      line.push_back(v ? verdict_text(*v, row.cells[0]) : std::string(kNoValue));
    }
  }
  return aligned_table(table);
}

std::size_t count_differences(const std::vector<FidelityRow>& rows) {
  std::size_t n = 0;
  for (const FidelityRow& row : rows) {
    for (const FidelityVerdict& v : row.verdicts) n += v.verdict == Verdict::kDiffers ? 1 : 0;
  }
  return n;
}

std::size_t count_paired_differences(const std::vector<FidelityRow>& rows) {
  std::size_t n = 0;
  for (const FidelityRow& row : rows) {
    for (const std::optional<FidelityVerdict>& v : row.paired) {
      n += v && v->verdict == Verdict::kDiffers ? 1 : 0;
    }
  }
  return n;
}

}  // namespace drainsim
