// AsioRuntime: the real-time Runtime. A Boost.Asio io_context run by a pool of threads
// paces timers to the wall clock, scaled by time_scale: at 200, one simulated second
// lasts 5 ms. Each actor (the models of a run, a worker, ...) gets a StrandRuntime of its
// own: its timers' callbacks run on its strand, so one actor's callbacks never overlap
// while different actors' may run in parallel on the pool. now() is the simulated time
// since start(), the same for every strand. A strand fires its timers that are due in
// the virtual engine's order, (time, priority, schedule order), however late they are:
// timers overdue together (a thread that fell behind) fire as they would in virtual
// time; timers of different strands have no order. Thread-safe, except that a
// StrandRuntime must not be destroyed before stop() has joined the pool.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include "base/stats.h"
#include "engine/runtime.h"

namespace drainsim {

class StrandRuntime;

class AsioRuntime {
 public:
  // REQUIRES: time_scale > 0, threads >= 1.
  AsioRuntime(std::uint64_t seed, double time_scale, int threads);
  ~AsioRuntime();  // stop()s

  // A new actor with its own strand and random streams.
  std::unique_ptr<StrandRuntime> strand();

  // Creates the threads, then starts the clock (simulated time 0) and lets them run, so
  // creating threads does not make the first events late.
  void start();
  // Stops the pool and joins its threads; pending timers never fire. Idempotent.
  void stop();

  Time now() const;
  double time_scale() const { return scale_; }
  std::chrono::steady_clock::time_point real_time(Time t) const;
  boost::asio::io_context& context() { return io_; }

 private:
  using Guard = boost::asio::executor_work_guard<boost::asio::io_context::executor_type>;
  boost::asio::io_context io_;
  std::unique_ptr<Guard> guard_;
  std::vector<std::thread> threads_;
  std::chrono::steady_clock::time_point start_;
  double scale_;
  int thread_count_;
  Rng root_;
  std::uint64_t strands_ = 0;
};

class StrandRuntime final : public Runtime {
 public:
  StrandRuntime(AsioRuntime& owner, const Rng& root, std::uint64_t index);
  ~StrandRuntime() override;

  TimerId schedule(Time at, Priority priority, TimerTarget* target, std::uint32_t tag,
                   std::uint64_t arg = 0) override;
  std::uint64_t reserve_place() override;
  TimerId schedule_at_place(std::uint64_t place, Time at, Priority priority, TimerTarget* target,
                            std::uint32_t tag, std::uint64_t arg = 0) override;
  void cancel(TimerId& id) override;
  Rng& rng(Stream stream) override;
  double time_scale() const override { return owner_.time_scale(); }

  // Runs `fn` on this strand as soon as possible.
  void post(std::function<void()> fn);
  // The strand itself, for I/O whose completions should run on it (HttpWorker's client).
  const boost::asio::strand<boost::asio::io_context::executor_type>& executor() const {
    return strand_;
  }
  // From now on every callback on this strand (timers, posted functions, after_each) runs
  // holding `lock`, so code on other strands may share this strand's state under it. Set
  // it before start().
  void set_lock(std::mutex* lock) { lock_ = lock; }
  // Called on the strand after every timer callback (e.g. to see whether a run is over).
  // Set it before start().
  void set_after_each(std::function<void()> fn) { after_each_ = std::move(fn); }
  std::uint64_t events_run() const { return events_run_.load(); }
  // From now on timers fire no callbacks (the run is over; its state stays as it is).
  void halt() { halted_ = true; }
  // How late timers fired, in real microseconds, kept when asked (for benchmarks).
  void record_lateness(bool on) { record_lateness_ = on; }
  std::vector<double> take_lateness();
  // How far behind its timers fell, in simulated time: the most any fired after its due
  // time, and how many fired later than `tolerance` (set_tolerance, before start()).
  struct Behind {
    Duration most = 0;
    std::uint64_t beyond_tolerance = 0;
  };
  void set_tolerance(Duration tolerance) { tolerance_ = tolerance; }
  Behind behind() const;
  // How far this strand lagged its time scale, in simulated time (engine_behind,
  // docs/engines.md): its timers (how late each fired), its handlers (how long each posted
  // function, or a call that waited for another strand's lock, waited to run) and its job
  // bodies (how long past the end of its work each one's end reached the strand).
  struct Lag {
    std::uint64_t timers = 0, handlers = 0, bodies = 0;            // how many
    Duration timers_late = 0, handlers_late = 0, bodies_late = 0;  // their lateness, summed
    Duration timers_most = 0, handlers_most = 0, bodies_most = 0;
    Duration bodies_work = 0;     // the bodies' work, summed
    Percentiles timers_queued;    // the timers' lateness, in seconds
    Percentiles handlers_queued;  // the handlers' lateness, in seconds
    Percentiles queued() const;   // both together
    Lag& operator+=(const Lag& o);
  };
  Lag lag() const;
  // A handler that waited `waited` of real time before it ran.
  void handler_waited(std::chrono::steady_clock::duration waited);
  // Takes `lock` for a call of this strand's into state another strand guards with it
  // (--model-access lock), counting its wait as a handler's.
  std::unique_lock<std::mutex> acquire(std::mutex& lock);
  void body_ended_late(Duration work, Duration late) override;

 private:
  Time read_clock() const override { return owner_.now(); }
  struct Slot {
    std::unique_ptr<boost::asio::steady_timer> timer;
    TimerTarget* target = nullptr;
    std::uint64_t arg = 0;
    std::uint32_t tag = 0;
    std::uint32_t generation = 0;
    Time at = 0;
    Priority priority = Priority::kScripted;
    std::uint64_t seq = 0;  // schedule order, for ties
  };
  // Pending timers in (time, priority, schedule order): a timer's wake-up fires the
  // earliest one due, so timers that are overdue together (a late thread, a timer
  // scheduled in the past) still fire in the virtual engine's order, whatever order asio
  // completes them in.
  using Due = std::tuple<Time, Priority, std::uint64_t, std::uint32_t>;
  // schedule() and schedule_at_place(). REQUIRES: mu_ held.
  TimerId place_timer(std::uint64_t place, Time at, Priority priority, TimerTarget* target,
                      std::uint32_t tag, std::uint64_t arg);
  void fire();

  AsioRuntime& owner_;
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  mutable std::mutex mu_;  // guards slots_, free_, pending_, next_seq_, lateness_, behind_, lag_
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_;
  std::set<Due> pending_;
  std::uint64_t next_seq_ = 0;
  std::vector<Rng> streams_;
  std::function<void()> after_each_;
  std::mutex* lock_ = nullptr;
  std::atomic<std::uint64_t> events_run_{0};
  std::atomic<bool> halted_{false};
  bool record_lateness_ = false;
  std::vector<double> lateness_;
  Duration tolerance_ = kNever;
  Behind behind_;
  Lag lag_;
};

}  // namespace drainsim
