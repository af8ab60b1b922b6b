#include "run/simulation.h"

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <future>
#include <mutex>

#include <fmt/format.h>
#include <boost/asio/signal_set.hpp>

#include "engine/asio_runtime.h"
#include "engine/virtual_runtime.h"
#include "io/results.h"
#include "model/platform.h"
#include "model/script.h"
#include "model/workload.h"
#include "process/process_engine_server.h"
#include "profiles/profile.h"
#include "run/real_run.h"

namespace drainsim {

namespace {

// The models of one run on one Runtime; single-threaded (one strand on real threads).
struct Run {
  // `processes` makes the platform's processes from the run's backend and recorder;
  // simulated ones when it is empty.
  using MakeProcesses = std::function<ProcessFactory(Backend&, Recorder&)>;
  Run(Runtime& runtime, const Scenario& s, const RunOptions& o, const MakeProcesses& processes = {})
      : rt(runtime),
        scenario(s),
        worker_command(o.engine != Engine::kProcess ? ""
                       : o.worker_cmd.empty()       ? "drainsim-worker"
                                                    : o.worker_cmd),
        spill(o.timeline && o.stream_timeline ? std::make_shared<TimelineSpill>() : nullptr),
        recorder(o.timeline, spill.get()),
        backend(rt, s.backend, s.backend.mechanisms, recorder, o.faults),
        platform(rt, s, backend, recorder,
                 processes ? processes(backend, recorder)
                           : simulated_processes(
                                 rt, s, backend, recorder,
                                 o.engine == Engine::kVirtual ? JobBody::kTimer : o.job_body,
                                 o.time_scale)),
        script(s, platform),
        workload(rt, s.workload, s.duration, enqueue_into(backend, s.workload.queue)) {
    recorder.watch_queue(s.duration);
  }

  // Initial pods first, then scripted events, then arrivals: at t=0 events run first.
  void start() {
    platform.start();
    script.start(rt);
    workload.start();
  }
  // Nothing is left to happen (docs/design.md, Semantics: run and time).
  bool quiet() const {
    return workload.done() && script.done() && backend.unfinished() == 0 &&
           recorder.in_flight() == 0 && !platform.busy();
  }
  RunOutput finish(Time ended_at, bool early, std::uint64_t events, Engine engine,
                   Interruption interrupted = {}) {
    RunOutput out;
    interrupted.events = events;
    out.summary = summarize(scenario, recorder, platform, recorder.finish(backend), ended_at, early,
                            interrupted);
    out.interrupted = !interrupted.by.empty();
    out.events = events;
    out.ended_at = ended_at;
    out.results = build_results(scenario, out.summary, platform, to_string(engine));
    if (!worker_command.empty()) out.results["run"]["worker_command"] = worker_command;
    if (spill) {
      out.timeline = spill;
    } else if (recorder.timeline()) {
      out.results["timeline"] = timeline_json(recorder.take_timeline());
    }
    out.hash = stamp_hash(out.results, out.timeline.get());
    return out;
  }

