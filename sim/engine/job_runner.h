// JobRunner: how a worker process's job bodies run. A body ends by itself after its
// run time, or, once cancelled, after its cancel latency if that comes first; either way
// the runner calls owner->on_timer(kBodyEnded or kBodyCancelled, body_arg(slot,
// generation)) on the owner's Runtime (so on its strand). abort() stops a body with no
// callback (its process died, or the worker gave up on it); a body that has called back
// has ended, and needs none.
//   kTimer: a timer in the Runtime's time (the virtual engine; exact).
//   kSleep, kSpin: a real thread per slot, kept from body to body, that sleeps, or burns
//   CPU, until its body's (scaled) deadline, woken by a cancel or abort (the real-time
//   engine).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string_view>

#include "base/names.h"
#include "engine/runtime.h"

namespace drainsim {

enum class JobBody : std::uint8_t { kSleep, kSpin, kTimer };
constexpr std::array<std::string_view, 3> names(JobBody) { return {"sleep", "spin", "timer"}; }
inline const char* to_string(JobBody b) { return name_of(b).data(); }

class JobRunner {
 public:
  // kThreadRefused (the real kinds): the OS refused a body its thread (a limit on threads
  // or memory), so that body, and any other refused one, runs as a timer in the Runtime's
  // time instead, as kTimer's do; said once per runner, its arg the errno.
  enum Tag : std::uint32_t { kBodyEnded = 100, kBodyCancelled = 101, kThreadRefused = 102 };
  static std::uint64_t body_arg(int slot, std::uint32_t generation) {
    return static_cast<std::uint32_t>(slot) | std::uint64_t{generation} << 32;
  }

  virtual ~JobRunner() = default;
  // REQUIRES: no body runs in `slot`.
  virtual void start(int slot, std::uint32_t generation, Duration run_for) = 0;
  // The body stops `latency` from now unless it ends by itself first. Once per body.
  virtual void cancel(int slot, Duration latency) = 0;
  virtual void abort(int slot) = 0;
};

// The real kinds (sleep, spin) run on real threads, paced by runtime.time_scale().
// REQUIRES: runtime.time_scale() > 0 for them.
std::unique_ptr<JobRunner> make_job_runner(JobBody kind, Runtime& runtime, TimerTarget* owner,
                                           int slots);

}  // namespace drainsim
