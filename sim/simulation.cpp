#include "simulation.h"

#include "platform.h"
#include "profile.h"
#include "results.h"
#include "virtual_runtime.h"
#include "workload.h"

namespace drainsim {

namespace {

// Fires the scenario's events at their times.
class Script final : public TimerTarget {
 public:
  Script(Runtime& rt, const Scenario& s, Platform& platform) : s_(s), platform_(platform) {
    for (std::size_t i = 0; i < s.events.size(); ++i) {
      rt.schedule(s.events[i].at, Priority::kScripted, this, 0, i);
    }
  }
  bool done() const { return fired_ == s_.events.size(); }
  void on_timer(std::uint32_t /*tag*/, std::uint64_t arg) override {
    ++fired_;
    platform_.apply(s_.events[arg], arg);
  }

 private:
  const Scenario& s_;
  Platform& platform_;
  std::size_t fired_ = 0;
};

}  // namespace

RunOutput run_scenario(const Scenario& scenario, const RunOptions& options) {
  const Profile* profile = find_profile(scenario.worker.profile);
  VirtualRuntime rt(scenario.seed);
  Recorder recorder(options.timeline);
  Backend backend(rt, scenario.backend, profile ? profile->mechanisms : BackendMechanisms{},
                  recorder, options.faults);
  Platform platform(rt, scenario, backend, recorder);
  platform.start();
  Script script(rt, scenario, platform);
  Workload workload(rt, scenario.workload, scenario.duration, backend);
  workload.start();

  const Time end = scenario.duration + scenario.settle;
  auto quiet = [&] {
    return workload.done() && script.done() && backend.unfinished() == 0 &&
           recorder.in_flight() == 0 && !platform.busy();
  };
  bool early = quiet();
  while (!early && rt.step(end)) early = quiet();
  const Time ended_at = early ? rt.now() : end;

  RunOutput out;
  out.audit = recorder.finish(ended_at, backend);
  out.events = rt.events_run();
  out.ended_at = ended_at;
  out.results = build_results(scenario, recorder, platform, out.audit, ended_at, early);
  out.hash = stamp_hash(out.results);
  return out;
}

}  // namespace drainsim
