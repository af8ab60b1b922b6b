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
#include <optional>
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
  // The broker, watched while the run lasts: its process (a child of drainsim that this
  // object never reaps), its program's name and its log, for the messages.
  pid_t broker_pid = -1;
  std::string broker_name;
  std::string broker_log;
  // The bounds on waiting for the system's programs: the enqueuer's word on the oldest push
  // it has not confirmed (from that push, or the last confirmation if later; also how long
  // the broker may stay stopped), and the inspector's answer, which lists every job: a
  // base and a part per job pushed.
  Duration confirm_wait = 15 * kSecond;
  Duration inspect_wait = 30 * kSecond;
  Duration inspect_wait_per_job = 10 * kMillisecond;
};

// Why a run could not go on: which of its processes failed, when, and why, the cause first.
struct RealFailure {
  std::string component;  // "broker", "enqueuer", "inspector" or "worker"
  Time at = 0;
  std::string reason;
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
  // Runs the inspector; `done` gets its output (stdout) and whether it exited 0, or, when it
  // has not answered within its wait (inspect_wait + inspect_wait_per_job per job pushed so
  // far), why not (it is killed).
  void inspect(std::function<void(std::string output, bool ok)> done);
  // Stops the run: `component` failed and it cannot go on (the first failure is kept). When
  // the broker has died meanwhile, the failure is the broker's, `why` what followed.
  void fail(std::string component, std::string why);
  // Called (on the strand) after anything the run's end may depend on has changed.
  void set_on_change(std::function<void()> fn) { on_change_ = std::move(fn); }

  // When the enqueuer confirmed each push, by job id (run time); and each push the system
  // refused ("refused JOB": a singleton class's key was taken).
  const std::map<std::uint64_t, Time>& enqueued() const { return enqueued_; }
  const std::map<std::uint64_t, Time>& refused() const { return refused_; }
  std::int64_t written() const { return written_; }
  // Attempts started and not ended in processes still alive.
  std::size_t open_attempts() const { return open_.size(); }
  // Why the run cannot go on (a program that cannot run, an enqueuer that died, the broker
  // dead), or none.
  const std::optional<RealFailure>& failure() const { return failure_; }
  // The broker's trouble, as this process sees its child: "" while it runs, else e.g.
  // "died (SIGKILL)", "exited (code 1)" or "is stopped (SIGSTOP)"; `dead` says which.
  std::string broker_trouble(bool* dead = nullptr) const;
  const std::vector<RealEnding>& endings() const { return endings_; }
  // Workers that a signal drainsim did not send ended ("pod-1's worker (pid 812) ended at
  // 20.1s by SIGKILL"): their own crash, or another process's kill. The run goes on: the
  // platform restarts them as it would any crash.
  const std::vector<std::string>& outside_ends() const { return outside_ends_; }

  // Kills and reaps every process left (workers, enqueuer, inspector); returns how many
  // workers were still running. Call with the strand stopped.
  int shut_down();

  void on_timer(std::uint32_t tag, std::uint64_t arg) override;

 private:
  friend class RealWorker;

  void read_events();
  void read_enqueuer();
  void on_exit(pid_t pid, ChildExit how);
  // Fails the run when the broker has died or stayed stopped, or the enqueuer has stalled.
  void watch();
  Duration inspect_wait() const {
    return options_.inspect_wait + options_.inspect_wait_per_job * written_;
  }
  std::int64_t unconfirmed() const {
    return written_ - static_cast<std::int64_t>(enqueued_.size() + refused_.size());
  }
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
  struct InspectorRun {
    std::string output;  // the file its stdout goes to
    Duration wait;       // how long it is given
    std::function<void(std::string, bool)> done;
  };
  std::map<pid_t, InspectorRun> inspections_;
  int inspections_run_ = 0;
  std::optional<RealFailure> failure_;
  std::vector<std::string> outside_ends_;
  Time last_confirm_progress_ = 0;  // the last confirmation, or the push that began a wait
  Time broker_stopped_since_ = -1;
  std::function<void()> on_change_;
  bool stopping_ = false;
};

}  // namespace drainsim
