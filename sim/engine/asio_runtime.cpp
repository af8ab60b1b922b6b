#include "engine/asio_runtime.h"

#include <algorithm>
#include <future>

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/post.hpp>

namespace drainsim {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

AsioRuntime::AsioRuntime(std::uint64_t seed, double time_scale, int threads)
    : scale_(time_scale), thread_count_(threads), root_(seed) {}

AsioRuntime::~AsioRuntime() { stop(); }

std::unique_ptr<StrandRuntime> AsioRuntime::strand() {
  return std::make_unique<StrandRuntime>(*this, root_, strands_++);
}

void AsioRuntime::start() {
  guard_ = std::make_unique<Guard>(io_.get_executor());
  std::promise<void> go;
  const std::shared_future<void> started = go.get_future().share();
  for (int i = 0; i < thread_count_; ++i) {
    threads_.emplace_back([this, started] {
      started.wait();  // start_ is written before any handler can read it
      io_.run();
    });
  }
  start_ = Clock::now();
  go.set_value();
}

void AsioRuntime::stop() {
  if (guard_) guard_->reset();
  io_.stop();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  guard_.reset();
}

Time AsioRuntime::now() const {
  const double real_us = std::chrono::duration<double, std::micro>(Clock::now() - start_).count();
  return static_cast<Time>(real_us * scale_);
}

Clock::time_point AsioRuntime::real_time(Time t) const {
  return start_ + std::chrono::duration_cast<Clock::duration>(
                      std::chrono::duration<double, std::micro>(static_cast<double>(t) / scale_));
}

StrandRuntime::StrandRuntime(AsioRuntime& owner, const Rng& root, std::uint64_t index)
    : Runtime(nullptr), owner_(owner), strand_(asio::make_strand(owner.context())) {
  // The first strand draws the same streams as the virtual engine (the same jobs arrive
  // with the same durations, so engines can be compared); strand i > 0 the root's forks
  // 1000 * i + stream.
  for (std::uint64_t s = 0; s < kStreamCount; ++s) streams_.push_back(root.fork(1000 * index + s));
}

StrandRuntime::~StrandRuntime() = default;

Rng& StrandRuntime::rng(Stream stream) {
  return streams_[static_cast<std::size_t>(stream) % streams_.size()];
}

TimerId StrandRuntime::schedule(Time at, Priority priority, TimerTarget* target, std::uint32_t tag,
                                std::uint64_t arg) {
  std::lock_guard lock(mu_);  // one lock for the place and the timer
  return place_timer(next_seq_++, at, priority, target, tag, arg);
}

std::uint64_t StrandRuntime::reserve_place() {
  std::lock_guard lock(mu_);
  return next_seq_++;
}

TimerId StrandRuntime::schedule_at_place(std::uint64_t place, Time at, Priority priority,
                                         TimerTarget* target, std::uint32_t tag,
                                         std::uint64_t arg) {
  std::lock_guard lock(mu_);
  return place_timer(place, at, priority, target, tag, arg);
}

TimerId StrandRuntime::place_timer(std::uint64_t place, Time at, Priority priority,
                                   TimerTarget* target, std::uint32_t tag, std::uint64_t arg) {
  std::uint32_t index;
  if (!free_.empty()) {
    index = free_.back();
    free_.pop_back();
  } else {
    index = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
    slots_.back().timer = std::make_unique<asio::steady_timer>(owner_.context());
  }
  Slot& slot = slots_[index];
  slot.target = target;
  slot.tag = tag;
  slot.arg = arg;
  slot.at = at;
  slot.priority = priority;
  slot.seq = place;
  pending_.emplace(at, priority, slot.seq, index);
  const Clock::time_point due = owner_.real_time(at);
  if (due <= Clock::now()) {
    // Due already (a job body's end, a reply): its wake-up is a post, not a wait, which
    // would move the reactor's timer (a timerfd_settime each) for nothing (issue 39).
    asio::post(strand_, [this] { fire(); });
  } else {
    slot.timer->expires_at(due);
    slot.timer->async_wait(asio::bind_executor(strand_, [this](const boost::system::error_code& e) {
      if (e != asio::error::operation_aborted) fire();
    }));
  }
  return TimerId{index, slot.generation};
}

void StrandRuntime::cancel(TimerId& id) {
  if (id.pending()) {
    std::lock_guard lock(mu_);
    if (id.slot < slots_.size() && slots_[id.slot].generation == id.generation &&
        slots_[id.slot].target != nullptr) {
      Slot& slot = slots_[id.slot];
      slot.timer->cancel();
      pending_.erase(Due{slot.at, slot.priority, slot.seq, id.slot});
      slot.target = nullptr;
      ++slot.generation;
      free_.push_back(id.slot);
    }
  }
  id = TimerId{};
}

// Every live timer's wake-up (its wait's completion, or the post of a timer due when
// scheduled) comes once, after its deadline, so each fires exactly one timer: the earliest due
// (perhaps itself, perhaps one overdue longer), or none when an earlier wake-up already fired every
// due timer (a timer cancelled after it expired).
void StrandRuntime::fire() {
  // Every timer due, earliest first. A wait's completion does not say which timer is
  // due: the earliest may be another whose own completion is still queued (two threads
  // can queue them out of order), and that one, once fired, may be rescheduled on the
  // same slot, which cancels its queued completion. So each completion fires all that
  // is due, and no timer waits for a completion that will not come.
  while (true) {
    TimerTarget* target;
    std::uint32_t tag;
    std::uint64_t arg;
    {
      std::lock_guard lock(mu_);
      if (halted_ || pending_.empty()) return;
      const auto [at, priority, seq, index] = *pending_.begin();
      Slot& slot = slots_[index];
      const Clock::time_point due = owner_.real_time(at);
      if (due > Clock::now()) return;  // nothing due yet (the deadline its wait was given)
      pending_.erase(pending_.begin());
      const Duration late = std::max<Duration>(0, owner_.now() - at);
      behind_.most = std::max(behind_.most, late);
      if (late > tolerance_) ++behind_.beyond_tolerance;
      ++lag_.timers;
      lag_.timers_late += late;
      lag_.timers_most = std::max(lag_.timers_most, late);
      lag_.timers_queued.add(to_seconds(late));
      if (record_lateness_) {
        lateness_.push_back(std::chrono::duration<double, std::micro>(Clock::now() - due).count());
      }
      target = slot.target;
      tag = slot.tag;
      arg = slot.arg;
      slot.target = nullptr;
      ++slot.generation;
      free_.push_back(index);
    }
    ++events_run_;
    std::unique_lock<std::mutex> held;
    if (lock_) held = std::unique_lock(*lock_);
    target->on_timer(tag, arg);
    if (after_each_) after_each_();
  }
}

void StrandRuntime::post(std::function<void()> fn) {
  const Clock::time_point posted = Clock::now();
  if (lock_ == nullptr) {
    asio::post(strand_, [this, posted, fn = std::move(fn)] {
      handler_waited(Clock::now() - posted);
      fn();
    });
    return;
  }
  asio::post(strand_, [this, posted, lock = lock_, fn = std::move(fn)] {
    std::lock_guard held(*lock);
    handler_waited(Clock::now() - posted);
    fn();
  });
}

void StrandRuntime::handler_waited(Clock::duration waited) {
  const auto late = static_cast<Duration>(
      std::chrono::duration<double, std::micro>(waited).count() * owner_.time_scale());
  std::lock_guard lock(mu_);
  ++lag_.handlers;
  lag_.handlers_late += late;
  lag_.handlers_most = std::max(lag_.handlers_most, late);
  lag_.handlers_queued.add(to_seconds(late));
}

std::unique_lock<std::mutex> StrandRuntime::acquire(std::mutex& lock) {
  const Clock::time_point asked = Clock::now();
  std::unique_lock<std::mutex> held(lock);
  handler_waited(Clock::now() - asked);
  return held;
}

void StrandRuntime::body_ended_late(Duration work, Duration late) {
  std::lock_guard lock(mu_);
  ++lag_.bodies;
  lag_.bodies_work += work;
  lag_.bodies_late += late;
  lag_.bodies_most = std::max(lag_.bodies_most, late);
}

StrandRuntime::Lag& StrandRuntime::Lag::operator+=(const Lag& o) {
  timers += o.timers;
  handlers += o.handlers;
  bodies += o.bodies;
  timers_late += o.timers_late;
  handlers_late += o.handlers_late;
  bodies_late += o.bodies_late;
  timers_most = std::max(timers_most, o.timers_most);
  handlers_most = std::max(handlers_most, o.handlers_most);
  bodies_most = std::max(bodies_most, o.bodies_most);
  bodies_work += o.bodies_work;
  timers_queued.merge(o.timers_queued);
  handlers_queued.merge(o.handlers_queued);
  return *this;
}

Percentiles StrandRuntime::Lag::queued() const {
  Percentiles both = timers_queued;
  both.merge(handlers_queued);
  return both;
}

StrandRuntime::Lag StrandRuntime::lag() const {
  std::lock_guard lock(mu_);
  return lag_;
}

StrandRuntime::Behind StrandRuntime::behind() const {
  std::lock_guard lock(mu_);
  return behind_;
}

std::vector<double> StrandRuntime::take_lateness() {
  std::lock_guard lock(mu_);
  return std::exchange(lateness_, {});
}

}  // namespace drainsim
