// Fidelity: one scenario's summary metrics from several sources (an engine over several
// seeds or repeats, a real system's results files), metric by metric, as statistics: each
// source's mean with its Student-t 95 % interval and the range of its runs, and, for every
// source after the first (the reference, normally the virtual engine), a verdict from an
// equivalence test against a tolerance declared beforehand (io/tolerances.h):
//   equivalent    the difference's 90 % interval lies inside ±tolerance (two one-sided
//                 t tests at 5 % each: TOST at 95 %);
//   differs       it lies wholly outside;
//   inconclusive  neither: the runs at hand cannot tell; how many would, from the spread
//                 seen, is said.
// "No significant difference" is not agreement: too few runs give it too. Where the two
// sides ran some of the same seeds (the same arrivals and durations) the paired form
// stands, over those seeds: the workload's spread from seed to seed drops out. Welch's
// unpaired form is the detail, and the verdict where no seeds are shared. Neither pools the
// two sides' variances: a side that never varies (the model's 0 in every seed) lends the
// other none of its certainty.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/names.h"
#include "base/stats.h"
#include "io/tolerances.h"
#include "model/metrics.h"

namespace drainsim {

// One side of the comparison: its name ("virtual") and the metrics of its runs (from
// run summaries, or read from results files).
struct FidelitySource {
  std::string name;
  std::vector<MetricValues> runs;
  std::vector<std::uint64_t> seeds;  // each run's seed, as runs; empty when not known
  // Metrics (or their groups: "orphan_recovery_delay_s") the source cannot measure (a real
  // system that cannot tell when it makes a job available again): no verdict, "not measured".
  std::set<std::string, std::less<>> not_measured = {};

  bool measures(std::string_view metric) const;
};

// A metric in one source: its interval and range over the runs where it is not null.
struct FidelityCell {
  Interval interval;  // n == 0: null in every run
  double min = 0, max = 0;
  bool measured = true;  // false: the source cannot measure it (FidelitySource::not_measured)
};

enum class Verdict : std::uint8_t { kEquivalent, kDiffers, kInconclusive, kNotMeasured };
constexpr std::array<std::string_view, 4> names(Verdict) {
  return {"equivalent", "differs", "inconclusive", "not measured"};
}

// A source against the reference.
struct FidelityVerdict {
  Verdict verdict = Verdict::kEquivalent;
  double difference = 0;     // its mean minus the reference's (0 when either has no value)
  double low = 0, high = 0;  // the difference's 90 % interval (both = difference: no spread)
  double margin = 0;         // equivalent within ±margin
  // Inconclusive: the runs of the source (the reference's as they are) that would decide,
  // from the spread seen; 0 when more of them alone cannot (the reference's runs are too
  // few, or the difference sits on the margin).
  std::size_t runs_to_decide = 0;
  // Why, where no test decided: a value on one side only (differs), a side of one run
  // (inconclusive: its spread is unknown).
  std::string why;
};

// TOST of b against a (b - a), unpaired (Welch: each side's own variance, df by
// Welch-Satterthwaite, rounded down). A side of one run is inconclusive: its spread is
// unknown. Two sides that never vary give a difference without an interval: equivalent
// within the margin, differs beyond it. A metric null in every run of one side and not of
// the other differs; null in both is equivalent.
FidelityVerdict welch_verdict(const std::vector<double>& a, const std::vector<double>& b,
                              double margin);

// TOST of the run-by-run differences b - a, one pair per seed both sides ran (df n - 1).
// Pairs null on both sides are left out; a pair null on one side only differs. Fewer than
// two pairs with values are inconclusive; none is equivalent.
FidelityVerdict paired_verdict(const std::vector<std::optional<double>>& a,
                               const std::vector<std::optional<double>>& b, double margin);

struct FidelityRow {
  std::string metric;                     // e.g. "drain_latency_s.p99"
  Tolerance tolerance;                    // as declared
  double margin = 0;                      // its width at the reference's mean
  std::vector<FidelityCell> cells;        // one per source
  std::vector<FidelityVerdict> verdicts;  // Welch's, one per source after the first
  // One per source after the first: against the reference's runs of the same seeds;
  // none when they share fewer than 2 seeds.
  std::vector<std::optional<FidelityVerdict>> paired;

  // The verdict that stands for source `i` (>= 1): the paired one where there is one,
  // Welch's otherwise.
  const FidelityVerdict& verdict(std::size_t i) const;
};

// How many seeds a source shares with the reference (the pairs of its paired verdicts).
std::size_t shared_seeds(const FidelitySource& reference, const FidelitySource& source);

// The compared metrics (model/metrics.h), in display order, each judged against its
// tolerance in `case_name` ("" for none).
std::vector<FidelityRow> fidelity_rows(const std::vector<FidelitySource>& sources,
                                       const Tolerances& tolerances = {},
                                       std::string_view case_name = "");

// A text table: a row per metric, each source's "mean ±half-width" over 5 runs or more,
// "mean [min..max]" over 2-4 (a t interval over so few is mostly t), the mean alone when
// the runs are equal, "(n=k)" added where only k runs had the metric, kNoValue where none
// did; the tolerance; then for each later source the verdict that stands, with the
// difference and its 90 % interval, and, where that one is paired, Welch's beside it.
std::string fidelity_table(const std::vector<FidelitySource>& sources,
                           const std::vector<FidelityRow>& rows);

// How many verdicts that stand (FidelityRow::verdict) are `v`, over every later source.
std::size_t count_verdicts(const std::vector<FidelityRow>& rows, Verdict v);

// The most runs of any later source an inconclusive verdict that stands asks for; 0 when
// none does (or none says).
std::size_t runs_to_decide(const std::vector<FidelityRow>& rows);

// Adding runs until the verdicts are conclusive (drainsim real --repeats auto): given `rows`
// over `runs` runs of the later sources, how many to have before the verdicts are looked at
// again: 0 when every verdict that stands is conclusive or `most` runs are had; otherwise
// as many as the inconclusive rows ask for, at least one more, at most `most`. Each look is
// a chance to stop on a verdict more runs would overturn, so the looks are few: a source
// starts with some runs, then jumps to what the spread says it needs.
std::size_t runs_before_next_look(const std::vector<FidelityRow>& rows, std::size_t runs,
                                  std::size_t most);

}  // namespace drainsim
