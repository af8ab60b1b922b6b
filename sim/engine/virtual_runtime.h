// Discrete-event Runtime: one thread, an integer virtual clock, and a calendar queue of
// timers ordered by (time, priority, sequence).
//
// The queue has three levels. The timers of the current "year" sit unsorted in calendar
// buckets of 2^k µs; later ones sit unsorted in an overflow list. When the current bucket
// runs out, the next non-empty one is sorted into a run that is consumed in order (timers
// scheduled into the current bucket meanwhile go to a small heap beside it); when the
// year runs out, the overflow list is laid out over a new calendar whose bucket width
// comes from the density of its earliest quarter. Schedule, step and cancel take O(1)
// amortised time when the timers' times are spread out, and O(log n) when they crowd
// into one bucket.
//
// The layout is what makes the queue fast with 10^5 timers pending (bench/README.md): a
// queued timer is 8 bytes (its time within the year and its slot), a bucket's first
// timers sit in one cache line of their own, and what a timer calls, its order among
// equal times and its handle's generation live in its slot, which is read only when the
// timer fires (fetched ahead when its bucket is sorted) or ties with another.
//
// Cancelling is lazy: the handle goes stale at once (the slot's generation moves on) and
// the slot is marked cancelled; the queued timer is dropped, and its slot freed, when the
// queue reaches it. When the cancelled timers still queued outnumber the live ones, 256
// and a quarter of the calendar's buckets, those beyond the year are dropped (the usual
// ones: far deadlines cancelled early), and if more than half that many are still queued
// the whole queue is compacted, so its memory stays proportional to the live timers.
// Not thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "engine/runtime.h"

namespace drainsim {

class VirtualRuntime final : public Runtime {
 public:
  explicit VirtualRuntime(std::uint64_t seed);

  TimerId schedule(Time at, Priority priority, TimerTarget* target, std::uint32_t tag,
                   std::uint64_t arg = 0) override;
  std::uint64_t reserve_place() override { return sequence_++; }
  TimerId schedule_at_place(std::uint64_t place, Time at, Priority priority, TimerTarget* target,
                            std::uint32_t tag, std::uint64_t arg = 0) override;
  void cancel(TimerId& id) override;
  Rng& rng(Stream stream) override;
  double time_scale() const override { return 0; }  // virtual time follows no clock

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
  Time next_time() const {
    const Timer* t = settle();
    return t != nullptr ? t->time : kNever;
  }

 private:
  Time read_clock() const override { return now_; }  // now() reads now_ itself
  // A timer queued in the current year: its time is year_start_ + offset.
  struct Cell {
    std::uint32_t offset;
    std::uint32_t slot;
  };
  // A timer in the current bucket or beyond the year.
  struct Timer {
    Time time;
    std::uint32_t slot;
  };
  // What a TimerId names, and what its timer calls. The generation moves on when the
  // timer fires or is cancelled, so that old handles go stale. A cancelled slot (target
  // nullptr) is freed when the queue reaches its timer; a free slot's `arg` links the next
  // free one.
  struct Slot {
    std::uint32_t generation;
    std::uint32_t tag;
    TimerTarget* target;
    std::uint64_t arg;
    std::uint64_t key;  // priority in the top 8 bits, then sequence
  };
  static constexpr std::size_t kBucketCells = 8;
  static constexpr std::size_t kChunkCells = 15;
  // A bucket's first timers: one cache line.
  struct alignas(64) Line {
    std::array<Cell, kBucketCells> cells;
  };
  // Timers beyond a bucket's line: a list of chunks (two cache lines each), the head chunk
  // filling up first.
  struct Chunk {
    std::uint32_t next;
    std::uint32_t count;
    std::array<Cell, kChunkCells> cells;
  };
  // `Later{...}(a, b)`: a fires after b. A type rather than a function, so that the sort
  // and heap algorithms inline it; equal times (rare but for crowds) compare the slots' keys.
  struct Later {
    const Slot* slots;
    bool operator()(const Timer& a, const Timer& b) const {
      return a.time != b.time ? a.time > b.time : slots[a.slot].key > slots[b.slot].key;
    }
  };
  Later later() const { return Later{slots_.data()}; }

  // schedule() and schedule_at_place(), inlined into both.
  TimerId place_timer(std::uint64_t place, Time at, Priority priority, TimerTarget* target,
                      std::uint32_t tag, std::uint64_t arg);
  bool live(std::uint32_t slot) const { return slots_[slot].target != nullptr; }
  void free_slot(std::uint32_t slot) const;
  void insert(Time time, std::uint32_t slot) const;
  // Out of line, so that insert()'s common path stays small.
  [[gnu::noinline]] void push_near(Timer timer) const;
  void append(std::size_t bucket, Cell cell) const;
  void spill(std::size_t bucket, Cell cell) const;
  void release(std::uint32_t chunk) const;
  // The earliest live timer (in run_ or heap_), dropping cancelled ones on the way;
  // nullptr when no timer is pending. Moves timers between levels only, hence const.
  const Timer* settle() const;
  void pull() const;
  void rebuild() const;
  void drop_dead();  // the cancel-time compaction rule above
  void compact();

  Time now_ = 0;
  std::uint64_t sequence_ = 0;
  std::uint64_t events_run_ = 0;
  std::size_t live_ = 0;
  mutable std::size_t dead_ = 0;  // cancelled timers still queued
  mutable std::vector<Slot> slots_;
  mutable std::uint32_t free_slot_ = UINT32_MAX;
  mutable std::vector<Chunk> chunks_;
  mutable std::uint32_t free_chunk_ = UINT32_MAX;

  // The queue. Invariant: timers due at or before near_last_ are in run_ (those of the
  // current bucket when it was reached, sorted latest first) or heap_ (those scheduled into
  // it since); those due in (near_last_, year_last_] are in the buckets [next_bucket_,
  // bucket_count_), bucket i holding those due in [year_start_ + i * 2^shift_, year_start_
  // + (i + 1) * 2^shift_); later ones are in overflow_. The year spans at most 2^32 µs.
  // Bounds are inclusive so that they never overflow.
  mutable std::vector<Timer> run_;
  mutable std::vector<Timer> heap_;
  // Bucket i keeps its first kBucketCells timers in lines_[i] and the rest in the chunks
  // from spills_[i]; counts_[i] is how many cells of its line it uses. Counts are kept
  // apart so that scheduling reads only this small array and writes one cell.
  mutable std::vector<std::uint8_t> counts_;
  mutable std::vector<Line> lines_;
  mutable std::vector<std::uint32_t> spills_;
  mutable std::vector<Timer> overflow_;
  mutable Time year_start_ = 0;
  mutable Time near_last_ = -1;
  mutable Time year_last_ = -1;
  mutable unsigned shift_ = 0;
  mutable std::size_t bucket_count_ = 0;
  mutable std::size_t next_bucket_ = 0;

  Rng root_;
  std::array<Rng, kStreamCount> streams_;
};

}  // namespace drainsim
