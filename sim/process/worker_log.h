// WorkerLog: the file `--worker-log` names, shared by every worker process of a run, with
// a cap. Each worker writes its stdout and stderr to a pipe of its own, which a thread of
// the log copies into the file as the output comes, up to `cap` bytes in all for the run;
// then one line in the file says the log was cut there, and the rest is read and dropped,
// so a worker that floods its output never blocks on a full pipe nor sees a write fail:
// it runs as it would with its output discarded. Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace drainsim {

class WorkerLog {
 public:
  // The default cap: 64 MiB.
  static constexpr std::uint64_t kDefaultCap = std::uint64_t{64} << 20;

  // Opens `path` for appending and starts the copying thread. cap 0: no cap. Throws
  // std::runtime_error (naming the file and why) when it cannot be opened.
  WorkerLog(const std::string& path, std::uint64_t cap);
  ~WorkerLog();  // stop()
  WorkerLog(const WorkerLog&) = delete;
  WorkerLog& operator=(const WorkerLog&) = delete;

  // The write end of a new pipe, for a child's stdout and stderr (close-on-exec: spawn()
  // duplicates it into the child). The caller closes it once the child is spawned.
  int add();
  // Copies what the pipes still hold (all of it once their writers are gone), then stops
  // the thread and closes the file. Idempotent.
  void stop();

  // Bytes of the workers' output written to the file so far, and whether some was cut.
  std::uint64_t written() const { return written_.load(); }
  bool cut() const { return cut_.load(); }

 private:
  void run();
  // Reads what `fd` holds now; false at its end (every writer gone) or on an error.
  bool drain(int fd);
  void write_out(const char* data, std::size_t size);

  std::string path_;
  std::uint64_t cap_;
  int file_ = -1;
  int devnull_ = -1;        // where the output goes once cut (the thread's own)
  int wake_[2] = {-1, -1};  // a self-pipe: a new reader, or stop
  std::mutex mu_;           // guards added_
  std::vector<int> added_;  // read ends not yet taken by the thread
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> written_{0};
  std::atomic<bool> cut_{false};
  std::thread thread_;
};

}  // namespace drainsim
