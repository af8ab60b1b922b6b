// Models: the models of one run wired together on a Runtime — recorder, backend, platform,
// scripted events, workload — and how a run of them ends in a RunOutput. Every engine
// builds one (run/*_engine.cpp); the engines differ in where the platform's processes come
// from, where arriving jobs go and how time moves. Internal to run/. Single-threaded: on a
// real-time engine, used on the models' strand (or under their lock) only.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "model/backend.h"
#include "model/platform.h"
#include "model/recorder.h"
#include "model/run_summary.h"
#include "model/scenario.h"
#include "model/script.h"
#include "model/workload.h"
#include "run/run_options.h"

namespace drainsim {

// Simulated worker processes (SimulatedProcess), each hosting a WorkerCore whose job
// bodies run as `bodies` say, on `runtime` (virtual: timers).
ProcessFactory simulated_processes(Runtime& runtime, const Scenario& scenario, Backend& backend,
                                   Recorder& recorder, JobBody bodies = JobBody::kTimer);

// How a run ended: when, whether early (nothing was left to happen), the events run, and
// whether something stopped it before its end.
struct RunEnding {
  Time at = 0;
  bool early = false;
  std::uint64_t events = 0;
  Interruption interrupted;
};

struct Models {
  // Makes the platform's processes from the run's backend and recorder; empty: simulated
  // processes (simulated_processes, with the virtual engine's timer bodies).
  using MakeProcesses = std::function<ProcessFactory(Backend&, Recorder&)>;
  // `arrivals`: where each arriving job goes; empty: the backend's queue.
  Models(Runtime& runtime, const Scenario& s, const RunOptions& o,
         const MakeProcesses& processes = {}, JobSink arrivals = {});

  // Initial pods first, then scripted events, then arrivals: at t=0 events run first.
  void start();
  // Nothing is left to happen (docs/design.md, Semantics: run and time).
  bool quiet() const;

  // The run's output: the summary (the audit against the backend, or against `broker` where
  // the jobs are held elsewhere: the real engine's), the results document of `engine`, the
  // timeline as the options asked, and the hash. `add` adds the engine's own part to the
  // output before the document is hashed.
  RunOutput finish(const RunEnding& ending, Engine engine,
                   const std::function<void(RunOutput&)>& add = {});
  RunOutput finish(const RunEnding& ending, Engine engine, const BackendView& broker,
                   const std::function<void(RunOutput&)>& add = {});

  Runtime& rt;
  const Scenario& scenario;
  const RunOptions& options;
  const std::shared_ptr<TimelineSpill> spill;  // the timeline, with stream_timeline
  Recorder recorder;
  Backend backend;  // the real engine's stands unused: its jobs are in the broker
  Platform platform;
  Script script;
  Workload workload;
};

}  // namespace drainsim
