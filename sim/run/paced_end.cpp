#include "run/paced_end.h"

#include <algorithm>

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

}  // namespace drainsim
