#include "run/realtime_engine.h"

#include <memory>
#include <mutex>
#include <vector>

#include "engine/asio_runtime.h"
#include "model/simulated_process.h"
#include "run/models.h"
#include "run/paced_end.h"

namespace drainsim {

RunOutput run_realtime(const Scenario& s, const RunOptions& o) {
  AsioRuntime asio(s.seed, o.paced.time_scale, o.paced.threads);
  std::unique_ptr<StrandRuntime> rt = asio.strand();  // the models': the virtual streams
  rt->set_tolerance(lateness_tolerance(s));
  std::mutex models_lock;
  const bool locked = o.realtime.access == ModelAccess::kLock;
  if (locked) rt->set_lock(&models_lock);
  std::vector<std::unique_ptr<StrandRuntime>> strands;  // the processes'
  std::function<void()> check;                          // the run's end, once it exists
  Models models(*rt, s, o, [&](Backend& backend, Recorder& recorder) -> ProcessFactory {
    // Called on the models' side only (their strand, or under their lock).
    return [&](int pod, ProcessObserver& observer) -> std::unique_ptr<ProcessHandle> {
      strands.push_back(asio.strand());
      StrandRuntime& own = *strands.back();
      own.set_tolerance(lateness_tolerance(s));
      Hops hops;
      hops.to_process = [&own](std::function<void()> fn) { own.post(std::move(fn)); };
      if (locked) {
        hops.to_models = [&models_lock, &check, strand = &own](std::function<void()> fn) {
          const std::unique_lock held = strand->acquire(models_lock);
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
                                                s.workload, pod, o.realtime.job_body,
                                                s.platform.pid1(), std::move(hops));
    };
  });
  PacedEnd ending(*rt, models, o.paced.on_time);
  check = [&ending] { ending.check(); };
  RunEnding ended = ending.run(asio);
  std::vector<const StrandRuntime*> all{rt.get()};
  for (const auto& strand : strands) {
    ended.events += strand->events_run();
    all.push_back(strand.get());
  }
  warn_if_late(models.recorder, s, all);
  const Pacing pacing =
      warn_if_behind(models.recorder, s, all, o.realtime.job_body != JobBody::kTimer);
  return models.finish(ended, Engine::kRealtime,
                       [&](RunOutput& out) { out.results["run"]["pacing"] = pacing_json(pacing); });
}

}  // namespace drainsim
