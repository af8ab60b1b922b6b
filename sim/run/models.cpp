#include "run/models.h"

#include "io/results.h"
#include "model/simulated_process.h"

namespace drainsim {

ProcessFactory simulated_processes(Runtime& runtime, const Scenario& scenario, Backend& backend,
                                   Recorder& recorder, JobBody bodies) {
  return [&runtime, &scenario, &backend, &recorder, bodies](
             int pod, ProcessObserver& observer) -> std::unique_ptr<ProcessHandle> {
    return std::make_unique<SimulatedProcess>(runtime, backend, recorder, observer, scenario.worker,
                                              scenario.workload, pod, bodies,
                                              scenario.platform.pid1());
  };
}

Models::Models(Runtime& runtime, const Scenario& s, const RunOptions& o,
               const MakeProcesses& processes, JobSink arrivals)
    : rt(runtime),
      scenario(s),
      options(o),
      spill(o.timeline && o.stream_timeline ? std::make_shared<TimelineSpill>() : nullptr),
      recorder(o.timeline, spill.get()),
      backend(rt, s.backend, s.backend.mechanisms, recorder, o.faults),
      platform(
          rt, s, backend, recorder,
          processes ? processes(backend, recorder) : simulated_processes(rt, s, backend, recorder)),
      script(s, platform),
      workload(rt, s.workload, s.duration,
               arrivals ? std::move(arrivals) : enqueue_into(backend, s.workload.queue)) {
  recorder.watch_queue(s.duration);
}

void Models::start() {
  platform.start();
  script.start(rt);
  workload.start();
}

bool Models::quiet() const {
  return workload.done() && script.done() && backend.unfinished() == 0 &&
         recorder.in_flight() == 0 && !platform.busy();
}

RunOutput Models::finish(const RunEnding& ending, Engine engine,
                         const std::function<void(RunOutput&)>& add) {
  return finish(ending, engine, backend, add);
}

RunOutput Models::finish(const RunEnding& ending, Engine engine, const BackendView& broker,
                         const std::function<void(RunOutput&)>& add) {
  RunOutput out;
  Interruption interrupted = ending.interrupted;
  interrupted.events = ending.events;
  out.summary = summarize(scenario, recorder, platform, recorder.finish(broker), ending.at,
                          ending.early, interrupted);
  out.failed = interrupted.by == "failure";
  out.interrupted = !interrupted.by.empty() && !out.failed;
  out.events = ending.events;
  out.ended_at = ending.at;
  out.results = build_results(scenario, out.summary, platform, to_string(engine));
  out.processes = platform.processes();
  if (add) add(out);
  if (spill) {
    out.timeline = spill;
  } else if (recorder.timeline() && options.timeline_records) {
    out.records = std::make_shared<const Timeline>(recorder.take_timeline());
  } else if (recorder.timeline()) {
    out.results["timeline"] = timeline_json(recorder.take_timeline());
  }
  out.hash = stamp_hash(out.results, out.timeline.get());
  return out;
}

}  // namespace drainsim
