#include "engine/job_runner.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace drainsim {

namespace {

class TimerRunner final : public JobRunner {
 public:
  TimerRunner(Runtime& rt, TimerTarget* owner, int slots)
      : rt_(rt), owner_(owner), bodies_(static_cast<std::size_t>(slots)) {}

  void start(int slot, std::uint32_t generation, Duration run_for) override {
    Body& b = bodies_[slot];
    b.generation = generation;
    b.end = rt_.now() + run_for;
    b.timer =
        rt_.schedule(b.end, Priority::kCompletion, owner_, kBodyEnded, body_arg(slot, generation));
  }
  void cancel(int slot, Duration latency) override {
    Body& b = bodies_[slot];
    const Time stop = rt_.now() + latency;
    if (!b.timer.pending() || stop >= b.end) return;  // it ends before it notices
    rt_.cancel(b.timer);
    b.timer = rt_.schedule(stop, Priority::kCompletion, owner_, kBodyCancelled,
                           body_arg(slot, b.generation));
  }
  void abort(int slot) override { rt_.cancel(bodies_[slot].timer); }

 private:
  struct Body {
    TimerId timer;
    Time end = 0;
    std::uint32_t generation = 0;
  };
  Runtime& rt_;
  TimerTarget* owner_;
  std::vector<Body> bodies_;
};

// A thread per slot, started with the slot's first body and kept for the next ones (as a
// worker's executor threads are): a sleeping body waits on its slot's condition variable
// until its real deadline, or until start(), cancel() or abort() changes it, so a body
// costs two wake-ups however long it runs; a spinning body burns CPU until its deadline
// or until its slot's state changes (the `changed` count it watches). No thread is created per body
// (bench/README.md, issue 39: creating and reaping one per body, and waking each every millisecond,
// took both cores in the kernel).
class ThreadRunner final : public JobRunner {
 public:
  ThreadRunner(Runtime& rt, TimerTarget* owner, int slots, bool spin)
      : rt_(rt),
        owner_(owner),
        scale_(rt.time_scale()),
        spin_(spin),
        fallback_(rt, owner, slots),
        slots_(static_cast<std::size_t>(slots)) {
    for (auto& s : slots_) s = std::make_unique<Slot>();
  }
  ~ThreadRunner() override {
    for (auto& s : slots_) {
      {
        std::lock_guard lock(s->mu);
        s->quit = true;
        s->changed.fetch_add(1);
      }
      s->cv.notify_one();
    }
    for (auto& s : slots_) {
      if (s->thread.joinable()) s->thread.join();
    }
  }

  void start(int slot, std::uint32_t generation, Duration run_for) override {
    Slot& s = *slots_[slot];
    s.timed = false;
    if (!s.thread.joinable()) {
      try {
        s.thread = std::thread([this, &s, slot] { serve(s, slot); });
      } catch (const std::system_error& e) {
        s.timed = true;
        fallback_.start(slot, generation, run_for);
        if (!refused_) {
          refused_ = true;
          rt_.schedule(rt_.now(), Priority::kCompletion, owner_, kThreadRefused,
                       static_cast<std::uint64_t>(e.code().value()));
        }
        return;
      }
    }
    {
      std::lock_guard lock(s.mu);
      s.running = true;
      s.generation = generation;
      s.cancel_at = Clock::time_point::max();
      s.end = Clock::now() + real(run_for);
      s.changed.fetch_add(1);
    }
    s.cv.notify_one();
  }
  void cancel(int slot, Duration latency) override {
    Slot& s = *slots_[slot];
    if (s.timed) {
      fallback_.cancel(slot, latency);
      return;
    }
    {
      std::lock_guard lock(s.mu);
      s.cancel_at = Clock::now() + real(latency);
      s.changed.fetch_add(1);
    }
    s.cv.notify_one();
  }
  void abort(int slot) override {
    Slot& s = *slots_[slot];
    if (s.timed) {
      fallback_.abort(slot);
      return;
    }
    {
      std::lock_guard lock(s.mu);
      s.running = false;
      s.changed.fetch_add(1);
    }
    s.cv.notify_one();
  }

 private:
  using Clock = std::chrono::steady_clock;
  struct Slot {
    bool timed = false;  // its thread was refused: this body runs in fallback_ (the owner's strand)
    std::thread thread;
    std::mutex mu;  // guards the fields below
    std::condition_variable cv;
    std::atomic<std::uint64_t> changed{0};  // bumped by every change below (spinning reads it)
    bool quit = false;
    bool running = false;  // a body runs (not yet ended, cancelled or aborted)
    std::uint32_t generation = 0;
    Clock::time_point end, cancel_at;
  };

  Clock::duration real(Duration d) const {
    return std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double, std::micro>(static_cast<double>(d) / scale_));
  }

  // The slot's thread: runs each body the slot is given until the runner goes.
  void serve(Slot& s, int slot) {
    std::unique_lock lock(s.mu);
    while (true) {
      s.cv.wait(lock, [&s] { return s.quit || s.running; });
      if (s.quit) return;
      const bool cancelled = s.cancel_at < s.end;
      const Clock::time_point deadline = cancelled ? s.cancel_at : s.end;
      const Clock::time_point now = Clock::now();
      if (now >= deadline) {
        s.running = false;
        const std::uint64_t arg = body_arg(slot, s.generation);
        lock.unlock();
        // Back to the owner's strand: a zero-delay timer there.
        rt_.schedule(rt_.now(), Priority::kCompletion, owner_,
                     cancelled ? kBodyCancelled : kBodyEnded, arg);
        lock.lock();
        continue;
      }
      if (!spin_) {
        s.cv.wait_until(lock, deadline);  // woken early by any change, then looked at again
        continue;
      }
      const std::uint64_t seen = s.changed.load();
      lock.unlock();
      while (Clock::now() < deadline && s.changed.load(std::memory_order_relaxed) == seen) {
      }
      lock.lock();
    }
  }

  Runtime& rt_;
  TimerTarget* owner_;
  double scale_;
  bool spin_;
  TimerRunner fallback_;  // the bodies whose thread the OS refused
  bool refused_ = false;  // kThreadRefused said (the owner's strand)
  std::vector<std::unique_ptr<Slot>> slots_;
};

}  // namespace

std::unique_ptr<JobRunner> make_job_runner(JobBody kind, Runtime& runtime, TimerTarget* owner,
                                           int slots) {
  if (kind == JobBody::kTimer) return std::make_unique<TimerRunner>(runtime, owner, slots);
  return std::make_unique<ThreadRunner>(runtime, owner, slots, kind == JobBody::kSpin);
}

}  // namespace drainsim
