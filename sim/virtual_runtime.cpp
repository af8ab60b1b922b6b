#include "virtual_runtime.h"

#include <cassert>

namespace drainsim {

namespace {
constexpr std::size_t kArity = 4;
constexpr std::uint32_t kNoSlot = UINT32_MAX;
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
  std::uint32_t slot;
  if (free_head_ != kNoSlot) {
    slot = free_head_;
    free_head_ = slots_[slot].heap_index;
  } else {
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.push_back(Slot{nullptr, 0, 0, 0, 0});
  }
  Slot& s = slots_[slot];
  s.target = target;
  s.arg = arg;
  s.tag = tag;
  const Entry e{at, (std::uint64_t{static_cast<std::uint8_t>(priority)} << 56) | sequence_++, slot};
  heap_.emplace_back();
  sift_up(heap_.size() - 1, e);
  return TimerId{slot, s.generation};
}

void VirtualRuntime::cancel(TimerId& id) {
  if (id.pending() && id.slot < slots_.size() && slots_[id.slot].generation == id.generation &&
      slots_[id.slot].target != nullptr) {
    const std::uint32_t index = slots_[id.slot].heap_index;
    remove_at(index);
    free_slot(id.slot);
  }
  id = TimerId{};
}

void VirtualRuntime::free_slot(std::uint32_t slot) {
  Slot& s = slots_[slot];
  s.target = nullptr;
  ++s.generation;
  s.heap_index = free_head_;
  free_head_ = slot;
}

void VirtualRuntime::sift_up(std::size_t index, Entry e) {
  while (index > 0) {
    const std::size_t parent = (index - 1) / kArity;
    if (!before(e, heap_[parent])) break;
    place(index, heap_[parent]);
    index = parent;
  }
  place(index, e);
}

void VirtualRuntime::sift_down(std::size_t index, Entry e) {
  const std::size_t n = heap_.size();
  while (true) {
    const std::size_t first = index * kArity + 1;
    if (first >= n) break;
    std::size_t best = first;
    const std::size_t last = first + kArity < n ? first + kArity : n;
    for (std::size_t c = first + 1; c < last; ++c) {
      if (before(heap_[c], heap_[best])) best = c;
    }
    if (!before(heap_[best], e)) break;
    place(index, heap_[best]);
    index = best;
  }
  place(index, e);
}

void VirtualRuntime::remove_at(std::size_t index) {
  const Entry last = heap_.back();
  heap_.pop_back();
  if (index == heap_.size()) return;
  if (index > 0 && before(last, heap_[(index - 1) / kArity])) {
    sift_up(index, last);
  } else {
    sift_down(index, last);
  }
}

bool VirtualRuntime::step(Time until) {
  if (heap_.empty() || heap_.front().time > until) return false;
  const Entry top = heap_.front();
  remove_at(0);
  now_ = top.time;
  Slot& s = slots_[top.slot];
  TimerTarget* target = s.target;
  const std::uint32_t tag = s.tag;
  const std::uint64_t arg = s.arg;
  free_slot(top.slot);
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
