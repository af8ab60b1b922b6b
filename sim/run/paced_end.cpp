#include "run/paced_end.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <boost/asio/signal_set.hpp>

namespace drainsim {

PacedEnd::PacedEnd(StrandRuntime& rt, Models& models, std::function<void(Time, Time)> on_time)
    : rt_(rt),
      models_(models),
      end_(models.scenario.duration + models.scenario.settle),
      on_time_(std::move(on_time)) {}

RunEnding PacedEnd::run(AsioRuntime& asio) {
  bool interrupted = false;  // on the models' strand
  boost::asio::signal_set signals(asio.context(), SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code& ec, int) {
    if (ec) return;
    rt_.post([&] {
      interrupted = !finished_;
      finish(rt_.now(), false);
    });
  });
  rt_.set_after_each([this] { check(); });
  asio.start();
  rt_.post([this] {
    try {
      models_.start();
    } catch (const std::exception& e) {
      failure = e.what();
      finish(rt_.now(), false);
      return;
    }
    rt_.schedule(end_ + 1, Priority::kBackend, this, 0);
    check();
  });
  const auto [at, early] = done_.get_future().get();
  boost::system::error_code ignored;
  signals.cancel(ignored);
  asio.stop();  // nothing runs on the models' strand any more
  Interruption stopped;
  if (interrupted) stopped.by = "signal";
  return {at, early, rt_.events_run(), stopped};
}

void PacedEnd::check() {
  // A callback already under way when the run ended still calls this: no report after it.
  if (finished_) return;
  if (on_time_ && rt_.now() >= next_report_) {
    on_time_(rt_.now(), end_);
    next_report_ = rt_.now() + std::max<Duration>(end_ / 200, 1);
  }
  if (models_.quiet()) {
    // Quiet after the end in wall time (the strand was behind): the work is done, at the end.
    const Time now = rt_.now();
    finish(std::min(now, end_), now < end_);
  }
}

void PacedEnd::finish(Time at, bool early) {
  if (finished_) return;
  finished_ = true;
  rt_.halt();
  done_.set_value({at, early});
}

Duration lateness_tolerance(const Scenario& s) { return s.duration / 100; }

void warn_if_late(Recorder& recorder, const Scenario& s,
                  const std::vector<const StrandRuntime*>& strands) {
  StrandRuntime::Behind behind;
  for (const StrandRuntime* strand : strands) {
    const StrandRuntime::Behind b = strand->behind();
    behind.most = std::max(behind.most, b.most);
    behind.beyond_tolerance += b.beyond_tolerance;
  }
  if (behind.beyond_tolerance == 0) return;
  const Duration tolerance = lateness_tolerance(s);
  const double time_scale = strands.front()->time_scale();
  recorder.warning(Warning{
      "timers_late",
      fmt::format("the engine fell behind the wall clock: {} timers fired more than {} late "
                  "(1 % of the duration), the latest {} late in simulated time ({:.3f} ms "
                  "of real time at --time-scale {}); every timer due before the end still "
                  "fired, in order, but the run's timings are stretched: lower --time-scale",
                  behind.beyond_tolerance, format_seconds(to_seconds(tolerance)),
                  format_seconds(to_seconds(behind.most)),
                  to_seconds(behind.most) * 1000 / time_scale, time_scale),
      {{"timers_late", static_cast<double>(behind.beyond_tolerance)},
       {"tolerance_s", to_seconds(tolerance)},
       {"most_late_s", to_seconds(behind.most)},
       {"time_scale", time_scale}}});
}

double stretch_bound() { return 0.05; }

namespace {

// At least two significant digits, no exponent: 3030, 99, 0.22.
std::string two_digits(double v) {
  const int decimals = v > 0 ? std::max(0, 1 - static_cast<int>(std::floor(std::log10(v)))) : 0;
  return fmt::format("{:.{}f}", v, decimals);
}

}  // namespace

nlohmann::json pacing_json(const Pacing& p) {
  const auto real_ms = [&p](double s) { return p.time_scale > 0 ? 1000 * s / p.time_scale : 0.0; };
  return {{"time_scale", p.time_scale},
          {"timers", p.timers},
          {"handlers", p.handlers},
          {"bodies", p.bodies},
          {"late_p50_s", p.late_p50_s},
          {"late_p99_s", p.late_p99_s},
          {"late_max_s", p.late_max_s},
          {"late_p99_real_ms", real_ms(p.late_p99_s)},
          {"timers_late_p99_s", p.timers_late_p99_s},
          {"timers_late_p99_real_ms", real_ms(p.timers_late_p99_s)},
          {"handlers_late_p99_s", p.handlers_late_p99_s},
          {"handlers_late_p99_real_ms", real_ms(p.handlers_late_p99_s)},
          {"bodies_late_percent", p.bodies_late_percent},
          {"behind", p.behind}};
}

