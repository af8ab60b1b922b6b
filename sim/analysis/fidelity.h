// Fidelity: one scenario's summary metrics from several sources (an engine over several
// seeds or repeats), metric by metric, as statistics: each source's mean with its
// Student-t 95 % interval and the range of its runs, and, for every source after the
// first (the reference, normally the virtual engine), a verdict from Welch's two-sample
// t test at 95 %: agrees, or differs, with the size of the difference. Where the two
// sides ran some of the same seeds (the same arrivals and durations), also a paired
// verdict over those seeds, which compares like with like: the workload's own spread
// from seed to seed drops out, and what is left is the sources' difference. Single runs
// of a chaotic system say little; a verdict says how much the runs at hand can tell apart.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/stats.h"
#include "model/metrics.h"

namespace drainsim {

// One side of the comparison: its name ("virtual") and the metrics of its runs (from
// run summaries, or read from results files).
struct FidelitySource {
  std::string name;
  std::vector<MetricValues> runs;
  std::vector<std::uint64_t> seeds;  // each run's seed, as runs; empty when not known
};

// A metric in one source: its interval and range over the runs where it is not null.
struct FidelityCell {
  Interval interval;  // n == 0: null in every run
  double min = 0, max = 0;
};

enum class Verdict { kAgrees, kDiffers };

// A source against the reference.
struct FidelityVerdict {
  Verdict verdict = Verdict::kAgrees;
  double difference = 0;  // its mean minus the reference's (0 when either has no value)
  // The difference the runs could have shown by chance: t(0.975, Welch df) times the
  // standard error of the difference; 0 when neither side varies.
  double noise = 0;
};

// a against b as samples: they differ when |mean(b) - mean(a)| exceeds
// t(0.975, df) * sqrt(var(a)/n(a) + var(b)/n(b)), df by Welch-Satterthwaite (a side of
// one run, or of equal runs, adds no variance). When neither varies, any difference
// beyond rounding (1e-9 relative) differs. A metric null in every run of one side and
// not of the other differs; null in both agrees.
FidelityVerdict welch_verdict(const std::vector<double>& a, const std::vector<double>& b);

// The paired t test of run-by-run differences b - a (one pair per seed both sides ran):
// they differ when |mean(d)| exceeds t(0.975, n - 1) * sd(d) / sqrt(n). Pairs null on both
// sides are left out; a pair null on one side only differs. Without spread, any difference
// beyond rounding differs; no pairs agree.
FidelityVerdict paired_verdict(const std::vector<std::optional<double>>& a,
                               const std::vector<std::optional<double>>& b);

struct FidelityRow {
  std::string metric;                     // e.g. "drain_latency_s.p99"
  std::vector<FidelityCell> cells;        // one per source
  std::vector<FidelityVerdict> verdicts;  // one per source after the first
  // One per source after the first: against the reference's runs of the same seeds;
  // none when they share fewer than 2 seeds.
  std::vector<std::optional<FidelityVerdict>> paired;
};

// How many seeds a source shares with the reference (the pairs of its paired verdicts).
std::size_t shared_seeds(const FidelitySource& reference, const FidelitySource& source);

// The compared metrics (model/metrics.h), in display order.
std::vector<FidelityRow> fidelity_rows(const std::vector<FidelitySource>& sources);

// A text table: a row per metric, each source's "mean ±half-width" over 5 runs or more,
// "mean [min..max]" over 2-4 (a t interval over so few is mostly t), the mean alone when
// the runs are equal, "(n=k)" added where only k runs had the metric, kNoValue where none
// did), then for each later source its verdict
// against the first: "agrees" or "DIFFERS", with the difference (and its percentage of
// the reference's mean when that is not 0).
std::string fidelity_table(const std::vector<FidelitySource>& sources,
                           const std::vector<FidelityRow>& rows);

// How many rows hold a "differs" verdict: Welch's, or the paired ones.
std::size_t count_differences(const std::vector<FidelityRow>& rows);
std::size_t count_paired_differences(const std::vector<FidelityRow>& rows);

}  // namespace drainsim
