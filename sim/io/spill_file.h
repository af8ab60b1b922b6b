// SpillFile: bytes appended through a buffer to an unnamed temporary file, then read back
// in order, so that a long run's output costs the buffer's memory, not its size. The file
// is made (in $TMPDIR, else /tmp; O_TMPFILE where the file system has it) only once the
// buffer first fills, and is gone when closed: nothing is left behind, even after a crash.
// Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace drainsim {

// Receives text in pieces.
using TextSink = std::function<void(std::string_view)>;

class SpillFile {
 public:
  static constexpr std::size_t kDefaultBuffer = std::size_t{1} << 20;
  static constexpr std::size_t kMinBuffer = 512;

  // `buffer`: the buffer's size in bytes (at least kMinBuffer).
  explicit SpillFile(std::size_t buffer = kDefaultBuffer);
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  // Room for at least `n` bytes at the end: write them at the pointer returned, then
  // commit() what was written. The buffer is written out first when it has less room.
  // REQUIRES: n <= the buffer's size.
  char* reserve(std::size_t n) {
    if (cap_ - used_ < n) make_room();
    return buf_.get() + used_;
  }
  // Appends the bytes from reserve()'s pointer up to `end`.
  void commit(const char* end) { used_ = static_cast<std::size_t>(end - buf_.get()); }
  void append(std::string_view bytes);

  // The bytes appended so far.
  std::uint64_t size() const { return spilled_ + used_; }
  // Calls `out` with the bytes appended so far, in order, in pieces of at most the
  // buffer's size. Throws std::runtime_error, naming the folder and the reason, when the
  // temporary file could not be made, written or read; std::logic_error once released.
  void read(const TextSink& out) const;
  // read() for the last time: gives each piece's pages back to the file system once `out`
  // has taken it, and the buffer at the end. The pages a file written by `out` needs then
  // reuse those, rather than adding as many: writing N bytes out of a spill of N bytes
  // takes N bytes of the page cache, not 2N. Appending or reading afterwards is an error.
  void read_and_release(const TextSink& out);

 private:
  void make_room();  // makes the buffer, or writes it out (making the file first)
  void read(const TextSink& out, bool release) const;

  std::size_t buffer_;   // the buffer's size
  std::size_t cap_ = 0;  // the same once the buffer is made (on the first reserve)
  std::unique_ptr<char[]> buf_;
  std::size_t used_ = 0;
  int fd_ = -1;
  std::uint64_t spilled_ = 0;  // bytes written to the file
  std::string error_;          // why the file could not be made or written ("" if it could)
  bool released_ = false;
};

}  // namespace drainsim