  Runtime& rt;
  const Scenario& scenario;
  const std::string worker_command;            // process: what ran each worker ("" otherwise)
  const std::shared_ptr<TimelineSpill> spill;  // the timeline, with stream_timeline
  Recorder recorder;
  Backend backend;
  Platform platform;
  Script script;
  Workload workload;
};

RunOutput run_virtual(const Scenario& s, const RunOptions& o) {
  VirtualRuntime rt(s.seed);
  Run run(rt, s, o);
  run.start();
  const Time end = s.duration + s.settle;
  bool early = run.quiet();
  // The limit and the watch are looked at every kWatchEvents events (and at the limit).
  const std::uint64_t limit = o.max_events > 0 ? o.max_events : UINT64_MAX;
  std::uint64_t next_look = std::min(kWatchEvents, limit);
  Interruption stopped;
  while (!early && rt.step(end)) {
    early = run.quiet();
    if (rt.events_run() < next_look || early) continue;
    if (rt.events_run() >= limit) {
      stopped.by = "event_limit";
      break;
    }
    if (o.keep_going && !o.keep_going(rt.now(), end, rt.events_run())) {
      stopped.by = "signal";
      break;
    }
    next_look = std::min(rt.events_run() + kWatchEvents, limit);
  }
  const Time ended_at = early || !stopped.by.empty() ? rt.now() : end;
  return run.finish(ended_at, early, rt.events_run(), Engine::kVirtual, stopped);
}

// The end of a run on a real-time engine: once it is quiet (check(), called after every
// callback on the models' side), when its end timer fires, or when told (finish()). The
// end timer is due 1 µs after duration + settle, so every timer of the models due at or
// before the end fires first, in order, however far behind the wall clock the strand
// is: a late strand catches up rather than dropping work that was due (the virtual
// engine's rt.step(end)). All on the models' side; the driver waits with wait().
class RealEnd final : public TimerTarget {
 public:
  RealEnd(StrandRuntime& rt, const Run& run, Time end, std::function<void(Time, Time)> on_time = {})
      : rt_(rt), run_(run), end_(end), on_time_(std::move(on_time)) {}

  // Starts the run on the models' strand (`start` may throw: the run then ends at once).
  void start(const std::function<void()>& start) {
    rt_.set_after_each([this] { check(); });
    rt_.post([this, start] {
      try {
        start();
      } catch (const std::exception& e) {
        failure = e.what();
        finish(rt_.now(), false);
        return;
      }
      rt_.schedule(end_ + 1, Priority::kBackend, this, 0);
      check();
    });
  }
  void check() {
    // A callback already under way when the run ended still calls this: no report after it.
    if (finished_) return;
    if (on_time_ && rt_.now() >= next_report_) {
      on_time_(rt_.now(), end_);
      next_report_ = rt_.now() + std::max<Duration>(end_ / 200, 1);
    }
    if (run_.quiet()) {
      // Quiet after the end in wall time (the strand was behind): the work is done, at the end.
      const Time now = rt_.now();
      finish(std::min(now, end_), now < end_);
    }
  }
  void finish(Time at, bool early) {
    if (finished_) return;
    finished_ = true;
    rt_.halt();
    done_.set_value({at, early});
  }
  bool finished() const { return finished_; }
  // Blocks until the run has ended: when, and whether early.
  std::pair<Time, bool> wait() { return done_.get_future().get(); }
  void on_timer(std::uint32_t, std::uint64_t) override { finish(end_, false); }

  std::string failure;  // why start() failed

