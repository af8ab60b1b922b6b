// A user's input file, opened with checks before a byte is read: it must be a regular
// file (a directory, a device such as /dev/zero, a FIFO or a socket is refused by its type,
// and opening never blocks), and no larger than the limit of its kind (docs/scenario.md,
// "Error messages"; results/README.md, "Reading a results file").
// Every reader of the user's files goes through here: the scenario loader (io), results
// and sweep part readers, the viewer's reader. Thread-safe (no shared state).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace drainsim {

// The largest file of each kind a reader takes. Scenarios are a few KB; the reference
// hour's results with its timeline are 731 MB (bench/README.md).
inline constexpr std::uint64_t kMaxScenarioBytes = std::uint64_t{4} << 20;  // 4 MiB
// A Kubernetes manifest (drainsim import k8s): Helm's rendered output of a whole chart.
inline constexpr std::uint64_t kMaxManifestBytes = std::uint64_t{16} << 20;  // 16 MiB
inline constexpr std::uint64_t kMaxResultsBytes = std::uint64_t{2} << 30;    // 2 GiB

// "4 MiB", "2 GiB": a limit as the messages name it.
std::string format_bytes_limit(std::uint64_t bytes);

// An open input file: its descriptor (owned, closed by the destructor) and size.
class InputFile {
 public:
  // Opens `path` for reading. On failure fd() is -1 and error() says why, without the path:
  // "No such file or directory", "is a directory", "not a regular file (a FIFO)",
  // "3.1 GB, more than the 2 GiB a results file may be".
  // `kind` names the file in the size message ("a scenario file", "a results file").
  InputFile(const std::string& path, std::uint64_t max_bytes, const std::string& kind);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  int fd() const { return fd_; }
  std::uint64_t size() const { return size_; }
  const std::string& error() const { return error_; }

  // The whole file; nullopt (error() set) when it cannot be read or grew past the limit
  // while being read. REQUIRES: fd() >= 0.
  std::optional<std::string> read_all();

 private:
  int fd_ = -1;
  std::uint64_t size_ = 0, max_ = 0;
  std::string kind_, error_;
};

// The device and inode of `path` (following symbolic links), or nullopt when it does not
// exist: two paths name the same file when these are equal.
std::optional<std::pair<std::uint64_t, std::uint64_t>> file_identity(const std::string& path);

// Where byte `pos` (from 0) of an input file's `text` is, as an editor counts: "line 3,
// column 7", both from 1. A `pos` past the end is the end.
std::string line_col(std::string_view text, std::size_t pos);

}  // namespace drainsim
