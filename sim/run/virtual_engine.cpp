#include "run/virtual_engine.h"

#include <algorithm>

#include "engine/virtual_runtime.h"
#include "run/models.h"

namespace drainsim {

RunOutput run_virtual(const Scenario& s, const RunOptions& o) {
  VirtualRuntime rt(s.seed);
  Models models(rt, s, o);
  models.start();
  const Time end = s.duration + s.settle;
  bool early = models.quiet();
  // The limit and the watch are looked at every kWatchEvents events (and at the limit).
  const std::uint64_t limit = o.limits.max_events > 0 ? o.limits.max_events : UINT64_MAX;
  std::uint64_t next_look = std::min(kWatchEvents, limit);
  Interruption stopped;
  while (!early && rt.step(end)) {
    early = models.quiet();
    if (rt.events_run() < next_look || early) continue;
    if (rt.events_run() >= limit) {
      stopped.by = "event_limit";
      break;
    }
    if (o.limits.keep_going && !o.limits.keep_going(rt.now(), end, rt.events_run())) {
      stopped.by = "signal";
      break;
    }
    next_look = std::min(rt.events_run() + kWatchEvents, limit);
  }
  const Time ended_at = early || !stopped.by.empty() ? rt.now() : end;
  return models.finish({ended_at, early, rt.events_run(), stopped}, Engine::kVirtual);
}

}  // namespace drainsim
