// RealSystem: the processes of a real job system under `drainsim real` (adapters/README.md):
// one worker process per container, as the platform sees it (a ProcessHandle), the
// enqueuer that pushes each arriving job through the system's own client, and the
// inspector that says where the broker holds each job. What a worker is doing is learnt
// from the adapter's events file, read every 20 ms on the models' strand: "ready" makes it
// running, "quiet" quiet, "shutdown" draining, and its attempts started and not ended are
// its active jobs; an attempt's "child" names the pool child that runs it, which an OOM
// kill of one child (oom_kill_child) takes, as the model's does: the longest-running. The
// enqueuer's "enqueued JOB" lines say when each push was done, "refused JOB" which push the
// system refused. Every process runs in a
// process group of its own that dies with drainsim, is reaped when it ends, and is killed
// and reaped by shut_down() (or the destructor). Runs on the models' strand.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/streambuf.hpp>

#include "engine/asio_runtime.h"
#include "model/process_handle.h"
#include "process/child_process.h"

namespace drainsim {

struct RealSystemOptions {
  std::vector<std::string> worker;   // argv of one worker process; "{worker}" becomes pod-N
  std::vector<std::string> enqueue;  // argv of the enqueuer
  std::vector<std::string> inspect;  // argv of the inspector
  std::vector<std::string> env;      // their environment; a worker also gets DRAINSIM_WORKER
  std::string events;                // the adapter's events file
  std::string logs;                  // directory for the programs' output
  bool pid1_shell = false;           // a shell as each container's PID 1
  double origin = 0;                 // unix seconds at run time 0
};

// A process that ended during the run, in unix seconds.
struct RealEnding {
  pid_t pid = 0;
  double at = 0;
  bool signalled = false;
};

class RealWorker;

class RealSystem final : public TimerTarget {
 public:
  RealSystem(StrandRuntime& rt, boost::asio::io_context& io, RealSystemOptions options);
  ~RealSystem();
  RealSystem(const RealSystem&) = delete;
  RealSystem& operator=(const RealSystem&) = delete;

  ProcessFactory factory();
  // Starts the enqueuer and the events reader. Throws std::runtime_error when the enqueuer
  // cannot be run.
  void start();
  // Pushes a job: writes `line` ("JOB DURATION_S [FAIL_1 ...]") to the enqueuer.
  void enqueue(const std::string& line);
  // Runs the inspector; `done` gets its output (stdout) and whether it exited 0.
  void inspect(std::function<void(std::string output, bool ok)> done);
  // Stops the run: it cannot go on (the first reason is kept).
  void fail(std::string why);
  // Called (on the strand) after anything the run's end may depend on has changed.
  void set_on_change(std::function<void()> fn) { on_change_ = std::move(fn); }

  // When the enqueuer confirmed each push, by job id (run time); and each push the system
  // refused ("refused JOB": a singleton class's key was taken).
  const std::map<std::uint64_t, Time>& enqueued() const { return enqueued_; }
  const std::map<std::uint64_t, Time>& refused() const { return refused_; }
  std::int64_t written() const { return written_; }
  // Attempts started and not ended in processes still alive.
  std::size_t open_attempts() const { return open_.size(); }
  // Why the run cannot go on (a program that cannot run, an enqueuer that died), or "".
  const std::string& fatal() const { return fatal_; }
  const std::vector<RealEnding>& endings() const { return endings_; }

  // Kills and reaps every process left (workers, enqueuer, inspector); returns how many
  // workers were still running. Call with the strand stopped.
  int shut_down();

  void on_timer(std::uint32_t tag, std::uint64_t arg) override;

 private:
  friend class RealWorker;

  void read_events();
  void read_enqueuer();
  void on_exit(pid_t pid, ChildExit how);
  void changed() {
    if (on_change_) on_change_();
  }
  std::string log_file(const std::string& name) const;

  StrandRuntime& rt_;
  boost::asio::io_context& io_;
  RealSystemOptions options_;
  Reaper reaper_;
  std::vector<RealWorker*> current_;  // by pod: its latest process
  std::map<pid_t, RealWorker*> by_pid_;
  // The pool child that takes an OOM kill of one child in `worker`'s process: the one
  // that has run its attempt the longest. SIGKILLs it, ends that attempt (a pool child's
  // ending, for the adapter's events) and returns true; false when no pool child of it
  // runs a job (an idle child would be replaced, and nothing lost).
  bool kill_longest_child(RealWorker& worker);

  struct OpenRun {
    double started = 0;  // unix seconds, the adapter's
    pid_t child = 0;     // the pool child that runs it, when the adapter names one
  };
  // Attempts started and not ended, by pid, run, job and attempt.
  std::map<std::tuple<pid_t, std::int64_t, std::uint64_t, int>, OpenRun> open_;
  std::vector<RealEnding> endings_;
  std::uint64_t events_offset_ = 0;
  std::string partial_;
  pid_t enqueuer_ = -1;
  int enqueuer_in_ = -1;
  std::unique_ptr<boost::asio::posix::stream_descriptor> enqueuer_out_;
  boost::asio::streambuf enqueuer_buf_;
  std::map<std::uint64_t, Time> enqueued_;
  std::map<std::uint64_t, Time> refused_;
  std::int64_t written_ = 0;
  std::map<pid_t, std::pair<std::string, std::function<void(std::string, bool)>>> inspections_;
  int inspections_run_ = 0;
  std::string fatal_;
  std::function<void()> on_change_;
  bool stopping_ = false;
};

}  // namespace drainsim
