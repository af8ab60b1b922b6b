#include "model/config_warnings.h"

#include <fmt/format.h>

namespace drainsim {

std::vector<Warning> config_warnings(const Scenario& s) {
  std::vector<Warning> out;
  const PlatformConfig& p = s.platform;
  if (p.pid1_shell) return out;  // TERM never reaches the worker: neither grace matters
  const Duration grace = p.grace_period();
  const char* grace_field =
      p.kubernetes() ? "platform.termination_grace_period" : "platform.stop_grace_period";
  const Duration pre_stop = p.kubernetes() ? pre_stop_time(p.pre_stop) : 0;
  if (pre_stop > 0 && pre_stop >= grace) {
    Warning& w = out.emplace_back();
    w.code = "pre_stop_outlasts_platform";
    w.message = fmt::format(
        "the preStop {} may hold TERM back for all of {} {}: kubelet then sends TERM with "
        "{} left before SIGKILL, so the worker drains for {} at most; make the preStop "
        "shorter than {} or raise {} above {}",
        pre_stop_text(p.pre_stop), grace_field, format_duration(grace),
        format_duration(kPreStopExtension), format_duration(kPreStopExtension),
        format_duration(grace), grace_field, format_duration(pre_stop));
    w.figures = {{"pre_stop_s", to_seconds(pre_stop)}, {"platform_grace_s", to_seconds(grace)}};
    return out;
  }
  // quiet_then_wait sends TERM only once the worker is idle (and SIGKILLs it at its
  // timeout): no job waits on the worker's grace then.
  if (p.kubernetes() && p.pre_stop.kind == PreStop::Kind::kQuietThenWait) return out;
  const Duration worker = s.worker.grace_period;
  const Duration left = grace - pre_stop;
  if (worker == kNever || worker < left || !s.worker.shutdown.handles_term) return out;
  Warning& w = out.emplace_back();
  w.code = "worker_grace_outlasts_platform";
  const std::string after = pre_stop > 0
                                ? fmt::format("{} {} − preStop {}", grace_field,
                                              format_duration(grace), pre_stop_text(p.pre_stop))
                                : fmt::format("{} {}", grace_field, format_duration(grace));
  const std::string when =
      worker > left ? "the SIGKILL comes before the worker's own deadline, so the jobs still "
                      "running then are killed, not handed back"
                    : "the SIGKILL comes with the worker's own deadline, so what the worker does "
                      "then (hand its jobs back, fail them) races the kill";
  w.message = fmt::format(
      "worker.grace_period {} is {} the {} the platform leaves the worker after its TERM ({}): "
      "{}; set worker.grace_period below {}, by the time the worker needs to hand its jobs "
      "back, or raise {} above {}",
      format_duration(worker), worker > left ? "longer than" : "as long as", format_duration(left),
      after, when, format_duration(left), grace_field, format_duration(worker + pre_stop));
  w.figures = {{"worker_grace_s", to_seconds(worker)},
               {"platform_grace_s", to_seconds(grace)},
               {"pre_stop_s", to_seconds(pre_stop)},
               {"left_after_pre_stop_s", to_seconds(left)}};
  return out;
}

}  // namespace drainsim