 private:
  StrandRuntime& rt_;
  const Run& run_;
  Time end_;
  std::function<void(Time, Time)> on_time_;
  Time next_report_ = 0;
  std::promise<std::pair<Time, bool>> done_;
  bool finished_ = false;
};

// SIGINT or SIGTERM ends a real-time run early, its results partial: `interrupted` is set
// (on the models' strand) when the signal ended a run that had not ended by itself.
void end_on_signals(boost::asio::signal_set& signals, StrandRuntime& rt, RealEnd& ending,
                    bool& interrupted) {
  signals.async_wait([&](const boost::system::error_code& ec, int) {
    if (ec) return;
    rt.post([&] {
      interrupted = !ending.finished();
      ending.finish(rt.now(), false);
    });
  });
}

// Timers that fire later than this, in simulated time, make a run on a real-time engine
// warn `timers_late` (docs/engines.md): 1 % of the scenario's duration.
Duration lateness_tolerance(const Scenario& s) { return s.duration / 100; }

// The `timers_late` warning, when any timer of `strands` fired later than the tolerance.
void warn_if_late(Recorder& recorder, const Scenario& s, double time_scale,
                  const std::vector<const StrandRuntime*>& strands) {
  StrandRuntime::Behind behind;
  for (const StrandRuntime* strand : strands) {
    const StrandRuntime::Behind b = strand->behind();
    behind.most = std::max(behind.most, b.most);
    behind.beyond_tolerance += b.beyond_tolerance;
  }
  if (behind.beyond_tolerance == 0) return;
  const Duration tolerance = lateness_tolerance(s);
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

// The same models paced to the wall clock on one strand of a thread pool, every worker
// process on a strand of its own; a process reaches the models by posting to their strand
// or under their lock (RunOptions::access).
RunOutput run_realtime(const Scenario& s, const RunOptions& o) {
  AsioRuntime asio(s.seed, o.time_scale, o.threads);
  std::unique_ptr<StrandRuntime> rt = asio.strand();  // the models': the virtual streams
  rt->set_tolerance(lateness_tolerance(s));
  std::mutex models_lock;
  const bool locked = o.access == ModelAccess::kLock;
  if (locked) rt->set_lock(&models_lock);
  std::vector<std::unique_ptr<StrandRuntime>> strands;  // the processes'
  std::function<void()> check;                          // the run's end, once it exists
  Run run(*rt, s, o, [&](Backend& backend, Recorder& recorder) -> ProcessFactory {
    // Called on the models' side only (their strand, or under their lock).
    return [&](int pod, ProcessObserver& observer) -> std::unique_ptr<ProcessHandle> {
      strands.push_back(asio.strand());
      StrandRuntime& own = *strands.back();
      own.set_tolerance(lateness_tolerance(s));
      Hops hops;
      hops.to_process = [&own](std::function<void()> fn) { own.post(std::move(fn)); };
      if (locked) {
        hops.to_models = [&](std::function<void()> fn) {
          std::lock_guard held(models_lock);
          fn();
          check();
        };
      } else {
        hops.to_models = [&](std::function<void()> fn) {
          rt->post([&check, fn = std::move(fn)] {
            fn();
            check();
          });
        };
      }
      return std::make_unique<SimulatedProcess>(own, backend, recorder, observer, s.worker,
                                                s.workload, pod, o.job_body, o.time_scale,
                                                s.platform.pid1(), std::move(hops));
    };
  });
  RealEnd ending(*rt, run, s.duration + s.settle, o.on_time);
  check = [&ending] { ending.check(); };
  bool interrupted = false;
  boost::asio::signal_set stop_signals(asio.context(), SIGINT, SIGTERM);
  end_on_signals(stop_signals, *rt, ending, interrupted);
  asio.start();
  ending.start([&run] { run.start(); });
  const auto [ended_at, early] = ending.wait();
  boost::system::error_code ignored;
  stop_signals.cancel(ignored);
  asio.stop();
  std::uint64_t events = rt->events_run();
  std::vector<const StrandRuntime*> all{rt.get()};
  for (const auto& strand : strands) {
    events += strand->events_run();
    all.push_back(strand.get());
  }
  warn_if_late(run.recorder, s, o.time_scale, all);
  return run.finish(ended_at, early, events, Engine::kRealtime, {interrupted ? "signal" : "", 0});
}

std::string default_worker_binary() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("drainsim-worker") : (self.parent_path() / "drainsim-worker").string();
}

// The models on one strand, as on the realtime engine; every container runs a real
// worker process that reaches the backend over HTTP (ProcessEngineServer). SIGINT or SIGTERM
// ends the run early; either way every process is killed and reaped before returning.
RunOutput run_process(const Scenario& s, const RunOptions& o) {
  AsioRuntime asio(s.seed, o.time_scale, o.threads);
  std::unique_ptr<StrandRuntime> rt = asio.strand();
  rt->set_tolerance(lateness_tolerance(s));
  FleetOptions fleet_options;
  fleet_options.worker_binary = o.worker_binary.empty() ? default_worker_binary() : o.worker_binary;
  fleet_options.worker_cmd = o.worker_cmd;
  fleet_options.output = o.worker_log;
  fleet_options.output_cap = o.worker_log_max;
  fleet_options.time_scale = o.time_scale;
  fleet_options.notice = o.on_warning;
  if (o.worker_cmd.empty() &&
      s.worker.shutdown.at_deadline == ShutdownBehaviour::AtDeadline::kRequeue) {
    throw RunError(fmt::format(
        "profile {} hands unfinished jobs back to the queue at the deadline, which the OJS "
        "HTTP binding cannot express: run it on the virtual or realtime engine, or bring your "
        "own worker with --worker-cmd",
        s.worker.profile));
  }
  if (o.worker_cmd.empty() && s.worker.shutdown.reserve_per_slot > 0) {
    throw RunError(fmt::format(
        "profile {} fetches jobs ahead and acknowledges each as it starts it, which the OJS "
        "HTTP binding cannot express: set worker.options.disable_prefetch, run it on the "
        "virtual or realtime engine, or bring your own worker with --worker-cmd",
        s.worker.profile));
  }
  for (std::size_t i = 0; i < s.events.size(); ++i) {
    if (s.events[i].kind == ScenarioEvent::Kind::kOomKillChild) {
      throw RunError(fmt::format(
          "events[{}]: oom_kill_child takes a pool child, and the process engine's workers are "
          "processes with none: run it on the virtual or realtime engine",
          i));
    }
  }
  if (o.worker_cmd.empty() && access(fleet_options.worker_binary.c_str(), X_OK) != 0) {
    throw RunError(fmt::format("cannot run the worker program {}: {}", fleet_options.worker_binary,
                               strerror(errno)));
  }
  std::unique_ptr<ProcessEngineServer> fleet;
  Run run(*rt, s, o, [&](Backend& backend, Recorder& recorder) {
    try {
      fleet = std::make_unique<ProcessEngineServer>(*rt, asio.context(), s, backend, recorder,
                                                    fleet_options);
    } catch (const std::runtime_error& e) {  // the worker log cannot be opened
      throw RunError(e.what());
    }
    return fleet->factory();
  });
  if (s.workload.checkpointing) {
    run.recorder.warning("no_checkpoints",
                         "the process engine's workers save no checkpoints: every attempt "
                         "starts from scratch");
  }
  RealEnd ending(*rt, run, s.duration + s.settle, o.on_time);
  bool interrupted = false;
  fleet->set_after_request([&] {
    if (fleet->fatal().empty()) {
      ending.check();
    } else {
      ending.failure = fleet->fatal();
      ending.finish(rt->now(), false);
    }
  });
  boost::asio::signal_set stop_signals(asio.context(), SIGINT, SIGTERM);
  end_on_signals(stop_signals, *rt, ending, interrupted);
  asio.start();
  ending.start([&run] { run.start(); });
  const auto [ended_at, early] = ending.wait();
  boost::system::error_code ignored;
  stop_signals.cancel(ignored);
  asio.stop();  // nothing runs on the models' strand any more
  const std::optional<Warning> unregistered = fleet->registration_warning();
  const int left = fleet->shut_down();
  if (!ending.failure.empty()) throw RunError(ending.failure);
  warn_if_late(run.recorder, s, o.time_scale, {rt.get()});
  if (unregistered) run.recorder.warning(*unregistered);
  RunOutput out = run.finish(ended_at, early, rt->events_run(), Engine::kProcess,
                             {interrupted ? "signal" : "", 0});
  out.processes_left = left;
  return out;
}

}  // namespace

RunOutput run_scenario(const Scenario& scenario, const RunOptions& options) {
  switch (options.engine) {
    case Engine::kVirtual:
      return run_virtual(scenario, options);
    case Engine::kRealtime:
      return run_realtime(scenario, options);
    case Engine::kProcess:
      return run_process(scenario, options);
    case Engine::kReal:
      return run_real(scenario, options);
  }
  return {};
}

}  // namespace drainsim
