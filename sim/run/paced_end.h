// PacedEnd: how a run on an engine paced to the wall clock (realtime, process) is driven
// to its end. The run ends once it is quiet (check(), called after every callback on the
// models' side), when its end timer fires, when told (finish()), or on SIGINT or SIGTERM
// (its results then partial). The end timer is due 1 µs after duration + settle, so every
// timer of the models due at or before the end fires first, in order, however far behind
// the wall clock the strand is: a late strand catches up rather than dropping work that
// was due (the virtual engine's rt.step(end)). check() and finish() run on the models'
// side; run() is the driver's. Also the warning both engines give for timers that fired
// late. Internal to run/.
#pragma once

#include <functional>
#include <future>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/asio_runtime.h"
#include "model/recorder.h"
#include "model/scenario.h"
#include "run/models.h"

namespace drainsim {

class PacedEnd final : public TimerTarget {
 public:
  // `rt`: the models' strand; `on_time`: told the time as the run goes (PacedOptions).
  PacedEnd(StrandRuntime& rt, Models& models, std::function<void(Time, Time)> on_time = {});

  // Starts the pool and the models (Models::start on their strand), waits for the end and
  // stops the pool: nothing runs on the models' side once it returns. A start that throws
  // ends the run at once, `failure` saying why.
  RunEnding run(AsioRuntime& asio);
  // Reports the time (on_time) and ends the run once the models are quiet.
  void check();
  // Ends the run at `at` (early: nothing was left to happen); later calls do nothing.
  void finish(Time at, bool early);
  void on_timer(std::uint32_t, std::uint64_t) override { finish(end_, false); }

  std::string failure;  // why the run could not go on

 private:
  StrandRuntime& rt_;
  Models& models_;
  Time end_;
  std::function<void(Time, Time)> on_time_;
  Time next_report_ = 0;
  std::promise<std::pair<Time, bool>> done_;
  bool finished_ = false;
};

// Timers that fire later than this, in simulated time, make the run warn `timers_late`
// (docs/engines.md): 1 % of the scenario's duration.
Duration lateness_tolerance(const Scenario& s);

// The `timers_late` warning, when any timer of `strands` fired later than the tolerance.
// REQUIRES: `strands` is not empty.
void warn_if_late(Recorder& recorder, const Scenario& s,
                  const std::vector<const StrandRuntime*>& strands);

// Job bodies that end, all told, more than this share of their work late make the run
// warn `engine_behind`: 5 %, fidelity's default tolerance for a time.
double stretch_bound();

// How far a paced run's strands lagged their time scale, in simulated time (results
// run.pacing, docs/engines.md): said of every such run, kept up or not.
struct Pacing {
  double time_scale = 0;
  std::uint64_t timers = 0, handlers = 0, bodies = 0;     // how many were measured
  double late_p50_s = 0, late_p99_s = 0, late_max_s = 0;  // the timers' and handlers'
  double timers_late_p99_s = 0, handlers_late_p99_s = 0;  // each kind's own (3.5)
  double bodies_late_percent = 0;                         // of the bodies' work
  bool behind = false;                                    // engine_behind was raised
};
nlohmann::json pacing_json(const Pacing& p);

// The `engine_behind` warning (docs/engines.md, "Falling behind the wall clock"), when the
// strands lagged their time scale past a bound: the 99th percentile of their timers' and
// handlers' lateness past lateness_tolerance(), or their job bodies' lateness past
// stretch_bound() of their work. `thread_bodies`: the bodies ran on threads (its advice).
// Returns the figures it judged. REQUIRES: `strands` is not empty; the pool has stopped.
Pacing warn_if_behind(Recorder& recorder, const Scenario& s,
                      const std::vector<const StrandRuntime*>& strands, bool thread_bodies);

}  // namespace drainsim
