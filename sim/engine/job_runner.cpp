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

// One thread per running body. The thread waits (or spins) until the body's real
// deadline, re-reading its token (cancelled, aborted) at least every slice.
class ThreadRunner final : public JobRunner {
 public:
  ThreadRunner(Runtime& rt, TimerTarget* owner, int slots, bool spin)
      : rt_(rt),
        owner_(owner),
        scale_(rt.time_scale()),
        spin_(spin),
        fallback_(rt, owner, slots),
        bodies_(static_cast<std::size_t>(slots)) {
    for (auto& b : bodies_) b = std::make_unique<Body>();
  }
  ~ThreadRunner() override {
    for (std::size_t i = 0; i < bodies_.size(); ++i) abort(static_cast<int>(i));
    for (auto& b : bodies_) {
      if (b->thread.joinable()) b->thread.join();
    }
  }

  void start(int slot, std::uint32_t generation, Duration run_for) override {
    Body& b = *bodies_[slot];
    if (b.thread.joinable()) b.thread.join();  // the previous body has ended or is ending
    {
      std::lock_guard lock(b.mu);
      b.aborted = false;
      b.cancel_at = Clock::time_point::max();
      b.end = Clock::now() + real(run_for);
    }
    b.timed = false;
    try {
      b.thread = std::thread([this, slot, generation] { run(slot, generation); });
    } catch (const std::system_error& e) {
      b.timed = true;
      fallback_.start(slot, generation, run_for);
      if (!refused_) {
        refused_ = true;
        rt_.schedule(rt_.now(), Priority::kCompletion, owner_, kThreadRefused,
                     static_cast<std::uint64_t>(e.code().value()));
      }
    }
  }
  void cancel(int slot, Duration latency) override {
    Body& b = *bodies_[slot];
    if (b.timed) {
      fallback_.cancel(slot, latency);
      return;
    }
    {
      std::lock_guard lock(b.mu);
      b.cancel_at = Clock::now() + real(latency);
    }
    b.cv.notify_one();
  }
  void abort(int slot) override {
    Body& b = *bodies_[slot];
    if (b.timed) {
      fallback_.abort(slot);
      return;
    }
    {
      std::lock_guard lock(b.mu);
      b.aborted = true;
    }
    b.cv.notify_one();
  }

 private:
  using Clock = std::chrono::steady_clock;
  struct Body {
    bool timed = false;  // its thread was refused: it runs in fallback_ (the owner's strand)
    std::thread thread;
    std::mutex mu;  // guards the fields below
    std::condition_variable cv;
    bool aborted = false;
    Clock::time_point end, cancel_at;
  };
  static constexpr auto kSlice = std::chrono::milliseconds(1);

  Clock::duration real(Duration d) const {
    return std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double, std::micro>(static_cast<double>(d) / scale_));
  }

  void run(int slot, std::uint32_t generation) {
    Body& b = *bodies_[slot];
    std::unique_lock lock(b.mu);
    while (true) {
      if (b.aborted) return;
      const bool cancelled = b.cancel_at < b.end;
      const Clock::time_point deadline = cancelled ? b.cancel_at : b.end;
      const Clock::time_point now = Clock::now();
      if (now >= deadline) {
        lock.unlock();
        // Back to the owner's strand: a zero-delay timer there.
        rt_.schedule(rt_.now(), Priority::kCompletion, owner_,
                     cancelled ? kBodyCancelled : kBodyEnded, body_arg(slot, generation));
        return;
      }
      const Clock::time_point until = std::min(deadline, now + kSlice);
      if (spin_) {
        lock.unlock();
        while (Clock::now() < until) {
        }
        lock.lock();
      } else {
        b.cv.wait_until(lock, until);
      }
    }
  }

  Runtime& rt_;
  TimerTarget* owner_;
  double scale_;
  bool spin_;
  TimerRunner fallback_;  // the bodies whose thread the OS refused
  bool refused_ = false;  // kThreadRefused said (the owner's strand)
  std::vector<std::unique_ptr<Body>> bodies_;
};

}  // namespace

std::unique_ptr<JobRunner> make_job_runner(JobBody kind, Runtime& runtime, TimerTarget* owner,
                                           int slots) {
  if (kind == JobBody::kTimer) return std::make_unique<TimerRunner>(runtime, owner, slots);
  return std::make_unique<ThreadRunner>(runtime, owner, slots, kind == JobBody::kSpin);
}

}  // namespace drainsim
