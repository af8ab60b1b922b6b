// Discrete-event Runtime: one thread, an integer virtual clock, and an indexed 4-ary heap
// of timers ordered by (time, priority, sequence). Cancelling removes the timer from the
// heap at once, so the heap holds only live timers and runs never grow with dead ones.
// Not thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "runtime.h"

namespace drainsim {

class VirtualRuntime final : public Runtime {
 public:
  explicit VirtualRuntime(std::uint64_t seed);

  Time now() const override { return now_; }
  TimerId schedule(Time at, Priority priority, TimerTarget* target, std::uint32_t tag,
                   std::uint64_t arg = 0) override;
  void cancel(TimerId& id) override;
  Rng& rng(Stream stream) override;

  // Runs the earliest timer if it is due at or before `until`; returns false (and leaves
  // the clock at its value) when there is none.
  bool step(Time until = kNever);
  // Runs timers until none is due at or before `until`, then sets the clock to `until`
  // (unless `until` is kNever).
  void run_until(Time until);

  std::size_t pending() const { return heap_.size(); }
  std::uint64_t events_run() const { return events_run_; }
  // Time of the earliest pending timer, kNever when there is none.
  Time next_time() const { return heap_.empty() ? kNever : heap_.front().time; }

 private:
  struct Entry {
    Time time;
    std::uint64_t key;  // priority in the top 8 bits, then sequence
    std::uint32_t slot;
  };
  struct Slot {
    TimerTarget* target;
    std::uint64_t arg;
    std::uint32_t tag;
    std::uint32_t generation;
    std::uint32_t heap_index;  // or next free slot when free
  };

  static bool before(const Entry& a, const Entry& b) {
    return a.time < b.time || (a.time == b.time && a.key < b.key);
  }
  void place(std::size_t index, const Entry& e) {
    heap_[index] = e;
    slots_[e.slot].heap_index = static_cast<std::uint32_t>(index);
  }
  void sift_up(std::size_t index, Entry e);
  void sift_down(std::size_t index, Entry e);
  void remove_at(std::size_t index);
  void free_slot(std::uint32_t slot);

  Time now_ = 0;
  std::uint64_t sequence_ = 0;
  std::uint64_t events_run_ = 0;
  std::vector<Entry> heap_;
  std::vector<Slot> slots_;
  std::uint32_t free_head_ = UINT32_MAX;
  Rng root_;
  std::array<Rng, 8> streams_;
};

}  // namespace drainsim