Pacing warn_if_behind(Recorder& recorder, const Scenario& s,
                      const std::vector<const StrandRuntime*>& strands, bool thread_bodies) {
  StrandRuntime::Lag lag;
  for (const StrandRuntime* strand : strands) lag += strand->lag();
  const auto mean = [](Duration sum, std::uint64_t n) {
    return n ? to_seconds(sum) / static_cast<double>(n) : 0.0;
  };
  const double tolerance = to_seconds(lateness_tolerance(s));
  const Percentiles queued = lag.queued();
  const auto at = [](const Percentiles& p, double q) { return p.count() ? p.quantile(q) : 0.0; };
  const double p99 = at(queued, 0.99);
  const double stretch = lag.bodies_work > 0 ? static_cast<double>(lag.bodies_late) /
                                                   static_cast<double>(lag.bodies_work)
                                             : 0.0;
  const bool queues_behind = p99 > tolerance;
  const bool bodies_behind = stretch > stretch_bound();
  const double scale = strands.front()->time_scale();
  Pacing pacing;
  pacing.time_scale = scale;
  pacing.timers = lag.timers;
  pacing.handlers = lag.handlers;
  pacing.bodies = lag.bodies;
  pacing.late_p50_s = at(queued, 0.5);
  pacing.late_p99_s = p99;
  pacing.timers_late_p99_s = at(lag.timers_queued, 0.99);
  pacing.handlers_late_p99_s = at(lag.handlers_queued, 0.99);
  pacing.late_max_s = to_seconds(std::max(lag.timers_most, lag.handlers_most));
  pacing.bodies_late_percent = 100 * stretch;
  pacing.behind = queues_behind || bodies_behind;
  if (!pacing.behind) return pacing;
  // Lateness in real time taken to stay as measured, so in simulated time it scales with
  // the time scale: the scale at which each figure would meet its bound.
  double keeps_up = scale;
  if (p99 > 0) keeps_up = std::min(keeps_up, scale * tolerance / p99);
  if (stretch > 0) keeps_up = std::min(keeps_up, scale * stretch_bound() / stretch);
  std::string what;
  if (lag.bodies > 0) {
    what = fmt::format(
        "job bodies ended on average {} after their work was done, {:.1f} % of it (bound "
        "{:.0f} %): the fleet's slots were held {:.1f} slot-seconds longer than their jobs asked",
        format_seconds(mean(lag.bodies_late, lag.bodies)), 100 * stretch, 100 * stretch_bound(),
        to_seconds(lag.bodies_late));
  }
  what += fmt::format(
      "{}timers and handlers ran up to {} late, {} at the 99th percentile (bound {}, 1 % of the "
      "duration)",
      what.empty() ? "" : "; ",
      format_seconds(to_seconds(std::max(lag.timers_most, lag.handlers_most))), format_seconds(p99),
      format_seconds(tolerance));
  recorder.warning(Warning{
      "engine_behind",
      fmt::format("the engine fell behind its time scale ({}x): {}. The queue, latencies and "
                  "completions measure the engine's lag, not the fleet (no queue-growth "
                  "judgement is made): lower --time-scale to about {} or less (estimated){}",
                  scale, what, two_digits(keeps_up),
                  thread_bodies && bodies_behind
                      ? "; job bodies on threads (--job-body sleep or spin) load the machine "
                        "at any scale, --job-body timer does not"
                      : ""),
      {{"time_scale", scale},
       {"timers_late_mean_s", mean(lag.timers_late, lag.timers)},
       {"timers_late_max_s", to_seconds(lag.timers_most)},
       {"handlers_late_mean_s", mean(lag.handlers_late, lag.handlers)},
       {"handlers_late_max_s", to_seconds(lag.handlers_most)},
       {"late_p99_s", p99},
       {"tolerance_s", tolerance},
       {"bodies_late_mean_s", mean(lag.bodies_late, lag.bodies)},
       {"bodies_late_max_s", to_seconds(lag.bodies_most)},
       {"bodies_late_percent", 100 * stretch},
       {"bodies_late_bound_percent", 100 * stretch_bound()},
       {"slot_s_lost", to_seconds(lag.bodies_late)},
       {"sustainable_time_scale", keeps_up}}});
  return pacing;
}

}  // namespace drainsim
