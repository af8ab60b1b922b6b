#include "virtual_runtime.h"

#include <algorithm>
#include <bit>
#include <cassert>

namespace drainsim {

namespace {
constexpr std::uint32_t kNil = UINT32_MAX;
// Compaction runs when the cancelled timers still queued exceed this, the live ones and a
// quarter of the buckets (so that its cost is amortised over the cancels).
constexpr std::size_t kCompactMin = 256;
}  // namespace

VirtualRuntime::VirtualRuntime(std::uint64_t seed) : root_(seed) {
  for (std::size_t i = 0; i < streams_.size(); ++i) streams_[i] = root_.fork(i);
}

Rng& VirtualRuntime::rng(Stream stream) {
  return streams_[static_cast<std::size_t>(stream) % streams_.size()];
}

TimerId VirtualRuntime::schedule(Time at, Priority priority, TimerTarget* target, std::uint32_t tag,
                                 std::uint64_t arg) {
  assert(at >= now_);
  std::uint32_t slot = free_slot_;
  if (slot != kNil) {
    free_slot_ = slots_[slot].node;
  } else {
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.push_back(Slot{0, kNil});
  }
  const std::uint32_t node = new_node();
  nodes_[node] =
      Node{at,     (std::uint64_t{static_cast<std::uint8_t>(priority)} << 56) | sequence_++,
           target, arg,
           tag,    slot,
           kNil};
  slots_[slot].node = node;
  ++live_;
  insert(node);
  return TimerId{slot, slots_[slot].generation};
}

void VirtualRuntime::cancel(TimerId& id) {
  if (id.pending() && id.slot < slots_.size() && slots_[id.slot].generation == id.generation) {
    Slot& s = slots_[id.slot];
    nodes_[s.node].target = nullptr;  // dropped when the queue reaches it
    ++s.generation;
    s.node = free_slot_;
    free_slot_ = id.slot;
    --live_;
    ++dead_;
    if (dead_ > std::max({kCompactMin, live_, bucket_count_ / 4})) compact();
  }
  id = TimerId{};
}

std::uint32_t VirtualRuntime::new_node() const {
  if (free_node_ != kNil) {
    const std::uint32_t node = free_node_;
    free_node_ = nodes_[node].next;
    return node;
  }
  nodes_.emplace_back();
  return static_cast<std::uint32_t>(nodes_.size() - 1);
}

void VirtualRuntime::release(std::uint32_t node) const {
  nodes_[node].target = nullptr;  // so that compact() can tell pooled nodes from live ones
  nodes_[node].next = free_node_;
  free_node_ = node;
}

void VirtualRuntime::link(std::uint32_t node, Time time) const {
  const std::uint64_t offset =
      static_cast<std::uint64_t>(time) - static_cast<std::uint64_t>(year_start_);
  std::uint32_t& head = heads_[offset >> shift_];
  nodes_[node].next = head;
  head = node;
}

void VirtualRuntime::insert(std::uint32_t node) const {
  const Node& n = nodes_[node];
  if (n.time <= heap_last_) {
    heap_.push_back(HeapEntry{n.time, n.key, node});
    std::push_heap(heap_.begin(), heap_.end(), later);
  } else if (n.time <= year_last_) {
    link(node, n.time);
  } else {
    overflow_.push_back(Far{n.time, node});
  }
}

bool VirtualRuntime::settle() const {
  while (true) {
    while (!heap_.empty()) {
      const std::uint32_t node = heap_.front().node;
      if (nodes_[node].target != nullptr) return true;
      std::pop_heap(heap_.begin(), heap_.end(), later);
      heap_.pop_back();
      release(node);
      --dead_;
    }
    while (next_bucket_ < bucket_count_ && heads_[next_bucket_] == kNil) ++next_bucket_;
    if (next_bucket_ < bucket_count_) {
      std::uint32_t node = heads_[next_bucket_];
      heads_[next_bucket_] = kNil;
      while (node != kNil) {
        const Node& n = nodes_[node];
        const std::uint32_t next = n.next;
        if (n.target != nullptr) {
          heap_.push_back(HeapEntry{n.time, n.key, node});
        } else {
          release(node);
          --dead_;
        }
        node = next;
      }
      ++next_bucket_;
      heap_last_ = next_bucket_ == bucket_count_
                       ? year_last_
                       : year_start_ + (static_cast<Time>(next_bucket_) << shift_) - 1;
      std::make_heap(heap_.begin(), heap_.end(), later);
      continue;
    }
    if (overflow_.empty()) return false;
    rebuild();
  }
}

// REQUIRES: heap_ and every bucket are empty. Lays out a new calendar over overflow_,
// starting at its earliest timer. The bucket width aims at about two timers per bucket at
// the density of the earliest quarter; the year spans at most max(2n, 16) buckets.
void VirtualRuntime::rebuild() const {
  const std::size_t n = overflow_.size();
  const auto by_time = [](const Far& a, const Far& b) { return a.time < b.time; };
  const auto [lo, hi] = std::minmax_element(overflow_.begin(), overflow_.end(), by_time);
  const Time min_t = lo->time;
  const Time max_t = hi->time;
  std::uint64_t width;
  if (n >= 8) {
    const std::size_t q = n / 4;
    std::nth_element(overflow_.begin(), overflow_.begin() + static_cast<std::ptrdiff_t>(q),
                     overflow_.end(), by_time);
    width = 2 * static_cast<std::uint64_t>(overflow_[q].time - min_t) / q;
  } else {
    width = static_cast<std::uint64_t>(max_t - min_t) / n;
  }
  shift_ = width > 1 ? static_cast<unsigned>(std::bit_width(width) - 1) : 0;
  year_start_ = min_t & ~((Time{1} << shift_) - 1);
  const std::uint64_t needed =
      ((static_cast<std::uint64_t>(max_t) - static_cast<std::uint64_t>(year_start_)) >> shift_) + 1;
  bucket_count_ =
      static_cast<std::size_t>(std::min<std::uint64_t>(needed, std::max<std::size_t>(2 * n, 16)));
  const std::uint64_t room =
      static_cast<std::uint64_t>(kNever) - static_cast<std::uint64_t>(year_start_);
  year_last_ = bucket_count_ <= ((room + 1) >> shift_)
                   ? year_start_ + static_cast<Time>((std::uint64_t{bucket_count_} << shift_) - 1)
                   : kNever;
  heap_last_ = year_start_ - 1;
  next_bucket_ = 0;
  if (heads_.size() < bucket_count_) heads_.resize(bucket_count_, kNil);
  std::size_t kept = 0;
  for (const Far& f : overflow_) {
    if (f.time <= year_last_) {
      link(f.node, f.time);
    } else {
      overflow_[kept++] = f;
    }
  }
  overflow_.resize(kept);
}

// Walks the node pool in order rather than the lists (which would miss the cache at every
// node): the live timers go to overflow_, everything else back to the pool, and the next
// settle() lays out a new calendar.
void VirtualRuntime::compact() {
  heap_.clear();
  std::fill(heads_.begin(), heads_.begin() + static_cast<std::ptrdiff_t>(bucket_count_), kNil);
  overflow_.clear();
  free_node_ = kNil;
  for (std::size_t i = nodes_.size(); i-- > 0;) {
    const auto node = static_cast<std::uint32_t>(i);
    if (nodes_[i].target != nullptr) {
      overflow_.push_back(Far{nodes_[i].time, node});
    } else {
      release(node);
    }
  }
  bucket_count_ = 0;
  next_bucket_ = 0;
  heap_last_ = -1;
  year_last_ = -1;
  dead_ = 0;
}

bool VirtualRuntime::step(Time until) {
  if (!settle() || heap_.front().time > until) return false;
  const HeapEntry top = heap_.front();
  std::pop_heap(heap_.begin(), heap_.end(), later);
  heap_.pop_back();
  const Node& n = nodes_[top.node];
  TimerTarget* target = n.target;
  const std::uint32_t tag = n.tag;
  const std::uint64_t arg = n.arg;
  Slot& s = slots_[n.slot];
  ++s.generation;
  s.node = free_slot_;
  free_slot_ = n.slot;
  release(top.node);
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
