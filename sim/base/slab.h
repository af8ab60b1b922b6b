// Slab<T>: slots of T reused once released, addressed by a 32-bit index. acquire() hands
// out the slot released last (or a new one at the end), so indexes stay dense and memory
// follows the most objects alive at once, not all ever made. acquire() may move the
// slots (references into the slab do not survive it); an index stays valid until it is
// released. The caller knows which slots are live (size() counts them all).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace drainsim {

template <typename T>
class Slab {
 public:
  // A slot for a new object: the caller assigns it.
  std::uint32_t acquire() {
    if (!free_.empty()) {
      const std::uint32_t i = free_.back();
      free_.pop_back();
      return i;
    }
    slots_.emplace_back();
    return static_cast<std::uint32_t>(slots_.size() - 1);
  }
  void release(std::uint32_t i) { free_.push_back(i); }

  T& operator[](std::uint32_t i) { return slots_[i]; }
  const T& operator[](std::uint32_t i) const { return slots_[i]; }
  // Every slot made so far, live or released.
  std::size_t size() const { return slots_.size(); }
  std::size_t live() const { return slots_.size() - free_.size(); }

 private:
  std::vector<T> slots_;
  std::vector<std::uint32_t> free_;  // released slots, the last released at the back
};

}  // namespace drainsim
