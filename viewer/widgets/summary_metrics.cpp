#include "widgets/summary_metrics.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "base/duration.h"

namespace drainsim::viewer {

namespace {

MetricInfo count(std::string key, std::string label, std::string group, std::string one,
                 std::string many) {
  return {std::move(key), std::move(label), std::move(group),
          Unit::kCount,   std::move(one),   std::move(many)};
}

MetricInfo seconds(std::string key, std::string label, std::string group) {
  return {std::move(key), std::move(label), std::move(group), Unit::kSeconds, {}, {}};
}

MetricInfo percent(std::string key, std::string label, std::string group) {
  return {std::move(key), std::move(label), std::move(group), Unit::kPercent, {}, {}};
}

// The one table: key -> label, group, unit (results/README.md#summary defines the keys).
std::vector<MetricInfo> make_table() {
  const std::string h = "headline", j = "jobs", c = "causes", s = "shutdown", r = "recovery",
                    d = "deploys";
  std::vector<MetricInfo> out = {
      count("job_loss", "Job loss", h, "job", "jobs"),
      percent("interrupted_fraction", "Interrupted", h),
      count("duplicate_executions", "Duplicates", h, "execution", "executions"),
      seconds("drain_latency_s.p99", "Drain p99", h),
      seconds("orphan_recovery_delay_s.p99", "Orphan recovery p99", h),
      seconds("deploy_duration_s.max", "Deploy duration (longest)", h),

      count("jobs_enqueued", "Enqueued", j, "job", "jobs"),
      count("jobs_completed", "Completed", j, "job", "jobs"),
      count("jobs_lost", "Lost", j, "job", "jobs"),
      count("jobs_discarded", "Discarded", j, "job", "jobs"),
      count("jobs_discarded_by_shutdown", "Discarded by shutdown", j, "job", "jobs"),
      count("jobs_pending", "Pending at the end", j, "job", "jobs"),
      count("interrupted_jobs", "Interrupted", j, "job", "jobs"),
      count("pushes_refused", "Pushes refused (singleton)", j, "push", "pushes"),
      seconds("job_latency_s.p50", "Latency p50 (enqueue → done)", j),
      seconds("job_latency_s.p99", "Latency p99 (enqueue → done)", j),
      count("attempts.completed", "Attempts completed", j, "attempt", "attempts"),
      count("attempts.failed", "Attempts failed", j, "attempt", "attempts"),
      count("attempts.interrupted", "Attempts interrupted", j, "attempt", "attempts"),
      count("attempts.killed", "Attempts killed", j, "attempt", "attempts"),
      count("attempts.abandoned", "Attempts abandoned", j, "attempt", "attempts"),
      count("attempts.cancelled", "Attempts cancelled", j, "attempt", "attempts"),
      count("completions_rejected", "Completions (ACKs) rejected", j, "ACK", "ACKs"),
      count("rejected_fails", "FAILs rejected", j, "FAIL", "FAILs"),

      seconds("drain_latency_s.p50", "Drain p50", s),
      seconds("drain_latency_s.max", "Drain max", s),
      count("drain_latency_s.count", "Drains", s, "process", "processes"),
      count("graceful_exits", "Graceful exits", s, "process", "processes"),
      count("forced_kills", "Forced kills (SIGKILL)", s, "process", "processes"),
      count("exits.clean", "Exited clean", s, "process", "processes"),
      count("exits.died_on_term", "Died on TERM", s, "process", "processes"),
      count("exits.exited_with_error", "Exited with error", s, "process", "processes"),
      count("exits.killed_at_deadline", "Killed at the grace deadline", s, "process", "processes"),
      count("exits.killed_by_signal", "Killed by a signal", s, "process", "processes"),
      count("exits.oom_killed", "OOM-killed", s, "process", "processes"),
      count("processes_running_at_end", "Still running at the end", s, "process", "processes"),
      count("shutdown_retries", "Shutdown retries", s, "execution", "executions"),
      seconds("wasted_work_s", "Wasted work", s),

      seconds("orphan_recovery_delay_s.p50", "Orphan recovery p50", r),
      seconds("orphan_recovery_delay_s.max", "Orphan recovery max", r),
      count("orphan_recovery_delay_s.count", "Orphans recovered", r, "attempt", "attempts"),
      // 3.3: the same returns, those the worker handed back apart from the backend's.
      count("requeue_delay_s.count", "Handed back by the worker", r, "job", "jobs"),
      seconds("requeue_delay_s.p50", "Requeue delay p50", r),
      seconds("requeue_delay_s.p99", "Requeue delay p99", r),
      seconds("requeue_delay_s.max", "Requeue delay max", r),
      count("backend_recovery_delay_s.count", "Recovered by the backend", r, "job", "jobs"),
      seconds("backend_recovery_delay_s.p50", "Backend recovery p50", r),
      seconds("backend_recovery_delay_s.p99", "Backend recovery p99", r),
      seconds("backend_recovery_delay_s.max", "Backend recovery max", r),
      count("redeliveries", "Redeliveries (job running twice)", r, "execution", "executions"),
      count("stuck_at_end", "Stuck at the end", r, "job", "jobs"),

      count("deploy_duration_s.count", "Deploys finished", d, "deploy", "deploys"),
      seconds("deploy_duration_s.mean", "Deploy duration (mean)", d),
      count("deploys_superseded", "Deploys superseded", d, "deploy", "deploys"),
      count("deploys_unfinished", "Deploys unfinished at the end", d, "deploy", "deploys"),
  };
  // Job loss and interrupted jobs by the class of the event that caused them (3.3); the
  // table under the audit has them per event.
  const std::pair<const char*, const char*> classes[] = {{"deploys", "deploys"},
                                                         {"scale_downs", "scale-downs"},
                                                         {"node_drains", "node drains"},
                                                         {"pod_deletions", "pod deletions"},
                                                         {"oom_kills", "OOM kills"},
                                                         {"signals", "signals"},
                                                         {"none", "no event"}};
  auto at = std::find_if(out.begin(), out.end(), [&](const MetricInfo& m) { return m.group == s; });
  std::vector<MetricInfo> by_class;
  for (const char* figure : {"job_loss", "interrupted"}) {
    for (const auto& [key, name] : classes) {
      by_class.push_back(count(
          fmt::format("{}_by_cause.{}", figure, key),
          fmt::format("{}: {}", figure == std::string_view("job_loss") ? "Job loss" : "Interrupted",
                      name),
          c, "job", "jobs"));
    }
  }
  out.insert(at, by_class.begin(), by_class.end());
  return out;
}

const std::vector<MetricInfo>& table() {
  static const std::vector<MetricInfo> t = make_table();
  return t;
}

// 2431 -> "2,431".
std::string grouped(double v) {
  const long long n = std::llround(std::fabs(v));
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (v < 0 ? "−" : "") + out;
}

bool integral(double v) { return std::fabs(v - std::round(v)) < 1e-9 && std::fabs(v) < 1e15; }

std::string plain(double v) { return integral(v) ? grouped(v) : fmt::format("{:.4g}", v); }

}  // namespace

const std::vector<std::string>& summary_groups() {
  static const std::vector<std::string> g = {"headline", "jobs",    "causes", "shutdown",
                                             "recovery", "deploys", "audit",  "other"};
  return g;
}

std::string group_title(std::string_view group) {
  if (group == "headline") return "Headline";
  if (group == "jobs") return "Jobs";
  if (group == "causes") return "By cause";
  if (group == "shutdown") return "Shutdown";
  if (group == "recovery") return "Recovery";
  if (group == "deploys") return "Deploys";
  if (group == "audit") return "Audit";
  return "Other (not known to this viewer)";
}

const std::vector<MetricInfo>& known_metrics() { return table(); }

MetricInfo metric_info(std::string_view key) {
  for (const MetricInfo& m : table()) {
    if (m.key == key) return m;
  }
  const std::string_view head = key.substr(0, key.find('.'));
  const bool in_seconds = head.size() > 2 && head.substr(head.size() - 2) == "_s";
  return {std::string(key),
          std::string(key),
          "other",
          in_seconds ? Unit::kSeconds : Unit::kNumber,
          {},
          {}};
}

std::vector<std::string> known_children(std::string_view parent) {
  std::vector<std::string> out;
  for (const MetricInfo& m : table()) {
    if (m.key.size() > parent.size() && m.key.compare(0, parent.size(), parent) == 0 &&
        m.key[parent.size()] == '.') {
      out.push_back(m.key);
    }
  }
  return out;
}

std::string readable_seconds(double s) {
  if (!std::isfinite(s)) return s < 0 ? "−inf" : "inf";
  const std::string sign = s < 0 ? "−" : "";
  const double a = std::fabs(s);
  if (a == 0) return "0 s";
  if (a < 1) {
    const std::string ms = fmt::format("{:.3g} ms", a * 1000);
    if (ms != "1e+03 ms") return sign + ms;  // 0.9996 s rounds up: 1 s below
  }
  if (a < 59.95) return sign + fmt::format("{:.3g} s", std::max(a, 1.0));
  return sign + format_duration(static_cast<Duration>(std::llround(a)) * kSecond);
}

std::string format_value(const MetricInfo& m, double value) {
  switch (m.unit) {
    case Unit::kCount:
      if (m.many.empty() || !integral(value)) return plain(value);
      return grouped(value) + " " + (std::llround(value) == 1 ? m.one : m.many);
    case Unit::kSeconds:
      return readable_seconds(value);
    case Unit::kPercent:
      return value == 0 ? "0 %" : fmt::format("{:.3g} %", value * 100);
    case Unit::kNumber:
      return plain(value);
  }
  return plain(value);
}

std::string format_difference(const MetricInfo& m, double value, double base) {
  const double d = value - base;
  if (d == 0) return "";
  const std::string sign = d > 0 ? "+" : "−";
  const double a = std::fabs(d);
  switch (m.unit) {
    case Unit::kCount:
    case Unit::kNumber:
      return sign + plain(a);
    case Unit::kSeconds:
      return sign + readable_seconds(a);
    case Unit::kPercent:
      return sign + fmt::format("{:.3g} pp", a * 100);
  }
  return sign + plain(a);
}

}  // namespace drainsim::viewer
