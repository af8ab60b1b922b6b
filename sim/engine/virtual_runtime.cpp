#include "engine/virtual_runtime.h"

#include <algorithm>
#include <bit>
#include <cassert>

namespace drainsim {

namespace {
constexpr std::uint32_t kNil = UINT32_MAX;
// Compaction runs when the cancelled timers still queued exceed this, the live ones and a
// quarter of the buckets (so that its cost is amortised over the cancels).
constexpr std::size_t kCompactMin = 256;
// The calendar's bucket width aims at this many timers per bucket.
constexpr std::uint64_t kPerBucket = 8;
// A year spans at most this many µs, so that a cell's offset fits in 32 bits.
constexpr std::uint64_t kYearSpan = std::uint64_t{1} << 32;
}  // namespace

VirtualRuntime::VirtualRuntime(std::uint64_t seed) : Runtime(&now_), root_(seed) {
  for (std::size_t i = 0; i < streams_.size(); ++i) streams_[i] = root_.fork(i);
}

Rng& VirtualRuntime::rng(Stream stream) {
  return streams_[static_cast<std::size_t>(stream) % streams_.size()];
}

inline TimerId VirtualRuntime::place_timer(std::uint64_t place, Time at, Priority priority,
                                           TimerTarget* target, std::uint32_t tag,
                                           std::uint64_t arg) {
  assert(at >= now_ && target != nullptr && place < sequence_);
  std::uint32_t slot = free_slot_;
  if (slot != kNil) {
    free_slot_ = static_cast<std::uint32_t>(slots_[slot].arg);
  } else {
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Slot& s = slots_[slot];
  s.tag = tag;
  s.target = target;
  s.arg = arg;
  s.key = (std::uint64_t{static_cast<std::uint8_t>(priority)} << 56) | place;
  ++live_;
  insert(at, slot);
  return TimerId{slot, s.generation};
}

TimerId VirtualRuntime::schedule(Time at, Priority priority, TimerTarget* target, std::uint32_t tag,
                                 std::uint64_t arg) {
  return place_timer(sequence_++, at, priority, target, tag, arg);
}

TimerId VirtualRuntime::schedule_at_place(std::uint64_t place, Time at, Priority priority,
                                          TimerTarget* target, std::uint32_t tag,
                                          std::uint64_t arg) {
  return place_timer(place, at, priority, target, tag, arg);
}

void VirtualRuntime::cancel(TimerId& id) {
  if (id.pending() && id.slot < slots_.size() && slots_[id.slot].generation == id.generation) {
    Slot& s = slots_[id.slot];
    ++s.generation;
    s.target = nullptr;  // the queued timer is dropped, and the slot freed, when reached
    --live_;
    ++dead_;
    if (dead_ > std::max({kCompactMin, live_, bucket_count_ / 4})) drop_dead();
  }
  id = TimerId{};
}

void VirtualRuntime::free_slot(std::uint32_t slot) const {
  slots_[slot].arg = free_slot_;
  free_slot_ = slot;
}

void VirtualRuntime::insert(Time time, std::uint32_t slot) const {
  if (time > near_last_ && time <= year_last_) {  // the common case first
    const auto offset = static_cast<std::uint32_t>(time - year_start_);
    append(offset >> shift_, Cell{offset, slot});
  } else if (time <= near_last_) {
    push_near(Timer{time, slot});
  } else {
    overflow_.push_back(Timer{time, slot});
  }
}

void VirtualRuntime::push_near(Timer timer) const {
  heap_.push_back(timer);
  std::push_heap(heap_.begin(), heap_.end(), later());
}

void VirtualRuntime::append(std::size_t bucket, Cell cell) const {
  std::uint8_t& count = counts_[bucket];
  if (count < kBucketCells) {
    lines_[bucket].cells[count++] = cell;
  } else {
    spill(bucket, cell);
  }
}

void VirtualRuntime::spill(std::size_t bucket, Cell cell) const {
  std::uint32_t head = spills_[bucket];
  if (head == kNil || chunks_[head].count == kChunkCells) {
    std::uint32_t chunk = free_chunk_;
    if (chunk != kNil) {
      free_chunk_ = chunks_[chunk].next;
    } else {
      chunk = static_cast<std::uint32_t>(chunks_.size());
      chunks_.emplace_back();
    }
    chunks_[chunk].next = head;
    chunks_[chunk].count = 0;
    head = spills_[bucket] = chunk;
  }
  Chunk& c = chunks_[head];
  c.cells[c.count++] = cell;
}

void VirtualRuntime::release(std::uint32_t chunk) const {
  chunks_[chunk].count = 0;  // so that compact() can tell pooled chunks from used ones
  chunks_[chunk].next = free_chunk_;
  free_chunk_ = chunk;
}

const VirtualRuntime::Timer* VirtualRuntime::settle() const {
  while (true) {
    const Timer* t = run_.empty() ? nullptr : &run_.back();
    const bool from_heap = !heap_.empty() && (t == nullptr || later()(*t, heap_.front()));
    if (from_heap) t = &heap_.front();
    if (t != nullptr) {
      if (live(t->slot)) return t;
      free_slot(t->slot);
      if (from_heap) {
        std::pop_heap(heap_.begin(), heap_.end(), later());
        heap_.pop_back();
      } else {
        run_.pop_back();
      }
      --dead_;
    } else if (next_bucket_ < bucket_count_) {
      pull();
    } else if (!overflow_.empty()) {
      rebuild();
    } else {
      return nullptr;
    }
  }
}

// REQUIRES: run_ and heap_ are empty. Sorts the next non-empty bucket of the year (if any)
// into the run, and moves near_last_ to its end.
void VirtualRuntime::pull() const {
  while (next_bucket_ < bucket_count_ && counts_[next_bucket_] == 0) ++next_bucket_;
  if (next_bucket_ < bucket_count_) {
    const std::size_t b = next_bucket_;
    const auto take = [&](const Cell* first, std::size_t count) {
      for (const Cell* c = first; c != first + count; ++c) {
        run_.push_back(Timer{year_start_ + c->offset, c->slot});
      }
    };
    if (counts_[b] == kBucketCells) {
      for (std::uint32_t chunk = spills_[b]; chunk != kNil;) {
        const Chunk& c = chunks_[chunk];
        take(c.cells.data(), c.count);
        const std::uint32_t next = c.next;
        release(chunk);
        chunk = next;
      }
      spills_[b] = kNil;
    }
    take(lines_[b].cells.data(), counts_[b]);
    counts_[b] = 0;
    // What the timers call is read when they fire: fetch it now.
    for (const Timer& t : run_) __builtin_prefetch(&slots_[t.slot]);
    std::sort(run_.begin(), run_.end(), later());
    ++next_bucket_;
  }
  near_last_ = next_bucket_ == bucket_count_
                   ? year_last_
                   : year_start_ + (static_cast<Time>(next_bucket_) << shift_) - 1;
}

// REQUIRES: run_, heap_ and every bucket are empty. Lays out a new calendar over overflow_,
// starting at its earliest timer. The bucket width aims at kPerBucket timers per bucket at
// the density of the earliest quarter; the year spans at most max(4n / kPerBucket, 16)
// buckets and kYearSpan µs.
void VirtualRuntime::rebuild() const {
  const std::size_t n = overflow_.size();
  const auto by_time = [](const Timer& a, const Timer& b) { return a.time < b.time; };
  const auto [lo, hi] = std::minmax_element(overflow_.begin(), overflow_.end(), by_time);
  const Time min_t = lo->time;
  const Time max_t = hi->time;
  std::uint64_t width;
  if (n >= 8) {
    const std::size_t q = n / 4;
    std::nth_element(overflow_.begin(), overflow_.begin() + static_cast<std::ptrdiff_t>(q),
                     overflow_.end(), by_time);
    width = kPerBucket * static_cast<std::uint64_t>(overflow_[q].time - min_t) / q;
  } else {
    width = static_cast<std::uint64_t>(max_t - min_t) / n;
  }
  shift_ = width > 1 ? std::min(static_cast<unsigned>(std::bit_width(width) - 1), 31u) : 0;
  year_start_ = min_t & ~((Time{1} << shift_) - 1);
  const std::uint64_t needed =
      ((static_cast<std::uint64_t>(max_t) - static_cast<std::uint64_t>(year_start_)) >> shift_) + 1;
  bucket_count_ = static_cast<std::size_t>(
      std::min({needed, std::max<std::uint64_t>(4 * n / kPerBucket, 16), kYearSpan >> shift_}));
  const std::uint64_t room =
      static_cast<std::uint64_t>(kNever) - static_cast<std::uint64_t>(year_start_);
  year_last_ = bucket_count_ <= ((room + 1) >> shift_)
                   ? year_start_ + static_cast<Time>((std::uint64_t{bucket_count_} << shift_) - 1)
                   : kNever;
  near_last_ = year_start_ - 1;
  next_bucket_ = 0;
  if (counts_.size() < bucket_count_) {
    counts_.resize(bucket_count_, 0);
    spills_.resize(bucket_count_, kNil);
    lines_.resize(bucket_count_);
  }
  std::size_t kept = 0;
  for (const Timer& t : overflow_) {
    if (!live(t.slot)) {
      free_slot(t.slot);
      --dead_;
    } else if (t.time <= year_last_) {
      insert(t.time, t.slot);
    } else {
      overflow_[kept++] = t;
    }
  }
  overflow_.resize(kept);
}

void VirtualRuntime::drop_dead() {
  // Far timers (leases) are the ones usually cancelled: dropping those beyond the year
  // is enough most times, and leaves the calendar as it is.
  std::erase_if(overflow_, [this](const Timer& t) {
    if (live(t.slot)) return false;
    free_slot(t.slot);
    --dead_;
    return true;
  });
  if (2 * dead_ > std::max({kCompactMin, live_, bucket_count_ / 4})) compact();
}

// The live timers go to overflow_ (the cancelled ones' slots are freed), every chunk back
// to the pool, and the next settle() lays out a new calendar.
void VirtualRuntime::compact() {
  std::vector<Timer> keep;
  keep.reserve(live_);
  const auto sort_out = [&](Time time, std::uint32_t slot) {
    if (live(slot)) {
      keep.push_back(Timer{time, slot});
    } else {
      free_slot(slot);
    }
  };
  for (const auto* timers : {&overflow_, &run_, &heap_}) {
    for (const Timer& t : *timers) sort_out(t.time, t.slot);
  }
  for (std::size_t b = next_bucket_; b < bucket_count_; ++b) {
    for (std::size_t i = 0; i < counts_[b]; ++i) {
      const Cell c = lines_[b].cells[i];
      sort_out(year_start_ + c.offset, c.slot);
    }
    counts_[b] = 0;
    spills_[b] = kNil;
  }
  free_chunk_ = kNil;
  for (std::size_t i = chunks_.size(); i-- > 0;) {
    const Chunk& chunk = chunks_[i];
    for (std::size_t k = 0; k < chunk.count; ++k) {
      sort_out(year_start_ + chunk.cells[k].offset, chunk.cells[k].slot);
    }
    release(static_cast<std::uint32_t>(i));
  }
  overflow_.swap(keep);
  run_.clear();
  heap_.clear();
  bucket_count_ = 0;
  next_bucket_ = 0;
  near_last_ = -1;
  year_last_ = -1;
  dead_ = 0;
}

bool VirtualRuntime::step(Time until) {
  const Timer* t = settle();
  if (t == nullptr || t->time > until) return false;
  const Timer top = *t;
  if (!heap_.empty() && t == &heap_.front()) {
    std::pop_heap(heap_.begin(), heap_.end(), later());
    heap_.pop_back();
  } else {
    run_.pop_back();
  }
  Slot& s = slots_[top.slot];
  ++s.generation;
  TimerTarget* target = s.target;
  const std::uint32_t tag = s.tag;
  const std::uint64_t arg = s.arg;
  free_slot(top.slot);
  --live_;
  now_ = top.time;
  ++events_run_;
  target->on_timer(tag, arg);
  return true;
}

void VirtualRuntime::run_until(Time until) {
  while (step(until)) {
  }
  if (until != kNever && until > now_) now_ = until;
}

}  // namespace drainsim
