#include "model/footprint.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "base/byte_size.h"
#include "model/load.h"

namespace drainsim {

namespace {

using EK = ScenarioEvent::Kind;

// The jobs held at once at the peak, and the fields that set their number.
MemoryPart jobs_held(const Scenario& s) {
  MemoryPart p{"jobs held at once", "", 0, kBytesPerJob};
  const ArrivalProcess& a = s.workload.arrival;
  switch (a.kind) {
    case ArrivalProcess::Kind::kBurst:
      p.count = static_cast<double>(a.count);
      p.fields = "workload.arrival.count";
      break;
    case ArrivalProcess::Kind::kList:
      p.count = static_cast<double>(a.times.size());
      p.fields = "workload.arrival.at";
      break;
    case ArrivalProcess::Kind::kPoisson:
    case ArrivalProcess::Kind::kConstant: {
      // What the fleet does not finish piles up over the arrivals; the rest is in flight,
      // with a second of arrivals in hand.
      const OfferedLoad load = *offered_load(s);
      const double window_s = to_seconds(s.duration);
      const double arrivals = load.rate_per_s * window_s;
      const double slots = static_cast<double>(load.slots);
      const double finished_per_s =
          load.mean_job_s > 0 ? slots / load.mean_job_s : std::numeric_limits<double>::infinity();
      const double backlog = std::max(0.0, load.rate_per_s - finished_per_s) * window_s;
      p.count = std::min(arrivals, backlog + std::min(load.busy_slots, slots) + load.rate_per_s);
      p.fields = backlog > 0
                     ? "workload.arrival.rate_per_s × duration, beyond what the slots finish"
                     : "workload.arrival.rate_per_s";
      break;
    }
  }
  p.count = std::ceil(p.count);
  return p;
}

}  // namespace

double MemoryEstimate::total() const {
  double sum = 0;
  for (const MemoryPart& p : parts) sum += p.bytes();
  return sum;
}

std::string MemoryEstimate::explain() const {
  std::string out;
  for (const MemoryPart& p : parts) {
    out += fmt::format("{}{} for ", out.empty() ? "" : ", ", format_byte_size(p.bytes()));
    if (!p.fields.empty()) out += fmt::format("{:.0f} ", p.count);  // the program: no count
    out += p.what;
    if (!p.fields.empty()) out += fmt::format(" ({})", p.fields);
  }
  return out;
}

MemoryEstimate estimate_memory(const Scenario& s) {
  // Pods live at the peak: the most replicas asked for, plus a rollout's surge.
  int most = s.platform.replicas, surge = 0, rollouts = 0;
  double restarts = 0;  // processes beyond each pod's first
  for (const ScenarioEvent& e : s.events) {
    if (e.kind == EK::kScaleUp) most = std::max(most, e.replicas);
    if (e.kind == EK::kOomKill) restarts += e.count;
  }
  for (const ScenarioEvent& e : s.events) {
    if (e.kind != EK::kRollingRestart) continue;
    ++rollouts;
    surge = std::max(surge, std::min(most, e.max_surge.resolve(most, true)));
  }
  const double live = static_cast<double>(most) + surge;
  // A rollout replaces every pod; each other event may add a pod or a process.
  const double pods =
      static_cast<double>(most) * (1 + rollouts) + restarts + static_cast<double>(s.events.size());
  MemoryEstimate m;
  m.parts = {
      jobs_held(s),
      {"worker slots",
       "platform.replicas at their most, with a rollout's surge, × worker.concurrency",
       live * s.worker.concurrency, kBytesPerSlot},
      {"pods and processes", "platform.replicas, scale_up, rolling_restart, oom_kill", pods,
       kBytesPerPod},
      {"the program", "", 1, kProgramBytes},
  };
  std::stable_sort(m.parts.begin(), m.parts.end(),
                   [](const MemoryPart& a, const MemoryPart& b) { return a.bytes() > b.bytes(); });
  return m;
}

}  // namespace drainsim
