// The Runtime is the only way the models (backend, worker, platform, workload) see time,
// set timers or draw random numbers. VirtualRuntime runs them in discrete virtual time;
// a real-time implementation paces the same models to the wall clock.
#pragma once

#include <cstdint>

#include "base/duration.h"
#include "base/rng.h"

namespace drainsim {

// Simulated seconds per real second of the engines paced to the wall clock, unless told
// otherwise (drainsim run --time-scale).
inline constexpr double kDefaultTimeScale = 100;

// At equal virtual times, events run in this order (docs/design.md, Semantics), then in
// scheduling order within a class.
enum class Priority : std::uint8_t {
  kScripted = 0,    // scenario events and job arrivals
  kCompletion = 1,  // job bodies finishing
  kTimer = 2,       // platform and worker timers: deadlines, polls, heartbeats, preStop
  kBackend = 3,     // lease expiry, dead-worker deadlines, retry promotion
};

// Something a timer calls back. `tag` and `arg` are the target's own: they tell it which
// of its timers fired, so timers need no allocation.
class TimerTarget {
 public:
  virtual void on_timer(std::uint32_t tag, std::uint64_t arg) = 0;

 protected:
  ~TimerTarget() = default;
};

// Handle of a pending timer. Default-constructed handles refer to no timer.
struct TimerId {
  std::uint32_t slot = UINT32_MAX;
  std::uint32_t generation = 0;
  bool pending() const { return slot != UINT32_MAX; }
};

class Runtime {
 public:
  virtual ~Runtime() = default;

  // Not a virtual call where time moves only when the Runtime says so (the virtual
  // engine): the models read it at almost every step (bench/README.md, issue 19).
  Time now() const { return clock_ != nullptr ? *clock_ : read_clock(); }

  // Calls target->on_timer(tag, arg) at time `at`. REQUIRES: at >= now(); target outlives
  // the timer or cancels it.
  virtual TimerId schedule(Time at, Priority priority, TimerTarget* target, std::uint32_t tag,
                           std::uint64_t arg = 0) = 0;

  // A timer's place among the timers due at the same time with the same priority is when
  // it was scheduled. reserve_place() takes the place a timer scheduled now would take, and
  // schedule_at_place() schedules a timer into a reserved place later, so that it fires as
  // if it had been scheduled then (the backend's lease timers: one timer stands for many
  // and is armed at each in turn).
  virtual std::uint64_t reserve_place() = 0;
  // As schedule(). REQUIRES: `place` came from reserve_place() and was not used before.
  virtual TimerId schedule_at_place(std::uint64_t place, Time at, Priority priority,
                                    TimerTarget* target, std::uint32_t tag,
                                    std::uint64_t arg = 0) = 0;

  // Cancels a pending timer and resets `id`. A no-op for a timer that already fired or
  // was cancelled (the handle's generation no longer matches).
  virtual void cancel(TimerId& id) = 0;

  // The run's generator for one stream; the reference stays valid as long as the Runtime.
  virtual Rng& rng(Stream stream) = 0;

  // Simulated seconds per real second: how this Runtime paces time to the wall clock
  // (at 200, one simulated second lasts 5 ms); 0 where time does not follow the wall
  // clock at all (virtual time). What runs on real threads (job bodies that sleep, worker
  // programs) converts durations with it.
  virtual double time_scale() const = 0;

  // A job body on this Runtime ended `late` after its `work` was done, in simulated time:
  // how far a paced Runtime fell behind its time scale (engine_behind). Virtual time is
  // never late, and ignores it. Called only where time_scale() > 0.
  virtual void body_ended_late(Duration /*work*/, Duration /*late*/) {}

 protected:
  // `clock`: where the Runtime keeps its time, read by now(); nullptr: now() asks
  // read_clock() (a clock that moves by itself).
  explicit Runtime(const Time* clock) : clock_(clock) {}
  Runtime(const Runtime&) = delete;  // clock_ may point into the Runtime itself
  Runtime& operator=(const Runtime&) = delete;
  virtual Time read_clock() const = 0;

 private:
  const Time* clock_;
};

}  // namespace drainsim
