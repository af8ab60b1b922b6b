#include "analysis/fidelity.h"

#include <cmath>

#include <fmt/format.h>

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

std::string show(const std::optional<double>& v) {
  if (!v) return "-";
  if (*v == std::floor(*v) && std::fabs(*v) < 1e15) return fmt::format("{:.0f}", *v);
  return fmt::format("{:.3f}", *v);
}

}  // namespace

std::vector<FidelityRow> fidelity_rows(const std::vector<RunSummary>& summaries) {
  std::vector<FidelityRow> rows;
  for (const char* name : kMetrics) {
    const Metric& m = metric(name);
    FidelityRow row{name, {}};
    for (const RunSummary& s : summaries) row.values.push_back(m.value(s));
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string fidelity_table(const std::vector<std::string>& engines,
                           const std::vector<FidelityRow>& rows) {
  std::string out = fmt::format("{:<30}", "metric");
  for (const std::string& e : engines) out += fmt::format("{:>14}", e);
  for (std::size_t i = 1; i < engines.size(); ++i) {
    out += fmt::format("{:>24}", fmt::format("{} - {}", engines[i], engines[0]));
  }
  out += '\n';
  for (const FidelityRow& row : rows) {
    out += fmt::format("{:<30}", row.metric);
    for (const auto& v : row.values) out += fmt::format("{:>14}", show(v));
    for (std::size_t i = 1; i < row.values.size(); ++i) {
      const auto& ref = row.values[0];
      const auto& v = row.values[i];
      std::string diff = "-";
      if (ref && v) {
        const double d = *v - *ref;
        diff = show(d);
        if (d > 0) diff = "+" + diff;
        if (*ref != 0) diff += fmt::format(" ({:+.1f}%)", 100 * d / std::fabs(*ref));
      }
      out += fmt::format("{:>24}", diff);
    }
    out += '\n';
  }
  return out;
}

}  // namespace drainsim
