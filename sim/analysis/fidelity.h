// Fidelity: the same scenario's summary metrics from several engines, side by side, with
// each engine's difference from the first (the reference, normally the virtual engine).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/run_summary.h"

namespace drainsim {

struct FidelityRow {
  std::string metric;                         // e.g. "drain_latency_s.p99"
  std::vector<std::optional<double>> values;  // one per engine; nullopt where null
};

// The compared metrics (model/metrics.h), in display order, from each engine's summary.
std::vector<FidelityRow> fidelity_rows(const std::vector<RunSummary>& summaries);

// A text table: metric, each engine's value, and each later engine's difference from the
// first (absolute, and relative when the reference is not 0).
std::string fidelity_table(const std::vector<std::string>& engines,
                           const std::vector<FidelityRow>& rows);

}  // namespace drainsim
