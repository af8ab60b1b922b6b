// Discrete-event Runtime: one thread, an integer virtual clock, and a calendar queue of
// timers ordered by (time, priority, sequence).
//
// The queue has three levels. Timers due before the end of the current calendar bucket
// sit in a small binary heap; later timers of the current "year" sit in unsorted lists,
// one per bucket of 2^k µs; timers beyond the year sit unsorted in an overflow list. When
// the heap runs dry the next non-empty bucket becomes the heap; when the year runs out the
// overflow list is laid out over a new calendar whose bucket width comes from the density
// of its earliest quarter. Schedule, step and cancel take O(1) amortised time when the
// timers' times are spread out, and O(log n) when they crowd into one bucket.
//
// Cancelling is lazy: the handle's slot is freed at once (its generation moves on, so the
// handle goes stale and the slot can be reused), and the queued timer is marked and
// dropped when the queue reaches it. When the cancelled timers still queued outnumber the
// live ones, 256 and a quarter of the calendar's buckets, the queue is compacted, so its
// memory stays proportional to the live timers.
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

  // Live timers only: cancelled ones are not counted.
  std::size_t pending() const { return live_; }
  // Timers the queue holds, live and cancelled (see the compaction rule above).
  std::size_t queued() const { return live_ + dead_; }
  std::uint64_t events_run() const { return events_run_; }
  // Time of the earliest pending timer, kNever when there is none.
  Time next_time() const { return settle() ? heap_.front().time : kNever; }

 private:
  // A queued timer. Nodes are pooled and reused; `next` links a bucket's list or the pool.
  struct Node {
    Time time;
    std::uint64_t key;    // priority in the top 8 bits, then sequence
    TimerTarget* target;  // nullptr once cancelled
    std::uint64_t arg;
    std::uint32_t tag;
    std::uint32_t slot;
    std::uint32_t next;
  };
  // What a TimerId names: the slot's generation moves on when its timer fires or is
  // cancelled, so old handles go stale; a slot is free for reuse at once.
  struct Slot {
    std::uint32_t generation;
    std::uint32_t node;  // or the next free slot when free
  };
  struct HeapEntry {
    Time time;
    std::uint64_t key;
    std::uint32_t node;
  };
  struct Far {
    Time time;
    std::uint32_t node;
  };

  // Heap order: `later(a, b)` puts the earliest entry at the heap's front.
  static bool later(const HeapEntry& a, const HeapEntry& b) {
    return a.time > b.time || (a.time == b.time && a.key > b.key);
  }
  std::uint32_t new_node() const;
  void release(std::uint32_t node) const;
  void insert(std::uint32_t node) const;
  void link(std::uint32_t node, Time time) const;
  // Brings the earliest live timer to heap_.front(), dropping cancelled ones on the way;
  // false when no timer is pending. Moves timers between levels only, hence const.
  bool settle() const;
  void rebuild() const;
  void compact();

  Time now_ = 0;
  std::uint64_t sequence_ = 0;
  std::uint64_t events_run_ = 0;
  std::size_t live_ = 0;
  mutable std::size_t dead_ = 0;  // cancelled timers still queued
  std::vector<Slot> slots_;
  std::uint32_t free_slot_ = UINT32_MAX;
  mutable std::vector<Node> nodes_;
  mutable std::uint32_t free_node_ = UINT32_MAX;

  // The queue. Invariant: timers due at or before heap_last_ are in heap_; those due in
  // (heap_last_, year_last_] are in the lists heads_[next_bucket_, bucket_count_), bucket i
  // holding those due in [year_start_ + i * 2^shift_, year_start_ + (i + 1) * 2^shift_);
  // later ones are in overflow_. Bounds are inclusive so that they never overflow.
  mutable std::vector<HeapEntry> heap_;
  mutable std::vector<std::uint32_t> heads_;
  mutable std::vector<Far> overflow_;
  mutable Time year_start_ = 0;
  mutable Time heap_last_ = -1;
  mutable Time year_last_ = -1;
  mutable unsigned shift_ = 0;
  mutable std::size_t bucket_count_ = 0;
  mutable std::size_t next_bucket_ = 0;

  Rng root_;
  std::array<Rng, 8> streams_;
};

}  // namespace drainsim
